// The way back: the syntax model (hlo::ParsedFile) to HloModuleProto /
// HloProto, so that text -> proto -> text keeps every computation,
// instruction, shape and reference. Ids are assigned here (text has none):
// computations 1..N, instructions 1..M module-wide; operands, roots and
// control predecessors refer to those ids; called_computation_ids follow
// XLA's order (while: body, condition; conditional: true, false or the
// branch list; select-and-scatter: select, scatter).
#ifndef HLO_LSP_HLO_PROTO_ENCODE_H_
#define HLO_LSP_HLO_PROTO_ENCODE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "hlo/proto/hlo.pb.h"
#include "hlo/syntax.h"

namespace hlo::proto {

// Encodes module `module` of `file`. Fails when the file has syntax errors
// (an instruction with an unresolved operand cannot be encoded faithfully).
absl::StatusOr<xla::HloModuleProto> EncodeModule(const ParsedFile& file,
                                                 Id module = 0);
absl::StatusOr<xla::HloProto> EncodeHloProto(const ParsedFile& file,
                                             Id module = 0);

// The ShapeProto of a parsed shape (layout included when written).
xla::ShapeProto EncodeShape(const ParsedFile& file, Id shape);

}  // namespace hlo::proto

#endif  // HLO_LSP_HLO_PROTO_ENCODE_H_
