// XLA's parser fixes the operand count of most opcodes (hlo_parser.cc,
// ParseOperands with an expected size): "expects N operands, but has M
// operands". Opcodes with variadic or attribute-dependent operands (tuple,
// reduce, sort, custom-call, fusion, dynamic-slice, ...) are not listed.
#include <optional>

#include "base/strings.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

std::optional<int> ExpectedOperands(Opcode op) {
  using enum Opcode;
  switch (op) {
    case kIota:
    case kReplicaId:
    case kPartitionId:
    case kRngGetAndUpdateState:
      return 0;
    case kAbs:
    case kAsin:
    case kAsinh:
    case kAtanh:
    case kExponentialMinusOne:
    case kLog:
    case kLogPlusOne:
    case kLogistic:
    case kSqrt:
    case kCbrt:
    case kRsqrt:
    case kTanh:
    case kErf:
    case kSine:
    case kSinh:
    case kCosine:
    case kCosh:
    case kTan:
    case kExponential:
    case kAllGatherDone:
    case kAllReduceDone:
    case kRoundNearestAfz:
    case kRoundNearestEven:
    case kBitcast:
    case kCeil:
    case kCountLeadingZeros:
    case kCollectivePermuteDone:
    case kCopy:
    case kCopyDone:
    case kOptimizationBarrier:
    case kOptBarrier:
    case kImag:
    case kIsFinite:
    case kFloor:
    case kNot:
    case kNegate:
    case kPopcnt:
    case kReal:
    case kSign:
    case kConvert:
    case kBitcastConvert:
    case kCopyStart:
    case kReshape:
    case kWhile:
    case kRecv:
    case kRecvDone:
    case kSendDone:
    case kGetTupleElement:
    case kFft:
    case kCholesky:
    case kBroadcast:
    case kReverse:
    case kSlice:
    case kTranspose:
    case kInfeed:
    case kReducePrecision:
      return 1;
    case kAdd:
    case kDivide:
    case kMultiply:
    case kSubtract:
    case kAtan2:
    case kComplex:
    case kMaximum:
    case kMinimum:
    case kPower:
    case kRemainder:
    case kAnd:
    case kOr:
    case kXor:
    case kShiftLeft:
    case kShiftRightArithmetic:
    case kShiftRightLogical:
    case kStochasticConvert:
    case kAddDependency:
    case kSend:
    case kConvolution:
    case kTriangularSolve:
    case kCompare:
    case kPad:
    case kOutfeed:
      return 2;
    case kClamp:
    case kSelect:
    case kSelectAndScatter:
    case kBatchNormTraining:
      return 3;
    case kBatchNormInference:
    case kBatchNormGrad:
      return 5;
    default:
      return std::nullopt;
  }
}

}  // namespace

void CheckOperandCounts(const Findings& f) {
  for (const Instruction& inst : f.file.instructions) {
    std::optional<int> want = ExpectedOperands(inst.opcode);
    // A sugared async op (`copy-start` is its own opcode, but
    // `add-start` wraps add) counts the wrapped op's operands elsewhere.
    if (!want || inst.wrapped_opcode != Opcode::kUnknown) continue;
    const int has = static_cast<int>(inst.operands.count);
    if (has == *want) continue;
    f.Error(
        inst.operand_list.empty() ? inst.opcode_span : inst.operand_list,
        base::Cat("expects ", *want, " operands, but has ", has, " operands"));
  }
}

}  // namespace hlo::verify_internal
