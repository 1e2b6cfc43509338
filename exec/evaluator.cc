#include "exec/evaluator.h"

#include <algorithm>
#include <functional>
#include <random>
#include <set>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "absl/strings/cord.h"
#include "absl/strings/str_join.h"
#include "exec/evaluator_internal.h"
#include "exec/fake_values.h"
#include "exec/rendezvous.h"
#include "exec/stats.h"
#include "exec/strings.h"
#include "hlo/attributes.h"
#include "hlo/query.h"

namespace hlo::exec {
namespace {

using O = Opcode;

template <typename... A>
absl::Status Err(const ParsedFile& file, Id instr, const A&... message) {
  return AtInstruction(file, instr,
                       absl::InvalidArgumentError(Cat(message...)));
}

std::vector<int64_t> LayoutOf(const ParsedFile& file, Id shape) {
  if (shape == kNone) return {};
  const Shape& s = file.shapes[shape];
  if (s.layout == kNone) return {};
  const Layout& l = file.layouts[s.layout];
  const int64_t* p = file.Ints(l.minor_to_major);
  return std::vector<int64_t>(p, p + l.minor_to_major.count);
}

bool IsCallKey(std::string_view key) {
  return key == "to_apply" || key == "calls" || key == "body" ||
         key == "condition" || key == "select" || key == "scatter" ||
         key == "true_computation" || key == "false_computation" ||
         key == "branch_computations" || key == "called_computations";
}

}  // namespace

std::string Where(const ParsedFile& file, Id instruction) {
  if (instruction == kNone || instruction >= file.instructions.size())
    return "";
  const Instruction& in = file.instructions[instruction];
  std::string name(file.Name(in));
  return Cat("line ", file.lines().LineOf(in.span.begin) + 1, ": ",
             name.empty() ? "" : "%" + name + " ", file.Text(in.opcode_span),
             ": ");
}

namespace {
// The payload that marks an error as placed: the 1-based line it names.
constexpr char kLinePayload[] = "hlo-lsp.exec/line";
}  // namespace

absl::Status AtInstruction(const ParsedFile& file, Id instruction,
                           const absl::Status& status) {
  const std::string where = Where(file, instruction);
  absl::Status out(status.code(), Cat(where, status.message()));
  if (!where.empty()) {
    const Instruction& in = file.instructions[instruction];
    out.SetPayload(
        kLinePayload,
        absl::Cord(std::to_string(file.lines().LineOf(in.span.begin) + 1)));
  }
  return out;
}

bool IsPlaced(const absl::Status& status) {
  return status.GetPayload(kLinePayload).has_value();
}

void KeepPlace(const absl::Status& from, absl::Status& to) {
  if (auto line = from.GetPayload(kLinePayload))
    to.SetPayload(kLinePayload, *line);
}

absl::StatusOr<std::unique_ptr<Plan>> BuildPlan(const ParsedFile& file,
                                                Id computation) {
  const Computation& comp = file.computations[computation];
  if (comp.root == kNone)
    return absl::InvalidArgumentError(
        Cat("computation ", file.Name(comp), " has no root"));
  auto plan = std::make_unique<Plan>();
  plan->computation = computation;
  std::unordered_map<Id, int> index;
  auto operand_id = [&](const Operand& op) {
    return op.nested != kNone ? op.nested : op.definition;
  };
  // Iterative post-order DFS from the root (and every parameter, so that
  // parameter numbers are all known).
  std::vector<Id> starts = {comp.root};
  for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i)
    if (file.instructions[i].opcode == O::kParameter) starts.push_back(i);
  std::unordered_map<Id, int> state;  // 1 visiting, 2 done
  for (Id start : starts) {
    if (state[start] == 2) continue;
    std::vector<std::pair<Id, uint32_t>> stack = {{start, 0}};
    state[start] = 1;
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const Instruction& in = file.instructions[id];
      if (next < in.operands.count) {
        const Operand& op = file.operands[in.operands.begin + next++];
        Id dep = operand_id(op);
        if (dep == kNone)
          return Err(file, id, Cat("undefined operand ", file.Text(op.name)));
        int& s = state[dep];
        if (s == 1) return Err(file, id, "cycle in operands");
        if (s == 0) {
          s = 1;
          stack.push_back({dep, 0});
        }
        continue;
      }
      state[id] = 2;
      Node node;
      node.id = id;
      node.op = in.opcode;
      node.wrapped = in.wrapped_opcode;
      if (in.opcode == O::kAsyncStart || in.opcode == O::kAsyncDone ||
          in.opcode == O::kAsyncUpdate) {
        // keep kAsync*: wrapped_opcode tells the sugared form
      }
      if (in.shape == kNone) return Err(file, id, "instruction has no shape");
      auto shape = LiteralShapeFromParsed(file, in.shape);
      if (!shape.ok()) return Err(file, id, shape.status().message());
      node.shape = *std::move(shape);
      node.minor_to_major = LayoutOf(file, in.shape);
      const Shape& declared = file.shapes[in.shape];
      for (Id k = 0; k < declared.dynamic.count; ++k)
        node.dynamic_dims.push_back(file.Ints(declared.dynamic)[k] != 0);
      node.attrs = DecodeInstructionAttributes(file, in);
      if (!node.attrs.errors.empty())
        return Err(file, id, node.attrs.errors[0].message);
      for (Id r = in.called.begin; r < in.called.end(); ++r) {
        const ComputationRef& ref = file.computation_refs[r];
        std::string key =
            ref.attribute != kNone
                ? std::string(file.Text(file.attributes[ref.attribute].key))
                : "calls";
        if (!IsCallKey(key)) continue;
        if (ref.computation == kNone)
          return Err(file, id,
                     Cat("undefined computation ", file.Text(ref.name)));
        node.calls[key].push_back(ref.computation);
      }
      for (Id o = in.operands.begin; o < in.operands.end(); ++o) {
        Id dep = operand_id(file.operands[o]);
        node.operands.push_back(index.at(dep));
        node.operand_layouts.push_back(
            plan->nodes[index.at(dep)].minor_to_major);
      }
      index[id] = static_cast<int>(plan->nodes.size());
      plan->nodes.push_back(std::move(node));
      stack.pop_back();
    }
  }
  plan->root = index.at(comp.root);
  plan->last_use.assign(plan->nodes.size(), -1);
  for (size_t i = 0; i < plan->nodes.size(); ++i) {
    const Node& n = plan->nodes[i];
    for (int o : n.operands) plan->last_use[o] = static_cast<int>(i);
    if (n.op == O::kParameter) {
      int64_t number = n.attrs.parameter_number.value_or(-1);
      if (number < 0 || number > 1 << 20)
        return Err(file, n.id, "bad parameter number");
      if (plan->parameters.size() <= static_cast<size_t>(number))
        plan->parameters.resize(number + 1, -1);
      plan->parameters[number] = static_cast<int>(i);
    }
  }
  return plan;
}

