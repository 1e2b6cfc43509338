#include "hlo/parser.h"

#include <string>
#include <string_view>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/shape_util.h"

namespace hlo {
namespace {

using ::testing::HasSubstr;

std::string Errors(const ParsedFile& file) {
  std::string out;
  for (const Diagnostic& d : file.diagnostics) {
    LineColumn lc = file.lines().ToLineColumn(d.span.begin);
    out += std::to_string(lc.line + 1) + ":" + std::to_string(lc.column + 1) +
           ": " + d.message + "\n";
  }
  return out;
}

const Instruction* ParsedInstruction(const ParsedFile& file,
                                     std::string_view name) {
  for (const Instruction& i : file.instructions) {
    if (file.Name(i) == name) return &i;
  }
  return nullptr;
}

const Computation* ParsedComputation(const ParsedFile& file,
                                     std::string_view name) {
  for (const Computation& c : file.computations) {
    if (file.Name(c) == name) return &c;
  }
  return nullptr;
}

constexpr std::string_view kLongText =
    R"(HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

%add_f32 (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %add = f32[] add(f32[] %x, f32[] %y)
}

ENTRY %main.5 (Arg_0.1: f32[4]) -> f32[4] {
  %Arg_0.1 = f32[4]{0} parameter(0), metadata={op_name="x"}
  %c = f32[] constant(0)
  %r = f32[] reduce(f32[4]{0} %Arg_0.1, f32[] %c), dimensions={0}, to_apply=%add_f32
  ROOT %b = f32[4]{0} broadcast(f32[] %r), dimensions={}
}
)";

TEST(ParserTest, LongTextModule) {
  auto file = Parse(kLongText);
  EXPECT_EQ(Errors(*file), "");
  ASSERT_EQ(file->modules.size(), 1u);
  const Module& m = file->modules[0];
  EXPECT_EQ(file->Name(m), "jit_f");
  EXPECT_TRUE(m.has_header);
  EXPECT_EQ(m.header_attributes.count, 2u);
  ASSERT_EQ(m.computations.count, 2u);
  const Computation& entry = file->computations[m.entry];
  EXPECT_EQ(file->Name(entry), "main.5");
  EXPECT_TRUE(entry.is_entry);
  EXPECT_EQ(entry.parameters.count, 1u);
  EXPECT_EQ(file->Name(file->instructions[entry.root]), "b");

  const Instruction* reduce = ParsedInstruction(*file, "r");
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(reduce->opcode, Opcode::kReduce);
  ASSERT_EQ(reduce->operands.count, 2u);
  const Operand& arg = file->operands[reduce->operands.begin];
  EXPECT_EQ(file->Text(arg.name), "Arg_0.1");
  EXPECT_EQ(file->Text(arg.span), "f32[4]{0} %Arg_0.1");
  EXPECT_EQ(file->Name(file->instructions[arg.definition]), "Arg_0.1");
  ASSERT_EQ(reduce->called.count, 1u);
  const ComputationRef& ref = file->computation_refs[reduce->called.begin];
  EXPECT_EQ(file->Text(ref.name), "add_f32");
  EXPECT_EQ(file->Name(file->computations[ref.computation]), "add_f32");
  EXPECT_EQ(file->Text(file->FindAttribute(*reduce, "dimensions")->value),
            "{0}");
  EXPECT_EQ(ShapeToString(*file, reduce->shape), "f32[]");
  // The span runs from the name through the last attribute.
  EXPECT_EQ(file->Text(reduce->span),
            "%r = f32[] reduce(f32[4]{0} %Arg_0.1, f32[] %c), "
            "dimensions={0}, to_apply=%add_f32");
  EXPECT_EQ(file->Text(reduce->name), "r");
}

TEST(ParserTest, ShortTextWithoutPercentAndMixed) {
  auto file = Parse(R"(HloModule m
add.1 {
  x.1 = f32[] parameter(0)
  y-2 = f32[] parameter(1)
  ROOT add = f32[] add(x.1, %y-2)
}
ENTRY main {
  p = f32[8]{0} parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(p, c), dimensions={0}, to_apply=add.1
})");
  EXPECT_EQ(Errors(*file), "");
  const Instruction* add = ParsedInstruction(*file, "add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(
      file->Name(file->instructions[file->operands[add->operands.begin + 1]
                                        .definition]),
      "y-2");
}

TEST(ParserTest, HeaderlessModuleLastComputationIsEntry) {
  auto file = Parse(R"(
comp {
  ROOT p = f32[] parameter(0)
}
main {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply=comp
})");
  EXPECT_EQ(Errors(*file), "");
  ASSERT_EQ(file->modules.size(), 1u);
  EXPECT_FALSE(file->modules[0].has_header);
  EXPECT_EQ(file->Name(file->computations[file->modules[0].entry]), "main");
}

TEST(ParserTest, SplitInputFileAndLogFraming) {
  auto file = Parse(R"(HloModule a
ENTRY e { ROOT p = f32[] parameter(0) }
// -----
ENTRY e { ROOT p = s32[] parameter(0) }
// ----------------------------- (a rule, not a separator)
*** Begin module_0001.x.txt ***
HloModule b
ENTRY e { ROOT p = u8[] parameter(0) }
*** End module_0001.x.txt ***
)");
  EXPECT_EQ(Errors(*file), "");
  ASSERT_EQ(file->modules.size(), 3u);
  EXPECT_EQ(file->Name(file->modules[2]), "b");
}

TEST(ParserTest, GlogPrefixesAreStripped) {
  auto file = Parse(
      "I0521 12:04:45.883483    1509 service.cc:186] HloModule m\n"
      "I0521 12:04:45.883483    1509 service.cc:186] ENTRY e {\n"
      "I0521 12:04:45.883483    1509 service.cc:186]   ROOT p = f32[] "
      "parameter(0)\n"
      "I0521 12:04:45.883483    1509 service.cc:186] }\n");
  EXPECT_EQ(Errors(*file), "");
  EXPECT_EQ(file->instructions.size(), 1u);
}

TEST(ParserTest, ShapesLayoutsAndTypes) {
  auto file = Parse(R"(HloModule m
ENTRY e {
  a = f32[8,256]{1,0:T(8,128)(2,1)} parameter(0)
  b = bf16[1024]{0:T(1024)(128)(2,1)S(1)} parameter(1)
  c = s4[64]{0:E(4)} parameter(2)
  d = f32[<=4,?]{1,0} parameter(3)
  e = (f32[], (s32[2]{0}, token[])) parameter(4)
  f = f8e4m3fn[2]{0} parameter(5)
  g = u2[3] parameter(6)
  h = f32[1000000000000,1000000000000] parameter(7)
  i = s32[]{:T(128)} parameter(8)
  ROOT t = (f32[8,256]{1,0:T(8,128)(2,1)}, f32[1000000000000,1000000000000]) tuple(a, h)
})");
  EXPECT_EQ(Errors(*file), "");
  const Instruction* a = ParsedInstruction(*file, "a");
  const Shape& sa = file->shapes[a->shape];
  ASSERT_NE(sa.layout, kNone);
  const Layout& la = file->layouts[sa.layout];
  EXPECT_EQ(la.tiles.count, 2u);
  EXPECT_EQ(file->ints[file->tiles[la.tiles.begin].dims.begin + 1], 128);
  EXPECT_EQ(ByteSize(*file, a->shape), 8 * 256 * 4);

  const Instruction* b = ParsedInstruction(*file, "b");
  EXPECT_EQ(file->layouts[file->shapes[b->shape].layout].memory_space, 1);
  const Instruction* c = ParsedInstruction(*file, "c");
  EXPECT_EQ(file->layouts[file->shapes[c->shape].layout].element_size_in_bits,
            4);
  EXPECT_EQ(ByteSize(*file, c->shape), 32);
  const Instruction* d = ParsedInstruction(*file, "d");
  const Shape& sd = file->shapes[d->shape];
  EXPECT_EQ(sd.dynamic.count, 2u);
  EXPECT_EQ(file->ints[sd.dims.begin + 1], kUnboundedDim);
  EXPECT_EQ(ShapeToString(*file, d->shape, false), "f32[<=4,?]");
  const Instruction* e = ParsedInstruction(*file, "e");
  EXPECT_TRUE(file->shapes[e->shape].is_tuple());
  EXPECT_EQ(file->shapes[e->shape].tuple.count, 2u);
  EXPECT_EQ(ShapeToString(*file, e->shape), "(f32[], (s32[2]{0}, token[]))");
  EXPECT_EQ(file->shapes[ParsedInstruction(*file, "f")->shape].element_type,
            PrimitiveType::kF8E4M3FN);
  // 10^24 elements: parsed, counted as overflow, never allocated.
  const Instruction* h = ParsedInstruction(*file, "h");
  EXPECT_FALSE(ElementCount(*file, h->shape).has_value());
  EXPECT_FALSE(ByteSize(*file, h->shape).has_value());
  // Identical top-level shape texts share one entry.
  const Instruction* t = ParsedInstruction(*file, "t");
  EXPECT_EQ(
      ShapeToString(*file, file->shape_ids[file->shapes[t->shape].tuple.begin]),
      ShapeToString(*file, a->shape));
  auto again = Parse(
      "HloModule m\nENTRY e {\n  a = f32[2]{0} parameter(0)\n"
      "  ROOT b = f32[2]{0} negate(f32[2]{0} a)\n}\n");
  EXPECT_EQ(again->shapes.size(), 1u);
}

TEST(ParserTest, ConstantsAndNestedOperands) {
  auto file = Parse(R"(HloModule m
ENTRY e {
  a = f32[2,3] constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  b = f32[100] constant({...})
  c = (f32[], s32[2]) constant((1, {2, 3}))
  ROOT s = f32[] add(f32[] multiply(f32[] constant(2), f32[] constant(3)), f32[] constant(1))
})");
  EXPECT_EQ(Errors(*file), "");
  const Instruction* a = ParsedInstruction(*file, "a");
  EXPECT_EQ(file->Text(a->operand_list), "({ { 1, 2, 3 }, { 4, 5, 6 } })");
  const Instruction* s = ParsedInstruction(*file, "s");
  ASSERT_EQ(s->operands.count, 2u);
  const Operand& mul = file->operands[s->operands.begin];
  ASSERT_NE(mul.nested, kNone);
  EXPECT_TRUE(file->instructions[mul.nested].is_nested);
  EXPECT_EQ(file->instructions[mul.nested].opcode, Opcode::kMultiply);
  EXPECT_EQ(file->instructions[mul.nested].operands.count, 2u);
  EXPECT_TRUE(s->is_root);
}

TEST(ParserTest, AttributesOfEveryForm) {
  auto file = Parse(
      R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }, frontend_attributes={a="b",c={"x":1}}
FileNames
1 "model.py"
FunctionNames
1 "f"
FileLocations
1 {file_name_id=1 function_name_id=1 line=10 end_line=10 column=2 end_column=5}
StackFrames
1 {file_location_id=1 parent_frame_id=0}

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %e (p: f32[8,8]) -> f32[8,8] {
  %p = f32[8,8]{1,0} parameter(0), sharding={devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}
  %q = f32[8,8]{1,0} copy(%p), sharding={devices=[2,4]<=[4,2]T(1,0)}, control-predecessors={%p}
  %ar = f32[8,8]{1,0} all-reduce(%q), channel_id=1, replica_groups=[2,2]<=[4], to_apply=%sum, backend_config="{\"x\":1}"
  %cc = f32[8,8]{1,0} custom-call(%ar), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1}}, metadata={op_type="Dot" op_name="jit(f)/dot" source_file="model.py" source_line=3 stack_frame_id=1}
  %w = f32[8,8]{1,0} slice(%cc), slice={[0:8], [0:8:1]}, frontend_attributes={_xla_stream_annotation="1"}
  ROOT %t = f32[8,8]{1,0} custom-call(%w), custom_call_target="SetBound", literal=s32[] 1, api_version=API_VERSION_TYPED_FFI
}
)");
  EXPECT_EQ(Errors(*file), "");
  const Module& m = file->modules[0];
  EXPECT_EQ(m.stack_frames.file_names.size(), 1u);
  ASSERT_EQ(m.stack_frames.file_locations.size(), 1u);
  EXPECT_EQ(m.stack_frames.file_locations[0].line, 10);
  EXPECT_EQ(m.stack_frames.stack_frames.size(), 1u);
  const Instruction* q = ParsedInstruction(*file, "q");
  ASSERT_EQ(q->control_predecessors.count, 1u);
  EXPECT_EQ(
      file->name_refs[q->control_predecessors.begin].definition,
      static_cast<Id>(ParsedInstruction(*file, "p") - &file->instructions[0]));
  EXPECT_EQ(file->Text(file->FindAttribute(*q, "sharding")->value),
            "{devices=[2,4]<=[4,2]T(1,0)}");
  const Instruction* ar = ParsedInstruction(*file, "ar");
  EXPECT_EQ(file->Text(file->FindAttribute(*ar, "replica_groups")->value),
            "[2,2]<=[4]");
  EXPECT_EQ(file->Text(file->FindAttribute(*ar, "backend_config")->value),
            R"("{\"x\":1}")");
  const Instruction* cc = ParsedInstruction(*file, "cc");
  EXPECT_THAT(
      std::string(file->Text(file->FindAttribute(*cc, "metadata")->value)),
      HasSubstr("stack_frame_id=1"));
  const Instruction* t = ParsedInstruction(*file, "t");
  EXPECT_EQ(file->Text(file->FindAttribute(*t, "literal")->value), "s32[] 1");
}

