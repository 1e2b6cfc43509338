// Snapshots for feature tests: built from annotated fixture text (see
// annotations.h) or from a file under tests/e2e/fixtures, parsed now.
#ifndef HLO_LSP_TESTS_SERVER_FEATURE_FIXTURE_H_
#define HLO_LSP_TESTS_SERVER_FEATURE_FIXTURE_H_

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "server/documents.h"
#include "server/protocol.h"
#include "tests/server/annotations.h"

namespace hlo_lsp {

inline constexpr char kFixtureUri[] = "file:///fixtures/test.hlo";

inline std::shared_ptr<const Snapshot> Snap(
    std::string text, hlo::ColumnUnit unit = hlo::ColumnUnit::kUtf8Bytes,
    std::string uri = kFixtureUri) {
  return MakeSnapshot(std::move(uri), 1, 1,
                      std::make_shared<const std::string>(std::move(text)),
                      unit);
}

inline std::shared_ptr<const Snapshot> Snap(const Annotations& a) {
  return Snap(a.code());
}

inline std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(HLO_LSP_SOURCE_DIR) + "/tests/e2e/fixtures/" +
                   name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The text a range covers.
inline std::string TextAt(const Snapshot& s, const Range& r) {
  hlo::Offset b = s.ToOffset(r.start), e = s.ToOffset(r.end);
  return s.text->substr(b, e - b);
}

// The ranges of a reply (locations, highlights, links, ...), in order.
template <typename T>
std::vector<Range> RangesOf(const std::vector<T>& items) {
  std::vector<Range> out;
  for (const T& item : items) out.push_back(item.range);
  return out;
}

// Readable forms for comparisons: "line:col-line:col", space separated.
// (A PrintTo for Position/Range here would clash with the byte dumps other
// test files of this binary instantiate for the same types.)
inline std::string Show(Position p) {
  return std::to_string(p.line) + ":" + std::to_string(p.character);
}
inline std::string Show(const Range& r) {
  return Show(r.start) + "-" + Show(r.end);
}
inline std::string Show(const std::vector<Range>& ranges) {
  std::string out;
  for (const Range& r : ranges) out += (out.empty() ? "" : " ") + Show(r);
  return out;
}

}  // namespace hlo_lsp

#endif  // HLO_LSP_TESTS_SERVER_FEATURE_FIXTURE_H_
