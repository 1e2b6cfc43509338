// Definition, references and highlights: the model's name resolution, read
// through hlo/query.h. A computation the file does not define is looked for
// in the other dumps of its module, through the workspace index (or, for a
// document outside it, by scanning the dumps beside it).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "base/whole_file.h"
#include "hlo/query.h"
#include "index/module_files.h"
#include "index/scanner.h"
#include "server/features/features.h"
#include "server/features/index_locations.h"

namespace hlo_lsp {
namespace {

Location At(const Snapshot& snap, hlo::Span span) {
  return Location{snap.uri, snap.ToRange(span)};
}

// Call-site operands that feed `parameter_instruction` from every caller of
// its computation.
std::vector<hlo::Span> CallSiteOperands(const hlo::ParsedFile& file,
                                        hlo::Id parameter_instruction) {
  std::vector<hlo::Span> out;
  std::optional<int64_t> number =
      hlo::ParameterNumber(file, parameter_instruction);
  if (!number) return out;
  hlo::Id comp = file.instructions[parameter_instruction].computation;
  for (hlo::Id ref : hlo::CallersOf(file, comp)) {
    hlo::Id operand = hlo::CallSiteOperand(file, ref, *number);
    if (operand != hlo::kNone) out.push_back(file.operands[operand].span);
  }
  return out;
}

// The name under the cursor (`%name`, `name`), without its sigil.
std::string WordAt(std::string_view text, size_t offset) {
  auto is_name = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '.' || c == '-';
  };
  if (offset > text.size()) return "";
  size_t begin = offset, end = offset;
  while (begin > 0 && is_name(text[begin - 1])) --begin;
  while (end < text.size() && is_name(text[end])) ++end;
  return std::string(text.substr(begin, end - begin));
}

// Bytes of unindexed dumps one definition request may scan.
constexpr uintmax_t kScanBudget = 64 << 20;

// The computations named `name` in `paths`, files the index does not hold,
// scanned here (up to kScanBudget bytes in all) and not kept.
std::vector<Location> ScanForComputation(const std::vector<std::string>& paths,
                                         const std::string& name, bool utf16) {
  std::vector<Location> out;
  uintmax_t budget = kScanBudget;
  for (const std::string& path : paths) {
    hlo::base::WholeFile::Options options;
    options.max_bytes = budget;
    absl::StatusOr<hlo::base::WholeFile> file =
        hlo::base::WholeFile::Read(path, options);
    if (!file.ok()) continue;  // over the budget, or not a regular file
    budget -= file->bytes().size();
    const hlo::index::FileSymbols symbols =
        hlo::index::ScanSymbols(file->bytes());
    for (const hlo::index::Symbol& s : symbols.symbols) {
      if (s.kind != hlo::index::SymbolKind::kComputation ||
          symbols.Name(s) != name) {
        continue;
      }
      hlo::index::SymbolMatch m;
      m.absolute_path = path;
      m.line = s.line;
      m.column = s.column;
      m.flags = s.flags;
      m.name = name;
      out.push_back(IndexLocation(m, utf16));
    }
  }
  return out;
}

// Locations of the computation `name` in the other files of the module that
// `uri` belongs to.
std::vector<Location> DefinitionElsewhere(hlo::index::WorkspaceIndex& index,
                                          const Snapshot& snap,
                                          const std::string& name) {
  std::vector<Location> out;
  std::string path = UriToPath(snap.uri);
  if (path.empty() || name.empty()) return out;
  const std::string self = NormalPath(path);
  // The module's other stage and pass dumps, from its folder's listing.
  std::vector<std::string> others;
  for (const hlo::index::DumpFile& f :
       hlo::index::HloTextHistory(hlo::index::ModuleFilesOfPath(self))) {
    if (f.path != self) others.push_back(f.path);
  }
  if (others.empty()) return out;
  const bool utf16 = snap.unit == hlo::ColumnUnit::kUtf16CodeUnits;
  // The index answers for what it holds; the files it does not hold yet
  // (outside the workspace, or during the first indexing) are scanned.
  auto matches = index.Query("kind:computation " + name, 0);
  if (matches.ok()) {
    for (const hlo::index::SymbolMatch& m : *matches) {
      if (m.name != name) continue;
      if (std::find(others.begin(), others.end(), m.absolute_path) ==
          others.end())
        continue;
      out.push_back(IndexLocation(m, utf16));
    }
  }
  if (!out.empty()) return out;
  std::vector<std::string> unindexed;
  std::vector<hlo::index::ModuleFile> indexed = index.ModuleFiles(self);
  for (const std::string& other : others) {
    if (std::none_of(indexed.begin(), indexed.end(),
                     [&](const auto& f) { return f.path == other; })) {
      unindexed.push_back(other);
    }
  }
  return ScanForComputation(unindexed, name, utf16);
  return out;
}

std::vector<Location> DefinitionInFile(const Snapshot& snap,
                                       Position position) {
  const hlo::ParsedFile& file = *snap.file;
  hlo::NodeAt node = hlo::FindNodeAt(file, snap.ToOffset(position));
  hlo::NodeAt def = hlo::DefinitionOf(file, node);
  std::vector<Location> out;
  if (def.kind == hlo::NodeKind::kNone) return out;
  const bool on_parameter =
      (node.kind == hlo::NodeKind::kInstructionName ||
       node.kind == hlo::NodeKind::kSignatureParameter) &&
      def.kind == hlo::NodeKind::kInstructionName &&
      file.instructions[def.id].opcode == hlo::Opcode::kParameter;
  if (on_parameter) {
    // On a parameter of a called computation: also where its value comes
    // from at each call site.
    if (node.kind == hlo::NodeKind::kSignatureParameter) {
      out.push_back(At(snap, def.span));
    }
    for (hlo::Span span : CallSiteOperands(file, def.id)) {
      out.push_back(At(snap, span));
    }
    if (out.empty()) out.push_back(At(snap, def.span));
    return out;
  }
  out.push_back(At(snap, def.span));
  return out;
}

// The declaration and uses of what is under the cursor, as spans; the
// first entry is the declaration when `with_declaration`.
std::vector<hlo::Span> Occurrences(const hlo::ParsedFile& file,
                                   hlo::Offset offset, bool with_declaration,
                                   bool* found) {
  std::vector<hlo::Span> spans;
  hlo::NodeAt def = hlo::DefinitionOf(file, hlo::FindNodeAt(file, offset));
  *found = def.kind != hlo::NodeKind::kNone;
  if (!*found) return spans;
  if (with_declaration) spans.push_back(def.span);
  if (def.kind == hlo::NodeKind::kInstructionName) {
    for (const hlo::Use& use : hlo::UsersOf(file, def.id))
      spans.push_back(use.span);
  } else if (def.kind == hlo::NodeKind::kComputationName) {
    for (hlo::Id ref : hlo::CallersOf(file, def.id)) {
      spans.push_back(file.computation_refs[ref].name);
    }
  }
  return spans;
}

}  // namespace

