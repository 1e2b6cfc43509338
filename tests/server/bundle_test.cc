// The bug-report bundle in the editor: the code action on a module's dump
// and hlo.bundle, whose archive lands next to the module's files and never
// replaces an earlier one.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "server/documents.h"
#include "tests/index/test_dir.h"
#include "tests/server/server_harness.h"

namespace hlo_lsp {
namespace {

namespace fs = std::filesystem;

constexpr char kModule[] =
    "HloModule jit_f\n\nENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n";

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `tar -tzf ARCHIVE`: the member names, one a line.
std::string TarListing(const std::string& archive) {
  std::string out;
  FILE* pipe = ::popen(("tar -tzf '" + archive + "'").c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    out.append(buffer, n);
  }
  ::pclose(pipe);
  return out;
}

class BundleServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Write("module_0001.jit_f.before_optimizations.txt", kModule);
    Write("module_0001.jit_f.after_optimizations.txt", kModule);
    Write("module_0001.jit_f.after_optimizations-buffer-assignment.txt",
          "allocation 0: size 16\n");
    // The same id under another name: another module.
    Write("module_0001.jit_g.before_optimizations.txt",
          "HloModule jit_g\n\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n");
    h_.Initialize();
  }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_.path() / name, std::ios::binary) << text;
  }
  std::string Uri(const std::string& name) const {
    return PathToUri((dir_.path() / name).string());
  }
  Json Actions(const std::string& name) {
    return h_.Call("textDocument/codeAction",
                   {{"textDocument", {{"uri", Uri(name)}}},
                    {"range",
                     {{"start", {{"line", 0}, {"character", 0}}},
                      {"end", {{"line", 0}, {"character", 0}}}}},
                    {"context", {{"diagnostics", Json::array()}}}})["result"];
  }

  hlo::index::index_test::TempDir dir_;
  ServerHarness h_;
};

TEST_F(BundleServerTest, CodeActionOnAModuleDumpRunsHloBundle) {
  Json actions = Actions("module_0001.jit_f.after_optimizations.txt");
  ASSERT_TRUE(actions.is_array()) << actions.dump();
  const Json& last = actions.back();
  EXPECT_EQ(last["title"], "Create bug-report bundle");
  EXPECT_EQ(last["command"]["command"], "hlo.bundle");
  EXPECT_EQ(last["command"]["arguments"][0]["uri"],
            Uri("module_0001.jit_f.after_optimizations.txt"));
  // Protos of a module too; not a file that is no module's dump.
  EXPECT_EQ(Actions("module_0001.jit_f.before_optimizations.hlo.pb")
                .back()["command"]["command"],
            "hlo.bundle");
  Write("notes.hlo", kModule);
  for (const Json& a : Actions("notes.hlo")) {
    EXPECT_NE(a["command"]["command"], "hlo.bundle");
  }
}

TEST_F(BundleServerTest, BundleWritesNextToTheModuleAndNeverReplaces) {
  Json r =
      h_.Command("hlo.bundle",
                 {{"uri", Uri("module_0001.jit_f.after_optimizations.txt")}});
  ASSERT_TRUE(r["result"].is_object()) << r.dump();
  const fs::path archive = dir_.path() / "module_0001.jit_f.bundle.tar.gz";
  EXPECT_EQ(r["result"]["path"], archive.string());
  EXPECT_EQ(r["result"]["uri"], PathToUri(archive.string()));
  const std::vector<std::string> names = {
      "module_0001.jit_f.before_optimizations.txt",
      "module_0001.jit_f.after_optimizations.txt",
      "module_0001.jit_f.after_optimizations-buffer-assignment.txt"};
  const Json& files = r["result"]["files"];
  ASSERT_EQ(files.size(), names.size()) << files.dump();
  std::string listing = "module_0001.jit_f.bundle/MANIFEST.txt\n";
  std::string manifest =
      "hlo-lsp " HLO_LSP_VERSION "\nmodule: jit_f module_0001\n";
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(files[i]["name"], names[i]);
    EXPECT_EQ(files[i]["path"], (dir_.path() / names[i]).string());
    uint64_t size = fs::file_size(dir_.path() / names[i]);
    EXPECT_EQ(files[i]["size"], size);
    listing += "module_0001.jit_f.bundle/" + names[i] + "\n";
    manifest += std::to_string(size) + " " + names[i] + "\n";
  }
  EXPECT_EQ(r["result"]["manifest"], manifest);
  EXPECT_EQ(TarListing(archive.string()), listing);

  // Again: the next free name; the first archive is left as it was.
  const std::string first = ReadAll(archive);
  Json again =
      h_.Command("hlo.bundle",
                 {{"uri", Uri("module_0001.jit_f.before_optimizations.txt")}});
  ASSERT_TRUE(again["result"].is_object()) << again.dump();
  EXPECT_EQ(again["result"]["path"],
            (dir_.path() / "module_0001.jit_f.bundle-2.tar.gz").string());
  EXPECT_EQ(ReadAll(archive), first);
  std::string second = "module_0001.jit_f.bundle-2/MANIFEST.txt\n";
  for (const std::string& name : names) {
    second += "module_0001.jit_f.bundle-2/" + name + "\n";
  }
  EXPECT_EQ(TarListing(again["result"]["path"]), second);
}

TEST_F(BundleServerTest, AMissingFileIsARequestFailure) {
  Json r = h_.Command("hlo.bundle", {{"uri", Uri("module_0009.gone.txt")}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["error"]["code"], -32803);
  EXPECT_FALSE(fs::exists(dir_.path() / "module_0009.gone.bundle.tar.gz"));
  Json no_uri = h_.Command("hlo.bundle", Json::object());
  EXPECT_EQ(no_uri["error"]["code"], -32602) << no_uri.dump();
}

}  // namespace
}  // namespace hlo_lsp
