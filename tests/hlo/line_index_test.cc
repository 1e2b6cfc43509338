#include "hlo/line_index.h"

#include "gtest/gtest.h"

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

}  // namespace
}  // namespace hlo
