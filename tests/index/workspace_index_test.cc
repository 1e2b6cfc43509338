#include "index/workspace_index.h"

#include <sys/stat.h>
#include <sys/time.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "gtest/gtest.h"
#include "index/scanner.h"
#include "index/shard.h"
#include "test_dir.h"

namespace hlo::index {
namespace {

namespace fs = std::filesystem;
using index_test::CacheIn;
using index_test::MakeModule;
using index_test::NoCache;
using index_test::TempDir;
using index_test::WriteFile;

// A dump folder: module 1 with two stages and three pass dumps, module 2,
// plus neighbours that must be skipped.
void MakeDumpDir(const fs::path& dir) {
  std::string m1 = MakeModule("jit_f", 3, 20, 1);
  WriteFile(dir / "module_0001.jit_f.before_optimizations.txt", m1);
  WriteFile(dir / "module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt", m1);
  for (int step : {2, 10, 1}) {
    char name[200];
    std::snprintf(
        name, sizeof(name),
        "module_0001.jit_f.%04d.gpu-compiler.after_p%d.before_p%d.txt", step,
        step, step + 1);
    WriteFile(dir / name, m1);
  }
  WriteFile(dir / "sub" / "module_0002.jit_g.before_optimizations.txt",
            MakeModule("jit_g", 2, 15, 2));
  WriteFile(dir /
                "module_0001.jit_f.sm_9.0_gpu_after_optimizations"
                "-memory-usage-report.txt",
            "HloModule not_really\n");
  WriteFile(dir / "module_0001.jit_f.ir-no-opt.ll", "define void @f() {}\n");
  WriteFile(dir / "notes.txt", "just some notes\nabout add.3 = nothing\n");
}

std::vector<SymbolMatch> WorkspaceIndexQuery(const WorkspaceIndex& index,
                                             std::string_view q,
                                             size_t limit = 0) {
  absl::StatusOr<std::vector<SymbolMatch>> r = index.Query(q, limit);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : std::vector<SymbolMatch>();
}

TEST(WorkspaceIndexTest, IndexesHloAndSkipsTheRest) {
  TempDir dir;
  MakeDumpDir(dir.path());
  std::atomic<size_t> last_done{0}, last_total{0};
  IndexOptions options = NoCache();
  options.progress = [&](const IndexProgress& p) {
    last_done = p.done;
    last_total = p.total;
  };
  WorkspaceIndex index(options);
  index.AddFolder(dir.path());
  IndexStats stats = index.stats();
  EXPECT_EQ(stats.files, 7u);  // 6 dumps + notes.txt (sniffed out)
  EXPECT_EQ(stats.hlo_files, 6u);
  EXPECT_EQ(last_done.load(), 7u);
  EXPECT_EQ(last_total.load(), 7u);
  std::vector<SymbolMatch> modules = WorkspaceIndexQuery(index, "kind:module");
  ASSERT_EQ(modules.size(), 6u);
  for (const SymbolMatch& m : modules) {
    EXPECT_NE(m.name, "not_really");
    EXPECT_EQ(m.line, 1u);
    EXPECT_EQ(m.column, 11u);
  }
}

TEST(WorkspaceIndexTest, OrderIsScoreThenPathThenLine) {
  TempDir dir;
  MakeDumpDir(dir.path());
  WorkspaceIndex index(NoCache());
  index.AddFolder(dir.path());
  std::vector<SymbolMatch> r = WorkspaceIndexQuery(index, "p0.1");
  ASSERT_GE(r.size(), 6u);
  for (size_t i = 1; i < r.size(); ++i) {
    const SymbolMatch& a = r[i - 1];
    const SymbolMatch& b = r[i];
    ASSERT_TRUE(a.score > b.score ||
                (a.score == b.score &&
                 (a.path < b.path || (a.path == b.path && a.line <= b.line))))
        << i;
  }
  EXPECT_EQ(r[0].name, "p0.1");
  EXPECT_EQ(r[0].kind, SymbolKind::kInstruction);
  EXPECT_EQ(r[0].opcode, "parameter");
  EXPECT_EQ(r[0].shape, "f32[8]{0}");
  EXPECT_EQ(r[0].module, "jit_f");
  std::vector<SymbolMatch> limited = WorkspaceIndexQuery(index, "p0.1", 3);
  ASSERT_EQ(limited.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(limited[i].path, r[i].path);
    EXPECT_EQ(limited[i].line, r[i].line);
  }
}

TEST(WorkspaceIndexTest, ModuleFilesInStepOrder) {
  TempDir dir;
  MakeDumpDir(dir.path());
  WorkspaceIndex index(NoCache());
  index.AddFolder(dir.path());
  std::vector<ModuleFile> files = index.ModuleFiles(
      dir.path() /
      "module_0001.jit_f.0010.gpu-compiler.after_p10.before_p11.txt");
  std::vector<std::string> names;
  for (const ModuleFile& f : files) {
    names.push_back(fs::path(f.path).filename().string());
    EXPECT_EQ(f.module_name, "jit_f");
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{
                "module_0001.jit_f.before_optimizations.txt",
                "module_0001.jit_f.0001.gpu-compiler.after_p1.before_p2.txt",
                "module_0001.jit_f.0002.gpu-compiler.after_p2.before_p3.txt",
                "module_0001.jit_f.0010.gpu-compiler.after_p10.before_p11.txt",
                "module_0001.jit_f.sm_9.0_gpu_after_optimizations.txt"}));
  EXPECT_EQ(index
                .ModuleFiles(dir.path() / "sub" /
                             "module_0002.jit_g.before_optimizations.txt")
                .size(),
            1u);
  EXPECT_TRUE(index.ModuleFiles(dir.path() / "nope.txt").empty());
}

// Every `NAME = ` definition line, found independently of the index.
std::set<std::pair<std::string, int>> GrepDefinitions(const fs::path& dir,
                                                      const std::string& name) {
  std::set<std::pair<std::string, int>> out;
  std::regex def("^\\s*(ROOT )?%?" +
                 std::regex_replace(name, std::regex("\\."), "\\.") + " = ");
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::string file = entry.path().filename().string();
    if (file.find("memory-usage") != std::string::npos) continue;
    std::ifstream in(entry.path());
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (std::regex_search(line, def)) out.insert({entry.path().string(), n});
    }
  }
  return out;
}

