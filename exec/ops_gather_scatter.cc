// gather (start indices clamped so the slice fits, as XLA does) and scatter
// (updates whose window would fall outside the operand are skipped), both
// with batching dimensions.
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "exec/evaluator_internal.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

bool Has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The start vector of the index at `batch` (the index dims without the
// index vector dim, in order), in operand dims.
struct IndexReader {
  const Literal& indices;
  int64_t ivd;
  std::vector<int64_t> strides;
  IndexReader(const Literal& idx, int64_t vector_dim)
      : indices(idx), ivd(vector_dim), strides(RowMajorStrides(idx.dims())) {}
  int64_t VectorSize() const {
    return ivd < indices.rank() ? indices.dims()[ivd] : 1;
  }
  // Linear offset of the index vector's first element and its stride.
  void Locate(const std::vector<int64_t>& batch, int64_t* base,
              int64_t* step) const {
    int64_t off = 0;
    for (int d = 0, j = 0; d < indices.rank(); ++d) {
      if (d == ivd) continue;
      off += batch[j++] * strides[d];
    }
    *base = off;
    *step = ivd < indices.rank() ? strides[ivd] : 0;
  }
  // Batch coordinate of indices dim `d` (d != ivd).
  static int64_t BatchCoord(const std::vector<int64_t>& batch, int64_t d,
                            int64_t ivd) {
    return batch[d < ivd ? d : d - 1];
  }
};

}  // namespace

absl::StatusOr<Literal> EvalGather(const Node& node, const Literal& operand,
                                   const Literal& indices) {
  if (!node.attrs.gather_dimension_numbers)
    return Bad("gather without dimension numbers");
  const GatherDimensionNumbers& g = *node.attrs.gather_dimension_numbers;
  auto out = Literal::Create(node.shape);
  if (!out.ok()) return out;
  const int rank = operand.rank();
  if (static_cast<int>(g.slice_sizes.size()) != rank)
    return Bad("slice_sizes rank mismatch");
  IndexReader reader(indices, g.index_vector_dim);
  if (reader.VectorSize() != static_cast<int64_t>(g.start_index_map.size()))
    return Bad("index vector size differs from start_index_map");
  std::vector<int64_t> window_dims;  // operand dims that offsets walk
  for (int d = 0; d < rank; ++d)
    if (!Has(g.collapsed_slice_dims, d) && !Has(g.operand_batching_dims, d))
      window_dims.push_back(d);
  if (window_dims.size() != g.offset_dims.size())
    return Bad("offset_dims size mismatch");
  std::vector<int64_t> batch_out;
  for (int d = 0; d < out->rank(); ++d)
    if (!Has(g.offset_dims, d)) batch_out.push_back(d);
  if (out->count() == 0) return out;
  const std::vector<int64_t> ostrides = RowMajorStrides(operand.dims());
  const int eb = operand.element_bytes();
  std::vector<int64_t> oi(out->rank(), 0), batch(batch_out.size()), start(rank);
  int64_t dst = 0;
  do {
    for (size_t j = 0; j < batch_out.size(); ++j) batch[j] = oi[batch_out[j]];
    int64_t base, step;
    reader.Locate(batch, &base, &step);
    std::fill(start.begin(), start.end(), 0);
    for (size_t k = 0; k < g.start_index_map.size(); ++k) {
      int64_t d = g.start_index_map[k];
      if (d < 0 || d >= rank) return Bad("start_index_map out of range");
      start[d] = indices.GetInt(base + k * step);
    }
    for (size_t i = 0; i < g.operand_batching_dims.size(); ++i)
      start[g.operand_batching_dims[i]] = IndexReader::BatchCoord(
          batch, g.start_indices_batching_dims[i], g.index_vector_dim);
    int64_t src = 0;
    for (int d = 0; d < rank; ++d) {
      start[d] = std::clamp<int64_t>(
          start[d], 0,
          std::max<int64_t>(0, operand.dims()[d] - g.slice_sizes[d]));
      src += start[d] * ostrides[d];
    }
    for (size_t j = 0; j < window_dims.size(); ++j)
      src += oi[g.offset_dims[j]] * ostrides[window_dims[j]];
    std::memcpy(out->raw() + dst * eb, operand.raw() + src * eb, eb);
    ++dst;
  } while (NextIndex(oi, out->dims()));
  return out;
}

