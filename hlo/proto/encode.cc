#include "hlo/proto/encode.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "hlo/absl_compat.h"
#include "hlo/literal_text.h"
#include "hlo/parser.h"
#include "hlo/sharding.h"

namespace hlo::proto {
namespace {

using Instr = xla::HloInstructionProto;
constexpr int kMaxShapeDepth = 64;

// ------------------------------------------------ small value readers --
// The typed decoders of hlo/attributes.h take over these once they land;
// these read the forms the printer writes (and XLA prints).

std::string_view Trim(std::string_view s) {
  while (!s.empty() && absl::ascii_isspace(s.front())) s.remove_prefix(1);
  while (!s.empty() && absl::ascii_isspace(s.back())) s.remove_suffix(1);
  return s;
}

// Splits on `sep`, keeping empty parts (std::string_view throughout: this
// abseil's StrSplit speaks absl::string_view).
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

std::string_view StripBraces(std::string_view s) {
  s = Trim(s);
  if (s.size() >= 2 && s.front() == '{' && s.back() == '}') {
    s = s.substr(1, s.size() - 2);
  }
  return Trim(s);
}

// bfloat16 bits of `value`, rounded to nearest even (NaN stays NaN).
uint16_t FloatToBf16(double value) {
  const float f = static_cast<float>(value);
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof(bits));
  if (std::isnan(f)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

// IEEE half bits of `value`, rounded to nearest even; overflow gives inf.
uint16_t FloatToHalf(double value) {
  const float f = static_cast<float>(value);
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof(bits));
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  if (std::isnan(f)) return sign | 0x7e00;
  const float magnitude = std::fabs(f);
  if (magnitude >= 65520.0f) return sign | 0x7c00;  // rounds to inf
  if (magnitude < 6.103515625e-05f) {
    // Subnormal (or zero): units of 2^-24, nearest even.
    const float units = magnitude * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(units));
  }
  const uint32_t exponent = ((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffff;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return sign | static_cast<uint16_t>(half);
}

bool ReadInt(std::string_view s, int64_t* out) {
  s = Trim(s);
  if (!s.empty() && s.front() == '%') return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool ReadIntList(std::string_view s, std::vector<int64_t>* out) {
  s = StripBraces(s);
  out->clear();
  if (s.empty()) return true;
  for (std::string_view part : Split(s, ',')) {
    int64_t v;
    if (!ReadInt(part, &v)) return false;
    out->push_back(v);
  }
  return true;
}

// "{{0,1},{2,3}}" -> lists.
bool ReadIntListList(std::string_view s, std::vector<std::vector<int64_t>>* out) {
  s = StripBraces(s);
  out->clear();
  size_t i = 0;
  while (i < s.size()) {
    size_t open = s.find('{', i);
    if (open == std::string_view::npos) break;
    size_t close = s.find('}', open);
    if (close == std::string_view::npos) return false;
    std::vector<int64_t> list;
    if (!ReadIntList(s.substr(open, close - open + 1), &list)) return false;
    out->push_back(std::move(list));
    i = close + 1;
  }
  return true;
}

bool ReadString(std::string_view s, std::string* out) {
  s = Trim(s);
  if (s.size() < 2 || (s.front() != '"' && s.front() != '\'') ||
      s.back() != s.front()) {
    return false;
  }
  std::string error;
  return absl::CUnescape(ToAbsl(s.substr(1, s.size() - 2)), out, &error);
}

// A string-or-dict value (backend_config, frontend attribute values).
std::string ReadStringOrDict(std::string_view s) {
  std::string out;
  if (ReadString(s, &out)) return out;
  return std::string(Trim(s));
}

// "3x3" -> {3, 3}.
bool ReadDxD(std::string_view s, std::vector<int64_t>* out) {
  out->clear();
  for (std::string_view part : Split(Trim(s), 'x')) {
    int64_t v;
    if (!ReadInt(part, &v)) return false;
    out->push_back(v);
  }
  return true;
}

// "1_2x0_0_1" -> per dimension {low, high[, interior]}.
bool ReadPads(std::string_view s, std::vector<std::vector<int64_t>>* out) {
  out->clear();
  s = Trim(s);
  if (s.empty()) return true;
  for (std::string_view dim : Split(s, 'x')) {
    std::vector<int64_t> values;
    for (std::string_view part : Split(dim, '_')) {
      int64_t v;
      if (!ReadInt(part, &v)) return false;
      values.push_back(v);
    }
    if (values.size() < 2 || values.size() > 3) return false;
    out->push_back(std::move(values));
  }
  return true;
}

// Space- or comma-separated `key=value` items inside braces, values may be
// strings or braced lists.
std::vector<std::pair<std::string_view, std::string_view>> ReadKeyValues(
    std::string_view s) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  s = StripBraces(s);
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (absl::ascii_isspace(s[i]) || s[i] == ',')) ++i;
    size_t eq = s.find('=', i);
    if (eq == std::string_view::npos) break;
    std::string_view key = Trim(s.substr(i, eq - i));
    size_t j = eq + 1;
    int depth = 0;
    bool quoted = false;
    char quote = 0;
    for (; j < s.size(); ++j) {
      const char c = s[j];
      if (quoted) {
        if (c == '\\') ++j;
        else if (c == quote) quoted = false;
        continue;
      }
      if (c == '"' || c == '\'') {
        quoted = true;
        quote = c;
      } else if (c == '{' || c == '[' || c == '(') {
        ++depth;
      } else if (c == '}' || c == ']' || c == ')') {
        --depth;
      } else if (depth == 0 && (absl::ascii_isspace(c) || c == ',')) {
        break;
      }
    }
    out.push_back({key, s.substr(eq + 1, j - eq - 1)});
    i = j;
  }
  return out;
}

template <typename Field>
void SetList(const std::vector<int64_t>& values, Field* field) {
  field->Clear();
  for (int64_t v : values) field->Add(v);
}

void EncodeMetadata(std::string_view value, xla::OpMetadata* m) {
  for (auto [key, v] : ReadKeyValues(value)) {
    std::string s;
    int64_t n = 0;
    if (key == "op_type" && ReadString(v, &s)) m->set_op_type(s);
    else if (key == "op_name" && ReadString(v, &s)) m->set_op_name(s);
    else if (key == "source_file" && ReadString(v, &s)) m->set_source_file(s);
    else if (key == "deduplicated_name" && ReadString(v, &s))
      m->set_deduplicated_name(s);
    else if (key == "scheduling_name" && ReadString(v, &s))
      m->set_scheduling_name(s);
    else if (key == "source_line" && ReadInt(v, &n)) m->set_source_line(n);
    else if (key == "source_end_line" && ReadInt(v, &n))
      m->set_source_end_line(n);
    else if (key == "source_column" && ReadInt(v, &n)) m->set_source_column(n);
    else if (key == "source_end_column" && ReadInt(v, &n))
      m->set_source_end_column(n);
    else if (key == "stack_frame_id" && ReadInt(v, &n))
      m->set_stack_frame_id(n);
    else if (key == "profile_type") {
      std::vector<int64_t> list;
      if (ReadIntList(v, &list)) {
        for (int64_t t : list) m->add_profile_type(static_cast<xla::ProfileType>(t));
      }
    }
  }
}

void EncodeFrontendAttributes(std::string_view value,
                              xla::FrontendAttributes* out) {
  for (auto [key, v] : ReadKeyValues(value)) {
    (*out->mutable_map())[std::string(key)] = ReadStringOrDict(v);
  }
}

void EncodeSharding(const HloShardingValue& s, xla::OpSharding* out,
                    int depth = 0) {
  out->set_type(static_cast<xla::OpSharding::Type>(s.type));
  SetList(s.tile_assignment_dimensions,
          out->mutable_tile_assignment_dimensions());
  SetList(s.tile_assignment_devices, out->mutable_tile_assignment_devices());
  SetList(s.iota_reshape_dims, out->mutable_iota_reshape_dims());
  for (int64_t p : s.iota_transpose_perm) out->add_iota_transpose_perm(p);
  out->set_replicate_on_last_tile_dim(s.replicate_on_last_tile_dim);
  for (ShardingType t : s.last_tile_dims) {
    out->add_last_tile_dims(static_cast<xla::OpSharding::Type>(t));
  }
  if (depth < 8) {
    for (const HloShardingValue& element : s.tuple_shardings) {
      EncodeSharding(element, out->add_tuple_shardings(), depth + 1);
    }
  }
  if (s.shard_group) {
    out->set_is_shard_group(true);
    out->set_shard_group_id(s.shard_group->id);
    out->set_shard_group_type(s.shard_group->shard_as ? xla::OpSharding::AS
                                                      : xla::OpSharding::LIKE);
  }
}

// Literal values (row-major) into the LiteralProto field of the type; the
// shape's layout decides physical order, so non-default layouts are
// re-ordered.
bool FillLiteral(const LiteralValue& value, const xla::ShapeProto& shape,
                 xla::LiteralProto* out, int depth = 0) {
  *out->mutable_shape() = shape;
  if (value.is_tuple()) {
    if (depth > kMaxShapeDepth ||
        static_cast<int>(value.tuple_elements.size()) !=
            shape.tuple_shapes_size()) {
      return false;
    }
    for (size_t i = 0; i < value.tuple_elements.size(); ++i) {
      if (!FillLiteral(value.tuple_elements[i], shape.tuple_shapes(i),
                       out->add_tuple_literals(), depth + 1)) {
        return false;
      }
    }
    return true;
  }
  if (value.elided) return false;
  // Logical row-major index -> physical index for the shape's layout.
  const int rank = shape.dimensions_size();
  std::vector<int64_t> dims(shape.dimensions().begin(), shape.dimensions().end());
  std::vector<int64_t> strides(rank, 0);
  const auto& m2m = shape.layout().minor_to_major();
  std::vector<bool> seen(rank, false);
  bool valid = m2m.size() == rank;
  for (int i = 0; valid && i < rank; ++i) {
    valid = m2m[i] >= 0 && m2m[i] < rank && !seen[m2m[i]];
    if (valid) seen[m2m[i]] = true;
  }
  int64_t stride = 1;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = valid ? m2m[i] : rank - 1 - i;
    strides[d] = stride;
    stride *= dims[d];
  }
  const size_t count = value.stored_elements();
  std::vector<int64_t> order(count);
  {
    std::vector<int64_t> index(rank, 0);
    for (size_t k = 0; k < count; ++k) {
      int64_t physical = 0;
      for (int d = 0; d < rank; ++d) physical += index[d] * strides[d];
      order[k] = physical;
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < dims[d]) break;
        index[d] = 0;
      }
    }
  }
  auto place = [&](auto* field, auto get) {
    field->Resize(static_cast<int>(count), {});
    for (size_t k = 0; k < count; ++k) field->Set(order[k], get(k));
  };
  auto bytes = [&](std::string* field, int width, auto get) {
    field->assign(count * width, '\0');
    for (size_t k = 0; k < count; ++k) {
      const uint64_t bits = get(k);
      for (int b = 0; b < width; ++b) {
        (*field)[order[k] * width + b] = static_cast<char>(bits >> (8 * b));
      }
    }
  };
  auto ints = [&](size_t k) { return value.ints.empty() ? 0 : value.ints[k]; };
  auto uints = [&](size_t k) {
    return value.uints.empty() ? static_cast<uint64_t>(ints(k)) : value.uints[k];
  };
  auto floats = [&](size_t k) { return value.floats[k]; };
  switch (shape.element_type()) {
    case xla::PRED:
      place(out->mutable_preds(), [&](size_t k) { return value.preds[k] != 0; });
      return true;
    case xla::S8: bytes(out->mutable_s8s(), 1, ints); return true;
    case xla::S4: bytes(out->mutable_s4s(), 1, ints); return true;
    case xla::S2: bytes(out->mutable_s2s(), 1, ints); return true;
    case xla::S1: bytes(out->mutable_s1s(), 1, ints); return true;
    case xla::U8: bytes(out->mutable_u8s(), 1, uints); return true;
    case xla::U4: bytes(out->mutable_u4s(), 1, uints); return true;
    case xla::U2: bytes(out->mutable_u2s(), 1, uints); return true;
    case xla::U1: bytes(out->mutable_u1s(), 1, uints); return true;
    case xla::S16: bytes(out->mutable_s16s(), 2, ints); return true;
    case xla::U16: bytes(out->mutable_u16s(), 2, uints); return true;
    case xla::S32: place(out->mutable_s32s(), ints); return true;
    case xla::S64: place(out->mutable_s64s(), ints); return true;
    case xla::U32: place(out->mutable_u32s(), uints); return true;
    case xla::U64: place(out->mutable_u64s(), uints); return true;
    case xla::F32:
      if (value.floats.size() != count) return false;
      place(out->mutable_f32s(), floats);
      return true;
    case xla::F64:
      if (value.floats.size() != count) return false;
      place(out->mutable_f64s(), floats);
      return true;
    case xla::BF16:
      if (value.floats.size() != count) return false;
      bytes(out->mutable_bf16s(), 2,
            [&](size_t k) { return uint64_t{FloatToBf16(value.floats[k])}; });
      return true;
    case xla::F16:
      if (value.floats.size() != count) return false;
      bytes(out->mutable_f16s(), 2,
            [&](size_t k) { return uint64_t{FloatToHalf(value.floats[k])}; });
      return true;
    case xla::C64:
    case xla::C128: {
      if (value.complexes.size() != count) return false;
      const bool is_c64 = shape.element_type() == xla::C64;
      if (is_c64) {
        out->mutable_c64s()->Resize(static_cast<int>(2 * count), 0.0f);
      } else {
        out->mutable_c128s()->Resize(static_cast<int>(2 * count), 0.0);
      }
      for (size_t k = 0; k < count; ++k) {
        const std::complex<double> c = value.complexes[k];
        if (is_c64) {
          out->mutable_c64s()->Set(2 * order[k], static_cast<float>(c.real()));
          out->mutable_c64s()->Set(2 * order[k] + 1,
                                   static_cast<float>(c.imag()));
        } else {
          out->mutable_c128s()->Set(2 * order[k], c.real());
          out->mutable_c128s()->Set(2 * order[k] + 1, c.imag());
        }
      }
      return true;
    }
    default:
      // fp8 and narrower float constants: kept elided (the printer writes
      // {...}); their encodings differ per type.
      return false;
  }
}

