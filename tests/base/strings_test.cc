#include "base/strings.h"

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace hlo::base {
namespace {

TEST(StringsTest, ConvertsViewsBothWays) {
  std::string_view text = "HloModule m";
  absl::string_view absl_text = ToAbsl(text);
  EXPECT_EQ(absl_text.data(), text.data());
  EXPECT_EQ(absl_text.size(), text.size());
  EXPECT_EQ(ToStd(absl_text), text);
  EXPECT_EQ(absl::StrCat(ToAbsl(text.substr(0, 3)), "!"), "Hlo!");
}

TEST(StringsTest, CatTakesStringsViewsAndNumbers) {
  const std::string name = "p0";
  std::string_view view = "view";
  EXPECT_EQ(Cat("dimension ", 3, " of ", name, " ", view, " ",
                absl::string_view("absl")),
            "dimension 3 of p0 view absl");
  EXPECT_EQ(Cat(int64_t{-5}, " ", uint32_t{7}), "-5 7");
  EXPECT_EQ(Cat('x', true, false), "xtruefalse");
  EXPECT_EQ(Cat(), "");
}

TEST(StringsTest, BlanksAreSpacesTabsAndLineBreaks) {
  for (char c : {' ', '\t', '\n', '\r'}) EXPECT_TRUE(IsBlank(c)) << int{c};
  for (char c : {'a', '%', '\0', '\v', '\f', ','}) {
    EXPECT_FALSE(IsBlank(c)) << int{c};
  }
}

}  // namespace
}  // namespace hlo::base
