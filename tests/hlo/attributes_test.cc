#include "hlo/attributes.h"

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"

// Counts heap allocations made while `g_count_allocations` is set, to check
// that validating common attributes allocates nothing.
namespace {
thread_local bool g_count_allocations = false;
thread_local size_t g_allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
  if (g_count_allocations) ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

void ExpectValid(std::string_view key, std::string_view value) {
  std::optional<AttributeError> e = ValidateAttributeValue(key, value);
  EXPECT_EQ(e, std::nullopt)
      << key << "=" << value << ": " << (e ? e->message : "") << " at "
      << (e ? e->offset : 0);
}

// Offset of the validation error, 9999 when the value was accepted.
uint32_t ErrorAt(std::string_view key, std::string_view value) {
  std::optional<AttributeError> e = ValidateAttributeValue(key, value);
  EXPECT_TRUE(e.has_value()) << key << "=" << value;
  return e ? e->offset : 9999;
}

template <typename T>
std::string Message(const absl::StatusOr<T>& v) {
  EXPECT_FALSE(v.ok());
  return v.ok() ? "" : std::string(v.status().message());
}

bool operator==(const AttributeError& a, const AttributeError& b) {
  return a.offset == b.offset && a.length == b.length && a.message == b.message;
}

TEST(ValidateAttributeTest, UnknownKeysAreNotChecked) {
  EXPECT_EQ(ValidateAttributeValue("no_such_key", "{{{"), std::nullopt);
  EXPECT_EQ(ValidateAttributeValue("origin", "{({\"p0\"})}"), std::nullopt);
}

// Real attribute values copied from /work/shared/corpus dumps.
TEST(ValidateAttributeTest, CorpusValues) {
  ExpectValid("dimensions", "{1,0}");
  ExpectValid("dimensions", "{}");
  ExpectValid("index", "3");
  ExpectValid("to_apply", "%region_0.4");
  ExpectValid("calls", "%fused_computation.1");
  ExpectValid("to_apply",
              "{\n  %p = f32[] parameter(0)\n  ROOT %r = f32[] "
              "add(%p, %p)\n}");
  ExpectValid("branch_computations", "{%a, %b}");
  ExpectValid("control-predecessors", "{%x.1, %y}");
  ExpectValid("metadata", "{op_type=\"aten__sum\" op_name=\"aten__sum\"}");
  ExpectValid("metadata",
              "{op_name=\"jit(f)/transpose[permutation=(1, 2, 0)]\" "
              "source_file=\"/x/jaxfft.py\" source_line=45}");
  ExpectValid("metadata", "{source_file=\"test.cc\", source_line=42}");
  ExpectValid("metadata",
              "{op_type=\"a\" op_name=\"b\" source_file=\"c\" source_line=1 "
              "profile_type={1} deduplicated_name=\"d\" "
              "scheduling_name=\"foo\"}");
  ExpectValid("metadata",
              "{op_name=\"x\" stack_frame_id=3 source_column=2 "
              "source_end_line=4 source_end_column=9}");
  ExpectValid("metadata", "{}");
  ExpectValid("sharding", "{devices=[8,1,1]<=[8]}");
  ExpectValid("replica_groups", "[64,2]<=[2,64]T(1,0)");
  ExpectValid("replica_groups", "{{0,1,2,3},{4,5,6,7}}");
  ExpectValid("replica_groups", "{}");
  ExpectValid("source_target_pairs", "{{0,1},{1,2},{2,3},{3,0}}");
  ExpectValid("slice", "{[2:128:2], [0:14:1], [5:256:1]}");
  ExpectValid("slice", "{[0:1],[0:4],[0:6],[0:6]}");
  ExpectValid("padding", "0_0x0_0x0_0x1_0");
  ExpectValid("padding", "2_4_1x2_1_2");
  ExpectValid("window",
              "{size=32x128 stride=31x1 pad=0_0x127_127 "
              "lhs_dilate=32x1 rhs_reversal=0x1}");
  ExpectValid("window", "{size=3x3x3 pad=-1_-1x1_1x1_1}");
  ExpectValid("dim_labels", "b01f_01io->b01f");
  ExpectValid("dim_labels", "0b34f12_34i12o0->0b12f34");
  ExpectValid("dim_labels", "?b01f_0?1io->b01?f");
  ExpectValid("output_to_operand_aliasing", "{{}: (0, {})}");
  ExpectValid("output_to_operand_aliasing", "{{0}: (1, {}), {1}: (0, {0})}");
  ExpectValid("output_to_operand_aliasing", "{{0, 0}: (0, {})}");
  ExpectValid("frontend_attributes",
              "{_scheduling_group_id=\"0\", "
              "keep_original_sequence_order_in_group=\"true\"}");
  ExpectValid("frontend_attributes",
              "{\n      _xla_send_recv_source_target_pairs={{0,1},{1,2}}}");
  ExpectValid("backend_config", "\"__triton_gemm\"");
  ExpectValid("backend_config",
              "{\"known_trip_count\":{\"n\":\"10\"},\n"
              "  \"known_induction_variable\":{\"tuple_index\":\"2\"}}");
  ExpectValid("backend_config",
              "{attn_heads = 32 : i64, dropout_probability = 0.000000e+00 : "
              "f64}");
  ExpectValid("backend_config", "\"{ \\\"gemm\\\": {\\\"alpha\\\":1}}\"");
  ExpectValid("custom_call_target", "\"foo\\\"bar\"");
  ExpectValid("api_version", "API_VERSION_UNSPECIFIED");  // old PT/XLA dumps
  ExpectValid("api_version", "API_VERSION_TYPED_FFI");
  ExpectValid("operand_precision", "{PACKED_NIBBLE, PACKED_NIBBLE}");
  ExpectValid("operand_precision", "{highest,high}");
  ExpectValid("algorithm", "dot_bf16_bf16_f32_x6");
  ExpectValid("algorithm", "rng_three_fry");
  ExpectValid("direction", "LT");
  ExpectValid("type", "TOTALORDER");
  ExpectValid("kind", "kLoop");
  ExpectValid("distribution", "rng_uniform");
  ExpectValid("fft_type", "IRFFT");
  ExpectValid("fft_length", "{16,16}");
  ExpectValid("transpose_a", "NO_TRANSPOSE");
  ExpectValid("use_global_device_ids", "true");
  ExpectValid("channel_id", "12");
  ExpectValid("epsilon", "0.001");
  ExpectValid("epsilon", "1e-05");
  ExpectValid("parameter_replication", "{true,false}");
  ExpectValid("slice_sizes", "{1,2,3}");
  ExpectValid("slice_sizes", "{{1,2},{3,4}}");
  ExpectValid("statistics", "{visualizing_index=0,count_nan=100,count_inf=2}");
  ExpectValid("padding_type", "PADDING_SAME");
  ExpectValid("schedule", "SCHEDULE_LATEST");
  ExpectValid("literal",
              "( s32[4]{0} {4, 128, 128, 3}, pred[4]{0} "
              "{1, 0, 0, 0} )");
  ExpectValid("iota_dimension", "0");
}

TEST(ValidateAttributeTest, MalformedValuesWithOffsets) {
  EXPECT_EQ(ErrorAt("dimensions", "{1,,2}"), 3u);
  EXPECT_EQ(ErrorAt("dimensions", "{1,2"), 4u);
  EXPECT_EQ(ErrorAt("dimensions", "{1,2} x"), 6u);
  EXPECT_EQ(ErrorAt("dimensions", "{99999999999999999999}"), 1u);
  ExpectValid("index", "-1");  // the verifier's business, as in XLA
  EXPECT_EQ(ErrorAt("index", "\"1\""), 0u);
  EXPECT_EQ(ErrorAt("index", "1x"), 0u);
  EXPECT_EQ(ErrorAt("to_apply", "%"), 0u);
  EXPECT_EQ(ErrorAt("to_apply", "{ unbalanced"), 0u);
  EXPECT_EQ(ErrorAt("branch_computations", "{%a %b}"), 4u);
  EXPECT_EQ(ErrorAt("metadata", "{op_type=3}"), 9u);
  EXPECT_EQ(ErrorAt("metadata", "{op_type=\"a\" op_type=\"b\"}"), 13u);
  EXPECT_EQ(ErrorAt("metadata", "{op_name=\"bad\\q\"}"), 13u);
  EXPECT_EQ(ErrorAt("metadata", "{op_name=\"x\""), 12u);  // at the end
  EXPECT_EQ(ErrorAt("metadata", "{source_line=\"x\"}"), 13u);
  EXPECT_EQ(ErrorAt("window", "{size=3x3 stride=2}"), 17u);
  EXPECT_EQ(ErrorAt("window", "{stride=2}"), 0u);
  EXPECT_EQ(ErrorAt("window", "{size=3 size=3}"), 8u);
  EXPECT_EQ(ErrorAt("window", "{size=3 pad=1_1_1}"), 12u);
  EXPECT_EQ(ErrorAt("window", "{size=2x2 rhs_reversal=0x2}"), 25u);
  EXPECT_EQ(ErrorAt("window", "{size=2 colour=1}"), 8u);
  EXPECT_EQ(ErrorAt("dim_labels", "b01f_01io"), 0u);
  EXPECT_EQ(ErrorAt("dim_labels", "b01x_01io->b01f"), 3u);
  EXPECT_EQ(ErrorAt("dim_labels", "b01f_01ioo->b01f"), 9u);
  EXPECT_EQ(ErrorAt("dim_labels", "b02f_01io->b01f"), 0u);
  EXPECT_EQ(ErrorAt("dim_labels", "b01f_0io->b0f"), 0u);
  EXPECT_EQ(ErrorAt("slice", "{[0:2:0]}"), 6u);
  EXPECT_EQ(ErrorAt("slice", "{[0 2]}"), 4u);
  EXPECT_EQ(ErrorAt("padding", "0_0x1"), 4u);
  EXPECT_EQ(ErrorAt("padding", "0_0_-1"), 4u);
  EXPECT_EQ(ErrorAt("replica_groups", "[2,2,2]<=[8]"), 0u);
  EXPECT_EQ(ErrorAt("replica_groups", "[2,4]<=[4]"), 7u);
  EXPECT_EQ(ErrorAt("replica_groups", "[2,4]<=[8]T(1)"), 12u);  // axis 1 of 1
  EXPECT_EQ(ErrorAt("replica_groups", "{{0,1},{2,3}"), 12u);
  EXPECT_EQ(ErrorAt("source_target_pairs", "{{0,1,2}}"), 1u);
  EXPECT_EQ(ErrorAt("source_target_pairs", "{{0}}"), 1u);
  EXPECT_EQ(ErrorAt("output_to_operand_aliasing", "{{0}: 1}"), 6u);
  EXPECT_EQ(ErrorAt("frontend_attributes", "{a=1}"), 3u);
  EXPECT_EQ(ErrorAt("frontend_attributes", "{\"a\"=\"1\"}"), 1u);
  EXPECT_EQ(ErrorAt("backend_config", "{\"a\": 1"), 0u);
  EXPECT_EQ(ErrorAt("backend_config", "\"abc"), 0u);
  EXPECT_EQ(ErrorAt("custom_call_target", "foo"), 0u);
  EXPECT_EQ(ErrorAt("api_version", "API_VERSION_THAT_DOESNT_EXIST"), 0u);
  EXPECT_EQ(ErrorAt("direction", "lt"), 0u);  // exact case in XLA
  EXPECT_EQ(ErrorAt("kind", "kSideways"), 0u);
  EXPECT_EQ(ErrorAt("operand_precision", "{default,fast}"), 9u);
  EXPECT_EQ(ErrorAt("algorithm", "dot_f99"), 0u);
  EXPECT_EQ(ErrorAt("is_stable", "yes"), 0u);
  EXPECT_EQ(ErrorAt("epsilon", "1e"), 0u);
  EXPECT_EQ(ErrorAt("parameter_replication", "{true,maybe}"), 6u);
  EXPECT_EQ(ErrorAt("literal", "s32[2]{0} {1}"), 0u);
  EXPECT_EQ(ErrorAt("dimensions", "{1, /* unterminated"), 4u);
}

TEST(ValidateAttributeTest, SuccessPathDoesNotAllocate) {
  const RawAttribute kCommon[] = {
      {"metadata",
       "{op_type=\"Add\" op_name=\"jit(f)/add\" "
       "source_file=\"/a/b.py\" source_line=3}"},
      {"backend_config", "{\"operation_queue_id\":\"0\"}"},
      {"backend_config", "\"a\\\"b\""},
      {"sharding",
       "{{replicated}, {devices=[2,4]<=[4,2]T(1,0) "
       "last_tile_dim_replicate metadata={op_name=\"a\"}}}"},
      {"sharding", "{devices=[2,1]0,1}"},
      {"dimensions", "{0,1,2}"},
      {"to_apply", "%region_0.4"},
      {"calls", "%fused_computation"},
      {"frontend_attributes", "{_xla_compute_type=\"host\",k={\"a\":1}}"},
      {"slice", "{[0:2], [1:5:2]}"},
      {"padding", "0_0x1_2_1"},
      {"window", "{size=3x3 stride=2x2 pad=1_1x1_1}"},
      {"dim_labels", "b01f_01io->b01f"},
      {"replica_groups", "[2,4]<=[4,2]T(1,0)"},
      {"replica_groups", "{{0,1},{2,3}}"},
      {"source_target_pairs", "{{0,1},{1,0}}"},
      {"output_to_operand_aliasing", "{{0}: (1, {})}"},
      {"direction", "LT"},
      {"kind", "kLoop"},
      {"custom_call_target", "\"__cublas$gemm\""},
      {"api_version", "API_VERSION_TYPED_FFI"},
      {"operand_precision", "{high,default}"},
      {"index", "2"},
      {"epsilon", "1e-05"},
      {"is_stable", "true"},
  };
  for (const RawAttribute& a : kCommon) ExpectValid(a.key, a.value);  // warm
  g_allocations = 0;
  g_count_allocations = true;
  for (const RawAttribute& a : kCommon) {
    (void)ValidateAttributeValue(a.key, a.value);
  }
  g_count_allocations = false;
  EXPECT_EQ(g_allocations, 0u);
  // The counter does see allocations (decoding allocates).
  g_count_allocations = true;
  EXPECT_TRUE(DecodeIntList("{1,2,3}").ok());
  g_count_allocations = false;
  EXPECT_GT(g_allocations, 0u);
}

// The allocation-free escape check agrees with absl::CUnescape.
TEST(ValidateAttributeTest, EscapeCheckMatchesDecoder) {
  for (std::string_view s :
       {R"("\x41")", R"("\x141")", R"("\x0041")", R"("\777")", R"("\101")",
        R"("\q")", R"("\u00e9")", R"("\u00")", R"("\U0001F600")", R"("\n\t\"")",
        R"("\")", R"("\0")", R"('single \'q\'')"}) {
    bool invalid = ValidateAttributeValue("custom_call_target", s).has_value();
    EXPECT_EQ(invalid, !DecodeString(s).ok()) << s;
  }
  EXPECT_EQ(*DecodeString(R"("\101\x42")"), "AB");
}

