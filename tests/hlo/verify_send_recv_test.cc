// hlo/verify_send_recv.cc: host-transfer channels, and the send/recv
// deadlock walk behind verify_no_collective_deadlocks. Each rule has a
// module that breaks it and a near miss that must stay clean.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verify.h"
#include "tests/hlo/verify_findings.h"

namespace hlo {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr VerifierOptions kDeadlocks{.no_collective_deadlocks = true};

using verify_test::Findings;

std::string HostSends(const std::string& second_shape,
                      const std::string& second_attrs) {
  return R"(HloModule m
ENTRY e {
  c0 = f32[] constant(0)
  t = token[] after-all()
  s0 = (f32[], u32[], token[]) send(c0, t), channel_id=1, is_host_transfer=true
  d0 = token[] send-done(s0), channel_id=1, is_host_transfer=true
  c1 = )" +
         second_shape +
         R"( parameter(0)
  s1 = ()" +
         second_shape +
         R"(, u32[], token[]) send(c1, d0), channel_id=1, is_host_transfer=true)" +
         second_attrs + R"(
  ROOT d1 = token[] send-done(s1), channel_id=1, is_host_transfer=true
})";
}

TEST(VerifySendRecvTest, HostTransfersOnOneChannelAreIdentical) {
  EXPECT_THAT(Findings(HostSends("f32[]", "")), IsEmpty());
  const char kWant[] =
      "Host-transfer send/recv instructions that use the same channel must "
      "be identical up to having different operands. Found different "
      "instructions with the same channel ID: s0 vs s1 @ s1";
  EXPECT_THAT(Findings(HostSends("f32[3]", "")), ElementsAre(kWant));
  EXPECT_THAT(
      Findings(HostSends("f32[]", ", frontend_attributes={_xla_x=\"y\"}")),
      ElementsAre(kWant));
}

TEST(VerifySendRecvTest, ChannelsArePerModule) {
  // Two modules in one file, each with its own channel 1.
  auto module = [](const std::string& name, const std::string& shape) {
    return "HloModule " + name + "\nENTRY e {\n  c = " + shape +
           " parameter(0)\n  t = token[] after-all()\n  s = (" + shape +
           ", u32[], token[]) send(c, t), channel_id=1, "
           "is_host_transfer=true\n  ROOT d = token[] send-done(s), "
           "channel_id=1, is_host_transfer=true\n}\n";
  };
  EXPECT_THAT(Findings(module("a", "f32[]") + module("b", "f32[3]")),
              IsEmpty());
}

// A scheduled entry: `body` between a constant/token and an all-gather.
std::string Scheduled(const std::string& body, bool scheduled = true) {
  return std::string("HloModule m") + (scheduled ? ", is_scheduled=true" : "") +
         R"(
ENTRY e {
  c0 = f32[] constant(0)
  t = token[] after-all()
)" + body +
         R"(
  p0 = f32[10] parameter(0)
  ROOT ag = f32[20] all-gather(p0), dimensions={0}
})";
}

std::string Send(const std::string& name, const std::string& pairs) {
  return "  " + name +
         " = (f32[], u32[], token[]) send(c0, t), channel_id=1, " +
         "frontend_attributes={_xla_send_recv_source_target_pairs=\"" + pairs +
         "\"}\n  " + name + "-done = token[] send-done(" + name +
         "), channel_id=1\n";
}
std::string Recv(const std::string& name, const std::string& pairs) {
  return "  " + name + " = (f32[], u32[], token[]) recv(t), channel_id=1, " +
         "frontend_attributes={_xla_send_recv_source_target_pairs=\"" + pairs +
         "\"}\n  " + name + "-done = (f32[], token[]) recv-done(" + name +
         "), channel_id=1\n";
}

TEST(VerifySendRecvTest, DeadlocksOnlyWithTheOptionOnAScheduledModule) {
  const std::string bad = Send("s", "{{0,1}}");  // never received
  EXPECT_THAT(Findings(Scheduled(bad)), IsEmpty());
  EXPECT_THAT(Findings(Scheduled(bad, false), kDeadlocks), IsEmpty());
  EXPECT_THAT(Findings(Scheduled(bad), kDeadlocks),
              ElementsAre("Expected send and recv instructions to have the "
                          "same source-target pairs, but could not match some "
                          "instructions. Introducing the following "
                          "instruction will cause a deadlock: ag @ ag"));
}