Evaluator::Evaluator(const ParsedFile& file, Id module,
                     const EvalOptions& options, int64_t device,
                     DeviceCount devices, Rendezvous* rendezvous)
    : file_(file),
      module_(module),
      options_(options),
      device_(device),
      devices_(devices),
      rendezvous_(rendezvous) {}

absl::StatusOr<const Plan*> Evaluator::GetPlan(Id computation) {
  auto it = plans_.find(computation);
  if (it != plans_.end()) return it->second.get();
  auto plan = BuildPlan(file_, computation);
  if (!plan.ok()) return plan.status();
  const Plan* p = plan->get();
  plans_[computation] = *std::move(plan);
  return p;
}

void Evaluator::RecordStats(Id instruction, const Literal& value) {
  stats_.Add(StatsOf(instruction, value), *this, options_.origin_only);
}

absl::StatusOr<Value> Evaluator::Run(Id computation,
                                     std::span<const Value> args, int depth,
                                     bool collect) {
  if (depth > options_.max_call_depth)
    return absl::InvalidArgumentError("call depth limit exceeded");
  auto plan_or = GetPlan(computation);
  if (!plan_or.ok()) return plan_or.status();
  const Plan& plan = **plan_or;
  if (args.size() != plan.parameters.size())
    return absl::InvalidArgumentError(Cat(
        "computation ", file_.Name(file_.computations[computation]), " takes ",
        plan.parameters.size(), " arguments, got ", args.size()));
  std::vector<Value> values(plan.nodes.size());
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const Node& node = plan.nodes[i];
    if (options_.max_steps && ++result_.steps > options_.max_steps)
      return absl::DeadlineExceededError("step limit reached");
    if (node.op == O::kParameter) {
      const Value& arg = args[node.attrs.parameter_number.value_or(0)];
      if (!arg || ShapeString(arg->shape()) != ShapeString(node.shape))
        return Err(file_, node.id, "argument is ",
                   arg ? ShapeString(arg->shape()) : "missing",
                   ", the parameter is ", ShapeString(node.shape));
      values[i] = arg;
    } else {
      auto v = EvalNode(plan, node, values, depth);
      if (!v.ok()) {
        if (IsPlaced(v.status())) return v.status();
        return AtInstruction(file_, node.id, v.status());
      }
      values[i] = *std::move(v);
      // The declared element type wins where an op computed another (XLA's
      // mixed precision: `f32[3] copy(bf16[3])`, a bf16 reduce of f32).
      const Literal& got = *values[i];
      // A result of other dimensions than declared is a wrong answer, not
      // one to pass on silently (a reduce-scatter without replica_count).
      if (!got.is_tuple() && !node.shape.is_tuple() &&
          node.shape.type != PrimitiveType::kToken &&
          got.type() != PrimitiveType::kToken &&
          got.dims() != node.shape.dims) {
        return Err(file_, node.id, "computed ", ShapeString(got.shape()),
                   " where the instruction declares ", ShapeString(node.shape));
      }
      if (!got.is_tuple() && !node.shape.is_tuple() &&
          node.shape.type != PrimitiveType::kInvalid &&
          node.shape.type != PrimitiveType::kToken &&
          got.type() != node.shape.type) {
        auto converted = ConvertLiteral(got, node.shape.type);
        if (!converted.ok())
          return AtInstruction(file_, node.id, converted.status());
        values[i] = std::make_shared<const Literal>(*std::move(converted));
      }
      if (!node.dynamic_dims.empty()) {
        std::vector<Value> in;
        for (int o : node.operands) in.push_back(values[o]);
        auto inherited = InheritDynamicSizes(node, in, values[i]);
        if (!inherited.ok())
          return AtInstruction(file_, node.id, inherited.status());
        values[i] = *std::move(inherited);
      }
      if (collect && options_.collect_stats) {
        RecordStats(node.id, *values[i]);
        if (stats_.restart_needed())
          return absl::AbortedError("the NaN origin search starts again");
      }
    }
    // Free operands after their last use (the root is kept).
    for (int o : node.operands)
      if (plan.last_use[o] == static_cast<int>(i) && o != plan.root)
        values[o].reset();
  }
  return values[plan.root];
}