TEST(ValidateAttributeTest, DepthIsBounded) {
  std::string deep_meta = "{op_name=\"a\" x=" + std::string(100000, '{') + "}";
  EXPECT_TRUE(ValidateAttributeValue("metadata", deep_meta).has_value());
  std::string deep = std::string(100000, '{') + std::string(100000, '}');
  EXPECT_TRUE(ValidateAttributeValue("sharding", deep).has_value());
  EXPECT_TRUE(ValidateAttributeValue("replica_groups", deep).has_value());
  EXPECT_TRUE(
      ValidateAttributeValue("output_to_operand_aliasing", deep).has_value());
  // Balanced JSON braces are scanned without recursion.
  EXPECT_EQ(ValidateAttributeValue("backend_config", deep), std::nullopt);
}

TEST(DecodeAttributeTest, Lists) {
  EXPECT_THAT(*DecodeIntList("{1, 2, -3}"), ElementsAre(1, 2, -3));
  EXPECT_THAT(*DecodeIntList("{}"), IsEmpty());
  // Non-negative values up to uint64 max keep their bit pattern.
  EXPECT_THAT(*DecodeIntList("{18446744073709551615}"), ElementsAre(-1));
  EXPECT_THAT(*DecodeIntListList("{{0,1},{2,3}}"),
              ElementsAre(ElementsAre(0, 1), ElementsAre(2, 3)));
  EXPECT_THAT(Message(DecodeIntList("{1,2")), HasSubstr("offset 4:"));
  EXPECT_EQ(*DecodeBool("true"), true);
  EXPECT_EQ(*DecodeInt("-7"), -7);
  EXPECT_EQ(*DecodeFloat("-inf"), -std::numeric_limits<double>::infinity());
  EXPECT_THAT(*DecodeBoolList("{true,false}"), ElementsAre(true, false));
  EXPECT_EQ(*DecodeString("\"a\\tb\\x41\""), "a\tbA");
}

