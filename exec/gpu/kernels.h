// The device kernels of the GPU replay backend behind a plain C++ interface
// (no CUDA headers): the backend (backend.cc, compiled by the host compiler)
// calls these, kernels.cu implements them. Arrays are dense and logical
// row-major, exactly as exec::Literal stores them, so a transfer is a byte
// copy. Every index is 64-bit; every kernel is a grid-stride loop. Each
// Launch* returns a cudaError_t as int (0: launched).
#ifndef HLO_LSP_EXEC_GPU_KERNELS_H_
#define HLO_LSP_EXEC_GPU_KERNELS_H_

#include <cstdint>

namespace hlo::exec::gpu {

// Element types the kernels compute on (sub-byte, fp8 and complex types
// run on the host).
enum class DType : int {
  kPred,
  kS8,
  kS16,
  kS32,
  kS64,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64
};
inline bool IsFloat(DType t) {
  return t == DType::kF16 || t == DType::kBF16 || t == DType::kF32 ||
         t == DType::kF64;
}
inline bool IsSigned(DType t) {
  return t == DType::kS8 || t == DType::kS16 || t == DType::kS32 ||
         t == DType::kS64;
}
inline bool IsUnsigned(DType t) {
  return t == DType::kU8 || t == DType::kU16 || t == DType::kU32 ||
         t == DType::kU64;
}
int DTypeBytes(DType t);

constexpr int kMaxRank = 12;

// dst[dst_offset + sum_d i_d * dst_strides[d]] =
//     src[src_offset + sum_d i_d * src_strides[d]] for every index i of
// `dims` (strides in elements; a source stride may be 0 or negative).
// Covers copy, transpose, broadcast, slice, reverse, concatenate,
// (dynamic-)update-slice and pad.
struct StridedCopy {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t src_strides[kMaxRank] = {};
  int64_t dst_strides[kMaxRank] = {};
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
};
int LaunchStridedCopy(const StridedCopy& c, int element_bytes, const void* src,
                      void* dst);
// Every element of dst set to the element at `value` (device memory).
int LaunchFill(void* dst, int64_t n, int element_bytes, const void* value);

enum class EwOp : int {
  // unary
  kAbs,
  kNegate,
  kExp,
  kExpm1,
  kLog,
  kLog1p,
  kSqrt,
  kRsqrt,
  kCbrt,
  kSin,
  kCos,
  kTan,
  kTanh,
  kAtan,
  kAcos,
  kAsin,
  kAcosh,
  kAsinh,
  kAtanh,
  kCosh,
  kSinh,
  kErf,
  kLogistic,
  kFloor,
  kCeil,
  kRoundAfz,
  kRoundEven,
  kSign,
  kNot,
  kPopcnt,
  kClz,
  // binary
  kAdd,
  kSub,
  kMul,
  kDiv,
  kRem,
  kMax,
  kMin,
  kPow,
  kAtan2,
  kAnd,
  kOr,
  kXor,
  kShl,
  kShrLogical,
  kShrArithmetic,
};
// An operand marked `scalar` is read at index 0 for every element.
int LaunchUnary(EwOp op, DType t, int64_t n, const void* a, void* out);
int LaunchBinary(EwOp op, DType t, int64_t n, const void* a, bool a_scalar,
                 const void* b, bool b_scalar, void* out);
int LaunchClamp(DType t, int64_t n, const void* lo, bool lo_scalar,
                const void* x, bool x_scalar, const void* hi, bool hi_scalar,
                void* out);
// direction: 0 eq, 1 ne, 2 ge, 3 gt, 4 le, 5 lt. `total`: TOTALORDER floats.
int LaunchCompare(int direction, bool total, DType t, int64_t n, const void* a,
                  bool a_scalar, const void* b, bool b_scalar, uint8_t* out);
int LaunchSelect(int element_bytes, int64_t n, const uint8_t* pred,
                 bool pred_scalar, const void* a, bool a_scalar, const void* b,
                 bool b_scalar, void* out);
int LaunchIsFinite(DType t, int64_t n, const void* a, uint8_t* out);
// XLA's convert: floats to integers saturate (NaN -> 0), integers wrap,
// narrow floats round to nearest even through f32.
int LaunchConvert(DType from, DType to, int64_t n, const void* a, void* out);
// out[i] = the index of element i along dims[iota_dim].
int LaunchIota(DType t, int rank, const int64_t* dims, int iota_dim, void* out);

enum class ReduceOp : int { kAdd, kMul, kMax, kMin, kAnd, kOr };
// out[o] = init op in[...] over every reduced index, in row-major order of
// the reduced dims. `kept`: the output dims with their input strides;
// `reduced`: the reduced dims with theirs. `init` is a device scalar.
struct ReduceShape {
  int kept_rank = 0;
  int64_t kept_dims[kMaxRank] = {};
  int64_t kept_strides[kMaxRank] = {};
  int reduced_rank = 0;
  int64_t reduced_dims[kMaxRank] = {};
  int64_t reduced_strides[kMaxRank] = {};
};
int LaunchReduce(ReduceOp op, DType t, const ReduceShape& s, const void* in,
                 const void* init, void* out);

// Statistics of an array as InstructionStats records them: per block of
// the launch, 5 doubles at partials[5 * b]: min and max of the finite
// values, their sum, the NaN count and the Inf count. `*blocks` gets the
// number of blocks (at most kStatsBlocks); the caller combines them.
constexpr int kStatsBlocks = 256;
int LaunchStats(DType t, int64_t n, const void* a, double* partials,
                int* blocks);

}  // namespace hlo::exec::gpu

#endif  // HLO_LSP_EXEC_GPU_KERNELS_H_
