#include "base/dynamic_library.h"

#include <dlfcn.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace hlo::base {

absl::StatusOr<DynamicLibrary> DynamicLibrary::Open(
    std::initializer_list<const char*> names) {
  std::string errors;
  for (const char* name : names) {
    if (name == nullptr || *name == '\0') continue;
    if (void* handle = ::dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
      return DynamicLibrary(handle, name);
    }
    const char* why = ::dlerror();
    absl::StrAppend(&errors, errors.empty() ? "" : "; ",
                    why != nullptr ? why : name);
  }
  return absl::NotFoundError(errors.empty() ? std::string("no library named")
                                            : errors);
}

absl::StatusOr<void*> DynamicLibrary::Address(const char* symbol) const {
  ::dlerror();  // a symbol may be null: dlerror tells a missing one
  void* address = ::dlsym(handle_, symbol);
  if (const char* why = ::dlerror()) {
    return absl::NotFoundError(absl::StrCat(name_, ": ", why));
  }
  return address;
}

}  // namespace hlo::base