TEST(DecodeAttributeTest, Window) {
  absl::StatusOr<Window> w = DecodeWindow(
      "{size=3x3 stride=2x2 pad=1_1x0_-1 lhs_dilate=1x2 rhs_dilate=3x1 "
      "rhs_reversal=0x1}");
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->dimensions.size(), 2u);
  const WindowDimension& d1 = w->dimensions[1];
  EXPECT_EQ(d1.size, 3);
  EXPECT_EQ(d1.stride, 2);
  EXPECT_EQ(d1.padding_low, 0);
  EXPECT_EQ(d1.padding_high, -1);
  EXPECT_EQ(d1.base_dilation, 2);
  EXPECT_EQ(d1.window_dilation, 1);
  EXPECT_TRUE(d1.window_reversal);
  EXPECT_EQ(w->dimensions[0].window_dilation, 3);
  EXPECT_FALSE(w->dimensions[0].window_reversal);
  // Defaults for fields not written.
  w = DecodeWindow("{size=5}");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->dimensions[0].stride, 1);
  EXPECT_EQ(w->dimensions[0].base_dilation, 1);
  EXPECT_TRUE(DecodeWindow("{}")->dimensions.empty());
  EXPECT_THAT(Message(DecodeWindow("{size=3x3 stride=2}")),
              HasSubstr("offset 17: stride= has 1 dimensions but size= has 2"));
}

