// Queries are bounded and stoppable (issue 18, item 5): a huge query is
// refused at once, and a cancelled or late query ends with its status on
// every path of WorkspaceIndex::Query. Also the bounded, flat listing of a
// file's dump siblings (item 4) that stands in for indexing its folder.
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "index/discovery.h"
#include "index/query.h"
#include "index/workspace_index.h"
#include "test_dir.h"

namespace hlo::index {
namespace {

namespace fs = std::filesystem;
using index_test::MakeModule;
using index_test::TempDir;
using index_test::WriteFile;

// The query of the issue: 5,000 alternatives, about 120 KB.
std::string HugeRegexQuery() {
  std::string query = "/(";
  for (int i = 0; i < 5000; ++i) {
    if (i > 0) query += '|';
    query += "some_long_name_" + std::to_string(100000 + i) + "_x";
  }
  return query + ")/";
}

IndexOptions NoCache(bool name_table) {
  IndexOptions o = index_test::NoCache();
  o.name_table = name_table;
  return o;
}

void MakeFolder(const fs::path& dir) {
  for (int k = 1; k <= 3; ++k) {
    WriteFile(dir / ("module_000" + std::to_string(k) + ".m" +
                     std::to_string(k) + ".before_optimizations.txt"),
              MakeModule("m" + std::to_string(k), 3, 30, k));
  }
}

TEST(QueryBoundsTest, HugeRegexIsRefusedBeforeCompiling) {
  const std::string huge = HugeRegexQuery();
  ASSERT_GT(huge.size(), 100000u);
  absl::StatusOr<SymbolQuery> parsed = SymbolQuery::Parse(huge);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find("query too long"), std::string::npos)
      << parsed.status();

  TempDir dir;
  MakeFolder(dir.path());
  WorkspaceIndex index(NoCache(true));
  index.AddFolder(dir.path());
  auto matches = index.Query(huge, 10);
  ASSERT_FALSE(matches.ok());
  EXPECT_EQ(matches.status().code(), absl::StatusCode::kInvalidArgument);
  // At the bound itself a query is accepted.
  EXPECT_TRUE(SymbolQuery::Parse(std::string(kMaxQueryBytes, 'a')).ok());
}

TEST(QueryBoundsTest, TooManyTermsAreRefused) {
  std::string query;
  for (size_t i = 0; i < kMaxQueryTerms; ++i)
    query += "w" + std::to_string(i) + " ";
  EXPECT_TRUE(SymbolQuery::Parse(query).ok());
  query += "kind:instruction";
  absl::StatusOr<SymbolQuery> parsed = SymbolQuery::Parse(query);
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("too many terms"),
            std::string::npos);
}

TEST(QueryBoundsTest, RegexOverTheMemoryBudgetIsRefusedWithAShortMessage) {
  // Under 4 KB of text, but its compiled form needs more than RE2 may use
  // (it compiled with the 64 MB of before).
  std::string pattern = "\\pL{1000}\\pL{1000}" + std::string(300, 'x');
  ASSERT_LT(pattern.size() + 2, kMaxQueryBytes);
  absl::StatusOr<SymbolQuery> parsed = SymbolQuery::Parse("/" + pattern + "/");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find("bad regex"), std::string::npos);
  EXPECT_LT(parsed.status().message().size(), 200u) << parsed.status();
}

// Each path of Query checks its control: with postings (a long-lived
// index), without (a one-shot index's first query), and filters alone.
TEST(QueryBoundsTest, CancelledOrLateQueryStopsOnEveryPath) {
  TempDir dir;
  MakeFolder(dir.path());
  std::atomic<bool> cancelled{true};
  QueryControl cancel{.cancelled = &cancelled};
  QueryControl late{.deadline = std::chrono::steady_clock::now() -
                                std::chrono::seconds(1)};
  for (bool name_table : {true, false}) {
    for (const char* query : {"p0", "/p0.*/", "kind:instruction"}) {
      for (const auto& [control, code] :
           {std::pair{cancel, absl::StatusCode::kCancelled},
            std::pair{late, absl::StatusCode::kDeadlineExceeded}}) {
        // A fresh index each time: the first query of one without a name
        // table takes the path without postings.
        WorkspaceIndex index(NoCache(name_table));
        index.AddFolder(dir.path());
        auto matches = index.Query(query, 0, control);
        ASSERT_FALSE(matches.ok()) << query << " name_table=" << name_table;
        EXPECT_EQ(matches.status().code(), code) << query;
        // Without a control the same query runs to its end.
        auto all = index.Query(query, 0);
        ASSERT_TRUE(all.ok()) << all.status();
        EXPECT_FALSE(all->empty()) << query;
      }
    }
  }
}

TEST(QueryBoundsTest, AControlThatNeverStopsChangesNothing) {
  TempDir dir;
  MakeFolder(dir.path());
  WorkspaceIndex index(NoCache(true));
  index.AddFolder(dir.path());
  std::atomic<bool> cancelled{false};
  QueryControl control{
      .cancelled = &cancelled,
      .deadline = std::chrono::steady_clock::now() + std::chrono::hours(1)};
  auto with = index.Query("p0", 0, control);
  auto without = index.Query("p0", 0);
  ASSERT_TRUE(with.ok() && without.ok());
  ASSERT_EQ(with->size(), without->size());
  for (size_t i = 0; i < with->size(); ++i) {
    EXPECT_EQ((*with)[i].path, (*without)[i].path);
    EXPECT_EQ((*with)[i].line, (*without)[i].line);
  }
}

TEST(QueryBoundsTest, CliSearchRefusesAHugeQueryWithExit2) {
  const std::string binary = HLO_LSP_BINARY;
  if (!fs::exists(binary)) GTEST_SKIP() << "no hlo-lsp at " << binary;
  TempDir dir;
  MakeFolder(dir.path());
  // Under the kernel's 128 KiB limit on one argument.
  std::string query = HugeRegexQuery().substr(0, 60000) + ")/";
  std::string command = binary + " search --no-cache --dir '" +
                        dir.path().string() + "' '" + query + "' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;)
    out.append(buffer, n);
  int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_NE(out.find("query too long"), std::string::npos) << out;
  EXPECT_LT(out.size(), 500u);
}

}  // namespace
}  // namespace hlo::index
