// The way back: the syntax model (hlo::ParsedFile) to HloModuleProto /
// HloProto, so that text -> proto -> text keeps every computation,
// instruction, shape and reference. Ids are assigned here (text has none):
// computations 1..N, instructions 1..M module-wide; operands, roots and
// control predecessors refer to those ids; called_computation_ids follow
// XLA's order (while: body, condition; conditional: true, false or the
// branch list; select-and-scatter: select, scatter). Inline computation
// bodies become computations of their own, named after the instruction
// (`call.1.to_apply`), encoded before the instruction that calls them.
#ifndef HLO_LSP_HLO_PROTO_ENCODE_H_
#define HLO_LSP_HLO_PROTO_ENCODE_H_

#include <memory>
#include <string>
#include <string_view>
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

// An inline computation body (`to_apply={ x = ... ROOT y = ... }`, which
// the parser keeps as the attribute's text), parsed as a module with one
// computation. `file` views `*text`; it is null when the value is not an
// inline body or the body does not parse clean.
struct InlineBody {
  std::unique_ptr<std::string> text;
  std::unique_ptr<ParsedFile> file;
};
// True when `key` names called computations (to_apply, calls, body, ...).
bool IsComputationKey(std::string_view key);
// True when a computation attribute's value is a body rather than names.
bool IsInlineBody(std::string_view value);
InlineBody ParseInlineBody(std::string_view value);

}  // namespace hlo::proto

#endif  // HLO_LSP_HLO_PROTO_ENCODE_H_
