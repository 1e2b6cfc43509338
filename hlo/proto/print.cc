#include "hlo/proto/print.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "hlo/absl_compat.h"
#include "hlo/proto/literal_print.h"

namespace hlo::proto {
namespace {

using Instr = xla::HloInstructionProto;
using google::protobuf::RepeatedField;

std::string Quote(std::string_view s) {
  return absl::StrCat("\"", absl::CEscape(ToAbsl(s)), "\"");
}

// XLA prints a string that lexes as a JSON dict bare, anything else quoted.
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
  out->append(Quote(s));
}

template <typename T>
void AppendList(const RepeatedField<T>& values, std::string* out) {
  out->push_back('{');
  for (int i = 0; i < values.size(); ++i) {
    if (i > 0) out->push_back(',');
    absl::StrAppend(out, values[i]);
  }
  out->push_back('}');
}

std::string Lower(std::string_view s) {
  return absl::AsciiStrToLower(ToAbsl(s));
}

std::string WindowText(const xla::Window& window) {
  std::string size, stride, pad, lhs, rhs, reversal;
  bool any_stride = false, any_pad = false, any_lhs = false, any_rhs = false,
       any_reversal = false;
  for (int i = 0; i < window.dimensions_size(); ++i) {
    const auto& d = window.dimensions(i);
    const char* sep = i > 0 ? "x" : "";
    absl::StrAppend(&size, sep, d.size());
    absl::StrAppend(&stride, sep, d.stride());
    absl::StrAppend(&pad, sep, d.padding_low(), "_", d.padding_high());
    absl::StrAppend(&lhs, sep, d.base_dilation());
    absl::StrAppend(&rhs, sep, d.window_dilation());
    absl::StrAppend(&reversal, sep, d.window_reversal() ? 1 : 0);
    any_stride |= d.stride() != 1;
    any_pad |= d.padding_low() != 0 || d.padding_high() != 0;
    any_lhs |= d.base_dilation() != 1;
    any_rhs |= d.window_dilation() != 1;
    any_reversal |= d.window_reversal();
  }
  std::string out = "{size=" + size;
  if (any_stride) absl::StrAppend(&out, " stride=", stride);
  if (any_pad) absl::StrAppend(&out, " pad=", pad);
  if (any_lhs) absl::StrAppend(&out, " lhs_dilate=", lhs);
  if (any_rhs) absl::StrAppend(&out, " rhs_dilate=", rhs);
  if (any_reversal) absl::StrAppend(&out, " rhs_reversal=", reversal);
  out.push_back('}');
  return out;
}

// b01f_01io->b01f from the dimension numbers.
std::string DimLabels(const xla::ConvolutionDimensionNumbers& d) {
  auto side = [](int64_t batch, int64_t feature,
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
    return s;
  };
  return absl::StrCat(
      side(d.input_batch_dimension(), d.input_feature_dimension(),
           d.input_spatial_dimensions(), 'b', 'f'),
      "_",
      side(d.kernel_input_feature_dimension(),
           d.kernel_output_feature_dimension(), d.kernel_spatial_dimensions(),
           'i', 'o'),
      "->",
      side(d.output_batch_dimension(), d.output_feature_dimension(),
           d.output_spatial_dimensions(), 'b', 'f'));
}

std::string ShardingText(const xla::OpSharding& s, int depth = 0) {
  using S = xla::OpSharding;
  if (s.type() == S::TUPLE && depth < 8) {
    std::string out = "{";
    for (int i = 0; i < s.tuple_shardings_size(); ++i) {
      if (i > 0) out.append(", ");
      out.append(ShardingText(s.tuple_shardings(i), depth + 1));
    }
    out.push_back('}');
    return out;
  }
  std::string body;
  switch (s.type()) {
    case S::REPLICATED:
      body = "replicated";
      break;
    case S::MANUAL:
      body = "manual";
      break;
    case S::UNKNOWN:
      body = "unknown";
      break;
    case S::UNREDUCED:
      body = "unreduced";
      break;
    case S::MAXIMAL:
      body =
          absl::StrCat("maximal device=", s.tile_assignment_devices_size() > 0
                                              ? s.tile_assignment_devices(0)
                                              : 0);
      break;
    default: {
      body = "devices=[";
      for (int i = 0; i < s.tile_assignment_dimensions_size(); ++i) {
        absl::StrAppend(&body, i > 0 ? "," : "",
                        s.tile_assignment_dimensions(i));
      }
      body.push_back(']');
      if (s.iota_reshape_dims_size() > 0) {
        body.append("<=[");
        for (int i = 0; i < s.iota_reshape_dims_size(); ++i) {
          absl::StrAppend(&body, i > 0 ? "," : "", s.iota_reshape_dims(i));
        }
        body.push_back(']');
        bool identity = true;
        for (int i = 0; i < s.iota_transpose_perm_size(); ++i) {
          identity &= s.iota_transpose_perm(i) == i;
        }
        if (!identity) {
          body.append("T(");
          for (int i = 0; i < s.iota_transpose_perm_size(); ++i) {
            absl::StrAppend(&body, i > 0 ? "," : "", s.iota_transpose_perm(i));
          }
          body.push_back(')');
        }
      } else {
        for (int i = 0; i < s.tile_assignment_devices_size(); ++i) {
          absl::StrAppend(&body, i > 0 ? "," : "",
                          s.tile_assignment_devices(i));
        }
      }
      if (s.replicate_on_last_tile_dim())
        body.append(" last_tile_dim_replicate");
      if (s.last_tile_dims_size() > 0) {
        body.append(" last_tile_dims={");
        for (int i = 0; i < s.last_tile_dims_size(); ++i) {
          if (i > 0) body.append(", ");
          body.append(Lower(S::Type_Name(s.last_tile_dims(i))));
        }
        body.push_back('}');
      }
    }
  }
  if (s.is_shard_group()) {
    absl::StrAppend(
        &body, s.shard_group_type() == S::AS ? " shard_as " : " shard_like ",
        s.shard_group_id());
  }
  return absl::StrCat("{", body, "}");
}

std::string MetadataText(const xla::OpMetadata& m) {
  std::vector<std::string> parts;
  if (!m.op_type().empty()) parts.push_back("op_type=" + Quote(m.op_type()));
  if (!m.op_name().empty()) parts.push_back("op_name=" + Quote(m.op_name()));
  if (!m.source_file().empty()) {
    parts.push_back("source_file=" + Quote(m.source_file()));
  }
  if (m.source_line() != 0) {
    parts.push_back(absl::StrCat("source_line=", m.source_line()));
  }
  if (m.source_end_line() != 0) {
    parts.push_back(absl::StrCat("source_end_line=", m.source_end_line()));
  }
  if (m.source_column() != 0) {
    parts.push_back(absl::StrCat("source_column=", m.source_column()));
  }
  if (m.source_end_column() != 0) {
    parts.push_back(absl::StrCat("source_end_column=", m.source_end_column()));
  }
  if (m.profile_type_size() > 0) {
    std::string list = "profile_type={";
    for (int i = 0; i < m.profile_type_size(); ++i) {
      absl::StrAppend(&list, i > 0 ? "," : "", m.profile_type(i));
    }
    parts.push_back(list + "}");
  }
  if (!m.deduplicated_name().empty()) {
    parts.push_back("deduplicated_name=" + Quote(m.deduplicated_name()));
  }
  if (!m.scheduling_name().empty()) {
    parts.push_back("scheduling_name=" + Quote(m.scheduling_name()));
  }
  if (m.stack_frame_id() != 0) {
    parts.push_back(absl::StrCat("stack_frame_id=", m.stack_frame_id()));
  }
  if (m.op_type().empty() && m.op_name().empty() && m.source_file().empty() &&
      m.scheduling_name().empty() && m.stack_frame_id() == 0) {
    return "";  // XLA prints metadata only with one of these
  }
  std::string out = "{";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out.push_back(' ');
    out.append(parts[i]);
  }
  out.push_back('}');
  return out;
}