TEST(WorkspaceIndexTest, LimitZeroFindsEveryExactDefinition) {
  TempDir dir;
  MakeDumpDir(dir.path());
  for (int k = 3; k < 12; ++k) {
    char name[100];
    std::snprintf(name, sizeof(name),
                  "module_%04d.m%d.before_optimizations.txt", k, k);
    WriteFile(dir.path() / "more" / name,
              MakeModule("m" + std::to_string(k), 4, 40, k));
  }
  WorkspaceIndex index(NoCache());
  index.AddFolder(dir.path());
  // Names taken from the text itself (every 7th definition of one file).
  std::vector<std::string> names = {"p0.0", "main.1", "fused_computation.1"};
  {
    std::ifstream in(dir.path() / "more" /
                     "module_0005.m5.before_optimizations.txt");
    std::string line;
    std::regex def("^\\s*(?:ROOT )?%([A-Za-z0-9_.-]+) = ");
    std::smatch m;
    for (int n = 0; std::getline(in, line); ++n) {
      if (n % 7 == 0 && std::regex_search(line, m, def)) names.push_back(m[1]);
    }
  }
  ASSERT_GT(names.size(), 10u);
  for (const std::string& name : names) {
    std::set<std::pair<std::string, int>> expected =
        GrepDefinitions(dir.path(), name);
    std::set<std::pair<std::string, int>> found;
    for (const SymbolMatch& m : WorkspaceIndexQuery(index, name, 0)) {
      if (m.name == name) found.insert({m.path, static_cast<int>(m.line)});
    }
    if (name.rfind("main", 0) == 0 || name.rfind("fused", 0) == 0) {
      // Computations are defined by their headers, not `NAME = ` lines.
      EXPECT_FALSE(found.empty()) << name;
      continue;
    }
    EXPECT_FALSE(expected.empty()) << name;
    EXPECT_EQ(found, expected) << name;
  }
}

