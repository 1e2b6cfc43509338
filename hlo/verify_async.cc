// XLA's VerifyAsynchronousInstructionPairs (hlo_verifier.cc): a start op
// has exactly one user, a done (or update) op; a done op's operand is its
// start. Users count once however often they name the value, as XLA's
// users() does.
#include <algorithm>
#include <initializer_list>
#include <optional>
#include <vector>

#include "base/strings.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

std::vector<Id> UniqueUsers(const ParsedFile& file, Id id) {
  std::vector<Id> users;
  if (id + 1 >= file.use_offsets.size()) return users;
  for (Id e = file.use_offsets[id]; e < file.use_offsets[id + 1]; ++e) {
    Id user = file.use_edges[e].user;
    if (std::find(users.begin(), users.end(), user) == users.end()) {
      users.push_back(user);
    }
  }
  return users;
}

bool OneOf(Opcode op, std::initializer_list<Opcode> set) {
  return std::find(set.begin(), set.end(), op) != set.end();
}

std::string Names(std::initializer_list<Opcode> set, std::string_view sep) {
  std::string out;
  for (Opcode op : set) {
    if (!out.empty()) out += sep;
    out += OpcodeName(op);
  }
  return out;
}

void SingleUser(const Findings& f, Id id, std::initializer_list<Opcode> want) {
  const Instruction& inst = f.file.instructions[id];
  std::vector<Id> users = UniqueUsers(f.file, id);
  const Span at = inst.name.empty() ? inst.span : inst.name;
  if (users.size() != 1) {
    std::vector<RelatedSpan> consumers;
    for (Id user : users) {
      consumers.push_back(
          {NameOrSpan(f.file.instructions[user]), "a consumer"});
    }
    f.Error(
        at,
        base::Cat("The ", OpcodeName(inst.opcode),
                  " instruction requires one consumer, found ", users.size()),
        std::move(consumers));
    return;
  }
  const Instruction& user = f.file.instructions[users[0]];
  if (!OneOf(user.opcode, want)) {
    f.Error(at,
            base::Cat("The consumer of a ", OpcodeName(inst.opcode),
                      " instruction needs to be one of (", Names(want, ", "),
                      "), found ", OpcodeName(user.opcode)),
            {{NameOrSpan(user), "the consumer"}});
  }
}

void SingleOperand(const Findings& f, Id id,
                   std::initializer_list<Opcode> want) {
  const Instruction& inst = f.file.instructions[id];
  if (inst.operands.count != 1) return;  // the operand count check says so
  const Operand& operand = f.file.operands[inst.operands.begin];
  Id def = operand.Producer();
  if (def == kNone) return;
  const Instruction& producer = f.file.instructions[def];
  if (producer.opcode == Opcode::kUnknown || OneOf(producer.opcode, want)) {
    return;
  }
  f.Error(operand.span,
          base::Cat("The operand of a ", OpcodeName(inst.opcode),
                    " instruction needs to be ", Names(want, " or "),
                    ", found ", OpcodeName(producer.opcode)),
          {{NameOrSpan(producer), "the operand's definition"}});
}

// A send or recv that is the root of an async wrapped computation has no
// users by design.
bool IsAsyncWrappedRoot(const ParsedFile& file, const Instruction& inst) {
  if (!inst.is_root || inst.computation == kNone) return false;
  const Id c = inst.computation;
  if (c + 1 >= file.caller_offsets.size()) return false;
  for (Id r = file.caller_offsets[c]; r < file.caller_offsets[c + 1]; ++r) {
    const ComputationRef& ref = file.computation_refs[file.caller_refs[r]];
    if (ref.instruction != kNone &&
        file.instructions[ref.instruction].opcode == Opcode::kAsyncStart) {
      return true;
    }
  }
  return false;
}

// The start shapes every XLA version agrees on: copy-start is (operand,
// operand, u32[]); a one-operand collective-permute-start is a tuple that
// begins (operand, result, ...). (all-reduce-start changed form across
// versions: not checked.)
void CheckStartShape(const Findings& f, const Instruction& inst) {
  const ParsedFile& file = f.file;
  if (inst.operands.count != 1) return;
  const Operand& operand = file.operands[inst.operands.begin];
  if (operand.definition == kNone) return;
  std::optional<InferredShape> in =
      ShapeFromFile(file, file.instructions[operand.definition].shape);
  std::optional<InferredShape> out = ShapeFromFile(file, inst.shape);
  if (!in || !out) return;
  InferredShape want{.element_type = PrimitiveType::kTuple};
  bool ok = false;
  if (inst.opcode == Opcode::kCopyStart) {
    want.tuple = {*in, *in, InferredShape{.element_type = PrimitiveType::kU32}};
    ok = ShapesCompatible(want, *out, false);
  } else {
    want.tuple = {*in, *in};
    ok = out->is_tuple() && out->tuple.size() >= 2 &&
         ShapesCompatible(out->tuple[0], *in, false);
  }
  if (ok) return;
  f.Error(
      DeclaredShapeSpan(file, inst),
      base::Cat("Expected instruction to have shape equal to ",
                ShapeString(want), ", actual shape is ", ShapeString(*out)));
}

}  // namespace

void CheckAsyncPairs(const Findings& f) {
  using enum Opcode;
  const ParsedFile& file = f.file;
  for (Id id = 0; id < file.instructions.size(); ++id) {
    const Instruction& inst = file.instructions[id];
    if (inst.is_nested) continue;
    switch (inst.opcode) {
      case kAsyncStart:
        SingleUser(f, id, {kAsyncUpdate, kAsyncDone});
        break;
      case kAsyncUpdate:
        SingleOperand(f, id, {kAsyncStart, kAsyncUpdate});
        SingleUser(f, id, {kAsyncUpdate, kAsyncDone});
        break;
      case kAsyncDone:
        SingleOperand(f, id, {kAsyncStart, kAsyncUpdate});
        break;
      case kAllReduceStart:
        SingleUser(f, id, {kAllReduceDone});
        break;
      case kAllReduceDone:
        SingleOperand(f, id, {kAllReduceStart});
        break;
      case kCopyStart:
        CheckStartShape(f, inst);
        SingleUser(f, id, {kCopyDone});
        break;
      case kCopyDone:
        SingleOperand(f, id, {kCopyStart});
        break;
      case kCollectivePermuteStart:
        CheckStartShape(f, inst);
        SingleUser(f, id, {kCollectivePermuteDone});
        break;
      case kCollectivePermuteDone:
        SingleOperand(f, id, {kCollectivePermuteStart});
        break;
      case kSend:
        if (!IsAsyncWrappedRoot(file, inst))
          SingleUser(f, id, {kSendDone, kTuple});
        break;
      case kSendDone:
        SingleOperand(f, id, {kSend, kGetTupleElement});
        break;
      case kRecv:
        if (!IsAsyncWrappedRoot(file, inst))
          SingleUser(f, id, {kRecvDone, kTuple});
        break;
      case kRecvDone:
        SingleOperand(f, id, {kRecv, kGetTupleElement});
        break;
      default:
        break;
    }
  }
}

}  // namespace hlo::verify_internal
