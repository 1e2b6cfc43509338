// The module printer: header, stack-frame tables, computations in callee
// order, instruction lines and their operands. Attributes are in
// print_attributes.cc, attribute values in print_values.cc.
#include "hlo/proto/print.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "hlo/proto/literal_print.h"
#include "hlo/proto/print_internal.h"

namespace hlo::proto {
namespace internal {

void ModulePrinter::Print() {
  IndexModule();
  PrintHeader();
  PrintStackFrames();
  out_.push_back('\n');
  for (const xla::HloComputationProto* c : PostOrder()) {
    PrintComputation(*c);
    out_.push_back('\n');
  }
}

// The output reserved for the likely text size (200 bytes a line is
// typical of real dumps).
void ModulePrinter::IndexModule() {
  size_t estimate = 0;
  for (int k = 0; k < module_.computations_size(); ++k) {
    const auto& c = module_.computations(k);
    computations_.try_emplace(c.id(), k);
    estimate += 200 * static_cast<size_t>(c.instructions_size());
  }
  out_.reserve(out_.size() + estimate);
}

void ModulePrinter::EnterComputation(const xla::HloComputationProto& c) {
  current_ = &c;
  const int n = c.instructions_size();
  local_dense_.clear();
  local_map_.clear();
  params_.clear();
  operand_text_.assign(n, OperandText{});
  operand_texts_.clear();
  if (n == 0) return;
  int64_t min = c.instructions(0).id(), max = min;
  for (const auto& i : c.instructions()) {
    min = std::min(min, i.id());
    max = std::max(max, i.id());
    if (i.opcode() == "parameter") params_.push_back(&i);
  }
  if (static_cast<uint64_t>(max) - static_cast<uint64_t>(min) <
      4 * static_cast<uint64_t>(n) + 64) {
    local_min_ = min;
    local_dense_.assign(static_cast<size_t>(max - min) + 1, kNoInstruction);
    for (int k = 0; k < n; ++k) {
      int& slot = local_dense_[c.instructions(k).id() - min];
      if (slot == kNoInstruction) slot = k;  // the first of a repeated id
    }
  } else {
    local_map_.reserve(n);
    for (int k = 0; k < n; ++k)
      local_map_.try_emplace(c.instructions(k).id(), k);
  }
}

void ModulePrinter::PrintHeader() {
  out_.append("HloModule ");
  out_.append(module_.name().empty() ? "unnamed" : module_.name());
  if (module_.has_schedule()) out_.append(", is_scheduled=true");
  if (module_.input_output_alias().entries_size() > 0) {
    out_.append(", input_output_alias={ ");
    const auto& entries = module_.input_output_alias().entries();
    for (int i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      if (i > 0) out_.append(", ");
      AppendList(e.output_shape_index(), &out_);
      out_.append(": (");
      AppendInt(e.parameter_number(), &out_);
      out_.append(", ");
      AppendList(e.parameter_shape_index(), &out_);
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
      out_.append(i > 0 ? ", (" : "(");
      AppendInt(entries[i].parameter_number(), &out_);
      out_.append(", ");
      AppendList(entries[i].parameter_shape_index(), &out_);
      out_.push_back(')');
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

void ModulePrinter::PrintStackFrames() {
  if (!options_.print_metadata || !module_.has_stack_frame_index()) return;
  const auto& index = module_.stack_frame_index();
  if (index.file_names_size() == 0 && index.stack_frames_size() == 0) return;
  out_.append("\nFileNames\n");
  for (int i = 0; i < index.file_names_size(); ++i) {
    AppendInt(i + 1, &out_);
    out_.push_back(' ');
    AppendQuoted(index.file_names(i), &out_);
    out_.push_back('\n');
  }
  out_.append("\nFunctionNames\n");
  for (int i = 0; i < index.function_names_size(); ++i) {
    AppendInt(i + 1, &out_);
    out_.push_back(' ');
    AppendQuoted(index.function_names(i), &out_);
    out_.push_back('\n');
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
std::vector<const xla::HloComputationProto*> ModulePrinter::PostOrder() {
  std::vector<const xla::HloComputationProto*> order;
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
  // By position: 0 new, 1 entered, 2 done.
  std::vector<char> state(module_.computations_size(), 0);
  auto visit = [&](int root) {
    std::vector<std::pair<int, bool>> stack;
    stack.push_back({root, false});
    while (!stack.empty()) {
      auto [k, expanded] = stack.back();
      stack.pop_back();
      if (state[k] == 2) continue;
      if (expanded) {
        state[k] = 2;
        order.push_back(&module_.computations(k));
        continue;
      }
      if (state[k] == 1) continue;  // a cycle
      state[k] = 1;
      stack.push_back({k, true});
      const auto& instructions = module_.computations(k).instructions();
      for (auto it = instructions.rbegin(); it != instructions.rend(); ++it) {
        for (int j = it->called_computation_ids_size() - 1; j >= 0; --j) {
          auto found = computations_.find(it->called_computation_ids(j));
          if (found != computations_.end() && state[found->second] != 2) {
            stack.push_back({found->second, false});
          }
        }
      }
    }
  };
  // Stored order (XLA stores callees first), moving a callee forward only
  // when a caller precedes it.
  for (int k = 0; k < module_.computations_size(); ++k) visit(k);
  return order;
}

void ModulePrinter::AppendComputationName(int64_t id) {
  auto it = computations_.find(id);
  if (it == computations_.end()) {
    out_.append("%unknown.computation.");
    AppendInt(id, &out_);
    return;
  }
  out_.push_back('%');
  out_.append(module_.computations(it->second).name());
}

void ModulePrinter::PrintComputation(const xla::HloComputationProto& c) {
  EnterComputation(c);
  const Instr* root = nullptr;
  if (const int k = FindLocal(c.root_id()); k != kNoInstruction) {
    root = &c.instructions(k);
  }
  if (!root && c.instructions_size() > 0) {
    root = &c.instructions(c.instructions_size() - 1);
  }
  // Signature: parameters by number.
  std::vector<const Instr*>& params = params_;
  std::stable_sort(params.begin(), params.end(),
                   [](const Instr* a, const Instr* b) {
                     return a->parameter_number() < b->parameter_number();
                   });
  if (&c == entry_) out_.append("ENTRY ");
  out_.push_back('%');
  out_.append(c.name());
  out_.append(" (");
  for (size_t p = 0; p < params.size(); ++p) {
    if (p > 0) out_.append(", ");
    out_.append(params[p]->name());
    out_.append(": ");
    AppendShape(params[p]->shape(), true, &out_);
  }
  out_.append(") -> ");
  if (root) {
    AppendShape(root->shape(), true, &out_);
  } else {
    out_.append("()");
  }
  out_.append(" {\n");
  for (int k : ScheduledOrder(c)) {
    PrintInstruction(k, &c.instructions(k) == root);
  }
  out_.append("}");
  if (!c.execution_thread().empty() && c.execution_thread() != "main") {
    out_.append(", execution_thread=");
    AppendQuoted(c.execution_thread(), &out_);
  }
  out_.push_back('\n');
}

// Schedule order when the module is scheduled and the sequence covers the
// computation exactly; stored order otherwise.
std::vector<int> ModulePrinter::ScheduledOrder(
    const xla::HloComputationProto& c) {
  std::vector<int> order;
  order.reserve(c.instructions_size());
  const auto& sequences = module_.schedule().sequences();
  auto it = sequences.find(c.id());
  if (it != sequences.end() &&
      it->second.instruction_ids_size() == c.instructions_size()) {
    std::vector<char> seen(c.instructions_size(), 0);
    for (int64_t id : it->second.instruction_ids()) {
      const int k = FindLocal(id);
      if (k == kNoInstruction || seen[k]++ != 0) {
        order.clear();
        break;
      }
      order.push_back(k);
    }
    if (!order.empty()) return order;
  }
  for (int k = 0; k < c.instructions_size(); ++k) order.push_back(k);
  return order;
}

int ModulePrinter::FindLocal(int64_t id) const {
  if (!local_dense_.empty()) {
    if (id < local_min_ ||
        static_cast<uint64_t>(id) - static_cast<uint64_t>(local_min_) >=
            local_dense_.size()) {
      return kNoInstruction;
    }
    return local_dense_[id - local_min_];
  }
  auto it = local_map_.find(id);
  return it == local_map_.end() ? kNoInstruction : it->second;
}

const Instr* ModulePrinter::Find(int64_t id) {
  if (const int k = FindLocal(id); k != kNoInstruction) {
    return &current_->instructions(k);
  }
  if (!global_built_) {
    for (const auto& c : module_.computations()) {
      for (const auto& i : c.instructions()) global_.try_emplace(i.id(), &i);
    }
    global_built_ = true;
  }
  auto it = global_.find(id);
  return it == global_.end() ? nullptr : it->second;
}

void ModulePrinter::AppendOperand(int64_t id) {
  const int k = FindLocal(id);
  if (k == kNoInstruction) {
    if (const Instr* operand = Find(id)) {
      AppendShape(operand->shape(), true, &out_);
      out_.append(" %");
      out_.append(operand->name());
    } else {
      out_.append("%unknown.operand.");
      AppendInt(id, &out_);
    }
    return;
  }
  const OperandText& text = OperandTextOf(k);
  out_.append(operand_texts_, text.offset, text.size);
}

const ModulePrinter::OperandText& ModulePrinter::OperandTextOf(int k) {
  OperandText& text = operand_text_[k];
  if (text.size == 0) {
    const Instr& operand = current_->instructions(k);
    text.offset = operand_texts_.size();
    AppendShape(operand.shape(), true, &operand_texts_);
    text.shape_size = operand_texts_.size() - text.offset;
    operand_texts_.append(" %");
    operand_texts_.append(operand.name());
    text.size = operand_texts_.size() - text.offset;
  }
  return text;
}

void ModulePrinter::AppendFrontendAttributes(
    const xla::FrontendAttributes& attributes) {
  std::map<std::string_view, std::string_view> sorted;
  for (const auto& [key, value] : attributes.map()) sorted[key] = value;
  out_.push_back('{');
  bool first = true;
  for (const auto& [key, value] : sorted) {
    if (!first) out_.push_back(',');
    out_.append(key);
    out_.push_back('=');
    AppendStringOrDict(value, &out_);
    first = false;
  }
  out_.push_back('}');
}

void ModulePrinter::PrintInstruction(int k, bool is_root) {
  const Instr& in = current_->instructions(k);
  const OpInfo op = ClassifyOpcode(in.opcode());
  out_.append(is_root ? "  ROOT %" : "  %");
  out_.append(in.name());
  out_.append(" = ");
  // The shape as its users will print it: formatted once for both.
  const OperandText& text = OperandTextOf(k);
  out_.append(operand_texts_, text.offset, text.shape_size);
  out_.push_back(' ');
  out_.append(in.opcode());
  out_.push_back('(');
  if (op.kind == OpKind::kParameter) {
    AppendInt(in.parameter_number(), &out_);
  } else if (op.kind == OpKind::kConstant) {
    std::optional<int64_t> n = LiteralElementCount(in.literal());
    if (!in.has_literal() || !n || *n > options_.max_constant_elements ||
        !AppendLiteralValues(in.literal(), &out_)) {
      out_.append("{...}");
    }
  } else {
    for (int k = 0; k < in.operand_ids_size(); ++k) {
      if (k > 0) {
        out_.append(", ");
        if (k % 5 == 0) {
          out_.append("/*index=");
          AppendInt(k, &out_);
          out_.append("*/");
        }
      }
      AppendOperand(in.operand_ids(k));
    }
  }
  out_.push_back(')');
  PrintOpcodeAttributes(in, op);
  PrintCalledComputations(in, op);
  PrintCommonAttributes(in);
  out_.push_back('\n');
}

}  // namespace internal

void AppendModuleText(const xla::HloModuleProto& module,
                      const PrintOptions& options, std::string* out) {
  internal::ModulePrinter(module, options, out).Print();
}

void AppendLiteralComment(std::string_view label,
                          const xla::LiteralProto& literal, int64_t raw_bytes,
                          const PrintOptions& options, std::string* out) {
  absl::StrAppend(out, "// ", base::ToAbsl(label), ": ");
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
