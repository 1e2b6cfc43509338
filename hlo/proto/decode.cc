#include "hlo/proto/decode.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <optional>
#include <utility>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/large_buffer.h"
#include "base/strings.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/reflection.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "hlo/proto/decode_internal.h"
#include "hlo/proto/run_hlo_module.pb.h"

namespace hlo::proto {
namespace decode_internal {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::io::CodedInputStream;

void Configure(CodedInputStream& in) {
  in.SetTotalBytesLimit(INT_MAX);
  in.SetRecursionLimit(kMaxDepth);
}
const uint8_t* Data(std::string_view bytes) {
  return reinterpret_cast<const uint8_t*>(bytes.data());
}

bool ParseExactly(std::string_view bytes, Message* message) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return false;
  CodedInputStream in(Data(bytes), static_cast<int>(bytes.size()));
  Configure(in);
  return message->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

// --------------------------------------------------------- plausibility --

// Unknown fields down to `depth` levels: a message of the wrong type parses
// "successfully" but leaves its bytes as unknown fields.
int64_t CountUnknownFields(const Message& message, int depth) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  int64_t count = reflection->GetUnknownFields(message).field_count();
  if (depth <= 0) return count;
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      const int n = reflection->FieldSize(message, field);
      for (int i = 0; i < n; ++i) {
        count += CountUnknownFields(
            reflection->GetRepeatedMessage(message, field, i), depth - 1);
      }
    } else {
      count +=
          CountUnknownFields(reflection->GetMessage(message, field), depth - 1);
    }
  }
  return count;
}

bool PlausibleModule(const xla::HloModuleProto& module) {
  if (module.computations_size() == 0) return false;
  for (const auto& computation : module.computations()) {
    if (computation.name().empty()) return false;
    for (const auto& instruction : computation.instructions()) {
      if (instruction.opcode().empty()) return false;
    }
  }
  return true;
}

}  // namespace decode_internal

