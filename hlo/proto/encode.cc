// The module, its computations and instructions; inline computation bodies.
#include "hlo/proto/encode.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "hlo/parser.h"
#include "hlo/proto/callee_order.h"
#include "hlo/proto/encode_internal.h"
#include "hlo/shape_inference.h"

namespace hlo::proto {

bool IsComputationKey(std::string_view key) {
  return key == "to_apply" || key == "calls" || key == "body" ||
         key == "condition" || key == "select" || key == "scatter" ||
         key == "true_computation" || key == "false_computation" ||
         key == "branch_computations" || key == "called_computations";
}

// A body holds instructions (`x = ...`); a name list never holds '='.
bool IsInlineBody(std::string_view value) {
  value = internal::Trim(value);
  return !value.empty() && value.front() == '{' &&
         value.find('=') != std::string_view::npos;
}

InlineBody ParseInlineBody(std::string_view value) {
  InlineBody body;
  if (!IsInlineBody(value)) return body;
  body.text = std::make_unique<std::string>(
      absl::StrCat("HloModule inline_body\n\nENTRY %inline_body ",
                   base::ToAbsl(internal::Trim(value)), "\n"));
  std::unique_ptr<ParsedFile> file = Parse(*body.text);
  if (!file->HasErrors() && file->modules.size() == 1 &&
      file->computations.size() == 1) {
    body.file = std::move(file);
  }
  return body;
}

namespace internal {
namespace {

// Callees before callers (CalleesFirstOrder), as XLA's
// HloModule::CreateFromProto needs.
void OrderCalleesFirst(xla::HloModuleProto* module) {
  const int n = module->computations_size();
  absl::flat_hash_map<int64_t, int> index;
  for (int k = 0; k < n; ++k) index[module->computations(k).id()] = k;
  const std::vector<int> order =
      CalleesFirstOrder(n, [&](int k, std::vector<int>* callees) {
        for (const auto& instruction : module->computations(k).instructions()) {
          for (int64_t id : instruction.called_computation_ids()) {
            auto found = index.find(id);
            if (found != index.end()) callees->push_back(found->second);
          }
        }
      });
  std::vector<xla::HloComputationProto*> taken(n);
  module->mutable_computations()->ExtractSubrange(0, n, taken.data());
  for (int k : order) module->mutable_computations()->AddAllocated(taken[k]);
}

}  // namespace

void Encoder::AssignIds() {
  for (Id c = module_.computations.begin; c < module_.computations.end(); ++c) {
    computation_ids_[c] = state_->next_computation_id++;
    state_->computation_names.insert(
        std::string(file_.Name(file_.computations[c])));
    const Computation& comp = file_.computations[c];
    for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
      instruction_ids_[i] = state_->next_instruction_id++;
      // Which computations fusions call.
      const Instruction& inst = file_.instructions[i];
      if (inst.opcode != Opcode::kFusion) continue;
      for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
        fusion_callees_.insert(file_.computation_refs[r].computation);
      }
    }
  }
}

absl::StatusOr<xla::HloModuleProto> Encoder::Encode() {
  xla::HloModuleProto out;
  state_->out = &out;
  out.set_name(ModuleName());
  // Ids first, so references can be resolved in any order.
  AssignIds();
  bool scheduled = false;
  EncodeHeaderAttributes(&out, &scheduled);
  const xla::HloComputationProto* entry = nullptr;
  for (Id c = module_.computations.begin; c < module_.computations.end(); ++c) {
    xla::HloComputationProto* computation = out.add_computations();
    absl::Status status = EncodeComputation(c, computation);
    if (!status.ok()) return status;
    if (c == module_.entry) entry = computation;
  }
  if (entry != nullptr) {
    out.set_entry_computation_name(entry->name());
    out.set_entry_computation_id(entry->id());
    *out.mutable_host_program_shape() = entry->program_shape();
  }
  if (!state_->inline_bodies.empty()) OrderCalleesFirst(&out);
  if (scheduled) {
    auto* sequences = out.mutable_schedule()->mutable_sequences();
    for (const auto& c : out.computations()) {
      if (c.is_fusion_computation()) continue;
      auto& sequence = (*sequences)[c.id()];
      for (const auto& i : c.instructions())
        sequence.add_instruction_ids(i.id());
    }
  }
  EncodeStackFrames(out.mutable_stack_frame_index());
  state_->out = nullptr;
  return out;
}

