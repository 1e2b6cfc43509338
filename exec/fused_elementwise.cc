// Fusions whose computation is elementwise from end to end (the common
// kLoop fusion: converts, arithmetic, exp, compare, select ...) run block by
// block: each block of kBlock elements goes through the whole computation
// while its intermediates are still in cache, instead of every instruction
// writing a whole-array intermediate to memory. The op functions are the
// ones the instruction-by-instruction path calls, on block-sized arrays, so
// the results are identical. Scalars (parameters, constants, broadcasts of
// them) are computed once and passed as one-element operands, which the
// elementwise ops broadcast. Computations of f32 arithmetic and the
// vector_math functions take a leaner path on float pointers (no copies of
// argument blocks, the root written straight into the result), with the
// same operations in the same order, so again the same bits.
#include <algorithm>
#include <cstring>
#include <optional>

#include "exec/evaluator_internal.h"
#include "exec/parallel.h"
#include "exec/vector_math.h"

namespace hlo::exec {
namespace {

using O = Opcode;

constexpr int64_t kBlock = 16384;
// Below this the plain path is as fast (and a single block gains nothing).
constexpr int64_t kMinElements = 4 * kBlock;

enum class Role : uint8_t {
  kScalar,     // one element, computed once (value in `scalars`)
  kParameter,  // a whole-array argument: sliced per block
  kElementwise,
  kConvert,
};

struct Program {
  int64_t n = 0;  // elements of every whole-array value
  std::vector<Role> roles;
  std::vector<Value> scalars;
  bool f32 = false;  // every whole-array value f32 and every op F32Op's
};

// The ops of the all-f32 path, which works on float pointers straight into
// the arguments and the result (no block copies, no literals per block).
std::optional<VecFn> F32Unary(Opcode op) {
  switch (op) {
    case O::kExponential:
      return VecFn::kExp;
    case O::kExponentialMinusOne:
      return VecFn::kExpm1;
    case O::kLog:
      return VecFn::kLog;
    case O::kLogPlusOne:
      return VecFn::kLog1p;
    case O::kTanh:
      return VecFn::kTanh;
    case O::kLogistic:
      return VecFn::kLogistic;
    case O::kSqrt:
      return VecFn::kSqrt;
    case O::kRsqrt:
      return VecFn::kRsqrt;
    default:
      return std::nullopt;
  }
}
bool F32Binary(Opcode op) {
  return op == O::kAdd || op == O::kSubtract || op == O::kMultiply ||
         op == O::kDivide;
}

bool IsArray(const Literal& v) {
  return !v.is_tuple() && v.type() != PrimitiveType::kToken;
}

// Decides whether `plan` runs blockwise on `args` and computes its
// scalars; nullopt when it does not (the caller runs it as usual).
std::optional<Program> Compile(const Plan& plan, Operands args) {
  const Node& root = plan.nodes[plan.root];
  if (root.shape.is_tuple() || root.op == O::kParameter) return std::nullopt;
  std::optional<int64_t> n = CheckedElementCount(root.shape.dims);
  if (!n || *n < kMinElements) return std::nullopt;
  if (args.size() != plan.parameters.size()) return std::nullopt;
  Program p;
  p.n = *n;
  p.roles.resize(plan.nodes.size());
  p.scalars.resize(plan.nodes.size());
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const Node& node = plan.nodes[i];
    if (node.shape.is_tuple()) return std::nullopt;
    std::optional<int64_t> count = CheckedElementCount(node.shape.dims);
    if (!count || (*count != p.n && *count != 1)) return std::nullopt;
    bool all_scalar = true;
    for (int o : node.operands) all_scalar &= p.roles[o] == Role::kScalar;
    Role& role = p.roles[i];
    if (node.op == O::kParameter) {
      const int64_t number = node.attrs.parameter_number.value_or(-1);
      if (number < 0 || static_cast<size_t>(number) >= args.size())
        return std::nullopt;
      const Value& arg = args[number];
      if (!arg || !IsArray(*arg) ||
          ShapeString(arg->shape()) != ShapeString(node.shape))
        return std::nullopt;
      role = arg->count() == 1 ? Role::kScalar : Role::kParameter;
      if (role == Role::kScalar) p.scalars[i] = arg;
    } else if (node.op == O::kConstant) {
      if (*count != 1 || !node.attrs.literal) return std::nullopt;
      bool elided = false;
      auto lit = LiteralFromValue(*node.attrs.literal, node.shape, &elided);
      if (!lit.ok() || elided) return std::nullopt;
      role = Role::kScalar;
      p.scalars[i] = std::make_shared<const Literal>(*std::move(lit));
    } else if (node.op == O::kBroadcast) {
      // A broadcast of a scalar is that scalar to the elementwise ops.
      if (node.operands.size() != 1 || !all_scalar) return std::nullopt;
      const Value& s = p.scalars[node.operands[0]];
      if (s->type() != node.shape.type) return std::nullopt;
      role = Role::kScalar;
      p.scalars[i] = s;
    } else if (node.op == O::kConvert || IsElementwise(node.op)) {
      if (node.operands.empty()) return std::nullopt;
      role = node.op == O::kConvert ? Role::kConvert : Role::kElementwise;
      if (all_scalar) {
        // Computed once, at its own (one-element or whole) shape; a
        // whole-shape result of scalars is rare: leave it to the plain path.
        if (*count != 1) return std::nullopt;
        std::vector<Value> in;
        for (int o : node.operands) in.push_back(p.scalars[o]);
        auto lit = node.op == O::kConvert
                       ? ConvertLiteral(*in[0], node.shape.type)
                       : EvalElementwise(node, in);
        if (!lit.ok()) return std::nullopt;  // the plain path reports it
        role = Role::kScalar;
        p.scalars[i] = std::make_shared<const Literal>(*std::move(lit));
      } else if (*count != p.n) {
        return std::nullopt;
      }
    } else {
      return std::nullopt;
    }
  }
  if (p.roles[plan.root] == Role::kScalar ||
      p.roles[plan.root] == Role::kParameter)
    return std::nullopt;
  p.f32 = true;
  for (size_t i = 0; i < plan.nodes.size() && p.f32; ++i) {
    const Node& node = plan.nodes[i];
    if (p.roles[i] == Role::kScalar) continue;
    p.f32 = node.shape.type == PrimitiveType::kF32 &&
            (p.roles[i] == Role::kParameter ||
             (p.roles[i] == Role::kElementwise &&
              ((node.operands.size() == 1 && F32Unary(node.op) &&
                p.roles[node.operands[0]] != Role::kScalar) ||
               (node.operands.size() == 2 && F32Binary(node.op)))));
    for (int o : node.operands)
      p.f32 &= p.roles[o] != Role::kScalar ||
               p.scalars[o]->type() == PrimitiveType::kF32;
  }
  return p;
}

// The all-f32 path over blocks [first, last): whole-array values are float
// pointers (into an argument, a per-node block buffer, or the result).
void RunBlocksF32(const Plan& plan, const Program& p, Operands args,
                  int64_t first, int64_t last, Literal& out) {
  const size_t count = plan.nodes.size();
  std::vector<std::vector<float>> buffers(count);
  std::vector<const float*> ptr(count, nullptr);
  for (size_t i = 0; i < count; ++i) {
    const Role role = p.roles[i];
    if (role == Role::kScalar) {  // splatted once: read like an array
      buffers[i].assign(kBlock, p.scalars[i]->data<float>()[0]);
      ptr[i] = buffers[i].data();
    } else if (role == Role::kElementwise && static_cast<int>(i) != plan.root) {
      buffers[i].resize(kBlock);
    }
  }
  float* result = out.data<float>();
  for (int64_t b = first; b < last; ++b) {
    const int64_t lo = b * kBlock;
    const int64_t m = std::min(kBlock, p.n - lo);
    for (size_t i = 0; i < count; ++i) {
      const Node& node = plan.nodes[i];
      const Role role = p.roles[i];
      if (role == Role::kScalar) continue;
      if (role == Role::kParameter) {
        ptr[i] =
            args[node.attrs.parameter_number.value_or(0)]->data<float>() + lo;
        continue;
      }
      float* __restrict o =
          static_cast<int>(i) == plan.root ? result + lo : buffers[i].data();
      if (node.operands.size() == 1) {
        VecMathF32(*F32Unary(node.op), ptr[node.operands[0]], o, m);
      } else {
        const float* __restrict x = ptr[node.operands[0]];
        const float* __restrict y = ptr[node.operands[1]];
        switch (node.op) {
          case O::kAdd:
            for (int64_t k = 0; k < m; ++k) o[k] = x[k] + y[k];
            break;
          case O::kSubtract:
            for (int64_t k = 0; k < m; ++k) o[k] = x[k] - y[k];
            break;
          case O::kMultiply:
            for (int64_t k = 0; k < m; ++k) o[k] = x[k] * y[k];
            break;
          default:  // kDivide
            for (int64_t k = 0; k < m; ++k) o[k] = x[k] / y[k];
            break;
        }
      }
      ptr[i] = o;
    }
  }
}

// Runs blocks [first, last) of `plan` into `out`.
absl::Status RunBlocks(const ParsedFile& file, const Plan& plan,
                       const Program& p, Operands args, int64_t first,
                       int64_t last, Literal& out) {
  std::vector<Node> nodes;  // block-shaped copies of the whole-array nodes
  nodes.reserve(plan.nodes.size());
  for (const Node& node : plan.nodes) {
    nodes.push_back(Node{});
    Node& copy = nodes.back();
    copy.id = node.id;
    copy.op = node.op;
    copy.shape = node.shape;
    copy.attrs = node.attrs;
  }
  std::vector<Value> values(plan.nodes.size());
  std::vector<Value> in;
  int64_t shaped_for = -1;
  for (int64_t b = first; b < last; ++b) {
    const int64_t lo = b * kBlock;
    const int64_t m = std::min(kBlock, p.n - lo);
    if (m != shaped_for) {
      for (Node& node : nodes) node.shape.dims = {m};
      shaped_for = m;
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& node = nodes[i];
      const Role role = p.roles[i];
      if (role == Role::kScalar) {
        values[i] = p.scalars[i];
        continue;
      }
      absl::StatusOr<Literal> lit;
      if (role == Role::kParameter) {
        const Literal& arg = *args[node.attrs.parameter_number.value_or(0)];
        lit = Literal::CreateArrayForOverwrite(arg.type(), {m});
        if (lit.ok())
          std::memcpy(lit->raw(), arg.raw() + lo * arg.element_bytes(),
                      m * arg.element_bytes());
      } else {
        in.clear();
        for (int o : plan.nodes[i].operands) in.push_back(values[o]);
        lit = role == Role::kConvert ? ConvertLiteral(*in[0], node.shape.type)
                                     : EvalElementwise(node, in);
      }
      if (!lit.ok()) return AtInstruction(file, node.id, lit.status());
      values[i] = std::make_shared<const Literal>(*std::move(lit));
      for (int o : plan.nodes[i].operands)
        if (plan.last_use[o] == static_cast<int>(i)) values[o].reset();
    }
    const Literal& r = *values[plan.root];
    std::memcpy(out.raw() + lo * out.element_bytes(), r.raw(),
                m * out.element_bytes());
    values[plan.root].reset();
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::optional<Value>> TryRunBlockwise(const ParsedFile& file,
                                                     const Plan& plan,
                                                     Operands args) {
  std::optional<Program> p = Compile(plan, args);
  if (!p) return std::optional<Value>();
  const Node& root = plan.nodes[plan.root];
  auto out = Literal::CreateArrayForOverwrite(root.shape.type, root.shape.dims);
  if (!out.ok()) return out.status();
  const int64_t blocks = (p->n + kBlock - 1) / kBlock;
  const int threads =
      static_cast<int>(std::min<int64_t>(ExecThreads(), blocks / 2));
  std::vector<absl::Status> status(std::max(threads, 1));
  auto run = [&](int64_t first, int64_t last) -> absl::Status {
    if (!p->f32) return RunBlocks(file, plan, *p, args, first, last, *out);
    RunBlocksF32(plan, *p, args, first, last, *out);
    return absl::OkStatus();
  };
  if (threads <= 1) {
    status[0] = run(0, blocks);
  } else {
    ParallelFor(threads, [&](int t) {
      const Range r = SplitRange(blocks, threads, 1, t);
      status[t] = run(r.begin, r.end);
    });
  }
  for (const absl::Status& s : status)
    if (!s.ok()) return s;
  return std::optional<Value>(std::make_shared<const Literal>(*std::move(out)));
}

}  // namespace hlo::exec
