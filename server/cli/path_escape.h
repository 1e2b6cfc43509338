// How `search` writes file paths so that every path can be read back
// byte for byte: Linux paths are bytes, not text.
#ifndef HLO_LSP_SERVER_CLI_PATH_ESCAPE_H_
#define HLO_LSP_SERVER_CLI_PATH_ESCAPE_H_

#include <string>
#include <string_view>

namespace hlo_lsp::cli {

// A JSON string literal (quotes included) for the path: valid UTF-8 as
// itself, each byte that is not part of valid UTF-8 as \udcNN, Python's
// "surrogateescape" (json.loads then os.fsencode gives the bytes back).
std::string JsonPathLiteral(std::string_view path);

// The path for one line of text output: a backslash as \\, \n \r \t as
// themselves, other control bytes as \xNN, so that no path splits a line.
std::string TextPath(std::string_view path);

}  // namespace hlo_lsp::cli

#endif  // HLO_LSP_SERVER_CLI_PATH_ESCAPE_H_
