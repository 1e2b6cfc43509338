// A file a subcommand reads as HLO: its text, or a proto dump's text view
// (HloTextOf), with the same error messages for outline, graph and diff.
#ifndef HLO_LSP_SERVER_CLI_HLO_INPUT_H_
#define HLO_LSP_SERVER_CLI_HLO_INPUT_H_

#include <optional>
#include <string>
#include <string_view>

#include "server/common/file_reader.h"

namespace hlo_lsp::cli {

struct HloInput {
  HloInput() = default;
  // `text` may view `converted`: the input stays where it was read.
  HloInput(const HloInput&) = delete;
  HloInput& operator=(const HloInput&) = delete;

  std::optional<FileContents> contents;
  std::string converted;  // a proto's text view
  std::string_view text;  // the HLO text, in `contents` or `converted`
};

enum class HloInputError {
  kNone,
  kRead,    // the file could not be read (printed as PrintError does)
  kDecode,  // a proto dump that did not decode ("hlo-lsp: PATH: why")
};

// Reads `path` into `input`; on failure prints why to stderr.
HloInputError ReadHloInput(const std::string& path, HloInput* input);

}  // namespace hlo_lsp::cli

#endif  // HLO_LSP_SERVER_CLI_HLO_INPUT_H_
