// text -> HloModuleProto -> text for the fields the encoder learnt late:
// origin, statistics, result_accuracy, output_to_operand_aliasing, the
// input_output_alias / buffer_donor module attributes, fp8 and f4
// constants, dim_labels with '?', and inline computation bodies.
#include <cmath>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/proto/encode.h"
#include "hlo/proto/print.h"
#include "hlo/proto/small_float.h"

namespace hlo::proto {
namespace {

absl::StatusOr<xla::HloModuleProto> EncodeText(const std::string& text) {
  std::unique_ptr<ParsedFile> file = Parse(text);
  EXPECT_FALSE(file->HasErrors()) << text;
  return EncodeModule(*file);
}

std::string Print(const xla::HloModuleProto& module) {
  std::string out;
  AppendModuleText(module, PrintOptions(), &out);
  return out;
}

const xla::HloInstructionProto* FindInstruction(
    const xla::HloModuleProto& module, const std::string& name) {
  for (const auto& c : module.computations()) {
    for (const auto& i : c.instructions()) {
      if (i.name() == name) return &i;
    }
  }
  return nullptr;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(EncodeFields, OriginStatisticsAccuracyAliasing) {
  const std::string text =
      "HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, "
      "{2}, must-alias) }, buffer_donor={ (0, {}), (1, {1}) }\n"
      "%f (a: f32[4]) -> (f32[4], f32[4]) {\n"
      "  %a = f32[4] parameter(0)\n"
      "  ROOT %t = (f32[4], f32[4]) tuple(%a, %a)\n}\n"
      "ENTRY %e (p: f32[4], q: (f32[4], f32[4], f32[4])) -> (f32[4], f32[4]) "
      "{\n"
      "  %p = f32[4] parameter(0), origin={{\"x\"}}\n"
      "  %q = (f32[4], f32[4], f32[4]) parameter(1)\n"
      "  %x = f32[4] exponential(%p), statistics={visualizing_index=1,"
      "count_nan=25,count_inf=0.5}, result_accuracy={tolerance={atol=0.5,"
      "rtol=0.25,ulps=2}}\n"
      "  %y = f32[4] exponential(%x), result_accuracy={mode=highest}\n"
      "  ROOT %r = (f32[4], f32[4]) fusion(%y), kind=kLoop, calls=%f, "
      "output_to_operand_aliasing={{0}: (0, {}), {1}: (0, {})}, "
      "origin={({\"r0\" {1,2}}, {})}\n}\n";
  absl::StatusOr<xla::HloModuleProto> module = EncodeText(text);
  ASSERT_TRUE(module.ok()) << module.status();

  ASSERT_EQ(module->input_output_alias().entries_size(), 2);
  const auto& alias = module->input_output_alias().entries(1);
  EXPECT_EQ(alias.output_shape_index(0), 1);
  EXPECT_EQ(alias.parameter_number(), 1);
  EXPECT_EQ(alias.parameter_shape_index(0), 2);
  EXPECT_EQ(alias.kind(), xla::MUST_ALIAS);
  EXPECT_EQ(module->input_output_alias().entries(0).kind(), xla::MAY_ALIAS);
  ASSERT_EQ(module->buffer_donor().entries_size(), 2);
  EXPECT_EQ(module->buffer_donor().entries(1).parameter_number(), 1);
  EXPECT_EQ(module->buffer_donor().entries(1).parameter_shape_index(0), 1);

  const xla::HloInstructionProto* x = FindInstruction(*module, "x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->statistics_viz().stat_index_to_visualize(), 1);
  ASSERT_EQ(x->statistics_viz().statistics_size(), 2);
  EXPECT_EQ(x->statistics_viz().statistics(0).stat_name(), "count_nan");
  EXPECT_EQ(x->statistics_viz().statistics(1).stat_val(), 0.5);
  EXPECT_EQ(x->result_accuracy().tolerance().rtol(), 0.25);
  EXPECT_EQ(x->result_accuracy().tolerance().ulps(), 2);
  EXPECT_EQ(FindInstruction(*module, "y")->result_accuracy().mode(),
            xla::ResultAccuracy::HIGHEST);

  const xla::HloInstructionProto* r = FindInstruction(*module, "r");
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->output_operand_aliasing_size(), 2);
  EXPECT_EQ(r->output_operand_aliasing(1).output_shape_index(0), 1);
  ASSERT_EQ(r->original_value().elements_size(), 1);
  EXPECT_EQ(r->original_value().elements(0).shape_index(0), 0);
  EXPECT_EQ(r->original_value().elements(0).original_array().instruction_name(),
            "r0");
  EXPECT_EQ(r->original_value().elements(0).original_array().shape_index(1), 2);

  const std::string printed = Print(*module);
  EXPECT_TRUE(Contains(printed,
                       "input_output_alias={ {0}: (0, {}, may-alias), {1}: "
                       "(1, {2}, must-alias) }"))
      << printed;
  EXPECT_TRUE(Contains(printed, "buffer_donor={ (0, {}), (1, {1}) }"))
      << printed;
  EXPECT_TRUE(Contains(printed, "parameter(0), origin={{\"x\"}}")) << printed;
  EXPECT_TRUE(Contains(printed,
                       "statistics={visualizing_index=1,count_nan=25,"
                       "count_inf=0.5}, result_accuracy={tolerance={atol=0.5,"
                       "rtol=0.25,ulps=2}}"))
      << printed;
  EXPECT_TRUE(Contains(printed, "result_accuracy={mode=highest}")) << printed;
  EXPECT_TRUE(Contains(printed,
                       "output_to_operand_aliasing={{0}: (0, {}), {1}: (0, "
                       "{})}"))
      << printed;
  EXPECT_TRUE(Contains(printed, "origin={({\"r0\" {1,2}}, {})}")) << printed;

  // And the printed text encodes to the same proto.
  absl::StatusOr<xla::HloModuleProto> again = EncodeText(printed);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(Print(*again), printed);
}

TEST(EncodeFields, SmallFloatConstants) {
  const std::string text =
      "HloModule m\nENTRY %e () -> (f8e4m3fn[5], f8e5m2[4], f4e2m1fn[3], "
      "f8e8m0fnu[2], f8e4m3fnuz[2]) {\n"
      "  %a = f8e4m3fn[5] constant({1, -2.5, 448, 0.001953125, nan})\n"
      "  %b = f8e5m2[4] constant({0.5, -inf, 57344, 3})\n"
      "  %c = f4e2m1fn[3] constant({1.5, -6, 0})\n"
      "  %d = f8e8m0fnu[2] constant({1, 0.25})\n"
      "  %f = f8e4m3fnuz[2] constant({240, -0.125})\n"
      "  ROOT %t = (f8e4m3fn[5], f8e5m2[4], f4e2m1fn[3], f8e8m0fnu[2], "
      "f8e4m3fnuz[2]) tuple(%a, %b, %c, %d, %f)\n}\n";
  absl::StatusOr<xla::HloModuleProto> module = EncodeText(text);
  ASSERT_TRUE(module.ok()) << module.status();
  // f8e4m3fn: 1 = 0x38, -2.5 = 0xc2, 448 = 0x7e (largest), 2^-9 = 0x01
  // (smallest subnormal), NaN = 0x7f.
  EXPECT_EQ(FindInstruction(*module, "a")->literal().f8e4m3fns(),
            std::string("\x38\xc2\x7e\x01\x7f", 5));
  // f8e5m2: 0.5 = 0x38, -inf = 0xfc, 57344 = 0x7b, 3 = 0x42.
  EXPECT_EQ(FindInstruction(*module, "b")->literal().f8e5m2s(),
            std::string("\x38\xfc\x7b\x42", 4));
  // f4e2m1fn: 1.5 = 0x3, -6 = 0xf, 0 = 0x0.
  EXPECT_EQ(FindInstruction(*module, "c")->literal().f4e2m1fns(),
            std::string("\x03\x0f\x00", 3));
  // f8e8m0fnu: 2^(e-127).
  EXPECT_EQ(FindInstruction(*module, "d")->literal().f8e8m0fnus(),
            std::string("\x7f\x7d", 2));
  // f8e4m3fnuz: bias 8, 240 = 0x7f, -0.125 = 0xa8.
  EXPECT_EQ(FindInstruction(*module, "f")->literal().f8e4m3fnuzs(),
            std::string("\x7f\xa8", 2));
  const std::string printed = Print(*module);
  EXPECT_TRUE(Contains(printed, "constant({1, -2.5, 448, 0.001953125, nan})"))
      << printed;
  EXPECT_TRUE(Contains(printed, "constant({0.5, -inf, 57344, 3})")) << printed;
  EXPECT_TRUE(Contains(printed, "constant({1.5, -6, 0})")) << printed;
  EXPECT_TRUE(Contains(printed, "constant({1, 0.25})")) << printed;
  EXPECT_TRUE(Contains(printed, "constant({240, -0.125})")) << printed;
}

TEST(EncodeFields, SmallFloatRounding) {
  const SmallFloat e4m3fn = *SmallFloatFormat(xla::F8E4M3FN);
  const SmallFloat e5m2 = *SmallFloatFormat(xla::F8E5M2);
  // Every pattern decodes and encodes back to itself (NaNs to the NaN).
  for (int b = 0; b < 256; ++b) {
    const double v = DecodeSmallFloat(static_cast<uint8_t>(b), e5m2);
    if (std::isnan(v)) continue;
    EXPECT_EQ(EncodeSmallFloat(v, e5m2), b) << v;
  }
  // 1.0625 lies halfway between 1 (0x38) and 1.125 (0x39): ties to even.
  EXPECT_EQ(EncodeSmallFloat(1.0625, e4m3fn), 0x38);
  EXPECT_EQ(EncodeSmallFloat(1.1875, e4m3fn), 0x3a);  // 1.125|1.25 -> 1.25
  // Past the largest (448, mantissa 110) by more than half a step (16):
  // NaN, as e4m3fn has no infinity; the tie at 464 stays at the even 448.
  EXPECT_EQ(EncodeSmallFloat(470, e4m3fn), 0x7f);
  EXPECT_EQ(EncodeSmallFloat(464, e4m3fn), 0x7e);
  EXPECT_EQ(EncodeSmallFloat(460, e4m3fn), 0x7e);
  // e5m2's largest 57344 is odd (mantissa 11): the tie at 61440 is inf.
  EXPECT_EQ(EncodeSmallFloat(61440, e5m2), 0x7c);
  EXPECT_EQ(EncodeSmallFloat(61439, e5m2), 0x7b);
  EXPECT_EQ(EncodeSmallFloat(-1e6, e5m2), 0xfc);
}

TEST(EncodeFields, DimLabelsWithUnknownDimensions) {
  const std::string text =
      "HloModule m\nENTRY %e () -> f32[100] {\n"
      "  ROOT %r = f32[100]{0} custom-call(), window={size=2x2}, "
      "dim_labels=?b01f_0?1io->b01?f, custom_call_target=\"target\"\n}\n";
  absl::StatusOr<xla::HloModuleProto> module = EncodeText(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const auto& d =
      FindInstruction(*module, "r")->convolution_dimension_numbers();
  ASSERT_EQ(d.input_spatial_dimensions_size(), 3);
  EXPECT_EQ(d.input_spatial_dimensions(0), 2);
  EXPECT_EQ(d.input_spatial_dimensions(2), -1);
  EXPECT_EQ(d.kernel_spatial_dimensions(1), 2);
  EXPECT_TRUE(Contains(Print(*module), "dim_labels=?b01f_0?1io->b01?f"));
}

TEST(EncodeFields, InlineBodiesBecomeComputations) {
  const std::string text =
      "HloModule main\n\nENTRY main {\n"
      "  arg.0 = (s32[], s32[]) parameter(0)\n"
      "  ROOT call.0 = call(arg.0), to_apply={\n"
      "    arg.0 = (s32[], s32[]) parameter(0)\n"
      "    gte.0 = get-tuple-element(arg.0), index=0\n"
      "    call.1 = call(gte.0), to_apply={\n"
      "      x = s32[] parameter(0)\n"
      "      ROOT y = add(x, x)\n"
      "    }\n"
      "    ROOT t = tuple(call.1, gte.0)\n"
      "  }\n}\n";
  absl::StatusOr<xla::HloModuleProto> module = EncodeText(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_EQ(module->computations_size(), 3);
  // Callees first, as XLA's CreateFromProto wants.
  EXPECT_EQ(module->computations(0).name(), "call.1.to_apply");
  EXPECT_EQ(module->computations(1).name(), "call.0.to_apply");
  EXPECT_EQ(module->computations(2).name(), "main");
  const xla::HloInstructionProto* call = FindInstruction(*module, "call.0");
  ASSERT_NE(call, nullptr);
  ASSERT_EQ(call->called_computation_ids_size(), 1);
  EXPECT_EQ(call->called_computation_ids(0), module->computations(1).id());
  // The omitted result shape comes from the body's root.
  EXPECT_EQ(call->shape().element_type(), xla::TUPLE);
  EXPECT_EQ(call->shape().tuple_shapes_size(), 2);
  const std::string printed = Print(*module);
  EXPECT_TRUE(Contains(printed, "to_apply=%call.0.to_apply")) << printed;
  std::unique_ptr<ParsedFile> back = Parse(printed);
  EXPECT_FALSE(back->HasErrors()) << printed;
}

}  // namespace
}  // namespace hlo::proto