absl::StatusOr<Value> Evaluator::CallScalar(Id computation,
                                            std::span<const Value> args,
                                            int depth) {
  return Run(computation, args, depth + 1, /*collect=*/false);
}

absl::StatusOr<Value> Evaluator::EvalNode(const Plan& plan, const Node& node,
                                          std::vector<Value>& values,
                                          int depth) {
  std::vector<Value> in;
  in.reserve(node.operands.size());
  for (int o : node.operands) {
    if (!values[o]) return absl::InternalError("operand freed too early");
    in.push_back(values[o]);
  }
  auto wrap = [](absl::StatusOr<Literal> lit) -> absl::StatusOr<Value> {
    if (!lit.ok()) return lit.status();
    return std::make_shared<const Literal>(*std::move(lit));
  };
  auto need = [&](size_t n) -> absl::Status {
    if (in.size() < n)
      return absl::InvalidArgumentError(
          Cat(OpcodeName(node.op), " needs ", n, " operands"));
    return absl::OkStatus();
  };
  (void)plan;
  if (IsLeafOp(node.op)) return EvalLeafOp(*this, node, in, depth);
  switch (node.op) {
    case O::kConstant: {
      if (!node.attrs.literal)
        return absl::InvalidArgumentError("constant without a literal");
      bool elided = false;
      auto lit = LiteralFromValue(*node.attrs.literal, node.shape, &elided);
      if (!lit.ok()) return lit.status();
      if (elided) {
        std::minstd_rand0 engine(node.id);
        FillFake(*lit, engine);
      }
      return wrap(std::move(lit));
    }
    case O::kTuple:
      return std::make_shared<const Literal>(Literal::MakeTuple(in));
    case O::kGetTupleElement: {
      if (absl::Status s = need(1); !s.ok()) return s;
      int64_t index = node.attrs.tuple_index.value_or(-1);
      if (!in[0]->is_tuple() || index < 0 ||
          index >= static_cast<int64_t>(in[0]->elements().size()))
        return absl::InvalidArgumentError("tuple index out of range");
      return in[0]->elements()[index];
    }
    case O::kCall:
    case O::kFusion: {
      Id callee = node.Call(node.op == O::kCall ? "to_apply" : "calls");
      if (callee == kNone) callee = node.Call("calls");
      if (callee == kNone)
        return absl::InvalidArgumentError("no computation to call");
      if (node.op == O::kFusion &&
          (!options_.collect_stats || options_.origin_only)) {
        // Per-instruction stats need every intermediate whole, so only
        // without them (or where the NaN origin rule allows) may an
        // elementwise fusion run block by block.
        auto fused = GetPlan(callee);
        if (!fused.ok()) return fused.status();
        const FusionStats rule =
            options_.collect_stats
                ? FusionStatsRule(**fused, stats_.first_nonfinite())
                : FusionStats::kNone;
        const int64_t steps = static_cast<int64_t>((*fused)->nodes.size());
        if (options_.max_steps && result_.steps + steps > options_.max_steps)
          return Run(callee, in, depth + 1);  // stops at the limit
        if (rule != FusionStats::kInside) {
          auto blockwise = TryRunBlockwise(file_, **fused, in);
          if (!blockwise.ok()) return blockwise.status();
          if (*blockwise) {
            if (rule == FusionStats::kCheckResult) {
              const InstructionStats s = StatsOf(node.id, ***blockwise);
              if (s.nan_count + s.inf_count > 0) {
                ++result_.fused_reruns;  // name the instruction inside
                return Run(callee, in, depth + 1);
              }
            }
            if (options_.collect_stats) {
              stats_.RanFused(callee);
              ++result_.fused_runs;
            }
            result_.steps += steps;
            return **std::move(blockwise);
          }
        }
      }
      return Run(callee, in, depth + 1);
    }
    case O::kWhile: {
      if (absl::Status s = need(1); !s.ok()) return s;
      Id cond = node.Call("condition"), body = node.Call("body");
      if (cond == kNone || body == kNone)
        return absl::InvalidArgumentError("while needs condition= and body=");
      Value state = in[0];
      while (true) {
        auto c = Run(cond, std::span<const Value>(&state, 1), depth + 1);
        if (!c.ok()) return c.status();
        if ((*c)->is_tuple() || (*c)->count() != 1)
          return absl::InvalidArgumentError(
              "while condition is not a scalar pred");
        if (!(*c)->GetInt(0)) break;
        auto next = Run(body, std::span<const Value>(&state, 1), depth + 1);
        if (!next.ok()) return next.status();
        state = *std::move(next);
      }
      return state;
    }
    case O::kConditional: {
      if (absl::Status s = need(1); !s.ok()) return s;
      std::vector<Id> branches;
      auto it = node.calls.find("branch_computations");
      if (it != node.calls.end()) {
        branches = it->second;
      } else {
        branches = {node.Call("true_computation"),
                    node.Call("false_computation")};
      }
      if (branches.empty()) return absl::InvalidArgumentError("no branches");
      int64_t b;
      if (in[0]->type() == PrimitiveType::kPred) {
        b = in[0]->GetInt(0) ? 0 : 1;
      } else {
        b = in[0]->GetInt(0);
        if (b < 0 || b >= static_cast<int64_t>(branches.size()))
          b = branches.size() - 1;
      }
      if (b >= static_cast<int64_t>(branches.size()) || branches[b] == kNone)
        return absl::InvalidArgumentError("branch computation missing");
      if (in.size() < static_cast<size_t>(b) + 2)
        return absl::InvalidArgumentError("conditional branch operand missing");
      return Run(branches[b], std::span<const Value>(&in[b + 1], 1), depth + 1);
    }
    case O::kAfterAll:
    case O::kGenerateToken:
      return wrap(Literal::CreateArray(PrimitiveType::kToken, {}));
    case O::kAddDependency:
    case O::kOptimizationBarrier:
    case O::kOptBarrier:
    case O::kDomain:
    case O::kAsyncUpdate:
    case O::kAllReduceDone:
      if (absl::Status s = need(1); !s.ok()) return s;
      return in[0];
    case O::kCopyStart: {
      if (absl::Status s = need(1); !s.ok()) return s;
      return std::make_shared<const Literal>(Literal::MakeTuple(
          {in[0], in[0],
           std::make_shared<const Literal>(
               Literal::ScalarFromInt(PrimitiveType::kU32, 0))}));
    }
    case O::kCopyDone:
      if (absl::Status s = need(1); !s.ok()) return s;
      if (!in[0]->is_tuple() || in[0]->elements().empty()) return in[0];
      return in[0]->elements()[0];
    case O::kAsyncStart: {
      Id callee = node.Call("calls");
      absl::StatusOr<Value> r =
          absl::InvalidArgumentError("async-start without calls=");
      if (callee != kNone) {
        r = Run(callee, in, depth + 1);
      } else if (absl::StatusOr<Node> inner = WrappedOp(node); inner.ok()) {
        r = EvalNode(plan, *inner, values, depth);  // sugared: run the op
      }
      if (!r.ok()) return r;
      return AsyncStartValue(node, in, *std::move(r));
    }
    case O::kAsyncDone:
      if (absl::Status s = need(1); !s.ok()) return s;
      if (!in[0]->is_tuple() || in[0]->elements().size() < 2)
        return absl::InvalidArgumentError(
            "async-done operand is not an async tuple");
      return in[0]->elements()[1];
    case O::kPartitionId:
      return wrap(Literal::ScalarFromInt(node.shape.type,
                                         device_ % devices_.partitions));
    case O::kReplicaId:
      return wrap(Literal::ScalarFromInt(node.shape.type,
                                         device_ / devices_.partitions));
    default:
      return absl::UnimplementedError(
          Cat("unsupported op ", OpcodeName(node.op)));
  }
}

