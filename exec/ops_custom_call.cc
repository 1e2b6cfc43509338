// Custom-calls that are plain math or annotations in disguise: cuBLAS gemm
// (a dot read back from backend_config JSON, alpha/beta applied), TopK,
// torch-neuronx's gelu family, and the sharding/placement annotations that
// pass their operand through.
#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "exec/evaluator_internal.h"
#include "exec/strings.h"
#include "nlohmann/json.hpp"

namespace hlo::exec {

absl::StatusOr<Value> TopK(const Node& node, const Literal& x, int64_t k,
                           bool largest);

namespace {

bool IsPassThrough(std::string_view t) {
  static constexpr std::string_view kTargets[] = {
      "Sharding", "MoveToHost", "MoveToDevice", "Pin", "Unpin",
      "annotate_device_placement", "ShardBarrierFrom", "ShardBarrierTo",
      "SPMDFullToShardShape", "SPMDShardToFullShape", "LayoutConstraint",
      "AssumeGatherIndicesInBound", "xla_python_cpu_callback_annotation",
      // torch-neuronx: weights placed for a static DMA ring; the values
      // pass unchanged (only the layout may differ, which arrays here
      // do not carry).
      "AwsNeuronTransferWithStaticRing"};
  return std::find(std::begin(kTargets), std::end(kTargets), t) !=
         std::end(kTargets);
}

bool IsGemm(std::string_view t) {
  return t == "__cublas$gemm" || t == "__cublas$lt$matmul" ||
         t == "__cublas$lt$matmul$f8" || t == "__rocblas$gemm";
}

std::vector<int64_t> JsonInts(const nlohmann::json& j) {
  std::vector<int64_t> out;
  if (!j.is_array()) return out;
  for (const auto& v : j) {
    if (v.is_string()) {
      out.push_back(std::strtoll(v.get<std::string>().c_str(), nullptr, 10));
    } else if (v.is_number_integer()) {
      out.push_back(v.get<int64_t>());
    }
  }
  return out;
}

double JsonNumber(const nlohmann::json& j, const char* key, double fallback) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  return it->get<double>();
}

absl::StatusOr<Value> Gemm(const Node& node, Operands in) {
  if (in.size() < 2) return Bad("gemm needs two operands");
  std::string text =
      node.attrs.backend_config ? node.attrs.backend_config->text : "";
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object())
    return Bad("gemm backend_config is not JSON");
  const nlohmann::json& cfg =
      json.contains("gemm_backend_config") ? json["gemm_backend_config"] : json;
  if (!cfg.contains("dot_dimension_numbers"))
    return Bad("gemm without dot_dimension_numbers");
  const auto& dj = cfg["dot_dimension_numbers"];
  DotDimensionNumbers dn;
  if (dj.contains("lhs_contracting_dimensions"))
    dn.lhs_contracting_dimensions = JsonInts(dj["lhs_contracting_dimensions"]);
  if (dj.contains("rhs_contracting_dimensions"))
    dn.rhs_contracting_dimensions = JsonInts(dj["rhs_contracting_dimensions"]);
  if (dj.contains("lhs_batch_dimensions"))
    dn.lhs_batch_dimensions = JsonInts(dj["lhs_batch_dimensions"]);
  if (dj.contains("rhs_batch_dimensions"))
    dn.rhs_batch_dimensions = JsonInts(dj["rhs_batch_dimensions"]);
  const double alpha = JsonNumber(cfg, "alpha_real", 1.0);
  const double beta = JsonNumber(cfg, "beta", 0.0);
  std::string epilogue = cfg.value("epilogue", std::string("DEFAULT"));
  if (epilogue != "DEFAULT")
    return absl::UnimplementedError("gemm epilogue " + epilogue +
                                    " is not supported");
  Node dot = node;
  if (node.shape.is_tuple()) dot.shape = node.shape.tuple_elements[0];
  auto r = EvalDot(dot, *in[0], *in[1], dn);
  if (!r.ok()) return r.status();
  if (alpha != 1.0 || (beta != 0.0 && in.size() >= 3)) {
    for (int64_t i = 0; i < r->count(); ++i) {
      double v = alpha * r->GetDouble(i);
      if (beta != 0.0 && in.size() >= 3) v += beta * in[2]->GetDouble(i);
      r->SetDouble(i, v);
    }
  }
  Value out = std::make_shared<const Literal>(*std::move(r));
  if (!node.shape.is_tuple()) return out;
  std::vector<Value> parts = {out};
  for (size_t k = 1; k < node.shape.tuple_elements.size(); ++k) {
    auto z = Literal::Create(node.shape.tuple_elements[k]);
    if (!z.ok()) return z.status();
    parts.push_back(std::make_shared<const Literal>(*std::move(z)));
  }
  return std::make_shared<const Literal>(Literal::MakeTuple(std::move(parts)));
}

