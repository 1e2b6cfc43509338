// batch-norm-training, batch-norm-inference and batch-norm-grad, with the
// formulas of XLA's BatchNormExpander (biased variance, epsilon inside the
// square root), accumulated in double and rounded once to the result type.
#include <cmath>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/evaluator_internal.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

using O = Opcode;

// The feature layout of an operand: element i belongs to feature
// (i / inner) % features.
struct FeatureAxis {
  int64_t features = 0;
  int64_t inner = 1;
  int64_t per_feature = 0;  // elements that share one feature
  int64_t Of(int64_t i) const { return (i / inner) % features; }
};

absl::StatusOr<FeatureAxis> AxisOf(const Node& node, const Literal& operand) {
  if (!node.attrs.feature_index)
    return absl::InvalidArgumentError("batch norm without feature_index=");
  const int64_t f = *node.attrs.feature_index;
  if (f < 0 || f >= operand.rank())
    return absl::InvalidArgumentError(Cat("feature_index=", f,
                                          " is outside the operand's rank ",
                                          operand.rank()));
  FeatureAxis axis;
  axis.features = operand.dims()[f];
  for (int d = static_cast<int>(f) + 1; d < operand.rank(); ++d)
    axis.inner *= operand.dims()[d];
  axis.per_feature = axis.features == 0 ? 0 : operand.count() / axis.features;
  return axis;
}

absl::Status CheckFeatureVector(const Literal& v, const FeatureAxis& axis,
                                const char* what) {
  if (v.is_tuple() || v.count() != axis.features)
    return absl::InvalidArgumentError(
        Cat(what, " has ", v.count(), " elements; the feature dimension has ",
            axis.features));
  return absl::OkStatus();
}

std::vector<double> ToDoubles(const Literal& v) {
  std::vector<double> out(v.count());
  for (int64_t i = 0; i < v.count(); ++i) out[i] = v.GetDouble(i);
  return out;
}

absl::StatusOr<Value> FromDoubles(PrimitiveType type,
                                  const std::vector<int64_t>& dims,
                                  const std::vector<double>& values) {
  absl::StatusOr<Literal> out = Literal::CreateArray(type, dims);
  if (!out.ok()) return out.status();
  for (size_t i = 0; i < values.size(); ++i) out->SetDouble(i, values[i]);
  return std::make_shared<const Literal>(*std::move(out));
}

// Mean and biased variance per feature.
void Moments(const Literal& x, const FeatureAxis& axis,
             std::vector<double>& mean, std::vector<double>& var) {
  mean.assign(axis.features, 0.0);
  var.assign(axis.features, 0.0);
  if (axis.per_feature == 0) return;
  for (int64_t i = 0; i < x.count(); ++i) mean[axis.Of(i)] += x.GetDouble(i);
  for (double& m : mean) m /= axis.per_feature;
  for (int64_t i = 0; i < x.count(); ++i) {
    const double d = x.GetDouble(i) - mean[axis.Of(i)];
    var[axis.Of(i)] += d * d;
  }
  for (double& v : var) v /= axis.per_feature;
}

// (x - mean) / sqrt(var + epsilon) * scale + offset, element by element.
std::vector<double> Normalize(const Literal& x, const FeatureAxis& axis,
                              const std::vector<double>& mean,
                              const std::vector<double>& var,
                              const std::vector<double>& scale,
                              const std::vector<double>& offset,
                              double epsilon) {
  std::vector<double> out(x.count());
  for (int64_t i = 0; i < x.count(); ++i) {
    const int64_t f = axis.Of(i);
    out[i] =
        (x.GetDouble(i) - mean[f]) / std::sqrt(var[f] + epsilon) * scale[f] +
        offset[f];
  }
  return out;
}

absl::StatusOr<Value> Training(const Node& node, Operands in, double epsilon) {
  const Literal& x = *in[0];
  absl::StatusOr<FeatureAxis> axis = AxisOf(node, x);
  if (!axis.ok()) return axis.status();
  for (int k = 1; k <= 2; ++k)
    if (absl::Status s =
            CheckFeatureVector(*in[k], *axis, k == 1 ? "scale" : "offset");
        !s.ok())
      return s;
  std::vector<double> mean, var;
  Moments(x, *axis, mean, var);
  auto out = FromDoubles(x.type(), x.dims(),
                         Normalize(x, *axis, mean, var, ToDoubles(*in[1]),
                                   ToDoubles(*in[2]), epsilon));
  auto mean_out = FromDoubles(in[1]->type(), in[1]->dims(), mean);
  auto var_out = FromDoubles(in[1]->type(), in[1]->dims(), var);
  for (auto* s : {&out, &mean_out, &var_out})
    if (!s->ok()) return s->status();
  return std::make_shared<const Literal>(
      Literal::MakeTuple({*out, *mean_out, *var_out}));
}

