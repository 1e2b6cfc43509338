// The packed GEMM (exec/gemm.h) against a naive double-precision product,
// for every micro-kernel this CPU can run, odd sizes around the tile and
// block edges, strided (transposed) operands, batches and both thread
// counts; and dot through the evaluator with batch and contracting dims in
// unusual places, narrow types and f64.
#include "exec/gemm.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "exec/parallel.h"
#include "exec_test_util.h"
#include "gtest/gtest.h"

namespace hlo::exec {
namespace {

using testing::Array;
using testing::RunHlo;
using testing::Values;

template <typename T>
struct Problem {
  int64_t batch, m, n, k;
  bool a_transposed, b_transposed;
  std::vector<T> a, b;
  StridedMatrix<T> av, bv;
};

template <typename T>
Problem<T> MakeProblem(int64_t batch, int64_t m, int64_t n, int64_t k, bool at,
                       bool bt, uint32_t seed) {
  Problem<T> p{batch, m, n, k, at, bt, {}, {}, {}, {}};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  p.a.resize(batch * m * k);
  p.b.resize(batch * k * n);
  for (T& x : p.a) x = static_cast<T>(u(rng));
  for (T& x : p.b) x = static_cast<T>(u(rng));
  // A stored [batch][m][k] or, transposed, [batch][k][m]; B likewise.
  p.av = {p.a.data(), m * k, at ? 1 : k, at ? m : 1};
  p.bv = {p.b.data(), k * n, bt ? 1 : n, bt ? k : 1};
  return p;
}

// Checks Gemm's result against a double-precision product, allowing the
// rounding of k products and sums in T.
template <typename T>
void Check(const Problem<T>& p, int threads) {
  std::vector<T> c(p.batch * p.m * p.n, T(-7));  // must be overwritten
  Gemm(p.batch, p.m, p.n, p.k, p.av, p.bv, c.data(), threads);
  const double eps = std::is_same_v<T, float> ? 1.2e-7 : 2.3e-16;
  for (int64_t bi = 0; bi < p.batch; ++bi) {
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        double ref = 0, mag = 0;
        for (int64_t q = 0; q < p.k; ++q) {
          const double x = p.av.data[bi * p.av.batch_stride +
                                     i * p.av.row_stride + q * p.av.col_stride];
          const double y = p.bv.data[bi * p.bv.batch_stride +
                                     q * p.bv.row_stride + j * p.bv.col_stride];
          ref += x * y;
          mag += std::fabs(x * y);
        }
        const double got = c[(bi * p.m + i) * p.n + j];
        ASSERT_NEAR(got, ref, 2 * (p.k + 1) * eps * mag + 1e-30)
            << GemmKernelName() << " batch " << bi << " (" << i << "," << j
            << ") of " << p.m << "x" << p.n << "x" << p.k << " threads "
            << threads;
      }
    }
  }
}

class GemmKernelTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    previous_ = GemmKernelName();
    if (!SetGemmKernel(GetParam()))
      GTEST_SKIP() << "this CPU has no " << GetParam() << " kernel";
  }
  void TearDown() override { SetGemmKernel(previous_.c_str()); }
  std::string previous_;
};

TEST_P(GemmKernelTest, HandComputed) {
  // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154]
  const float a[] = {1, 2, 3, 4, 5, 6}, b[] = {7, 8, 9, 10, 11, 12};
  float c[4] = {-1, -1, -1, -1};
  Gemm(1, 2, 2, 3, StridedMatrix<float>{a, 0, 3, 1},
       StridedMatrix<float>{b, 0, 2, 1}, c, 1);
  EXPECT_EQ(std::vector<float>(c, c + 4),
            (std::vector<float>{58, 64, 139, 154}));
  // The same product with A read transposed from [1 4; 2 5; 3 6].
  const float at[] = {1, 4, 2, 5, 3, 6};
  double cd[4];
  const double atd[] = {1, 4, 2, 5, 3, 6}, bd[] = {7, 8, 9, 10, 11, 12};
  Gemm(1, 2, 2, 3, StridedMatrix<float>{at, 0, 1, 2},
       StridedMatrix<float>{b, 0, 2, 1}, c, 1);
  EXPECT_EQ(std::vector<float>(c, c + 4),
            (std::vector<float>{58, 64, 139, 154}));
  Gemm(1, 2, 2, 3, StridedMatrix<double>{atd, 0, 1, 2},
       StridedMatrix<double>{bd, 0, 2, 1}, cd, 1);
  EXPECT_EQ(std::vector<double>(cd, cd + 4),
            (std::vector<double>{58, 64, 139, 154}));
}

