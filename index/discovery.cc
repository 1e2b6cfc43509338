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
      // Version control and package folders hold no dumps, and a repository
      // opened at its root can hold tens of thousands of files in them.
      if (name == ".git" || name == ".hg" || name == ".svn" ||
          name == "node_modules" || name == "__pycache__" ||
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

}  // namespace hlo::index
