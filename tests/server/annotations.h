// Fixture text with markers, for feature tests:
//   ^            a point (a cursor)
//   [[ ... ]]    a range
//   $name^       a named point; $name[[ ... ]] a named range
// The markers are removed; code() is the plain text, and points and ranges
// come back as byte offsets into it or as LSP positions with UTF-8 byte
// columns (convert offsets through a Snapshot for other column units).
//
// Only `^`, `$name` right before a marker, and the exact pairs `[[` and `]]`
// are markers. HLO has no `^` or `$`, and its shapes (`f32[2,3]`) never
// write two brackets in a row, so fixtures must not either. A range may end
// on a shape: in an odd run of `]` the first is text (`[[f32[2]]]`), and
// the rest close ranges two by two.
#ifndef HLO_LSP_TESTS_SERVER_ANNOTATIONS_H_
#define HLO_LSP_TESTS_SERVER_ANNOTATIONS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "server/protocol.h"

namespace hlo_lsp {

class Annotations {
 public:
  struct Offsets {  // [begin, end) into code()
    size_t begin = 0;
    size_t end = 0;
    friend bool operator==(const Offsets&, const Offsets&) = default;
  };

  explicit Annotations(std::string_view annotated) {
    std::vector<std::pair<std::string, size_t>> open;  // name, begin
    for (size_t i = 0; i < annotated.size();) {
      std::string name;
      size_t at = i;
      if (annotated[i] == '$') {
        size_t j = i + 1;
        while (j < annotated.size() && IsNameChar(annotated[j])) ++j;
        name = std::string(annotated.substr(i + 1, j - i - 1));
        at = j;
        if (name.empty() || !(annotated.substr(at, 1) == "^" ||
                              annotated.substr(at, 2) == "[[")) {
          ADD_FAILURE() << "`$` must name a `^` or `[[` marker, at " << i;
          code_.push_back(annotated[i++]);
          continue;
        }
      }
      if (annotated[at] == '^') {
        points_[name].push_back(code_.size());
        i = at + 1;
      } else if (annotated.substr(at, 2) == "[[") {
        open.emplace_back(name, code_.size());
        i = at + 2;
      } else if (annotated.substr(at, 2) == "]]" &&
                 RunOfClosers(annotated, at) % 2 == 0) {
        if (open.empty()) {
          ADD_FAILURE() << "`]]` without `[[`, at " << i;
        } else {
          ranges_[open.back().first].push_back(
              {open.back().second, code_.size()});
          open.pop_back();
        }
        i = at + 2;
      } else {
        code_.push_back(annotated[i++]);
      }
    }
    if (!open.empty()) ADD_FAILURE() << open.size() << " `[[` left open";
    for (auto& [name, list] : ranges_) {  // text order of their starts
      std::sort(list.begin(), list.end(),
                [](const Offsets& a, const Offsets& b) {
                  return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
                });
    }
  }

  // The text without markers.
  const std::string& code() const { return code_; }

  // The one point called `name` ("" is the unnamed one), as an offset.
  size_t PointOffset(std::string_view name = "") const {
    return One(points_, name, "point", size_t{0});
  }
  std::vector<size_t> PointOffsets(std::string_view name = "") const {
    return All(points_, name);
  }
  Offsets RangeOffsets(std::string_view name = "") const {
    return One(ranges_, name, "range", Offsets{});
  }
  std::vector<Offsets> AllRangeOffsets(std::string_view name = "") const {
    return All(ranges_, name);
  }

  // The same in LSP positions, UTF-8 byte columns.
  Position point(std::string_view name = "") const {
    return ToPosition(PointOffset(name));
  }
  std::vector<Position> points(std::string_view name = "") const {
    std::vector<Position> out;
    for (size_t offset : PointOffsets(name)) out.push_back(ToPosition(offset));
    return out;
  }
  Range range(std::string_view name = "") const {
    return ToRange(RangeOffsets(name));
  }
  std::vector<Range> ranges(std::string_view name = "") const {
    std::vector<Range> out;
    for (Offsets r : AllRangeOffsets(name)) out.push_back(ToRange(r));
    return out;
  }

  // Line and UTF-8 byte column of an offset into code().
  Position ToPosition(size_t offset) const {
    Position p;
    for (size_t i = 0; i < offset && i < code_.size(); ++i) {
      if (code_[i] == '\n') {
        ++p.line;
        p.character = 0;
      } else {
        ++p.character;
      }
    }
    return p;
  }
  Range ToRange(Offsets r) const {
    return Range{ToPosition(r.begin), ToPosition(r.end)};
  }

 private:
  // How many `]` in a row start at `at`.
  static size_t RunOfClosers(std::string_view text, size_t at) {
    size_t n = 0;
    while (at + n < text.size() && text[at + n] == ']') ++n;
    return n;
  }
  static bool IsNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
  }

  template <typename T>
  static T One(const std::map<std::string, std::vector<T>, std::less<>>& all,
               std::string_view name, const char* what, T fallback) {
    auto it = all.find(name);
    size_t n = it == all.end() ? 0 : it->second.size();
    if (n != 1) {
      ADD_FAILURE() << "expected one " << what << " named '" << name
                    << "', found " << n;
      return fallback;
    }
    return it->second.front();
  }
  template <typename T>
  static std::vector<T> All(
      const std::map<std::string, std::vector<T>, std::less<>>& all,
      std::string_view name) {
    auto it = all.find(name);
    return it == all.end() ? std::vector<T>{} : it->second;
  }

  std::string code_;
  std::map<std::string, std::vector<size_t>, std::less<>> points_;
  std::map<std::string, std::vector<Offsets>, std::less<>> ranges_;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_TESTS_SERVER_ANNOTATIONS_H_
