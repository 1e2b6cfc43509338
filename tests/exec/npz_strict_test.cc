// The .npy/.npz reader is strict: NumPy's header grammar and nothing else,
// data exactly as long as the shape needs, no repeated entries, and deflated
// entries inflated only to a declared size the header agrees with. Each
// error names the entry and the reason.
#include <string>
#include <vector>

#include "exec/npz.h"
#include "gtest/gtest.h"
#include "npz_test_util.h"

namespace hlo::exec {
namespace {

using testing::F32Npy;
using testing::Npy;
using testing::Zip;

const std::string kSix(24, '\0');  // six float32 zeros

// The error of reading `zip`, which must fail.
std::string ErrorOf(const std::string& zip) {
  auto r = DecodeNpz(zip);
  return r.ok() ? "accepted" : std::string(r.status().message());
}

std::string StoredArg0(const std::string& npy) {
  return Zip({{"arg0.npy", npy}});
}

TEST(NpzStrictTest, MalformedHeadersAreRefusedNamingTheEntry) {
  const std::string kF32 = "'descr': '<f4', ";
  const struct {
    std::string dict, reason;
  } cases[] = {
      {"{" + kF32 + "'fortran_order': False, 'shape': (-2,3), }",
       "'shape' must be a tuple of non-negative integers, got '(-2,3)'"},
      {"{" + kF32 + "'fortran_order': False, 'shape': (+2,3), }",
       "got '(+2,3)'"},
      {"{" + kF32 + "'fortran_order': False, 'shape': (2,3x), }",
       "got '(2,3x)'"},
      {"{" + kF32 + "'fortran_order': False, 'shape': (2 3), }", "'shape'"},
      {"{" + kF32 + "'fortran_order': False, 'shape': (6), }", "'shape'"},
      {"{" + kF32 + "'fortran_order': False, 'shape': (2,,3), }", "'shape'"},
      {"{" + kF32 + "'fortran_order': False, 'shape': (02,3), }", "'shape'"},
      {"{" + kF32 + "'fortran_order': False, 'shape': [2,3], }", "'shape'"},
      {"{" + kF32 + "'fortran_order': maybe, 'shape': (2,3), }",
       "'fortran_order' must be True or False, got 'maybe'"},
      {"{" + kF32 + "'fortran_order': 0, 'shape': (2,3), }", "True or False"},
      {"{" + kF32 + "'fortran_order': Falsey, 'shape': (2,3), }",
       "True or False"},
      {"{" + kF32 + "'shape': (2,3), }", "no 'fortran_order'"},
      {"{" + kF32 + "'fortran_order': False, 'shape': (2,3), 'x': 1}",
       "unknown key 'x'"},
      {"{" + kF32 + "'shape': (6,), 'fortran_order': False, 'shape': (2,3)}",
       "key 'shape' appears twice"},
      {"{'descr': <f4, 'fortran_order': False, 'shape': (2,3)}",
       "'descr' must be a quoted string"},
      {"{" + kF32 + "'fortran_order': False 'shape': (2,3)}",
       "expected ',' or '}'"},
      {"{" + kF32 + "'fortran_order': False, 'shape': (2,3)} junk",
       "text after the dict"},
      {"{'descr': '>f4', 'fortran_order': False, 'shape': (2,3)}",
       "unsupported .npy dtype '>f4'"},
  };
  for (const auto& c : cases) {
    const std::string error = ErrorOf(StoredArg0(Npy(c.dict, kSix)));
    EXPECT_EQ(error.rfind("arg0.npy: ", 0), 0u) << c.dict << "\n" << error;
    EXPECT_NE(error.find(c.reason), std::string::npos) << c.dict << "\n"
                                                       << error;
  }
}

TEST(NpzStrictTest, WhatNumpyWritesIsRead) {
  const struct {
    std::string dict;
    std::vector<int64_t> dims;
  } cases[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", {2, 3}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", {2, 3}},
      {"{'shape': (2,3,), 'fortran_order': True, 'descr': '<f4'}", {2, 3}},
      {"{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (6,)}", {6}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 0, 6), }",
       {1, 0, 6}},
  };
  for (const auto& c : cases) {
    const int64_t bytes = c.dims.size() == 3 ? 0 : 24;
    auto r = DecodeNpz(StoredArg0(Npy(c.dict, kSix.substr(0, bytes))));
    ASSERT_TRUE(r.ok()) << c.dict << "\n" << r.status();
    ASSERT_EQ(r->size(), 1u);
    EXPECT_EQ(r->at(0).second->dims(), c.dims) << c.dict;
  }
  auto scalar = DecodeNpy(F32Npy("()", std::string(4, '\0')));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_TRUE(scalar->dims().empty());
}

