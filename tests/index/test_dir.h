// Temporary folders of generated HLO dump files for the index tests.
#ifndef HLO_LSP_TESTS_INDEX_TEST_DIR_H_
#define HLO_LSP_TESTS_INDEX_TEST_DIR_H_

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "index/workspace_index.h"

namespace hlo::index::index_test {

class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "hlo-index-test-XXXXXX")
            .string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void WriteFile(const std::filesystem::path& path,
                      const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A small but dump-like module: `computations` computations of
// `instructions` instructions each, names derived from `seed`.
inline std::string MakeModule(const std::string& name, int computations,
                              int instructions, int seed) {
  std::mt19937 rng(seed);
  const char* ops[] = {"add",     "multiply", "dot",    "broadcast",
                       "reshape", "fusion",   "convert"};
  std::string out = "HloModule " + name +
                    ", entry_computation_layout={(f32[8]{0})->f32[8]{0}}\n\n";
  for (int c = 0; c < computations; ++c) {
    bool entry = c + 1 == computations;
    std::string cname = entry ? "main." + std::to_string(seed)
                              : "fused_computation." + std::to_string(c);
    out += (entry ? "ENTRY %" : "%") + cname +
           " (p0: f32[8]) -> f32[8] {\n  %p0." + std::to_string(c) +
           " = f32[8]{0} parameter(0)\n";
    for (int i = 0; i < instructions; ++i) {
      const char* op = ops[rng() % 7];
      std::string iname = std::string(op) + "." + std::to_string(c * 1000 + i);
      out += std::string(i + 1 == instructions ? "  ROOT %" : "  %") + iname +
             " = f32[8]{0} " + op + "(f32[8]{0} %p0." + std::to_string(c) +
             "), metadata={op_name=\"jit(" + name + ")/" + op +
             "\" "
             "source_file=\"model.py\" source_line=" +
             std::to_string(10 + i % 17) + "}\n";
    }
    out += "}\n\n";
  }
  return out;
}

// Index options for tests: no persisted cache, or one in `dir`.
inline IndexOptions NoCache() {
  IndexOptions o;
  o.use_cache = false;
  return o;
}

inline IndexOptions CacheIn(const std::filesystem::path& dir) {
  IndexOptions o;
  o.cache_dir = dir;
  return o;
}

}  // namespace hlo::index::index_test

#endif  // HLO_LSP_TESTS_INDEX_TEST_DIR_H_
