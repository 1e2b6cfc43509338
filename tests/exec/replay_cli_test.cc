// `hlo-lsp replay` through the real binary: exit codes, --out/--args round
// trip, --json. Skipped when the binary has not been built.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "exec/npz.h"
#include "gtest/gtest.h"
#include "npz_test_util.h"

namespace {

struct Result {
  int code = -1;
  std::string out;
};

Result RunCli(const std::string& args) {
  Result r;
  const std::string cmd =
      std::string(HLO_LSP_BINARY) + " replay " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class ReplayCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(HLO_LSP_BINARY)) GTEST_SKIP() << "no binary";
    dir_ = ::testing::TempDir();
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(ReplayCliTest, OutThenArgsRoundTrip) {
  const std::string m = Write("sq.hlo", R"(HloModule sq
ENTRY e {
  x = f32[3] parameter(0)
  ROOT y = f32[3] multiply(x, x)
})");
  const std::string out1 = dir_ + "/o1.npz";
  Result r = RunCli(m + " --out " + out1);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("replayed sq on cpu"), std::string::npos) << r.out;
  // Feed arg0 back: y = x*x of our own values.
  auto first = hlo::exec::ReadNpzFile(out1);
  ASSERT_TRUE(first.ok());
  auto in = hlo::exec::Literal::CreateArray(hlo::PrimitiveType::kF32, {3});
  in->SetDouble(0, 1.5);
  in->SetDouble(1, -2);
  in->SetDouble(2, 3);
  const std::string args = dir_ + "/a.npz";
  ASSERT_TRUE(hlo::exec::WriteNpzFile(
                  args, {{"arg0", std::make_shared<const hlo::exec::Literal>(
                                      *std::move(in))}})
                  .ok());
  const std::string out2 = dir_ + "/o2.npz";
  r = RunCli(m + " --args " + args + " --out " + out2);
  ASSERT_EQ(r.code, 0) << r.out;
  auto second = hlo::exec::ReadNpzFile(out2);
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->size(), 1u);
  EXPECT_EQ(second->at(0).first, "out0");
  EXPECT_EQ(second->at(0).second->GetDouble(0), 2.25);
  EXPECT_EQ(second->at(0).second->GetDouble(1), 4);
  EXPECT_EQ(second->at(0).second->GetDouble(2), 9);
}

TEST_F(ReplayCliTest, ExitCodes) {
  const std::string ok = Write(
      "ok.hlo", "HloModule ok\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n");
  EXPECT_EQ(RunCli(ok).code, 0);
  EXPECT_EQ(RunCli(ok + " --platform gpu").code, 1);
  EXPECT_EQ(RunCli(ok + " --bogus").code, 2);
  EXPECT_EQ(RunCli(dir_ + "/missing.hlo").code, 2);
  EXPECT_EQ(RunCli(ok + " --out /nonexistent-dir/x.npz").code, 2);
  const std::string bad =
      Write("bad.hlo", "HloModule bad\nENTRY e {\n  ROOT c = f32[] add(\n");
  EXPECT_EQ(RunCli(bad).code, 1);
  const std::string big = Write("big.hlo", R"(HloModule big
ENTRY e {
  a = f32[] parameter(0)
  ROOT b = f32[1000000,1000000] broadcast(a), dimensions={}
})");
  Result r = RunCli(big + " --memory-limit 1000000000");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("4000000000004 bytes"), std::string::npos) << r.out;
  const std::string loop = Write("loop.hlo", R"(HloModule loop
cond {
  p = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  p = s32[] parameter(0)
  ROOT n = s32[] negate(p)
}
ENTRY e {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=cond, body=body
})");
  r = RunCli(loop + " --timeout 1");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("timed out"), std::string::npos) << r.out;
}

TEST_F(ReplayCliTest, JsonReportsNanOrigin) {
  const std::string m = Write("nan.hlo", R"(HloModule nan
ENTRY e {
  z = f32[2] constant({0, 1})
  ROOT d = f32[2] divide(z, z)
})");
  Result r = RunCli(m + " --json --stats");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\"first_nonfinite\":{"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"name\":\"d\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"stats\":["), std::string::npos) << r.out;
}