TEST(ParserTest, AsyncOpsWithAndWithoutSugar) {
  auto file = Parse(R"(HloModule m
%wrapped (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %n = f32[4]{0} negate(%p)
}
ENTRY %e (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %s = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(f32[4]{0} %x), calls=%wrapped, async_execution_thread="main"
  %d = f32[4]{0} async-done(((f32[4]{0}), f32[4]{0}, s32[]) %s)
  %ars = f32[4]{0} all-reduce-start(%d), to_apply=%wrapped
  %ard = f32[4]{0} all-reduce-done(%ars)
  %cs = ((f32[4]{0}), f32[4]{0}, u32[]) custom-call-start(%ard), custom_call_target="foo"
  ROOT %cd = f32[4]{0} custom-call-done(%cs)
}
)");
  EXPECT_EQ(Errors(*file), "");
  EXPECT_EQ(ParsedInstruction(*file, "s")->opcode, Opcode::kAsyncStart);
  EXPECT_EQ(file->computation_refs[ParsedInstruction(*file, "s")->called.begin]
                .computation,
            static_cast<Id>(ParsedComputation(*file, "wrapped") -
                            &file->computations[0]));
  EXPECT_EQ(ParsedInstruction(*file, "ars")->opcode, Opcode::kAllReduceStart);
  const Instruction* cs = ParsedInstruction(*file, "cs");
  EXPECT_EQ(cs->opcode, Opcode::kAsyncStart);
  EXPECT_EQ(cs->wrapped_opcode, Opcode::kCustomCall);
  EXPECT_EQ(ParsedInstruction(*file, "cd")->opcode, Opcode::kAsyncDone);
}