void Encoder::EncodeHeaderAttributes(xla::HloModuleProto* out,
                                     bool* scheduled) {
  for (Id a = module_.header_attributes.begin;
       a < module_.header_attributes.end(); ++a) {
    const Attribute& attr = file_.attributes[a];
    std::string_view key = file_.Text(attr.key);
    std::string_view value = file_.Text(attr.value);
    if (key == "is_scheduled") *scheduled = Trim(value) == "true";
    if (key == "frontend_attributes") {
      EncodeFrontendAttributes(value, out->mutable_frontend_attributes());
    } else if (key == "input_output_alias") {
      std::vector<AliasEntry> entries;
      if (!ReadAliasEntries(value, &entries)) continue;
      auto* config = out->mutable_input_output_alias();
      for (const AliasEntry& e : entries) {
        auto* entry = config->add_entries();
        SetList(e.output_index, entry->mutable_output_shape_index());
        entry->set_parameter_number(e.number);
        SetList(e.operand_index, entry->mutable_parameter_shape_index());
        entry->set_kind(e.kind == "must-alias" ? xla::MUST_ALIAS
                                               : xla::MAY_ALIAS);
      }
    } else if (key == "buffer_donor") {
      std::vector<std::pair<int64_t, std::vector<int64_t>>> donors;
      if (!ReadDonorEntries(value, &donors)) continue;
      auto* config = out->mutable_buffer_donor();
      for (const auto& [number, index] : donors) {
        auto* entry = config->add_entries();
        entry->set_parameter_number(number);
        SetList(index, entry->mutable_parameter_shape_index());
      }
    }
  }
}

absl::StatusOr<const xla::HloComputationProto*> Encoder::EncodeInline(
    std::string name, bool is_fusion) {
  if (module_.computations.count != 1) {
    return absl::InvalidArgumentError("an inline body is one computation");
  }
  const Id c = module_.computations.begin;
  AssignIds();
  computation_names_[c] = std::move(name);
  if (is_fusion) fusion_callees_.insert(c);
  xla::HloComputationProto* out = state_->out->add_computations();
  absl::Status status = EncodeComputation(c, out);
  if (!status.ok()) return status;
  return out;
}

// Each inline body the instruction calls becomes a computation named after
// the instruction and the key (`call.1.to_apply`, made unique), encoded
// before the instruction so its root shape can stand for an omitted one.
absl::Status Encoder::EncodeInlineBodies(const Instruction& inst) {
  inline_calls_.clear();
  for (Id a = inst.attributes.begin; a < inst.attributes.end(); ++a) {
    const Attribute& attr = file_.attributes[a];
    const std::string_view key = file_.Text(attr.key);
    const std::string_view value = file_.Text(attr.value);
    if (!IsComputationKey(key) || !IsInlineBody(value)) continue;
    InlineBody body = ParseInlineBody(value);
    if (body.file == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "instruction ", base::ToAbsl(file_.Name(inst)), ": the inline ",
          base::ToAbsl(key), " body does not parse"));
    }
    std::string base =
        absl::StrCat(base::ToAbsl(file_.Name(inst)), ".", base::ToAbsl(key));
    std::string name = base;
    for (int n = 1; state_->computation_names.contains(name); ++n) {
      name = absl::StrCat(base, ".", n);
    }
    state_->computation_names.insert(name);
    const ParsedFile& parsed = *body.file;
    state_->inline_bodies.push_back(std::move(body));
    Encoder sub(parsed, parsed.modules[0], state_);
    absl::StatusOr<const xla::HloComputationProto*> computation =
        sub.EncodeInline(std::move(name), inst.opcode == Opcode::kFusion);
    if (!computation.ok()) return computation.status();
    inline_calls_.push_back({key, *computation});
  }
  return absl::OkStatus();
}

std::string Encoder::ModuleName() const {
  if (!module_.name.empty()) return std::string(file_.Text(module_.name));
  if (module_.entry != kNone) {
    return absl::StrCat(
        "module_", base::ToAbsl(file_.Name(file_.computations[module_.entry])));
  }
  return "module";
}