// Without --stats (fusions may run block by block, EvalOptions::origin_only)
// the NaN origin printed, in text and in JSON, is the one --stats prints.
TEST_F(ReplayCliTest, NanOriginInsideAFusionWithAndWithoutStats) {
  const std::string m = Write("fused_nan.hlo", R"(HloModule fused_nan
fused {
  x = f32[81920] parameter(0)
  a = f32[81920] abs(x)
  n = f32[81920] negate(a)
  k = f32[] constant(-1)
  kb = f32[81920] broadcast(k), dimensions={}
  s = f32[81920] add(n, kb)
  l = f32[81920] log(s)
  m = f32[81920] multiply(l, x)
  ROOT r = f32[81920] add(m, x)
}
ENTRY e {
  p = f32[81920] parameter(0)
  f = f32[81920] fusion(p), kind=kLoop, calls=fused
  ROOT t = f32[81920] tanh(f)
})");
  auto origin_of = [](const std::string& out, const std::string& key) {
    const size_t at = out.find(key);
    return at == std::string::npos
               ? std::string()
               : out.substr(at, out.find_first_of("}\n", at) - at);
  };
  for (const std::string json : {"", " --json"}) {
    Result plain = RunCli(m + json);
    Result stats = RunCli(m + json + " --stats");
    ASSERT_EQ(plain.code, 0) << plain.out;
    ASSERT_EQ(stats.code, 0) << stats.out;
    const std::string key =
        json.empty() ? "first NaN/Inf: " : "\"first_nonfinite\":{";
    const std::string a = origin_of(plain.out, key),
                      b = origin_of(stats.out, key);
    EXPECT_NE(a.find(json.empty() ? "%l log" : "\"name\":\"l\""),
              std::string::npos)
        << plain.out;
    EXPECT_EQ(a, b);
  }
}

// Limits and inputs a user gets wrong: out-of-range flags are usage errors
// (exit 2), a malformed --args archive is bad input (exit 1) named down to
// the entry and the reason.
using CliReliabilityTest = ReplayCliTest;

TEST_F(CliReliabilityTest, LimitsRefuseZeroNegativeAndNan) {
  const std::string ok = Write(
      "ok.hlo", "HloModule ok\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n");
  for (const std::string flag : {"--timeout", "--memory-limit"}) {
    for (const char* v : {"0", "-1", "nan", "-nan", "inf", "x", "0x0"}) {
      Result r = RunCli(ok + " " + flag + " " + v);
      EXPECT_EQ(r.code, 2) << flag << " " << v << "\n" << r.out;
      EXPECT_NE(r.out.find("hlo-lsp replay: " + flag + " takes"),
                std::string::npos)
          << r.out;
    }
  }
  EXPECT_EQ(RunCli(ok + " --timeout 1.1e9").code, 2);
  EXPECT_EQ(RunCli(ok + " --memory-limit 1.5").code, 2);
  EXPECT_EQ(RunCli(ok + " --memory-limit 1e19").code, 2);
  Result r = RunCli(ok + " --timeout 1e9 --memory-limit 1000000000");
  EXPECT_EQ(r.code, 0) << r.out;
  Result help = RunCli("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--timeout SECONDS      wall-clock limit, over 0 "
                          "and at most 1e9"),
            std::string::npos)
      << help.out;
  EXPECT_NE(help.out.find("--memory-limit BYTES   evaluator memory limit, an "
                          "integer from 1 to"),
            std::string::npos)
      << help.out;
}