TEST(VerifySendRecvTest, MatchingPairsAreClean) {
  EXPECT_THAT(Findings(Scheduled(Send("s", "{{0,1},{1,2}}") +
                                 Recv("r", "{{0,1},{1,2}}")),
                       kDeadlocks),
              IsEmpty());
  EXPECT_THAT(Findings(Scheduled(Send("s", "{{0,1},{1,2}}") +
                                 Recv("r", "{{0,1},{2,3}}")),
                       kDeadlocks),
              ElementsAre(testing::StartsWith(
                  "Expected send and recv instructions to have the same "
                  "source-target pairs")));
}

TEST(VerifySendRecvTest, PairsMustBeAcyclicAndUnique) {
  EXPECT_THAT(
      Findings(Scheduled(Send("s", "{{0,1},{1,0}}")), kDeadlocks),
      ElementsAre("Expected send and recv instructions to have non-cyclical "
                  "source-target pairs, but found s @ s"));
  EXPECT_THAT(
      Findings(Scheduled(Send("s", "{{0,1},{0,2}}")), kDeadlocks),
      ElementsAre("Expected send and recv instructions to have unique source "
                  "and target pairs, but found s @ s"));
  EXPECT_THAT(
      Findings(Scheduled(Send("s", "{{0,1},{2,1}}")), kDeadlocks),
      ElementsAre("Expected send and recv instructions to have unique source "
                  "and target pairs, but found s @ s"));
}

TEST(VerifySendRecvTest, NothingMayWaitAtTheEnd) {
  auto no_collective = [](const std::string& body) {
    return "HloModule m, is_scheduled=true\nENTRY e {\n  c0 = f32[] "
           "constant(0)\n  t = token[] after-all()\n" +
           body + "  ROOT z = f32[] constant(1)\n}";
  };
  EXPECT_THAT(
      Findings(no_collective(Send("s1", "{{3,0}}") + Send("s2", "{{0,1}}")),
               kDeadlocks),
      ElementsAre("Expected recv to match send @ s1"));
  EXPECT_THAT(
      Findings(no_collective(Recv("r1", "{{3,0}}") + Recv("r2", "{{0,1}}")),
               kDeadlocks),
      ElementsAre("Expected send to match recv @ r1"));
  EXPECT_THAT(
      Findings(no_collective(Recv("r1", "{{0,1}}") + Send("s1", "{{0,1}}")),
               kDeadlocks),
      IsEmpty());
}

TEST(VerifySendRecvTest, CallsThatMultiplyStopAtABudget) {
  // c0 calls c1 twice, c1 calls c2 twice, ...: 2^40 walks without a limit.
  // The send waiting before them is then not reported: the walk is cut.
  std::string text = "HloModule m, is_scheduled=true\n";
  constexpr int kLevels = 40;
  text +=
      "c" + std::to_string(kLevels) + " {\n  ROOT p = f32[] parameter(0)\n}\n";
  for (int i = kLevels - 1; i >= 0; --i) {
    const std::string next = "c" + std::to_string(i + 1);
    text +=
        "c" + std::to_string(i) +
        " {\n  p = f32[] parameter(0)\n  a = f32[] call(p), to_apply=" + next +
        "\n  ROOT b = f32[] call(a), to_apply=" + next + "\n}\n";
  }
  text += "ENTRY e {\n  c0 = f32[] constant(0)\n  t = token[] after-all()\n" +
          Send("s", "{{0,1}}") + "  ROOT r = f32[] call(c0), to_apply=c0\n}\n";
  EXPECT_THAT(Findings(text, kDeadlocks), IsEmpty());
}

TEST(VerifySendRecvTest, OptionNameIsXlas) {
  VerifierOptions options;
  std::string bad;
  ASSERT_TRUE(
      ParseVerifierOptions("verify_no_collective_deadlocks", &options, &bad));
  EXPECT_TRUE(options.no_collective_deadlocks);
  ASSERT_TRUE(ParseVerifierOptions("default", &options, &bad));
  EXPECT_FALSE(options.no_collective_deadlocks);
}

}  // namespace
}  // namespace hlo
