// HLO text of proto shapes and literals, in XLA's spelling: shapes with
// layouts (`f32[2,3]{1,0:T(8,128)}`), literal values in logical row-major
// order (`{ {1, 2}, {3, 4} }`) whatever the physical layout.
#ifndef HLO_LSP_HLO_PROTO_LITERAL_PRINT_H_
#define HLO_LSP_HLO_PROTO_LITERAL_PRINT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "hlo/proto/xla_data.pb.h"

namespace hlo::proto {

// Appends the shape; with_layout adds the layout when the proto has one
// (scalars only when it carries extras such as tiles or a memory space).
void AppendShape(const xla::ShapeProto& shape, bool with_layout,
                 std::string* out);
std::string ShapeText(const xla::ShapeProto& shape, bool with_layout = true);
// "f32" for F32; "opaque" for OPAQUE_TYPE; "unknown_type_N" past the table.
std::string ElementTypeName(int type);

// Elements in the literal's shape (tuple leaves summed); nullopt on overflow
// or a negative dimension.
std::optional<int64_t> LiteralElementCount(const xla::LiteralProto& literal);

// Appends the literal's values (without its shape): a scalar `1.5`, an array
// `{1, 2}`, a tuple `(1, {2, 3})`. Returns false, appending nothing, when the
// data is missing, does not match the shape, or the shape is not printable.
bool AppendLiteralValues(const xla::LiteralProto& literal, std::string* out);

}  // namespace hlo::proto

#endif  // HLO_LSP_HLO_PROTO_LITERAL_PRINT_H_