TEST(ParserTest, ConditionalAndWhileReferences) {
  auto file = Parse(R"(HloModule m
%t (a: f32[]) -> f32[] { ROOT %a = f32[] parameter(0) }
%f (a: f32[]) -> f32[] { %a = f32[] parameter(0)
  ROOT %n = f32[] negate(%a) }
%cond (a: f32[]) -> pred[] { %a = f32[] parameter(0)
  ROOT %c = pred[] compare(%a, %a), direction=LT }
ENTRY %e (p: pred[], x: f32[]) -> f32[] {
  %p = pred[] parameter(0)
  %x = f32[] parameter(1)
  %k = f32[] conditional(%p, %x, %x), true_computation=%t, false_computation=%f
  %b = s32[] constant(1)
  %k2 = f32[] conditional(%b, %x, %x), branch_computations={%t, %f}
  ROOT %w = f32[] while(%k), condition=%cond, body=%f
}
)");
  EXPECT_EQ(Errors(*file), "");
  EXPECT_EQ(ParsedInstruction(*file, "k")->called.count, 2u);
  const Instruction* k2 = ParsedInstruction(*file, "k2");
  ASSERT_EQ(k2->called.count, 2u);
  EXPECT_EQ(file->Text(file->computation_refs[k2->called.begin + 1].name), "f");
  EXPECT_EQ(ParsedInstruction(*file, "w")->called.count, 2u);
}

