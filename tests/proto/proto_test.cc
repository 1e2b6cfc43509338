// Decoder, printer and encoder tests: the real protos of the corpus (skipped
// without it), round trips over our fixtures, and damaged input of every
// kind (truncation at each byte, random bytes, gzip, a 2 GB length field).
#include <sys/wait.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/proto/convert.h"
#include "hlo/proto/decode.h"
#include "hlo/proto/encode.h"
#include "hlo/proto/print.h"
#include "hlo/proto/run_hlo_module.pb.h"

namespace hlo::proto {
namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = "/work/shared/corpus/xla-tests/proto";

std::string ProtoReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string Fixture(const std::string& name) {
  return ProtoReadFile(fs::path(HLO_LSP_SOURCE_DIR) / "tests/proto/fixtures" /
                       name);
}

std::string Gzip(std::string_view data) {
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
               Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, data.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = data.size();
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = out.size();
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

// Parses `text` and returns the error diagnostics joined (empty = clean).
std::string ParseErrors(const std::string& text) {
  std::unique_ptr<ParsedFile> file = Parse(text);
  std::string errors;
  for (const Diagnostic& d : file->diagnostics) {
    if (d.severity == Severity::kError) errors += d.message + "\n";
  }
  if (file->modules.empty()) errors += "no module\n";
  return errors;
}

// Structure of parsed text: computation names, and per instruction its name,
// opcode, shape text and operand/computation references, in order.
std::string ProtoOutline(const std::string& text) {
  std::unique_ptr<ParsedFile> file = Parse(text);
  std::string out;
  for (const Computation& c : file->computations) {
    out += std::string(c.is_entry ? "ENTRY " : "") +
           std::string(file->Name(c)) + "\n";
    for (Id i = c.instructions.begin; i < c.instructions.end(); ++i) {
      const Instruction& inst = file->instructions[i];
      out += "  " + std::string(file->Name(inst)) + " " +
             std::string(file->Text(inst.opcode_span));
      if (inst.shape != kNone) {
        const Shape& shape = file->shapes[inst.shape];
        out += " " + std::string(file->Text(shape.span));
      }
      for (Id o = inst.operands.begin; o < inst.operands.end(); ++o) {
        out += " op:" + std::string(file->Text(file->operands[o].name));
      }
      for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
        out +=
            " calls:" + std::string(file->Text(file->computation_refs[r].name));
      }
      for (Id a = inst.attributes.begin; a < inst.attributes.end(); ++a) {
        const Attribute& attr = file->attributes[a];
        out += " " + std::string(file->Text(attr.key)) + "=" +
               std::string(file->Text(attr.value));
      }
      if (inst.is_root) out += " ROOT";
      out += "\n";
    }
  }
  return out;
}

TEST(ProtoCorpus, EveryRealProtoConverts) {
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "no corpus at " << kCorpus;
  struct Case {
    std::string file;
    std::string kind;
    bool has_module;
  };
  const Case cases[] = {
      {"hlo__tools__tests__hlo_opt_hlo_protobinary.pb", "HloProto", true},
      {"mlir__tools__mlir_bisect__tests__snapshot.mlir.pb", "HloSnapshot",
       false},
      {"derived/jit__lambda_.hlo.pb", "HloProto", true},
      {"derived/sharded_unoptimized_hlo_snapshot.unoptimized_snapshot.pb",
       "HloUnoptimizedSnapshot", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    std::string bytes = ProtoReadFile(kCorpus / c.file);
    ASSERT_FALSE(bytes.empty());
    absl::StatusOr<ProtoTextResult> text = ConvertProtoFileToText(bytes);
    ASSERT_TRUE(text.ok()) << text.status();
    EXPECT_EQ(text->kind, c.kind);
    if (c.has_module) {
      EXPECT_EQ(ParseErrors(text->text), "") << text->text;
      EXPECT_NE(text->text.find("HloModule "), std::string::npos);
    } else {
      EXPECT_EQ(text->text.find("HloModule"), std::string::npos);
      EXPECT_NE(text->text.find("// argument 0: s32[3,1]{1,0} { {2}, {-4}, "
                                "{5} }"),
                std::string::npos)
          << text->text;
    }
  }
}

// Our schema reads XLA's encodings with no field left unknown.
TEST(ProtoCorpus, DerivedFilesHaveNoUnknownFields) {
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "no corpus";
  for (const char* name :
       {"derived/jit__lambda_.hlo.pb",
        "derived/sharded_unoptimized_hlo_snapshot.unoptimized_snapshot.pb"}) {
    absl::StatusOr<DecodedProto> decoded =
        DecodeProto(ProtoReadFile(kCorpus / name));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(decoded->unknown_fields, 0) << name;
    ASSERT_NE(decoded->module, nullptr);
    EXPECT_EQ(decoded->module->name(), "jit__lambda_");
    EXPECT_EQ(decoded->module->stack_frame_index().stack_frames_size(), 10);
  }
}

// The text-format protos, encoded with our schema by protoc, decode too.
TEST(ProtoCorpus, TextFormatProtosThroughProtoc) {
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "no corpus";
  if (std::system("protoc --version > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no protoc";
  }
  const fs::path out = fs::temp_directory_path() / "hlo_proto_test_lit.pb";
  const std::string command =
      std::string("cd ") + HLO_LSP_SOURCE_DIR +
      " && protoc -I. --encode=xla.RunHloModuleIterationLiterals "
      "hlo/proto/run_hlo_module.proto < " +
      (kCorpus / "tools__data__input_literal_f32_2_2.pbtxt").string() + " > " +
      out.string();
  ASSERT_EQ(std::system(command.c_str()), 0);
  absl::StatusOr<ProtoTextResult> text =
      ConvertProtoFileToText(ProtoReadFile(out));
  ASSERT_TRUE(text.ok()) << text.status();
  // Wire-identical to an arguments-only HloSnapshot, tried first.
  EXPECT_NE(text->text.find("// argument 0: f32[2,2]{1,0} { {0.1, 0.2}, "
                            "{0.3, 0.4} }"),
            std::string::npos)
      << text->text;
  fs::remove(out);
}

TEST(ProtoDecode, ResultAndReferenceResultOfIterationLiterals) {
  xla::RunHloModuleIterationLiterals literals;
  auto* arg = literals.add_arguments();
  arg->mutable_shape()->set_element_type(xla::S32);
  arg->add_s32s(7);
  auto* reference = literals.mutable_reference_result();
  reference->mutable_shape()->set_element_type(xla::PRED);
  reference->add_preds(true);
  absl::StatusOr<ProtoTextResult> text =
      ConvertProtoFileToText(literals.SerializeAsString());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->kind, "RunHloModuleIterationLiterals");
  EXPECT_NE(text->text.find("// argument 0: s32[] 7\n"), std::string::npos);
  EXPECT_NE(text->text.find("// reference result: pred[] true\n"),
            std::string::npos);
}

TEST(ProtoRoundTrip, FixtureTextProtoText) {
  const std::string text = Fixture("features.hlo");
  ASSERT_EQ(ParseErrors(text), "");
  absl::StatusOr<std::string> bytes = ConvertTextToHloProtoBytes(text);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<ProtoTextResult> back = ConvertProtoFileToText(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->kind, "HloProto");
  EXPECT_EQ(ParseErrors(back->text), "") << back->text;
  // Same computations, instructions, shapes, attributes and references;
  // the only textual difference allowed is the /*index=N*/ hint.
  std::string expected = ProtoOutline(text);
  std::string actual = ProtoOutline(back->text);
  EXPECT_EQ(actual, expected);
  // A second trip is a fixed point.
  absl::StatusOr<std::string> bytes2 = ConvertTextToHloProtoBytes(back->text);
  ASSERT_TRUE(bytes2.ok());
  absl::StatusOr<ProtoTextResult> back2 = ConvertProtoFileToText(*bytes2);
  ASSERT_TRUE(back2.ok());
  EXPECT_EQ(back2->text, back->text);
}

TEST(ProtoRoundTrip, EncoderAssignsIdsAndXlaCallOrder) {
  const std::string text = Fixture("features.hlo");
  std::unique_ptr<ParsedFile> file = Parse(text);
  absl::StatusOr<xla::HloModuleProto> module = EncodeModule(*file);
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(module->entry_computation_name(), "main");
  EXPECT_TRUE(module->has_schedule());
  std::map<int64_t, std::string> names;
  for (const auto& c : module->computations()) names[c.id()] = c.name();
  bool saw_while = false;
  for (const auto& c : module->computations()) {
    for (const auto& i : c.instructions()) {
      if (i.opcode() != "while") continue;
      saw_while = true;
      ASSERT_EQ(i.called_computation_ids_size(), 2);
      EXPECT_EQ(names[i.called_computation_ids(0)], "body");
      EXPECT_EQ(names[i.called_computation_ids(1)], "cond");
    }
    if (c.name() == "fused") EXPECT_TRUE(c.is_fusion_computation());
  }
  EXPECT_TRUE(saw_while);
}

// Hand-written tests omit result shapes; the proto needs them, so the
// encoder infers them from operands, attributes and called computations.
TEST(ProtoRoundTrip, EncoderInfersOmittedShapes) {
  const std::string text = R"(HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (p: f32[2,3,4], q: f32[2,4,5], c: c64[3], img: f32[1,4,6,2], k: f32[3,3,2,5], idx: s32[7,2]) -> f32[2,3,5] {
  %p = f32[2,3,4]{2,1,0} parameter(0)
  %q = f32[2,4,5] parameter(1)
  %c = c64[3] parameter(2)
  %zero = f32[] constant(0)
  %dot = dot(%p, %q), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  %t = transpose(%p), dimensions={2,0,1}
  %r = reduce(%p, %zero), dimensions={1}, to_apply=%add
  %sl = slice(%p), slice={[0:2], [1:3], [0:4:3]}
  %cat = concatenate(%p, %p), dimensions={1}
  %pad = pad(%p, %zero), padding=0_1x2_0x0_0_1
  %rw = reduce-window(%p, %zero), window={size=1x2x2 stride=1x1x2}, to_apply=%add
  %call = call(%zero, %zero), to_apply=%add
  %img = f32[1,4,6,2] parameter(3)
  %k = f32[3,3,2,5] parameter(4)
  %conv = convolution(%img, %k), window={size=3x3 stride=1x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  %idx = s32[7,2] parameter(5)
  %g = gather(%p, %idx), offset_dims={1,2}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,2,4}
  %re = real(%c)
  %h = bf16[2] constant({1.5, -3})
  %half = f16[2] constant({0.1, 65504})
  ROOT %out = f32[2,3,5] copy(%dot)
}
)";
  std::unique_ptr<ParsedFile> file = Parse(text);
  ASSERT_FALSE(file->HasErrors());
  absl::StatusOr<xla::HloModuleProto> module = EncodeModule(*file);
  ASSERT_TRUE(module.ok()) << module.status();
  std::map<std::string, xla::ShapeProto> shapes;
  std::map<std::string, xla::HloInstructionProto> by_name;
  for (const auto& c : module->computations()) {
    for (const auto& i : c.instructions()) {
      shapes[i.name()] = i.shape();
      by_name[i.name()] = i;
    }
  }
  auto dims = [&](const std::string& name) {
    std::vector<int64_t> d(shapes[name].dimensions().begin(),
                           shapes[name].dimensions().end());
    return d;
  };
  EXPECT_EQ(dims("dot"), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(dims("t"), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(dims("r"), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(dims("sl"), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(dims("cat"), (std::vector<int64_t>{2, 6, 4}));
  EXPECT_EQ(dims("pad"), (std::vector<int64_t>{3, 5, 7}));
  EXPECT_EQ(dims("rw"), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(dims("call"), (std::vector<int64_t>{}));
  EXPECT_EQ(dims("conv"), (std::vector<int64_t>{1, 4, 3, 5}));
  EXPECT_EQ(dims("g"), (std::vector<int64_t>{7, 2, 4}));
  EXPECT_EQ(shapes["call"].element_type(), xla::F32);
  EXPECT_EQ(shapes["re"].element_type(), xla::F32);
  EXPECT_EQ(dims("re"), (std::vector<int64_t>{3}));
  // Inferred shapes of laid-out operands get the default layout.
  ASSERT_TRUE(shapes["t"].has_layout());
  EXPECT_EQ(shapes["t"].layout().minor_to_major_size(), 3);
  // bf16 1.5 = 0x3fc0, -3 = 0xc040; f16 0.1 = 0x2e66, 65504 = 0x7bff.
  EXPECT_EQ(by_name["h"].literal().bf16s(), std::string("\xc0\x3f\x40\xc0", 4));
  EXPECT_EQ(by_name["half"].literal().f16s(),
            std::string("\x66\x2e\xff\x7b", 4));
  // And the printed text reads back clean with those shapes written.
  std::string printed;
  AppendModuleText(*module, PrintOptions(), &printed);
  EXPECT_EQ(ParseErrors(printed), "") << printed;
  EXPECT_NE(printed.find("%dot = f32[2,3,5]{2,1,0} dot("), std::string::npos)
      << printed;
  EXPECT_NE(printed.find("%h = bf16[2] constant({1.5, -3})"), std::string::npos)
      << printed;
}

TEST(ProtoRoundTrip, SparseAndSplitLayoutsSurvive) {
  const std::string text =
      "HloModule m\nENTRY %e (p: f32[10,10]) -> f32[10,10] {\n"
      "  %p = f32[10,10]{1,0:D(D,C+~)} parameter(0)\n"
      "  %q = f32[10,10]{1,0:D(D,C)P((s32[10]{0:T(100)}, f32[10]{0}))} "
      "copy(%p)\n"
      "  ROOT %n = s32[6]{0:T(128)S(1)SC(0:3,5)} negate(%p)\n}\n";
  std::unique_ptr<ParsedFile> file = Parse(text);
  ASSERT_FALSE(file->HasErrors());
  absl::StatusOr<xla::HloModuleProto> module = EncodeModule(*file);
  ASSERT_TRUE(module.ok()) << module.status();
  std::string printed;
  AppendModuleText(*module, PrintOptions(), &printed);
  EXPECT_NE(printed.find("f32[10,10]{1,0:D(D,C+~)} parameter(0)"),
            std::string::npos)
      << printed;
  EXPECT_NE(
      printed.find(
          "f32[10,10]{1,0:D(D,C)P((s32[10]{0:T(100)}, f32[10]{0}))} copy("),
      std::string::npos)
      << printed;
  EXPECT_NE(printed.find("s32[6]{0:T(128)S(1)SC(0:3,5)} negate("),
            std::string::npos)
      << printed;
}

TEST(ProtoRoundTrip, BadTextIsAnError) {
  absl::StatusOr<std::string> bytes = ConvertTextToHloProtoBytes(
      "HloModule m\nENTRY %e () -> f32[] {\n  ROOT %r = f32[] add(%nope, "
      "%x)\n}\n");
  EXPECT_FALSE(bytes.ok());
}

// XLA names text-format snapshots `.txt`: the first field tells them from
// HLO text, which never starts with a field of the known messages.
TEST(ProtoDecode, TextFormatProtosAreKnownByTheirFirstField) {
  for (const char* text :
       {"hlo_module {\n  name: \"m\"", "  arguments {", "hlo: {",
        "# proto-message: xla.HloSnapshot\n\nhlo {", "name: \"m\"\n"}) {
    EXPECT_TRUE(LooksLikeHloTextProto(text)) << text;
  }
  for (const char* text :
       {"HloModule m\n", "ENTRY %e {", "%x = f32[] parameter(0)",
        "e (p: f32[]) -> f32[] {", "unknown_field {", "hlo_module", "",
        "# only a comment"}) {
    EXPECT_FALSE(LooksLikeHloTextProto(text)) << text;
  }
}

TEST(ProtoDecode, Gzip) {
  const std::string text = Fixture("features.hlo");
  absl::StatusOr<std::string> bytes = ConvertTextToHloProtoBytes(text);
  ASSERT_TRUE(bytes.ok());
  const std::string gz = Gzip(*bytes);
  absl::StatusOr<DecodedProto> decoded = DecodeProto(gz);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(decoded->gzipped);
  EXPECT_EQ(decoded->kind, ProtoKind::kHloProto);
  // Truncated gzip: an error, no crash.
  for (size_t cut : {size_t{2}, size_t{10}, gz.size() / 2, gz.size() - 1}) {
    EXPECT_FALSE(DecodeProto(gz.substr(0, cut)).ok()) << cut;
  }
  // A gzip bomb is refused past the limit.
  const std::string zeros(1 << 20, '\0');
  DecodeOptions small;
  small.max_bytes = 1000;
  absl::StatusOr<DecodedProto> bomb = DecodeProto(Gzip(zeros), small);
  ASSERT_FALSE(bomb.ok());
  EXPECT_NE(bomb.status().message().find("inflates to more than"),
            std::string::npos);
}

TEST(ProtoDecode, TruncationAtEveryOffsetReportsTheOffset) {
  std::string bytes;
  if (fs::exists(kCorpus / "derived/jit__lambda_.hlo.pb")) {
    bytes = ProtoReadFile(kCorpus / "derived/jit__lambda_.hlo.pb");
  } else {
    absl::StatusOr<std::string> encoded =
        ConvertTextToHloProtoBytes(Fixture("features.hlo"));
    ASSERT_TRUE(encoded.ok());
    bytes = *encoded;
  }
  int with_offset = 0, decoded_prefix = 0;
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    absl::StatusOr<DecodedProto> decoded = DecodeProto(bytes.substr(0, cut));
    if (decoded.ok()) {
      ++decoded_prefix;  // a prefix ending on a field boundary is valid
      continue;
    }
    const std::string message(decoded.status().message());
    if (message.find("at byte ") != std::string::npos) ++with_offset;
  }
  // Nearly every cut lands inside a field; those must name the offset.
  EXPECT_GT(with_offset, static_cast<int>(bytes.size()) * 9 / 10)
      << with_offset << " of " << bytes.size();
  // An early cut names an offset inside those first bytes.
  absl::StatusOr<DecodedProto> early = DecodeProto(bytes.substr(0, 5));
  ASSERT_FALSE(early.ok());
  EXPECT_NE(early.status().message().find("of 5:"), std::string::npos)
      << early.status();
}

TEST(ProtoDecode, CheckWireFormatNamesOffsets) {
  // HloSnapshot field 4 (a string), LEN 5, only 2 bytes follow.
  const std::string bad("\x22\x05\x61\x62", 4);
  absl::Status status = CheckWireFormat(bad, xla::HloSnapshot::descriptor());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(std::string(status.message()),
            "at byte 0: field 4: length 5 runs past the end (2 bytes left)");
  // A nested break is reported where it is, not at the outer field.
  const std::string nested("\x0a\x04\x0a\x09\x41\x42", 6);
  status = CheckWireFormat(nested, xla::HloProto::descriptor());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("at byte 2"), std::string::npos)
      << status;
  EXPECT_TRUE(CheckWireFormat("", xla::HloProto::descriptor()).ok());
}

TEST(ProtoDecode, TwoGigabyteLengthField) {
  // field 1 (LEN) claiming 2^31 - 1 bytes, and nothing after it.
  std::string bytes("\x0a\xff\xff\xff\xff\x07", 6);
  absl::StatusOr<DecodedProto> decoded = DecodeProto(bytes);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("at byte 0"), std::string::npos)
      << decoded.status();
  EXPECT_NE(decoded.status().message().find("2147483647"), std::string::npos);
  // A 10-byte varint length (beyond 64 bits' worth of sense).
  std::string huge("\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11);
  EXPECT_FALSE(DecodeProto(huge).ok());
}

TEST(ProtoDecode, RandomBytesNeverCrash) {
  std::mt19937 rng(1234);
  int errors = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes(1 + rng() % 300, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    absl::StatusOr<DecodedProto> decoded = DecodeProto(bytes);
    if (!decoded.ok()) {
      ++errors;
      EXPECT_FALSE(decoded.status().message().empty());
    }
  }
  EXPECT_GT(errors, 1900);
}

TEST(ProtoDecode, TextIsNotAProto) {
  absl::StatusOr<DecodedProto> decoded =
      DecodeProto("HloModule m\nENTRY %e { ROOT %c = f32[] constant(1) }\n");
  ASSERT_FALSE(decoded.ok());
  EXPECT_FALSE(DecodeProto("").ok());
  EXPECT_FALSE(LooksLikeBinaryProto("HloModule m\n"));
}

// The sniff reads 16 bytes a step: one control byte is found wherever it
// falls, text's own control bytes (\n \r \t \f) and UTF-8 are not, and
// nothing past the first 64 KiB counts.
TEST(ProtoDecode, BinarySniffAtEveryBlockPosition) {
  for (size_t size : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 100u}) {
    for (size_t at = 0; at < size; ++at) {
      std::string text(size, 'a');
      for (char allowed : {'\n', '\r', '\t', '\f', '\xC3', '\x7F'}) {
        text[at] = allowed;
        EXPECT_FALSE(LooksLikeBinaryProto(text)) << size << " " << at;
      }
      for (char control : {'\0', '\x01', '\x08', '\x0B', '\x1F'}) {
        text[at] = control;
        EXPECT_TRUE(LooksLikeBinaryProto(text)) << size << " " << at;
      }
    }
  }
  std::string late(64 * 1024, 'a');
  late.push_back('\x01');
  EXPECT_FALSE(LooksLikeBinaryProto(late));
  late[64 * 1024 - 1] = '\x01';
  EXPECT_TRUE(LooksLikeBinaryProto(late));
}

// XLA's large-snapshot format: delimited metadata, then raw literals.
TEST(ProtoDecode, ChunkedUnoptimizedSnapshot) {
  absl::StatusOr<std::string> encoded =
      ConvertTextToHloProtoBytes(Fixture("features.hlo"));
  ASSERT_TRUE(encoded.ok());
  xla::HloProto hlo;
  ASSERT_TRUE(hlo.ParseFromString(*encoded));
  xla::HloUnoptimizedSnapshot metadata;
  *metadata.mutable_hlo_module() = hlo.hlo_module();
  xla::ShapeProto shape;
  shape.set_element_type(xla::F32);
  shape.add_dimensions(3);
  shape.mutable_layout()->add_minor_to_major(0);
  const std::string shape_bytes = shape.SerializeAsString();
  std::string literal;
  uint64_t shape_size = shape_bytes.size();
  for (int b = 0; b < 8; ++b)
    literal.push_back(static_cast<char>(shape_size >> (8 * b)));
  literal += shape_bytes;
  const float values[3] = {1.5f, -2.0f, 0.25f};
  literal.append(reinterpret_cast<const char*>(values), sizeof(values));
  metadata.add_partitions()
      ->add_arguments_descriptors()
      ->set_argument_size_bytes(literal.size());
  std::string file;
  {
    std::string meta = metadata.SerializeAsString();
    uint64_t n = meta.size();
    while (n >= 0x80) {
      file.push_back(static_cast<char>(n | 0x80));
      n >>= 7;
    }
    file.push_back(static_cast<char>(n));
    file += meta;
  }
  file += literal;
  absl::StatusOr<ProtoTextResult> text = ConvertProtoFileToText(file);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->kind,
            "HloUnoptimizedSnapshot (chunked large-snapshot format)");
  EXPECT_NE(text->text.find("// argument 0: f32[3]{0} {1.5, -2, 0.25}"),
            std::string::npos)
      << text->text;
  EXPECT_EQ(ParseErrors(text->text), "");
  // Truncated: says what it is and that data is missing.
  absl::StatusOr<ProtoTextResult> cut =
      ConvertProtoFileToText(file.substr(0, file.size() - 4));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("chunked"), std::string::npos)
      << cut.status();
}