absl::StatusOr<Value> EvalScatter(Evaluator& ev, const Node& node, Operands in,
                                  int depth) {
  if (!node.attrs.scatter_dimension_numbers)
    return Bad("scatter without dimension numbers");
  const ScatterDimensionNumbers& s = *node.attrs.scatter_dimension_numbers;
  if (in.size() < 3 || in.size() % 2 == 0)
    return Bad("scatter needs N inputs, indices, N updates");
  const size_t n = (in.size() - 1) / 2;
  const Literal& indices = *in[n];
  const Id combiner = node.Call("to_apply");
  if (combiner == kNone) return Bad("scatter without to_apply=");
  std::vector<Literal> outs;
  for (size_t k = 0; k < n; ++k) {
    if (in[k]->is_tuple() || in[n + 1 + k]->is_tuple())
      return Bad("tuple operand");
    auto o = in[k]->Clone();
    if (!o.ok()) return o.status();
    outs.push_back(*std::move(o));
  }
  const Literal& operand = *in[0];
  const Literal& updates = *in[n + 1];
  const int rank = operand.rank();
  IndexReader reader(indices, s.index_vector_dim);
  if (reader.VectorSize() !=
      static_cast<int64_t>(s.scatter_dims_to_operand_dims.size()))
    return Bad("index vector size differs from scatter_dims_to_operand_dims");
  std::vector<int64_t> window_dims;
  for (int d = 0; d < rank; ++d)
    if (!Has(s.inserted_window_dims, d) && !Has(s.input_batching_dims, d))
      window_dims.push_back(d);
  if (window_dims.size() != s.update_window_dims.size())
    return Bad("update_window_dims size mismatch");
  std::vector<int64_t> scatter_dims;
  for (int d = 0; d < updates.rank(); ++d)
    if (!Has(s.update_window_dims, d)) scatter_dims.push_back(d);
  std::vector<int64_t> window_size(rank, 1);
  for (size_t j = 0; j < window_dims.size(); ++j)
    window_size[window_dims[j]] = updates.dims()[s.update_window_dims[j]];
  // Fast paths: the combiner returns the update, or adds.
  auto plan = ev.GetPlan(combiner);
  if (!plan.ok()) return plan.status();
  const Node& root = (*plan)->nodes[(*plan)->root];
  const bool assign = n == 1 && root.op == Opcode::kParameter &&
                      root.attrs.parameter_number == 1;
  const bool add = n == 1 && root.op == Opcode::kAdd &&
                   root.operands.size() == 2 &&
                   (*plan)->nodes[root.operands[0]].op == Opcode::kParameter &&
                   (*plan)->nodes[root.operands[1]].op == Opcode::kParameter;
  const std::vector<int64_t> ostrides = RowMajorStrides(operand.dims());
  std::vector<int64_t> ui(updates.rank(), 0), batch(scatter_dims.size()),
      start(rank);
  int64_t src = 0;
  if (updates.count() == 0) goto done;
  do {
    {
      for (size_t j = 0; j < scatter_dims.size(); ++j)
        batch[j] = ui[scatter_dims[j]];
      int64_t base, step;
      reader.Locate(batch, &base, &step);
      std::fill(start.begin(), start.end(), 0);
      for (size_t k = 0; k < s.scatter_dims_to_operand_dims.size(); ++k) {
        int64_t d = s.scatter_dims_to_operand_dims[k];
        if (d < 0 || d >= rank)
          return Bad("scatter_dims_to_operand_dims out of range");
        start[d] = indices.GetInt(base + k * step);
      }
      for (size_t i = 0; i < s.input_batching_dims.size(); ++i)
        start[s.input_batching_dims[i]] = IndexReader::BatchCoord(
            batch, s.scatter_indices_batching_dims[i], s.index_vector_dim);
      bool in_bounds = true;
      int64_t dst = 0;
      for (int d = 0; d < rank; ++d) {
        if (start[d] < 0 || start[d] + window_size[d] > operand.dims()[d])
          in_bounds = false;
        dst += start[d] * ostrides[d];
      }
      if (in_bounds) {
        for (size_t j = 0; j < window_dims.size(); ++j)
          dst += ui[s.update_window_dims[j]] * ostrides[window_dims[j]];
        if (assign) {
          const int eb = outs[0].element_bytes();
          std::memcpy(outs[0].raw() + dst * eb, updates.raw() + src * eb, eb);
        } else if (add && outs[0].type() == updates.type() &&
                   !IsComplex(updates.type())) {
          VisitType(updates.type(), [&]<typename T>() {
            auto* o = outs[0].data<typename T::S>();
            const auto* u = updates.data<typename T::S>();
            if constexpr (T::kKind == Kind::kPred) {
              o[dst] = o[dst] || u[src];
            } else if constexpr (T::kKind == Kind::kFloat) {
              o[dst] = T::Store(T::Load(o[dst]) + T::Load(u[src]));
            } else if constexpr (T::kKind != Kind::kComplex) {
              using U = std::make_unsigned_t<typename T::C>;
              o[dst] = T::Store(static_cast<typename T::C>(U(T::Load(o[dst])) +
                                                           U(T::Load(u[src]))));
            }
          });
        } else {
          std::vector<Value> args;
          for (size_t k = 0; k < n; ++k) {
            auto a = Literal::CreateArray(outs[k].type(), {});
            std::memcpy(a->raw(), outs[k].raw() + dst * outs[k].element_bytes(),
                        outs[k].element_bytes());
            args.push_back(std::make_shared<const Literal>(*std::move(a)));
          }
          for (size_t k = 0; k < n; ++k) {
            const Literal& up = *in[n + 1 + k];
            auto b = Literal::CreateArray(up.type(), {});
            std::memcpy(b->raw(), up.raw() + src * up.element_bytes(),
                        up.element_bytes());
            args.push_back(std::make_shared<const Literal>(*std::move(b)));
          }
          auto r = ev.CallScalar(combiner, args, depth);
          if (!r.ok()) return r.status();
          for (size_t k = 0; k < n; ++k) {
            const Literal& v = (*r)->is_tuple() ? *(*r)->elements()[k] : **r;
            std::memcpy(outs[k].raw() + dst * outs[k].element_bytes(), v.raw(),
                        outs[k].element_bytes());
          }
        }
      }
    }
    ++src;
  } while (NextIndex(ui, updates.dims()));
done:
  if (n == 1 && !node.shape.is_tuple())
    return std::make_shared<const Literal>(std::move(outs[0]));
  std::vector<Value> elements;
  for (Literal& o : outs)
    elements.push_back(std::make_shared<const Literal>(std::move(o)));
  return std::make_shared<const Literal>(
      Literal::MakeTuple(std::move(elements)));
}

}  // namespace hlo::exec