void Encoder::EncodeStackFrames(xla::StackFrameIndexProto* out) {
  const StackFrameTables& t = module_.stack_frames;
  for (Span s : t.file_names) {
    std::string v;
    out->add_file_names(ReadString(file_.Text(s), &v) ? v : std::string());
  }
  for (Span s : t.function_names) {
    std::string v;
    out->add_function_names(ReadString(file_.Text(s), &v) ? v : std::string());
  }
  for (const FileLocation& l : t.file_locations) {
    auto* p = out->add_file_locations();
    p->set_file_name_id(l.file_name_id);
    p->set_function_name_id(l.function_name_id);
    p->set_line(l.line);
    p->set_end_line(l.end_line);
    p->set_column(l.column);
    p->set_end_column(l.end_column);
  }
  for (const StackFrame& f : t.stack_frames) {
    auto* p = out->add_stack_frames();
    p->set_file_location_id(f.file_location_id);
    p->set_parent_frame_id(f.parent_frame_id);
  }
}

absl::Status Encoder::EncodeComputation(Id c, xla::HloComputationProto* out) {
  const Computation& comp = file_.computations[c];
  auto renamed = computation_names_.find(c);
  out->set_name(renamed != computation_names_.end()
                    ? renamed->second
                    : std::string(file_.Name(comp)));
  out->set_id(computation_ids_[c]);
  out->set_is_fusion_computation(fusion_callees_.contains(c));
  if (!comp.execution_thread.empty()) {
    std::string thread;
    if (ReadString(file_.Text(comp.execution_thread), &thread)) {
      out->set_execution_thread(thread);
    }
  }
  // Operands before users: nested operand instructions first.
  for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
    if (file_.instructions[i].is_nested) continue;
    absl::Status status = EncodeWithNested(i, out, 0);
    if (!status.ok()) return status;
  }
  Id root = comp.root;
  if (root == kNone && !comp.instructions.empty()) {
    root = comp.instructions.end() - 1;
  }
  if (root != kNone) out->set_root_id(instruction_ids_[root]);
  // Program shape: parameters by number, then the root's shape.
  auto* program = out->mutable_program_shape();
  std::vector<const Instr*> params;
  for (const auto& i : out->instructions()) {
    if (i.opcode() == "parameter") params.push_back(&i);
  }
  std::stable_sort(params.begin(), params.end(), [](auto* a, auto* b) {
    return a->parameter_number() < b->parameter_number();
  });
  for (const Instr* p : params) {
    *program->add_parameters() = p->shape();
    program->add_parameter_names(p->name());
  }
  for (const auto& i : out->instructions()) {
    if (i.id() == out->root_id()) *program->mutable_result() = i.shape();
  }
  return absl::OkStatus();
}

absl::Status Encoder::EncodeWithNested(Id i, xla::HloComputationProto* out,
                                       int depth) {
  if (depth > kMaxShapeDepth) {
    return absl::InvalidArgumentError("operands nested too deeply");
  }
  const Instruction& inst = file_.instructions[i];
  for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
    if (file_.operands[o].nested != kNone) {
      absl::Status status =
          EncodeWithNested(file_.operands[o].nested, out, depth + 1);
      if (!status.ok()) return status;
    }
  }
  return EncodeInstruction(i, out->add_instructions());
}

