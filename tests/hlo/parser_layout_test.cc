// The layout items XLA's parser rejects: D(..) with anything but D, C, S, H
// (each with optional '+' and '~'), and P(shape) outside a sparse layout.
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hlo/parser.h"

namespace hlo {
namespace {

// The first parser error for a parameter of `shape`, with the text it
// points at; empty when it parses clean.
std::string FirstError(const std::string& shape) {
  const std::string text =
      "HloModule m\nENTRY e {\n  ROOT p = " + shape + " parameter(0)\n}\n";
  std::unique_ptr<ParsedFile> file = Parse(text);
  for (const Diagnostic& d : file->diagnostics) {
    if (d.severity != Severity::kError) continue;
    return d.message + " @ " + std::string(file->Text(d.span));
  }
  return "";
}

TEST(ParserLayoutTest, DimLevelTypes) {
  EXPECT_EQ(FirstError("f32[10,10]{1,0:D(D,C)}"), "");
  EXPECT_EQ(FirstError("f32[10,10]{1,0:D(D+~, H~)}"), "");
  EXPECT_EQ(FirstError("f32[10,10]{1,0:D(D,X)}"),
            "expected a DimLevelType abbreviation (D, C, or S) @ X");
  EXPECT_EQ(FirstError("f32[10,10]{1,0:D(DC)}"),
            "expected a DimLevelType abbreviation (D, C, or S) @ D");
}

TEST(ParserLayoutTest, PhysicalShapeOnlyWhenSparse) {
  EXPECT_EQ(FirstError("f32[10,10]{1,0:D(D,C)P(f32[10,10])}"), "");
  EXPECT_EQ(FirstError("f32[10,10]{1,0:T(128,8)P(f32[10,10])}"),
            "Layout has physical shape, but is not for a sparse array @ P");
  EXPECT_EQ(FirstError("f32[10,10]{1,0:D(D,D)P(f32[10,10])}"),
            "Layout has physical shape, but is not for a sparse array @ P");
}

}  // namespace
}  // namespace hlo