TEST(NpzStrictTest, DataMustBeExactlyWhatTheShapeNeeds) {
  const std::string trailing =
      F32Npy("(2, 3)", kSix + std::string(1 << 20, 'x'));
  EXPECT_EQ(ErrorOf(StoredArg0(trailing)),
            "arg0.npy: 1048576 bytes after the array data (its shape needs "
            "24)");
  EXPECT_FALSE(DecodeNpy(trailing).ok());
  EXPECT_EQ(ErrorOf(StoredArg0(F32Npy("(2, 3)", kSix.substr(0, 20)))),
            "arg0.npy: truncated .npy data: 20 of 24 bytes");
}

// A shape whose byte count overflows is an error, not an allocation; a shape
// that fits but whose data is absent is refused before any allocation.
TEST(NpzStrictTest, HugeShapesAreCleanErrors) {
  EXPECT_NE(ErrorOf(StoredArg0(F32Npy("(1000000000000, 1000000000000)", kSix)))
                .find("more than 2^63 bytes"),
            std::string::npos);
  EXPECT_NE(ErrorOf(StoredArg0(F32Npy("(1000000000000000000000000,)", kSix)))
                .find("a dimension over 2^62"),
            std::string::npos);
  EXPECT_NE(ErrorOf(StoredArg0(F32Npy("(0, 4611686018427387904, 4)", "")))
                .find("more than 2^63 bytes"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(StoredArg0(F32Npy("(1099511627776,)", kSix))),
            "arg0.npy: truncated .npy data: 24 of 4398046511104 bytes");
}

TEST(NpzStrictTest, RepeatedEntryNamesAreRefused) {
  const std::string a = F32Npy("(6,)", kSix), b = F32Npy("(2, 3)", kSix);
  EXPECT_EQ(ErrorOf(Zip({{"arg0.npy", a}, {"arg0.npy", b}})),
            "arg0.npy: the zip holds it twice");
}

// The declared size is checked against the header before the rest is
// inflated: 4 MB of zeros after a 24-byte array are never inflated.
TEST(NpzStrictTest, DeclaredSizeMustBeWhatTheHeaderNeeds) {
  const std::string npy = F32Npy("(2, 3)", kSix);
  const std::string padded = npy + std::string(4 << 20, '\0');
  EXPECT_EQ(ErrorOf(Zip({{"arg0.npy", padded, true}})),
            "arg0.npy: declares 4194456 bytes, its .npy header needs 152");
  // A size no deflate stream of this length can reach is refused up front.
  const std::string lie =
      ErrorOf(Zip({{"arg0.npy", npy, true, int64_t{1} << 30}}));
  EXPECT_NE(lie.find("arg0.npy: declares 1073741824 bytes, more than its"),
            std::string::npos)
      << lie;
}

TEST(NpzStrictTest, InflationStopsAtTheDeclaredSize) {
  const std::string npy = F32Npy("(2, 3)", kSix);
  // The stream holds more than declared (and the header agrees with the
  // declared size): refused once the declared bytes are out.
  EXPECT_EQ(ErrorOf(Zip({{"arg0.npy", npy + "more", true,
                          static_cast<int64_t>(npy.size())}})),
            "arg0.npy: the deflate stream holds more than the declared 152 "
            "bytes");
  const std::string error = ErrorOf(Zip({{"arg0.npy", npy, true, -1, 20}}));
  EXPECT_EQ(error.rfind("arg0.npy: ", 0), 0u) << error;
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  // The honest archive reads.
  auto ok = DecodeNpz(Zip({{"arg0.npy", npy, true}}));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->at(0).second->dims(), (std::vector<int64_t>{2, 3}));
}

TEST(NpzStrictTest, DtypeCompanionIsReadStrictly) {
  const std::string bits = Npy(
      "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", "\x80\x3f");
  const std::string name =
      Npy("{'descr': '|S4', 'fortran_order': False, 'shape': (), }", "bf16");
  auto ok = DecodeNpz(Zip({{"x.npy", bits}, {"x.dtype.npy", name}}));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->at(0).second->type(), PrimitiveType::kBF16);
  EXPECT_EQ(ErrorOf(Zip({{"x.npy", bits}, {"x.dtype.npy", name + "!"}})),
            "x.dtype.npy: 1 bytes after the array data (its shape needs 4)");
}

}  // namespace
}  // namespace hlo::exec