TEST_P(GemmKernelTest, OddSizesAgainstNaive) {
  const int64_t sizes[] = {1, 7, 17, 33, 65, 129};
  uint32_t seed = 1;
  for (int64_t m : sizes) {
    for (int64_t n : sizes) {
      for (int64_t k : {int64_t{1}, int64_t{17}, int64_t{129}}) {
        Check(MakeProblem<float>(1, m, n, k, false, false, seed++), 1);
      }
    }
  }
}

TEST_P(GemmKernelTest, BlockEdgesTransposesBatchesThreads) {
  // k past one 256-deep slice, m past one 240-row block, n past 4096.
  uint32_t seed = 100;
  for (bool at : {false, true}) {
    for (bool bt : {false, true}) {
      Check(MakeProblem<float>(1, 250, 37, 300, at, bt, seed++), 1);
      Check(MakeProblem<float>(1, 5, 4100, 9, at, bt, seed++), 1);
      Check(MakeProblem<float>(3, 13, 35, 20, at, bt, seed++), 1);
      Check(MakeProblem<double>(2, 29, 41, 270, at, bt, seed++), 1);
      // Big enough to be split over threads: by rows, by columns, by batch.
      Check(MakeProblem<float>(1, 301, 97, 257, at, bt, seed++), 2);
      Check(MakeProblem<float>(1, 67, 301, 257, at, bt, seed++), 2);
      Check(MakeProblem<float>(3, 131, 71, 260, at, bt, seed++), 3);
      Check(MakeProblem<double>(1, 211, 133, 259, at, bt, seed++), 2);
    }
  }
}

TEST_P(GemmKernelTest, EmptyDepthGivesZeros) {
  std::vector<float> c(6, 5.0f);
  Gemm(1, 2, 3, 0, StridedMatrix<float>{nullptr, 0, 0, 1},
       StridedMatrix<float>{nullptr, 0, 3, 1}, c.data(), 1);
  EXPECT_EQ(c, std::vector<float>(6, 0.0f));
}

INSTANTIATE_TEST_SUITE_P(Kernels, GemmKernelTest,
                         ::testing::Values("portable", "avx2", "avx512"));

TEST(ParallelTest, EveryTaskRunsOnce) {
  for (int tasks : {1, 2, 3, 7}) {
    std::vector<int> hits(tasks, 0);
    ParallelFor(tasks, [&](int t) { ++hits[t]; });
    EXPECT_EQ(hits, std::vector<int>(tasks, 1));
  }
  for (int64_t n : {0, 1, 10, 97}) {
    for (int parts : {1, 2, 5}) {
      int64_t next = 0;
      for (int i = 0; i < parts; ++i) {
        Range r = SplitRange(n, parts, 4, i);
        EXPECT_EQ(r.begin, next);
        EXPECT_TRUE(r.begin % 4 == 0 || r.begin == n);
        next = r.end;
      }
      EXPECT_EQ(next, n);
    }
  }
}

// ---------------------------------------------------------------- EvalDot --

std::vector<double> Ramp(int64_t n, double scale, double offset) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = scale * ((i * 37) % 23) + offset;
  return v;
}

