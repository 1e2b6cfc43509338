// .npy (version 1) and .npz (zip; stored entries written, stored or
// deflated entries read) for replay inputs and outputs. Types NumPy lacks
// (bf16, the fp8 family, sub-byte integers) travel as their unsigned bit
// patterns with a companion key `NAME.dtype` holding the HLO type name.
#ifndef HLO_LSP_EXEC_NPZ_H_
#define HLO_LSP_EXEC_NPZ_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/literal.h"

namespace hlo::exec {

using NamedArrays = std::vector<std::pair<std::string, Value>>;

// One array as a .npy file's bytes (bit patterns for non-NumPy types).
absl::StatusOr<std::string> EncodeNpy(const Literal& literal);
// A .npy file's bytes: NumPy's header grammar exactly, then exactly the
// bytes its shape needs. `as` (when set and an array type) reinterprets the
// unsigned bit patterns as that HLO type.
absl::StatusOr<Literal> DecodeNpy(std::string_view bytes,
                                  PrimitiveType as = PrimitiveType::kInvalid);

// Zip archives of .npy entries; names without ".npy". Reading applies the
// `.dtype` companions and drops them from the result; it refuses repeated
// entry names and inflates an entry no further than its declared size, once
// its header has shown that size is what the array needs. Errors start with
// the entry's name.
absl::StatusOr<std::string> EncodeNpz(const NamedArrays& arrays);
absl::StatusOr<NamedArrays> DecodeNpz(std::string_view bytes);
absl::Status WriteNpzFile(const std::string& path, const NamedArrays& arrays);
absl::StatusOr<NamedArrays> ReadNpzFile(const std::string& path);

// Flattens a result depth first into out0, out1, ... (a non-tuple is out0).
NamedArrays FlattenResult(const Value& result, std::string_view prefix = "out");

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_NPZ_H_