TEST(DecodeAttributeTest, ConvolutionDimLabels) {
  absl::StatusOr<ConvolutionDimensionNumbers> c =
      DecodeConvolutionDimensionNumbers("b01f_01io->b01f");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->input_batch_dimension, 0);
  EXPECT_EQ(c->input_feature_dimension, 3);
  EXPECT_THAT(c->input_spatial_dimensions, ElementsAre(1, 2));
  EXPECT_EQ(c->kernel_input_feature_dimension, 2);
  EXPECT_EQ(c->kernel_output_feature_dimension, 3);
  EXPECT_THAT(c->kernel_spatial_dimensions, ElementsAre(0, 1));
  EXPECT_EQ(c->output_batch_dimension, 0);
  EXPECT_EQ(c->output_feature_dimension, 3);

  c = DecodeConvolutionDimensionNumbers("0b34f12_34i12o0->0b12f34");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->input_batch_dimension, 1);
  EXPECT_THAT(c->input_spatial_dimensions, ElementsAre(0, 5, 6, 2, 3));
  EXPECT_THAT(c->kernel_spatial_dimensions, ElementsAre(6, 3, 4, 0, 1));
  EXPECT_THAT(c->output_spatial_dimensions, ElementsAre(0, 2, 3, 5, 6));
  EXPECT_THAT(Message(DecodeConvolutionDimensionNumbers("bf_oi->fb0")),
              HasSubstr("same rank"));
}