// ------------------------------------------------------------ encoder --

class Encoder {
 public:
  Encoder(const ParsedFile& file, const Module& module)
      : file_(file), module_(module) {}

  absl::StatusOr<xla::HloModuleProto> Encode() {
    xla::HloModuleProto out;
    out.set_name(ModuleName());
    // Ids first, so references can be resolved in any order.
    int64_t next_computation = 1;
    for (Id c = module_.computations.begin; c < module_.computations.end(); ++c) {
      computation_ids_[c] = next_computation++;
    }
    int64_t next_instruction = 1;
    for (Id c = module_.computations.begin; c < module_.computations.end(); ++c) {
      const Computation& comp = file_.computations[c];
      for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
        instruction_ids_[i] = next_instruction++;
      }
    }
    // Which computations fusions call.
    for (Id c = module_.computations.begin; c < module_.computations.end(); ++c) {
      const Computation& comp = file_.computations[c];
      for (Id i = comp.instructions.begin; i < comp.instructions.end(); ++i) {
        const Instruction& inst = file_.instructions[i];
        if (inst.opcode != Opcode::kFusion) continue;
        for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
          fusion_callees_.insert(file_.computation_refs[r].computation);
        }
      }
    }
    bool scheduled = false;
    for (Id a = module_.header_attributes.begin;
         a < module_.header_attributes.end(); ++a) {
      const Attribute& attr = file_.attributes[a];
      std::string_view key = file_.Text(attr.key);
      std::string_view value = file_.Text(attr.value);
      if (key == "is_scheduled") scheduled = Trim(value) == "true";
      if (key == "frontend_attributes") {
        EncodeFrontendAttributes(value, out.mutable_frontend_attributes());
      }
    }
    for (Id c = module_.computations.begin; c < module_.computations.end(); ++c) {
      absl::Status status = EncodeComputation(c, out.add_computations());
      if (!status.ok()) return status;
      if (c == module_.entry) {
        out.set_entry_computation_name(std::string(file_.Name(file_.computations[c])));
        out.set_entry_computation_id(computation_ids_[c]);
        *out.mutable_host_program_shape() = out.computations().rbegin()->program_shape();
      }
    }
    if (scheduled) {
      auto* sequences = out.mutable_schedule()->mutable_sequences();
      for (const auto& c : out.computations()) {
        if (c.is_fusion_computation()) continue;
        auto& sequence = (*sequences)[c.id()];
        for (const auto& i : c.instructions()) sequence.add_instruction_ids(i.id());
      }
    }
    EncodeStackFrames(out.mutable_stack_frame_index());
    return out;
  }

 private:
  std::string ModuleName() const {
    if (!module_.name.empty()) return std::string(file_.Text(module_.name));
    if (module_.entry != kNone) {
      return absl::StrCat("module_", ToAbsl(file_.Name(file_.computations[module_.entry])));
    }
    return "module";
  }

  void EncodeStackFrames(xla::StackFrameIndexProto* out) {
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

  absl::Status EncodeComputation(Id c, xla::HloComputationProto* out) {
    const Computation& comp = file_.computations[c];
    out->set_name(std::string(file_.Name(comp)));
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

  absl::Status EncodeWithNested(Id i, xla::HloComputationProto* out,
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

  absl::Status EncodeInstruction(Id i, Instr* out) {
    const Instruction& inst = file_.instructions[i];
    out->set_id(instruction_ids_[i]);
    out->set_name(inst.is_nested
                      ? absl::StrCat(ToAbsl(OpcodeName(inst.opcode)), ".anon",
                                     instruction_ids_[i])
                      : std::string(file_.Name(inst)));
    out->set_opcode(std::string(file_.Text(inst.opcode_span)));
    if (inst.shape != kNone) {
      *out->mutable_shape() = EncodeShape(file_, inst.shape);
    }
    for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
      const Operand& operand = file_.operands[o];
      const Id target = operand.nested != kNone ? operand.nested : operand.definition;
      if (target == kNone) {
        return absl::InvalidArgumentError(absl::StrCat(
            "instruction ", ToAbsl(file_.Name(inst)), ": operand '",
            ToAbsl(file_.Text(operand.name)), "' is undefined; fix the text first"));
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
    EncodeCalledComputations(inst, out);
    std::string_view operand_text = Trim(file_.Text(inst.operand_list));
    if (inst.opcode == Opcode::kParameter) {
      int64_t n = 0;
      if (ReadInt(operand_text.substr(1, operand_text.size() - 2), &n)) {
        out->set_parameter_number(n);
      }
    } else if (inst.opcode == Opcode::kConstant && inst.shape != kNone) {
      absl::StatusOr<LiteralShape> shape = LiteralShapeFromParsed(file_, inst.shape);
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
    if (inst.shape == kNone) {
      absl::Status status = InferShape(inst, out);
      if (!status.ok()) return status;
    }
    shapes_[i] = &out->shape();
    return absl::OkStatus();
  }

  // The operand's shape: written inline, or its definition's.
  const xla::ShapeProto* OperandShape(const Operand& operand) {
    const Id target =
        operand.nested != kNone ? operand.nested : operand.definition;
    if (auto it = shapes_.find(target); it != shapes_.end()) return it->second;
    if (operand.shape != kNone) {
      inline_shapes_.push_back(
          std::make_unique<xla::ShapeProto>(EncodeShape(file_, operand.shape)));
      return inline_shapes_.back().get();
    }
    return nullptr;
  }

  // Hand-written text may omit the result shape where XLA's parser infers
  // it; a proto always carries one. The common cases: elementwise ops take
  // their first operand's shape (compare gives pred), tuple and
  // get-tuple-element follow their operands.
  absl::Status InferShape(const Instruction& inst, Instr* out) {
    std::vector<const xla::ShapeProto*> operands;
    for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
      operands.push_back(OperandShape(file_.operands[o]));
    }
    auto fail = [&] {
      return absl::InvalidArgumentError(absl::StrCat(
          "instruction ", ToAbsl(file_.Name(inst)),
          " has no result shape and this converter cannot infer one for ",
          ToAbsl(file_.Text(inst.opcode_span)), "; write the shape"));
    };
    for (const xla::ShapeProto* s : operands) {
      if (!s) return fail();
    }
    if (inst.opcode == Opcode::kTuple) {
      auto* shape = out->mutable_shape();
      shape->set_element_type(xla::TUPLE);
      for (const xla::ShapeProto* s : operands) *shape->add_tuple_shapes() = *s;
      return absl::OkStatus();
    }
    if (inst.opcode == Opcode::kGetTupleElement && operands.size() == 1) {
      const Attribute* index = file_.FindAttribute(inst, "index");
      int64_t n = -1;
      if (index && ReadInt(file_.Text(index->value), &n) && n >= 0 &&
          n < operands[0]->tuple_shapes_size()) {
        *out->mutable_shape() = operands[0]->tuple_shapes(n);
        return absl::OkStatus();
      }
      return fail();
    }
    if (inst.opcode == Opcode::kAfterAll) {
      out->mutable_shape()->set_element_type(xla::TOKEN);
      return absl::OkStatus();
    }
    if ((inst.opcode == Opcode::kWhile || inst.opcode == Opcode::kAddDependency) &&
        !operands.empty()) {
      *out->mutable_shape() = *operands[0];
      return absl::OkStatus();
    }
    static const absl::flat_hash_set<Opcode>* kElementwise =
        new absl::flat_hash_set<Opcode>{
            Opcode::kAbs, Opcode::kAdd, Opcode::kAnd, Opcode::kAtan2,
            Opcode::kCbrt, Opcode::kCeil, Opcode::kClamp, Opcode::kCopy,
            Opcode::kCosine, Opcode::kDivide, Opcode::kExponential,
            Opcode::kExponentialMinusOne, Opcode::kFloor, Opcode::kLog,
            Opcode::kLogPlusOne, Opcode::kLogistic, Opcode::kMaximum,
            Opcode::kMinimum, Opcode::kMultiply, Opcode::kNegate, Opcode::kNot,
            Opcode::kOr, Opcode::kPower, Opcode::kRemainder,
            Opcode::kRoundNearestAfz, Opcode::kRoundNearestEven, Opcode::kRsqrt,
            Opcode::kSign, Opcode::kSine, Opcode::kSqrt, Opcode::kSubtract,
            Opcode::kTan, Opcode::kTanh, Opcode::kXor, Opcode::kShiftLeft,
            Opcode::kShiftRightArithmetic, Opcode::kShiftRightLogical,
            Opcode::kPopcnt, Opcode::kCountLeadingZeros, Opcode::kErf,
            Opcode::kCompare, Opcode::kSelect, Opcode::kOptimizationBarrier,
            Opcode::kOptBarrier, Opcode::kIsFinite};
    if (kElementwise->contains(inst.opcode) && !operands.empty()) {
      // select/clamp: the shape of the value operands, not the predicate.
      const xla::ShapeProto* source =
          inst.opcode == Opcode::kSelect && operands.size() == 3 ? operands[1]
          : inst.opcode == Opcode::kClamp && operands.size() == 3
              ? operands[1]
              : operands[0];
      *out->mutable_shape() = *source;
      if (inst.opcode == Opcode::kCompare || inst.opcode == Opcode::kIsFinite) {
        out->mutable_shape()->set_element_type(xla::PRED);
      }
      return absl::OkStatus();
    }
    absl::Status structural = InferStructuralShape(inst, operands, out);
    if (structural.ok()) return structural;
    return fail();
  }

  // Result shapes that follow from the operands and attributes (dot from
  // its dimension numbers, transpose, reduce, slice, concatenate, pad,
  // dynamic-slice) or from a called computation's root (call, fusion, map).
  // Not found = NotFound; the caller then reports the omission.
  absl::Status InferStructuralShape(
      const Instruction& inst,
      const std::vector<const xla::ShapeProto*>& operands, Instr* out) {
    const absl::Status not_found = absl::NotFoundError("");
    auto ints = [&](std::string_view key, std::vector<int64_t>* list) {
      const Attribute* attr = file_.FindAttribute(inst, key);
      list->clear();
      return attr != nullptr && ReadIntList(file_.Text(attr->value), list);
    };
    auto array = [&](const xla::ShapeProto& like,
                     const std::vector<int64_t>& dims) {
      xla::ShapeProto shape;
      shape.set_element_type(like.element_type());
      for (int64_t d : dims) shape.add_dimensions(d);
      if (like.has_layout()) {
        for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
          shape.mutable_layout()->add_minor_to_major(d);
        }
      }
      return shape;
    };
    // Variadic reduce and reduce-window: one result is the shape itself,
    // several make a tuple.
    auto set_variadic_result = [&](std::vector<xla::ShapeProto>& results) {
      if (results.size() == 1) {
        *out->mutable_shape() = results[0];
        return;
      }
      out->mutable_shape()->set_element_type(xla::TUPLE);
      for (auto& r : results) *out->mutable_shape()->add_tuple_shapes() = r;
    };
    auto valid_dim = [](const xla::ShapeProto& s, int64_t d) {
      return d >= 0 && d < s.dimensions_size();
    };
    const xla::ShapeProto* first = operands.empty() ? nullptr : operands[0];
    if (first && first->element_type() == xla::TUPLE &&
        inst.opcode != Opcode::kCall && inst.opcode != Opcode::kFusion &&
        inst.opcode != Opcode::kConditional) {
      return not_found;
    }
    std::vector<int64_t> list;
    switch (inst.opcode) {
      case Opcode::kReal:
      case Opcode::kImag:
        if (!first) return not_found;
        *out->mutable_shape() = *first;
        out->mutable_shape()->set_element_type(
            first->element_type() == xla::C128 ? xla::F64 : xla::F32);
        return absl::OkStatus();
      case Opcode::kReduceWindow: {
        const size_t n = operands.size() / 2;
        if (n == 0 || operands.size() % 2 != 0) return not_found;
        std::vector<xla::ShapeProto> results;
        for (size_t k = 0; k < n; ++k) {
          const xla::ShapeProto& input = *operands[k];
          if (out->window().dimensions_size() != input.dimensions_size()) {
            return not_found;
          }
          std::vector<int64_t> dims;
          for (int d = 0; d < input.dimensions_size(); ++d) {
            const xla::WindowDimension& w = out->window().dimensions(d);
            const int64_t base = std::max<int64_t>(1, w.base_dilation());
            const int64_t padded =
                (input.dimensions(d) > 0 ? (input.dimensions(d) - 1) * base + 1
                                         : 0) +
                w.padding_low() + w.padding_high();
            const int64_t window =
                (w.size() - 1) * std::max<int64_t>(1, w.window_dilation()) + 1;
            const int64_t stride = std::max<int64_t>(1, w.stride());
            dims.push_back(padded < window ? 0 : (padded - window) / stride + 1);
          }
          results.push_back(array(*operands[n + k], dims));
        }
        set_variadic_result(results);
        return absl::OkStatus();
      }
      case Opcode::kConvolution: {
        if (operands.size() != 2 || !out->has_convolution_dimension_numbers()) {
          return not_found;
        }
        const xla::ShapeProto& input = *operands[0];
        const xla::ShapeProto& kernel = *operands[1];
        const auto& dn = out->convolution_dimension_numbers();
        const int rank = input.dimensions_size();
        const int spatial = dn.input_spatial_dimensions_size();
        if (kernel.dimensions_size() != rank ||
            dn.kernel_spatial_dimensions_size() != spatial ||
            dn.output_spatial_dimensions_size() != spatial ||
            !valid_dim(input, dn.input_batch_dimension()) ||
            !valid_dim(kernel, dn.kernel_output_feature_dimension()) ||
            dn.output_batch_dimension() < 0 ||
            dn.output_batch_dimension() >= rank ||
            dn.output_feature_dimension() < 0 ||
            dn.output_feature_dimension() >= rank) {
          return not_found;
        }
        std::vector<int64_t> dims(rank, 0);
        const int64_t batch_groups =
            std::max<int64_t>(1, out->batch_group_count());
        dims[dn.output_batch_dimension()] =
            input.dimensions(dn.input_batch_dimension()) / batch_groups;
        dims[dn.output_feature_dimension()] =
            kernel.dimensions(dn.kernel_output_feature_dimension());
        for (int k = 0; k < spatial; ++k) {
          const int64_t in_dim = dn.input_spatial_dimensions(k);
          const int64_t kernel_dim = dn.kernel_spatial_dimensions(k);
          const int64_t out_dim = dn.output_spatial_dimensions(k);
          if (!valid_dim(input, in_dim) || !valid_dim(kernel, kernel_dim) ||
              out_dim < 0 || out_dim >= rank) {
            return not_found;
          }
          xla::WindowDimension w;
          if (k < out->window().dimensions_size()) {
            w = out->window().dimensions(k);
          } else {
            w.set_size(kernel.dimensions(kernel_dim));
          }
          const int64_t size = input.dimensions(in_dim);
          const int64_t padded =
              (size > 0 ? (size - 1) * std::max<int64_t>(1, w.base_dilation()) + 1
                        : 0) +
              w.padding_low() + w.padding_high();
          const int64_t window =
              (w.size() - 1) * std::max<int64_t>(1, w.window_dilation()) + 1;
          const int64_t stride = std::max<int64_t>(1, w.stride());
          dims[out_dim] = padded < window ? 0 : (padded - window) / stride + 1;
        }
        *out->mutable_shape() = array(input, dims);
        return absl::OkStatus();
      }
      case Opcode::kGather: {
        // Offset dims carry the slice sizes not collapsed or batching; the
        // others carry the start indices' dims except index_vector_dim.
        if (operands.size() != 2) return not_found;
        const auto& gn = out->gather_dimension_numbers();
        auto listed = [](const auto& field, int64_t d) {
          return std::find(field.begin(), field.end(), d) != field.end();
        };
        std::vector<int64_t> offset_sizes, batch_sizes;
        for (int d = 0; d < out->gather_slice_sizes_size(); ++d) {
          if (!listed(gn.collapsed_slice_dims(), d) &&
              !listed(gn.operand_batching_dims(), d)) {
            offset_sizes.push_back(out->gather_slice_sizes(d));
          }
        }
        const xla::ShapeProto& indices = *operands[1];
        for (int d = 0; d < indices.dimensions_size(); ++d) {
          if (d != gn.index_vector_dim()) {
            batch_sizes.push_back(indices.dimensions(d));
          }
        }
        if (static_cast<int>(offset_sizes.size()) != gn.offset_dims_size()) {
          return not_found;
        }
        const size_t rank = offset_sizes.size() + batch_sizes.size();
        std::vector<int64_t> dims;
        size_t next_offset = 0, next_batch = 0;
        for (size_t d = 0; d < rank; ++d) {
          if (listed(gn.offset_dims(), static_cast<int64_t>(d))) {
            dims.push_back(offset_sizes[next_offset++]);
          } else if (next_batch < batch_sizes.size()) {
            dims.push_back(batch_sizes[next_batch++]);
          } else {
            return not_found;
          }
        }
        *out->mutable_shape() = array(*first, dims);
        return absl::OkStatus();
      }
      case Opcode::kConditional:
      case Opcode::kCall:
      case Opcode::kFusion: {
        const xla::ShapeProto* root = CalledRootShape(inst);
        if (!root) return not_found;
        *out->mutable_shape() = *root;
        return absl::OkStatus();
      }
      case Opcode::kMap: {
        const xla::ShapeProto* root = CalledRootShape(inst);
        if (!root || !first) return not_found;
        *out->mutable_shape() = *first;
        out->mutable_shape()->set_element_type(root->element_type());
        return absl::OkStatus();
      }
      case Opcode::kReverse:
      case Opcode::kReducePrecision:
      case Opcode::kDynamicUpdateSlice:
        if (!first) return not_found;
        *out->mutable_shape() = *first;
        return absl::OkStatus();
      case Opcode::kSort: {
        if (operands.size() == 1) {
          *out->mutable_shape() = *first;
        } else {
          out->mutable_shape()->set_element_type(xla::TUPLE);
          for (const xla::ShapeProto* s : operands) {
            *out->mutable_shape()->add_tuple_shapes() = *s;
          }
        }
        return absl::OkStatus();
      }
      case Opcode::kTranspose: {
        if (!first || !ints("dimensions", &list) ||
            static_cast<int>(list.size()) != first->dimensions_size()) {
          return not_found;
        }
        std::vector<int64_t> dims;
        for (int64_t p : list) {
          if (!valid_dim(*first, p)) return not_found;
          dims.push_back(first->dimensions(p));
        }
        *out->mutable_shape() = array(*first, dims);
        return absl::OkStatus();
      }
      case Opcode::kDot: {
        if (operands.size() < 2) return not_found;
        const xla::ShapeProto& lhs = *operands[0];
        const xla::ShapeProto& rhs = *operands[1];
        std::vector<int64_t> lb, rb, lc, rc;
        ints("lhs_batch_dims", &lb);
        ints("rhs_batch_dims", &rb);
        ints("lhs_contracting_dims", &lc);
        ints("rhs_contracting_dims", &rc);
        auto contains = [](const std::vector<int64_t>& v, int64_t d) {
          return std::find(v.begin(), v.end(), d) != v.end();
        };
        std::vector<int64_t> dims;
        for (int64_t d : lb) {
          if (!valid_dim(lhs, d)) return not_found;
          dims.push_back(lhs.dimensions(d));
        }
        for (int64_t d = 0; d < lhs.dimensions_size(); ++d) {
          if (!contains(lb, d) && !contains(lc, d)) {
            dims.push_back(lhs.dimensions(d));
          }
        }
        for (int64_t d = 0; d < rhs.dimensions_size(); ++d) {
          if (!contains(rb, d) && !contains(rc, d)) {
            dims.push_back(rhs.dimensions(d));
          }
        }
        *out->mutable_shape() = array(lhs, dims);
        return absl::OkStatus();
      }
      case Opcode::kReduce: {
        if (operands.size() < 2 || operands.size() % 2 != 0 ||
            !ints("dimensions", &list)) {
          return not_found;
        }
        const size_t n = operands.size() / 2;
        std::vector<xla::ShapeProto> results;
        for (size_t k = 0; k < n; ++k) {
          const xla::ShapeProto& input = *operands[k];
          std::vector<int64_t> dims;
          for (int64_t d = 0; d < input.dimensions_size(); ++d) {
            if (std::find(list.begin(), list.end(), d) == list.end()) {
              dims.push_back(input.dimensions(d));
            }
          }
          results.push_back(array(*operands[n + k], dims));
        }
        set_variadic_result(results);
        return absl::OkStatus();
      }
      case Opcode::kConcatenate: {
        if (!first || !ints("dimensions", &list) || list.size() != 1 ||
            !valid_dim(*first, list[0])) {
          return not_found;
        }
        std::vector<int64_t> dims(first->dimensions().begin(),
                                  first->dimensions().end());
        dims[list[0]] = 0;
        for (const xla::ShapeProto* s : operands) {
          if (!valid_dim(*s, list[0])) return not_found;
          dims[list[0]] += s->dimensions(list[0]);
        }
        *out->mutable_shape() = array(*first, dims);
        return absl::OkStatus();
      }
      case Opcode::kSlice: {
        if (!first || out->slice_dimensions_size() != first->dimensions_size()) {
          return not_found;
        }
        std::vector<int64_t> dims;
        for (const auto& d : out->slice_dimensions()) {
          const int64_t stride = d.stride() > 0 ? d.stride() : 1;
          dims.push_back(std::max<int64_t>(
              0, (d.limit() - d.start() + stride - 1) / stride));
        }
        *out->mutable_shape() = array(*first, dims);
        return absl::OkStatus();
      }
      case Opcode::kDynamicSlice: {
        if (!first || out->dynamic_slice_sizes_size() != first->dimensions_size()) {
          return not_found;
        }
        std::vector<int64_t> dims(out->dynamic_slice_sizes().begin(),
                                  out->dynamic_slice_sizes().end());
        *out->mutable_shape() = array(*first, dims);
        return absl::OkStatus();
      }
      case Opcode::kPad: {
        if (!first || out->padding_config().dimensions_size() !=
                          first->dimensions_size()) {
          return not_found;
        }
        std::vector<int64_t> dims;
        for (int d = 0; d < first->dimensions_size(); ++d) {
          const auto& p = out->padding_config().dimensions(d);
          const int64_t size = first->dimensions(d);
          dims.push_back(size + p.edge_padding_low() + p.edge_padding_high() +
                         std::max<int64_t>(0, size - 1) * p.interior_padding());
        }
        *out->mutable_shape() = array(*first, dims);
        return absl::OkStatus();
      }
      case Opcode::kGetDimensionSize:
        out->mutable_shape()->set_element_type(xla::S32);
        return absl::OkStatus();
      default:
        return not_found;
    }
  }

  // The root shape of the first computation `inst` calls (to_apply=,
  // calls=): encoded already, or written in the text.
  const xla::ShapeProto* CalledRootShape(const Instruction& inst) {
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      const Id c = file_.computation_refs[r].computation;
      if (c == kNone) continue;
      const Computation& comp = file_.computations[c];
      if (comp.root != kNone) {
        if (auto it = shapes_.find(comp.root); it != shapes_.end()) {
          return it->second;
        }
        if (file_.instructions[comp.root].shape != kNone) {
          inline_shapes_.push_back(std::make_unique<xla::ShapeProto>(
              EncodeShape(file_, file_.instructions[comp.root].shape)));
          return inline_shapes_.back().get();
        }
      }
      if (comp.result_shape != kNone) {
        inline_shapes_.push_back(std::make_unique<xla::ShapeProto>(
            EncodeShape(file_, comp.result_shape)));
        return inline_shapes_.back().get();
      }
      return nullptr;
    }
    return nullptr;
  }

  void EncodeCalledComputations(const Instruction& inst, Instr* out) {
    std::vector<std::pair<std::string_view, Id>> refs;
    for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
      const ComputationRef& ref = file_.computation_refs[r];
      if (ref.computation == kNone || ref.attribute == kNone) continue;
      refs.push_back({file_.Text(file_.attributes[ref.attribute].key),
                      ref.computation});
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
    for (const auto& [key, c] : refs) {
      auto it = computation_ids_.find(c);
      if (it != computation_ids_.end()) out->add_called_computation_ids(it->second);
    }
  }

  void EncodeAttribute(const Instruction& inst, std::string_view key,
                       std::string_view value, Instr* out) {
    std::vector<int64_t> list;
    int64_t n = 0;
    std::string s;
    const bool is_true = Trim(value) == "true";
    if (key == "dimensions" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_dimensions());
    } else if (key == "index" && ReadInt(value, &n)) {
      out->set_tuple_index(n);
    } else if (key == "iota_dimension" && ReadInt(value, &n)) {
      out->add_dimensions(n);
    } else if (key == "direction") {
      out->set_comparison_direction(std::string(Trim(value)));
    } else if (key == "type" && inst.opcode == Opcode::kCompare) {
      out->set_comparison_type(std::string(Trim(value)));
    } else if (key == "kind" && inst.opcode == Opcode::kFusion) {
      out->set_fusion_kind(std::string(Trim(value)));
    } else if (key == "custom_call_target" && ReadString(value, &s)) {
      out->set_custom_call_target(s);
    } else if (key == "slice") {
      for (std::string_view part : Split(StripBraces(value), ',')) {
        std::string_view dim = Trim(part);
        if (dim.size() < 2) continue;
        std::vector<int64_t> bounds;
        for (std::string_view b : Split(dim.substr(1, dim.size() - 2), ':')) {
          if (ReadInt(b, &n)) bounds.push_back(n);
        }
        if (bounds.size() < 2) continue;
        auto* d = out->add_slice_dimensions();
        d->set_start(bounds[0]);
        d->set_limit(bounds[1]);
        d->set_stride(bounds.size() > 2 ? bounds[2] : 1);
      }
    } else if (key == "dynamic_slice_sizes" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_dynamic_slice_sizes());
    } else if (key == "padding") {
      std::vector<std::vector<int64_t>> pads;
      if (ReadPads(value, &pads)) {
        for (const auto& p : pads) {
          auto* d = out->mutable_padding_config()->add_dimensions();
          d->set_edge_padding_low(p[0]);
          d->set_edge_padding_high(p[1]);
          if (p.size() > 2) d->set_interior_padding(p[2]);
        }
      }
    } else if (key == "lhs_batch_dims" && ReadIntList(value, &list)) {
      SetList(list, DotDims(inst, out)->mutable_lhs_batch_dimensions());
    } else if (key == "lhs_contracting_dims" && ReadIntList(value, &list)) {
      SetList(list, DotDims(inst, out)->mutable_lhs_contracting_dimensions());
    } else if (key == "rhs_batch_dims" && ReadIntList(value, &list)) {
      SetList(list, DotDims(inst, out)->mutable_rhs_batch_dimensions());
    } else if (key == "rhs_contracting_dims" && ReadIntList(value, &list)) {
      SetList(list, DotDims(inst, out)->mutable_rhs_contracting_dimensions());
    } else if (key == "lhs_ragged_dims" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_ragged_dot_dimension_numbers()
                        ->mutable_lhs_ragged_dimensions());
    } else if (key == "rhs_group_dims" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_ragged_dot_dimension_numbers()
                        ->mutable_rhs_group_dimensions());
    } else if (key == "offset_dims" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_gather_dimension_numbers()->mutable_offset_dims());
    } else if (key == "collapsed_slice_dims" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_gather_dimension_numbers()
                        ->mutable_collapsed_slice_dims());
    } else if (key == "start_index_map" && ReadIntList(value, &list)) {
      SetList(list,
              out->mutable_gather_dimension_numbers()->mutable_start_index_map());
    } else if (key == "operand_batching_dims" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_gather_dimension_numbers()
                        ->mutable_operand_batching_dims());
    } else if (key == "start_indices_batching_dims" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_gather_dimension_numbers()
                        ->mutable_start_indices_batching_dims());
    } else if (key == "slice_sizes" && inst.opcode == Opcode::kGather &&
               ReadIntList(value, &list)) {
      SetList(list, out->mutable_gather_slice_sizes());
    } else if (key == "index_vector_dim" && ReadInt(value, &n)) {
      if (inst.opcode == Opcode::kScatter) {
        out->mutable_scatter_dimension_numbers()->set_index_vector_dim(n);
      } else {
        out->mutable_gather_dimension_numbers()->set_index_vector_dim(n);
      }
    } else if (key == "update_window_dims" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_scatter_dimension_numbers()
                        ->mutable_update_window_dims());
    } else if (key == "inserted_window_dims" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_scatter_dimension_numbers()
                        ->mutable_inserted_window_dims());
    } else if (key == "scatter_dims_to_operand_dims" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_scatter_dimension_numbers()
                        ->mutable_scatter_dims_to_operand_dims());
    } else if (key == "input_batching_dims" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_scatter_dimension_numbers()
                        ->mutable_input_batching_dims());
    } else if (key == "scatter_indices_batching_dims" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_scatter_dimension_numbers()
                        ->mutable_scatter_indices_batching_dims());
    } else if (key == "indices_are_sorted") {
      out->set_indices_are_sorted(is_true);
    } else if (key == "unique_indices") {
      out->set_unique_indices(is_true);
    } else if (key == "channel_id" && ReadInt(value, &n)) {
      out->set_channel_id(n);
    } else if (key == "replica_groups") {
      EncodeReplicaGroups(value, out);
    } else if (key == "source_target_pairs") {
      std::vector<std::vector<int64_t>> pairs;
      if (ReadIntListList(value, &pairs)) {
        for (const auto& p : pairs) {
          if (p.size() != 2) continue;
          auto* pair = out->add_source_target_pairs();
          pair->set_source(p[0]);
          pair->set_target(p[1]);
        }
      }
    } else if (key == "constrain_layout") {
      out->set_constrain_layout(is_true);
    } else if (key == "use_global_device_ids") {
      out->set_use_global_device_ids(is_true);
    } else if (key == "is_stable") {
      out->set_is_stable(is_true);
    } else if (key == "is_host_transfer") {
      out->set_is_host_transfer(is_true);
    } else if (key == "custom_call_has_side_effect") {
      out->set_custom_call_has_side_effect(is_true);
    } else if (key == "is_composite") {
      out->set_is_composite(is_true);
    } else if (key == "epsilon") {
      double d = 0;
      std::string_view t = Trim(value);
      auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
      if (ec == std::errc()) out->set_epsilon(static_cast<float>(d));
    } else if (key == "feature_index" && ReadInt(value, &n)) {
      out->set_feature_index(n);
    } else if (key == "exponent_bits" && ReadInt(value, &n)) {
      out->set_exponent_bits(n);
    } else if (key == "mantissa_bits" && ReadInt(value, &n)) {
      out->set_mantissa_bits(n);
    } else if (key == "feature_group_count" && ReadInt(value, &n)) {
      out->set_feature_group_count(n);
    } else if (key == "batch_group_count" && ReadInt(value, &n)) {
      out->set_batch_group_count(n);
    } else if (key == "k" && ReadInt(value, &n)) {
      out->set_k(n);
    } else if (key == "largest") {
      out->set_largest(is_true);
    } else if (key == "delta" && ReadInt(value, &n)) {
      out->set_delta(n);
    } else if (key == "num_carries" && ReadInt(value, &n)) {
      out->set_num_carries(n);
    } else if (key == "is_reverse") {
      out->set_is_reverse(is_true);
    } else if (key == "cross_program_prefetch_index" && ReadInt(value, &n)) {
      out->set_cross_program_prefetch_index(n);
    } else if (key == "async_execution_thread" && ReadString(value, &s)) {
      out->set_async_execution_thread(s);
    } else if (key == "infeed_config" && ReadString(value, &s)) {
      out->set_infeed_config(s);
    } else if (key == "outfeed_config" && ReadString(value, &s)) {
      out->set_outfeed_config(s);
    } else if (key == "fft_length" && ReadIntList(value, &list)) {
      SetList(list, out->mutable_fft_length());
    } else if (key == "fft_type") {
      xla::FftType type;
      if (xla::FftType_Parse(std::string(Trim(value)), &type)) out->set_fft_type(type);
    } else if (key == "distribution") {
      xla::RandomDistribution d;
      if (xla::RandomDistribution_Parse(
              absl::AsciiStrToUpper(ToAbsl(Trim(value))), &d)) {
        out->set_distribution(d);
      }
    } else if (key == "algorithm") {
      const std::string upper = absl::AsciiStrToUpper(ToAbsl(Trim(value)));
      xla::RandomAlgorithm r;
      xla::PrecisionConfig::Algorithm a;
      if (inst.opcode == Opcode::kRngBitGenerator) {
        if (xla::RandomAlgorithm_Parse(upper, &r)) out->set_rng_algorithm(r);
      } else if (xla::PrecisionConfig::Algorithm_Parse("ALG_" + upper, &a)) {
        out->mutable_precision_config()->set_algorithm(a);
      }
    } else if (key == "operand_precision") {
      for (std::string_view p : Split(StripBraces(value), ',')) {
        xla::PrecisionConfig::Precision precision;
        if (xla::PrecisionConfig::Precision_Parse(
                absl::AsciiStrToUpper(ToAbsl(Trim(p))), &precision)) {
          out->mutable_precision_config()->add_operand_precision(precision);
        }
      }
    } else if (key == "api_version") {
      xla::CustomCallApiVersion v;
      if (xla::CustomCallApiVersion_Parse(
              absl::AsciiStrToUpper(ToAbsl(Trim(value))), &v)) {
        out->set_custom_call_api_version(v);
      }
    } else if (key == "schedule") {
      xla::CustomCallSchedule v;
      if (xla::CustomCallSchedule_Parse(
              absl::AsciiStrToUpper(ToAbsl(Trim(value))), &v)) {
        out->set_custom_call_schedule(v);
      }
    } else if (key == "transpose_a") {
      xla::TriangularSolveOptions::Transpose t;
      if (xla::TriangularSolveOptions::Transpose_Parse(std::string(Trim(value)), &t)) {
        out->mutable_triangular_solve_options()->set_transpose_a(t);
      }
    } else if (key == "left_side") {
      out->mutable_triangular_solve_options()->set_left_side(is_true);
    } else if (key == "unit_diagonal") {
      out->mutable_triangular_solve_options()->set_unit_diagonal(is_true);
    } else if (key == "lower") {
      if (inst.opcode == Opcode::kCholesky) {
        out->mutable_cholesky_options()->set_lower(is_true);
      } else {
        out->mutable_triangular_solve_options()->set_lower(is_true);
      }
    } else if (key == "window") {
      EncodeWindow(value, out->mutable_window());
    } else if (key == "dim_labels") {
      EncodeDimLabels(Trim(value), out->mutable_convolution_dimension_numbers());
    } else if (key == "outfeed_shape") {
      // Shapes inside attributes are not in the syntax model's tables.
    } else if (key == "parameter_replication") {
      for (std::string_view b : Split(StripBraces(value), ',')) {
        out->mutable_parameter_replication()->add_replicated_at_leaf_buffers(
            Trim(b) == "true");
      }
    } else if (key == "metadata") {
      EncodeMetadata(value, out->mutable_metadata());
    } else if (key == "backend_config") {
      out->set_backend_config(ReadStringOrDict(value));
    } else if (key == "frontend_attributes") {
      EncodeFrontendAttributes(value, out->mutable_frontend_attributes());
    } else if (key == "sharding") {
      absl::StatusOr<HloShardingValue> sharding = DecodeSharding(Trim(value));
      if (sharding.ok() && !sharding->is_named) {
        EncodeSharding(*sharding, out->mutable_sharding());
      }
    }
  }

  xla::DotDimensionNumbers* DotDims(const Instruction& inst, Instr* out) {
    if (inst.opcode == Opcode::kRaggedDot) {
      return out->mutable_ragged_dot_dimension_numbers()
          ->mutable_dot_dimension_numbers();
    }
    return out->mutable_dot_dimension_numbers();
  }

  void EncodeReplicaGroups(std::string_view value, Instr* out) {
    value = Trim(value);
    if (!value.empty() && value.front() == '[') {
      // [G,S]<=[dims]T(perm)
      auto* iota = out->mutable_iota_collective_device_list();
      size_t close = value.find(']');
      std::vector<int64_t> gs;
      if (close == std::string_view::npos ||
          !ReadIntList(value.substr(1, close - 1), &gs) || gs.size() != 2) {
        return;
      }
      iota->set_num_replica_groups(gs[0]);
      iota->set_num_devices_per_group(gs[1]);
      size_t open = value.find('[', close);
      size_t end = value.find(']', open);
      if (open == std::string_view::npos || end == std::string_view::npos) return;
      std::vector<int64_t> dims;
      if (ReadIntList(value.substr(open + 1, end - open - 1), &dims)) {
        SetList(dims, iota->mutable_iota_reshape_dims());
      }
      size_t t = value.find("T(", end);
      if (t != std::string_view::npos) {
        size_t t_end = value.find(')', t);
        std::vector<int64_t> perm;
        if (t_end != std::string_view::npos &&
            ReadIntList(value.substr(t + 2, t_end - t - 2), &perm)) {
          for (int64_t p : perm) iota->add_iota_transpose_perm(p);
        }
      }
      return;
    }
    std::vector<std::vector<int64_t>> groups;
    if (!ReadIntListList(value, &groups)) return;
    auto* list = out->mutable_collective_device_list();
    for (const auto& g : groups) SetList(g, list->add_replica_groups()->mutable_replica_ids());
  }

  static void EncodeWindow(std::string_view value, xla::Window* window) {
    std::vector<int64_t> size, stride, lhs, rhs, reversal;
    std::vector<std::vector<int64_t>> pads;
    for (auto [key, v] : ReadKeyValues(value)) {
      if (key == "size") ReadDxD(v, &size);
      else if (key == "stride") ReadDxD(v, &stride);
      else if (key == "lhs_dilate") ReadDxD(v, &lhs);
      else if (key == "rhs_dilate") ReadDxD(v, &rhs);
      else if (key == "rhs_reversal") ReadDxD(v, &reversal);
      else if (key == "pad") ReadPads(v, &pads);
    }
    for (size_t i = 0; i < size.size(); ++i) {
      auto* d = window->add_dimensions();
      d->set_size(size[i]);
      d->set_stride(i < stride.size() ? stride[i] : 1);
      d->set_base_dilation(i < lhs.size() ? lhs[i] : 1);
      d->set_window_dilation(i < rhs.size() ? rhs[i] : 1);
      d->set_window_reversal(i < reversal.size() && reversal[i] != 0);
      if (i < pads.size()) {
        d->set_padding_low(pads[i][0]);
        d->set_padding_high(pads[i][1]);
      }
    }
  }

  // b01f_01io->b01f: each character's position is its dimension number.
  static void EncodeDimLabels(std::string_view labels,
                              xla::ConvolutionDimensionNumbers* d) {
    size_t underscore = labels.find('_');
    size_t arrow = labels.find("->");
    if (underscore == std::string_view::npos || arrow == std::string_view::npos ||
        arrow < underscore) {
      return;
    }
    std::string_view lhs = labels.substr(0, underscore);
    std::string_view rhs = labels.substr(underscore + 1, arrow - underscore - 1);
    std::string_view out = labels.substr(arrow + 2);
    auto spatial = [](std::string_view side, auto* field) {
      for (char digit = '0'; digit <= '9'; ++digit) {
        size_t at = side.find(digit);
        if (at == std::string_view::npos) break;
        field->Add(static_cast<int64_t>(at));
      }
    };
    auto pos = [](std::string_view side, char c) -> int64_t {
      size_t at = side.find(c);
      return at == std::string_view::npos ? 0 : static_cast<int64_t>(at);
    };
    d->set_input_batch_dimension(pos(lhs, 'b'));
    d->set_input_feature_dimension(pos(lhs, 'f'));
    spatial(lhs, d->mutable_input_spatial_dimensions());
    d->set_kernel_input_feature_dimension(pos(rhs, 'i'));
    d->set_kernel_output_feature_dimension(pos(rhs, 'o'));
    spatial(rhs, d->mutable_kernel_spatial_dimensions());
    d->set_output_batch_dimension(pos(out, 'b'));
    d->set_output_feature_dimension(pos(out, 'f'));
    spatial(out, d->mutable_output_spatial_dimensions());
  }

  const ParsedFile& file_;
  const Module& module_;
  absl::flat_hash_map<Id, int64_t> computation_ids_;
  absl::flat_hash_map<Id, int64_t> instruction_ids_;
  absl::flat_hash_set<Id> fusion_callees_;
  // Result shapes of encoded instructions (for inference), by table id.
  absl::flat_hash_map<Id, const xla::ShapeProto*> shapes_;
  std::vector<std::unique_ptr<xla::ShapeProto>> inline_shapes_;
};