TEST(ParserTest, UndefinedNamesAreDiagnosedWithRanges) {
  std::string_view text = R"(HloModule m
ENTRY e {
  p = f32[] parameter(0)
  ROOT r = f32[] call(%missing), to_apply=%nowhere
})";
  auto file = Parse(text);
  ASSERT_EQ(file->diagnostics.size(), 2u) << Errors(*file);
  EXPECT_EQ(Errors(*file),
            "4:24: use of undefined value 'missing'\n"
            "4:44: use of undefined computation 'nowhere'\n");
  EXPECT_EQ(file->Text(file->diagnostics[0].span), "missing");
}

TEST(ParserTest, RecoversAfterABrokenLine) {
  auto file = Parse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  bad = f32[4] add(p p)
  worse = f32[4 negate(p)
  ROOT ok = f32[4] negate(p)
}
%after (x: f32[]) -> f32[] {
  ROOT x = f32[] parameter(0)
}
)");
  EXPECT_EQ(Errors(*file),
            "4:22: expected ',' or ')', found 'p'\n"
            "5:17: expected ',' or ']', found 'negate'\n");
  EXPECT_NE(ParsedInstruction(*file, "ok"), nullptr);
  EXPECT_NE(ParsedComputation(*file, "after"), nullptr);
  EXPECT_TRUE(ParsedInstruction(*file, "ok")->is_root);
}

