#include "index/dump_name.h"

#include <array>
#include <cctype>
#include <cstdio>

namespace hlo::index {
namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

int64_t ToInt(std::string_view digits) {
  int64_t value = 0;
  for (char c : digits) {
    if (value > (int64_t{1} << 56)) return -1;  // absurd; avoid overflow
    value = value * 10 + (c - '0');
  }
  return value;
}

// Text files that XLA writes next to module dumps but that are not HLO.
constexpr std::array<std::string_view, 5> kAuxiliaryTxtSuffixes = {
    "-buffer-assignment.txt", "-memory-usage-report.txt",
    ".hlo_unoptimized_snapshot.txt", "-thunk-sequence.txt",
    ".metadata.textproto"};

bool IsAuxiliaryTxt(std::string_view name) {
  for (std::string_view suffix : kAuxiliaryTxtSuffixes) {
    if (name.ends_with(suffix)) return true;
  }
  return false;
}

// Finds `module_<digits>.` at the start or after a '.'; returns the offset
// of "module_" or npos.
size_t FindModuleMarker(std::string_view name, size_t* digits_end) {
  size_t pos = 0;
  while ((pos = name.find("module_", pos)) != std::string_view::npos) {
    if (pos == 0 || name[pos - 1] == '.') {
      size_t end = pos + 7;
      while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
      if (end - (pos + 7) >= 4 && end < name.size() && name[end] == '.') {
        *digits_end = end;
        return pos;
      }
    }
    pos += 7;
  }
  return std::string_view::npos;
}

// `SSSS.<pipeline>.after_<a>.before_<b>` at the end of `rest`; on success
// fills `out` and returns the length of the module-name part.
std::optional<size_t> MatchPassDump(std::string_view rest, DumpFileName* out) {
  size_t before = rest.rfind(".before_");
  if (before == std::string_view::npos) return std::nullopt;
  size_t after = rest.rfind(".after_", before);
  if (after == std::string_view::npos || after == 0) return std::nullopt;
  size_t pipeline_dot = rest.rfind('.', after - 1);
  if (pipeline_dot == std::string_view::npos || pipeline_dot == 0) {
    return std::nullopt;
  }
  size_t step_dot = rest.rfind('.', pipeline_dot - 1);
  std::string_view step =
      step_dot == std::string_view::npos
          ? rest.substr(0, pipeline_dot)
          : rest.substr(step_dot + 1, pipeline_dot - step_dot - 1);
  if (!AllDigits(step)) return std::nullopt;
  out->kind = DumpKind::kPassDump;
  out->step = ToInt(step);
  out->pipeline =
      std::string(rest.substr(pipeline_dot + 1, after - pipeline_dot - 1));
  out->after_pass = std::string(rest.substr(after + 7, before - after - 7));
  out->before_pass = std::string(rest.substr(before + 8));
  // No name before the step: XLA dropped it (the base name was too long).
  return step_dot == std::string_view::npos ? 0 : step_dot;
}

// `SSSS.<pass>.<step_name>` at the end of `rest` (dumps taken inside a pass).
std::optional<size_t> MatchPassStep(std::string_view rest, DumpFileName* out) {
  size_t last = rest.rfind('.');
  if (last == std::string_view::npos || last == 0) return std::nullopt;
  size_t middle = rest.rfind('.', last - 1);
  if (middle == std::string_view::npos || middle == 0) return std::nullopt;
  size_t first = rest.rfind('.', middle - 1);
  if (first == std::string_view::npos) return std::nullopt;
  std::string_view step = rest.substr(first + 1, middle - first - 1);
  if (!AllDigits(step) || step.size() < 4) return std::nullopt;
  out->kind = DumpKind::kPassStep;
  out->step = ToInt(step);
  out->pipeline = std::string(rest.substr(middle + 1, last - middle - 1));
  out->before_pass = std::string(rest.substr(last + 1));
  return first;
}

// Splits `<name>.<stage>`: a stage never starts with a digit, so components
// that do (`0_gpu_after_optimizations` in `sm_9.0_gpu_...`) belong to it.
size_t SplitStage(std::string_view rest) {
  size_t dot = rest.rfind('.');
  while (dot != std::string_view::npos && dot > 0 && dot + 1 < rest.size() &&
         std::isdigit(static_cast<unsigned char>(rest[dot + 1]))) {
    size_t previous = rest.rfind('.', dot - 1);
    if (previous == std::string_view::npos) break;
    dot = previous;
  }
  return dot;
}

void ParseSuffix(std::string_view rest, std::string_view hint,
                 DumpFileName* out) {
  if (!hint.empty() && rest.size() > hint.size() + 1 &&
      rest.substr(0, hint.size()) == hint && rest[hint.size()] == '.') {
    std::string_view suffix = rest.substr(hint.size() + 1);
    out->module_name = std::string(hint);
    DumpFileName probe;
    // In the suffix alone the step is the first component.
    std::string with_dot = "x." + std::string(suffix);
    if (MatchPassDump(with_dot, &probe) == 1 ||
        MatchPassStep(with_dot, &probe) == 1) {
      probe.module_name = out->module_name;
      probe.timestamp = out->timestamp;
      probe.module_id = out->module_id;
      *out = std::move(probe);
      return;
    }
    out->kind = DumpKind::kStage;
    out->stage = std::string(suffix);
    return;
  }
  if (auto name_len = MatchPassDump(rest, out)) {
    out->module_name = std::string(rest.substr(0, *name_len));
    return;
  }
  if (auto name_len = MatchPassStep(rest, out)) {
    out->module_name = std::string(rest.substr(0, *name_len));
    return;
  }
  size_t dot = SplitStage(rest);
  if (dot == std::string_view::npos || dot == 0) {
    // `module_NNNN.<suffix>` without a module name (name too long).
    out->kind = DumpKind::kStage;
    out->stage = std::string(rest);
    return;
  }
  out->kind = DumpKind::kStage;
  out->module_name = std::string(rest.substr(0, dot));
  out->stage = std::string(rest.substr(dot + 1));
}

}  // namespace