TEST(ProtoPrint, LiteralsRespectLayoutAndElide) {
  xla::LiteralProto literal;
  auto* shape = literal.mutable_shape();
  shape->set_element_type(xla::S32);
  shape->add_dimensions(2);
  shape->add_dimensions(3);
  // Column-major buffer: physical order walks dimension 0 fastest.
  shape->mutable_layout()->add_minor_to_major(0);
  shape->mutable_layout()->add_minor_to_major(1);
  for (int v : {1, 4, 2, 5, 3, 6}) literal.add_s32s(v);
  std::string out;
  AppendLiteralComment("argument 0", literal, -1, PrintOptions{}, &out);
  EXPECT_EQ(out, "// argument 0: s32[2,3]{0,1} { {1, 2, 3}, {4, 5, 6} }\n");
  PrintOptions small;
  small.max_literal_comment_elements = 4;
  out.clear();
  AppendLiteralComment("result", literal, -1, small, &out);
  EXPECT_EQ(out, "// result: s32[2,3]{0,1} {...} (6 elements elided)\n");
}

TEST(ProtoPrint, TruncatedOutputStopsAtALine) {
  absl::StatusOr<std::string> bytes =
      ConvertTextToHloProtoBytes(Fixture("features.hlo"));
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<ProtoTextResult> text = ConvertProtoFileToText(*bytes, 200);
  ASSERT_TRUE(text.ok());
  EXPECT_TRUE(text->truncated);
  EXPECT_LE(text->text.size(), 200u);
  EXPECT_EQ(text->text.back(), '\n');
}

}  // namespace
}  // namespace hlo::proto