absl::StatusOr<Value> Inference(const Node& node, Operands in, double epsilon) {
  const Literal& x = *in[0];
  absl::StatusOr<FeatureAxis> axis = AxisOf(node, x);
  if (!axis.ok()) return axis.status();
  static const char* kNames[] = {"", "scale", "offset", "mean", "variance"};
  for (int k = 1; k <= 4; ++k)
    if (absl::Status s = CheckFeatureVector(*in[k], *axis, kNames[k]); !s.ok())
      return s;
  return FromDoubles(x.type(), x.dims(),
                     Normalize(x, *axis, ToDoubles(*in[3]), ToDoubles(*in[4]),
                               ToDoubles(*in[1]), ToDoubles(*in[2]), epsilon));
}

// Operands: operand, scale, mean, variance, grad_output. Result:
// (grad_operand, grad_scale, grad_offset).
absl::StatusOr<Value> Grad(const Node& node, Operands in, double epsilon) {
  const Literal& x = *in[0];
  const Literal& dy = *in[4];
  absl::StatusOr<FeatureAxis> axis = AxisOf(node, x);
  if (!axis.ok()) return axis.status();
  static const char* kNames[] = {"", "scale", "mean", "variance"};
  for (int k = 1; k <= 3; ++k)
    if (absl::Status s = CheckFeatureVector(*in[k], *axis, kNames[k]); !s.ok())
      return s;
  if (dy.count() != x.count())
    return absl::InvalidArgumentError(
        "grad_output and the operand differ in element count");
  const std::vector<double> scale = ToDoubles(*in[1]);
  const std::vector<double> mean = ToDoubles(*in[2]);
  const std::vector<double> var = ToDoubles(*in[3]);
  const int64_t features = axis->features;
  std::vector<double> sum_dy(features, 0.0), sum_dy_xc(features, 0.0);
  for (int64_t i = 0; i < x.count(); ++i) {
    const int64_t f = axis->Of(i);
    const double g = dy.GetDouble(i);
    sum_dy[f] += g;
    sum_dy_xc[f] += g * (x.GetDouble(i) - mean[f]);
  }
  const double n = static_cast<double>(axis->per_feature);
  std::vector<double> grad_x(x.count()), grad_scale(features);
  for (int64_t f = 0; f < features; ++f)
    grad_scale[f] = sum_dy_xc[f] / std::sqrt(var[f] + epsilon);
  for (int64_t i = 0; i < x.count(); ++i) {
    const int64_t f = axis->Of(i);
    const double var_eps = var[f] + epsilon;
    const double xc = x.GetDouble(i) - mean[f];
    grad_x[i] =
        scale[f] / std::sqrt(var_eps) *
        (dy.GetDouble(i) - sum_dy[f] / n - xc * sum_dy_xc[f] / (n * var_eps));
  }
  auto gx = FromDoubles(x.type(), x.dims(), grad_x);
  auto gs = FromDoubles(in[1]->type(), in[1]->dims(), grad_scale);
  auto go = FromDoubles(in[1]->type(), in[1]->dims(), sum_dy);
  for (auto* s : {&gx, &gs, &go})
    if (!s->ok()) return s->status();
  return std::make_shared<const Literal>(Literal::MakeTuple({*gx, *gs, *go}));
}

}  // namespace

bool IsBatchNorm(Opcode op) {
  return op == O::kBatchNormTraining || op == O::kBatchNormInference ||
         op == O::kBatchNormGrad;
}

absl::StatusOr<Value> EvalBatchNorm(const Node& node, Operands in) {
  const size_t want = node.op == O::kBatchNormTraining ? 3 : 5;
  if (in.size() != want)
    return absl::InvalidArgumentError(Cat(OpcodeName(node.op), " takes ", want,
                                          " operands, not ", in.size()));
  for (const Value& v : in)
    if (!v || v->is_tuple())
      return absl::InvalidArgumentError("batch norm operands must be arrays");
  const double epsilon = node.attrs.epsilon.value_or(0.0);
  switch (node.op) {
    case O::kBatchNormTraining:
      return Training(node, in, epsilon);
    case O::kBatchNormInference:
      return Inference(node, in, epsilon);
    default:
      return Grad(node, in, epsilon);
  }
}

}  // namespace hlo::exec