void EncodeLayoutExtras(std::string_view text, xla::LayoutProto* layout);

void EncodeShapeImpl(const ParsedFile& file, Id id, xla::ShapeProto* out,
                     int depth) {
  if (id == kNone || id >= file.shapes.size() || depth > kMaxShapeDepth) return;
  const Shape& shape = file.shapes[id];
  out->set_element_type(static_cast<xla::PrimitiveType>(shape.element_type));
  // A buffer b(s) keeps its one element shape as tuple element 0.
  if (shape.is_tuple() || shape.element_type == PrimitiveType::kBuffer) {
    for (Id k = shape.tuple.begin; k < shape.tuple.end(); ++k) {
      EncodeShapeImpl(file, file.shape_ids[k], out->add_tuple_shapes(),
                      depth + 1);
    }
    return;
  }
  for (Id k = shape.dims.begin; k < shape.dims.end(); ++k) {
    out->add_dimensions(file.ints[k]);
  }
  bool any_dynamic = false;
  for (Id k = shape.dynamic.begin; k < shape.dynamic.end(); ++k) {
    any_dynamic |= file.ints[k] != 0;
  }
  if (any_dynamic) {
    for (Id k = shape.dynamic.begin; k < shape.dynamic.end(); ++k) {
      out->add_is_dynamic_dimension(file.ints[k] != 0);
    }
  }
  if (shape.layout == kNone) return;
  const Layout& layout = file.layouts[shape.layout];
  auto* l = out->mutable_layout();
  for (Id k = layout.minor_to_major.begin; k < layout.minor_to_major.end(); ++k) {
    l->add_minor_to_major(file.ints[k]);
  }
  for (Id t = layout.tiles.begin; t < layout.tiles.end(); ++t) {
    auto* tile = l->add_tiles();
    const Tile& parsed = file.tiles[t];
    for (Id k = parsed.dims.begin; k < parsed.dims.end(); ++k) {
      const int64_t d = file.ints[k];
      // XLA's combine-dimension sentinel is INT64_MIN.
      tile->add_dimensions(d == kTileCombineDim ? INT64_MIN : d);
    }
  }
  l->set_element_size_in_bits(layout.element_size_in_bits);
  l->set_memory_space(layout.memory_space);
  l->set_tail_padding_alignment_in_elements(layout.tail_padding_alignment);
  l->set_dynamic_shape_metadata_prefix_bytes(
      layout.dynamic_metadata_prefix_bytes);
  l->set_index_primitive_type(
      static_cast<xla::PrimitiveType>(layout.index_type));
  l->set_pointer_primitive_type(
      static_cast<xla::PrimitiveType>(layout.pointer_type));
  EncodeLayoutExtras(file.Text(layout.extras), l);
}

}  // namespace

