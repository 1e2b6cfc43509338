// Index build time, memory and in-process query latency (what
// workspace/symbol costs once the server has indexed), printed, not asserted.
//   index_query_latency DIR [--no-cache] [--runs N] QUERY...
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "index/workspace_index.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

// Resident set size of this process (bytes).
size_t Rss() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f != nullptr) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<size_t>(resident) *
         static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: index_query_latency DIR [--no-cache] [--runs N] "
                 "QUERY...\n");
    return 2;
  }
  hlo::index::IndexOptions options;
  options.name_table = true;  // as the server keeps it
  int runs = 50;
  std::vector<std::string> queries;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--no-cache") {
      options.use_cache = false;
    } else if (arg == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      queries.push_back(arg);
    }
  }
  size_t rss_before = Rss();
  auto start = std::chrono::steady_clock::now();
  hlo::index::WorkspaceIndex index(options);
  index.AddFolder(argv[1]);
  double build = Seconds(start);
  hlo::index::IndexStats stats = index.stats();
  std::printf(
      "index: %zu files (%zu HLO), %.1f MiB, %zu symbols, built in "
      "%.3f s (%zu scanned, %zu from shards)\n",
      stats.files, stats.hlo_files, stats.bytes / 1048576.0, stats.symbols,
      build, stats.files_scanned, stats.shards_loaded);
  std::printf("%-28s %8s %10s %10s %10s\n", "query (limit 100)", "results",
              "p50 ms", "p99 ms", "max ms");
  for (const std::string& q : queries) {
    std::vector<double> ms;
    size_t results = 0;
    for (int r = 0; r < runs; ++r) {
      auto t = std::chrono::steady_clock::now();
      auto found = index.Query(q, 100);
      ms.push_back(Seconds(t) * 1000);
      results = found.ok() ? found->size() : 0;
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-28s %8zu %10.2f %10.2f %10.2f\n", q.c_str(), results,
                ms[ms.size() / 2],
                ms[std::min(ms.size() - 1, ms.size() * 99 / 100)], ms.back());
  }
  // After the queries, so that the lazily built lookup tables are counted.
  stats = index.stats();
  size_t memory = stats.memory + stats.name_table_memory;
  size_t rss_growth = Rss() - std::min(Rss(), rss_before);
  std::printf(
      "index memory (counted): %.1f MiB (%.1f store + %.1f lookup tables, "
      "%zu distinct names) = %.1f%% of the HLO bytes\n",
      memory / 1048576.0, stats.memory / 1048576.0,
      stats.name_table_memory / 1048576.0, stats.distinct_names,
      stats.bytes ? 100.0 * memory / stats.bytes : 0.0);
  std::printf(
      "index memory (RSS after indexing and queries - RSS before): "
      "%.1f MiB = %.1f%% of the HLO bytes\n",
      rss_growth / 1048576.0,
      stats.bytes ? 100.0 * rss_growth / stats.bytes : 0.0);
  return 0;
}