std::vector<Location> Definition(const Snapshot& snap, Position position,
                                 hlo::index::WorkspaceIndex* index) {
  std::vector<Location> found = DefinitionInFile(snap, position);
  if (!found.empty() || index == nullptr || snap.text == nullptr) return found;
  std::string word = WordAt(*snap.text, snap.ToOffset(position));
  if (word.empty() || word[0] == '%' ||
      std::isdigit(static_cast<unsigned char>(word[0]))) {
    return found;
  }
  return DefinitionElsewhere(*index, snap, word);
}

std::vector<Location> References(const Snapshot& snap, Position position,
                                 bool include_declaration) {
  bool found = false;
  std::vector<Location> out;
  for (hlo::Span span : Occurrences(*snap.file, snap.ToOffset(position),
                                    include_declaration, &found)) {
    out.push_back(At(snap, span));
  }
  return out;
}

std::vector<DocumentHighlight> DocumentHighlights(const Snapshot& snap,
                                                  Position position) {
  bool found = false;
  std::vector<DocumentHighlight> out;
  std::vector<hlo::Span> spans =
      Occurrences(*snap.file, snap.ToOffset(position), true, &found);
  for (size_t i = 0; i < spans.size(); ++i) {
    out.push_back(DocumentHighlight{snap.ToRange(spans[i]), i == 0 ? 3 : 2});
  }
  return out;
}

}  // namespace hlo_lsp