TEST(WorkspaceIndexTest, CacheHitInvalidationAndCorruption) {
  TempDir dir, cache;
  MakeDumpDir(dir.path());
  {
    WorkspaceIndex first(CacheIn(cache.path()));
    first.AddFolder(dir.path());
    EXPECT_EQ(first.stats().files_scanned, 7u);
    EXPECT_EQ(first.stats().shards_loaded, 0u);
  }
  size_t expected_results;
  {
    WorkspaceIndex second(CacheIn(cache.path()));
    second.AddFolder(dir.path());
    EXPECT_EQ(second.stats().files_scanned, 0u);
    EXPECT_EQ(second.stats().shards_loaded, 7u);
  }
  // Change one file: its shard is stale, the others still hit.
  fs::path changed =
      dir.path() / "sub" / "module_0002.jit_g.before_optimizations.txt";
  WriteFile(changed, MakeModule("jit_renamed", 2, 15, 2));
  struct timeval times[2] = {{1000000000, 0}, {1000000000, 0}};
  ::utimes(changed.c_str(), times);  // a different mtime even on coarse clocks
  {
    WorkspaceIndex third(CacheIn(cache.path()));
    third.AddFolder(dir.path());
    EXPECT_EQ(third.stats().files_scanned, 1u);
    EXPECT_EQ(third.stats().shards_stale, 1u);
    EXPECT_EQ(
        WorkspaceIndexQuery(third, "kind:module module:jit_renamed").size(),
        1u);
    EXPECT_TRUE(WorkspaceIndexQuery(third, "kind:module module:jit_g").empty());
    expected_results = WorkspaceIndexQuery(third, "add").size();
    EXPECT_GT(expected_results, 0u);
  }
  // Damage the folder's cache file in four ways, one at a time: each is
  // detected, every file is scanned again, and the rewritten cache hits.
  std::vector<fs::path> caches;
  for (const auto& e : fs::recursive_directory_iterator(cache.path())) {
    if (e.is_regular_file()) caches.push_back(e.path());
  }
  ASSERT_EQ(caches.size(), 1u);  // one file per folder
  for (int damage = 0; damage < 4; ++damage) {
    std::string bytes;
    {
      std::ifstream in(caches[0], std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      bytes = s.str();
    }
    switch (damage) {
      case 0:
        bytes[bytes.size() / 2] ^= 0x40;
        break;  // payload bit flip
      case 1:
        bytes.resize(bytes.size() / 3);
        break;  // truncated
      case 2:
        bytes[8] ^= 1;
        break;  // version/header
      case 3:
        bytes = "garbage";
        break;
    }
    std::ofstream(caches[0], std::ios::binary | std::ios::trunc) << bytes;
    {
      WorkspaceIndex fourth(CacheIn(cache.path()));
      fourth.AddFolder(dir.path());
      EXPECT_EQ(fourth.stats().shards_loaded, 0u) << damage;
      EXPECT_EQ(fourth.stats().files_scanned, 7u) << damage;
      EXPECT_EQ(fourth.stats().shards_corrupt, 1u) << damage;
      EXPECT_EQ(WorkspaceIndexQuery(fourth, "add").size(), expected_results)
          << damage;
    }
    {
      WorkspaceIndex fifth(CacheIn(cache.path()));  // rebuilt: hits now
      fifth.AddFolder(dir.path());
      EXPECT_EQ(fifth.stats().shards_loaded, 7u) << damage;
      EXPECT_EQ(fifth.stats().files_scanned, 0u) << damage;
      EXPECT_EQ(WorkspaceIndexQuery(fifth, "add").size(), expected_results)
          << damage;
    }
  }
}

TEST(WorkspaceIndexTest, NoCacheWritesNothing) {
  TempDir dir, cache;
  MakeDumpDir(dir.path());
  IndexOptions options = NoCache();
  options.cache_dir = cache.path();
  WorkspaceIndex index(options);
  index.AddFolder(dir.path());
  EXPECT_TRUE(fs::is_empty(cache.path()));
}

TEST(WorkspaceIndexTest, RefreshAddsChangesAndDrops) {
  TempDir dir;
  MakeDumpDir(dir.path());
  WorkspaceIndex index(NoCache());
  index.AddFolder(dir.path());
  fs::path added = dir.path() / "module_0009.late.before_optimizations.txt";
  WriteFile(added, MakeModule("late", 1, 3, 9));
  index.Refresh({added});
  EXPECT_EQ(WorkspaceIndexQuery(index, "kind:module module:late").size(), 1u);
  fs::remove(added);
  fs::remove(dir.path() / "sub" / "module_0002.jit_g.before_optimizations.txt");
  index.Refresh({added, dir.path() / "sub"});
  EXPECT_TRUE(WorkspaceIndexQuery(index, "module:late").empty());
  EXPECT_TRUE(WorkspaceIndexQuery(index, "module:jit_g").empty());
  EXPECT_FALSE(WorkspaceIndexQuery(index, "module:jit_f").empty());
  index.RemoveFolder(dir.path());
  EXPECT_TRUE(WorkspaceIndexQuery(index, "").empty());
}

TEST(WorkspaceIndexTest, NameTableGivesTheSameResults) {
  TempDir dir;
  MakeDumpDir(dir.path());
  WorkspaceIndex direct(NoCache());
  IndexOptions with_table = NoCache();
  with_table.name_table = true;
  WorkspaceIndex tabled(with_table);
  direct.AddFolder(dir.path());
  tabled.AddFolder(dir.path());
  EXPECT_GT(tabled.stats().distinct_names, 0u);
  EXPECT_LT(tabled.stats().distinct_names, tabled.stats().symbols);
  for (std::string_view q :
       {"add.3", "fu", "kind:computation", "op:dot", "module:jit_g mul",
        "/^p0\\./", "kind:metadata model", "zzz"}) {
    std::set<std::tuple<std::string, uint32_t, uint32_t>> a, b;
    for (const SymbolMatch& m : WorkspaceIndexQuery(direct, q))
      a.insert({m.path, m.line, m.column});
    for (const SymbolMatch& m : WorkspaceIndexQuery(tabled, q))
      b.insert({m.path, m.line, m.column});
    EXPECT_EQ(a, b) << q;
  }
  // An index without the table answers its first query without postings:
  // the same matches in the same order, with and without a limit.
  for (std::string_view q : {"add.3", "fu", "module:jit_g mul", "/^p0\\./",
                             "kind:metadata model", "zzz"}) {
    for (size_t limit : {size_t{0}, size_t{3}}) {
      WorkspaceIndex once(NoCache());
      once.AddFolder(dir.path());
      std::vector<std::tuple<std::string, uint32_t, uint32_t, double>> a, b;
      for (const SymbolMatch& m : WorkspaceIndexQuery(once, q, limit))
        a.push_back({m.path, m.line, m.column, m.score});
      for (const SymbolMatch& m : WorkspaceIndexQuery(tabled, q, limit))
        b.push_back({m.path, m.line, m.column, m.score});
      EXPECT_EQ(a, b) << q << " limit " << limit;
    }
  }
  // The table follows changes.
  fs::path added = dir.path() / "module_0009.late.before_optimizations.txt";
  WriteFile(added, MakeModule("late", 1, 3, 9));
  tabled.Refresh({added});
  EXPECT_EQ(WorkspaceIndexQuery(tabled, "kind:module module:late").size(), 1u);
  EXPECT_FALSE(WorkspaceIndexQuery(tabled, "late").empty());
}

// Shared chunks keep a metadata symbol once per chunk; a query still gives
// one per file, at its first line, as a plain scan of the file does.
TEST(WorkspaceIndexTest, MetadataOncePerFileAtItsFirstLine) {
  TempDir dir;
  std::string text = "HloModule meta\n\nENTRY main {\n";
  for (int i = 0; i < 300; ++i) {
    text += "  %a." + std::to_string(i) + " = f32[2] add(%a, %a), metadata={" +
            "op_name=\"jit(f)/dense/add\" source_file=\"model.py\" " +
            "source_line=" + std::to_string(7 + i % 2) + "}\n";
    if (i % 20 == 19) text += "\n";  // blank lines end chunks
  }
  text += "  ROOT %r = f32[2] add(%a, %a)\n}\n";
  WriteFile(dir.path() / "one.hlo", text);
  WriteFile(dir.path() / "two.hlo", "HloModule other\n\n" + text);
  FileSymbols plain = ScanSymbols(text);
  std::vector<uint32_t> expected_lines;  // op_name, model.py:7, model.py:8
  for (const Symbol& s : plain.symbols) {
    if (s.kind == SymbolKind::kMetadata) expected_lines.push_back(s.line);
  }
  ASSERT_EQ(expected_lines.size(), 3u);
  for (bool table : {false, true}) {
    IndexOptions options = NoCache();
    options.name_table = table;
    WorkspaceIndex index(options);
    index.AddFolder(dir.path());
    for (std::string_view q :
         {"kind:metadata dense/add", "kind:metadata model.py"}) {
      std::map<std::string, std::vector<uint32_t>> lines;
      for (const SymbolMatch& m : WorkspaceIndexQuery(index, q)) {
        lines[fs::path(m.path).filename().string()].push_back(m.line);
      }
      ASSERT_EQ(lines.size(), 2u) << q;
      std::vector<uint32_t> one = lines["one.hlo"], two = lines["two.hlo"];
      std::sort(one.begin(), one.end());
      std::sort(two.begin(), two.end());
      std::vector<uint32_t> want =
          q.find("dense") != std::string_view::npos
              ? std::vector<uint32_t>{expected_lines[0]}
              : std::vector<uint32_t>{expected_lines[1], expected_lines[2]};
      EXPECT_EQ(one, want) << q << " table " << table;
      for (uint32_t& line : want) line += 2;  // two.hlo has two more lines
      EXPECT_EQ(two, want) << q << " table " << table;
    }
  }
}

TEST(WorkspaceIndexTest, QueriesRunWhileIndexing) {
  TempDir dir;
  MakeDumpDir(dir.path());
  IndexOptions options = NoCache();
  options.threads = 4;
  options.name_table = true;
  WorkspaceIndex index(options);
  std::atomic<bool> stop{false};
  std::atomic<size_t> queries{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!stop) {
        auto r = index.Query("add kind:instruction", 20);
        ASSERT_TRUE(r.ok());
        ASSERT_LE(r->size(), 20u);
        index.ModuleFiles(dir.path() /
                          "module_0001.jit_f.before_optimizations.txt");
        ++queries;
      }
    });
  }
  for (int round = 0; round < 5; ++round) {
    index.AddFolder(dir.path());
    index.Refresh({dir.path()});
  }
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_GT(queries.load(), 0u);
  EXPECT_EQ(index.stats().hlo_files, 6u);
}

TEST(WorkspaceIndexTest, UnreadableFolderIsAWarning) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads everything";
  TempDir dir;
  MakeDumpDir(dir.path());
  fs::create_directory(dir.path() / "locked");
  WriteFile(dir.path() / "locked" / "module_0003.x.before_optimizations.txt",
            MakeModule("x", 1, 2, 3));
  ::chmod((dir.path() / "locked").c_str(), 0);
  WorkspaceIndex index(NoCache());
  index.AddFolder(dir.path());
  ::chmod((dir.path() / "locked").c_str(), 0755);
  EXPECT_EQ(index.stats().hlo_files, 6u);
}

TEST(WorkspaceIndexTest, SymlinkLoopsTerminate) {
  TempDir dir;
  MakeDumpDir(dir.path());
  fs::create_directory_symlink(dir.path(), dir.path() / "sub" / "loop");
  WorkspaceIndex index(NoCache());
  index.AddFolder(dir.path());
  EXPECT_EQ(index.stats().hlo_files, 6u);
}

}  // namespace
}  // namespace hlo::index