absl::StatusOr<Value> EvalRngGetAndUpdateState(Evaluator& ev,
                                               const Node& node) {
  // XLA keeps a 128-bit state per executable; here it is a counter that
  // starts at the evaluator's seed-derived state.
  if (node.shape.dims.size() != 1 || node.shape.dims[0] != 2)
    return absl::InvalidArgumentError(
        "rng-get-and-update-state must produce u64[2]");
  absl::StatusOr<Literal> out = Literal::CreateArray(node.shape.type, {2});
  if (!out.ok()) return out.status();
  uint64_t delta = 0;
  for (const RawAttribute& a : node.attrs.others) {
    if (a.key != "delta") continue;
    absl::StatusOr<int64_t> d = DecodeInt(a.value);
    if (!d.ok() || *d < 0)
      return absl::InvalidArgumentError("delta= is not a count");
    delta = static_cast<uint64_t>(*d);
  }
  out->SetInt(0, static_cast<int64_t>(ev.GetAndAdvanceRngState(delta)));
  out->SetInt(1, 0);
  return std::make_shared<const Literal>(*std::move(out));
}

// ------------------------------------------------------------ pre-pass --

namespace {

// The leaf ops and what EvalNode itself handles.
bool OpSupported(Opcode op) {
  if (IsLeafOp(op)) return true;
  switch (op) {
    case O::kParameter:
    case O::kConstant:
    case O::kTuple:
    case O::kGetTupleElement:
    case O::kCall:
    case O::kFusion:
    case O::kWhile:
    case O::kConditional:
    case O::kAfterAll:
    case O::kGenerateToken:
    case O::kAddDependency:
    case O::kOptimizationBarrier:
    case O::kOptBarrier:
    case O::kDomain:
    case O::kAsyncStart:
    case O::kAsyncUpdate:
    case O::kAsyncDone:
    case O::kCopyStart:
    case O::kCopyDone:
    case O::kPartitionId:
    case O::kReplicaId:
    case O::kAllReduceDone:
      return true;
    default:
      return false;
  }
}

// Computations reachable from the entry (callees included), in id order.
std::vector<Id> ReachableComputations(const ParsedFile& file, Id module) {
  std::set<Id> seen;
  std::vector<Id> stack;
  const Module& m = file.modules[module];
  if (m.entry != kNone) stack.push_back(m.entry);
  while (!stack.empty()) {
    Id c = stack.back();
    stack.pop_back();
    if (!seen.insert(c).second) continue;
    const Computation& comp = file.computations[c];
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      const Instruction& in = file.instructions[i];
      for (Id r = in.called.begin; r < in.called.end(); ++r) {
        Id target = file.computation_refs[r].computation;
        if (target != kNone && !seen.count(target)) stack.push_back(target);
      }
    }
  }
  return std::vector<Id>(seen.begin(), seen.end());
}