TEST(DecodeAttributeTest, SliceAndPadding) {
  absl::StatusOr<SliceSpec> s = DecodeSlice("{[0:2], [1:5:2]}");
  ASSERT_TRUE(s.ok());
  EXPECT_THAT(s->starts, ElementsAre(0, 1));
  EXPECT_THAT(s->limits, ElementsAre(2, 5));
  EXPECT_THAT(s->strides, ElementsAre(1, 2));
  EXPECT_TRUE(DecodeSlice("{}")->starts.empty());

  absl::StatusOr<PaddingConfig> p = DecodePadding("0_0x1_2_1x-1_3");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->dimensions.size(), 3u);
  EXPECT_EQ(p->dimensions[1].edge_padding_low, 1);
  EXPECT_EQ(p->dimensions[1].edge_padding_high, 2);
  EXPECT_EQ(p->dimensions[1].interior_padding, 1);
  EXPECT_EQ(p->dimensions[2].edge_padding_low, -1);
  EXPECT_EQ(p->dimensions[2].interior_padding, 0);
}

TEST(DecodeAttributeTest, Enums) {
  EXPECT_EQ(*DecodeComparisonDirection("GE"), ComparisonDirection::kGe);
  EXPECT_EQ(*DecodeComparisonType("UNSIGNED"), ComparisonType::kUnsigned);
  EXPECT_EQ(*DecodeFusionKind("kCustom"), FusionKind::kCustom);
  EXPECT_EQ(*DecodeCustomCallApiVersion("api_version_typed_ffi"),
            CustomCallApiVersion::kTypedFfi);
  EXPECT_EQ(*DecodeCustomCallTarget("\"__cublas$gemm\""), "__cublas$gemm");
  EXPECT_EQ(*DecodeIotaDimension("2"), 2);
  EXPECT_THAT(*DecodeOperandPrecision("{DEFAULT, highest}"),
              ElementsAre(Precision::kDefault, Precision::kHighest));
  EXPECT_EQ(*DecodeDotAlgorithm("dot_tf32_tf32_f32_x3"),
            DotAlgorithm::kTF32TF32F32X3);
  EXPECT_EQ(*DecodeRandomDistribution("rng_normal"),
            RandomDistribution::kNormal);
  EXPECT_EQ(*DecodeRandomAlgorithm("RNG_PHILOX"), RandomAlgorithm::kPhilox);
  EXPECT_EQ(*DecodeFftType("RFFT"), FftType::kRfft);
  EXPECT_EQ(*DecodeTriangularTranspose("ADJOINT"),
            TriangularTranspose::kAdjoint);
  EXPECT_THAT(Message(DecodeFusionKind("kLoopy")),
              HasSubstr("offset 0: unknown fusion kind 'kLoopy'"));
}

