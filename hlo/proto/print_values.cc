// Attribute values of the HLO text printer: strings, windows, dim_labels,
// shardings, metadata and replica groups, each appended in XLA's spelling.
#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "hlo/proto/print_internal.h"

namespace hlo::proto::internal {

void AppendQuoted(std::string_view s, std::string* out) {
  out->push_back('"');
  // Most strings need no escaping: copy them as they are.
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7f && c != '"' && c != '\'' && c != '\\';
  });
  if (plain) {
    out->append(s);
  } else {
    out->append(absl::CEscape(base::ToAbsl(s)));
  }
  out->push_back('"');
}

void AppendStringOrDict(std::string_view s, std::string* out) {
  if (s.size() >= 2 && s.front() == '{' && s.back() == '}') {
    int depth = 0;
    bool in_string = false, balanced = true;
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (in_string) {
        if (c == '\\')
          ++i;
        else if (c == '"')
          in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '{') {
        ++depth;
      } else if (c == '}') {
        if (--depth == 0 && i + 1 != s.size()) balanced = false;
      }
    }
    if (balanced && depth == 0 && !in_string) {
      out->append(s);
      return;
    }
  }
  AppendQuoted(s, out);
}

void AppendLower(std::string_view s, std::string* out) {
  for (char c : s) out->push_back(absl::ascii_tolower(c));
}

void AppendWindow(const xla::Window& window, std::string* out) {
  bool any_stride = false, any_pad = false, any_lhs = false, any_rhs = false,
       any_reversal = false;
  for (const auto& d : window.dimensions()) {
    any_stride |= d.stride() != 1;
    any_pad |= d.padding_low() != 0 || d.padding_high() != 0;
    any_lhs |= d.base_dilation() != 1;
    any_rhs |= d.window_dilation() != 1;
    any_reversal |= d.window_reversal();
  }
  // One `key=AxB` item: the values of one field, 'x'-separated.
  auto item = [&](std::string_view key, auto value) {
    out->append(key);
    for (int i = 0; i < window.dimensions_size(); ++i) {
      if (i > 0) out->push_back('x');
      value(window.dimensions(i));
    }
  };
  item("{size=", [&](const auto& d) { AppendInt(d.size(), out); });
  if (any_stride) {
    item(" stride=", [&](const auto& d) { AppendInt(d.stride(), out); });
  }
  if (any_pad) {
    item(" pad=", [&](const auto& d) {
      AppendInt(d.padding_low(), out);
      out->push_back('_');
      AppendInt(d.padding_high(), out);
    });
  }
  if (any_lhs) {
    item(" lhs_dilate=",
         [&](const auto& d) { AppendInt(d.base_dilation(), out); });
  }
  if (any_rhs) {
    item(" rhs_dilate=",
         [&](const auto& d) { AppendInt(d.window_dilation(), out); });
  }
  if (any_reversal) {
    item(" rhs_reversal=", [&](const auto& d) {
      out->push_back(d.window_reversal() ? '1' : '0');
    });
  }
  out->push_back('}');
}

void AppendDimLabels(const xla::ConvolutionDimensionNumbers& d,
                     std::string* out) {
  auto side = [&](int64_t batch, int64_t feature,
                  const RepeatedField<int64_t>& spatial, char b, char f) {
    const int64_t rank = 2 + spatial.size();
    std::string s(static_cast<size_t>(std::clamp<int64_t>(rank, 0, 64)), '?');
    auto put = [&](int64_t at, char c) {
      if (at >= 0 && at < static_cast<int64_t>(s.size())) s[at] = c;
    };
    put(batch, b);
    put(feature, f);
    for (int i = 0; i < spatial.size(); ++i) {
      put(spatial[i], i < 10 ? static_cast<char>('0' + i) : '?');
    }
    out->append(s);
  };
  side(d.input_batch_dimension(), d.input_feature_dimension(),
       d.input_spatial_dimensions(), 'b', 'f');
  out->push_back('_');
  side(d.kernel_input_feature_dimension(), d.kernel_output_feature_dimension(),
       d.kernel_spatial_dimensions(), 'i', 'o');
  out->append("->");
  side(d.output_batch_dimension(), d.output_feature_dimension(),
       d.output_spatial_dimensions(), 'b', 'f');
}