int64_t ShapeBytes(const ParsedFile& file, Id shape) {
  if (shape == kNone) return 0;
  auto ls = LiteralShapeFromParsed(file, shape);
  if (!ls.ok()) return 0;
  auto b = StorageByteSize(*ls);
  return b ? *b : INT64_MAX / 4;
}

}  // namespace

DeviceCount ModuleDevices(const ParsedFile& file, Id module) {
  DeviceCount d;
  const Module& m = file.modules[module];
  bool has_replica_count = false;
  for (Id a = m.header_attributes.begin; a < m.header_attributes.end(); ++a) {
    std::string_view key = file.Text(file.attributes[a].key);
    auto v = DecodeInt(file.Text(file.attributes[a].value));
    if (!v.ok() || *v < 1) continue;
    if (key == "replica_count") {
      d.replicas = *v;
      has_replica_count = true;
    }
    if (key == "num_partitions") d.partitions = *v;
  }
  if (has_replica_count) return d;
  // Without replica_count (run_hlo_module takes --num_replicas), the
  // collectives' own ids say how many participants there are.
  int64_t max_id = -1;
  for (Id c = m.computations.begin; c < m.computations.end(); ++c) {
    const Computation& comp = file.computations[c];
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      const Instruction& in = file.instructions[i];
      if (const Attribute* a = file.FindAttribute(in, "replica_groups")) {
        auto groups = DecodeReplicaGroups(file.Text(a->value));
        if (!groups.ok()) continue;
        auto expanded = ExpandReplicaGroups(*groups, 1 << 16);
        if (!expanded.ok()) continue;
        for (const auto& g : *expanded)
          for (int64_t x : g) max_id = std::max(max_id, x);
      }
      if (const Attribute* a = file.FindAttribute(in, "source_target_pairs")) {
        auto pairs = DecodeSourceTargetPairs(file.Text(a->value));
        if (!pairs.ok()) continue;
        for (const auto& p : *pairs)
          max_id = std::max({max_id, p.source, p.target});
      }
    }
  }
  if (max_id >= 0 && max_id < 4096 && max_id + 1 > d.total())
    d.replicas = (max_id + 1 + d.partitions - 1) / d.partitions;
  return d;
}