TEST_F(CliReliabilityTest, MalformedArgsExitOneNamingTheEntry) {
  using hlo::exec::testing::F32Npy;
  using hlo::exec::testing::Zip;
  const std::string m = Write("neg.hlo", R"(HloModule neg
ENTRY e {
  x = f32[2,3] parameter(0)
  ROOT y = f32[2,3] negate(x)
})");
  const std::string six(24, '\0');
  const struct {
    std::string archive, reason;
  } cases[] = {
      {Zip({{"arg0.npy", F32Npy("(-2,3)", six)}}),
       "arg0.npy: bad .npy header: 'shape' must be a tuple of non-negative "
       "integers, got '(-2,3)'"},
      {Zip({{"arg0.npy", F32Npy("(+2,3)", six)}}), "got '(+2,3)'"},
      {Zip({{"arg0.npy", F32Npy("(2,3x)", six)}}), "got '(2,3x)'"},
      {Zip({{"arg0.npy",
             hlo::exec::testing::Npy("{'descr': '<f4', 'fortran_order': maybe, "
                                     "'shape': (2, 3), }",
                                     six)}}),
       "arg0.npy: bad .npy header: 'fortran_order' must be True or False"},
      {Zip({{"arg0.npy", F32Npy("(2, 3)", six + std::string(4096, 'x'))}}),
       "arg0.npy: 4096 bytes after the array data"},
      {Zip({{"arg0.npy", F32Npy("(2, 3)", six)},
            {"arg0.npy", F32Npy("(6,)", six)}}),
       "arg0.npy: the zip holds it twice"},
  };
  for (const auto& c : cases) {
    const std::string path = Write("bad.npz", c.archive);
    Result r = RunCli(m + " --args " + path);
    EXPECT_EQ(r.code, 1) << c.reason << "\n" << r.out;
    EXPECT_NE(r.out.find("hlo-lsp replay: " + path + ": arg0.npy: "),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find(c.reason), std::string::npos) << r.out;
  }
}

// run_hlo_module's spellings (contracts.md): a command from XLA's guide
// works as pasted, and its flags that mean nothing here say why.
class RunHloModuleSpellingsTest : public ReplayCliTest {};

TEST_F(RunHloModuleSpellingsTest, FlagsWorkAsRunHloModuleWritesThem) {
  const std::string m = Write("sp.hlo", R"(HloModule sp
ENTRY e {
  p = f32[3] parameter(0)
  ROOT n = f32[3] negate(p)
})");
  for (const char* flags :
       {"--platform=cpu", "--platform=Host", "--platform interpreter",
        "--seed=3", "--force_fake_data", "--use_fake_data",
        "--input_format=hlo", "--timeout=30", "--memory_limit=1000000000",
        "--atol=0.1 --rtol=0.1"}) {
    Result r = RunCli(m + " " + flags);
    EXPECT_EQ(r.code, 0) << flags << ": " << r.out;
  }
  // The same seed spelled both ways gives the same fake data.
  auto outputs = [](const std::string& json) {
    size_t at = json.find("\"outputs\"");
    return at == std::string::npos ? json
                                   : json.substr(at, json.find(']', at) - at);
  };
  EXPECT_EQ(outputs(RunCli(m + " --seed=3 --json").out),
            outputs(RunCli(m + " --seed 3 --json").out));
  EXPECT_NE(outputs(RunCli(m + " --seed=3 --json").out),
            outputs(RunCli(m + " --seed=4 --json").out));
  // CUDA is the GPU: refused up front only where there is none (exit 1).
  Result gpu = RunCli(m + " --platform=CUDA");
  EXPECT_NE(gpu.code, 2) << gpu.out;
  // --print_literals prints every element, not the first eight.
  const std::string wide = Write("wide.hlo", R"(HloModule wide
ENTRY e {
  ROOT i = s32[20] iota(), iota_dimension=0
})");
  Result all = RunCli(wide + " --print_literals");
  ASSERT_EQ(all.code, 0) << all.out;
  EXPECT_NE(all.out.find("17, 18, 19}"), std::string::npos) << all.out;
  EXPECT_EQ(RunCli(wide).out.find("17, 18, 19}"), std::string::npos);
  // Complex elements print whole, as XLA writes them (once "{1, 3}").
  const std::string complex = Write("complex.hlo", R"(HloModule complex
ENTRY e {
  ROOT c = c64[2] constant({(1,2),(3,-4)})
})");
  Result c = RunCli(complex + " --print_literals");
  ASSERT_EQ(c.code, 0) << c.out;
  EXPECT_NE(c.out.find("c64[2] {(1, 2), (3, -4)}"), std::string::npos) << c.out;
}

