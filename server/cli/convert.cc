// `hlo-lsp convert IN [-o OUT] [--to text|proto]`: XLA's binary HLO protos
// (HloSnapshot, HloUnoptimizedSnapshot, HloProto, HloModuleProto,
// RunHloModuleIterationLiterals; plain, .gz or chunked) to HLO text, and HLO
// text to an HloProto.
#include "hlo/proto/convert.h"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

#include "hlo/proto/decode.h"
#include "server/cli/commands.h"
#include "server/common/file_reader.h"

namespace hlo_lsp::cli {
namespace {

constexpr char kConvertUsage[] =
    "usage: hlo-lsp convert IN [-o OUT] [--to text|proto]\n\n"
    "Converts between XLA's binary HLO protos and HLO text.\n"
    "  A binary proto (.pb, .pb.gz, or binary content) goes to text: tried as\n"
    "  HloSnapshot, HloUnoptimizedSnapshot, HloProto, HloModuleProto and\n"
    "  RunHloModuleIterationLiterals, in that order. Snapshot arguments and\n"
    "  results follow the module as `// argument N: ...` comments.\n"
    "  A text-format proto (.pbtxt) of those messages also goes to text.\n"
    "  HLO text goes to a binary HloProto, which needs -o OUT.\n"
    "  -o OUT       output file; `-` or none writes text to stdout\n"
    "  --to KIND    force the direction: text or proto\n"
    "exit: 0 converted, 1 not a known proto or not valid HLO, 2 usage or I/O "
    "error\n";

// A text-format proto starts (after `#` comment lines) with `field {` or
// `field:`; HLO text starts with HloModule, ENTRY or a computation name.
bool LooksLikeTextProto(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
      ++i;
    if (i < text.size() && text[i] == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    break;
  }
  size_t j = i;
  while (j < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
    ++j;
  if (j == i) return false;
  std::string_view word = text.substr(i, j - i);
  if (word == "HloModule" || word == "ENTRY") return false;
  while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
  return j < text.size() && (text[j] == '{' || text[j] == ':');
}

bool IsTextProtoName(std::string_view path) {
  return path.ends_with(".pbtxt") || path.ends_with(".textproto") ||
         path.ends_with(".txtpb");
}

int Usage(const char* message) {
  std::fprintf(stderr, "hlo-lsp convert: %s\n\n%s", message, kConvertUsage);
  return kExitUsage;
}

int WriteOutput(const std::string& path, std::string_view bytes) {
  if (path.empty() || path == "-") {
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() ||
        std::fflush(stdout) != 0) {
      std::fprintf(stderr, "hlo-lsp: cannot write to stdout\n");
      return kExitUsage;
    }
    return kExitOk;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "hlo-lsp: cannot write %s\n", path.c_str());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

int RunConvert(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kConvertUsage, stdout);
    return kExitOk;
  }
  std::string input, output, to;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-o" || arg == "--output") {
      if (++i >= argc) return Usage("-o needs a file name");
      output = argv[i];
    } else if (arg == "--to") {
      if (++i >= argc) return Usage("--to needs text or proto");
      to = argv[i];
    } else if (arg.starts_with("--to=")) {
      to = std::string(arg.substr(5));
    } else if (arg.size() > 1 && arg[0] == '-' && arg != "-") {
      return Usage(("unknown option " + std::string(arg)).c_str());
    } else if (input.empty()) {
      input = std::string(arg);
    } else {
      return Usage("one input file only");
    }
  }
  if (input.empty()) return Usage("missing input file");
  if (!to.empty() && to != "text" && to != "proto") {
    return Usage("--to takes text or proto");
  }
  absl::StatusOr<FileContents> contents = FileContents::Read(input);
  if (!contents.ok()) {
    PrintError(contents.status());
    return kExitUsage;
  }
  std::string_view bytes = contents->text();
  if (to.empty()) {
    const bool proto_name = input.ends_with(".pb") || input.ends_with(".pb.gz");
    // `name {` starts both a text proto and a header-less HLO module: a
    // text proto that does not decode is read as HLO text.
    if (!proto_name && !hlo::proto::LooksLikeBinaryProto(bytes) &&
        LooksLikeTextProto(bytes)) {
      absl::StatusOr<hlo::proto::ProtoTextResult> text =
          hlo::proto::ConvertTextProtoToText(bytes);
      if (text.ok()) return WriteOutput(output, text->text);
      // A text proto by name, or one that could only go on as HLO text to a
      // binary proto it has nowhere to write: its parse error is the answer.
      const bool named = IsTextProtoName(input);
      if (named || output.empty() || output == "-") {
        std::fprintf(stderr, "hlo-lsp: %s: %s%s\n", input.c_str(),
                     std::string(text.status().message()).c_str(),
                     named ? ""
                           : " (read as a text proto; as HLO text it would "
                             "convert to a binary proto, which needs -o OUT)");
        return kExitNo;
      }
    }
    to = proto_name || hlo::proto::LooksLikeBinaryProto(bytes) ? "text"
                                                               : "proto";
  }
  if (to == "proto") {
    if (output.empty() || output == "-") {
      return Usage(
          "a binary proto needs -o OUT (it is not written to a "
          "terminal)");
    }
    size_t modules = 0;
    absl::StatusOr<std::string> proto =
        hlo::proto::ConvertTextToHloProtoBytes(bytes, &modules);
    if (!proto.ok()) {
      std::fprintf(stderr, "hlo-lsp: %s: %s\n", input.c_str(),
                   std::string(proto.status().message()).c_str());
      return kExitNo;
    }
    if (modules > 1) {
      std::fprintf(stderr,
                   "hlo-lsp: %s holds %zu modules; an HloProto holds one, so "
                   "only the first was converted\n",
                   input.c_str(), modules);
    }
    return WriteOutput(output, *proto);
  }
  const bool text_proto =
      !hlo::proto::LooksLikeBinaryProto(bytes) && LooksLikeTextProto(bytes);
  absl::StatusOr<hlo::proto::ProtoTextResult> text =
      text_proto ? hlo::proto::ConvertTextProtoToText(bytes)
                 : hlo::proto::ConvertProtoFileToText(bytes);
  if (!text.ok()) {
    std::fprintf(stderr, "hlo-lsp: %s: %s\n", input.c_str(),
                 std::string(text.status().message()).c_str());
    return kExitNo;
  }
  return WriteOutput(output, text->text);
}

}  // namespace hlo_lsp::cli
