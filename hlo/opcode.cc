#include "hlo/opcode.h"

#include <array>
#include <optional>
#include <utility>

#include "hlo/text_hash.h"

namespace hlo {
namespace {

constexpr std::pair<std::string_view, Opcode> kOpcodes[] = {
    {"abs", Opcode::kAbs},
    {"acos", Opcode::kAcos},
    {"acosh", Opcode::kAcosh},
    {"add", Opcode::kAdd},
    {"add-dependency", Opcode::kAddDependency},
    {"after-all", Opcode::kAfterAll},
    {"all-gather", Opcode::kAllGather},
    {"all-gather-done", Opcode::kAllGatherDone},
    {"all-gather-start", Opcode::kAllGatherStart},
    {"all-reduce", Opcode::kAllReduce},
    {"all-reduce-done", Opcode::kAllReduceDone},
    {"all-reduce-start", Opcode::kAllReduceStart},
    {"all-to-all", Opcode::kAllToAll},
    {"and", Opcode::kAnd},
    {"asin", Opcode::kAsin},
    {"asinh", Opcode::kAsinh},
    {"async-done", Opcode::kAsyncDone},
    {"async-start", Opcode::kAsyncStart},
    {"async-update", Opcode::kAsyncUpdate},
    {"atan", Opcode::kAtan},
    {"atan2", Opcode::kAtan2},
    {"atanh", Opcode::kAtanh},
    {"batch-norm-grad", Opcode::kBatchNormGrad},
    {"batch-norm-inference", Opcode::kBatchNormInference},
    {"batch-norm-training", Opcode::kBatchNormTraining},
    {"bitcast", Opcode::kBitcast},
    {"bitcast-convert", Opcode::kBitcastConvert},
    {"broadcast", Opcode::kBroadcast},
    {"call", Opcode::kCall},
    {"cbrt", Opcode::kCbrt},
    {"ceil", Opcode::kCeil},
    {"cholesky", Opcode::kCholesky},
    {"clamp", Opcode::kClamp},
    {"collective-broadcast", Opcode::kCollectiveBroadcast},
    {"collective-permute", Opcode::kCollectivePermute},
    {"collective-permute-done", Opcode::kCollectivePermuteDone},
    {"collective-permute-start", Opcode::kCollectivePermuteStart},
    {"collective-reduce", Opcode::kCollectiveReduce},
    {"compare", Opcode::kCompare},
    {"complex", Opcode::kComplex},
    {"concatenate", Opcode::kConcatenate},
    {"conditional", Opcode::kConditional},
    {"constant", Opcode::kConstant},
    {"convert", Opcode::kConvert},
    {"convolution", Opcode::kConvolution},
    {"copy", Opcode::kCopy},
    {"copy-done", Opcode::kCopyDone},
    {"copy-start", Opcode::kCopyStart},
    {"cosh", Opcode::kCosh},
    {"cosine", Opcode::kCosine},
    {"count-leading-zeros", Opcode::kCountLeadingZeros},
    {"custom-call", Opcode::kCustomCall},
    {"divide", Opcode::kDivide},
    {"domain", Opcode::kDomain},
    {"dot", Opcode::kDot},
    {"dynamic-reshape", Opcode::kDynamicReshape},
    {"dynamic-slice", Opcode::kDynamicSlice},
    {"dynamic-update-slice", Opcode::kDynamicUpdateSlice},
    {"erf", Opcode::kErf},
    {"exponential", Opcode::kExponential},
    {"exponential-minus-one", Opcode::kExponentialMinusOne},
    {"fft", Opcode::kFft},
    {"floor", Opcode::kFloor},
    {"fusion", Opcode::kFusion},
    {"gather", Opcode::kGather},
    {"get-dimension-size", Opcode::kGetDimensionSize},
    {"get-tuple-element", Opcode::kGetTupleElement},
    {"imag", Opcode::kImag},
    {"infeed", Opcode::kInfeed},
    {"iota", Opcode::kIota},
    {"is-finite", Opcode::kIsFinite},
    {"log", Opcode::kLog},
    {"log-plus-one", Opcode::kLogPlusOne},
    {"logistic", Opcode::kLogistic},
    {"map", Opcode::kMap},
    {"maximum", Opcode::kMaximum},
    {"minimum", Opcode::kMinimum},
    {"mulhi", Opcode::kMulhi},
    {"multiply", Opcode::kMultiply},
    {"negate", Opcode::kNegate},
    {"not", Opcode::kNot},
    {"opt-barrier", Opcode::kOptBarrier},
    {"optimization-barrier", Opcode::kOptimizationBarrier},
    {"or", Opcode::kOr},
    {"outfeed", Opcode::kOutfeed},
    {"pad", Opcode::kPad},
    {"parameter", Opcode::kParameter},
    {"partition-id", Opcode::kPartitionId},
    {"popcnt", Opcode::kPopcnt},
    {"power", Opcode::kPower},
    {"ragged-all-to-all", Opcode::kRaggedAllToAll},
    {"ragged-dot", Opcode::kRaggedDot},
    {"real", Opcode::kReal},
    {"recv", Opcode::kRecv},
    {"recv-done", Opcode::kRecvDone},
    {"reduce", Opcode::kReduce},
    {"reduce-precision", Opcode::kReducePrecision},
    {"reduce-scatter", Opcode::kReduceScatter},
    {"reduce-window", Opcode::kReduceWindow},
    {"remainder", Opcode::kRemainder},
    {"replica-id", Opcode::kReplicaId},
    {"reshape", Opcode::kReshape},
    {"reverse", Opcode::kReverse},
    {"rng", Opcode::kRng},
    {"rng-bit-generator", Opcode::kRngBitGenerator},
    {"rng-get-and-update-state", Opcode::kRngGetAndUpdateState},
    {"round-nearest-afz", Opcode::kRoundNearestAfz},
    {"round-nearest-even", Opcode::kRoundNearestEven},
    {"rsqrt", Opcode::kRsqrt},
    {"scaled-dot", Opcode::kScaledDot},
    {"scan", Opcode::kScan},
    {"scatter", Opcode::kScatter},
    {"select", Opcode::kSelect},
    {"select-and-scatter", Opcode::kSelectAndScatter},
    {"send", Opcode::kSend},
    {"send-done", Opcode::kSendDone},
    {"set-dimension-size", Opcode::kSetDimensionSize},
    {"shift-left", Opcode::kShiftLeft},
    {"shift-right-arithmetic", Opcode::kShiftRightArithmetic},
    {"shift-right-logical", Opcode::kShiftRightLogical},
    {"shuffle", Opcode::kShuffle},
    {"sign", Opcode::kSign},
    {"sine", Opcode::kSine},
    {"sinh", Opcode::kSinh},
    {"slice", Opcode::kSlice},
    {"sort", Opcode::kSort},
    {"sqrt", Opcode::kSqrt},
    {"stochastic-convert", Opcode::kStochasticConvert},
    {"subtract", Opcode::kSubtract},
    {"tan", Opcode::kTan},
    {"tanh", Opcode::kTanh},
    {"topk", Opcode::kTopk},
    {"transpose", Opcode::kTranspose},
    {"triangular-solve", Opcode::kTriangularSolve},
    {"tuple", Opcode::kTuple},
    {"while", Opcode::kWhile},
    {"xor", Opcode::kXor},
    {"cross-replica-sum", Opcode::kCrossReplicaSum},
    {"trace", Opcode::kTrace},
    {"tuple-select", Opcode::kTupleSelect},
    {"generate-token", Opcode::kGenerateToken},
};

// Name -> opcode, asked once per instruction: an open-addressing table of
// 512 slots (the ~130 names fill a quarter), probed linearly, the hash and
// length compared before the bytes. Cheaper than a general map's find.
class OpcodeTable {
 public:
  OpcodeTable() {
    for (const auto& [name, opcode] : kOpcodes) {
      size_t i = TextHash()(name) & kMask;
      while (slots_[i].opcode != Opcode::kUnknown) i = (i + 1) & kMask;
      slots_[i] = Slot{name, opcode};
    }
  }
  std::optional<Opcode> Find(std::string_view name) const {
    for (size_t i = TextHash()(name) & kMask;; i = (i + 1) & kMask) {
      const Slot& slot = slots_[i];
      if (slot.opcode == Opcode::kUnknown) return std::nullopt;
      if (TextEq()(slot.name, name)) return slot.opcode;
    }
  }

 private:
  static constexpr size_t kMask = 511;
  struct Slot {
    std::string_view name;
    Opcode opcode = Opcode::kUnknown;
  };
  Slot slots_[kMask + 1];
};
static_assert(std::size(kOpcodes) * 2 < 512);

}  // namespace

std::optional<Opcode> OpcodeFromName(std::string_view name) {
  static const OpcodeTable* table = new OpcodeTable();
  return table->Find(name);
}

std::string_view OpcodeName(Opcode opcode) {
  // Enum values follow the table order, starting at 1.
  const size_t index = static_cast<size_t>(opcode);
  if (index == 0 || index > std::size(kOpcodes)) return "unknown";
  return kOpcodes[index - 1].first;
}

bool IsLegacyOpcode(Opcode opcode) {
  return opcode == Opcode::kCrossReplicaSum || opcode == Opcode::kTrace ||
         opcode == Opcode::kTupleSelect || opcode == Opcode::kGenerateToken;
}

}  // namespace hlo