TEST_F(RunHloModuleSpellingsTest, InputFormatDecidesHowTheFileIsRead) {
  const std::string m = Write("fmt.hlo", R"(HloModule fmt
ENTRY e {
  ROOT c = f32[] constant(1)
})");
  // Text read as a binary proto is bad input, not a silent guess.
  Result r = RunCli(m + " --input_format=pb");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_EQ(RunCli(m + " --input_format=bogus").code, 2);
}

TEST_F(RunHloModuleSpellingsTest, XlaOnlyFlagsAreRefusedWithTheReason) {
  const std::string m = Write("x.hlo", R"(HloModule x
ENTRY e {
  ROOT c = f32[] constant(1)
})");
  for (const char* flag :
       {"--xla_gpu_enable_triton_gemm=false", "--run_xla_backend_only",
        "--num_replicas=2", "--flatten_control_flow", "--iterations=3"}) {
    Result r = RunCli(m + " " + flag);
    EXPECT_EQ(r.code, 2) << flag << ": " << r.out;
    EXPECT_NE(r.out.find("run_hlo_module"), std::string::npos) << r.out;
  }
  Result reference = RunCli(m + " --platform=CUDA --reference_platform=CUDA");
  EXPECT_EQ(reference.code, 2) << reference.out;
  Result fake = RunCli(m + " --force_fake_data --compare=snapshot");
  EXPECT_EQ(fake.code, 2) << fake.out;
  EXPECT_NE(fake.out.find("fake"), std::string::npos) << fake.out;
  EXPECT_EQ(RunCli(m + " --stats=yes").code, 2);
  EXPECT_EQ(RunCli(m + " --input_literals_file=l.pb").code, 2);
}

// --compare MODULE2: the second module runs on the first one's arguments
// (fake here), and the first differing output is named.
TEST_F(ReplayCliTest, CompareRunsASecondModuleOnTheSameArguments) {
  const std::string a = Write("cmp_a.hlo", R"(HloModule a
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
})");
  const std::string same = Write("cmp_same.hlo", R"(HloModule b
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  zb = f32[4] broadcast(z), dimensions={}
  ROOT n = f32[4] subtract(zb, p)
})");
  const std::string other = Write("cmp_other.hlo", R"(HloModule c
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] add(p, p)
})");
  Result r = RunCli(a + " --seed 5 --compare " + same);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("gives the same outputs"), std::string::npos) << r.out;
  r = RunCli(a + " --compare=" + other);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("mismatch: " + other + ": out0: 4 of 4 elements"),
            std::string::npos)
      << r.out;
  r = RunCli(a + " --compare " + dir_ + "/missing.hlo");
  EXPECT_EQ(r.code, 2) << r.out;
  const std::string broken = Write(
      "cmp_broken.hlo", "HloModule x\nENTRY e {\n  ROOT c = f32[] add(\n");
  r = RunCli(a + " --compare " + broken);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find(broken + ":"), std::string::npos) << r.out;
}

// --compare MODULE2 --stats: the first instruction, in B's order, whose
// values differ from A's instruction of the same name; names only in one
// module are passed over.
TEST_F(ReplayCliTest, CompareWithStatsNamesTheFirstDifferingInstruction) {
  const std::string a = Write("cmps_a.hlo", R"(HloModule a
ENTRY e {
  p = f32[4] parameter(0)
  one = f32[] constant(1)
  ones = f32[4] broadcast(one), dimensions={}
  s = f32[4] add(p, ones)
  ROOT t = f32[4] multiply(s, s)
})");
  const std::string b = Write("cmps_b.hlo", R"(HloModule b
ENTRY e {
  p = f32[4] parameter(0)
  extra = f32[4] negate(p)
  one = f32[] constant(1)
  ones = f32[4] broadcast(one), dimensions={}
  s = f32[4] subtract(p, ones)
  ROOT t = f32[4] multiply(s, s)
})");
  Result r = RunCli(a + " --seed 3 --stats --compare " + b);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("compare: first differing instruction: " + b +
                       ":7: s (subtract): "),
            std::string::npos)
      << r.out;
  r = RunCli(a + " --seed 3 --stats --json --compare " + b);
  EXPECT_NE(r.out.find("\"first_differing\":{\"detail\":"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"name\":\"s\""), std::string::npos) << r.out;
  // Without --stats the instructions are not compared.
  r = RunCli(a + " --seed 3 --compare " + b);
  EXPECT_EQ(r.out.find("first differing instruction"), std::string::npos)
      << r.out;
}