namespace {

template <typename T>
void AppendCommaList(const RepeatedField<T>& values, std::string* out) {
  for (int i = 0; i < values.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendInt(static_cast<int64_t>(values[i]), out);
  }
}

template <typename T>
bool IsIdentity(const RepeatedField<T>& perm) {
  for (int i = 0; i < perm.size(); ++i) {
    if (perm[i] != i) return false;
  }
  return true;
}

}  // namespace

void AppendSharding(const xla::OpSharding& s, std::string* out, int depth) {
  using S = xla::OpSharding;
  if (s.type() == S::TUPLE && depth < 8) {
    out->push_back('{');
    for (int i = 0; i < s.tuple_shardings_size(); ++i) {
      if (i > 0) out->append(", ");
      AppendSharding(s.tuple_shardings(i), out, depth + 1);
    }
    out->push_back('}');
    return;
  }
  out->push_back('{');
  switch (s.type()) {
    case S::REPLICATED:
      out->append("replicated");
      break;
    case S::MANUAL:
      out->append("manual");
      break;
    case S::UNKNOWN:
      out->append("unknown");
      break;
    case S::UNREDUCED:
      out->append("unreduced");
      break;
    case S::MAXIMAL:
      out->append("maximal device=");
      AppendInt(s.tile_assignment_devices_size() > 0
                    ? s.tile_assignment_devices(0)
                    : 0,
                out);
      break;
    default: {
      out->append("devices=[");
      AppendCommaList(s.tile_assignment_dimensions(), out);
      out->push_back(']');
      if (s.iota_reshape_dims_size() > 0) {
        out->append("<=[");
        AppendCommaList(s.iota_reshape_dims(), out);
        out->push_back(']');
        if (!IsIdentity(s.iota_transpose_perm())) {
          out->append("T(");
          AppendCommaList(s.iota_transpose_perm(), out);
          out->push_back(')');
        }
      } else {
        AppendCommaList(s.tile_assignment_devices(), out);
      }
      if (s.replicate_on_last_tile_dim()) {
        out->append(" last_tile_dim_replicate");
      }
      if (s.last_tile_dims_size() > 0) {
        out->append(" last_tile_dims={");
        for (int i = 0; i < s.last_tile_dims_size(); ++i) {
          if (i > 0) out->append(", ");
          AppendLower(S::Type_Name(s.last_tile_dims(i)), out);
        }
        out->push_back('}');
      }
    }
  }
  if (s.is_shard_group()) {
    out->append(s.shard_group_type() == S::AS ? " shard_as " : " shard_like ");
    AppendInt(s.shard_group_id(), out);
  }
  out->push_back('}');
}

bool AppendMetadata(const xla::OpMetadata& m, std::string* out) {
  // XLA prints metadata only with one of these.
  if (m.op_type().empty() && m.op_name().empty() && m.source_file().empty() &&
      m.scheduling_name().empty() && m.stack_frame_id() == 0) {
    return false;
  }
  out->push_back('{');
  bool first = true;
  auto key = [&](std::string_view k) {
    if (!first) out->push_back(' ');
    first = false;
    out->append(k);
  };
  auto text = [&](std::string_view k, const std::string& v) {
    if (v.empty()) return;
    key(k);
    AppendQuoted(v, out);
  };
  auto number = [&](std::string_view k, int64_t v) {
    if (v == 0) return;
    key(k);
    AppendInt(v, out);
  };
  text("op_type=", m.op_type());
  text("op_name=", m.op_name());
  text("source_file=", m.source_file());
  number("source_line=", m.source_line());
  number("source_end_line=", m.source_end_line());
  number("source_column=", m.source_column());
  number("source_end_column=", m.source_end_column());
  if (m.profile_type_size() > 0) {
    key("profile_type={");
    AppendCommaList(m.profile_type(), out);
    out->push_back('}');
  }
  text("deduplicated_name=", m.deduplicated_name());
  text("scheduling_name=", m.scheduling_name());
  number("stack_frame_id=", m.stack_frame_id());
  out->push_back('}');
  return true;
}