TEST(DecodeAttributeTest, Collectives) {
  absl::StatusOr<ReplicaGroups> g = DecodeReplicaGroups("{{0,1},{2,3}}");
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(g->is_iota);
  EXPECT_THAT(g->groups, ElementsAre(ElementsAre(0, 1), ElementsAre(2, 3)));

  g = DecodeReplicaGroups("[2,4]<=[8]");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->is_iota);
  EXPECT_EQ(g->num_groups, 2);
  EXPECT_EQ(g->group_size, 4);
  EXPECT_THAT(*ExpandReplicaGroups(*g),
              ElementsAre(ElementsAre(0, 1, 2, 3), ElementsAre(4, 5, 6, 7)));
  g = DecodeReplicaGroups("[4,2]<=[2,4]T(1,0)");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(*ExpandReplicaGroups(*g),
              ElementsAre(ElementsAre(0, 4), ElementsAre(1, 5),
                          ElementsAre(2, 6), ElementsAre(3, 7)));

  absl::StatusOr<std::vector<SourceTargetPair>> pairs =
      DecodeSourceTargetPairs("{{0,1},{1,0}}");
  ASSERT_TRUE(pairs.ok());
  ASSERT_EQ(pairs->size(), 2u);
  EXPECT_EQ((*pairs)[1].source, 1);
  EXPECT_EQ((*pairs)[1].target, 0);

  absl::StatusOr<std::vector<OutputOperandAlias>> alias =
      DecodeOutputToOperandAliasing("{{0}: (1, {}), {1}: (0, {2, 3})}");
  ASSERT_TRUE(alias.ok()) << alias.status();
  ASSERT_EQ(alias->size(), 2u);
  EXPECT_THAT((*alias)[0].output_shape_index, ElementsAre(0));
  EXPECT_EQ((*alias)[0].operand_index, 1);
  EXPECT_THAT((*alias)[1].operand_shape_index, ElementsAre(2, 3));
}

TEST(DecodeAttributeTest, MetadataFrontendBackend) {
  absl::StatusOr<OpMetadata> m = DecodeMetadata(
      "{op_type=\"Add\" op_name=\"jit(f)/add\" source_file=\"x.py\" "
      "source_line=3 stack_frame_id=7 profile_type={1,WINDOW} "
      "future_key=\"kept\"}");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->op_type, "Add");
  EXPECT_EQ(m->op_name, "jit(f)/add");
  EXPECT_EQ(m->source_file, "x.py");
  EXPECT_EQ(m->source_line, 3);
  EXPECT_EQ(m->stack_frame_id, 7);
  EXPECT_THAT(m->profile_type, ElementsAre(1, 1));
  ASSERT_EQ(m->unknown.size(), 1u);
  EXPECT_EQ(m->unknown[0].first, "future_key");
  EXPECT_EQ(m->unknown[0].second, "\"kept\"");
  // Escapes are decoded.
  EXPECT_EQ(DecodeMetadata("{op_name=\"a\\nb\\\"c\"}")->op_name, "a\nb\"c");

  absl::StatusOr<FrontendAttributes> f = DecodeFrontendAttributes(
      "{_xla_compute_type=\"host\",k2={\"a\":{\"b\":1}}}");
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->entries.size(), 2u);
  EXPECT_EQ(*f->Find("_xla_compute_type"), "host");
  EXPECT_EQ(*f->Find("k2"), "{\"a\":{\"b\":1}}");
  EXPECT_EQ(f->Find("absent"), nullptr);
  EXPECT_TRUE(DecodeFrontendAttributes("{}")->entries.empty());

  absl::StatusOr<BackendConfig> b =
      DecodeBackendConfig("\"{ \\\"gemm\\\": 1}\"");
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->was_string);
  EXPECT_EQ(b->text, "{ \"gemm\": 1}");
  b = DecodeBackendConfig("{\"operation_queue_id\":\"0\",\"x\":\"}\"}");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_FALSE(b->was_string);
  EXPECT_EQ(b->text, "{\"operation_queue_id\":\"0\",\"x\":\"}\"}");
}

