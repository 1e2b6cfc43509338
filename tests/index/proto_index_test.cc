// Protos in the index: binary, gzip'ed and text-format snapshots are indexed
// through their text view (symbols at its lines), cached like any file, and
// one that does not decode is a warning, not a failure.
#include <cstdlib>
#include <string>
#include <vector>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "hlo/proto/convert.h"
#include "hlo/proto/hlo.pb.h"
#include "index/proto_text.h"
#include "index/workspace_index.h"
#include "test_dir.h"

namespace hlo::index {
namespace {

namespace fs = std::filesystem;
using index_test::CacheIn;
using index_test::MakeModule;
using index_test::NoCache;
using index_test::TempDir;
using index_test::WriteFile;

constexpr char kProto[] = "module_0001.jit_f.before_optimizations.hlo.pb";
constexpr char kGzip[] = "module_0002.jit_g.hlo.pb.gz";
constexpr char kTextSnapshot[] =
    "module_0003.jit_h.execution_0000.hlo_unoptimized_snapshot.txt";

// 1-based line and column of `needle` in `text`.
std::pair<uint32_t, uint32_t> PositionOf(const std::string& text,
                                         const std::string& needle) {
  const size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  uint32_t line = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) line += text[i] == '\n';
  const size_t start = text.rfind('\n', at);
  return {line, static_cast<uint32_t>(
                    at - (start == std::string::npos ? 0 : start + 1) + 1)};
}

std::string ProtoOf(const std::string& module) {
  absl::StatusOr<std::string> bytes = proto::ConvertTextToHloProtoBytes(module);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : "";
}

// A folder of protos only: an HloProto, a gzip'ed one, a text-format
// unoptimized snapshot named .txt (as XLA writes them), and junk.
void MakeProtoDir(const fs::path& dir) {
  WriteFile(dir / kProto, ProtoOf(MakeModule("jit_f", 2, 10, 1)));
  WriteFile(dir / "g.hlo.pb", ProtoOf(MakeModule("jit_g", 2, 10, 2)));
  ASSERT_EQ(std::system(("gzip -c '" + (dir / "g.hlo.pb").string() + "' > '" +
                         (dir / kGzip).string() + "'")
                            .c_str()),
            0);
  fs::remove(dir / "g.hlo.pb");
  xla::HloProto hlo;
  ASSERT_TRUE(hlo.ParseFromString(ProtoOf(MakeModule("jit_h", 1, 5, 3))));
  xla::HloUnoptimizedSnapshot snapshot;
  *snapshot.mutable_hlo_module() = hlo.hlo_module();
  snapshot.add_partitions();
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(snapshot, &text));
  WriteFile(dir / kTextSnapshot, text);
  WriteFile(dir / "junk.pb", std::string("\x8c\x01\xff\x07junk\x00\x12", 10));
}

// The text view the editor and `hlo-lsp convert` show.
std::string TextView(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  absl::StatusOr<proto::ProtoTextResult> view = proto::ProtoBytesToText(bytes);
  EXPECT_TRUE(view.ok()) << path << ": " << view.status();
  return view.ok() ? view->text : "";
}

std::vector<SymbolMatch> Query(const WorkspaceIndex& index,
                               std::string_view q) {
  absl::StatusOr<std::vector<SymbolMatch>> r = index.Query(q, 0);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : std::vector<SymbolMatch>();
}

// Each proto's instruction `name` is found once, at its text view position.
void ExpectFoundInViews(const WorkspaceIndex& index, const fs::path& dir) {
  struct Case {
    const char* file;
    const char* name;
  };
  for (Case c : {Case{kProto, "p0.1"}, Case{kGzip, "p0.1"},
                 Case{kTextSnapshot, "p0.0"}}) {
    std::vector<SymbolMatch> found;
    for (const SymbolMatch& m :
         Query(index, std::string("kind:instruction ") + c.name)) {
      if (m.name == c.name && fs::path(m.path).filename() == c.file) {
        found.push_back(m);
      }
    }
    ASSERT_EQ(found.size(), 1u) << c.file << " " << c.name;
    auto [line, column] =
        PositionOf(TextView(dir / c.file), std::string("%") + c.name + " = ");
    EXPECT_EQ(found[0].line, line) << c.file;
    EXPECT_EQ(found[0].column, column + 1) << c.file;  // after the `%`
  }
  std::vector<SymbolMatch> modules = Query(index, "kind:module");
  ASSERT_EQ(modules.size(), 3u);
  for (const SymbolMatch& m : modules) EXPECT_EQ(m.line, 1u) << m.path;
}

TEST(ProtoIndexTest, ProtosAreIndexedAtTheirTextViewLines) {
  TempDir dir;
  MakeProtoDir(dir.path());
  WorkspaceIndex index(NoCache());
  index.AddFolder(dir.path());
  EXPECT_EQ(index.stats().files, 4u);
  EXPECT_EQ(index.stats().hlo_files, 3u);
  ExpectFoundInViews(index, dir.path());
  std::vector<std::string> warnings = index.TakeWarnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("junk.pb: not a valid HLO proto"),
            std::string::npos)
      << warnings[0];
}

// Decoding takes several times a proto's size: one over the limit is left
// out with a warning (a sparse file: nothing is read past its head).
TEST(ProtoIndexTest, AProtoOverTheLimitIsAWarning) {
  TempDir dir;
  MakeProtoDir(dir.path());
  const fs::path huge = dir.path() / "huge.hlo.pb";
  WriteFile(huge, ProtoOf(MakeModule("jit_huge", 1, 5, 4)));
  fs::resize_file(huge, kMaxProtoBytes + 1);
  WorkspaceIndex index(NoCache());
  index.AddFolder(dir.path());
  EXPECT_EQ(index.stats().hlo_files, 3u);
  EXPECT_TRUE(Query(index, "kind:module jit_huge").empty());
  bool warned = false;
  for (const std::string& w : index.TakeWarnings()) {
    warned |= w.find(
                  "huge.hlo.pb: a proto of 257 MiB, over the index's "
                  "limit of 256 MiB") != std::string::npos;
  }
  EXPECT_TRUE(warned);
}

TEST(ProtoIndexTest, ProtosAreCachedAndDecodedOnlyWhenChanged) {
  TempDir dir, cache;
  MakeProtoDir(dir.path());
  {
    WorkspaceIndex first(CacheIn(cache.path()));
    first.AddFolder(dir.path());
    EXPECT_EQ(first.stats().files_scanned, 4u);
    EXPECT_EQ(first.TakeWarnings().size(), 1u);
  }
  {
    // Answered from the cache: nothing decoded, the junk not retried.
    WorkspaceIndex second(CacheIn(cache.path()));
    second.AddFolder(dir.path());
    EXPECT_EQ(second.stats().files_scanned, 0u);
    EXPECT_EQ(second.stats().shards_loaded, 4u);
    EXPECT_TRUE(second.TakeWarnings().empty());
    ExpectFoundInViews(second, dir.path());
  }
  // A changed proto is decoded again; its new names replace the old.
  WriteFile(dir.path() / kProto, ProtoOf(MakeModule("jit_new", 2, 10, 1)));
  WorkspaceIndex third(CacheIn(cache.path()));
  third.AddFolder(dir.path());
  EXPECT_EQ(third.stats().files_scanned, 1u);
  EXPECT_EQ(Query(third, "kind:module module:jit_new").size(), 1u);
  EXPECT_TRUE(Query(third, "kind:module module:jit_f").empty());
}

}  // namespace
}  // namespace hlo::index