// xla_builder.math.X without its decomposition: X is one of our ops.
std::optional<Opcode> MathOp(std::string_view t) {
  constexpr std::string_view kPrefix = "xla_builder.math.";
  if (t.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  t.remove_prefix(kPrefix.size());
  static constexpr std::pair<std::string_view, Opcode> kOps[] = {
      {"Acos", Opcode::kAcos}, {"Acosh", Opcode::kAcosh},
      {"Asin", Opcode::kAsin}, {"Asinh", Opcode::kAsinh},
      {"Atan", Opcode::kAtan}, {"Atanh", Opcode::kAtanh},
      {"Cosh", Opcode::kCosh}, {"Sinh", Opcode::kSinh},
      {"Tan", Opcode::kTan},   {"Erf", Opcode::kErf}};
  for (const auto& [name, op] : kOps)
    if (name == t) return op;
  return std::nullopt;
}

// torch-neuronx activations: gelu (erf form; the tanh approximation has its
// own target) and its derivative, which the graph then multiplies by the
// incoming gradient. Elementwise on one float operand, computed in double.
bool IsNeuronGelu(std::string_view t) {
  return t == "AwsNeuronGelu" || t == "AwsNeuronGeluApprxTanh" ||
         t == "AwsNeuronGeluBackward";
}

absl::StatusOr<Value> NeuronGelu(const std::string& target, const Node& node,
                                 Operands in) {
  if (in.size() != 1 || in[0]->is_tuple() || node.shape.is_tuple() ||
      ShapeString(in[0]->shape()) != ShapeString(node.shape))
    return Bad(target + " needs one operand of the result's shape");
  auto out = Literal::CreateArrayForOverwrite(node.shape.type, node.shape.dims);
  if (!out.ok()) return out.status();
  constexpr double kSqrtHalf = 0.70710678118654752440;
  constexpr double kInvSqrt2Pi = 0.39894228040143267794;
  constexpr double kSqrt2OverPi = 0.79788456080286535588;
  bool is_float = false;
  VisitType(node.shape.type, [&]<typename T>() {
    if constexpr (T::kKind == Kind::kFloat) {
      is_float = true;
      const auto* x = in[0]->data<typename T::S>();
      auto* y = out->data<typename T::S>();
      for (int64_t i = 0; i < out->count(); ++i) {
        const double v = static_cast<double>(T::Load(x[i]));
        double r;
        if (target == "AwsNeuronGelu") {
          r = 0.5 * v * (1 + std::erf(v * kSqrtHalf));
        } else if (target == "AwsNeuronGeluApprxTanh") {
          r = 0.5 * v *
              (1 + std::tanh(kSqrt2OverPi * (v + 0.044715 * v * v * v)));
        } else {  // d/dx x Phi(x) = Phi(x) + x phi(x)
          r = 0.5 * (1 + std::erf(v * kSqrtHalf)) +
              v * kInvSqrt2Pi * std::exp(-0.5 * v * v);
        }
        y[i] = T::Store(static_cast<typename T::C>(r));
      }
    }
  });
  if (!is_float) return Bad(target + " of a non-float type");
  return std::make_shared<const Literal>(*std::move(out));
}

}  // namespace

bool CustomCallSupported(std::string_view target) {
  return IsPassThrough(target) || IsGemm(target) || target == "TopK" ||
         target == "AllocateBuffer" || MathOp(target).has_value() ||
         IsNeuronGelu(target);
}

absl::StatusOr<Value> EvalCustomCall(Evaluator& ev, const Node& node,
                                     Operands in, int depth) {
  const std::string target = node.attrs.custom_call_target.value_or("");
  // XlaBuilder's math library emits calls with their decomposition attached
  // (called_computations): run the decomposition.
  const Id decomposition = node.Call("called_computations");
  if (target.rfind("xla_builder.", 0) == 0 && decomposition != kNone)
    return ev.Run(decomposition, in, depth + 1);
  if (IsPassThrough(target)) {
    if (in.size() != 1)
      return Bad(target + " with " + std::to_string(in.size()) + " operands");
    if (ShapeString(in[0]->shape()) != ShapeString(node.shape))
      return absl::UnimplementedError(
          Cat("custom-call ", target, " changes the shape (",
              ShapeString(in[0]->shape()), " to ", ShapeString(node.shape),
              "); only a partitioned run could give it meaning"));
    return in[0];
  }
  if (IsGemm(target)) return Gemm(node, in);
  if (IsNeuronGelu(target)) return NeuronGelu(target, node, in);
  if (auto op = MathOp(target)) {
    Node math = node;
    math.op = *op;
    auto r = EvalElementwise(math, in);
    if (!r.ok()) return r.status();
    return std::make_shared<const Literal>(*std::move(r));
  }
  if (target == "AllocateBuffer") {
    auto z = Literal::Create(node.shape);
    if (!z.ok()) return z.status();
    return std::make_shared<const Literal>(*std::move(z));
  }
  if (target == "TopK") {
    if (in.size() != 1 || !node.shape.is_tuple() ||
        node.shape.tuple_elements.size() != 2)
      return Bad("TopK needs one operand and a (values, indices) result");
    const auto& dims = node.shape.tuple_elements[0].dims;
    return TopK(node, *in[0], dims.empty() ? 1 : dims.back(), true);
  }
  return absl::UnimplementedError("unsupported custom-call target \"" + target +
                                  "\"");
}

}  // namespace hlo::exec
