// The evaluator's dot and elementwise speed against the machine's yardsticks:
//   exec_bench [BENCHMARK_FLAGS]        (bench/exec-bench.sh prints a table)
// Dot/<shape>: a one-instruction module run through Evaluate, the path
// replay takes (output allocation included), GFLOP/s = 2*B*M*N*K / time.
// Sgemm/<shape>: OpenBLAS cblas_sgemm on the same shapes and layouts, built
// only when OpenBLAS was found at configure time (HLO_LSP_HAVE_OPENBLAS).
// Both use ExecThreads() threads (HLO_LSP_THREADS, default: every core);
// OpenBLAS is set to the same count.
// Elementwise/<op>: add, multiply and a multiply+add+exp fusion over
// 64 MiB f32 operands through Evaluate (output allocation included);
// GB/s counts every operand read and the result written once.
// Memcpy: memcpy of 64 MiB into a warm buffer, GB/s counting the bytes read
// and written (2 x 64 MiB), single-threaded as memcpy is.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "exec/evaluator.h"
#include "exec/gemm.h"
#include "exec/literal.h"
#include "exec/parallel.h"
#include "hlo/parser.h"

#ifdef HLO_LSP_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace {

using hlo::PrimitiveType;
using hlo::exec::Literal;
using hlo::exec::Value;

struct DotCase {
  const char* name;
  int64_t batch, m, n, k;
  bool transpose_b;  // B given as [N, K] (x @ W^T)
};

const DotCase kDots[] = {
    {"256", 1, 256, 256, 256, false},
    {"512", 1, 512, 512, 512, false},
    {"1024", 1, 1024, 1024, 1024, false},
    {"2048", 1, 2048, 2048, 2048, false},
    {"1024_bT", 1, 1024, 1024, 1024, true},
    {"b32x256", 32, 256, 256, 256, false},
    {"skinny32x4096x4096", 1, 32, 4096, 4096, false},
};

constexpr int64_t kElems = (int64_t{64} << 20) / 4;  // 64 MiB of f32

// A parsed module and its argument literals.
struct Module {
  std::string text;
  std::unique_ptr<hlo::ParsedFile> file;
  std::vector<Value> args;
};

Value Filled(std::vector<int64_t> dims, float scale) {
  auto lit = Literal::CreateArray(PrimitiveType::kF32, std::move(dims));
  if (!lit.ok()) {
    std::fprintf(stderr, "exec_bench: %s\n", lit.status().ToString().c_str());
    std::exit(2);
  }
  float* d = lit->data<float>();
  uint32_t s = 12345;
  for (int64_t i = 0; i < lit->count(); ++i) {
    s = s * 1664525u + 1013904223u;
    d[i] = scale * (static_cast<float>(s >> 8) / 16777216.0f - 0.5f);
  }
  return std::make_shared<const Literal>(*std::move(lit));
}

std::unique_ptr<Module> MakeModule(std::string text) {
  auto m = std::make_unique<Module>();
  m->text = std::move(text);
  m->file = hlo::Parse(m->text);
  if (m->file->modules.empty() || m->file->HasErrors()) {
    std::fprintf(stderr, "exec_bench: bad module:\n%s\n", m->text.c_str());
    std::exit(2);
  }
  return m;
}

std::string Dims(std::vector<int64_t> d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i)
    s += (i ? "," : "") + std::to_string(d[i]);
  return s;
}