absl::Status Encoder::EncodeInstruction(Id i, Instr* out) {
  const Instruction& inst = file_.instructions[i];
  out->set_id(instruction_ids_[i]);
  out->set_name(inst.is_nested
                    ? absl::StrCat(base::ToAbsl(OpcodeName(inst.opcode)),
                                   ".anon", instruction_ids_[i])
                    : std::string(file_.Name(inst)));
  out->set_opcode(std::string(file_.Text(inst.opcode_span)));
  if (inst.shape != kNone) {
    *out->mutable_shape() = EncodeShape(file_, inst.shape);
  }
  for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
    const Operand& operand = file_.operands[o];
    const Id target =
        operand.nested != kNone ? operand.nested : operand.definition;
    if (target == kNone) {
      return absl::InvalidArgumentError(
          absl::StrCat("instruction ", base::ToAbsl(file_.Name(inst)),
                       ": operand '", base::ToAbsl(file_.Text(operand.name)),
                       "' is undefined; fix the text first"));
    }
    out->add_operand_ids(instruction_ids_[target]);
  }
  for (Id r = inst.control_predecessors.begin;
       r < inst.control_predecessors.end(); ++r) {
    const NameRef& ref = file_.name_refs[r];
    if (ref.definition != kNone) {
      out->add_control_predecessor_ids(instruction_ids_[ref.definition]);
    }
  }
  absl::Status bodies = EncodeInlineBodies(inst);
  if (!bodies.ok()) return bodies;
  EncodeCalledComputations(inst, out);
  std::string_view operand_text = Trim(file_.Text(inst.operand_list));
  if (inst.opcode == Opcode::kParameter) {
    int64_t n = 0;
    if (ReadInt(operand_text.substr(1, operand_text.size() - 2), &n)) {
      out->set_parameter_number(n);
    }
  } else if (inst.opcode == Opcode::kConstant && inst.shape != kNone) {
    absl::StatusOr<LiteralShape> shape =
        LiteralShapeFromParsed(file_, inst.shape);
    if (shape.ok()) {
      absl::StatusOr<LiteralValue> value =
          DecodeConstantOperandList(operand_text, *shape);
      if (value.ok()) {
        xla::LiteralProto literal;
        if (FillLiteral(*value, out->shape(), &literal)) {
          *out->mutable_literal() = std::move(literal);
        }
      }
    }
  }
  for (Id a = inst.attributes.begin; a < inst.attributes.end(); ++a) {
    const Attribute& attr = file_.attributes[a];
    EncodeAttribute(inst, file_.Text(attr.key), file_.Text(attr.value), out);
  }
  // Inferred after the attributes: slice, pad and dynamic-slice read
  // their encoded fields.
  // A shape the parser filled in (hlo/shape_inference.h) has no layout:
  // the encoder's own inference gives laid-out operands' layouts, and the
  // filled shape stays when it cannot.
  if (inst.shape == kNone || IsInferredShape(file_, inst.shape)) {
    out->clear_shape();
    absl::Status status = InferShape(inst, out);
    if (!status.ok()) {
      if (inst.shape == kNone) return status;
      *out->mutable_shape() = EncodeShape(file_, inst.shape);
    }
  }
  shapes_[i] = &out->shape();
  return absl::OkStatus();
}

void Encoder::EncodeCalledComputations(const Instruction& inst, Instr* out) {
  // (attribute key, proto computation id)
  std::vector<std::pair<std::string_view, int64_t>> refs;
  for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
    const ComputationRef& ref = file_.computation_refs[r];
    if (ref.computation == kNone || ref.attribute == kNone) continue;
    auto it = computation_ids_.find(ref.computation);
    if (it == computation_ids_.end()) continue;
    refs.push_back(
        {file_.Text(file_.attributes[ref.attribute].key), it->second});
  }
  for (const InlineCall& call : inline_calls_) {
    refs.push_back({call.key, call.computation->id()});
  }
  // XLA's order: body before condition, select before scatter, true
  // before false; everything else as written.
  auto rank = [](std::string_view key) {
    if (key == "body" || key == "select" || key == "true_computation") return 0;
    if (key == "condition" || key == "scatter" || key == "false_computation")
      return 1;
    return 0;
  };
  std::stable_sort(refs.begin(), refs.end(), [&](const auto& a, const auto& b) {
    return rank(a.first) < rank(b.first);
  });
  for (const auto& [key, id] : refs) out->add_called_computation_ids(id);
}

}  // namespace internal

absl::StatusOr<xla::HloModuleProto> EncodeModule(const ParsedFile& file,
                                                 Id module) {
  if (module >= file.modules.size()) {
    return absl::InvalidArgumentError("the text holds no HLO module");
  }
  for (const Diagnostic& d : file.diagnostics) {
    if (d.severity != Severity::kError) continue;
    const LineIndex& lines = file.lines();
    return absl::InvalidArgumentError(
        absl::StrCat("not valid HLO: line ", lines.LineOf(d.span.begin) + 1,
                     ": ", d.message));
  }
  internal::ModuleState state;
  return internal::Encoder(file, file.modules[module], &state).Encode();
}

absl::StatusOr<xla::HloProto> EncodeHloProto(const ParsedFile& file,
                                             Id module) {
  absl::StatusOr<xla::HloModuleProto> encoded = EncodeModule(file, module);
  if (!encoded.ok()) return encoded.status();
  xla::HloProto proto;
  *proto.mutable_hlo_module() = *std::move(encoded);
  return proto;
}

}  // namespace hlo::proto