absl::Status CheckSupported(const ParsedFile& file, Id module) {
  if (module >= file.modules.size())
    return absl::InvalidArgumentError("no such module");
  if (file.modules[module].entry == kNone)
    return absl::InvalidArgumentError("the module has no entry computation");
  std::vector<std::string> problems;
  std::set<std::string> seen;
  for (Id c : ReachableComputations(file, module)) {
    const Computation& comp = file.computations[c];
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      const Instruction& in = file.instructions[i];
      std::string what;
      if (in.opcode == O::kCustomCall ||
          (in.opcode == O::kAsyncStart &&
           in.wrapped_opcode == O::kCustomCall)) {
        const Attribute* a = file.FindAttribute(in, "custom_call_target");
        std::string target;
        if (a) {
          auto t = DecodeString(file.Text(a->value));
          if (t.ok()) target = *t;
        }
        const bool decomposed =
            target.rfind("xla_builder.", 0) == 0 && in.called.count == 1;
        if (!decomposed && !CustomCallSupported(target))
          what = Cat("custom-call target \"", target, "\"");
      } else if (in.opcode == O::kUnknown) {
        what = Cat("unknown op ", file.Text(in.opcode_span));
      } else if (!OpSupported(in.opcode)) {
        what = Cat("op ", OpcodeName(in.opcode));
      } else if (in.opcode == O::kAsyncStart &&
                 in.wrapped_opcode != O::kUnknown &&
                 in.wrapped_opcode != O::kCustomCall &&
                 !OpSupported(in.wrapped_opcode)) {
        what = Cat("op ", file.Text(in.opcode_span));
      }
      if (what.empty() || !seen.insert(what).second) continue;
      problems.push_back(Cat("unsupported ", what, " (line ",
                             file.lines().LineOf(in.span.begin) + 1, ")"));
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrJoin(problems, "; "));
}