TEST(DotTest, FreeDimsAroundTheContractingDim) {
  // lhs [5,7,3]: free dims 0 and 2 around contracting dim 1 (no single
  // stride: the evaluator transposes), rhs [7,4].
  auto l = Ramp(5 * 7 * 3, 0.25, -2), r = Ramp(7 * 4, 0.5, -3);
  auto out = RunHlo(R"(
HloModule m
ENTRY e {
  a = f32[5,7,3] parameter(0)
  b = f32[7,4] parameter(1)
  ROOT d = f32[5,3,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                    {Array(PrimitiveType::kF32, {5, 7, 3}, l),
                     Array(PrimitiveType::kF32, {7, 4}, r)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j)
      for (int n = 0; n < 4; ++n) {
        double s = 0;
        for (int k = 0; k < 7; ++k) s += l[(i * 7 + k) * 3 + j] * r[k * 4 + n];
        want.push_back(s);
      }
  EXPECT_EQ(Values(**out), want);  // small integers and quarters: exact
}

TEST(DotTest, BatchDimInTheMiddleAndTwoContractingDims) {
  // Batch dim 1 of both operands; lhs contracts {2}, rhs {0}.
  auto l = Ramp(4 * 2 * 6, 0.5, -1), r = Ramp(6 * 2 * 5, 0.25, -1);
  auto out = RunHlo(R"(
HloModule m
ENTRY e {
  a = f32[4,2,6] parameter(0)
  b = f32[6,2,5] parameter(1)
  ROOT d = f32[2,4,5] dot(a, b), lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={0}
})",
                    {Array(PrimitiveType::kF32, {4, 2, 6}, l),
                     Array(PrimitiveType::kF32, {6, 2, 5}, r)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want;
  for (int b = 0; b < 2; ++b)
    for (int m = 0; m < 4; ++m)
      for (int n = 0; n < 5; ++n) {
        double s = 0;
        for (int k = 0; k < 6; ++k)
          s += l[(m * 2 + b) * 6 + k] * r[(k * 2 + b) * 5 + n];
        want.push_back(s);
      }
  EXPECT_EQ(Values(**out), want);

  // Two contracting dims paired in opposite orders: lhs {1,2}, rhs {1,0}.
  auto x = Ramp(3 * 4 * 5, 0.5, -2), y = Ramp(5 * 4 * 6, 0.25, -1);
  auto out2 = RunHlo(R"(
HloModule m
ENTRY e {
  a = f64[3,4,5] parameter(0)
  b = f64[5,4,6] parameter(1)
  ROOT d = f64[3,6] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}
})",
                     {Array(PrimitiveType::kF64, {3, 4, 5}, x),
                      Array(PrimitiveType::kF64, {5, 4, 6}, y)});
  ASSERT_TRUE(out2.ok()) << out2.status();
  std::vector<double> want2;
  for (int i = 0; i < 3; ++i)
    for (int n = 0; n < 6; ++n) {
      double s = 0;
      for (int p = 0; p < 4; ++p)
        for (int q = 0; q < 5; ++q)
          s += x[(i * 4 + p) * 5 + q] * y[(q * 4 + p) * 6 + n];
      want2.push_back(s);
    }
  EXPECT_EQ(Values(**out2), want2);
}

TEST(DotTest, TransposedOperandsOddSizesAgainstNaive) {
  // x^T @ W^T with sizes off the tile grid; f32 accumulation.
  const int64_t m = 33, n = 65, k = 129;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> l(k * m), r(n * k);
  for (double& v : l) v = static_cast<float>(u(rng));
  for (double& v : r) v = static_cast<float>(u(rng));
  auto out = RunHlo(R"(
HloModule m
ENTRY e {
  a = f32[129,33] parameter(0)
  b = f32[65,129] parameter(1)
  ROOT d = f32[33,65] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
})",
                    {Array(PrimitiveType::kF32, {k, m}, l),
                     Array(PrimitiveType::kF32, {n, k}, r)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> got = Values(**out);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t q = 0; q < k; ++q) s += l[q * m + i] * r[j * k + q];
      EXPECT_NEAR(got[i * n + j], s, 1e-4) << i << "," << j;
    }
}

TEST(DotTest, Bf16InputsAccumulateInF32) {
  // 256 x 1 each: sum of 256 ones and a 1/256 step is exact in f32 but not
  // in bf16, so the result shows the f32 accumulation (then bf16 rounding).
  std::vector<double> l(256, 1.0), r(256, 1.0);
  r[0] = 1.0 + 1.0 / 128;  // exact in bf16 (7 mantissa bits)
  auto out = RunHlo(R"(
HloModule m
ENTRY e {
  a = bf16[1,256] parameter(0)
  b = bf16[256,1] parameter(1)
  ROOT d = f32[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                    {Array(PrimitiveType::kBF16, {1, 256}, l),
                     Array(PrimitiveType::kBF16, {256, 1}, r)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values(**out), std::vector<double>{256.0 + 1.0 / 128});
  auto out16 = RunHlo(R"(
HloModule m
ENTRY e {
  a = bf16[1,256] parameter(0)
  b = bf16[256,1] parameter(1)
  ROOT d = bf16[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                      {Array(PrimitiveType::kBF16, {1, 256}, l),
                       Array(PrimitiveType::kBF16, {256, 1}, r)});
  ASSERT_TRUE(out16.ok()) << out16.status();
  EXPECT_EQ(Values(**out16), std::vector<double>{256.0});  // rounded to bf16
}

TEST(DotTest, IntegerDotWrapsAsBefore) {
  auto out = RunHlo(R"(
HloModule m
ENTRY e {
  a = s8[1,2] parameter(0)
  b = s8[2,1] parameter(1)
  ROOT d = s8[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                    {Array(PrimitiveType::kS8, {1, 2}, {100, 100}),
                     Array(PrimitiveType::kS8, {2, 1}, {1, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values(**out), std::vector<double>{-56});  // 200 wraps
}

}  // namespace
}  // namespace hlo::exec
