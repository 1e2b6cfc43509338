// A shared library loaded when first needed instead of at every start:
// each library the loader maps costs every process its mappings and
// relocations, and a rarely used one (libarchive and the dozen libraries
// it needs) cost `hlo-lsp --version` a fifth of its time.
#ifndef HLO_LSP_BASE_DYNAMIC_LIBRARY_H_
#define HLO_LSP_BASE_DYNAMIC_LIBRARY_H_

#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

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

}  // namespace hlo::base

#endif  // HLO_LSP_BASE_DYNAMIC_LIBRARY_H_