TEST(DecodeAttributeTest, MultiAttributeDecoders) {
  std::vector<RawAttribute> dot = {{"lhs_batch_dims", "{0}"},
                                   {"lhs_contracting_dims", "{2}"},
                                   {"rhs_batch_dims", "{0}"},
                                   {"rhs_contracting_dims", "{1}"}};
  absl::StatusOr<DotDimensionNumbers> d = DecodeDotDimensionNumbers(dot);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(d->lhs_contracting_dimensions, ElementsAre(2));
  EXPECT_THAT(d->rhs_batch_dimensions, ElementsAre(0));
  dot[3].value = "{1";
  EXPECT_THAT(Message(DecodeDotDimensionNumbers(dot)),
              HasSubstr("rhs_contracting_dims=: offset 2:"));

  std::vector<RawAttribute> gather = {
      {"offset_dims", "{1}"},     {"collapsed_slice_dims", "{0}"},
      {"start_index_map", "{0}"}, {"index_vector_dim", "1"},
      {"slice_sizes", "{1,7}"},   {"indices_are_sorted", "true"}};
  absl::StatusOr<GatherDimensionNumbers> g =
      DecodeGatherDimensionNumbers(gather);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(g->slice_sizes, ElementsAre(1, 7));
  EXPECT_TRUE(g->indices_are_sorted);
  gather.pop_back();
  gather.pop_back();
  EXPECT_THAT(Message(DecodeGatherDimensionNumbers(gather)),
              HasSubstr("missing slice_sizes="));

  std::vector<RawAttribute> scatter = {
      {"update_window_dims", "{1}"},           {"inserted_window_dims", "{0}"},
      {"scatter_dims_to_operand_dims", "{0}"}, {"index_vector_dim", "1"},
      {"input_batching_dims", "{}"},           {"unique_indices", "true"}};
  absl::StatusOr<ScatterDimensionNumbers> sc =
      DecodeScatterDimensionNumbers(scatter);
  ASSERT_TRUE(sc.ok()) << sc.status();
  EXPECT_TRUE(sc->unique_indices);
  EXPECT_EQ(sc->index_vector_dim, 1);

  std::vector<RawAttribute> fft = {{"fft_type", "RFFT"},
                                   {"fft_length", "{8,8}"}};
  EXPECT_THAT(DecodeFftOptions(fft)->length, ElementsAre(8, 8));
  std::vector<RawAttribute> tri = {
      {"left_side", "true"}, {"lower", "true"}, {"transpose_a", "TRANSPOSE"}};
  absl::StatusOr<TriangularSolveOptions> t = DecodeTriangularSolveOptions(tri);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->left_side);
  EXPECT_FALSE(t->unit_diagonal);
  EXPECT_EQ(t->transpose_a, TriangularTranspose::kTranspose);
  EXPECT_TRUE(DecodeCholeskyOptions(tri)->lower);
  std::vector<RawAttribute> precision = {
      {"operand_precision", "{high,highest}"},
      {"algorithm", "dot_bf16_bf16_f32"}};
  absl::StatusOr<PrecisionConfig> pc = DecodePrecisionConfig(precision);
  ASSERT_TRUE(pc.ok());
  EXPECT_EQ(pc->algorithm, DotAlgorithm::kBF16BF16F32);
}

constexpr std::string_view kModule = R"(HloModule m

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %r = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (p0: f32[4,8], p1: f32[8,16]) -> f32[2,16] {
  %p0 = f32[4,8]{1,0} parameter(0), sharding={devices=[2,1]0,1}, metadata={op_name="x" source_line=3}
  %p1 = f32[8,16]{1,0} parameter(1)
  %c = s32[2,2] constant({ {1, 2}, {3, 4} })
  %t = (f32[], s32[2]) constant((1, {2, 3}))
  %dot = f32[4,16]{1,0} dot(%p0, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, operand_precision={high,default}, frontend_attributes={_xla_compute_type="host"}
  %ar = f32[4,16] all-reduce(%dot), replica_groups=[1,2]<=[2], channel_id=3, to_apply=%add, backend_config={"x":1}
  %cmp = pred[4,16] compare(%ar, %ar), direction=LT, type=TOTALORDER
  %g = f32[2,8] gather(%p0, %c), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}
  ROOT %s = f32[2,16] slice(%ar), slice={[0:2], [0:16]}
}
)";

const Instruction& Find(const ParsedFile& file, std::string_view name) {
  for (const Instruction& i : file.instructions) {
    if (file.Name(i) == name) return i;
  }
  ADD_FAILURE() << "no instruction " << name;
  static Instruction none;
  return none;
}

