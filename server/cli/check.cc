// `hlo-lsp check FILE...`: one line per diagnostic, FILE:LINE:COL (1-based,
// byte columns). Errors decide the exit code; warnings do not. A proto is
// checked as its text view (what `hlo-lsp convert` prints), and its
// positions are in that view.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/large_buffer.h"
#include "hlo/parser.h"
#include "hlo/verify.h"
#include "index/dump_name.h"
#include "server/cli/commands.h"
#include "server/common/file_reader.h"
#include "server/common/proto_files.h"

namespace hlo_lsp::cli {
namespace {

constexpr char kCheckUsage[] =
    "usage: hlo-lsp check [--verify=LIST | --no-verify] FILE...\n\n"
    "Parses each HLO text file and prints one line per problem:\n"
    "  FILE:LINE:COL: error: MESSAGE   (or warning:)\n"
    "Shapes are checked against XLA's shape inference (each declared shape\n"
    "must be the one XLA infers). --no-verify: syntax and names only.\n"
    "--verify=LIST: XLA's verifier defaults plus the comma-separated options\n"
    "named (allow_mixed_precision, layout_sensitive, ...; 'default' for\n"
    "none); without it mixed precision is allowed.\n"
    "Lines and columns are 1-based; columns count bytes. FILE '-' is stdin.\n"
    "A proto (.pb, .pb.gz, .pbtxt, snapshots, text-format content) is\n"
    "checked as its text view, the text 'hlo-lsp convert FILE' prints: its\n"
    "LINE:COL are in that text. One that does not decode is an error.\n"
    "XLA's -buffer-assignment.txt and -memory-usage-report.txt beside the\n"
    "dumps are skipped with a note (so `check dump/*.txt` works).\n"
    "exit: 0 no errors (warnings allowed), 1 errors found, 2 usage or I/O "
    "error\n";

// Keeps one diagnostic on one output line.
std::string OneLine(std::string_view message) {
  std::string line(message);
  std::replace_if(
      line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r'; },
      ' ');
  return line;
}

// XLA's buffer-assignment and memory-usage dumps, by name, when their
// content is not HLO text: what they are, for the note that skips them.
std::optional<std::string_view> XlaCompanion(const std::string& path,
                                             std::string_view bytes) {
  std::string_view name = path;
  if (!name.ends_with(".txt") ||
      hlo::index::LooksLikeHloText(bytes.substr(0, 4096))) {
    return std::nullopt;
  }
  if (name.ends_with("-buffer-assignment.txt")) return "buffer-assignment";
  if (name.ends_with("-memory-usage-report.txt")) return "memory-usage report";
  return std::nullopt;
}

// One file's report: its stdout lines, its stderr lines, whether it has
// errors, whether it could not be read.
struct FileReport {
  std::string out, err;
  bool has_errors = false;
  bool io_error = false;
};

// What the verifier step does: nothing (--no-verify) or hlo::Verify.
struct VerifyOptions {
  bool enabled = true;
  hlo::VerifierOptions verifier;
};

FileReport CheckFile(const std::string& path, const VerifyOptions& verify) {
  FileReport report;
  absl::StatusOr<FileContents> contents = FileContents::Read(path);
  if (!contents.ok()) {
    const absl::Status& status = contents.status();
    report.err = absl::StrCat("hlo-lsp: ", status.message(), "\n");
    report.io_error = true;
    return report;
  }
  if (std::optional<std::string_view> kind =
          XlaCompanion(path, contents->text())) {
    // `check dump/*.txt` takes in XLA's other text dumps: say so, no error.
    report.err =
        absl::StrCat("hlo-lsp: ", path, ": skipped, XLA's ", std::string(*kind),
                     " dump, not HLO ('hlo-lsp memory' reads it)\n");
    return report;
  }
  std::string proto_text;
  absl::StatusOr<std::string_view> text =
      HloTextOf(path, contents->text(), &proto_text);
  if (!text.ok()) {
    report.err =
        absl::StrCat("hlo-lsp: ", path, ": ", text.status().message(), "\n");
    report.has_errors = true;
    return report;
  }
  std::unique_ptr<hlo::ParsedFile> file = hlo::Parse(*text);
  std::vector<hlo::Diagnostic> verifier_findings;
  if (verify.enabled) verifier_findings = hlo::Verify(*file, verify.verifier);
  std::vector<const hlo::Diagnostic*> sorted;
  sorted.reserve(file->diagnostics.size() + verifier_findings.size());
  for (const hlo::Diagnostic& d : file->diagnostics) sorted.push_back(&d);
  for (const hlo::Diagnostic& d : verifier_findings) sorted.push_back(&d);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const hlo::Diagnostic* a, const hlo::Diagnostic* b) {
                     return a->span.begin < b->span.begin;
                   });
  for (const hlo::Diagnostic* d : sorted) {
    hlo::LineColumn at = file->lines().ToLineColumn(d->span.begin);
    absl::StrAppend(&report.out, path, ":", at.line + 1, ":", at.column + 1,
                    ": ",
                    d->severity == hlo::Severity::kError ? "error" : "warning",
                    ": ", OneLine(d->message), "\n");
  }
  if (file->diagnostics_truncated) {
    absl::StrAppend(&report.err, "hlo-lsp: ", path,
                    ": too many diagnostics, the rest are not shown\n");
  }
  report.has_errors = file->HasErrors() || !verifier_findings.empty();
  return report;
}

