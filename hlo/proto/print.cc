// The module printer: header, stack-frame tables, computations in callee
// order, instruction lines and their operands. Attributes are in
// print_attributes.cc, attribute values in print_values.cc.
#include "hlo/proto/print.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/large_buffer.h"
#include "base/run_parallel.h"
#include "base/strings.h"
#include "google/protobuf/io/coded_stream.h"
#include "hlo/proto/decode_internal.h"
#include "hlo/proto/literal_print.h"
#include "hlo/proto/print_internal.h"

namespace hlo::proto {
namespace internal {

void ModulePrinter::EnterComputation(const CompRef& c) {
  current_ = &c;
  const int n = static_cast<int>(c.instrs.size());
  local_dense_.clear();
  local_map_.clear();
  params_.clear();
  shape_text_.assign(n, ShapeText{});
  own_shapes_.clear();
  if (n == 0) return;
  int64_t min = c.instrs[0].id, max = min;
  for (const InstrRef& i : c.instrs) {
    min = std::min(min, i.id);
    max = std::max(max, i.id);
    if (i.is_parameter) params_.push_back(&i);
  }
  if (static_cast<uint64_t>(max) - static_cast<uint64_t>(min) <
      4 * static_cast<uint64_t>(n) + 64) {
    local_min_ = min;
    local_dense_.assign(static_cast<size_t>(max - min) + 1, kNoInstruction);
    for (int k = 0; k < n; ++k) {
      int& slot = local_dense_[c.instrs[k].id - min];
      if (slot == kNoInstruction) slot = k;  // the first of a repeated id
    }
  } else {
    local_map_.reserve(n);
    for (int k = 0; k < n; ++k) local_map_.try_emplace(c.instrs[k].id, k);
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

void ModulePrinter::AppendComputationName(int64_t id) {
  auto it = index_.computations.find(id);
  if (it == index_.computations.end()) {
    out_.append("%unknown.computation.");
    AppendInt(id, &out_);
    return;
  }
  out_.push_back('%');
  out_.append(module_.computations(it->second).name());
}

bool ModulePrinter::PrintComputation(const CompRef& comp, size_t begin,
                                     size_t end) {
  EnterComputation(comp);
  const xla::HloComputationProto& c = *comp.message;
  const int n = static_cast<int>(comp.instrs.size());
  int root = FindLocal(c.root_id());
  if (root == kNoInstruction) root = n - 1;
  if (begin == 0 && !PrintSignature(comp, root)) return false;
  const std::vector<int> order = ScheduledOrder(comp);
  end = std::min(end, order.size());
  for (size_t i = begin; i < end; ++i) {
    if (!PrintInstruction(order[i], order[i] == root)) return false;
  }
  if (end < order.size()) return true;
  out_.append("}");
  if (!c.execution_thread().empty() && c.execution_thread() != "main") {
    out_.append(", execution_thread=");
    AppendQuoted(c.execution_thread(), &out_);
  }
  out_.push_back('\n');
  return true;
}

bool ModulePrinter::PrintSignature(const CompRef& comp, int root) {
  const xla::HloComputationProto& c = *comp.message;
  if (comp.program_shapes) {
    // Only to judge them (the signature prints from the instructions);
    // computations often repeat one.
    for (std::string_view bytes : *comp.program_shapes) {
      if (scratch_.sound_program_shapes.contains(bytes)) continue;
      if (!SurelyParsesAsProgramShape(bytes) &&
          !ParseDeferred(bytes, scratch_.ProgramShape())) {
        return false;
      }
      scratch_.sound_program_shapes.insert(bytes);
    }
  }
  // Parameters by number.
  std::vector<const InstrRef*>& params = params_;
  std::stable_sort(params.begin(), params.end(),
                   [](const InstrRef* a, const InstrRef* b) {
                     return a->parameter_number < b->parameter_number;
                   });
  if (&comp == index_.entry) out_.append("ENTRY ");
  out_.push_back('%');
  out_.append(c.name());
  out_.append(" (");
  for (size_t p = 0; p < params.size(); ++p) {
    if (p > 0) out_.append(", ");
    out_.append(params[p]->name());
    out_.append(": ");
    out_.append(
        ShapeTextAt(static_cast<int>(params[p] - comp.instrs.data()), nullptr));
  }
  out_.append(") -> ");
  if (root >= 0) {
    out_.append(ShapeTextAt(root, nullptr));
  } else {
    out_.append("()");
  }
  out_.append(" {\n");
  return true;
}

// Schedule order when the module is scheduled and the sequence covers the
// computation exactly; stored order otherwise.
std::vector<int> ModulePrinter::ScheduledOrder(const CompRef& c) {
  const int n = static_cast<int>(c.instrs.size());
  std::vector<int> order;
  order.reserve(n);
  const auto& sequences = module_.schedule().sequences();
  auto it = sequences.find(c.message->id());
  if (it != sequences.end() && it->second.instruction_ids_size() == n) {
    std::vector<char> seen(n, 0);
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
  for (int k = 0; k < n; ++k) order.push_back(k);
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

const InstrRef* ModulePrinter::Find(int64_t id) {
  if (const int k = FindLocal(id); k != kNoInstruction) {
    return &current_->instrs[k];
  }
  std::call_once(index_.global_once, [this] {
    for (const CompRef& c : index_.comps) {
      for (const InstrRef& i : c.instrs) index_.global.try_emplace(i.id, &i);
    }
  });
  auto it = index_.global.find(id);
  return it == index_.global.end() ? nullptr : it->second;
}

const xla::ShapeProto& ModulePrinter::ShapeOf(const InstrRef& ref) {
  if (ref.parsed) return ref.message()->shape();
  // A shape that does not parse fails its instruction's parse too.
  const std::string_view bytes = ref.shape_bytes();
  if (!scratch_.shape.ParseFromArray(bytes.data(),
                                     static_cast<int>(bytes.size()))) {
    scratch_.shape.Clear();
  }
  return scratch_.shape;
}

const TextRef* ModulePrinter::ShapeTextOf(const InstrRef& ref) {
  auto [it, inserted] = scratch_.shape_texts.try_emplace(ref.shape_bytes());
  if (inserted) {
    const std::string_view bytes = ref.shape_bytes();
    std::string& arena = scratch_.shape_arena;
    if (arena.size() > UINT32_MAX / 2 ||
        !scratch_.shape.ParseFromArray(bytes.data(),
                                       static_cast<int>(bytes.size()))) {
      scratch_.shape_texts.erase(it);
      return nullptr;
    }
    const size_t offset = arena.size();
    AppendShape(scratch_.shape, true, &arena);
    it->second = TextRef{static_cast<uint32_t>(offset),
                         static_cast<uint32_t>(arena.size() - offset)};
  }
  return &it->second;
}

void ModulePrinter::AppendOperand(int64_t id) {
  const int k = FindLocal(id);
  if (k == kNoInstruction) {
    if (const InstrRef* operand = Find(id)) {
      const TextRef* shape = operand->parsed ? nullptr : ShapeTextOf(*operand);
      if (shape != nullptr) {
        out_.append(ArenaText(*shape));
      } else {
        AppendShape(ShapeOf(*operand), true, &out_);
      }
      out_.append(" %");
      out_.append(operand->name());
    } else {
      out_.append("%unknown.operand.");
      AppendInt(id, &out_);
    }
    return;
  }
  out_.append(ShapeTextAt(k, nullptr));
  out_.append(" %");
  out_.append(current_->instrs[k].name());
}

// `shape`: the instruction's, when the caller has it parsed.
std::string_view ModulePrinter::ShapeTextAt(int k, const xla::ShapeProto* shape,
                                            bool* unparsed) {
  ShapeText& text = shape_text_[k];
  if ((text.size_and_flags & ShapeText::kMade) == 0) {
    const InstrRef& ref = current_->instrs[k];
    const TextRef* printed = !shape && !ref.parsed ? ShapeTextOf(ref) : nullptr;
    if (printed != nullptr && printed->size <= ShapeText::kSizeMask) {
      text.offset = printed->offset;
      text.size_and_flags = printed->size | ShapeText::kMade;
    } else {
      const size_t offset = own_shapes_.size();
      AppendShape(shape ? *shape : ShapeOf(ref), true, &own_shapes_);
      text.offset = static_cast<uint32_t>(offset);
      text.size_and_flags =
          static_cast<uint32_t>(std::min<size_t>(own_shapes_.size() - offset,
                                                 ShapeText::kSizeMask)) |
          ShapeText::kMade | ShapeText::kOwn |
          (!shape && !ref.parsed && printed == nullptr ? ShapeText::kUnparsed
                                                       : 0);
    }
  }
  if (unparsed != nullptr) *unparsed = text.unparsed();
  const uint32_t size = text.size_and_flags & ShapeText::kSizeMask;
  if (text.size_and_flags & ShapeText::kOwn) {
    return std::string_view(own_shapes_).substr(text.offset, size);
  }
  return ArenaText(TextRef{text.offset, size});
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

bool ModulePrinter::PrintInstruction(int k, bool is_root) {
  const InstrRef& ref = current_->instrs[k];
  const Instr* parsed = ref.message();
  std::string_view name, opcode;
  if (parsed) {
    name = parsed->name();
    opcode = parsed->opcode();
  } else if (DecodeLightInstruction(ref.bytes(), &scratch_.light, &name,
                                    &opcode)) {
    parsed = &scratch_.light;
  } else {
    Instr* instr = scratch_.Instruction();
    if (!ParseDeferredInstruction(ref, instr)) return false;
    parsed = instr;
    name = instr->name();
    opcode = instr->opcode();
  }
  const Instr& in = *parsed;
  // The full decode refuses a module with an instruction lacking one.
  if (!ref.parsed && opcode.empty()) return false;
  const OpInfo op = ClassifyOpcode(opcode);
  out_.append(is_root ? "  ROOT %" : "  %");
  out_.append(name);
  out_.append(" = ");
  // The shape as its users will print it: formatted once for both.
  bool unparsed = false;
  const std::string_view shape =
      ShapeTextAt(k, ref.parsed ? &in.shape() : nullptr, &unparsed);
  // A shape that does not parse fails the instruction's parse.
  if (parsed == &scratch_.light && unparsed) return false;
  out_.append(shape);
  out_.push_back(' ');
  out_.append(opcode);
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
  return true;
}

bool ModulePrinter::ParseDeferred(std::string_view bytes,
                                  google::protobuf::Message* into) {
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  // The depth the whole message's parse would have left it.
  in.SetRecursionLimit(
      std::max(0, decode_internal::kMaxDepth - index_.instruction_depth));
  return into->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

bool ModulePrinter::ParseDeferredInstruction(const InstrRef& ref, Instr* into) {
  const std::string_view bytes = ref.bytes();
  // The shape field (3, length-delimited: tag 0x1a, then its length) is cut
  // out: the bytes around it parse into the message the whole would, less
  // the shape.
  const size_t length_size =
      google::protobuf::io::CodedOutputStream::VarintSize32(ref.shape_size);
  const char* begin = bytes.data();
  const char* shape = static_cast<const char*>(ref.source) + ref.shape_offset;
  const size_t payload = static_cast<size_t>(shape - begin);
  if (ref.shape_size == 0 || payload < 1 + length_size ||
      payload + ref.shape_size > bytes.size() ||
      static_cast<uint8_t>(begin[payload - 1 - length_size]) != 0x1a ||
      ShapeTextOf(ref) == nullptr) {
    // Odd bytes (or a shape that does not parse): the whole parse judges.
    return ParseDeferred(bytes, into);
  }
  // One buffer and one parse: a parse's setup costs more than the copy.
  std::string& spliced = scratch_.spliced;
  spliced.assign(bytes.data(), payload - 1 - length_size);
  spliced.append(bytes.substr(payload + ref.shape_size));
  if (!ParseDeferred(spliced, into)) return false;
  // The one attribute that reads the instruction's own shape.
  if (into->has_original_value() &&
      !into->mutable_shape()->ParseFromArray(
          shape, static_cast<int>(ref.shape_size))) {
    return false;
  }
  return true;
}

namespace {

// Below this many bytes of instructions a module prints on one thread.
constexpr size_t kParallelBytes = size_t{1} << 20;

}  // namespace

bool PrintModule(const xla::HloModuleProto& module,
                 const DecodedProto* deferred, const PrintOptions& options,
                 std::string* out) {
  const std::vector<std::vector<std::string_view>>* wire =
      deferred ? &deferred->deferred_instructions : nullptr;
  // Large deferred modules are indexed and printed on several threads.
  size_t bytes = 0;
  if (wire) {
    for (const auto& instrs : *wire) {
      for (std::string_view i : instrs) bytes += i.size();
    }
  }
  int threads = 1;
  if (bytes >= kParallelBytes) {
    threads = static_cast<int>(
        std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  }
  ModuleIndex index;
  if (deferred) {
    index.instruction_depth = deferred->instruction_depth;
    if (deferred->deferred_program_shapes.size() !=
        static_cast<size_t>(module.computations_size())) {
      return false;
    }
  }
  if (!BuildModuleIndex(module, wire, threads, &index)) {
    return false;
  }
  if (deferred) {
    for (size_t k = 0; k < index.comps.size(); ++k) {
      index.comps[k].program_shapes = &deferred->deferred_program_shapes[k];
    }
  }
  const std::vector<int> order = PostOrder(index);
  const int n = static_cast<int>(order.size());
  const size_t start = out->size();
  {
    Scratch scratch;
    ModulePrinter printer(index, options, scratch, out);
    printer.PrintHeader();
    printer.PrintStackFrames();
    out->push_back('\n');
  }
  // Instruction positions in printing order: computation k holds
  // [first[k], first[k + 1]).
  std::vector<size_t> first(n + 1, 0);
  for (int k = 0; k < n; ++k) {
    first[k + 1] = first[k] + index.comps[order[k]].instrs.size();
  }
  const size_t total_instrs = first[n];
  // Reserved for more than the likely text, in huge pages faulted in as
  // they are written: a 4 KB page's first-touch fault costs more than
  // printing into it, and untouched reserve costs nothing. Text runs 1.6
  // to 2.8 times its instructions' wire bytes (the corpus' largest
  // modules); printed from messages, about 200 bytes a line.
  constexpr size_t kBytesPerLine = 200;
  const size_t expected = wire ? bytes / 2 * 5 : kBytesPerLine * total_instrs;
  threads = static_cast<int>(
      std::clamp<size_t>(total_instrs / 1024, 1, static_cast<size_t>(threads)));
  out->reserve(out->size() + expected + expected / 2);
  base::AdviseHugePages(out->data() + out->size(),
                        out->capacity() - out->size());
  // Runs of equally many instructions, cut inside a computation where need
  // be (an entry computation often holds most of a module): the first
  // prints straight into `out` on this thread, the others into their own
  // strings on their own, appended in order after.
  std::atomic<bool> ok{true};
  std::vector<std::string> texts(threads);
  auto print = [&](int run, std::string* into) {
    const size_t start = total_instrs * run / threads;
    const size_t stop = total_instrs * (run + 1) / threads;
    Scratch scratch;
    ModulePrinter printer(index, options, scratch, into);
    for (int k = 0; k < n && ok; ++k) {
      const size_t lo = first[k], hi = first[k + 1];
      // A run prints a computation's signature when its first instruction
      // is the run's (an empty one's: where it would be).
      const bool signature =
          (lo >= start && lo < stop) || (lo == total_instrs && stop == lo);
      const size_t begin = std::max(lo, start), end = std::min(hi, stop);
      if (!signature && begin >= end) continue;
      if (!printer.PrintComputation(index.comps[order[k]], begin - lo,
                                    end == hi ? SIZE_MAX : end - lo)) {
        ok = false;
      }
      if (end == hi) into->push_back('\n');
    }
  };
  // The other runs' strings come from this thread's heap, which a
  // one-shot command advises whole (a new thread's heap has its first 2 MB
  // in 4 KB pages).
  for (int run = 1; run < threads; ++run) {
    texts[run].reserve(2 * expected / threads);
    base::AdviseHugePages(texts[run].data(), texts[run].capacity());
  }
  if (!base::RunInParallel(threads, [&](int run) {
        print(run, run == 0 ? out : &texts[run]);
      })) {
    ok = false;  // out of memory
  }
  size_t total = out->size();
  for (const std::string& text : texts) total += text.size();
  // Room for what the caller appends (the literals' comments) without
  // copying the whole text again.
  out->reserve(total + total / 16 + 4096);
  for (const std::string& text : texts) out->append(text);
  if (!ok) out->resize(start);
  return ok;
}

}  // namespace internal

void AppendModuleText(const xla::HloModuleProto& module,
                      const PrintOptions& options, std::string* out) {
  internal::PrintModule(module, nullptr, options, out);
}

bool AppendDecodedModuleText(const DecodedProto& decoded,
                             const PrintOptions& options, std::string* out) {
  if (!decoded.module) return true;
  return internal::PrintModule(
      *decoded.module, decoded.deferred ? &decoded : nullptr, options, out);
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
