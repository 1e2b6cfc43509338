#include "exec/fake_data.h"

#include <algorithm>
#include <numeric>

#include "exec/evaluator.h"
#include "exec/strings.h"
#include "hlo/attributes.h"
#include "hlo/query.h"

namespace hlo::exec {
namespace {

using O = Opcode;

std::vector<int64_t> DimsOf(const ParsedFile& file, Id shape) {
  if (shape == kNone) return {};
  const Shape& s = file.shapes[shape];
  const int64_t* p = file.Ints(s.dims);
  return std::vector<int64_t>(p, p + s.dims.count);
}

Id OperandDef(const ParsedFile& file, const Instruction& in, uint32_t k) {
  if (k >= in.operands.count) return kNone;
  const Operand& op = file.operands[in.operands.begin + k];
  return op.nested != kNone ? op.nested : op.definition;
}

// 0 for add(p0, p1) reducers, 1 for multiply, nullopt otherwise.
std::optional<int64_t> ReducerIdentity(const ParsedFile& file,
                                       const Instruction& in) {
  for (Id r = in.called.begin; r < in.called.end(); ++r) {
    Id c = file.computation_refs[r].computation;
    if (c == kNone) continue;
    const Computation& comp = file.computations[c];
    if (comp.root == kNone) continue;
    const Instruction& root = file.instructions[comp.root];
    if (root.operands.count != 2) continue;
    bool params = true;
    for (uint32_t k = 0; k < 2; ++k) {
      Id d = OperandDef(file, root, k);
      if (d == kNone || file.instructions[d].opcode != O::kParameter)
        params = false;
    }
    if (!params) continue;
    if (root.opcode == O::kAdd) return 0;
    if (root.opcode == O::kMultiply) return 1;
  }
  return std::nullopt;
}

void Merge(FakeConstraint* into, const FakeConstraint& c) {
  if (c.index_max) {
    into->index_max = into->index_max ? std::min(*into->index_max, *c.index_max)
                                      : *c.index_max;
  }
  if (c.init_value) into->init_value = c.init_value;
  if (c.no_duplicates) into->no_duplicates = true;
  if (!c.reason.empty() && into->reason.find(c.reason) == std::string::npos)
    into->reason += (into->reason.empty() ? "" : ", ") + c.reason;
}

// Walks the uses of `instruction` (depth-limited).
void Collect(const ParsedFile& file, Id instruction, bool index_path, int depth,
             FakeConstraint* out) {
  if (depth > 32) return;
  for (const Use& use : UsersOf(file, instruction)) {
    if (use.operand == kNone) continue;
    const Instruction& user = file.instructions[use.user];
    const uint32_t k = use.operand - user.operands.begin;
    FakeConstraint c;
    switch (user.opcode) {
      case O::kConvert:
      case O::kReducePrecision:
        Collect(file, use.user, index_path, depth + 1, out);
        break;
      case O::kReshape:
      case O::kTranspose:
      case O::kCopy:
      case O::kSlice:
      case O::kBitcast:
        Collect(file, use.user, true, depth + 1, out);
        break;
      case O::kFusion:
      case O::kCall: {
        for (Id r = user.called.begin; r < user.called.end(); ++r) {
          Id callee = file.computation_refs[r].computation;
          if (callee == kNone) continue;
          const Computation& comp = file.computations[callee];
          for (Id i = comp.instructions.begin; i < comp.instructions.end();
               ++i) {
            if (file.instructions[i].opcode == O::kParameter &&
                ParameterNumber(file, i) == static_cast<int64_t>(k))
              Collect(file, i, index_path, depth + 1, out);
          }
        }
        break;
      }
      case O::kDynamicSlice: {
        if (k < 1) break;
        std::vector<int64_t> dims =
            DimsOf(file, file.instructions[OperandDef(file, user, 0)].shape);
        std::vector<int64_t> sizes = DimsOf(file, user.shape);
        const size_t d = k - 1;
        if (d < dims.size() && d < sizes.size()) {
          c.index_max = std::max<int64_t>(0, dims[d] - sizes[d]);
          c.reason = "dynamic-slice index";
        }
        break;
      }
      case O::kDynamicUpdateSlice: {
        if (k < 2) break;
        std::vector<int64_t> dims =
            DimsOf(file, file.instructions[OperandDef(file, user, 0)].shape);
        std::vector<int64_t> sizes =
            DimsOf(file, file.instructions[OperandDef(file, user, 1)].shape);
        const size_t d = k - 2;
        if (d < dims.size() && d < sizes.size()) {
          c.index_max = std::max<int64_t>(0, dims[d] - sizes[d]);
          c.reason = "dynamic-update-slice index";
        }
        break;
      }
      case O::kGather:
      case O::kScatter: {
        if (k != 1) break;
        InstructionAttributes attrs = DecodeInstructionAttributes(file, user);
        std::vector<int64_t> map;
        if (user.opcode == O::kGather && attrs.gather_dimension_numbers)
          map = attrs.gather_dimension_numbers->start_index_map;
        if (user.opcode == O::kScatter && attrs.scatter_dimension_numbers)
          map = attrs.scatter_dimension_numbers->scatter_dims_to_operand_dims;
        std::vector<int64_t> dims =
            DimsOf(file, file.instructions[OperandDef(file, user, 0)].shape);
        int64_t mx = INT64_MAX;
        for (int64_t d : map)
          if (d >= 0 && d < static_cast<int64_t>(dims.size()))
            mx = std::min(mx, dims[d] - 1);
        if (mx != INT64_MAX) {
          c.index_max = std::max<int64_t>(0, mx);
          c.reason =
              user.opcode == O::kGather ? "gather index" : "scatter index";
        }
        break;
      }
      case O::kReduce:
        if (k >= user.operands.count / 2) {
          c.init_value = ReducerIdentity(file, user);
          c.reason = "reduce init value";
        }
        break;
      case O::kReduceWindow:
        if (k >= user.operands.count / 2) {
          c.init_value = ReducerIdentity(file, user);
          c.reason = "reduce-window init value";
        }
        break;
      case O::kSelectAndScatter:
        if (k == 2) {
          c.init_value = ReducerIdentity(file, user);
          c.reason = "select-and-scatter init value";
        }
        break;
      case O::kSort: {
        if (k != 0) break;
        const Attribute* stable = file.FindAttribute(user, "is_stable");
        if (user.operands.count >= 2 || stable) {
          c.no_duplicates = true;
          c.reason = "sort key";
        }
        break;
      }
      default:
        break;
    }
    if (!c.reason.empty()) Merge(out, c);
  }
}

}  // namespace

absl::StatusOr<FakeConstraint> ParameterConstraint(const ParsedFile& file,
                                                   Id module, int64_t number) {
  const Module& m = file.modules[module];
  if (m.entry == kNone)
    return absl::InvalidArgumentError("no entry computation");
  const Computation& entry = file.computations[m.entry];
  FakeConstraint c;
  for (Id i = entry.instructions.begin; i < entry.instructions.end(); ++i) {
    if (file.instructions[i].opcode == O::kParameter &&
        ParameterNumber(file, i) == number)
      Collect(file, i, false, 0, &c);
  }
  return c;
}

absl::StatusOr<std::vector<Value>> MakeFakeArguments(
    const ParsedFile& file, Id module, uint32_t seed,
    std::vector<std::string>* notes) {
  auto shapes = EntryParameterShapes(file, module);
  if (!shapes.ok()) return shapes.status();
  std::minstd_rand0 engine(seed);
  std::vector<Value> args;
  for (size_t k = 0; k < shapes->size(); ++k) {
    const LiteralShape& shape = (*shapes)[k];
    auto lit = Literal::Create(shape);
    if (!lit.ok()) return lit.status();
    auto c = ParameterConstraint(file, module, static_cast<int64_t>(k));
    if (!c.ok()) return c.status();
    FillFake(*lit, engine, *c);
    if (notes && !c->reason.empty()) {
      std::string what = c->reason;
      if (c->index_max) what += Cat(" in [0, ", *c->index_max, "]");
      if (c->init_value) what += Cat(" = ", *c->init_value);
      if (c->no_duplicates) what += " without duplicates";
      notes->push_back(Cat("arg", k, ": ", what));
    }
    args.push_back(std::make_shared<const Literal>(*std::move(lit)));
  }
  return args;
}

}  // namespace hlo::exec