void AppendReplicaGroups(const Instr& in, std::string* out) {
  auto explicit_groups =
      [&](const google::protobuf::RepeatedPtrField<xla::ReplicaGroup>& groups) {
        out->push_back('{');
        for (int i = 0; i < groups.size(); ++i) {
          if (i > 0) out->push_back(',');
          AppendList(groups[i].replica_ids(), out);
        }
        out->push_back('}');
      };
  auto iota = [&](const xla::IotaReplicaGroupListProto& l) {
    out->push_back('[');
    AppendInt(l.num_replica_groups(), out);
    out->push_back(',');
    AppendInt(l.num_devices_per_group(), out);
    out->append("]<=[");
    AppendCommaList(l.iota_reshape_dims(), out);
    out->push_back(']');
    if (!IsIdentity(l.iota_transpose_perm())) {
      out->append("T(");
      AppendCommaList(l.iota_transpose_perm(), out);
      out->push_back(')');
    }
  };
  if (in.has_iota_collective_device_list()) {
    iota(in.iota_collective_device_list());
  } else if (in.has_collective_device_list()) {
    const auto& list = in.collective_device_list();
    if (list.has_iota_replica_group_list()) {
      iota(list.iota_replica_group_list());
    } else {
      explicit_groups(list.replica_groups());
    }
  } else {
    explicit_groups(in.replica_groups());
  }
}

std::string_view DefaultComparisonType(int element_type) {
  switch (element_type) {
    case xla::PRED:
    case xla::U1:
    case xla::U2:
    case xla::U4:
    case xla::U8:
    case xla::U16:
    case xla::U32:
    case xla::U64:
      return "UNSIGNED";
    case xla::S1:
    case xla::S2:
    case xla::S4:
    case xla::S8:
    case xla::S16:
    case xla::S32:
    case xla::S64:
      return "SIGNED";
    default:
      return "FLOAT";
  }
}

OpInfo ClassifyOpcode(std::string_view opcode) {
  static const auto* kTable = [] {
    auto* table = new absl::flat_hash_map<std::string_view, OpInfo>();
    using K = OpKind;
    const std::pair<std::string_view, OpKind> kinds[] = {
        {"parameter", K::kParameter},
        {"constant", K::kConstant},
        {"iota", K::kIota},
        {"get-tuple-element", K::kGetTupleElement},
        {"slice", K::kSlice},
        {"dynamic-slice", K::kDynamicSlice},
        {"pad", K::kPad},
        {"compare", K::kCompare},
        {"convolution", K::kConvolution},
        {"dot", K::kDot},
        {"ragged-dot", K::kRaggedDot},
        {"scaled-dot", K::kScaledDot},
        {"gather", K::kGather},
        {"scatter", K::kScatter},
        {"reduce-window", K::kReduceWindow},
        {"select-and-scatter", K::kSelectAndScatter},
        {"fusion", K::kFusion},
        {"custom-call", K::kCustomCall},
        {"rng", K::kRng},
        {"rng-bit-generator", K::kRngBitGenerator},
        {"rng-get-and-update-state", K::kRngGetAndUpdateState},
        {"reduce-precision", K::kReducePrecision},
        {"batch-norm-training", K::kBatchNorm},
        {"batch-norm-inference", K::kBatchNorm},
        {"batch-norm-grad", K::kBatchNorm},
        {"fft", K::kFft},
        {"triangular-solve", K::kTriangularSolve},
        {"cholesky", K::kCholesky},
        {"infeed", K::kInfeed},
        {"outfeed", K::kOutfeed},
        {"send", K::kSendRecv},
        {"recv", K::kSendRecv},
        {"send-done", K::kSendRecv},
        {"recv-done", K::kSendRecv},
        {"collective-permute", K::kCollectivePermute},
        {"collective-permute-start", K::kCollectivePermute},
        {"sort", K::kSort},
        {"topk", K::kTopK},
        {"copy-start", K::kCopyStart},
        {"domain", K::kDomain},
        {"scan", K::kScan},
        {"while", K::kWhile},
        {"conditional", K::kConditional},
        {"async-start", K::kAsyncStart},
        {"async-update", K::kAsyncUpdateDone},
        {"async-done", K::kAsyncUpdateDone},
        {"call", K::kCall},
    };
    for (const auto& [name, kind] : kinds) (*table)[name].kind = kind;
    for (std::string_view name :
         {"all-reduce", "all-reduce-start", "all-gather", "all-gather-start",
          "reduce-scatter", "all-to-all", "ragged-all-to-all",
          "collective-broadcast", "collective-reduce"}) {
      (*table)[name].collective = true;
    }
    for (std::string_view name :
         {"broadcast", "transpose", "reverse", "reduce", "concatenate", "sort",
          "reduce-scatter", "all-gather", "all-gather-start",
          "get-dimension-size", "set-dimension-size", "scan"}) {
      (*table)[name].always_dimensions = true;
    }
    return table;
  }();
  auto it = kTable->find(opcode);
  return it == kTable->end() ? OpInfo{} : it->second;
}

}  // namespace hlo::proto::internal
