// Queries over parsed shapes: element counts without overflow, byte sizes,
// and printing in XLA's spelling.
#ifndef HLO_LSP_HLO_SHAPE_UTIL_H_
#define HLO_LSP_HLO_SHAPE_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>

#include "hlo/syntax.h"

namespace hlo {

// Number of elements of an array shape; nullopt when it overflows int64
// (a shape of 10^24 elements is legal text) or the shape is a tuple. For
// dynamic dimensions the bound is used; an unbounded '?' gives nullopt.
std::optional<int64_t> ElementCount(const ParsedFile& file, Id shape);
// Bytes of the buffer(s): sum over tuple leaves; nullopt on overflow.
std::optional<int64_t> ByteSize(const ParsedFile& file, Id shape);
// Rank of an array shape (0 for tuples).
int Rank(const ParsedFile& file, Id shape);
// "f32[2,3]{1,0}" (with_layout) or "f32[2,3]". Tuples print as (a, b).
std::string ShapeToString(const ParsedFile& file, Id shape,
                          bool with_layout = true);

}  // namespace hlo

#endif  // HLO_LSP_HLO_SHAPE_UTIL_H_
