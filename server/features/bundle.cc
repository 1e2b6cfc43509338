// hlo.bundle: `hlo-lsp bundle` for the editor. The archive goes next to the
// module's files: the one folder known to hold the module and writable by
// whoever dumped it, also when no workspace folder is open. A second bundle
// of the same module takes the next free `-N` name instead of failing.
#include "server/common/bundle.h"

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "server/features/index_locations.h"
#include "server/features/workspace_features.h"

namespace hlo_lsp {

namespace {
constexpr int kMaxNames = 100;  // module_..bundle-100.tar.gz, then give up
}  // namespace

Result<BundleReply> BundleModule(const UriParams& params,
                                 const std::atomic<bool>* cancelled) {
  std::string path = UriToPath(params.uri);
  if (path.empty()) return InvalidParams("expected {uri} with a file URI");
  path = NormalPath(path);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return RequestFailed("cannot read " + path);
  }
  BundlePlan plan = PlanBundle(path);
  const std::filesystem::path folder =
      std::filesystem::path(path).parent_path();
  for (int n = 1; n <= kMaxNames; ++n) {
    std::string out =
        (folder / NumberedBundleName(plan.default_name, n)).string();
    absl::StatusOr<Bundle> bundle = WriteBundle(plan, out, cancelled);
    if (absl::IsAlreadyExists(bundle.status())) continue;
    if (absl::IsCancelled(bundle.status())) return Cancelled();
    if (!bundle.ok()) {
      return RequestFailed(std::string(bundle.status().message()));
    }
    BundleReply reply{
        bundle->path, PathToUri(bundle->path), {}, bundle->manifest};
    for (const BundleFile& f : bundle->files) {
      reply.files.push_back({f.source, f.name, f.size});
    }
    return reply;
  }
  return RequestFailed("too many bundles of this module in " + folder.string() +
                       "; remove some");
}

}  // namespace hlo_lsp
