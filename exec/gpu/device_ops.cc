// The GPU backend's device ops (Runner, runner.h): elementwise ops, reduces,
// copies (reshape, broadcast, transpose, slices, pad, concatenate) and
// dots through cuBLAS, on kernels.cu's kernels.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "exec/evaluator_internal.h"
#include "exec/gpu/cublas.h"
#include "exec/gpu/kernels.h"
#include "exec/gpu/placement.h"
#include "exec/gpu/runner.h"
#include "exec/strings.h"

namespace hlo::exec::gpu::internal {

absl::StatusOr<GV> Runner::Alias(const LiteralShape& shape, const GV& src) {
  if (Count(shape) != Count(src->shape) || shape.type != src->shape.type)
    return absl::UnimplementedError("reshape changes the element count");
  auto p = Dev(src);
  if (!p.ok()) return p.status();
  auto g = std::make_shared<GVal>();
  g->shape = shape;
  g->dev = src->dev;
  return g;
}

absl::StatusOr<GV> Runner::Copy(const LiteralShape& shape, const StridedCopy& c,
                                const GV& src) {
  auto s = Dev(src);
  if (!s.ok()) return s.status();
  auto out = NewArray(shape);
  if (!out.ok()) return out;
  RETURN_IF_ERROR(CudaStatus(
      LaunchStridedCopy(c, StorageBytes(shape.type), *s, (*out)->dev->data()),
      "a copy kernel"));
  return out;
}

absl::StatusOr<std::vector<int64_t>> Runner::Starts(
    const std::vector<GV>& in, size_t first, const std::vector<int64_t>& dims,
    const std::vector<int64_t>& sizes) {
  std::vector<Value> host;
  for (size_t k = first; k < in.size(); ++k) {
    auto v = Host(in[k]);
    if (!v.ok()) return v.status();
    host.push_back(*v);
  }
  std::vector<int64_t> starts(dims.size(), 0);
  const bool vector_form =
      host.size() == 1 && host[0]->rank() == 1 && dims.size() != 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t v = 0;
    if (vector_form) {
      if (static_cast<int64_t>(d) < host[0]->count()) v = host[0]->GetInt(d);
    } else if (d < host.size()) {
      v = host[d]->GetInt(0);
    }
    starts[d] =
        std::clamp<int64_t>(v, 0, std::max<int64_t>(0, dims[d] - sizes[d]));
  }
  return starts;
}

absl::StatusOr<GV> Runner::Elementwise(const Node& node,
                                       const std::vector<GV>& in) {
  const int64_t n = Count(node.shape);
  std::vector<const void*> ptr;
  std::vector<bool> scalar;
  for (const GV& g : in) {
    auto p = Dev(g);
    if (!p.ok()) return p.status();
    ptr.push_back(*p);
    scalar.push_back(Count(g->shape) != n);
  }
  auto out = NewArray(node.shape);
  if (!out.ok()) return out;
  void* o = (*out)->dev->data();
  const auto t = DeviceType(node.shape.type);
  int err = 0;
  switch (node.op) {
    case O::kSelect:
      err = LaunchSelect(StorageBytes(node.shape.type), n,
                         static_cast<const uint8_t*>(ptr[0]), scalar[0], ptr[1],
                         scalar[1], ptr[2], scalar[2], o);
      break;
    case O::kClamp:
      err = LaunchClamp(*t, n, ptr[0], scalar[0], ptr[1], scalar[1], ptr[2],
                        scalar[2], o);
      break;
    case O::kCompare:
      err = LaunchCompare(
          static_cast<int>(node.attrs.comparison_direction.value_or(
              ComparisonDirection::kEq)),
          node.attrs.comparison_type == ComparisonType::kTotalOrder,
          *DeviceType(in[0]->shape.type), n, ptr[0], scalar[0], ptr[1],
          scalar[1], static_cast<uint8_t*>(o));
      break;
    case O::kIsFinite:
      err = LaunchIsFinite(*DeviceType(in[0]->shape.type), n, ptr[0],
                           static_cast<uint8_t*>(o));
      break;
    default: {
      const auto op = ElementwiseOp(node.op);
      if (!op || !t) return absl::UnimplementedError("no device kernel");
      if (in.size() == 1) {
        err = LaunchUnary(*op, *t, n, ptr[0], o);
      } else {
        err = LaunchBinary(*op, *t, n, ptr[0], scalar[0], ptr[1], scalar[1], o);
      }
    }
  }
  RETURN_IF_ERROR(CudaStatus(err, Cat(OpcodeName(node.op), " kernel")));
  return out;
}

