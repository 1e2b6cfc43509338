// Replays the real modules of ../shared/corpus (skipped when absent): counts
// the entry computations that pass the pre-pass (no unsupported op), and
// replays the small ones end to end with fake data in a child process.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "exec/replay.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"

namespace hlo::exec {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> HloFiles(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (!it->is_regular_file()) continue;
    const std::string ext = it->path().extension().string();
    if (ext == ".hlo" || ext == ".txt") out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

fs::path CorpusRoot() {
  return fs::path(HLO_LSP_SOURCE_DIR) / ".." / "shared" / "corpus";
}

TEST(CorpusReplayTest, EntryComputationsEvaluate) {
  const fs::path root = CorpusRoot();
  std::vector<fs::path> files = HloFiles(root / "xla-tests" / "hlo");
  std::vector<fs::path> dumps = HloFiles(root / "dumps");
  files.insert(files.end(), dumps.begin(), dumps.end());
  if (files.empty()) GTEST_SKIP() << "no corpus at " << root;
  int modules = 0, supported = 0, ran = 0, ok = 0, refused = 0, failed = 0,
      crashed = 0, too_big = 0;
  std::map<std::string, int> reasons;
  for (const fs::path& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    if (text.compare(0, 9, "HloModule") != 0 &&
        text.find("\nHloModule") == std::string::npos &&
        text.find("ENTRY") == std::string::npos)
      continue;
    auto file = Parse(text);
    for (Id m = 0; m < file->modules.size(); ++m) {
      if (file->modules[m].entry == kNone) continue;
      ++modules;
      absl::Status s = CheckSupported(*file, m);
      if (!s.ok()) {
        std::string why(s.message());
        reasons[why.substr(0, why.find(" (line"))]++;
        continue;
      }
      ++supported;
      auto estimate = EstimatePeakMemory(*file, m);
      const bool dump = path.string().find("/dumps/") != std::string::npos;
      if (!estimate || *estimate > (int64_t{256} << 20)) {
        ++too_big;
        if (dump)
          std::printf("  %s: refused up front, needs %lld bytes\n",
                      path.filename().c_str(),
                      static_cast<long long>(estimate.value_or(-1)));
        continue;
      }
      ReplayOptions o;
      o.memory_limit = int64_t{1} << 30;
      o.timeout_seconds = 20;
      ++ran;
      ReplayResult r = Replay(*file, m, o);
      if (r.outcome == ReplayOutcome::kOk) {
        ++ok;
      } else if (r.outcome == ReplayOutcome::kRefused) {
        ++refused;
      } else {
        ++failed;
        if (r.error.find("crashed") != std::string::npos) ++crashed;
      }
      if (dump || r.outcome != ReplayOutcome::kOk)
        std::printf("  %s [%u]: %s %s\n", path.filename().c_str(), m,
                    r.outcome == ReplayOutcome::kOk        ? "ok"
                    : r.outcome == ReplayOutcome::kRefused ? "refused:"
                                                           : "failed:",
                    r.error.substr(0, 160).c_str());
    }
  }
  std::printf(
      "corpus: %d entry computations, %d without an unsupported op, "
      "%d over 256 MiB, %d replayed: %d ok, %d refused while running, "
      "%d failed (%d crashed)\n",
      modules, supported, too_big, ran, ok, refused, failed, crashed);
  for (const auto& [why, n] : reasons)
    std::printf("  %4d x %s\n", n, why.c_str());
  EXPECT_EQ(crashed, 0);
  EXPECT_GT(supported, modules / 2);
  EXPECT_GE(ok, ran * 9 / 10);
}

}  // namespace
}  // namespace hlo::exec