std::optional<int64_t> EstimatePeakMemory(const ParsedFile& file, Id module) {
  // Peak of live results per computation, in text order, freeing a value at
  // its last use; a call adds its callee's peak at that point.
  std::map<Id, int64_t> peaks;
  std::function<int64_t(Id, int)> peak_of = [&](Id c, int depth) -> int64_t {
    auto it = peaks.find(c);
    if (it != peaks.end()) return it->second;
    if (depth > 64) return 0;
    peaks[c] = 0;  // guards recursion
    const Computation& comp = file.computations[c];
    std::unordered_map<Id, Id> last_use;
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      const Instruction& in = file.instructions[i];
      for (Id o = in.operands.begin; o < in.operands.end(); ++o) {
        Id d = file.operands[o].nested != kNone ? file.operands[o].nested
                                                : file.operands[o].definition;
        if (d != kNone) last_use[d] = i;
      }
    }
    std::unordered_map<Id, int64_t> live_bytes;
    int64_t live = 0, peak = 0;
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      const Instruction& in = file.instructions[i];
      int64_t bytes = 0;
      if (in.opcode != O::kParameter && in.opcode != O::kTuple &&
          in.opcode != O::kGetTupleElement && in.opcode != O::kWhile &&
          in.opcode != O::kAfterAll)
        bytes = ShapeBytes(file, in.shape);
      int64_t callee = 0;
      for (Id r = in.called.begin; r < in.called.end(); ++r) {
        Id t = file.computation_refs[r].computation;
        if (t != kNone) callee = std::max(callee, peak_of(t, depth + 1));
      }
      if (live > INT64_MAX / 4 || bytes > INT64_MAX / 4) return INT64_MAX / 4;
      live += bytes;
      live_bytes[i] = bytes;
      peak = std::max(peak, live + callee);
      for (Id o = in.operands.begin; o < in.operands.end(); ++o) {
        Id d = file.operands[o].nested != kNone ? file.operands[o].nested
                                                : file.operands[o].definition;
        if (d != kNone && last_use[d] == i && d != comp.root) {
          live -= live_bytes[d];
          live_bytes[d] = 0;
        }
      }
    }
    peaks[c] = peak;
    return peak;
  };
  const Module& m = file.modules[module];
  if (m.entry == kNone) return std::nullopt;
  int64_t total = peak_of(m.entry, 0);
  const Computation& entry = file.computations[m.entry];
  for (Id i = entry.instructions.begin; i < entry.instructions.end(); ++i) {
    if (file.instructions[i].opcode == O::kParameter)
      total += ShapeBytes(file, file.instructions[i].shape);
  }
  DeviceCount d = ModuleDevices(file, module);
  if (total >= INT64_MAX / 4 / std::max<int64_t>(1, d.total()))
    return std::nullopt;
  return total * d.total();
}