namespace {

using decode_internal::CountUnknownFields;
using decode_internal::HasTopLevelField;
using decode_internal::kMaxDepth;
using decode_internal::ParseExactly;
using decode_internal::PlausibleModule;
using decode_internal::PrescreenClean;
using decode_internal::TryChunked;
using decode_internal::WalkWire;
using decode_internal::WireError;
using google::protobuf::Message;

// Protobuf logs (to stderr) on every failed parse, e.g. invalid UTF-8 in a
// string field; while we probe candidate types those are expected.
void SilenceProtobufLogs() {
  static std::once_flag once;
  std::call_once(once, [] {
    google::protobuf::SetLogHandler([](google::protobuf::LogLevel, const char*,
                                       int, const std::string&) {});
  });
}

bool PlausibleLiteral(const xla::LiteralProto& literal) {
  if (!literal.has_shape()) return false;
  const int type = literal.shape().element_type();
  return type != xla::PRIMITIVE_TYPE_INVALID;
}

bool AllPlausible(
    const google::protobuf::RepeatedPtrField<xla::LiteralProto>& literals) {
  for (const auto& literal : literals) {
    if (!PlausibleLiteral(literal)) return false;
  }
  return true;
}

// A candidate decoding: the message, whether its key fields are there, and
// how many unknown fields it left.
struct Candidate {
  ProtoKind kind;
  std::unique_ptr<Message> message;
  bool plausible = false;
  int64_t unknown = 0;
};

bool IsPlausible(ProtoKind kind, const Message& message) {
  switch (kind) {
    case ProtoKind::kHloSnapshot: {
      const auto& m = static_cast<const xla::HloSnapshot&>(message);
      const bool module = m.has_hlo() && m.hlo().has_hlo_module() &&
                          PlausibleModule(m.hlo().hlo_module());
      const bool literals = (m.arguments_size() > 0 || m.has_result()) &&
                            AllPlausible(m.arguments()) &&
                            (!m.has_result() || PlausibleLiteral(m.result()));
      if (m.has_hlo() && !module) return false;
      // A platform name ("Host", "CUDA"); a LiteralProto read as this
      // string (RunHloModuleIterationLiterals field 4) is not one.
      for (char c : m.execution_platform()) {
        if (c < 0x20 || c > 0x7e) return false;
      }
      return module || literals;
    }
    case ProtoKind::kHloUnoptimizedSnapshot: {
      const auto& m = static_cast<const xla::HloUnoptimizedSnapshot&>(message);
      if (m.has_hlo_module() && !PlausibleModule(m.hlo_module())) return false;
      bool any_argument = false;
      for (const auto& partition : m.partitions()) {
        if (!AllPlausible(partition.arguments())) return false;
        any_argument |= partition.arguments_size() > 0;
      }
      // Without partitions it is wire-identical to an HloProto holding only
      // a module; that reading is the more likely one (tried next).
      return m.partitions_size() > 0 && (m.has_hlo_module() || any_argument);
    }
    case ProtoKind::kHloProto: {
      const auto& m = static_cast<const xla::HloProto&>(message);
      return m.has_hlo_module() && PlausibleModule(m.hlo_module());
    }
    case ProtoKind::kHloModuleProto:
      return PlausibleModule(static_cast<const xla::HloModuleProto&>(message));
    case ProtoKind::kRunHloModuleIterationLiterals: {
      const auto& m =
          static_cast<const xla::RunHloModuleIterationLiterals&>(message);
      if (m.arguments_size() == 0 && !m.has_result() &&
          !m.has_reference_result()) {
        return false;
      }
      return AllPlausible(m.arguments()) &&
             (!m.has_result() || PlausibleLiteral(m.result())) &&
             (!m.has_reference_result() ||
              PlausibleLiteral(m.reference_result()));
    }
    case ProtoKind::kChunkedHloUnoptimizedSnapshot:
      break;
  }
  return false;
}

// The message type of each kind, as its default instance: what NewMessage
// makes and what the hollowing walks.
const Message& Prototype(ProtoKind kind) {
  switch (kind) {
    case ProtoKind::kHloSnapshot:
      return xla::HloSnapshot::default_instance();
    case ProtoKind::kHloUnoptimizedSnapshot:
    case ProtoKind::kChunkedHloUnoptimizedSnapshot:
      return xla::HloUnoptimizedSnapshot::default_instance();
    case ProtoKind::kHloProto:
      return xla::HloProto::default_instance();
    case ProtoKind::kHloModuleProto:
      return xla::HloModuleProto::default_instance();
    case ProtoKind::kRunHloModuleIterationLiterals:
      break;
  }
  return xla::RunHloModuleIterationLiterals::default_instance();
}

// A new message of the kind, on `arena` when given (then the arena owns
// it), else on the heap (then the caller does).
Message* NewMessage(ProtoKind kind, google::protobuf::Arena* arena = nullptr) {
  return Prototype(kind).New(arena);
}

void AddLiterals(
    const google::protobuf::RepeatedPtrField<xla::LiteralProto>& literals,
    std::string_view prefix, DecodedProto* out) {
  for (int i = 0; i < literals.size(); ++i) {
    out->literals.push_back(LabeledLiteral{
        absl::StrCat(base::ToAbsl(prefix), "argument ", i), literals[i], -1});
  }
}

// Moves the decoded message's contents into the result.
void Extract(ProtoKind kind, Message& message, DecodedProto* out) {
  switch (kind) {
    case ProtoKind::kHloSnapshot: {
      auto& m = static_cast<xla::HloSnapshot&>(message);
      if (m.hlo().has_hlo_module()) {
        out->module = m.mutable_hlo()->mutable_hlo_module();
      }
      AddLiterals(m.arguments(), "", out);
      if (m.has_result()) out->literals.push_back({"result", m.result(), -1});
      out->execution_platform = m.execution_platform();
      break;
    }
    case ProtoKind::kHloUnoptimizedSnapshot:
    case ProtoKind::kChunkedHloUnoptimizedSnapshot: {
      auto& m = static_cast<xla::HloUnoptimizedSnapshot&>(message);
      if (m.has_hlo_module()) out->module = m.mutable_hlo_module();
      for (int p = 0; p < m.partitions_size(); ++p) {
        AddLiterals(m.partitions(p).arguments(),
                    m.partitions_size() > 1 ? absl::StrCat("partition ", p, " ")
                                            : std::string(),
                    out);
      }
      break;
    }
    case ProtoKind::kHloProto: {
      auto& m = static_cast<xla::HloProto&>(message);
      out->module = m.mutable_hlo_module();
      break;
    }
    case ProtoKind::kHloModuleProto:
      out->module = static_cast<xla::HloModuleProto*>(&message);
      break;
    case ProtoKind::kRunHloModuleIterationLiterals: {
      auto& m = static_cast<xla::RunHloModuleIterationLiterals&>(message);
      AddLiterals(m.arguments(), "", out);
      if (m.has_result()) out->literals.push_back({"result", m.result(), -1});
      if (m.has_reference_result()) {
        out->literals.push_back({"reference result", m.reference_result(), -1});
      }
      break;
    }
  }
}

// An arena for the hollow module's messages. A module's signature alone
// can hold thousands of shapes, and protobuf's blocks of at most 8 KB,
// each a malloc, were faulted in 4 KB at a time: a large hollow gets a
// first block in huge pages sized for it (only what is used is touched).
struct MessageArena {
  base::LargeBuffer block;
  google::protobuf::Arena arena;