DumpFileName ParseDumpFileName(std::string_view file_name,
                               std::string_view module_name_hint) {
  DumpFileName out;
  size_t digits_end = 0;
  size_t marker = FindModuleMarker(file_name, &digits_end);
  if (marker == std::string_view::npos) return out;
  if (marker > 0) {
    std::string_view prefix = file_name.substr(0, marker - 1);
    if (AllDigits(prefix)) out.timestamp = std::string(prefix);
  }
  out.module_id = ToInt(file_name.substr(marker + 7, digits_end - marker - 7));
  std::string_view rest = file_name.substr(digits_end + 1);
  bool text = rest.ends_with(".txt");
  if (!text || IsAuxiliaryTxt(file_name)) {
    out.kind = DumpKind::kAuxiliary;
    // Best effort module name: up to the first '.' after the marker.
    size_t dot = rest.find('.');
    out.module_name = std::string(rest.substr(0, dot));
    if (!module_name_hint.empty() &&
        rest.substr(0, module_name_hint.size()) == module_name_hint) {
      out.module_name = std::string(module_name_hint);
    }
    return out;
  }
  rest.remove_suffix(4);
  ParseSuffix(rest, module_name_hint, &out);
  return out;
}

bool IsCandidateByName(std::string_view file_name) {
  // Binary protos: HLO dumps and snapshots (decoded when scanned), but not
  // profiles, which are often large and beside the dumps.
  if (file_name.ends_with(".pb") || file_name.ends_with(".pb.gz")) {
    return !file_name.ends_with(".xplane.pb");
  }
  if (!(file_name.ends_with(".txt") || file_name.ends_with(".hlo") ||
        file_name.ends_with(".pbtxt"))) {
    return false;
  }
  // A text-format snapshot is not a stage's text, but holds a module.
  return !IsAuxiliaryTxt(file_name) ||
         file_name.ends_with(".hlo_unoptimized_snapshot.txt");
}

bool LooksLikeHloText(std::string_view prefix) {
  size_t pos = 0;
  int lines = 0;
  while (pos < prefix.size() && lines < 400) {
    size_t end = prefix.find('\n', pos);
    if (end == std::string_view::npos) end = prefix.size();
    std::string_view line = prefix.substr(pos, end - pos);
    pos = end + 1;
    ++lines;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    if (line.substr(0, 10) == "HloModule " || line.substr(0, 6) == "ENTRY ") {
      return true;
    }
    // `%name (params) -> shape {` or an instruction `%x = f32[] ...`.
    if (line[0] == '%' && (line.find(" = ") != std::string_view::npos ||
                           line.find(") -> ") != std::string_view::npos)) {
      return true;
    }
  }
  return false;
}

std::string DumpOrderKey(const DumpFileName& name) {
  char step[32];
  std::snprintf(step, sizeof(step), "%012lld",
                static_cast<long long>(name.step < 0 ? 0 : name.step));
  switch (name.kind) {
    case DumpKind::kStage:
      if (name.stage == "before_optimizations") return "0";
      return "2" + name.stage;
    case DumpKind::kPassDump:
    case DumpKind::kPassStep:
      return std::string("1") + step;
    default:
      return "3";
  }
}

}  // namespace hlo::index