absl::StatusOr<std::vector<LiteralShape>> EntryParameterShapes(
    const ParsedFile& file, Id module) {
  const Module& m = file.modules[module];
  if (m.entry == kNone)
    return absl::InvalidArgumentError("the module has no entry computation");
  const Computation& entry = file.computations[m.entry];
  std::vector<std::pair<int64_t, LiteralShape>> found;
  for (Id i = entry.instructions.begin; i < entry.instructions.end(); ++i) {
    const Instruction& in = file.instructions[i];
    if (in.opcode != O::kParameter) continue;
    auto n = ParameterNumber(file, i);
    if (!n) return Err(file, i, "parameter without a number");
    auto s = LiteralShapeFromParsed(file, in.shape);
    if (!s.ok()) return Err(file, i, s.status().message());
    found.push_back({*n, *std::move(s)});
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<LiteralShape> shapes;
  for (size_t k = 0; k < found.size(); ++k) {
    if (found[k].first != static_cast<int64_t>(k))
      return absl::InvalidArgumentError("entry parameter numbers have a gap");
    shapes.push_back(std::move(found[k].second));
  }
  return shapes;
}

absl::StatusOr<EvalResult> Evaluate(const ParsedFile& file, Id module,
                                    const std::vector<std::vector<Value>>& args,
                                    const EvalOptions& options) {
  if (module >= file.modules.size() || file.modules[module].entry == kNone)
    return absl::InvalidArgumentError("the module has no entry computation");
  const Id entry = file.modules[module].entry;
  DeviceCount devices = ModuleDevices(file, module);
  if (devices.total() > 4096)
    return absl::ResourceExhaustedError(
        Cat("the module has ", devices.total(),
            " participants; at most 4096 run here"));
  if (args.empty()) return absl::InvalidArgumentError("no arguments given");
  const int64_t n = devices.total();
  auto op_by_op = [&] {  // every instruction recorded: no origin_only
    EvalOptions all = options;
    all.origin_only = false;
    return Evaluate(file, module, args, all);
  };
  if (options.origin_only && n > 1) return op_by_op();  // stop together only
  Rendezvous rendezvous;
  std::vector<absl::StatusOr<Value>> results(n, absl::UnknownError("not run"));
  std::vector<std::unique_ptr<Evaluator>> evaluators;
  for (int64_t d = 0; d < n; ++d)
    evaluators.push_back(std::make_unique<Evaluator>(file, module, options, d,
                                                     devices, &rendezvous));
  auto run_one = [&](int64_t d) {
    const auto& a = args.size() == 1 ? args[0] : args[d];
    results[d] = evaluators[d]->Run(entry, a, 0);
    if (!results[d].ok()) rendezvous.Abort(results[d].status());
  };
  if (args.size() != 1 && static_cast<int64_t>(args.size()) != n)
    return absl::InvalidArgumentError(
        "argument sets do not match participants");
  if (n == 1) {
    run_one(0);
    if (evaluators[0]->restart_needed()) {
      auto again = op_by_op();
      if (again.ok()) again->restarted = true;
      return again;
    }
  } else {
    std::vector<std::thread> threads;
    try {
      for (int64_t d = 0; d < n; ++d) threads.emplace_back(run_one, d);
    } catch (const std::system_error& e) {  // thread limits: fail cleanly
      rendezvous.Abort(absl::ResourceExhaustedError(Cat(
          "cannot start participant thread ", threads.size(), ": ", e.what())));
      for (auto& t : threads) t.join();
      return absl::ResourceExhaustedError(
          Cat("cannot start ", n, " participant threads: ", e.what()));
    }
    for (auto& t : threads) t.join();
  }
  EvalResult out;
  for (int64_t d = 0; d < n; ++d) {
    if (!results[d].ok()) return results[d].status();
    // XLA's result is its dynamic shape: cut to the dynamic sizes.
    auto logical = LogicalResult(*results[d]);
    if (!logical.ok()) return logical.status();
    out.results.push_back(*std::move(logical));
  }
  EvalResult& first = evaluators[0]->result();
  out.stats = evaluators[0]->stats().Take();
  out.first_nonfinite = evaluators[0]->stats().first_nonfinite();
  out.steps = first.steps;
  out.fused_runs = first.fused_runs;
  out.fused_reruns = first.fused_reruns;
  return out;
}

}  // namespace hlo::exec
