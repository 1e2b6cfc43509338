#include "server/common/bundle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "index/module_files.h"
#include "server/common/archive_api.h"

#ifndef HLO_LSP_VERSION
#define HLO_LSP_VERSION "unknown"
#endif

namespace hlo_lsp {
namespace {

namespace fs = std::filesystem;
using hlo::index::DumpFileKind;

// The read and write unit: what the bundle holds in memory at any time.
constexpr size_t kChunk = 64 * 1024;

bool Wanted(const hlo::index::DumpFile& f) {
  switch (f.kind) {
    case DumpFileKind::kStage:
    case DumpFileKind::kBufferAssignment:
    case DumpFileKind::kMemoryReport:
    case DumpFileKind::kSnapshot:
      return true;
    case DumpFileKind::kOther:
      return f.label.ends_with("debug_options");
    default:
      return false;
  }
}

// A file descriptor closed when it goes out of scope.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

absl::Status ErrnoError(const std::string& what, const std::string& path) {
  int error = errno;
  std::string message =
      absl::StrCat(what, " ", path, ": ", std::strerror(error));
  return error == ENOENT ? absl::NotFoundError(message)
                         : absl::UnavailableError(message);
}

// An archive being written into out_path, freed with it.
class Writer {
 public:
  Writer(const ArchiveApi& api, const std::string& out_path)
      : api_(api), out_path_(out_path), archive_(api.archive_write_new()) {}
  Writer(const Writer&) = delete;
  ~Writer() {
    if (archive_ != nullptr) api_.archive_write_free(archive_);
  }

  const ArchiveApi& api() const { return api_; }
  archive* get() const { return archive_; }

  absl::Status Error() const {
    const char* why =
        archive_ != nullptr ? api_.archive_error_string(archive_) : nullptr;
    return absl::UnavailableError(absl::StrCat("cannot write ", out_path_, ": ",
                                               why != nullptr ? why : "error"));
  }