  explicit MessageArena(base::LargeBuffer first)
      : block(std::move(first)), arena([this] {
          google::protobuf::ArenaOptions options;
          options.initial_block = block.data();
          options.initial_block_size = block.size();
          return options;
        }()) {}

  static std::shared_ptr<MessageArena> For(size_t hollow_bytes) {
    constexpr size_t kLargeHollow = size_t{64} << 10;
    base::LargeBuffer first;
    if (hollow_bytes >= kLargeHollow) {
      // Messages take a few times their wire size.
      first = base::LargeBuffer::Allocate(
          std::max(4 * hollow_bytes, base::LargeBuffer::kMapFrom));
    }
    return std::make_shared<MessageArena>(std::move(first));
  }
};

// The fast path's parse with the instructions left as wire bytes; nullopt
// when hollowing fails or the hollow message is not a plausible `kind` (the
// whole parse then decides).
std::optional<DecodedProto> DecodeDeferred(std::string_view bytes,
                                           ProtoKind kind) {
  if (kind == ProtoKind::kRunHloModuleIterationLiterals) return std::nullopt;
  std::string hollow;
  DecodedProto out;
  if (!decode_internal::HollowInstructions(
          bytes, Prototype(kind).GetDescriptor(), &hollow, &out)) {
    return std::nullopt;
  }
  auto arena = MessageArena::For(hollow.size());
  Message* message = NewMessage(kind, &arena->arena);
  if (!ParseExactly(hollow, message) || !IsPlausible(kind, *message)) {
    return std::nullopt;
  }
  out.kind = kind;
  Extract(kind, *message, &out);
  if (!out.module || static_cast<size_t>(out.module->computations_size()) !=
                         out.deferred_instructions.size()) {
    return std::nullopt;
  }
  out.deferred = true;
  out.storage = std::move(arena);
  return out;
}

}  // namespace

std::string_view ProtoKindName(ProtoKind kind) {
  switch (kind) {
    case ProtoKind::kHloSnapshot:
      return "HloSnapshot";
    case ProtoKind::kHloUnoptimizedSnapshot:
      return "HloUnoptimizedSnapshot";
    case ProtoKind::kChunkedHloUnoptimizedSnapshot:
      return "HloUnoptimizedSnapshot (chunked large-snapshot format)";
    case ProtoKind::kHloProto:
      return "HloProto";
    case ProtoKind::kHloModuleProto:
      return "HloModuleProto";
    case ProtoKind::kRunHloModuleIterationLiterals:
      return "RunHloModuleIterationLiterals";
  }
  return "?";
}

bool StartsWithHloModule(std::string_view bytes) {
  const size_t first = bytes.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos &&
         bytes.substr(first, 9) == "HloModule";
}

namespace {

bool IsBinaryByte(uint8_t c) {
  return c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f';
}

}  // namespace

bool LooksLikeBinaryProto(std::string_view bytes) {
  if (IsGzip(bytes)) return true;
  const size_t n = std::min<size_t>(bytes.size(), 64 * 1024);
  size_t i = 0;
#ifdef __SSE2__
  // Every text file is read this far: 16 bytes a step, since a byte at a
  // time cost 4% of `check`.
  const __m128i control_max = _mm_set1_epi8(0x1f);
  const __m128i allowed[] = {_mm_set1_epi8('\n'), _mm_set1_epi8('\r'),
                             _mm_set1_epi8('\t'), _mm_set1_epi8('\f')};
  for (; i + 16 <= n; i += 16) {
    const __m128i c =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes.data() + i));
    __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(c, control_max), control_max);
    for (const __m128i& a : allowed) {
      control = _mm_andnot_si128(_mm_cmpeq_epi8(c, a), control);
    }
    if (_mm_movemask_epi8(control) != 0) return true;
  }