std::string ReplicaGroupsText(const Instr& in) {
  std::string out;
  auto explicit_groups =
      [&](const google::protobuf::RepeatedPtrField<xla::ReplicaGroup>& groups) {
        out = "{";
        for (int i = 0; i < groups.size(); ++i) {
          if (i > 0) out.push_back(',');
          AppendList(groups[i].replica_ids(), &out);
        }
        out.push_back('}');
      };
  auto iota = [&](const xla::IotaReplicaGroupListProto& l) {
    out = absl::StrCat("[", l.num_replica_groups(), ",",
                       l.num_devices_per_group(), "]<=[");
    for (int i = 0; i < l.iota_reshape_dims_size(); ++i) {
      absl::StrAppend(&out, i > 0 ? "," : "", l.iota_reshape_dims(i));
    }
    out.push_back(']');
    bool identity = true;
    for (int i = 0; i < l.iota_transpose_perm_size(); ++i) {
      identity &= l.iota_transpose_perm(i) == i;
    }
    if (!identity) {
      out.append("T(");
      for (int i = 0; i < l.iota_transpose_perm_size(); ++i) {
        absl::StrAppend(&out, i > 0 ? "," : "", l.iota_transpose_perm(i));
      }
      out.push_back(')');
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
  return out;
}

std::string ShapeIndexText(const RepeatedField<int64_t>& index) {
  std::string out;
  AppendList(index, &out);
  return out;
}

// The default comparison type for an element type; XLA prints type= only
// when it differs.
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

bool IsCollective(std::string_view op) {
  static const absl::flat_hash_set<std::string_view>* kOps =
      new absl::flat_hash_set<std::string_view>{
          "all-reduce",        "all-reduce-start",     "all-gather",
          "all-gather-start",  "reduce-scatter",       "all-to-all",
          "ragged-all-to-all", "collective-broadcast", "collective-reduce"};
  return kOps->contains(op);
}

class ModulePrinter {
 public:
  ModulePrinter(const xla::HloModuleProto& module, const PrintOptions& options,
                std::string* out)
      : module_(module), options_(options), out_(*out) {}

  void Print() {
    for (const auto& c : module_.computations()) {
      computations_.try_emplace(c.id(), &c);
      for (const auto& i : c.instructions())
        instructions_.try_emplace(i.id(), &i);
    }
    PrintHeader();
    PrintStackFrames();
    out_.push_back('\n');
    for (const xla::HloComputationProto* c : PostOrder()) {
      PrintComputation(*c);
      out_.push_back('\n');
    }
  }

 private:
  void PrintHeader() {
    absl::StrAppend(&out_, "HloModule ",
                    module_.name().empty() ? "unnamed" : module_.name());
    if (module_.has_schedule()) out_.append(", is_scheduled=true");
    if (module_.input_output_alias().entries_size() > 0) {
      out_.append(", input_output_alias={ ");
      const auto& entries = module_.input_output_alias().entries();
      for (int i = 0; i < entries.size(); ++i) {
        const auto& e = entries[i];
        absl::StrAppend(&out_, i > 0 ? ", " : "",
                        ShapeIndexText(e.output_shape_index()), ": (",
                        e.parameter_number(), ", ",
                        ShapeIndexText(e.parameter_shape_index()));
        if (e.kind() == xla::MAY_ALIAS) out_.append(", may-alias");
        if (e.kind() == xla::MUST_ALIAS) out_.append(", must-alias");
        out_.push_back(')');
      }
      out_.append(" }");
    }
    if (module_.buffer_donor().entries_size() > 0) {
      out_.append(", buffer_donor={ ");
      const auto& entries = module_.buffer_donor().entries();
      for (int i = 0; i < entries.size(); ++i) {
        absl::StrAppend(
            &out_, i > 0 ? ", " : "", "(", entries[i].parameter_number(), ", ",
            ShapeIndexText(entries[i].parameter_shape_index()), ")");
      }
      out_.append(" }");
    }
    if (module_.has_host_program_shape() &&
        module_.host_program_shape().has_result()) {
      const auto& shape = module_.host_program_shape();
      out_.append(", entry_computation_layout={(");
      for (int i = 0; i < shape.parameters_size(); ++i) {
        if (i > 0) out_.append(", ");
        AppendShape(shape.parameters(i), true, &out_);
      }
      out_.append(")->");
      AppendShape(shape.result(), true, &out_);
      out_.push_back('}');
    }
    if (module_.frontend_attributes().map_size() > 0) {
      out_.append(", frontend_attributes=");
      AppendFrontendAttributes(module_.frontend_attributes());
    }
    out_.push_back('\n');
  }

  void PrintStackFrames() {
    if (!options_.print_metadata || !module_.has_stack_frame_index()) return;
    const auto& index = module_.stack_frame_index();
    if (index.file_names_size() == 0 && index.stack_frames_size() == 0) return;
    out_.append("\nFileNames\n");
    for (int i = 0; i < index.file_names_size(); ++i) {
      absl::StrAppend(&out_, i + 1, " ", Quote(index.file_names(i)), "\n");
    }
    out_.append("\nFunctionNames\n");
    for (int i = 0; i < index.function_names_size(); ++i) {
      absl::StrAppend(&out_, i + 1, " ", Quote(index.function_names(i)), "\n");
    }
    out_.append("\nFileLocations\n");
    for (int i = 0; i < index.file_locations_size(); ++i) {
      const auto& l = index.file_locations(i);
      absl::StrAppend(&out_, i + 1, " {file_name_id=", l.file_name_id(),
                      " function_name_id=", l.function_name_id(),
                      " line=", l.line(), " end_line=", l.end_line(),
                      " column=", l.column(), " end_column=", l.end_column(),
                      "}\n");
    }
    out_.append("\nStackFrames\n");
    for (int i = 0; i < index.stack_frames_size(); ++i) {
      const auto& f = index.stack_frames(i);
      absl::StrAppend(&out_, i + 1, " {file_location_id=", f.file_location_id(),
                      " parent_frame_id=", f.parent_frame_id(), "}\n");
    }
  }

  // Callees before callers (the parser needs definitions first).
  // Iterative: a damaged proto can be cyclic.
  std::vector<const xla::HloComputationProto*> PostOrder() {
    std::vector<const xla::HloComputationProto*> order;
    absl::flat_hash_set<const xla::HloComputationProto*> done, entered;
    const xla::HloComputationProto* entry = nullptr;
    for (const auto& c : module_.computations()) {
      if (c.id() == module_.entry_computation_id() &&
          (module_.entry_computation_name().empty() ||
           c.name() == module_.entry_computation_name())) {
        entry = &c;
      }
    }
    if (!entry) {
      for (const auto& c : module_.computations()) {
        if (c.name() == module_.entry_computation_name()) entry = &c;
      }
    }
    if (!entry && module_.computations_size() > 0) {
      entry = &module_.computations(module_.computations_size() - 1);
    }
    entry_ = entry;
    auto visit = [&](const xla::HloComputationProto* root) {
      std::vector<std::pair<const xla::HloComputationProto*, bool>> stack;
      stack.push_back({root, false});
      while (!stack.empty()) {
        auto [c, expanded] = stack.back();
        stack.pop_back();
        if (done.contains(c)) continue;
        if (expanded) {
          done.insert(c);
          order.push_back(c);
          continue;
        }
        if (!entered.insert(c).second) continue;  // a cycle
        stack.push_back({c, true});
        for (auto it = c->instructions().rbegin();
             it != c->instructions().rend(); ++it) {
          for (int k = it->called_computation_ids_size() - 1; k >= 0; --k) {
            auto found = computations_.find(it->called_computation_ids(k));
            if (found != computations_.end() && !done.contains(found->second)) {
              stack.push_back({found->second, false});
            }
          }
        }
      }
    };
    // Stored order (XLA stores callees first), moving a callee forward
    // only when a caller precedes it.
    for (const auto& c : module_.computations()) visit(&c);
    return order;
  }

  std::string ComputationName(int64_t id) const {
    auto it = computations_.find(id);
    if (it == computations_.end()) {
      return absl::StrCat("%unknown.computation.", id);
    }
    return "%" + it->second->name();
  }

  void PrintComputation(const xla::HloComputationProto& c) {
    local_.clear();
    for (const auto& i : c.instructions()) local_.try_emplace(i.id(), &i);
    const Instr* root = nullptr;
    if (auto it = local_.find(c.root_id()); it != local_.end()) {
      root = it->second;
    }
    if (!root && c.instructions_size() > 0) {
      root = &c.instructions(c.instructions_size() - 1);
    }
    // Signature: parameters by number.
    std::vector<const Instr*> params;
    for (const auto& i : c.instructions()) {
      if (i.opcode() == "parameter") params.push_back(&i);
    }
    std::stable_sort(params.begin(), params.end(),
                     [](const Instr* a, const Instr* b) {
                       return a->parameter_number() < b->parameter_number();
                     });
    if (&c == entry_) out_.append("ENTRY ");
    absl::StrAppend(&out_, "%", c.name(), " (");
    for (size_t p = 0; p < params.size(); ++p) {
      absl::StrAppend(&out_, p > 0 ? ", " : "", params[p]->name(), ": ");
      AppendShape(params[p]->shape(), true, &out_);
    }
    out_.append(") -> ");
    if (root)
      AppendShape(root->shape(), true, &out_);
    else
      out_.append("()");
    out_.append(" {\n");
    for (const Instr* i : ScheduledOrder(c)) PrintInstruction(*i, i == root);
    out_.append("}");
    if (!c.execution_thread().empty() && c.execution_thread() != "main") {
      absl::StrAppend(&out_,
                      ", execution_thread=", Quote(c.execution_thread()));
    }
    out_.push_back('\n');
  }

  // Schedule order when the module is scheduled and the sequence covers the
  // computation exactly; stored order otherwise.
  std::vector<const Instr*> ScheduledOrder(const xla::HloComputationProto& c) {
    std::vector<const Instr*> order;
    const auto& sequences = module_.schedule().sequences();
    auto it = sequences.find(c.id());
    if (it != sequences.end() &&
        it->second.instruction_ids_size() == c.instructions_size() &&
        local_.size() == static_cast<size_t>(c.instructions_size())) {
      absl::flat_hash_set<int64_t> seen;
      for (int64_t id : it->second.instruction_ids()) {
        auto found = local_.find(id);
        if (found == local_.end() || !seen.insert(id).second) {
          order.clear();
          break;
        }
        order.push_back(found->second);
      }
      if (!order.empty()) return order;
    }
    for (const auto& i : c.instructions()) order.push_back(&i);
    return order;
  }

  const Instr* Find(int64_t id) const {
    if (auto it = local_.find(id); it != local_.end()) return it->second;
    if (auto it = instructions_.find(id); it != instructions_.end()) {
      return it->second;
    }
    return nullptr;
  }

  void AppendOperand(int64_t id) {
    if (const Instr* operand = Find(id)) {
      AppendShape(operand->shape(), true, &out_);
      absl::StrAppend(&out_, " %", operand->name());
    } else {
      absl::StrAppend(&out_, "%unknown.operand.", id);
    }
  }

  void Attr(std::string_view key, std::string_view value) {
    absl::StrAppend(&out_, ", ", ToAbsl(key), "=", ToAbsl(value));
  }
  void AttrList(std::string_view key, const RepeatedField<int64_t>& values) {
    absl::StrAppend(&out_, ", ", ToAbsl(key), "=");
    AppendList(values, &out_);
  }

  void AppendFrontendAttributes(const xla::FrontendAttributes& attributes) {
    std::map<std::string, std::string> sorted(attributes.map().begin(),
                                              attributes.map().end());
    out_.push_back('{');
    bool first = true;
    for (const auto& [key, value] : sorted) {
      absl::StrAppend(&out_, first ? "" : ",", key, "=");
      AppendStringOrDict(value, &out_);
      first = false;
    }
    out_.push_back('}');
  }

  void PrintInstruction(const Instr& in, bool is_root) {
    const std::string& op = in.opcode();
    out_.append(is_root ? "  ROOT %" : "  %");
    absl::StrAppend(&out_, in.name(), " = ");
    AppendShape(in.shape(), true, &out_);
    absl::StrAppend(&out_, " ", op, "(");
    if (op == "parameter") {
      absl::StrAppend(&out_, in.parameter_number());
    } else if (op == "constant") {
      std::optional<int64_t> n = LiteralElementCount(in.literal());
      if (!in.has_literal() || !n || *n > options_.max_constant_elements ||
          !AppendLiteralValues(in.literal(), &out_)) {
        out_.append("{...}");
      }
    } else {
      for (int k = 0; k < in.operand_ids_size(); ++k) {
        if (k > 0) out_.append(", ");
        if (k > 0 && k % 5 == 0) absl::StrAppend(&out_, "/*index=", k, "*/");
        AppendOperand(in.operand_ids(k));
      }
    }
    out_.push_back(')');
    PrintOpcodeAttributes(in);
    PrintCalledComputations(in);
    PrintCommonAttributes(in);
    out_.push_back('\n');
  }

  void PrintPrecision(const Instr& in) {
    const auto& p = in.precision_config();
    bool non_default = false;
    for (int v : p.operand_precision()) non_default |= v != 0;
    if (non_default) {
      out_.append(", operand_precision={");
      for (int i = 0; i < p.operand_precision_size(); ++i) {
        absl::StrAppend(&out_, i > 0 ? "," : "",
                        Lower(xla::PrecisionConfig::Precision_Name(
                            p.operand_precision(i))));
      }
      out_.push_back('}');
    }
    if (p.algorithm() != 0) {
      std::string name =
          Lower(xla::PrecisionConfig::Algorithm_Name(p.algorithm()));
      if (name.rfind("alg_", 0) == 0) name = name.substr(4);
      Attr("algorithm", name);
    }
  }

  void PrintConvolutionLike(const Instr& in) {
    if (in.window().dimensions_size() > 0)
      Attr("window", WindowText(in.window()));
    if (in.has_convolution_dimension_numbers()) {
      Attr("dim_labels", DimLabels(in.convolution_dimension_numbers()));
    }
    if (in.feature_group_count() > 1) {
      Attr("feature_group_count", absl::StrCat(in.feature_group_count()));
    }
    if (in.batch_group_count() > 1) {
      Attr("batch_group_count", absl::StrCat(in.batch_group_count()));
    }
  }

  void PrintOutputOperandAliasing(const Instr& in) {
    if (in.output_operand_aliasing_size() == 0) return;
    out_.append(", output_to_operand_aliasing={");
    for (int i = 0; i < in.output_operand_aliasing_size(); ++i) {
      const auto& a = in.output_operand_aliasing(i);
      absl::StrAppend(&out_, i > 0 ? ", " : "",
                      ShapeIndexText(a.output_shape_index()), ": (",
                      a.operand_index(), ", ",
                      ShapeIndexText(a.operand_shape_index()), ")");
    }
    out_.push_back('}');
  }

  void PrintOpcodeAttributes(const Instr& in) {
    const std::string& op = in.opcode();
    if (in.channel_id() != 0) {
      Attr("channel_id", absl::StrCat(in.channel_id()));
    }
    if (IsCollective(op)) {
      Attr("replica_groups", ReplicaGroupsText(in));
      if (in.constrain_layout()) Attr("constrain_layout", "true");
    }
    static const absl::flat_hash_set<std::string_view>* kAlwaysDims =
        new absl::flat_hash_set<std::string_view>{"broadcast",
                                                  "transpose",
                                                  "reverse",
                                                  "reduce",
                                                  "concatenate",
                                                  "sort",
                                                  "reduce-scatter",
                                                  "all-gather",
                                                  "all-gather-start",
                                                  "get-dimension-size",
                                                  "set-dimension-size",
                                                  "scan"};
    if (op == "iota") {
      Attr("iota_dimension",
           absl::StrCat(in.dimensions_size() > 0 ? in.dimensions(0) : 0));
    } else if (kAlwaysDims->contains(op) ||
               (in.dimensions_size() > 0 && op != "fft")) {
      AttrList("dimensions", in.dimensions());
    }
    if (IsCollective(op) && in.use_global_device_ids()) {
      Attr("use_global_device_ids", "true");
    }
    if (op == "get-tuple-element") {
      Attr("index", absl::StrCat(in.tuple_index()));
    } else if (op == "slice") {
      bool strided = false;
      for (const auto& s : in.slice_dimensions()) strided |= s.stride() != 1;
      out_.append(", slice={");
      for (int i = 0; i < in.slice_dimensions_size(); ++i) {
        const auto& s = in.slice_dimensions(i);
        absl::StrAppend(&out_, i > 0 ? ", " : "", "[", s.start(), ":",
                        s.limit());
        if (strided) absl::StrAppend(&out_, ":", s.stride());
        out_.push_back(']');
      }
      out_.push_back('}');
    } else if (op == "dynamic-slice") {
      AttrList("dynamic_slice_sizes", in.dynamic_slice_sizes());
    } else if (op == "pad") {
      bool interior = false;
      for (const auto& d : in.padding_config().dimensions()) {
        interior |= d.interior_padding() != 0;
      }
      std::string padding;
      for (int i = 0; i < in.padding_config().dimensions_size(); ++i) {
        const auto& d = in.padding_config().dimensions(i);
        absl::StrAppend(&padding, i > 0 ? "x" : "", d.edge_padding_low(), "_",
                        d.edge_padding_high());
        if (interior) absl::StrAppend(&padding, "_", d.interior_padding());
      }
      Attr("padding", padding);
    } else if (op == "compare") {
      Attr("direction", in.comparison_direction());
      int element_type = xla::F32;
      if (in.operand_ids_size() > 0) {
        if (const Instr* lhs = Find(in.operand_ids(0))) {
          element_type = lhs->shape().element_type();
        }
      }
      if (!in.comparison_type().empty() &&
          in.comparison_type() != DefaultComparisonType(element_type)) {
        Attr("type", in.comparison_type());
      }
    } else if (op == "convolution") {
      PrintConvolutionLike(in);
      PrintPrecision(in);
    } else if (op == "dot" || op == "ragged-dot" || op == "scaled-dot") {
      const auto& d =
          op == "ragged-dot"
              ? in.ragged_dot_dimension_numbers().dot_dimension_numbers()
              : in.dot_dimension_numbers();
      if (d.lhs_batch_dimensions_size() > 0) {
        AttrList("lhs_batch_dims", d.lhs_batch_dimensions());
      }
      AttrList("lhs_contracting_dims", d.lhs_contracting_dimensions());
      if (d.rhs_batch_dimensions_size() > 0) {
        AttrList("rhs_batch_dims", d.rhs_batch_dimensions());
      }
      AttrList("rhs_contracting_dims", d.rhs_contracting_dimensions());
      if (op == "ragged-dot") {
        const auto& r = in.ragged_dot_dimension_numbers();
        AttrList("lhs_ragged_dims", r.lhs_ragged_dimensions());
        AttrList("rhs_group_dims", r.rhs_group_dimensions());
      }
      PrintPrecision(in);
    } else if (op == "gather") {
      const auto& g = in.gather_dimension_numbers();
      AttrList("offset_dims", g.offset_dims());
      AttrList("collapsed_slice_dims", g.collapsed_slice_dims());
      AttrList("start_index_map", g.start_index_map());
      if (g.operand_batching_dims_size() > 0) {
        AttrList("operand_batching_dims", g.operand_batching_dims());
        AttrList("start_indices_batching_dims",
                 g.start_indices_batching_dims());
      }
      Attr("index_vector_dim", absl::StrCat(g.index_vector_dim()));
      AttrList("slice_sizes", in.gather_slice_sizes());
      if (in.indices_are_sorted()) Attr("indices_are_sorted", "true");
    } else if (op == "scatter") {
      const auto& s = in.scatter_dimension_numbers();
      AttrList("update_window_dims", s.update_window_dims());
      AttrList("inserted_window_dims", s.inserted_window_dims());
      AttrList("scatter_dims_to_operand_dims",
               s.scatter_dims_to_operand_dims());
      if (s.input_batching_dims_size() > 0) {
        AttrList("input_batching_dims", s.input_batching_dims());
        AttrList("scatter_indices_batching_dims",
                 s.scatter_indices_batching_dims());
      }
      Attr("index_vector_dim", absl::StrCat(s.index_vector_dim()));
      if (in.indices_are_sorted()) Attr("indices_are_sorted", "true");
      if (in.unique_indices()) Attr("unique_indices", "true");
    } else if (op == "reduce-window" || op == "select-and-scatter") {
      if (in.window().dimensions_size() > 0) {
        Attr("window", WindowText(in.window()));
      }
    } else if (op == "fusion") {
      Attr("kind", in.fusion_kind());
      PrintOutputOperandAliasing(in);
    } else if (op == "custom-call") {
      Attr("custom_call_target", Quote(in.custom_call_target()));
      PrintConvolutionLike(in);
      PrintPrecision(in);
      if (in.operand_shapes_with_layout_size() > 0) {
        out_.append(", operand_layout_constraints={");
        for (int i = 0; i < in.operand_shapes_with_layout_size(); ++i) {
          if (i > 0) out_.append(", ");
          AppendShape(in.operand_shapes_with_layout(i), true, &out_);
        }
        out_.push_back('}');
      }
      if (in.custom_call_has_side_effect()) {
        Attr("custom_call_has_side_effect", "true");
      }
      if (in.has_literal()) {
        std::string literal;
        AppendShape(in.literal().shape(), true, &literal);
        literal.push_back(' ');
        if (AppendLiteralValues(in.literal(), &literal))
          Attr("literal", literal);
      }
      if (in.custom_call_schedule() != xla::SCHEDULE_NONE) {
        Attr("schedule",
             xla::CustomCallSchedule_Name(in.custom_call_schedule()));
      }
      PrintOutputOperandAliasing(in);
      if (in.padding_type() != xla::PADDING_INVALID) {
        Attr("padding_type", xla::PaddingType_Name(in.padding_type()));
      }
      if (in.custom_call_api_version() != xla::API_VERSION_ORIGINAL &&
          in.custom_call_api_version() != xla::API_VERSION_UNSPECIFIED) {
        Attr("api_version",
             xla::CustomCallApiVersion_Name(in.custom_call_api_version()));
      }
    } else if (op == "rng") {
      Attr("distribution",
           Lower(xla::RandomDistribution_Name(in.distribution())));
    } else if (op == "rng-bit-generator") {
      Attr("algorithm", Lower(xla::RandomAlgorithm_Name(in.rng_algorithm())));
    } else if (op == "rng-get-and-update-state") {
      Attr("delta", absl::StrCat(in.delta()));
    } else if (op == "reduce-precision") {
      Attr("exponent_bits", absl::StrCat(in.exponent_bits()));
      Attr("mantissa_bits", absl::StrCat(in.mantissa_bits()));
    } else if (op.rfind("batch-norm-", 0) == 0) {
      Attr("epsilon", absl::StrCat(in.epsilon()));
      Attr("feature_index", absl::StrCat(in.feature_index()));
    } else if (op == "fft") {
      Attr("fft_type", xla::FftType_Name(in.fft_type()));
      AttrList("fft_length", in.fft_length());
    } else if (op == "triangular-solve") {
      const auto& t = in.triangular_solve_options();
      if (t.left_side()) Attr("left_side", "true");
      if (t.lower()) Attr("lower", "true");
      if (t.unit_diagonal()) Attr("unit_diagonal", "true");
      Attr("transpose_a",
           xla::TriangularSolveOptions::Transpose_Name(t.transpose_a()));
    } else if (op == "cholesky") {
      if (in.cholesky_options().lower()) Attr("lower", "true");
    } else if (op == "infeed") {
      if (!in.infeed_config().empty()) {
        Attr("infeed_config", Quote(in.infeed_config()));
      }
    } else if (op == "outfeed") {
      std::string shape;
      AppendShape(in.outfeed_shape(), true, &shape);
      Attr("outfeed_shape", shape);
      if (!in.outfeed_config().empty()) {
        Attr("outfeed_config", Quote(in.outfeed_config()));
      }
    } else if (op == "send" || op == "recv" || op == "send-done" ||
               op == "recv-done") {
      if (in.is_host_transfer()) Attr("is_host_transfer", "true");
    } else if (op == "collective-permute" || op == "collective-permute-start") {
      out_.append(", source_target_pairs={");
      for (int i = 0; i < in.source_target_pairs_size(); ++i) {
        absl::StrAppend(&out_, i > 0 ? "," : "", "{",
                        in.source_target_pairs(i).source(), ",",
                        in.source_target_pairs(i).target(), "}");
      }
      out_.push_back('}');
    } else if (op == "sort") {
      if (in.is_stable()) Attr("is_stable", "true");
    } else if (op == "topk") {
      Attr("k", absl::StrCat(in.k()));
      Attr("largest", in.largest() ? "true" : "false");
    } else if (op == "copy-start") {
      if (in.has_cross_program_prefetch_index()) {
        Attr("cross_program_prefetch_index",
             absl::StrCat(in.cross_program_prefetch_index()));
      }
    } else if (op == "parameter") {
      if (in.has_parameter_replication()) {
        out_.append(", parameter_replication={");
        const auto& r = in.parameter_replication().replicated_at_leaf_buffers();
        for (int i = 0; i < r.size(); ++i) {
          absl::StrAppend(&out_, i > 0 ? "," : "", r[i] ? "true" : "false");
        }
        out_.push_back('}');
      }
    } else if (op == "domain") {
      absl::StrAppend(&out_, ", domain={kind=\"sharding\", entry=",
                      ShardingText(in.domain_entry_sharding()),
                      ", exit=", ShardingText(in.domain_exit_sharding()), "}");
    } else if (op == "scan") {
      Attr("num_carries", absl::StrCat(in.num_carries()));
      if (in.is_reverse()) Attr("is_reverse", "true");
      if (in.is_associative() == xla::TRI_STATE_TRUE) {
        Attr("is_associative", "true");
      } else if (in.is_associative() == xla::TRI_STATE_FALSE) {
        Attr("is_associative", "false");
      }
    } else if (op == "async-start" && !in.async_execution_thread().empty() &&
               in.async_execution_thread() != "main") {
      // Printed after calls= below.
    } else if (op == "call" && in.is_composite()) {
      // Printed after to_apply= below.
    }
  }

  void PrintCalledComputations(const Instr& in) {
    const std::string& op = in.opcode();
    const auto& ids = in.called_computation_ids();
    if (ids.empty()) return;
    auto name = [&](int k) { return ComputationName(ids[k]); };
    if (op == "while" && ids.size() == 2) {
      Attr("condition", name(1));
      Attr("body", name(0));
    } else if (op == "select-and-scatter" && ids.size() == 2) {
      Attr("select", name(0));
      Attr("scatter", name(1));
    } else if (op == "conditional") {
      bool pred = false;
      if (in.operand_ids_size() > 0) {
        if (const Instr* selector = Find(in.operand_ids(0))) {
          pred = selector->shape().element_type() == xla::PRED;
        }
      }
      if (pred && ids.size() == 2) {
        Attr("true_computation", name(0));
        Attr("false_computation", name(1));
      } else {
        std::string list = "{";
        for (int k = 0; k < ids.size(); ++k) {
          absl::StrAppend(&list, k > 0 ? ", " : "", name(k));
        }
        Attr("branch_computations", list + "}");
      }
    } else if (op == "fusion" || op == "async-start" || op == "async-update" ||
               op == "async-done") {
      Attr("calls", name(0));
      if (op == "async-start" && !in.async_execution_thread().empty() &&
          in.async_execution_thread() != "main") {
        Attr("async_execution_thread", Quote(in.async_execution_thread()));
      }
    } else if (op == "custom-call" && ids.size() > 1) {
      std::string list = "{";
      for (int k = 0; k < ids.size(); ++k) {
        absl::StrAppend(&list, k > 0 ? ", " : "", name(k));
      }
      Attr("called_computations", list + "}");
    } else if (ids.size() == 1) {
      Attr("to_apply", name(0));
      if (op == "call" && in.is_composite()) Attr("is_composite", "true");
    } else {
      std::string list;
      for (int k = 0; k < ids.size(); ++k) {
        absl::StrAppend(&list, k > 0 ? ", " : "", name(k));
      }
      Attr("calls", list);
    }
  }

  void PrintCommonAttributes(const Instr& in) {
    if (in.has_sharding()) Attr("sharding", ShardingText(in.sharding()));
    if (in.frontend_attributes().map_size() > 0) {
      out_.append(", frontend_attributes=");
      AppendFrontendAttributes(in.frontend_attributes());
    }
    if (in.control_predecessor_ids_size() > 0) {
      out_.append(", control-predecessors={");
      for (int k = 0; k < in.control_predecessor_ids_size(); ++k) {
        const Instr* p = Find(in.control_predecessor_ids(k));
        absl::StrAppend(&out_, k > 0 ? ", " : "", "%",
                        p ? p->name()
                          : absl::StrCat("unknown.operand.",
                                         in.control_predecessor_ids(k)));
      }
      out_.push_back('}');
    }
    if (in.statistics_viz().statistics_size() > 0) {
      absl::StrAppend(&out_, ", statistics={visualizing_index=",
                      in.statistics_viz().stat_index_to_visualize());
      for (const auto& s : in.statistics_viz().statistics()) {
        absl::StrAppend(&out_, ",", s.stat_name(), "=", s.stat_val());
      }
      out_.push_back('}');
    }
    if (in.has_result_accuracy()) {
      const auto& r = in.result_accuracy();
      if (r.has_tolerance()) {
        absl::StrAppend(&out_, ", result_accuracy={tolerance={atol=",
                        r.tolerance().atol(), ",rtol=", r.tolerance().rtol(),
                        ",ulps=", r.tolerance().ulps(), "}}");
      } else if (r.mode() != xla::ResultAccuracy::DEFAULT) {
        absl::StrAppend(&out_, ", result_accuracy={mode=",
                        Lower(xla::ResultAccuracy::Mode_Name(r.mode())), "}");
      }
    }
    if (in.has_original_value()) PrintOriginalValue(in);
    if (options_.print_metadata) {
      std::string metadata = MetadataText(in.metadata());
      if (!metadata.empty()) Attr("metadata", metadata);
    }
    if (options_.print_backend_config && !in.backend_config().empty()) {
      out_.append(", backend_config=");
      AppendStringOrDict(in.backend_config(), &out_);
    }
  }

  // `origin={...}`: the original-value tree over the instruction's shape,
  // `{"name" {index}}` at each leaf that has one, `{}` where none.
  void PrintOriginalValue(const Instr& in) {
    const xla::OriginalValueProto& value = in.original_value();
    if (value.is_synthetic_call()) {
      out_.append(", origin={[synthetic_call]}");
      return;
    }
    if (value.elements_size() == 0) return;
    std::map<std::vector<int64_t>, const xla::OriginalArrayProto*> leaves;
    for (const auto& e : value.elements()) {
      leaves[std::vector<int64_t>(e.shape_index().begin(),
                                  e.shape_index().end())] = &e.original_array();
    }
    std::vector<int64_t> index;
    out_.append(", origin={");
    AppendOriginalNode(in.shape(), leaves, &index, 0);
    out_.push_back('}');
  }
  void AppendOriginalNode(
      const xla::ShapeProto& shape,
      const std::map<std::vector<int64_t>, const xla::OriginalArrayProto*>&
          leaves,
      std::vector<int64_t>* index, int depth) {
    if (shape.element_type() == xla::TUPLE && depth < 64) {
      out_.push_back('(');
      index->push_back(0);
      for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
        if (i > 0) out_.append(", ");
        index->back() = i;
        AppendOriginalNode(shape.tuple_shapes(i), leaves, index, depth + 1);
      }
      index->pop_back();
      out_.push_back(')');
      return;
    }
    auto it = leaves.find(*index);
    if (it == leaves.end()) {
      out_.append("{}");
      return;
    }
    absl::StrAppend(&out_, "{", Quote(it->second->instruction_name()));
    if (it->second->shape_index_size() > 0) {
      out_.push_back(' ');
      AppendList(it->second->shape_index(), &out_);
    }
    out_.push_back('}');
  }

  const xla::HloModuleProto& module_;
  const PrintOptions& options_;
  std::string& out_;
  const xla::HloComputationProto* entry_ = nullptr;
  absl::flat_hash_map<int64_t, const xla::HloComputationProto*> computations_;
  absl::flat_hash_map<int64_t, const Instr*> instructions_;
  absl::flat_hash_map<int64_t, const Instr*> local_;
};

}  // namespace

void AppendModuleText(const xla::HloModuleProto& module,
                      const PrintOptions& options, std::string* out) {
  ModulePrinter(module, options, out).Print();
}

void AppendLiteralComment(std::string_view label,
                          const xla::LiteralProto& literal, int64_t raw_bytes,
                          const PrintOptions& options, std::string* out) {
  absl::StrAppend(out, "// ", ToAbsl(label), ": ");
  AppendShape(literal.shape(), true, out);
  out->push_back(' ');
  if (raw_bytes >= 0) {
    absl::StrAppend(out, "{...} (", raw_bytes,
                    " bytes of chunked-format data, not decoded)\n");
    return;
  }
  std::optional<int64_t> count = LiteralElementCount(literal);
  if (count && *count > options.max_literal_comment_elements) {
    absl::StrAppend(out, "{...} (", *count, " elements elided)\n");
    return;
  }
  // Values may contain no newline: the comment is one line.
  if (!AppendLiteralValues(literal, out)) out->append("{...} (no data)");
  out->push_back('\n');
}

}  // namespace hlo::proto
