#include "index/discovery.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "index/dump_name.h"

namespace hlo::index {

namespace fs = std::filesystem;

namespace {

// fs::path's order, component by component, is the order of the path
// strings with the separator below every other byte; comparing strings
// skips path::compare's parse of both sides at every step (a third of
// the walk's time).
void SortPaths(std::vector<fs::path>* paths) {
  std::sort(
      paths->begin(), paths->end(), [](const fs::path& a, const fs::path& b) {
        const std::string& x = a.native();
        const std::string& y = b.native();
        const size_t n = std::min(x.size(), y.size());
        size_t i = 0;
        while (i < n && x[i] == y[i]) ++i;
        if (i == n) return x.size() < y.size();
        auto rank = [](char c) {
          return c == '/' ? 0
                          : static_cast<int>(static_cast<unsigned char>(c)) + 1;
        };
        return rank(x[i]) < rank(y[i]);
      });
}

bool IsTextDump(const DumpFileName& d) {
  return d.module_id >= 0 &&
         (d.kind == DumpKind::kStage || d.kind == DumpKind::kPassDump ||
          d.kind == DumpKind::kPassStep);
}

}  // namespace

DiscoveryResult DiscoverFiles(const fs::path& root, size_t max_depth) {
  DiscoveryResult result;
  std::error_code ec;
  fs::file_status status = fs::status(root, ec);
  if (ec) {
    result.warnings.push_back(root.string() + ": " + ec.message());
    return result;
  }
  if (fs::is_regular_file(status)) {
    if (IsCandidateByName(root.filename().string())) {
      result.files.push_back(root);
    }
    return result;
  }
  // skip_permission_denied below skips a folder it cannot open silently,
  // the root as well: a root the user cannot list must be said.
  if (::access(root.c_str(), R_OK | X_OK) != 0) {
    result.warnings.push_back(root.string() + ": " + std::strerror(errno));
    return result;
  }
  fs::recursive_directory_iterator it(
      root, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    result.warnings.push_back(root.string() + ": " + ec.message());
    return result;
  }
  for (fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
    if (ec) {
      result.warnings.push_back(it->path().string() + ": " + ec.message());
      ec.clear();
      // A failing increment leaves the iterator at end in libstdc++; stop.
      break;
    }
    const fs::directory_entry& entry = *it;
    std::string name = entry.path().filename().string();
    std::error_code type_ec;
    if (entry.is_directory(type_ec) && !entry.is_symlink(type_ec)) {
      if (name == ".git" || name == ".hg" || name == ".svn" ||
          static_cast<size_t>(it.depth()) >= max_depth) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (!IsCandidateByName(name)) continue;
    if (entry.is_regular_file(type_ec)) result.files.push_back(entry.path());
  }
  SortPaths(&result.files);
  return result;
}

DiscoveryResult DiscoverDumpSiblings(const fs::path& file, size_t max_entries) {
  DiscoveryResult result;
  const std::string self_name = file.filename().string();
  if (!IsCandidateByName(self_name)) return result;
  const DumpFileName self = ParseDumpFileName(self_name);
  if (!IsTextDump(self)) return result;
  const fs::path folder = file.parent_path();
  std::error_code ec;
  fs::directory_iterator it(folder,
                            fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    result.warnings.push_back(folder.string() + ": " + ec.message());
    return result;
  }
  size_t seen = 0;
  for (fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) {
      result.warnings.push_back(folder.string() + ": " + ec.message());
      break;
    }
    if (++seen > max_entries) {
      result.warnings.push_back(folder.string() + ": listing stopped after " +
                                std::to_string(max_entries) + " entries");
      break;
    }
    const std::string name = it->path().filename().string();
    if (!IsCandidateByName(name)) continue;
    const DumpFileName dump = ParseDumpFileName(name);
    if (!IsTextDump(dump) || dump.module_id != self.module_id) continue;
    std::error_code type_ec;
    if (it->is_regular_file(type_ec)) result.files.push_back(it->path());
  }
  SortPaths(&result.files);
  return result;
}

}  // namespace hlo::index
