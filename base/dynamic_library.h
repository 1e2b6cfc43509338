// A shared library loaded when first needed instead of at every start:
// each library the loader maps costs every process its mappings and
// relocations, and a rarely used one (libarchive and the dozen libraries
// it needs) cost `hlo-lsp --version` a fifth of its time.
#ifndef HLO_LSP_BASE_DYNAMIC_LIBRARY_H_
#define HLO_LSP_BASE_DYNAMIC_LIBRARY_H_

#include <initializer_list>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/strings.h"

namespace hlo::base {

class DynamicLibrary {
 public:
  // The first of `names` (sonames or paths) that loads, its symbols bound
  // now. Never unloaded: its code may run until the process ends.
  static absl::StatusOr<DynamicLibrary> Open(
      std::initializer_list<const char*> names);

  const std::string& name() const { return name_; }

  // The address of `symbol` (a function or a variable).
  absl::StatusOr<void*> Address(const char* symbol) const;

  // `*pointer` = the function or variable `symbol`, typed as declared.
  template <typename T>
  absl::Status Load(const char* symbol, T** pointer) const {
    absl::StatusOr<void*> address = Address(symbol);
    if (!address.ok()) return address.status();
    *pointer = reinterpret_cast<T*>(*address);
    return absl::OkStatus();
  }

 private:
  DynamicLibrary(void* handle, std::string name)
      : handle_(handle), name_(std::move(name)) {}

  void* handle_;
  std::string name_;
};

// For an X-macro list of an Api struct's members, inside the struct: a
// member named and typed as `name` is declared (a pointer to the function,
// or to the variable).
#define HLO_LSP_DECLARE_API_MEMBER(name) decltype(&::name) name = nullptr;

// For an X-macro list of an Api struct's members, inside a `load` function
// of LoadApiOnce: loads `name` from `library` into `api->name`, or returns
// the error.
#define HLO_LSP_LOAD_API_MEMBER(name)                              \
  if (absl::Status s = library.Load(#name, &api->name); !s.ok()) { \
    return s;                                                      \
  }

// A library's functions (a struct `Api` of pointers), loaded from the
// first of `names` on the first call and kept for the process:
// `load(library, &api)` fills the struct. Every call after a failed load
// returns the same error: `purpose` (what the library is needed for and how
// to install it), then what was missing.
template <typename Api>
absl::StatusOr<const Api*> LoadApiOnce(
    std::initializer_list<const char*> names,
    absl::Status (*load)(const DynamicLibrary&, Api*),
    std::string_view purpose) {
  static const absl::StatusOr<Api>* const api = [&] {
    absl::StatusOr<DynamicLibrary> library = DynamicLibrary::Open(names);
    absl::Status status = library.status();
    Api loaded;
    if (status.ok()) status = load(*library, &loaded);
    if (!status.ok()) {
      return new absl::StatusOr<Api>(
          absl::FailedPreconditionError(Cat(purpose, ": ", status.message())));
    }
    return new absl::StatusOr<Api>(loaded);
  }();
  if (!api->ok()) return api->status();
  return &**api;
}

}  // namespace hlo::base

#endif  // HLO_LSP_BASE_DYNAMIC_LIBRARY_H_
