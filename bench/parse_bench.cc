// Parse throughput and memory on real files:
//   parse_bench [BENCHMARK_FLAGS] FILE... | @LIST_FILE
// One benchmark per file (up to 16) plus "total", which parses every file in
// turn. Counters: bytes_per_second (MB/s), mem_ratio (ParsedFile::
// MemoryUsage() over file size; for total, summed over all files) and, for
// total, mem_ratio_max (the worst single file).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "hlo/parser.h"

namespace {

struct File {
  std::string path;
  std::string text;
};

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
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "parse_bench: cannot read %s\n", path.c_str());
      std::exit(2);
    }
    std::stringstream text;
    text << in.rdbuf();
    files.push_back({path, text.str()});
  }
  return files;
}

double MemoryRatio(const File& file) {
  std::unique_ptr<hlo::ParsedFile> parsed = hlo::Parse(file.text);
  return file.text.empty()
             ? 0
             : static_cast<double>(parsed->MemoryUsage()) / file.text.size();
}

void ParseOne(benchmark::State& state, const File* file) {
  for (auto _ : state) {
    std::unique_ptr<hlo::ParsedFile> parsed = hlo::Parse(file->text);
    benchmark::DoNotOptimize(parsed->instructions.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(file->text.size()));
  state.counters["mem_ratio"] = MemoryRatio(*file);
  std::unique_ptr<hlo::ParsedFile> parsed = hlo::Parse(file->text);
  state.counters["errors"] = parsed->HasErrors() ? 1 : 0;
}

void ParseAll(benchmark::State& state, const std::vector<File>* files) {
  int64_t bytes = 0;
  for (const File& file : *files)
    bytes += static_cast<int64_t>(file.text.size());
  for (auto _ : state) {
    for (const File& file : *files) {
      std::unique_ptr<hlo::ParsedFile> parsed = hlo::Parse(file.text);
      benchmark::DoNotOptimize(parsed->instructions.data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
  // Aggregate memory over aggregate size, and the worst single file (small
  // files pay the fixed per-file overhead).
  double worst = 0, memory = 0;
  for (const File& file : *files) {
    double ratio = MemoryRatio(file);
    worst = std::max(worst, ratio);
    memory += ratio * static_cast<double>(file.text.size());
  }
  state.counters["mem_ratio"] = bytes > 0 ? memory / bytes : 0;
  state.counters["mem_ratio_max"] = worst;
  state.counters["files"] = static_cast<double>(files->size());
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);  // leaves our own arguments in argv
  static std::vector<File> files = ReadFiles(argc, argv);
  if (files.empty()) {
    std::fprintf(stderr,
                 "usage: parse_bench [--benchmark_*] FILE... | @LIST_FILE\n");
    return 2;
  }
  for (size_t i = 0; i < files.size() && i < 16; ++i) {
    std::string name = files[i].path.substr(files[i].path.rfind('/') + 1);
    benchmark::RegisterBenchmark(("parse/" + name).c_str(), ParseOne, &files[i])
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("total", ParseAll, &files)
      ->Unit(benchmark::kMillisecond)
      ->MinTime(2.0);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