absl::StatusOr<GV> Runner::Reduce(const Node& node, const std::vector<GV>& in) {
  auto plan = cpu_.GetPlan(node.Call("to_apply"));
  if (!plan.ok()) return plan.status();
  const auto op = SimpleReduceOp(**plan);
  const auto t = DeviceType(node.shape.type);
  if (!op || !t) return absl::UnimplementedError("no device reduce");
  const std::vector<int64_t>& dims = in[0]->shape.dims;
  std::vector<int64_t> rd =
      node.attrs.dimensions.value_or(std::vector<int64_t>{});
  std::sort(rd.begin(), rd.end());
  std::vector<bool> reduced(dims.size(), false);
  for (int64_t d : rd) {
    if (d < 0 || d >= static_cast<int64_t>(dims.size()) || reduced[d])
      return absl::InvalidArgumentError("reduce dimension out of range");
    reduced[d] = true;
  }
  const std::vector<int64_t> strides = Strides(dims);
  ReduceShape s;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (reduced[d]) {
      s.reduced_dims[s.reduced_rank] = dims[d];
      s.reduced_strides[s.reduced_rank++] = strides[d];
    } else {
      s.kept_dims[s.kept_rank] = dims[d];
      s.kept_strides[s.kept_rank++] = strides[d];
    }
  }
  std::vector<int64_t> kept(s.kept_dims, s.kept_dims + s.kept_rank);
  if (kept != node.shape.dims)
    return absl::InvalidArgumentError(
        "reduce result shape differs from the kept dims");
  auto x = Dev(in[0]);
  if (!x.ok()) return x.status();
  auto init = Dev(in[1]);
  if (!init.ok()) return init.status();
  auto out = NewArray(node.shape);
  if (!out.ok()) return out;
  RETURN_IF_ERROR(
      CudaStatus(LaunchReduce(*op, *t, s, *x, *init, (*out)->dev->data()),
                 "reduce kernel"));
  return out;
}

// `g` transposed so that out dim i is g's dim perm[i] (no copy when perm is
// the identity).
absl::StatusOr<GV> Runner::Permuted(const GV& g,
                                    const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) {
    auto p = Dev(g);
    if (!p.ok()) return p.status();
    return g;
  }
  const std::vector<int64_t> in_strides = Strides(g->shape.dims);
  LiteralShape shape = g->shape;
  StridedCopy c;
  c.rank = static_cast<int>(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    shape.dims[i] = g->shape.dims[perm[i]];
    c.dims[i] = shape.dims[i];
    c.src_strides[i] = in_strides[perm[i]];
  }
  const std::vector<int64_t> out_strides = Strides(shape.dims);
  for (size_t i = 0; i < perm.size(); ++i) c.dst_strides[i] = out_strides[i];
  return Copy(shape, c, g);
}