#endif
  for (; i < n; ++i) {
    if (IsBinaryByte(static_cast<uint8_t>(bytes[i]))) return true;
  }
  return false;
}

bool LooksLikeHloTextProto(std::string_view text) {
  size_t i = 0;
  for (;;) {
    i = text.find_first_not_of(" \t\r\n", i);
    if (i == std::string_view::npos) return false;
    if (text[i] != '#') break;
    i = text.find('\n', i);
    if (i == std::string_view::npos) return false;
  }
  size_t j = i;
  while (j < text.size() && (absl::ascii_isalnum(text[j]) || text[j] == '_')) {
    ++j;
  }
  if (j == i) return false;
  const std::string field(text.substr(i, j - i));
  j = std::min(text.find_first_not_of(" \t", j), text.size());
  if (j == text.size() || (text[j] != '{' && text[j] != ':')) return false;
  for (const google::protobuf::Descriptor* message :
       {xla::HloSnapshot::descriptor(),
        xla::HloUnoptimizedSnapshot::descriptor(), xla::HloProto::descriptor(),
        xla::HloModuleProto::descriptor(),
        xla::RunHloModuleIterationLiterals::descriptor()}) {
    if (message->FindFieldByName(field) != nullptr) return true;
  }
  return false;
}

absl::StatusOr<DecodedProto> DecodeTextFormatProto(std::string_view text) {
  SilenceProtobufLogs();
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    return absl::ResourceExhaustedError("text proto is 2 GiB or larger");
  }
  std::vector<ProtoKind> order = {
      ProtoKind::kHloSnapshot, ProtoKind::kHloUnoptimizedSnapshot,
      ProtoKind::kHloProto, ProtoKind::kHloModuleProto,
      ProtoKind::kRunHloModuleIterationLiterals};
  // XLA's text protos often name their type in a `# proto-message: X`
  // header; several types share field names, so that one goes first.
  const size_t header = text.find("# proto-message:");
  if (header != std::string_view::npos && header < 4096) {
    std::string_view rest = text.substr(header + 16);
    rest = rest.substr(0, rest.find('\n'));
    for (size_t k = 0; k < order.size(); ++k) {
      if (rest.find(ProtoKindName(order[k])) != std::string_view::npos &&
          rest.find(ProtoKindName(order[k])) + ProtoKindName(order[k]).size() ==
              rest.find_last_not_of(" \r\t") + 1) {
        std::rotate(order.begin(), order.begin() + k, order.begin() + k + 1);
        break;
      }
    }
  }
  for (ProtoKind kind : order) {
    auto arena = std::make_shared<google::protobuf::Arena>();
    Message* message = NewMessage(kind, arena.get());
    google::protobuf::TextFormat::Parser parser;
    parser.SetRecursionLimit(kMaxDepth);
    if (!parser.ParseFromString(std::string(text), message)) continue;
    if (!IsPlausible(kind, *message)) continue;
    DecodedProto out;
    out.kind = kind;
    Extract(kind, *message, &out);
    out.storage = std::move(arena);
    return out;
  }
  return absl::InvalidArgumentError(
      "not a text-format HloSnapshot, HloUnoptimizedSnapshot, HloProto, "
      "HloModuleProto or RunHloModuleIterationLiterals");
}

