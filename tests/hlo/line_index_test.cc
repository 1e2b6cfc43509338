#include "hlo/line_index.h"

#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/syntax.h"

namespace hlo {
namespace {

TEST(LineIndexTest, Utf8AndUtf16Columns) {
  // "é" is 2 bytes / 1 unit; "😀" is 4 bytes / 2 units.
  std::string_view text = "ab\r\n\xC3\xA9x\xF0\x9F\x98\x80y\nlast";
  LineIndex index(text);
  EXPECT_EQ(index.line_count(), 3u);
  Offset y = static_cast<Offset>(text.find('y'));
  LineColumn bytes = index.ToLineColumn(y);
  EXPECT_EQ(bytes.line, 1u);
  EXPECT_EQ(bytes.column, 7u);
  LineColumn units = index.ToLineColumn(y, ColumnUnit::kUtf16CodeUnits);
  EXPECT_EQ(units.column, 4u);
  EXPECT_EQ(index.ToOffset(units, ColumnUnit::kUtf16CodeUnits), y);
  EXPECT_EQ(index.LineEnd(0), 2u);  // before "\r\n"
  EXPECT_EQ(index.ToOffset({0, 99}), 2u);
  EXPECT_EQ(index.ToOffset({9, 0}), text.size());
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

TEST(LineIndexTest, AsciiLinesShortcutOnlyWhereTheyAreAscii) {
  std::string_view text = "abc\n\xC3\xA9z\nxyz";
  LineIndex index(text);
  EXPECT_EQ(index.ToLineColumn(6, ColumnUnit::kUtf16CodeUnits).column, 1u);
  EXPECT_EQ(index.ToLineColumn(10, ColumnUnit::kUtf16CodeUnits).column, 2u);
  EXPECT_EQ(index.ToOffset({1, 1}, ColumnUnit::kUtf16CodeUnits), 6u);
  EXPECT_EQ(index.ToOffset({2, 2}, ColumnUnit::kUtf16CodeUnits), 10u);
}

// The line breaks and the high-bit bytes are found 64 bytes at a time: a
// break or a non-ASCII byte at every position around those rounds.
TEST(LineIndexTest, BreaksAndNonAsciiBytesAtEveryBlockPosition) {
  for (size_t size : {0u, 1u, 15u, 16u, 63u, 64u, 65u, 130u, 200u}) {
    for (size_t at = 0; at < size; ++at) {
      std::string text(size, 'a');
      text[at] = '\n';
      LineIndex lines(text);
      ASSERT_EQ(lines.line_count(), 2u) << size << " " << at;
      EXPECT_EQ(lines.LineStart(1), at + 1) << size << " " << at;
      EXPECT_EQ(lines
                    .ToLineColumn(static_cast<Offset>(size),
                                  ColumnUnit::kUtf16CodeUnits)
                    .column,
                size - at - 1);
      if (at + 1 == size) continue;
      text[at] = '\xC3';  // "é": two bytes, one UTF-16 unit
      text[at + 1] = '\xA9';
      LineIndex high(text);
      EXPECT_EQ(high.line_count(), 1u);
      EXPECT_EQ(high.ToLineColumn(static_cast<Offset>(size),
                                  ColumnUnit::kUtf16CodeUnits)
                    .column,
                size - 1)
          << size << " " << at;
    }
  }
}

// ParsedFile builds its line index at the first lines() call: threads
// that ask at once get one index, and a copy builds its own over the same
// text.
TEST(LineIndexTest, ParsedFileBuildsOneIndexOnFirstUseFromAnyThread) {
  const std::string text = "a\nbb\nccc\n";
  ParsedFile file(text);
  std::vector<const LineIndex*> seen(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&, t] { seen[t] = &file.lines(); });
  }
  for (std::thread& t : threads) t.join();
  for (const LineIndex* index : seen) EXPECT_EQ(index, seen[0]);
  EXPECT_EQ(file.lines().line_count(), 4u);
  EXPECT_EQ(file.lines().LineStart(2), 5u);
  ParsedFile copy = file;
  EXPECT_NE(&copy.lines(), &file.lines());
  EXPECT_EQ(copy.lines().LineStart(2), 5u);
  ParsedFile other("x\ny");
  other = file;
  EXPECT_EQ(other.lines().line_count(), 4u);
}

}  // namespace
}  // namespace hlo