TEST(InstructionAttributesTest, GathersTypedValues) {
  std::unique_ptr<ParsedFile> file = Parse(kModule);
  ASSERT_FALSE(file->HasErrors()) << file->diagnostics[0].message;

  InstructionAttributes p0 =
      DecodeInstructionAttributes(*file, Find(*file, "p0"));
  EXPECT_THAT(p0.errors, IsEmpty());
  EXPECT_EQ(p0.parameter_number, 0);
  ASSERT_TRUE(p0.sharding.has_value());
  EXPECT_THAT(p0.sharding->tile_assignment_devices, ElementsAre(0, 1));
  ASSERT_TRUE(p0.metadata.has_value());
  EXPECT_EQ(p0.metadata->op_name, "x");
  EXPECT_EQ(p0.metadata->source_line, 3);
  EXPECT_EQ(
      DecodeInstructionAttributes(*file, Find(*file, "p1")).parameter_number,
      1);

  InstructionAttributes c =
      DecodeInstructionAttributes(*file, Find(*file, "c"));
  ASSERT_TRUE(c.literal.has_value())
      << (c.errors.empty() ? "" : c.errors[0].message);
  EXPECT_THAT(c.literal->ints, ElementsAre(1, 2, 3, 4));
  InstructionAttributes t =
      DecodeInstructionAttributes(*file, Find(*file, "t"));
  ASSERT_TRUE(t.literal.has_value())
      << (t.errors.empty() ? "" : t.errors[0].message);
  ASSERT_EQ(t.literal->tuple_elements.size(), 2u);
  EXPECT_THAT(t.literal->tuple_elements[1].ints, ElementsAre(2, 3));

  InstructionAttributes dot =
      DecodeInstructionAttributes(*file, Find(*file, "dot"));
  EXPECT_THAT(dot.errors, IsEmpty());
  ASSERT_TRUE(dot.dot_dimension_numbers.has_value());
  EXPECT_THAT(dot.dot_dimension_numbers->lhs_contracting_dimensions,
              ElementsAre(1));
  ASSERT_TRUE(dot.precision_config.has_value());
  EXPECT_THAT(dot.precision_config->operand_precision,
              ElementsAre(Precision::kHigh, Precision::kDefault));
  EXPECT_EQ(*dot.frontend_attributes->Find("_xla_compute_type"), "host");
  EXPECT_THAT(dot.others, IsEmpty());

  InstructionAttributes ar =
      DecodeInstructionAttributes(*file, Find(*file, "ar"));
  EXPECT_THAT(ar.errors, IsEmpty());
  ASSERT_TRUE(ar.replica_groups.has_value());
  EXPECT_TRUE(ar.replica_groups->is_iota);
  EXPECT_EQ(ar.channel_id, 3);
  EXPECT_EQ(ar.backend_config->text, "{\"x\":1}");
  // The computation reference has no typed field: kept raw.
  ASSERT_EQ(ar.others.size(), 1u);
  EXPECT_EQ(ar.others[0].key, "to_apply");
  EXPECT_EQ(ar.others[0].value, "%add");

  InstructionAttributes cmp =
      DecodeInstructionAttributes(*file, Find(*file, "cmp"));
  EXPECT_EQ(cmp.comparison_direction, ComparisonDirection::kLt);
  EXPECT_EQ(cmp.comparison_type, ComparisonType::kTotalOrder);

  InstructionAttributes g =
      DecodeInstructionAttributes(*file, Find(*file, "g"));
  EXPECT_THAT(g.errors, IsEmpty());
  ASSERT_TRUE(g.gather_dimension_numbers.has_value());
  EXPECT_THAT(g.gather_dimension_numbers->slice_sizes, ElementsAre(1, 8));
  EXPECT_EQ(g.gather_dimension_numbers->index_vector_dim, 1);

  InstructionAttributes s =
      DecodeInstructionAttributes(*file, Find(*file, "s"));
  ASSERT_TRUE(s.slice.has_value());
  EXPECT_THAT(s.slice->limits, ElementsAre(2, 16));
}

TEST(InstructionAttributesTest, ErrorsPointAtTheValue) {
  constexpr std::string_view kText = R"(HloModule m
ENTRY %e (p: f32[2]) -> pred[2] {
  %p = f32[2] parameter(0)
  %k = f32[3] constant({1, 2})
  ROOT %c = pred[2] compare(%p, %p), direction=LT, type=SIDEWAYS
}
)";
  ParseOptions options;
  options.validate_attributes = false;
  std::unique_ptr<ParsedFile> file = Parse(kText, options);
  InstructionAttributes c =
      DecodeInstructionAttributes(*file, Find(*file, "c"));
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(file->Text(c.errors[0].span), "SIDEWAYS");
  EXPECT_THAT(c.errors[0].message, HasSubstr("type=: offset 0: unknown"));
  EXPECT_EQ(c.comparison_direction, ComparisonDirection::kLt);
  EXPECT_FALSE(c.comparison_type.has_value());

  InstructionAttributes k =
      DecodeInstructionAttributes(*file, Find(*file, "k"));
  ASSERT_EQ(k.errors.size(), 1u);
  EXPECT_EQ(file->Text(k.errors[0].span), "({1, 2})");
  EXPECT_THAT(k.errors[0].message,
              HasSubstr("offset 1: dimension 0 expects 3 elements"));
}

// Every attribute the parser hands to ValidateAttributeValue comes back
// clean for the values of a real module.
TEST(InstructionAttributesTest, ParserValidationAcceptsModule) {
  std::unique_ptr<ParsedFile> file = Parse(kModule);
  for (const Diagnostic& d : file->diagnostics) ADD_FAILURE() << d.message;
}

}  // namespace
}  // namespace hlo