absl::StatusOr<DecodedProto> DecodeProto(std::string_view bytes,
                                         const DecodeOptions& options) {
  SilenceProtobufLogs();
  const size_t limit = std::min<size_t>(options.max_bytes, INT_MAX);
  // Shared: deferred instructions point into it.
  std::shared_ptr<std::string> inflated;
  bool gzipped = false;
  if (IsGzip(bytes)) {
    absl::StatusOr<std::string> data = Gunzip(bytes, limit);
    if (!data.ok()) return data.status();
    inflated = std::make_shared<std::string>(*std::move(data));
    bytes = *inflated;
    gzipped = true;
  }
  if (bytes.size() > limit) {
    return absl::ResourceExhaustedError(
        absl::StrCat("proto is ", bytes.size(), " bytes; the limit is ", limit,
                     " (protobuf cannot parse 2 GiB or more)"));
  }
  if (bytes.empty()) return absl::InvalidArgumentError("the file is empty");

  // The chunked format starts with a length prefix, never a valid first
  // field of the plain messages' usual content, and is checked exactly.
  if (auto chunked = TryChunked(bytes)) {
    if (chunked->ok()) (*chunked)->gzipped = gzipped;
    return *std::move(chunked);
  }

  constexpr ProtoKind kOrder[] = {
      ProtoKind::kHloSnapshot, ProtoKind::kHloUnoptimizedSnapshot,
      ProtoKind::kHloProto, ProtoKind::kHloModuleProto,
      ProtoKind::kRunHloModuleIterationLiterals};
  // Fast path: the first kind whose wire format fits cleanly and whose
  // parse is plausible. Parsing every candidate of a 1 GB proto would cost
  // seconds each.
  // An arena makes parsing and freeing millions of small messages cheap.
  for (ProtoKind kind : kOrder) {
    auto arena = std::make_shared<google::protobuf::Arena>();
    Message* message = NewMessage(kind, arena.get());
    if (!PrescreenClean(bytes, message->GetDescriptor(), 4)) continue;
    // Without partitions (field 2) an unoptimized snapshot reads the same as
    // an HloProto and would be judged implausible after a full parse.
    if (kind == ProtoKind::kHloUnoptimizedSnapshot &&
        !HasTopLevelField(bytes, 2)) {
      continue;
    }
    if (options.defer_instructions) {
      if (auto out = DecodeDeferred(bytes, kind)) {
        out->gzipped = gzipped;
        out->wire = inflated;
        return *std::move(out);
      }
    }
    if (!ParseExactly(bytes, message)) continue;
    if (!IsPlausible(kind, *message)) continue;
    DecodedProto out;
    out.kind = kind;
    out.gzipped = gzipped;
    Extract(kind, *message, &out);
    out.storage = std::move(arena);
    return out;
  }

  // Slow path (newer XLA fields, odd files): parse every candidate and
  // prefer the one with the fewest unknown fields.
  std::vector<Candidate> parsed;
  for (ProtoKind kind : kOrder) {
    Candidate candidate{kind, std::unique_ptr<Message>(NewMessage(kind))};
    if (!ParseExactly(bytes, candidate.message.get())) continue;
    candidate.plausible = IsPlausible(kind, *candidate.message);
    if (!candidate.plausible) continue;
    candidate.unknown = CountUnknownFields(*candidate.message, 4);
    parsed.push_back(std::move(candidate));
    // A clean decoding (every field known) wins outright.
    if (parsed.back().unknown == 0) break;
  }
  if (!parsed.empty()) {
    // First clean candidate, else the one with the fewest unknown fields
    // (a newer XLA adds fields; a wrong type leaves many).
    Candidate* best = &parsed[0];
    for (Candidate& c : parsed) {
      if (c.unknown < best->unknown) best = &c;
    }
    DecodedProto out;
    out.kind = best->kind;
    out.gzipped = gzipped;
    out.unknown_fields = best->unknown;
    Extract(best->kind, *best->message, &out);
    out.storage = std::shared_ptr<Message>(std::move(best->message));
    return out;
  }

  // Nothing decoded: find where the wire format breaks, reading it as each
  // candidate in turn and reporting the one that got furthest.
  WireError furthest;
  furthest.offset = -1;
  ProtoKind furthest_kind = kOrder[0];
  for (ProtoKind kind : kOrder) {
    std::unique_ptr<Message> message(NewMessage(kind));
    WireError error = WalkWire(bytes, message->GetDescriptor());
    if (error.ok) continue;
    if (error.offset > furthest.offset) {
      furthest = error;
      furthest_kind = kind;
    }
  }
  const std::string prefix = gzipped ? "gzip'ed data is not" : "not";
  if (furthest.offset >= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        prefix, " a valid HLO proto: at byte ", furthest.offset, " of ",
        bytes.size(), ": ", furthest.message, " (read as xla.",
        base::ToAbsl(ProtoKindName(furthest_kind)), ")"));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      prefix,
      " a known HLO proto: the bytes are well-formed protobuf but none of "
      "HloSnapshot, HloUnoptimizedSnapshot, HloProto, HloModuleProto or "
      "RunHloModuleIterationLiterals has its expected fields"));
}

}  // namespace hlo::proto