TEST(ParserTest, MissingClosingBraceAndDuplicates) {
  auto file = Parse(R"(HloModule m
c1 {
  a = f32[] parameter(0)
  a = f32[] negate(a)
ENTRY e {
  ROOT p = f32[] parameter(0)
}
)");
  EXPECT_THAT(Errors(*file),
              HasSubstr("missing '}' to close computation 'c1'"));
  EXPECT_THAT(Errors(*file), HasSubstr("redefinition of 'a'"));
  EXPECT_NE(ParsedComputation(*file, "e"), nullptr);
}

TEST(ParserTest, ExpectedVsFoundMessages) {
  auto file =
      Parse("HloModule m\nENTRY e {\n  ROOT x = f32[] frobnicate(1)\n}\n");
  EXPECT_THAT(Errors(*file), HasSubstr("unknown opcode 'frobnicate'"));
  file = Parse("HloModule m\nENTRY e {\n  ROOT x = f32[] negate(\n");
  EXPECT_THAT(Errors(*file), HasSubstr("found end of file"));
  file = Parse(std::string_view("HloModule m\nENTRY e {\n  x\0 = f32[]", 30));
  EXPECT_TRUE(file->HasErrors());
}

TEST(ParserTest, CrlfLineEndsParseClean) {
  std::string text(kLongText);
  std::string crlf;
  for (char c : text) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  auto file = Parse(crlf);
  EXPECT_EQ(Errors(*file), "");
  EXPECT_EQ(file->instructions.size(), Parse(kLongText)->instructions.size());
}

TEST(ParserTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep =
      "HloModule m\nENTRY e {\n  ROOT x = " + std::string(200000, '(') +
      "\n}\n";
  auto file = Parse(deep);
  EXPECT_TRUE(file->HasErrors());
  std::string ops = "HloModule m\nENTRY e {\n  ROOT x = f32[] ";
  for (int i = 0; i < 5000; ++i) ops += "negate(";
  ops += "p";
  ops += std::string(5000, ')');
  ops += "\n}\n";
  file = Parse(ops);
  EXPECT_THAT(Errors(*file), HasSubstr("nested too deeply"));
  std::string braces =
      "HloModule m, frontend_attributes=" + std::string(200000, '{') + "\n";
  file = Parse(braces);
  EXPECT_TRUE(file->HasErrors());
}

TEST(ParserTest, OldFormsStillParse) {
  auto file = Parse(R"(HloModule axpy_module:
ENTRY %axpy.v5 (alpha f32[], x: f32[2,4]) -> f32[2,4] {
  %alpha = f32[] parameter(0)
  %x = f32[2,4]{1,0} parameter(1)
  ROOT %b = f32[2,4]{1,0} broadcast(%alpha), dimensions={}
}
)");
  EXPECT_EQ(Errors(*file), "");
}

TEST(ParserTest, DiagnosticsAreCapped) {
  std::string text = "HloModule m\nENTRY e {\n";
  for (int i = 0; i < 3000; ++i) text += "  x = f32[] ???\n";
  text += "}\n";
  ParseOptions options;
  options.max_diagnostics = 100;
  auto file = Parse(text, options);
  EXPECT_EQ(file->diagnostics.size(), 100u);
  EXPECT_TRUE(file->diagnostics_truncated);
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

TEST(ReverseEdgesTest, UsersAndCallersAreIndexed) {
  auto file = Parse(R"(HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (p: f32[4]) -> f32[] {
  %p = f32[4]{0} parameter(0)
  %z = f32[] constant(0)
  %r1 = f32[] reduce(%p, %z), dimensions={0}, to_apply=%add
  %r2 = f32[] reduce(%p, %z), dimensions={0}, to_apply=%add
  ROOT %t = f32[] add(%r1, %r2)
})");
  ASSERT_FALSE(file->HasErrors());
  Id p =
      static_cast<Id>(ParsedInstruction(*file, "p") - &file->instructions[0]);
  ASSERT_EQ(file->use_offsets[p + 1] - file->use_offsets[p], 2u);
  EXPECT_EQ(file->Name(
                file->instructions[file->use_edges[file->use_offsets[p]].user]),
            "r1");
  Id add =
      static_cast<Id>(ParsedComputation(*file, "add") - &file->computations[0]);
  EXPECT_EQ(file->caller_offsets[add + 1] - file->caller_offsets[add], 2u);
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

TEST(ParserTest, ConstantsMustFitTheirShape) {
  auto file = Parse(
      "HloModule m\nENTRY e {\n  a = f32[2] constant({1,2,3})\n"
      "  b = f32[] constant({{1}})\n  c = f32[2,2] constant({{1,2},{3,4}})\n"
      "  d = f32[1000000000000] constant({...})\n  ROOT t = s8[] "
      "constant(1000)\n}\n");
  std::string errors = "\n" + Errors(*file);  // "\nLINE:" anchors a line
  EXPECT_THAT(errors, HasSubstr("\n3:"));
  EXPECT_THAT(errors, HasSubstr("\n4:"));
  EXPECT_THAT(errors, HasSubstr("\n7:"));
  EXPECT_THAT(errors, ::testing::Not(HasSubstr("\n5:")));
  EXPECT_THAT(errors, ::testing::Not(HasSubstr("\n6:")));
  EXPECT_THAT(errors, HasSubstr("constant does not match its shape"));
}

TEST(ParserTest, MissingBraceClosesTheBodySpan) {
  auto file = Parse(
      "HloModule m\nc {\n  ROOT p = f32[] parameter(0)\n\nENTRY e {\n  ROOT q "
      "= f32[] parameter(0)\n}\n");
  const Computation* c = ParsedComputation(*file, "c");
  ASSERT_NE(c, nullptr);
  EXPECT_LE(c->body.begin, c->body.end);
  EXPECT_EQ(file->Text(c->body), "{\n  ROOT p = f32[] parameter(0)");
}

}  // namespace
}  // namespace hlo