namespace hlo::proto {
namespace {

int RunCli(const std::string& args) {
  const std::string command =
      std::string(HLO_LSP_BINARY) + " " + args + " > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ConvertCli, ExitCodes) {
  if (!fs::exists(HLO_LSP_BINARY)) GTEST_SKIP() << "binary not built";
  const fs::path dir = fs::temp_directory_path() / "hlo_proto_cli_test";
  fs::create_directories(dir);
  const std::string fixture =
      std::string(HLO_LSP_SOURCE_DIR) + "/tests/proto/fixtures/features.hlo";
  const std::string pb = (dir / "f.pb").string();
  // Text to proto needs -o.
  EXPECT_EQ(RunCli("convert " + fixture), 2);
  EXPECT_EQ(RunCli("convert " + fixture + " -o -"), 2);
  EXPECT_EQ(RunCli("convert " + fixture + " -o " + pb), 0);
  // Proto to text, stdout or a file; forced direction works too.
  EXPECT_EQ(RunCli("convert " + pb), 0);
  EXPECT_EQ(RunCli("convert " + pb + " -o " + (dir / "f.txt").string()), 0);
  EXPECT_EQ(RunCli("convert --to text " + pb), 0);
  // Bad input: not a proto (forced), not valid HLO, garbage bytes.
  EXPECT_EQ(RunCli("convert --to text " + fixture), 1);
  {
    std::ofstream bad(dir / "bad.hlo");
    bad << "HloModule m\nENTRY %e () -> f32[] {\n  ROOT %r = f32[] "
           "add(%x)\n}\n";
  }
  EXPECT_EQ(
      RunCli("convert " + (dir / "bad.hlo").string() + " -o " + pb + ".2"), 1);
  {
    std::ofstream garbage(dir / "g.pb", std::ios::binary);
    garbage << std::string("\x0a\xff\xff\x03garbage", 11);
  }
  EXPECT_EQ(RunCli("convert " + (dir / "g.pb").string()), 1);
  // Usage and I/O errors.
  EXPECT_EQ(RunCli("convert"), 2);
  EXPECT_EQ(RunCli("convert --to yaml " + pb), 2);
  EXPECT_EQ(RunCli("convert " + (dir / "missing.pb").string()), 2);
  EXPECT_EQ(RunCli("convert " + pb + " -o /nonexistent/dir/out.txt"), 2);
  EXPECT_EQ(RunCli("convert --help"), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hlo::proto

namespace hlo::proto {
namespace {

TEST(ProtoCorpus, TextFormatFilesConvertDirectly) {
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "no corpus";
  absl::StatusOr<ProtoTextResult> snapshot = ConvertTextProtoToText(
      ProtoReadFile(kCorpus / "tools__multihost_hlo_runner__data__sharded_"
                              "unoptimized_hlo_snapshot.pbtxt"));
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  EXPECT_EQ(snapshot->kind, "HloUnoptimizedSnapshot (text format)");
  EXPECT_EQ(ParseErrors(snapshot->text), "") << snapshot->text;
  EXPECT_NE(snapshot->text.find("// partition 1 argument 0: s64[4,1]{1,0} "
                                "{ {4}, {5}, {6}, {7} }"),
            std::string::npos);
  absl::StatusOr<ProtoTextResult> literals = ConvertTextProtoToText(
      ProtoReadFile(kCorpus / "tools__data__input_literal_f32_2_2.pbtxt"));
  ASSERT_TRUE(literals.ok()) << literals.status();
  EXPECT_EQ(literals->kind, "RunHloModuleIterationLiterals (text format)");
  EXPECT_NE(literals->text.find("// argument 0: f32[2,2]{1,0}"),
            std::string::npos);
  EXPECT_FALSE(ConvertTextProtoToText("HloModule m").ok());
}

TEST(ProtoDecode, TruncationPointsInsideTheModule) {
  absl::StatusOr<std::string> bytes =
      ConvertTextToHloProtoBytes(Fixture("features.hlo"));
  ASSERT_TRUE(bytes.ok());
  absl::StatusOr<DecodedProto> cut =
      DecodeProto(std::string_view(*bytes).substr(0, bytes->size() / 2));
  ASSERT_FALSE(cut.ok());
  // The deepest broken field, not byte 0 of the outer one.
  EXPECT_EQ(cut.status().message().find("at byte 0 "), std::string::npos)
      << cut.status();
}

}  // namespace
}  // namespace hlo::proto

namespace hlo::proto {
namespace {

// A header-less module starts like a text proto (`name {`); it must still
// convert as HLO text.
TEST(ConvertCli, HeaderlessModuleIsHloText) {
  if (!fs::exists(HLO_LSP_BINARY)) GTEST_SKIP() << "binary not built";
  const fs::path dir = fs::temp_directory_path() / "hlo_proto_cli_headerless";
  fs::create_directories(dir);
  {
    std::ofstream hlo(dir / "m.hlo");
    hlo << "e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(p)\n}\n";
  }
  EXPECT_EQ(RunCli("convert " + (dir / "m.hlo").string() + " -o " +
                   (dir / "m.pb").string()),
            0);
  EXPECT_EQ(RunCli("convert " + (dir / "m.pb").string()), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hlo::proto
