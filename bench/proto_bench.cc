// proto -> HLO text throughput on real modules:
//   proto_bench [BENCHMARK_FLAGS] FILE... | @LIST_FILE
// A FILE is HLO text (encoded to a serialised HloProto first, outside the
// timing) or a .pb. Per file (up to 16) and for all of them together
// ("total"):
//   convert/NAME  ConvertProtoFileToText: decode the bytes, print the text
//                 (instructions read off the wire, computations on threads)
//   decode/NAME   DecodeProto alone
//   print/NAME    AppendModuleText on the decoded module (printing alone)
//   memcpy/NAME   copying as many bytes as the text has, for scale
// bytes_per_second counts bytes of HLO text produced. With
// PROTO_BENCH_DUMP_DIR set, each file's text is also written there.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "hlo/proto/convert.h"
#include "hlo/proto/decode.h"
#include "hlo/proto/print.h"

namespace {

struct File {
  std::string name;
  std::string proto;  // serialised HloProto (or the .pb as read)
  std::unique_ptr<hlo::proto::DecodedProto> decoded;
  size_t text_bytes = 0;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "proto_bench: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<File> ReadFiles(int argc, char** argv) {
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '@') {
      std::ifstream list(arg.substr(1));
      for (std::string line; std::getline(list, line);) {
        if (!line.empty()) paths.push_back(line);
      }
    } else {
      paths.push_back(arg);
    }
  }
  std::vector<File> files;
  for (const std::string& path : paths) {
    File file;
    file.name = path.substr(path.find_last_of('/') + 1);
    std::string bytes = ReadAll(path);
    if (path.ends_with(".pb") || path.ends_with(".pb.gz")) {
      file.proto = std::move(bytes);
    } else {
      absl::StatusOr<std::string> proto =
          hlo::proto::ConvertTextToHloProtoBytes(bytes);
      if (!proto.ok()) {
        std::fprintf(stderr, "proto_bench: skipping %s: %s\n", path.c_str(),
                     std::string(proto.status().message()).c_str());
        continue;
      }
      file.proto = *std::move(proto);
    }
    absl::StatusOr<hlo::proto::DecodedProto> decoded =
        hlo::proto::DecodeProto(file.proto);
    if (!decoded.ok() || !decoded->module) {
      std::fprintf(stderr, "proto_bench: skipping %s: no module\n",
                   path.c_str());
      continue;
    }
    file.decoded =
        std::make_unique<hlo::proto::DecodedProto>(*std::move(decoded));
    std::string text;
    hlo::proto::AppendModuleText(*file.decoded->module,
                                 hlo::proto::PrintOptions(), &text);
    file.text_bytes = text.size();
    // PROTO_BENCH_DUMP_DIR: write each text out (to compare printers).
    if (const char* dir = std::getenv("PROTO_BENCH_DUMP_DIR")) {
      std::ofstream(std::string(dir) + "/" + file.name + ".txt",
                    std::ios::binary)
          << text;
    }
    files.push_back(std::move(file));
  }
  return files;
}

void Convert(benchmark::State& state, const std::vector<const File*>& files) {
  size_t bytes = 0;
  for (auto _ : state) {
    for (const File* file : files) {
      auto text = hlo::proto::ConvertProtoFileToText(file->proto);
      benchmark::DoNotOptimize(text);
      bytes += file->text_bytes;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

// Decoding alone; bytes are still the text's, to compare with convert.
void Decode(benchmark::State& state, const std::vector<const File*>& files) {
  size_t bytes = 0;
  for (auto _ : state) {
    for (const File* file : files) {
      auto decoded = hlo::proto::DecodeProto(file->proto);
      benchmark::DoNotOptimize(decoded);
      bytes += file->text_bytes;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void Print(benchmark::State& state, const std::vector<const File*>& files) {
  size_t bytes = 0;
  for (auto _ : state) {
    for (const File* file : files) {
      std::string text;
      hlo::proto::AppendModuleText(*file->decoded->module,
                                   hlo::proto::PrintOptions(), &text);
      benchmark::DoNotOptimize(text);
      bytes += text.size();
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void Memcpy(benchmark::State& state, const std::vector<const File*>& files) {
  size_t largest = 0;
  for (const File* file : files) largest = std::max(largest, file->text_bytes);
  std::string from(largest, 'x');
  size_t bytes = 0;
  for (auto _ : state) {
    for (const File* file : files) {
      // A fresh buffer each time, as the printer's output is.
      std::string to(file->text_bytes, '\0');
      std::memcpy(to.data(), from.data(), file->text_bytes);
      benchmark::DoNotOptimize(to);
      bytes += file->text_bytes;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  static std::vector<File> files = ReadFiles(argc, argv);
  if (files.empty()) {
    std::fprintf(stderr,
                 "usage: proto_bench [BENCHMARK_FLAGS] FILE... | @LIST\n");
    return 2;
  }
  std::vector<const File*> all;
  for (const File& file : files) all.push_back(&file);
  for (size_t i = 0; i < files.size() && i < 16; ++i) {
    std::vector<const File*> one = {&files[i]};
    std::fprintf(stderr, "%s: %zu proto bytes -> %zu text bytes\n",
                 files[i].name.c_str(), files[i].proto.size(),
                 files[i].text_bytes);
    benchmark::RegisterBenchmark(("convert/" + files[i].name).c_str(), Convert,
                                 one)
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime();
    benchmark::RegisterBenchmark(("decode/" + files[i].name).c_str(), Decode,
                                 one)
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime();
    benchmark::RegisterBenchmark(("print/" + files[i].name).c_str(), Print, one)
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime();
    benchmark::RegisterBenchmark(("memcpy/" + files[i].name).c_str(), Memcpy,
                                 one)
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime();
  }
  if (files.size() > 1) {
    benchmark::RegisterBenchmark("convert/total", Convert, all)
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime();
    benchmark::RegisterBenchmark("decode/total", Decode, all)
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime();
    benchmark::RegisterBenchmark("print/total", Print, all)
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime();
    benchmark::RegisterBenchmark("memcpy/total", Memcpy, all)
        ->Unit(benchmark::kMillisecond)
        ->MeasureProcessCPUTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