// Checks the files on up to one thread per core, within a memory budget,
// and prints each report in the order the files were given, as soon as it
// and those before it are done: the output is the same as one file after
// another.
class ParallelChecker {
 public:
  ParallelChecker(const std::vector<std::string>& paths,
                  const VerifyOptions& verify)
      : paths_(paths),
        verify_(verify),
        reports_(paths.size()),
        done_(paths.size(), false) {}

  // Returns the exit code.
  int Run() {
    size_t threads = std::min<size_t>(paths_.size(), WorkerCount());
    // The calling thread only prints: reports are small next to parsing.
    std::vector<std::thread> workers;
    for (size_t t = 0; t < threads; ++t) {
      workers.emplace_back([this] { Work(); });
    }
    bool io_error = false, has_errors = false;
    for (size_t i = 0; i < paths_.size(); ++i) {
      FileReport report;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return done_[i]; });
        report = std::move(reports_[i]);
      }
      std::fwrite(report.out.data(), 1, report.out.size(), stdout);
      if (!report.err.empty()) {
        std::fflush(stdout);  // keep stdout and stderr in file order
        std::fwrite(report.err.data(), 1, report.err.size(), stderr);
      }
      io_error |= report.io_error;
      has_errors |= report.has_errors;
    }
    for (std::thread& worker : workers) worker.join();
    if (io_error) return kExitUsage;
    return has_errors ? kExitNo : kExitOk;
  }

 private:
  void Work() {
    // The first files would fault in the thread's heap 4 KB at a time.
    hlo::base::AdviseThreadHeapHugePages();
    for (;;) {
      size_t i = next_.fetch_add(1);
      if (i >= paths_.size()) return;
      const uint64_t bytes = SizeOf(paths_[i]);
      {
        // A parsed file takes a few times its size: files start only while
        // the bytes being checked fit the budget (or none are).
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] {
          return in_flight_ == 0 || in_flight_ + bytes <= budget_;
        });
        in_flight_ += bytes;
      }
      FileReport report;
      try {
        report = CheckFile(paths_[i], verify_);
      } catch (const std::bad_alloc&) {  // a worker must not abort the run
        report = FileReport{};
        report.err = "hlo-lsp: " + paths_[i] + ": " + kOutOfMemory + "\n";
        report.io_error = true;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      in_flight_ -= bytes;
      reports_[i] = std::move(report);
      done_[i] = true;
      ready_.notify_all();
    }
  }

  // One per core. HLO_LSP_CHECK_THREADS (internal, undocumented: for the
  // test that compares one thread with many, and for benchmarks) sets it.
  static size_t WorkerCount() {
    if (const char* forced = std::getenv("HLO_LSP_CHECK_THREADS")) {
      const long n = std::strtol(forced, nullptr, 10);
      if (n > 0) return static_cast<size_t>(std::min(n, 256L));
    }
    return std::max(1u, std::thread::hardware_concurrency());
  }

  static uint64_t SizeOf(const std::string& path) {
    struct stat info;
    if (path == "-" || ::stat(path.c_str(), &info) != 0) return 0;
    return static_cast<uint64_t>(info.st_size);
  }

  // An eighth of physical memory, at least 256 MB, for file bytes in flight.
  static uint64_t Budget() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    const uint64_t memory =
        pages > 0 && page > 0
            ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page)
            : 0;
    return std::max<uint64_t>(memory / 8, uint64_t{256} << 20);
  }

  const std::vector<std::string>& paths_;
  const VerifyOptions verify_;
  const uint64_t budget_ = Budget();
  std::atomic<size_t> next_{0};
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<FileReport> reports_;  // guarded by mutex_
  std::vector<bool> done_;           // guarded by mutex_
  uint64_t in_flight_ = 0;           // guarded by mutex_
};

}  // namespace

int RunCheck(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kCheckUsage, stdout);
    return kExitOk;
  }
  std::vector<std::string> paths;
  VerifyOptions verify;
  bool options_done = false, no_verify = false, verify_list = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (!options_done && arg == "--") {
      options_done = true;
    } else if (!options_done && arg == "--no-verify") {
      no_verify = true;
      verify.enabled = false;
    } else if (!options_done && arg.starts_with("--verify=")) {
      verify_list = true;
      std::string bad;
      if (!hlo::ParseVerifierOptions(arg.substr(9), &verify.verifier, &bad)) {
        std::fprintf(stderr, "hlo-lsp check: unknown verifier option '%s'\n%s",
                     bad.c_str(), kCheckUsage);
        return kExitUsage;
      }
    } else if (!options_done && arg.size() > 1 && arg[0] == '-') {
      std::fprintf(stderr, "hlo-lsp check: unknown option '%s'\n%s", argv[i],
                   kCheckUsage);
      return kExitUsage;
    } else {
      paths.emplace_back(arg);
    }
  }
  if (no_verify && verify_list) {
    std::fprintf(stderr,
                 "hlo-lsp check: --verify and --no-verify exclude each "
                 "other\n%s",
                 kCheckUsage);
    return kExitUsage;
  }
  if (paths.empty()) {
    std::fputs(kCheckUsage, stderr);
    return kExitUsage;
  }
  return ParallelChecker(paths, verify).Run();
}

}  // namespace hlo_lsp::cli
