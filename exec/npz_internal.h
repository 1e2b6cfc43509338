// Internal to exec/npz*: the .npy header, read strictly. NumPy writes one
// form; what we read is that form's grammar, so a malformed file is an error
// naming what is wrong rather than an array of some guessed shape.
#ifndef HLO_LSP_EXEC_NPZ_INTERNAL_H_
#define HLO_LSP_EXEC_NPZ_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/primitive_type.h"

namespace hlo::exec::npz_internal {

struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> dims;
  size_t data_offset = 0;  // the array data starts here
  int64_t data_bytes = 0;  // and takes exactly this many bytes
};

// Bytes a .npy file needs to see before its header ends (its magic, version
// and header length are in the first 12 bytes; fewer may be an error).
absl::StatusOr<size_t> NpyHeaderEnd(std::string_view prefix);

// The header at the start of `bytes`, which holds at least NpyHeaderEnd.
// The dict must be exactly {'descr': STR, 'fortran_order': True|False,
// 'shape': (INT, ...)} in any order (a trailing comma allowed, as NumPy
// writes it); the shape's bytes must fit in 63 bits.
absl::StatusOr<NpyHeader> ParseNpyHeader(std::string_view bytes);

// The element type of a numeric descr ('<f4', '|u1', ...); nullopt else.
std::optional<PrimitiveType> TypeOfDescr(std::string_view descr);

}  // namespace hlo::exec::npz_internal

#endif  // HLO_LSP_EXEC_NPZ_INTERNAL_H_