absl::StatusOr<GV> Runner::Dot(const Node& node, const std::vector<GV>& in) {
  const DotDimensionNumbers& dn = *node.attrs.dot_dimension_numbers;
  const std::vector<int64_t>& ld = in[0]->shape.dims;
  const std::vector<int64_t>& rd = in[1]->shape.dims;
  if (dn.lhs_batch_dimensions.size() != dn.rhs_batch_dimensions.size() ||
      dn.lhs_contracting_dimensions.size() !=
          dn.rhs_contracting_dimensions.size())
    return absl::InvalidArgumentError("dot dimension numbers do not pair up");
  auto free_dims = [](const std::vector<int64_t>& dims,
                      const std::vector<int64_t>& batch,
                      const std::vector<int64_t>& contracting) {
    std::vector<int64_t> free;
    for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d)
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contracting.begin(), contracting.end(), d) ==
              contracting.end())
        free.push_back(d);
    return free;
  };
  const auto lfree =
      free_dims(ld, dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions);
  const auto rfree =
      free_dims(rd, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions);
  int64_t batch = 1, m = 1, n = 1, k = 1;
  for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i) {
    const int64_t a = dn.lhs_batch_dimensions[i],
                  b = dn.rhs_batch_dimensions[i];
    if (a < 0 || a >= static_cast<int64_t>(ld.size()) || b < 0 ||
        b >= static_cast<int64_t>(rd.size()) || ld[a] != rd[b])
      return absl::InvalidArgumentError("dot batch dimensions differ");
    batch *= ld[a];
  }
  for (size_t i = 0; i < dn.lhs_contracting_dimensions.size(); ++i) {
    const int64_t a = dn.lhs_contracting_dimensions[i],
                  b = dn.rhs_contracting_dimensions[i];
    if (a < 0 || a >= static_cast<int64_t>(ld.size()) || b < 0 ||
        b >= static_cast<int64_t>(rd.size()) || ld[a] != rd[b])
      return absl::InvalidArgumentError("dot contracting dimensions differ");
    k *= ld[a];
  }
  for (int64_t d : lfree) m *= ld[d];
  for (int64_t d : rfree) n *= rd[d];
  if (batch * m * n != Count(node.shape))
    return absl::InvalidArgumentError(
        "dot result size differs from its operands");
  // lhs as [batch, m, k], rhs as [batch, k, n], both row-major.
  std::vector<int64_t> lperm = dn.lhs_batch_dimensions,
                       rperm = dn.rhs_batch_dimensions;
  lperm.insert(lperm.end(), lfree.begin(), lfree.end());
  lperm.insert(lperm.end(), dn.lhs_contracting_dimensions.begin(),
               dn.lhs_contracting_dimensions.end());
  rperm.insert(rperm.end(), dn.rhs_contracting_dimensions.begin(),
               dn.rhs_contracting_dimensions.end());
  rperm.insert(rperm.end(), rfree.begin(), rfree.end());
  auto a = Permuted(in[0], lperm);
  if (!a.ok()) return a;
  auto b = Permuted(in[1], rperm);
  if (!b.ok()) return b;
  auto out = NewArray(node.shape);
  if (!out.ok()) return out;
  void* c = (*out)->dev->data();
  if (batch * m * n == 0) return out;
  if (k == 0) {
    RETURN_IF_ERROR(CudaStatus(
        cudaMemsetAsync(c, 0, static_cast<size_t>((*out)->dev->bytes()), 0),
        "zeroing a dot"));
    return out;
  }
  if (!cublas_) {
    absl::StatusOr<const CublasApi*> api = Cublas();
    if (!api.ok()) return api.status();
    cublas_api_ = *api;
    RETURN_IF_ERROR(CublasStatus(*cublas_api_, cublas_api_->create(&cublas_),
                                 "cublasCreate"));
    RETURN_IF_ERROR(CublasStatus(
        *cublas_api_, cublas_api_->set_math_mode(cublas_, CUBLAS_DEFAULT_MATH),
        "cublasSetMathMode"));
  }
  const CublasApi& blas = *cublas_api_;
  // Row-major C[m,n] = A[m,k] B[k,n] is column-major C^T = B^T A^T: cuBLAS
  // sees B as an n x k matrix (ld n) and A as k x m (ld k).
  const void* A = (*a)->dev->data();
  const void* B = (*b)->dev->data();
  const int im = static_cast<int>(m), in_ = static_cast<int>(n),
            ik = static_cast<int>(k), ib = static_cast<int>(batch);
  const PrimitiveType at = in[0]->shape.type, ct = node.shape.type;
  cublasStatus_t st;
  if (at == PrimitiveType::kF32 && ct == PrimitiveType::kF32) {
    const float alpha = 1, beta = 0;
    st = blas.sgemm_strided_batched(
        cublas_, CUBLAS_OP_N, CUBLAS_OP_N, in_, im, ik, &alpha,
        static_cast<const float*>(B), in_, k * n, static_cast<const float*>(A),
        ik, m * k, &beta, static_cast<float*>(c), in_, m * n, ib);
  } else if (at == PrimitiveType::kF64 && ct == PrimitiveType::kF64) {
    const double alpha = 1, beta = 0;
    st = blas.dgemm_strided_batched(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, in_, im,
                                    ik, &alpha, static_cast<const double*>(B),
                                    in_, k * n, static_cast<const double*>(A),
                                    ik, m * k, &beta, static_cast<double*>(c),
                                    in_, m * n, ib);
  } else {
    const cudaDataType_t ab =
        at == PrimitiveType::kBF16 ? CUDA_R_16BF : CUDA_R_16F;
    const cudaDataType_t cc = ct == PrimitiveType::kF32 ? CUDA_R_32F : ab;
    const float alpha = 1, beta = 0;
    st = blas.gemm_strided_batched_ex(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, in_,
                                      im, ik, &alpha, B, ab, in_, k * n, A, ab,
                                      ik, m * k, &beta, c, cc, in_, m * n, ib,
                                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  RETURN_IF_ERROR(CublasStatus(blas, st, "gemm"));
  return out;
}

absl::StatusOr<GV> Runner::OnDevice(const Node& node,
                                    const std::vector<GV>& in) {
  const LiteralShape& shape = node.shape;
  const std::vector<int64_t> out_strides = Strides(shape.dims);
  const int rank = static_cast<int>(shape.dims.size());
  auto dense_dst = [&](StridedCopy& c) {
    c.rank = rank;
    for (int d = 0; d < rank; ++d) {
      c.dims[d] = shape.dims[d];
      c.dst_strides[d] = out_strides[d];
    }
  };
  if (IsElementwise(node.op)) return Elementwise(node, in);
  switch (node.op) {
    case O::kReshape:
    case O::kCopy:
    case O::kBitcast:
      return Alias(shape, in[0]);
    case O::kConvert: {
      if (in[0]->shape.type == shape.type) return Alias(shape, in[0]);
      auto p = Dev(in[0]);
      if (!p.ok()) return p.status();
      auto out = NewArray(shape);
      if (!out.ok()) return out;
      RETURN_IF_ERROR(CudaStatus(
          LaunchConvert(*DeviceType(in[0]->shape.type), *DeviceType(shape.type),
                        Count(shape), *p, (*out)->dev->data()),
          "convert kernel"));
      return out;
    }
    case O::kIota: {
      auto out = NewArray(shape);
      if (!out.ok()) return out;
      RETURN_IF_ERROR(CudaStatus(
          LaunchIota(*DeviceType(shape.type), rank, shape.dims.data(),
                     static_cast<int>(*node.attrs.iota_dimension),
                     (*out)->dev->data()),
          "iota kernel"));
      return out;
    }
    case O::kBroadcast: {
      const std::vector<int64_t> map =
          node.attrs.dimensions.value_or(std::vector<int64_t>{});
      const std::vector<int64_t>& id = in[0]->shape.dims;
      if (map.size() != id.size())
        return absl::InvalidArgumentError(
            "broadcast dimensions= do not match the operand");
      StridedCopy c;
      dense_dst(c);
      const std::vector<int64_t> s = Strides(id);
      for (size_t k = 0; k < map.size(); ++k) {
        if (map[k] < 0 || map[k] >= rank || id[k] != shape.dims[map[k]])
          return absl::InvalidArgumentError("broadcast dimension mismatch");
        c.src_strides[map[k]] = s[k];
      }
      return Copy(shape, c, in[0]);
    }
    case O::kTranspose: {
      const std::vector<int64_t> perm =
          node.attrs.dimensions.value_or(std::vector<int64_t>{});
      if (static_cast<int>(perm.size()) != rank ||
          in[0]->shape.dims.size() != perm.size())
        return absl::InvalidArgumentError("transpose dimensions= do not match");
      for (int d = 0; d < rank; ++d)
        if (perm[d] < 0 || perm[d] >= rank ||
            in[0]->shape.dims[perm[d]] != shape.dims[d])
          return absl::InvalidArgumentError(
              "transpose dimensions= do not match");
      return Permuted(in[0], perm);
    }
    case O::kSlice: {
      const SliceSpec& sl = *node.attrs.slice;
      const std::vector<int64_t>& id = in[0]->shape.dims;
      if (sl.starts.size() != id.size() || static_cast<int>(id.size()) != rank)
        return absl::InvalidArgumentError(
            "slice= rank differs from the operand");
      const std::vector<int64_t> s = Strides(id);
      StridedCopy c;
      dense_dst(c);
      for (int d = 0; d < rank; ++d) {
        const int64_t stride =
            d < static_cast<int>(sl.strides.size()) ? sl.strides[d] : 1;
        if (sl.starts[d] < 0 || sl.limits[d] > id[d] || stride <= 0)
          return absl::InvalidArgumentError("slice out of bounds");
        const int64_t n =
            sl.limits[d] > sl.starts[d]
                ? (sl.limits[d] - sl.starts[d] + stride - 1) / stride
                : 0;
        if (n != shape.dims[d])
          return absl::InvalidArgumentError(
              "slice size differs from the result");
        c.src_offset += sl.starts[d] * s[d];
        c.src_strides[d] = stride * s[d];
      }
      return Copy(shape, c, in[0]);
    }
    case O::kReverse: {
      const std::vector<int64_t>& id = in[0]->shape.dims;
      if (id != shape.dims)
        return absl::InvalidArgumentError("reverse changes the shape");
      const std::vector<int64_t> s = Strides(id);
      StridedCopy c;
      dense_dst(c);
      for (int d = 0; d < rank; ++d) c.src_strides[d] = s[d];
      for (int64_t d : node.attrs.dimensions.value_or(std::vector<int64_t>{})) {
        if (d < 0 || d >= rank)
          return absl::InvalidArgumentError("reverse dimension out of range");
        c.src_offset += (id[d] - 1) * s[d];
        c.src_strides[d] = -s[d];
      }
      if (Count(shape) == 0) c.src_offset = 0;
      return Copy(shape, c, in[0]);
    }
    case O::kConcatenate: {
      const int64_t dim = (*node.attrs.dimensions)[0];
      if (dim < 0 || dim >= rank)
        return absl::InvalidArgumentError("concatenate dimension out of range");
      auto out = NewArray(shape);
      if (!out.ok()) return out;
      int64_t at = 0;
      for (const GV& g : in) {
        if (static_cast<int>(g->shape.dims.size()) != rank)
          return absl::InvalidArgumentError("concatenate operand rank differs");
        auto p = Dev(g);
        if (!p.ok()) return p.status();
        StridedCopy c;
        c.rank = rank;
        const std::vector<int64_t> s = Strides(g->shape.dims);
        for (int d = 0; d < rank; ++d) {
          c.dims[d] = g->shape.dims[d];
          c.src_strides[d] = s[d];
          c.dst_strides[d] = out_strides[d];
        }
        c.dst_offset = at * out_strides[dim];
        at += g->shape.dims[dim];
        if (at > shape.dims[dim])
          return absl::InvalidArgumentError("concatenate sizes do not add up");
        RETURN_IF_ERROR(
            CudaStatus(LaunchStridedCopy(c, StorageBytes(shape.type), *p,
                                         (*out)->dev->data()),
                       "concatenate kernel"));
      }
      if (at != shape.dims[dim])
        return absl::InvalidArgumentError("concatenate sizes do not add up");
      return out;
    }
    case O::kPad: {
      const PaddingConfig& pc = *node.attrs.padding;
      const std::vector<int64_t>& id = in[0]->shape.dims;
      if (static_cast<int>(pc.dimensions.size()) != rank ||
          static_cast<int>(id.size()) != rank)
        return absl::InvalidArgumentError(
            "padding= rank differs from the operand");
      auto p = Dev(in[0]);
      if (!p.ok()) return p.status();
      auto v = Dev(in[1]);
      if (!v.ok()) return v.status();
      auto out = NewArray(shape);
      if (!out.ok()) return out;
      const int eb = StorageBytes(shape.type);
      RETURN_IF_ERROR(
          CudaStatus(LaunchFill((*out)->dev->data(), Count(shape), eb, *v),
                     "pad fill kernel"));
      // Operand index j lands at low + j * (interior + 1) when that is
      // inside the result: a contiguous range [j0, j1) per dim.
      const std::vector<int64_t> s = Strides(id);
      StridedCopy c;
      c.rank = rank;
      bool empty = false;
      for (int d = 0; d < rank; ++d) {
        const PaddingDimension& pd = pc.dimensions[d];
        const int64_t step = pd.interior_padding + 1;
        if (step <= 0)
          return absl::InvalidArgumentError("negative interior padding");
        int64_t j0 = 0;
        if (pd.edge_padding_low < 0)
          j0 = (-pd.edge_padding_low + step - 1) / step;
        int64_t j1 = id[d];
        const int64_t last =
            shape.dims[d] - 1 - pd.edge_padding_low;  // j*step <= last
        j1 = last < 0 ? 0 : std::min(j1, last / step + 1);
        if (j1 <= j0) {
          empty = true;
          break;
        }
        c.dims[d] = j1 - j0;
        c.src_offset += j0 * s[d];
        c.src_strides[d] = s[d];
        c.dst_offset += (pd.edge_padding_low + j0 * step) * out_strides[d];
        c.dst_strides[d] = step * out_strides[d];
      }
      if (!empty && Count(in[0]->shape) > 0)
        RETURN_IF_ERROR(CudaStatus(
            LaunchStridedCopy(c, eb, *p, (*out)->dev->data()), "pad kernel"));
      return out;
    }
    case O::kDynamicSlice: {
      const std::vector<int64_t>& id = in[0]->shape.dims;
      if (static_cast<int>(id.size()) != rank)
        return absl::InvalidArgumentError("dynamic-slice rank mismatch");
      auto starts = Starts(in, 1, id, shape.dims);
      if (!starts.ok()) return starts.status();
      const std::vector<int64_t> s = Strides(id);
      StridedCopy c;
      dense_dst(c);
      for (int d = 0; d < rank; ++d) {
        c.src_offset += (*starts)[d] * s[d];
        c.src_strides[d] = s[d];
      }
      return Copy(shape, c, in[0]);
    }
    case O::kDynamicUpdateSlice: {
      if (in.size() < 2)
        return absl::InvalidArgumentError(
            "dynamic-update-slice needs 2 operands");
      const std::vector<int64_t>& id = in[0]->shape.dims;
      const std::vector<int64_t>& ud = in[1]->shape.dims;
      if (ud.size() != id.size() || id != shape.dims)
        return absl::InvalidArgumentError("dynamic-update-slice rank mismatch");
      for (int d = 0; d < rank; ++d)
        if (ud[d] > id[d])
          return absl::InvalidArgumentError("update larger than operand");
      auto starts = Starts(in, 2, id, ud);
      if (!starts.ok()) return starts.status();
      auto p = Dev(in[0]);
      if (!p.ok()) return p.status();
      auto u = Dev(in[1]);
      if (!u.ok()) return u.status();
      auto out = NewArray(shape);
      if (!out.ok()) return out;
      if ((*out)->dev->bytes() > 0)
        RETURN_IF_ERROR(CudaStatus(
            cudaMemcpyAsync((*out)->dev->data(), *p,
                            static_cast<size_t>((*out)->dev->bytes()),
                            cudaMemcpyDeviceToDevice, 0),
            "copying the operand"));
      const std::vector<int64_t> s = Strides(ud);
      StridedCopy c;
      c.rank = rank;
      for (int d = 0; d < rank; ++d) {
        c.dims[d] = ud[d];
        c.src_strides[d] = s[d];
        c.dst_strides[d] = out_strides[d];
        c.dst_offset += (*starts)[d] * out_strides[d];
      }
      RETURN_IF_ERROR(CudaStatus(LaunchStridedCopy(c, StorageBytes(shape.type),
                                                   *u, (*out)->dev->data()),
                                 "dynamic-update-slice kernel"));
      return out;
    }
    case O::kReduce:
      return Reduce(node, in);
    case O::kDot:
      return Dot(node, in);
    default:
      return absl::UnimplementedError(
          Cat("no device kernel for ", OpcodeName(node.op)));
  }
}

}  // namespace hlo::exec::gpu::internal