// --bisect over generated pass sequences: the known bad pass is found
// wherever it sits, a signature change stops the walk, and a folder must
// hold one module.
class ReplayBisectTest : public ReplayCliTest {
 protected:
  static std::string Module(const std::string& root) {
    return "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
           "  z = f32[] constant(0)\n"
           "  zb = f32[4] broadcast(z), dimensions={}\n  ROOT r = " +
           root + "\n}\n";
  }
  // Dumps of module m in `folder`: before_optimizations, then `passes`
  // pass dumps; from pass `bad` on, the result is doubled instead of negated.
  std::string MakeSequence(const std::string& folder, int passes, int bad) {
    std::string d = dir_ + "/" + folder;
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    const std::string good = Module("f32[4] subtract(zb, p)");
    const std::string wrong = Module("f32[4] add(p, p)");
    std::ofstream(d + "/module_0007.m.before_optimizations.txt")
        << Module("f32[4] negate(p)");
    for (int k = 1; k <= passes; ++k) {
      char name[128];
      std::snprintf(name, sizeof name,
                    "/module_0007.m.%04d.opt.after_pass%d.before_pass%d.txt", k,
                    k, k + 1);
      std::ofstream(d + name) << (k >= bad ? wrong : good);
    }
    return d;
  }
};

TEST_F(ReplayBisectTest, FindsTheKnownPassWhereverItIs) {
  for (int bad = 1; bad <= 6; ++bad) {
    const std::string d = MakeSequence("seq" + std::to_string(bad), 6, bad);
    Result r = RunCli("--bisect " + d);
    EXPECT_EQ(r.code, 1) << r.out;
    const std::string want = "first difference: step " + std::to_string(bad) +
                             " after pass" + std::to_string(bad) + " ";
    EXPECT_NE(r.out.find(want), std::string::npos) << bad << ": " << r.out;
    // Started from one file instead of the folder: the same answer.
    Result from_file =
        RunCli("--bisect=" + d + "/module_0007.m.before_optimizations.txt");
    EXPECT_EQ(from_file.out, r.out);
  }
  // No bad pass: exit 0, and every dump had the same outputs.
  Result clean = RunCli("--bisect " + MakeSequence("clean", 4, 99));
  EXPECT_EQ(clean.code, 0) << clean.out;
  EXPECT_NE(clean.out.find("no dump's outputs differ"), std::string::npos);
}

TEST_F(ReplayBisectTest, StopsWhereTheSignatureChangesAndNeedsOneModule) {
  const std::string d = MakeSequence("sig", 3, 99);
  std::ofstream(d + "/module_0007.m.0002.opt.after_pass2.before_pass3.txt")
      << "HloModule m\nENTRY e {\n  p = f32[8] parameter(0)\n"
         "  ROOT r = f32[8] negate(p)\n}\n";
  Result r = RunCli("--bisect " + d);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("stop: the entry signature changes at step 2"),
            std::string::npos)
      << r.out;
  std::ofstream(d + "/module_0008.other.before_optimizations.txt")
      << Module("f32[4] negate(p)");
  Result two = RunCli("--bisect " + d);
  EXPECT_EQ(two.code, 2) << two.out;
  EXPECT_NE(two.out.find("more than one module"), std::string::npos) << two.out;
  EXPECT_EQ(RunCli("--bisect " + d + " extra.hlo").code, 2);
  EXPECT_EQ(RunCli("--bisect " + d + " --platform gpu").code, 2);
}

}  // namespace