 private:
  const ArchiveApi& api_;
  const std::string& out_path_;
  archive* archive_;
};

// The archive's top folder: its file name without .tar.gz / .tgz.
std::string TopFolder(const std::string& out_path) {
  std::string name = fs::path(out_path).filename().string();
  for (const char* suffix : {".tar.gz", ".tgz", ".gz", ".tar"}) {
    if (name.size() > std::strlen(suffix) && name.ends_with(suffix)) {
      name.resize(name.size() - std::strlen(suffix));
      break;
    }
  }
  return name.empty() ? "bundle" : name;
}

std::string Manifest(const BundlePlan& plan,
                     const std::vector<BundleFile>& files) {
  std::string out = "hlo-lsp " HLO_LSP_VERSION "\n";
  if (!plan.module_name.empty() || plan.module_id >= 0) {
    out += "module:";
    if (!plan.module_name.empty()) out += " " + plan.module_name;
    if (plan.module_id >= 0) {
      char id[32];
      std::snprintf(id, sizeof(id), " module_%04lld",
                    static_cast<long long>(plan.module_id));
      out += id;
    }
    out += '\n';
  }
  for (const BundleFile& f : files) {
    out += absl::StrCat(f.size, " ", f.name, "\n");
  }
  return out;
}

absl::Status WriteHeader(Writer& w, const std::string& name, uint64_t size,
                         time_t mtime) {
  const ArchiveApi& api = w.api();
  archive_entry* entry = api.archive_entry_new();
  if (entry == nullptr) return w.Error();
  api.archive_entry_set_pathname(entry, name.c_str());
  api.archive_entry_set_size(entry, static_cast<la_int64_t>(size));
  api.archive_entry_set_filetype(entry, AE_IFREG);
  api.archive_entry_set_perm(entry, 0644);
  api.archive_entry_set_mtime(entry, mtime, 0);
  const bool failed = api.archive_write_header(w.get(), entry) < ARCHIVE_WARN;
  api.archive_entry_free(entry);
  return failed ? w.Error() : absl::OkStatus();
}

absl::Status WriteAll(Writer& w, const char* data, size_t size) {
  while (size > 0) {
    la_ssize_t n = w.api().archive_write_data(w.get(), data, size);
    if (n <= 0) return w.Error();
    data += n;
    size -= static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// Copies `size` bytes of `fd` into the current entry, a chunk at a time.
absl::Status CopyFile(Writer& w, int fd, const BundleFile& file,
                      const std::atomic<bool>* cancelled) {
  std::vector<char> buffer(kChunk);
  uint64_t left = file.size;
  while (left > 0) {
    if (cancelled != nullptr && *cancelled) {
      return absl::CancelledError("cancelled");
    }
    ssize_t n = ::read(fd, buffer.data(),
                       static_cast<size_t>(std::min<uint64_t>(left, kChunk)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("cannot read", file.source);
    if (n == 0) {
      return absl::UnavailableError(
          absl::StrCat(file.source, " shrank while it was being bundled"));
    }
    if (absl::Status s = WriteAll(w, buffer.data(), static_cast<size_t>(n));
        !s.ok()) {
      return s;
    }
    left -= static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

// Writes the archive into `fd` (a new temporary file).
absl::Status WriteArchive(int fd, const BundlePlan& plan,
                          const std::vector<Fd>& inputs,
                          const std::vector<time_t>& mtimes, Bundle* bundle,
                          const std::string& out_path,
                          const std::atomic<bool>* cancelled) {
  absl::StatusOr<const ArchiveApi*> api = LoadArchiveApi();
  if (!api.ok()) return api.status();
  Writer w(**api, out_path);
  if (w.get() == nullptr) return w.Error();
  // pax_restricted: plain ustar, with pax headers only for what ustar cannot
  // hold (XLA's file names reach 255 bytes, ustar's 100 + 155).
  if ((*api)->archive_write_add_filter_gzip(w.get()) != ARCHIVE_OK ||
      (*api)->archive_write_set_format_pax_restricted(w.get()) != ARCHIVE_OK ||
      (*api)->archive_write_open_fd(w.get(), fd) != ARCHIVE_OK) {
    return w.Error();
  }
  const std::string top = TopFolder(out_path) + "/";
  bundle->manifest = Manifest(plan, bundle->files);
  if (absl::Status s = WriteHeader(w, top + "MANIFEST.txt",
                                   bundle->manifest.size(), ::time(nullptr));
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          WriteAll(w, bundle->manifest.data(), bundle->manifest.size());
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < bundle->files.size(); ++i) {
    const BundleFile& file = bundle->files[i];
    if (absl::Status s = WriteHeader(w, top + file.name, file.size, mtimes[i]);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = CopyFile(w, inputs[i].fd, file, cancelled); !s.ok()) {
      return s;
    }
  }
  // Close flushes the gzip stream: its failure is a failed write.
  if ((*api)->archive_write_close(w.get()) != ARCHIVE_OK) return w.Error();
  return absl::OkStatus();
}

// Gives `tmp` the name `out` unless `out` exists: link(2) never replaces;
// renameat2(RENAME_NOREPLACE) where the file system has no hard links.
absl::Status PublishNoReplace(const std::string& tmp, const std::string& out) {
  if (::link(tmp.c_str(), out.c_str()) == 0) {
    ::unlink(tmp.c_str());
    return absl::OkStatus();
  }
  if (errno == EEXIST) {
    return absl::AlreadyExistsError(
        absl::StrCat(out, " exists; not replacing it"));
  }
  if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, out.c_str(),
                  RENAME_NOREPLACE) == 0) {
    return absl::OkStatus();
  }
  if (errno == EEXIST) {
    return absl::AlreadyExistsError(
        absl::StrCat(out, " exists; not replacing it"));
  }
  return ErrnoError("cannot create", out);
}

}  // namespace

BundlePlan PlanBundle(const std::string& path) {
  hlo::index::ModuleDumpFiles module = hlo::index::ModuleFilesOfPath(path);
  BundlePlan plan;
  plan.module_name = module.module_name;
  plan.module_id = module.module_id;
  const std::string self = fs::path(path).filename().string();
  for (const hlo::index::DumpFile& f : module.files) {
    std::string name = fs::path(f.path).filename().string();
    if (name == self || Wanted(f)) plan.files.push_back({f.path, name, 0});
  }
  if (plan.module_id >= 0) {
    char id[32];
    std::snprintf(id, sizeof(id), "module_%04lld",
                  static_cast<long long>(plan.module_id));
    plan.default_name = id;
    if (!plan.module_name.empty()) plan.default_name += "." + plan.module_name;
  } else {
    plan.default_name = fs::path(self).stem().string();
  }
  plan.default_name += ".bundle.tar.gz";
  return plan;
}

std::string NumberedBundleName(const std::string& name, int n) {
  if (n < 2) return name;
  std::string suffix = name.ends_with(".tar.gz") ? ".tar.gz" : "";
  return absl::StrCat(name.substr(0, name.size() - suffix.size()), "-", n,
                      suffix);
}

absl::StatusOr<Bundle> WriteBundle(const BundlePlan& plan,
                                   const std::string& out_path,
                                   const std::atomic<bool>* cancelled) {
  struct stat st;
  if (::lstat(out_path.c_str(), &st) == 0) {
    return absl::AlreadyExistsError(
        absl::StrCat(out_path, " exists; not replacing it"));
  }
  // Every input opened and sized first: MANIFEST.txt comes first and states
  // the sizes that are then copied.
  Bundle bundle;
  bundle.path = out_path;
  std::vector<Fd> inputs;
  std::vector<time_t> mtimes;
  for (const BundleFile& f : plan.files) {
    Fd fd(::open(f.source.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.fd < 0) return ErrnoError("cannot read", f.source);
    if (::fstat(fd.fd, &st) != 0) return ErrnoError("cannot read", f.source);
    if (!S_ISREG(st.st_mode)) {
      return absl::UnavailableError(
          absl::StrCat("cannot read ", f.source, ": not a regular file"));
    }
    bundle.files.push_back(
        {f.source, f.name, static_cast<uint64_t>(st.st_size)});
    mtimes.push_back(st.st_mtime);
    inputs.push_back(std::move(fd));
  }
  // A temporary name in the same folder (so that link is not across file
  // systems), created exclusively, permissions from the umask.
  fs::path out(out_path);
  std::string tmp;
  Fd out_fd(-1);
  for (int attempt = 0; out_fd.fd < 0; ++attempt) {
    tmp = (out.parent_path() / absl::StrCat(".", out.filename().string(), ".",
                                            ::getpid(), ".", attempt, ".tmp"))
              .string();
    out_fd.fd =
        ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (out_fd.fd < 0 && (errno != EEXIST || attempt > 100)) {
      return ErrnoError("cannot create", out_path);
    }
  }
  absl::Status status = WriteArchive(out_fd.fd, plan, inputs, mtimes, &bundle,
                                     out_path, cancelled);
  if (status.ok() && ::close(std::exchange(out_fd.fd, -1)) != 0) {
    status = ErrnoError("cannot write", out_path);
  }
  if (status.ok()) status = PublishNoReplace(tmp, out_path);
  if (!status.ok()) {
    ::unlink(tmp.c_str());
    return status;
  }
  return bundle;
}

}  // namespace hlo_lsp
