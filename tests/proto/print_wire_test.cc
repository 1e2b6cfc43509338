// The deferred decode (instructions read off the wire one at a time,
// computations printed on threads: ConvertProtoFileToText) against the
// whole-message decode and print: the same kind and the same text byte for
// byte, or the same error, for the corpus's protos, its text modules
// encoded (as HloProto, HloModuleProto and HloSnapshot), a module large
// enough to print on threads, and damaged bytes of every sort.
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "hlo/proto/convert.h"
#include "hlo/proto/decode.h"
#include "hlo/proto/print.h"
#include "tests/corpus_files.h"

namespace hlo::proto {
namespace {

namespace fs = std::filesystem;

// The whole-message path: every instruction a message, then printed.
absl::StatusOr<std::string> Whole(std::string_view bytes) {
  absl::StatusOr<DecodedProto> decoded = DecodeProto(bytes);
  if (!decoded.ok()) return decoded.status();
  std::string text = std::string(ProtoKindName(decoded->kind)) + "\n";
  if (decoded->module) AppendModuleText(*decoded->module, {}, &text);
  return text;
}

// The converter's path; its module text is what precedes the
// `// decoded from` line.
absl::StatusOr<std::string> Wire(std::string_view bytes) {
  absl::StatusOr<ProtoTextResult> result = ConvertProtoFileToText(bytes);
  if (!result.ok()) return result.status();
  const std::string& text = result->text;
  size_t at = text.starts_with("// decoded from xla.")
                  ? 0
                  : text.find("\n// decoded from xla.");
  EXPECT_NE(at, std::string::npos);
  if (at != 0 && at != std::string::npos) ++at;
  return result->kind + "\n" + text.substr(0, at);
}

// Where two texts first differ, for a readable failure.
std::string PrintWireFirstDifference(const std::string& a,
                                     const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const size_t from = i < 80 ? 0 : i - 80;
  return "at byte " + std::to_string(i) + ":\nwhole: " + a.substr(from, 160) +
         "\nwire:  " + b.substr(from, 160);
}

void ExpectSame(std::string_view bytes, const std::string& label) {
  absl::StatusOr<std::string> whole = Whole(bytes);
  absl::StatusOr<std::string> wire = Wire(bytes);
  ASSERT_EQ(whole.ok(), wire.ok())
      << label << ": " << whole.status() << " / " << wire.status();
  if (!whole.ok()) {
    EXPECT_EQ(whole.status(), wire.status()) << label;
    return;
  }
  EXPECT_TRUE(*whole == *wire)
      << label << " " << PrintWireFirstDifference(*whole, *wire);
}

// Whether the converter reads these bytes' instructions off the wire (else
// the comparison above would compare the whole path with itself).
bool Deferred(std::string_view bytes) {
  DecodeOptions options;
  options.defer_instructions = true;
  absl::StatusOr<DecodedProto> decoded = DecodeProto(bytes, options);
  if (!decoded.ok() || !decoded->deferred) return false;
  std::string text;
  return AppendDecodedModuleText(*decoded, {}, &text);
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A module with `n` computations of a dozen instructions each, every one
// called from the entry, with a schedule-free but realistic mix of shapes,
// metadata and attributes.
std::string SyntheticModule(int n) {
  std::string text = "HloModule synthetic\n\n";
  for (int c = 0; c < n; ++c) {
    const std::string s = std::to_string(c);
    text += "%add." + s +
            " (x: f32[], y: f32[]) -> f32[] {\n"
            "  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
            "  ROOT %sum = f32[] add(f32[] %x, f32[] %y)\n}\n\n";
    text += "%body." + s + " (p: f32[16,32]) -> f32[16,32] {\n" +
            "  %p = f32[16,32]{1,0} parameter(0)\n"
            "  %c = f32[] constant(1.5)\n"
            "  %b = f32[16,32]{1,0} broadcast(f32[] %c), dimensions={}\n"
            "  %m = f32[16,32]{1,0} multiply(f32[16,32]{1,0} %p, "
            "f32[16,32]{1,0} %b), metadata={op_type=\"Mul\" "
            "op_name=\"jit(f)/mul." +
            s +
            "\" source_file=\"/tmp/model.py\" source_line=42}\n"
            "  %t = f32[32,16]{0,1} transpose(f32[16,32]{1,0} %m), "
            "dimensions={1,0}\n"
            "  %r = f32[16]{0} reduce(f32[16,32]{1,0} %m, f32[] %c), "
            "dimensions={1}, to_apply=%add." +
            s +
            "\n"
            "  %cmp = pred[16,32]{1,0} compare(f32[16,32]{1,0} %p, "
            "f32[16,32]{1,0} %b), direction=GT\n"
            "  ROOT %sel = f32[16,32]{1,0} select(pred[16,32]{1,0} %cmp, "
            "f32[16,32]{1,0} %m, f32[16,32]{1,0} %p)\n}\n\n";
  }
  text +=
      "ENTRY %main (a: f32[16,32]) -> f32[16,32] {\n"
      "  %a = f32[16,32]{1,0} parameter(0)\n";
  std::string last = "%a";
  for (int c = 0; c < n; ++c) {
    const std::string s = std::to_string(c);
    text += "  %call." + s + " = f32[16,32]{1,0} call(f32[16,32]{1,0} " + last +
            "), to_apply=%body." + s + "\n";
    last = "%call." + s;
  }
  text +=
      "  ROOT %out = f32[16,32]{1,0} copy(f32[16,32]{1,0} " + last + ")\n}\n";
  return text;
}

std::string PrintWireEncoded(const std::string& text) {
  absl::StatusOr<std::string> bytes = ConvertTextToHloProtoBytes(text);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : std::string();
}

// SyntheticModule(n) as a parsed HloProto, to damage a field at a time.
void ParseSynthetic(int n, xla::HloProto* hlo) {
  ASSERT_TRUE(hlo->ParseFromString(PrintWireEncoded(SyntheticModule(n))));
}
xla::HloInstructionProto* InstructionOf(xla::HloProto& hlo, int computation,
                                        int instruction) {
  return hlo.mutable_hlo_module()
      ->mutable_computations(computation)
      ->mutable_instructions(instruction);
}
xla::ProgramShapeProto* ProgramShapeOf(xla::HloProto& hlo, int computation) {
  return hlo.mutable_hlo_module()
      ->mutable_computations(computation)
      ->mutable_program_shape();
}

TEST(PrintWire, SyntheticModulesOnOneThreadAndMany) {
  for (int n : {1, 20, 2000}) {
    const std::string bytes = PrintWireEncoded(SyntheticModule(n));
    // 2000 computations are over a megabyte: printed on threads.
    if (n == 2000) ASSERT_GT(bytes.size(), size_t{1} << 20);
    EXPECT_TRUE(Deferred(bytes)) << n;
    ExpectSame(bytes, "synthetic " + std::to_string(n));
  }
}

// One computation holding most of a module (as an entry often does) is
// indexed in pieces and cut between the printing threads: each prints a
// run of its lines, their operands defined on the other's side, the root
// on the last. Its calls, one in each of several pieces, order the
// computations printed before it as a whole index would.
TEST(PrintWire, OneLargeComputationSplitBetweenThreads) {
  constexpr int kInstructions = 40000, kCallees = 4;
  std::string text = "HloModule long_entry\n\n";
  for (int f = 0; f < kCallees; ++f) {
    text += "%f" + std::to_string(f) +
            " (p: f32[8]) -> f32[8] {\n  %p = f32[8]{0} parameter(0)\n"
            "  ROOT %n = f32[8]{0} negate(f32[8]{0} %p)\n}\n\n";
  }
  text +=
      "ENTRY %main (a: f32[8], b: f32[8]) -> f32[8] "
      "{\n  %a = f32[8]{0} parameter(0)\n  %b = f32[8]{0} parameter(1)\n";
  std::string previous = "%a";
  for (int k = 0; k < kInstructions; ++k) {
    const std::string name = "%v" + std::to_string(k);
    if (k % 10000 == 5000) {  // the last callee first
      text += "  " + name + " = f32[8]{0} call(f32[8]{0} " + previous +
              "), to_apply=%f" + std::to_string(kCallees - 1 - k / 10000) +
              "\n";
      previous = name;
      continue;
    }
    // Every tenth line refers back a long way: across the cut for some.
    const std::string other =
        k % 10 == 0 && k >= 20000 ? "%v" + std::to_string(k - 20000) : "%b";
    text += "  " + name + " = f32[8]{0} " + (k % 3 ? "add" : "multiply") +
            "(f32[8]{0} " + previous + ", f32[8]{0} " + other + ")\n";
    previous = name;
  }
  text += "  ROOT %out = f32[8]{0} negate(f32[8]{0} " + previous + ")\n}\n";
  // Stored with the entry first, the callees print in the entry's call
  // order, gathered piece by piece.
  xla::HloProto hlo;
  ASSERT_TRUE(hlo.ParseFromString(PrintWireEncoded(text)));
  auto* computations = hlo.mutable_hlo_module()->mutable_computations();
  for (int k = computations->size() - 1; k > 0; --k) {
    computations->SwapElements(k, k - 1);
  }
  const std::string bytes = hlo.SerializeAsString();
  ASSERT_GT(bytes.size(), size_t{1} << 20);  // printed on threads
  EXPECT_TRUE(Deferred(bytes));
  ExpectSame(bytes, "one large computation");
  absl::StatusOr<ProtoTextResult> printed = ConvertProtoFileToText(bytes);
  ASSERT_TRUE(printed.ok()) << printed.status();
  size_t previous_at = 0;
  for (int f = kCallees - 1; f >= 0; --f) {
    const size_t at = printed->text.find("%f" + std::to_string(f) + " ");
    ASSERT_NE(at, std::string::npos) << f;
    EXPECT_GT(at, previous_at) << f;
    previous_at = at;
  }
}

// Plain instructions print off their wire bytes without a parse; one with
// another field, a name outside ASCII or a shape that does not parse goes
// to the parse, which decides as the whole path does.
TEST(PrintWire, PlainInstructionsAndTheirNeighbours) {
  xla::HloProto hlo;
  ASSERT_NO_FATAL_FAILURE(ParseSynthetic(2, &hlo));
  xla::HloProto utf8 = hlo;
  InstructionOf(utf8, 1, 2)->set_name("b\xc3\xa9");  // valid UTF-8, not ASCII
  ExpectSame(utf8.SerializeAsString(), "UTF-8 name");
  xla::HloProto extra = hlo;
  InstructionOf(extra, 1, 2)->set_tuple_index(3);
  InstructionOf(extra, 1, 2)
      ->add_control_predecessor_ids(InstructionOf(extra, 1, 0)->id());
  InstructionOf(extra, 1, 3)->set_feature_index(1);  // not a plain field
  ExpectSame(extra.SerializeAsString(), "plain and other fields");
  // A shape field whose bytes do not parse (a tag without its value): an
  // unknown field of the same number, as the message holds no shape.
  xla::HloProto bad_shape = hlo;
  xla::HloInstructionProto* plain = InstructionOf(bad_shape, 1, 2);
  plain->clear_shape();
  plain->GetReflection()->MutableUnknownFields(plain)->AddLengthDelimited(
      3, std::string("\x08", 1));
  ExpectSame(bad_shape.SerializeAsString(), "shape does not parse");
}

// A computation's program shape is only judged (the signature prints from
// the instructions): read off the wire when it surely parses, else parsed,
// and either way the same verdict as the whole path's.
TEST(PrintWire, ProgramShapesJudgedAsTheWholePathDoes) {
  xla::HloProto hlo;
  ASSERT_NO_FATAL_FAILURE(ParseSynthetic(2, &hlo));
  xla::HloProto tiled = hlo;
  xla::LayoutProto* layout =
      ProgramShapeOf(tiled, 1)->mutable_result()->mutable_layout();
  layout->add_minor_to_major(0);
  layout->add_tiles()->add_dimensions(128);
  layout->set_memory_space(5);
  ProgramShapeOf(tiled, 1)->add_parameter_names("n\xc3\xa9");  // UTF-8
  ExpectSame(tiled.SerializeAsString(), "layout, tiles, UTF-8 name");
  // Fields the wire reader leaves to the parse: one the schema lacks, one
  // of another wire type than declared (protobuf keeps both as unknown).
  xla::HloProto unknown = hlo;
  auto* fields = ProgramShapeOf(unknown, 1)
                     ->GetReflection()
                     ->MutableUnknownFields(ProgramShapeOf(unknown, 1));
  fields->AddVarint(9, 1);
  fields->AddVarint(1, 7);
  ExpectSame(unknown.SerializeAsString(), "unknown fields");
  // A parameter whose dimensions end inside a varint: the parse refuses.
  xla::HloProto broken = hlo;
  ProgramShapeOf(broken, 1)
      ->GetReflection()
      ->MutableUnknownFields(ProgramShapeOf(broken, 1))
      ->AddLengthDelimited(1, std::string("\x1a\x02\x80\x80", 4));
  ExpectSame(broken.SerializeAsString(), "truncated packed dimensions");
}

// Large constants fill the printer's scratch arena (renewed after a
// megabyte) in the middle of a computation: every line after a renewal
// prints as the whole path prints it.
TEST(PrintWire, LargeConstantsAcrossArenaRenewals) {
  constexpr int kElements = 60000;
  std::string values;
  for (int i = 0; i < kElements; ++i) {
    if (i > 0) values += ", ";
    values += std::to_string(i % 977);
  }
  const std::string shape = "f32[" + std::to_string(kElements) + "]{0}";
  std::string text = "HloModule constants\n\nENTRY %main () -> " + shape +
                     " {\n  %c0 = " + shape + " constant({" + values + "})\n";
  for (int k = 1; k < 8; ++k) {
    const std::string c = "%c" + std::to_string(k);
    const std::string previous = "%c" + std::to_string(k - 1);
    text += "  " + c + " = " + shape + " constant({" + values + "})\n";
    text += "  %s" + std::to_string(k) + " = " + shape + " add(" + shape + " " +
            previous + ", " + shape + " " + c + ")\n";
  }
  text += "  ROOT %out = " + shape + " copy(" + shape + " %s7)\n}\n";
  const std::string bytes = PrintWireEncoded(text);
  ASSERT_GT(bytes.size(), size_t{3} << 19);  // 1.5 MB of literals
  EXPECT_TRUE(Deferred(bytes));
  ExpectSame(bytes, "large constants");
  absl::StatusOr<ProtoTextResult> result = ConvertProtoFileToText(bytes);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_NE(result->text.find("%c7 = " + shape + " constant({0, 1, 2,"),
            std::string::npos);
}

TEST(PrintWire, OtherKindsAroundTheModule) {
  xla::HloProto hlo;
  ASSERT_NO_FATAL_FAILURE(ParseSynthetic(3, &hlo));
  // A bare HloModuleProto.
  const std::string module = hlo.hlo_module().SerializeAsString();
  EXPECT_TRUE(Deferred(module));
  ExpectSame(module, "HloModuleProto");
  // An HloSnapshot with an argument and a platform.
  xla::HloSnapshot snapshot;
  *snapshot.mutable_hlo() = hlo;
  xla::LiteralProto* argument = snapshot.add_arguments();
  argument->mutable_shape()->set_element_type(xla::F32);
  argument->add_f32s(2.5);
  snapshot.set_execution_platform("Host");
  const std::string bytes = snapshot.SerializeAsString();
  EXPECT_TRUE(Deferred(bytes));
  ExpectSame(bytes, "HloSnapshot");
}

// An instruction the full decode refuses (no opcode, a name that is not
// UTF-8), or a computation's program shape: the converter must come to the same
// answer as the whole path, which reads the bytes as another kind or fails.
TEST(PrintWire, BrokenInstructionsDecideAsTheWholePathDoes) {
  xla::HloProto hlo;
  ASSERT_NO_FATAL_FAILURE(ParseSynthetic(2, &hlo));
  xla::HloProto no_opcode = hlo;
  InstructionOf(no_opcode, 1, 2)->clear_opcode();
  ExpectSame(no_opcode.SerializeAsString(), "no opcode");
  // A program shape (deferred too, though never printed) that the full
  // parse refuses.
  xla::HloProto bad_shape = hlo;
  ProgramShapeOf(bad_shape, 0)->add_parameter_names("bad\xff");
  ExpectSame(bad_shape.SerializeAsString(), "program shape not UTF-8");
  InstructionOf(hlo, 1, 2)->set_name("bad\xff");
  ExpectSame(hlo.SerializeAsString(), "not UTF-8");
}

TEST(PrintWire, TruncatedDamagedAndRandomBytes) {
  const std::string bytes = PrintWireEncoded(SyntheticModule(4));
  for (size_t n = 0; n < bytes.size(); n += n < 300 ? 1 : 97) {
    ExpectSame(bytes.substr(0, n), "truncated to " + std::to_string(n));
  }
  std::mt19937 random(23);
  for (int k = 0; k < 400; ++k) {
    std::string damaged = bytes;
    const int flips = 1 + static_cast<int>(random() % 3);
    for (int f = 0; f < flips; ++f) {
      damaged[random() % damaged.size()] = static_cast<char>(random());
    }
    ExpectSame(damaged, "damaged " + std::to_string(k));
  }
  for (int k = 0; k < 200; ++k) {
    std::string garbage(1 + random() % 300, '\0');
    for (char& c : garbage) c = static_cast<char>(random());
    ExpectSame(garbage, "random " + std::to_string(k));
  }
}

// Every binary proto of the corpus, and every text module in it encoded.
TEST(PrintWire, Corpus) {
  const fs::path corpus = corpus_files::CorpusDir();
  if (!fs::is_directory(corpus)) {
    GTEST_SKIP() << "no corpus at " << corpus << " (set HLO_LSP_CORPUS)";
  }
  int protos = 0, encoded = 0;
  for (const auto& entry : fs::recursive_directory_iterator(corpus)) {
    if (!entry.is_regular_file()) continue;
    const std::string path = entry.path().string();
    if (path.ends_with(".pb") || path.ends_with(".pb.gz")) {
      ExpectSame(ReadFile(entry.path()), path);
      ++protos;
      continue;
    }
    if (!path.ends_with(".hlo") && !path.ends_with(".txt")) continue;
    absl::StatusOr<std::string> bytes =
        ConvertTextToHloProtoBytes(ReadFile(entry.path()));
    if (!bytes.ok()) continue;  // not HLO text, or with syntax errors
    // (A module without computations is no HloProto to the decoder.)
    absl::StatusOr<DecodedProto> whole = DecodeProto(*bytes);
    if (whole.ok() && whole->module) EXPECT_TRUE(Deferred(*bytes)) << path;
    ExpectSame(*bytes, path);
    ++encoded;
  }
  EXPECT_GT(protos + encoded, 0);
  std::printf("compared %d corpus protos and %d encoded text modules\n", protos,
              encoded);
}

}  // namespace
}  // namespace hlo::proto
