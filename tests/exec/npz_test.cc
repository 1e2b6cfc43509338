#include "exec/npz.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "exec_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

using P = PrimitiveType;
using testing::Array;
using testing::Values;

TEST(NpzTest, RoundTripKeepsTypesShapesAndBits) {
  NamedArrays in = {
      {"arg0", Array(P::kF32, {2, 3}, {1, 2, 3, 4, 5, 6.5})},
      {"arg1", Array(P::kBF16, {2}, {1.5, -2})},
      {"arg2", Array(P::kS4, {3}, {-8, 7, -1})},
      {"arg3", Array(P::kPred, {}, {1})},
      {"arg4", Array(P::kF8E4M3FN, {2}, {448, -0.5})},
      {"arg5", Array(P::kU64, {1}, {12345678901.0})},
  };
  auto bytes = EncodeNpz(in);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto out = DecodeNpz(*bytes);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), in.size());  // .dtype companions are folded in
  for (size_t k = 0; k < in.size(); ++k) {
    EXPECT_EQ(out->at(k).first, in[k].first);
    EXPECT_EQ(ShapeString(out->at(k).second->shape()),
              ShapeString(in[k].second->shape()));
    EXPECT_EQ(Values(*out->at(k).second), Values(*in[k].second)) << in[k].first;
  }
}

TEST(NpzTest, NonNumpyTypesAreUnsignedBitsWithDtypeKey) {
  auto bytes = EncodeNpz({{"out0", Array(P::kBF16, {1}, {1.0})}});
  ASSERT_TRUE(bytes.ok());
  EXPECT_NE(bytes->find("out0.dtype.npy"), std::string::npos);
  EXPECT_NE(bytes->find("'descr': '<u2'"), std::string::npos);
  EXPECT_NE(bytes->find("bf16"), std::string::npos);
}

TEST(NpzTest, RejectsGarbage) {
  EXPECT_FALSE(DecodeNpz("not a zip at all, but long enough to look").ok());
  EXPECT_FALSE(
      DecodeNpy("\x93NUMPY\x01\x00\xff\xff", PrimitiveType::kInvalid).ok());
  std::string truncated =
      *EncodeNpz({{"a", Array(P::kF32, {4}, {1, 2, 3, 4})}});
  truncated.resize(truncated.size() / 2);
  EXPECT_FALSE(DecodeNpz(truncated).ok());
}

// NumPy (Debian's python3-numpy serves /usr/bin/python3) reads what we
// write and writes what we read, deflated archives included.
TEST(NpzTest, NumpyInterop) {
  if (std::system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0)
    GTEST_SKIP() << "no numpy";
  const std::string dir = ::testing::TempDir();
  const std::string ours = dir + "/ours.npz", theirs = dir + "/theirs.npz";
  ASSERT_TRUE(WriteNpzFile(ours, {{"x", Array(P::kS32, {2, 2}, {1, 2, 3, 4})},
                                  {"y", Array(P::kBF16, {1}, {1.0})}})
                  .ok());
  const std::string script =
      "import numpy as np\n"
      "d = np.load('" +
      ours +
      "')\n"
      "assert d['x'].tolist() == [[1, 2], [3, 4]], d['x']\n"
      "assert d['y'].tolist() == [0x3f80] and d['y.dtype'] == b'bf16'\n"
      "np.savez_compressed('" +
      theirs +
      "', a=np.arange(6, dtype=np.float64).reshape(2, 3),"
      " b=np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3)))\n";
  const std::string py = dir + "/interop.py";
  std::ofstream(py) << script;
  ASSERT_EQ(std::system(("/usr/bin/python3 " + py).c_str()), 0);
  auto back = ReadNpzFile(theirs);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ(Values(*back->at(0).second),
            (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(Values(*back->at(1).second),
            (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(back->at(1).second->dims(), (std::vector<int64_t>{2, 3}));
}

}  // namespace
}  // namespace hlo::exec