namespace {

// The layout items the parser keeps as raw text: D(D,C+~) dim level types
// (+ = not unique, ~ = not ordered) and SC(dim:i,j)(...) split configs.
// P(physical shape) is read back through the parser.
void EncodeLayoutExtras(std::string_view text, xla::LayoutProto* layout) {
  size_t i = 0;
  while (i < text.size()) {
    size_t name_end = i;
    while (name_end < text.size() && text[name_end] != '(') ++name_end;
    const std::string_view name = Trim(text.substr(i, name_end - i));
    // Each '(' ... ')' group after the name, balanced.
    size_t at = name_end;
    while (at < text.size() && text[at] == '(') {
      int open = 0;
      size_t close = at;
      for (; close < text.size(); ++close) {
        if (text[close] == '(') ++open;
        if (text[close] == ')' && --open == 0) break;
      }
      if (close >= text.size()) return;
      const std::string_view inside = text.substr(at + 1, close - at - 1);
      if (name == "D") {
        for (std::string_view item : Split(inside, ',')) {
          item = Trim(item);
          if (item.empty()) continue;
          const char kind = item[0];
          layout->add_dim_level_types(kind == 'C'   ? xla::DIM_COMPRESSED
                                      : kind == 'S' ? xla::DIM_SINGLETON
                                      : kind == 'H' ? xla::DIM_LOOSE_COMPRESSED
                                                    : xla::DIM_DENSE);
          layout->add_dim_unique(item.find('+') == std::string_view::npos);
          layout->add_dim_ordered(item.find('~') == std::string_view::npos);
        }
      } else if (name == "P" && inside.find("P(") == std::string_view::npos) {
        // The parser keeps P(...) as text; a one-instruction module reads
        // the shape (one level: a physical shape with its own P is skipped).
        const std::string probe = absl::StrCat(
            "HloModule p\nENTRY e {\n  ROOT p = ", ToAbsl(inside),
            " parameter(0)\n}\n");
        std::unique_ptr<ParsedFile> parsed = Parse(probe);
        if (!parsed->HasErrors() && parsed->instructions.size() == 1 &&
            parsed->instructions[0].shape != kNone) {
          *layout->mutable_physical_shape() =
              EncodeShape(*parsed, parsed->instructions[0].shape);
        }
      } else if (name == "SC") {
        const size_t colon = inside.find(':');
        int64_t dimension = 0;
        std::vector<int64_t> indices;
        if (colon != std::string_view::npos &&
            ReadInt(inside.substr(0, colon), &dimension) &&
            ReadIntList(inside.substr(colon + 1), &indices)) {
          auto* split = layout->add_split_configs();
          split->set_dimension(dimension);
          for (int64_t index : indices) split->add_split_indices(index);
        }
      }
      at = close + 1;
    }
    i = at > name_end ? at : name_end + 1;
  }
}

}  // namespace

xla::ShapeProto EncodeShape(const ParsedFile& file, Id shape) {
  xla::ShapeProto out;
  EncodeShapeImpl(file, shape, &out, 0);
  return out;
}

absl::StatusOr<xla::HloModuleProto> EncodeModule(const ParsedFile& file,
                                                 Id module) {
  if (module >= file.modules.size()) {
    return absl::InvalidArgumentError("the text holds no HLO module");
  }
  for (const Diagnostic& d : file.diagnostics) {
    if (d.severity != Severity::kError) continue;
    const LineIndex& lines = file.lines();
    return absl::InvalidArgumentError(absl::StrCat(
        "not valid HLO: line ", lines.LineOf(d.span.begin) + 1, ": ",
        d.message));
  }
  return Encoder(file, file.modules[module]).Encode();
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