std::unique_ptr<Module> DotModule(const DotCase& c) {
  const bool batched = c.batch > 1;
  std::vector<int64_t> ad = {c.m, c.k},
                       bd = c.transpose_b ? std::vector<int64_t>{c.n, c.k}
                                          : std::vector<int64_t>{c.k, c.n};
  std::vector<int64_t> od = {c.m, c.n};
  std::string dims;
  if (batched) {
    ad.insert(ad.begin(), c.batch);
    bd.insert(bd.begin(), c.batch);
    od.insert(od.begin(), c.batch);
    dims = c.transpose_b ? "lhs_batch_dims={0}, rhs_batch_dims={0}, "
                           "lhs_contracting_dims={2}, rhs_contracting_dims={2}"
                         : "lhs_batch_dims={0}, rhs_batch_dims={0}, "
                           "lhs_contracting_dims={2}, rhs_contracting_dims={1}";
  } else {
    dims = c.transpose_b ? "lhs_contracting_dims={1}, rhs_contracting_dims={1}"
                         : "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  }
  auto m = MakeModule("HloModule dot\n\nENTRY e {\n  a = f32[" + Dims(ad) +
                      "] parameter(0)\n  b = f32[" + Dims(bd) +
                      "] parameter(1)\n  ROOT d = f32[" + Dims(od) +
                      "] dot(a, b), " + dims + "\n}\n");
  m->args = {Filled(ad, 1.0f), Filled(bd, 1.0f)};
  return m;
}

void RunModule(benchmark::State& state, const Module& m) {
  for (auto _ : state) {
    auto r = hlo::exec::Evaluate(*m.file, 0, {m.args});
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(r->results[0]->raw());
  }
}

void BM_Dot(benchmark::State& state, const DotCase* c) {
  static std::unique_ptr<Module> m;  // one at a time: 2048^2 inputs are big
  m = DotModule(*c);
  RunModule(state, *m);
  m.reset();
  const double flops = 2.0 * c->batch * c->m * c->n * c->k;
  state.counters["GFLOPS"] = benchmark::Counter(
      flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.counters["threads"] = hlo::exec::ExecThreads();
}

#ifdef HLO_LSP_HAVE_OPENBLAS
void BM_Sgemm(benchmark::State& state, const DotCase* c) {
  openblas_set_num_threads(hlo::exec::ExecThreads());
  const int64_t sa = c->m * c->k, sb = c->k * c->n, sc = c->m * c->n;
  std::vector<float> a(c->batch * sa), b(c->batch * sb), out(c->batch * sc);
  Value av = Filled({c->batch * sa}, 1.0f), bv = Filled({c->batch * sb}, 1.0f);
  std::memcpy(a.data(), av->raw(), a.size() * 4);
  std::memcpy(b.data(), bv->raw(), b.size() * 4);
  for (auto _ : state) {
    for (int64_t i = 0; i < c->batch; ++i) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans,
                  c->transpose_b ? CblasTrans : CblasNoTrans, c->m, c->n, c->k,
                  1.0f, a.data() + i * sa, c->k, b.data() + i * sb,
                  c->transpose_b ? c->k : c->n, 0.0f, out.data() + i * sc,
                  c->n);
    }
    benchmark::DoNotOptimize(out.data());
  }
  const double flops = 2.0 * c->batch * c->m * c->n * c->k;
  state.counters["GFLOPS"] = benchmark::Counter(
      flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.counters["threads"] = openblas_get_num_threads();
}
#endif

struct EwCase {
  const char* name;
  int operands;
  const char* body;  // instructions after the parameters, ROOT last
};

const EwCase kElementwise[] = {
    {"add", 2, "ROOT r = f32[N] add(p0, p1)"},
    {"multiply", 2, "ROOT r = f32[N] multiply(p0, p1)"},
    {"exp", 1, "ROOT r = f32[N] exponential(p0)"},
};

std::string Replace(std::string s, const std::string& from,
                    const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos;
       at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

void BM_Elementwise(benchmark::State& state, const EwCase* c) {
  std::string params;
  for (int i = 0; i < c->operands; ++i)
    params += "  p" + std::to_string(i) + " = f32[N] parameter(" +
              std::to_string(i) + ")\n";
  auto m = MakeModule(
      Replace("HloModule ew\n\nENTRY e {\n" + params + "  " + c->body + "\n}\n",
              "[N]", "[" + std::to_string(kElems) + "]"));
  for (int i = 0; i < c->operands; ++i)
    m->args.push_back(Filled({kElems}, 4.0f));
  RunModule(state, *m);
  state.counters["GBps"] = benchmark::Counter(
      4.0 * kElems * (c->operands + 1) * state.iterations() / 1e9,
      benchmark::Counter::kIsRate);
  state.counters["threads"] = hlo::exec::ExecThreads();
}

// exp(p0 * p1 + p2) as one loop fusion (the evaluator runs the fused
// computation); bytes: three operands read, one result written.
void BM_FusedChain(benchmark::State& state) {
  const std::string n = std::to_string(kElems);
  auto m = MakeModule(Replace(
      "HloModule fused\n\n"
      "fused_computation {\n"
      "  x = f32[N] parameter(0)\n  y = f32[N] parameter(1)\n"
      "  z = f32[N] parameter(2)\n  m = f32[N] multiply(x, y)\n"
      "  a = f32[N] add(m, z)\n  ROOT e = f32[N] exponential(a)\n}\n\n"
      "ENTRY e {\n  p0 = f32[N] parameter(0)\n  p1 = f32[N] parameter(1)\n"
      "  p2 = f32[N] parameter(2)\n"
      "  ROOT f = f32[N] fusion(p0, p1, p2), kind=kLoop, "
      "calls=fused_computation\n}\n",
      "[N]", "[" + n + "]"));
  for (int i = 0; i < 3; ++i) m->args.push_back(Filled({kElems}, 1.0f));
  RunModule(state, *m);
  state.counters["GBps"] = benchmark::Counter(
      4.0 * kElems * 4 * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.counters["threads"] = hlo::exec::ExecThreads();
}

void BM_Memcpy(benchmark::State& state) {
  std::vector<float> src(kElems, 1.0f), dst(kElems, 0.0f);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kElems * 4);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.counters["GBps"] = benchmark::Counter(
      4.0 * kElems * 2 * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.counters["threads"] = 1;
}

}  // namespace

int main(int argc, char** argv) {
  for (const DotCase& c : kDots) {
    benchmark::RegisterBenchmark((std::string("Dot/") + c.name).c_str(), BM_Dot,
                                 &c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
#ifdef HLO_LSP_HAVE_OPENBLAS
    benchmark::RegisterBenchmark((std::string("Sgemm/") + c.name).c_str(),
                                 BM_Sgemm, &c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
#endif
  }
  for (const EwCase& c : kElementwise) {
    benchmark::RegisterBenchmark((std::string("Elementwise/") + c.name).c_str(),
                                 BM_Elementwise, &c)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("Elementwise/fused_mul_add_exp", BM_FusedChain)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark("Memcpy/64MiB", BM_Memcpy)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::Initialize(&argc, argv);
  std::fprintf(stderr, "exec_bench: %d threads, gemm kernel %s%s\n",
               hlo::exec::ExecThreads(), hlo::exec::GemmKernelName(),
#ifdef HLO_LSP_HAVE_OPENBLAS
               ", OpenBLAS found"
#else
               ", no OpenBLAS (Sgemm rows skipped)"
#endif
  );
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
