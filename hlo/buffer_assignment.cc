#include "hlo/buffer_assignment.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "base/strings.h"

namespace hlo {
namespace {

bool Consume(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

std::optional<int64_t> ConsumeInt(std::string_view& s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  s.remove_prefix(end - s.data());
  return v;
}

// Splits "NAME{0,1}" into name and index ("" when there is none).
std::pair<std::string_view, std::string_view> SplitIndex(std::string_view s) {
  size_t brace = s.find('{');
  if (brace == std::string_view::npos) return {s, {}};
  return {s.substr(0, brace), s.substr(brace)};
}

// Reads the text after "allocation N: size " up to the final ':'. `human`
// sizes ("1.50MiB") come from the memory report.
bool ReadAllocationHeader(std::string_view s, bool human, Allocation* out) {
  if (!Consume(s, "allocation ")) return false;
  std::optional<int64_t> index = ConsumeInt(s);
  if (!index || !Consume(s, ": size ")) return false;
  out->index = *index;
  if (s.empty() || s.back() != ':') return false;
  s.remove_suffix(1);
  size_t comma = s.find(',');
  std::string_view size_text = s.substr(0, comma);
  s = comma == std::string_view::npos ? "" : s.substr(comma);
  std::optional<int64_t> size;
  if (human) {
    size = ParseHumanBytes(size_text);
    out->size_rounded = size_text.find_first_of("KMGTPE") != size_text.npos;
  } else {
    size = ConsumeInt(size_text);
    if (!size_text.empty()) size.reset();
  }
  if (!size) return false;
  out->size = *size;
  while (!s.empty()) {
    if (!Consume(s, ", ")) return false;
    if (Consume(s, "color ")) {
      std::optional<int64_t> c = ConsumeInt(s);
      if (!c) return false;
      out->color = *c;
    } else if (Consume(s, "parameter ")) {
      out->parameter = ConsumeInt(s);
      if (!out->parameter) return false;
      if (Consume(s, ", shape |")) {  // shapes hold ',' but never '|'
        size_t bar = s.find('|');
        if (bar == s.npos) return false;
        out->parameter_shape = s.substr(0, bar);
        s.remove_prefix(bar + 1);
        if (!Consume(s, " at ShapeIndex ")) return false;
        size_t close = s.find('}');
        if (close == s.npos) return false;
        out->parameter_index = s.substr(0, close + 1);
        s.remove_prefix(close + 1);
      }
    } else if (Consume(s, "output shape is |")) {
      size_t bar = s.find('|');
      if (bar == s.npos) return false;
      out->output_shape = s.substr(0, bar);
      s.remove_prefix(bar + 1);
    } else if (Consume(s, "constant")) {
      out->constant = true;
    } else if (Consume(s, "thread-local")) {
      out->thread_local_ = true;
    } else if (Consume(s, "maybe-live-out")) {
      out->maybe_live_out = true;
    } else if (Consume(s, "preallocated-temp")) {
      out->preallocated_temp = true;
    } else {
      return false;
    }
  }
  return true;
}

// " value: <ID NAME{IDX} (phi) @C> (size=S,offset=O): SHAPE"
bool ReadValue(std::string_view s, AssignedValue* out) {
  if (!Consume(s, "value: <")) return false;
  std::optional<int64_t> id = ConsumeInt(s);
  if (!id || !Consume(s, " ")) return false;
  out->id = *id;
  size_t close = s.find('>');
  if (close == s.npos) return false;
  std::string_view inner = s.substr(0, close);
  s.remove_prefix(close + 1);
  size_t space = inner.find(' ');
  std::tie(out->instruction, out->shape_index) =
      SplitIndex(inner.substr(0, space));
  if (out->instruction.empty()) return false;
  out->phi = inner.find(" (phi)") != inner.npos;
  if (!Consume(s, " (size=")) return false;
  std::optional<int64_t> size = ConsumeInt(s);
  if (!size || !Consume(s, ",offset=")) return false;
  std::optional<int64_t> offset = ConsumeInt(s);
  if (!offset || !Consume(s, "):")) return false;
  out->size = *size;
  out->offset = *offset;
  out->shape = base::TrimLine(s);
  return true;
}

// "NAME{IDX}:START-END"
bool ReadLiveRange(std::string_view s, LiveRange* out) {
  size_t colon = s.rfind(':');
  if (colon == s.npos) return false;
  std::tie(out->instruction, out->shape_index) = SplitIndex(s.substr(0, colon));
  std::string_view range = s.substr(colon + 1);
  std::optional<int64_t> start = ConsumeInt(range);
  if (!start || !Consume(range, "-")) return false;
  std::optional<int64_t> end = ConsumeInt(range);
  if (!end || !range.empty() || out->instruction.empty()) return false;
  out->start = *start;
  out->end = *end;
  return true;
}

// "NAME{IDX}: B bytes (cumulative: C bytes)"
bool ReadPeakValue(std::string_view s, PeakValue* out) {
  size_t mark = s.find(": ");
  if (mark == s.npos) return false;
  std::tie(out->instruction, out->shape_index) = SplitIndex(s.substr(0, mark));
  s.remove_prefix(mark + 2);
  std::optional<int64_t> bytes = ConsumeInt(s);
  if (!bytes || !Consume(s, " bytes")) return false;
  out->bytes = *bytes;
  return !out->instruction.empty();
}

// A value's name and index, "{}" when XLA printed none.
std::pair<std::string_view, std::string_view> Key(std::string_view name,
                                                  std::string_view index) {
  return {name, index.empty() ? std::string_view("{}") : index};
}

// Older XLA prints no peak section: replay HloLiveRange::
// ComputePeakMemoryMoment over the live ranges with the assigned sizes
// (a value starts at `start` and is gone after `end`).
void ComputePeak(BufferAssignmentDump& dump) {
  absl::flat_hash_map<std::pair<std::string_view, std::string_view>, int64_t>
      sizes;
  for (const Allocation& a : dump.allocations) {
    for (const AssignedValue& v : a.values) {
      sizes[Key(v.instruction, v.shape_index)] = v.size;
    }
  }
  std::vector<std::tuple<int64_t, bool, int64_t>> events;  // time, end, size
  for (const LiveRange& r : dump.live_ranges) {
    auto it = sizes.find(Key(r.instruction, r.shape_index));
    if (it == sizes.end()) continue;
    events.emplace_back(r.start, false, it->second);
    events.emplace_back(r.end + 1, true, it->second);
  }
  if (events.empty()) return;
  std::sort(events.begin(), events.end());
  int64_t usage = 0, peak = 0, peak_time = 0;
  for (const auto& [time, is_end, size] : events) {
    usage += is_end ? -size : size;
    if (usage > peak) {
      peak = usage;
      peak_time = time;
    }
  }
  dump.peak_time = peak_time;
  dump.peak_computed = true;
  for (const LiveRange& r : dump.live_ranges) {
    auto it = sizes.find(Key(r.instruction, r.shape_index));
    if (it == sizes.end() || r.start > peak_time || peak_time > r.end) {
      continue;
    }
    dump.peak.push_back(PeakValue{r.instruction, r.shape_index, it->second});
  }
  // HloLiveRange's order: size descending, then name and index.
  std::sort(dump.peak.begin(), dump.peak.end(),
            [](const PeakValue& a, const PeakValue& b) {
              if (a.bytes != b.bytes) return a.bytes > b.bytes;
              return std::tie(a.instruction, a.shape_index) <
                     std::tie(b.instruction, b.shape_index);
            });
}

// "<ID NAME...>" starts a value, " positions:" its positions ("  NAME" or
// "  NAME {0}" for a tuple-shaped instruction), " uses:" and " from
// instruction:" the rest, which is not needed. Positions other than the
// defining one are kept as aliases.
struct UsedValue {
  int64_t id = -1;
  std::string_view name;  // the defining instruction: not an alias
  bool in_positions = false;
};

void ReadUsedValueLine(std::string_view line, BufferAssignmentDump& dump,
                       UsedValue& value) {
  bool& in_positions = value.in_positions;
  if (!line.empty() && line[0] == '<') {
    std::string_view rest = line.substr(1);
    value.id = ConsumeInt(rest).value_or(-1);
    Consume(rest, " ");
    value.name = rest.substr(0, rest.find_first_of(" {>"));
    in_positions = false;
  } else if (line == " positions:") {
    in_positions = true;
  } else if (line.substr(0, 2) == "  " && in_positions && value.id >= 0) {
    std::string_view position = base::TrimLine(line);
    size_t space = position.find(' ');
    if (position.substr(0, space) == value.name) return;
    ValuePosition p;
    p.instruction = position.substr(0, space);
    if (space != position.npos) p.shape_index = position.substr(space + 1);
    p.value_id = value.id;
    dump.aliases.push_back(std::move(p));
  } else {
    in_positions = false;
  }
}

template <typename F>
void ForEachLine(std::string_view text, F f) {
  uint32_t number = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == text.npos ? "" : text.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(++number, line);
  }
}

void Note(BufferAssignmentDump& dump, uint32_t line, std::string message) {
  constexpr size_t kMaxProblems = 100;  // a wrong file says so soon enough
  if (dump.problems.size() < kMaxProblems) {
    dump.problems.push_back(ReadProblem{line, std::move(message)});
  }
}

std::optional<int64_t> ReadTotal(std::string_view line) {
  if (!Consume(line, "Total bytes used: ")) return std::nullopt;
  return ConsumeInt(line);
}

}  // namespace

std::string_view Allocation::Kind() const {
  if (parameter) return "parameter";
  if (constant) return "constant";
  if (thread_local_) return "thread-local";
  if (maybe_live_out) return "maybe-live-out";
  if (preallocated_temp) return "preallocated-temp";
  return "temp";
}

std::string Allocation::Kinds() const {
  std::string out;
  auto add = [&](const std::string& kind) {
    out += out.empty() ? "" : ", ";
    out += kind;
  };
  if (parameter) add("parameter " + std::to_string(*parameter));
  if (constant) add("constant");
  if (thread_local_) add("thread-local");
  if (maybe_live_out) add("maybe-live-out");
  if (preallocated_temp) add("preallocated-temp");
  if (out.empty()) add("temp");
  return out;
}

AllocationTotals BufferAssignmentDump::Totals() const {
  AllocationTotals t;
  for (const Allocation& a : allocations) {
    if (a.parameter) t.parameter += a.size;
    if (a.constant) t.constant += a.size;
    if (a.maybe_live_out) t.maybe_live_out += a.size;
    if (a.preallocated_temp) t.preallocated_temp += a.size;
    if (a.thread_local_) t.thread_local_ += a.size;
    if (a.Kind() == "temp") t.temp += a.size;
    t.total += a.size;
  }
  return t;
}

const Allocation* BufferAssignmentDump::Largest() const {
  const Allocation* best = nullptr;
  for (const Allocation& a : allocations) {
    if (best == nullptr || a.size > best->size) best = &a;
  }
  return best;
}

BufferAssignmentDump ReadBufferAssignment(std::string_view text) {
  BufferAssignmentDump dump;
  enum class Section {
    kNone,
    kAllocations,
    kUsedValues,
    kSequence,
    kRanges,
    kPeak,
    kAfterPeak
  };
  Section section = Section::kNone;
  bool in_allocation = false;  // the last header read; its values follow
  UsedValue used_value;        // "Used values": the one being read
  ForEachLine(text, [&](uint32_t n, std::string_view line) {
    // Most lines are indented lines of a section whose headers are not
    // indented: those go straight to their reader.
    const char first = line.empty() ? '\0' : line[0];
    if (section == Section::kUsedValues && (first == ' ' || first == '<')) {
      ReadUsedValueLine(line, dump, used_value);
      return;
    }
    if (section == Section::kSequence && line.starts_with("    ")) return;
    std::string_view t = base::TrimLine(line);
    if (t.empty()) return;
    if (t == "BufferAssignment:") {
      section = Section::kAllocations;
    } else if (t.substr(0, 11) == "allocation " &&
               (section == Section::kNone ||
                section == Section::kAllocations)) {
      Allocation a;
      a.line = n;
      in_allocation = ReadAllocationHeader(t, /*human=*/false, &a);
      if (in_allocation) {
        dump.allocations.push_back(std::move(a));
      } else {
        Note(dump, n, "unreadable allocation line");
      }
      section = Section::kAllocations;
    } else if (section == Section::kAllocations && t.substr(0, 6) == "value:") {
      AssignedValue v;
      v.line = n;
      if (!in_allocation) {
        Note(dump, n, "value outside a readable allocation");
      } else if (ReadValue(t, &v)) {
        dump.allocations.back().values.push_back(std::move(v));
      } else {
        Note(dump, n, "unreadable value line");
      }
    } else if (std::optional<int64_t> total = ReadTotal(t)) {
      dump.total_bytes = total;
    } else if (t == "Used values:") {
      section = Section::kUsedValues;
    } else if (t.substr(0, 14) == "HloLiveRange (") {
      section = Section::kNone;
    } else if (section == Section::kUsedValues) {
      ReadUsedValueLine(line, dump, used_value);
    } else if (t == "InstructionSequence:") {
      section = Section::kSequence;
    } else if (t == "BufferLiveRange:") {
      section = Section::kRanges;
    } else if (t.substr(0, 15) == "Live ranges at ") {
      std::string_view rest = t.substr(15);
      dump.peak_time = ConsumeInt(rest);
      section = Section::kPeak;
    } else if (t.substr(0, 12) == "Stack trace ") {
      section = Section::kAfterPeak;
    } else if (section == Section::kRanges) {
      LiveRange r;
      if (ReadLiveRange(t, &r)) {
        dump.live_ranges.push_back(std::move(r));
      } else {
        Note(dump, n, "unreadable live range");
      }
    } else if (section == Section::kPeak) {
      PeakValue p;
      if (ReadPeakValue(t, &p)) {
        dump.peak.push_back(std::move(p));
      } else {
        Note(dump, n, "unreadable peak line");
      }
    } else if (section == Section::kAllocations) {
      Note(dump, n, "unexpected line in the allocations");
    }
  });
  if (dump.peak.empty() && !dump.peak_time) ComputePeak(dump);
  return dump;
}

BufferAssignmentDump ReadMemoryUsageReport(std::string_view text) {
  BufferAssignmentDump dump;
  dump.from_memory_report = true;
  bool with_values = false;  // "Allocations sorted by size with their values"
  ForEachLine(text, [&](uint32_t n, std::string_view line) {
    std::string_view t = base::TrimLine(line);
    if (t.empty()) return;
    if (std::optional<int64_t> total = ReadTotal(t)) {
      dump.total_bytes = total;
    } else if (t == "Allocations sorted by size with their values:") {
      with_values = true;
    } else if (with_values && t.substr(0, 11) == "allocation ") {
      Allocation a;
      a.line = n;
      if (ReadAllocationHeader(t, /*human=*/true, &a)) {
        dump.allocations.push_back(std::move(a));
      } else {
        Note(dump, n, "unreadable allocation line");
      }
    }
    // The per-offset tables name shapes only, not values: skipped.
  });
  std::sort(dump.allocations.begin(), dump.allocations.end(),
            [](const Allocation& a, const Allocation& b) {
              return a.index < b.index;
            });
  return dump;
}

std::vector<ValuePlace> PlacesOf(const BufferAssignmentDump& dump,
                                 std::string_view instruction) {
  std::vector<ValuePlace> places;
  std::map<int64_t, std::string_view> aliased;  // value id -> index here
  for (const ValuePosition& p : dump.aliases) {
    if (p.instruction == instruction)
      aliased.emplace(p.value_id, p.shape_index);
  }
  for (const Allocation& a : dump.allocations) {
    for (const AssignedValue& v : a.values) {
      if (v.instruction == instruction) places.push_back({&a, &v, false, ""});
    }
  }
  for (const Allocation& a : dump.allocations) {
    for (const AssignedValue& v : a.values) {
      auto it = aliased.find(v.id);
      if (it != aliased.end() && v.instruction != instruction) {
        places.push_back({&a, &v, true, it->second});
      }
    }
  }
  return places;
}

bool LiveAtPeak(const BufferAssignmentDump& dump,
                std::string_view instruction) {
  std::vector<ValuePlace> places = PlacesOf(dump, instruction);
  return std::any_of(
      dump.peak.begin(), dump.peak.end(), [&](const PeakValue& p) {
        return p.instruction == instruction ||
               std::any_of(places.begin(), places.end(),
                           [&](const ValuePlace& v) {
                             return v.value->instruction == p.instruction;
                           });
      });
}

std::string HumanBytes(int64_t bytes) {
  const char* sign = bytes < 0 ? "-" : "";
  uint64_t n = bytes < 0 ? 0 - static_cast<uint64_t>(bytes) : bytes;
  char buf[32];
  if (n < 1024) {
    std::snprintf(buf, sizeof(buf), "%s%lluB", sign,
                  static_cast<unsigned long long>(n));
    return buf;
  }
  static constexpr char kUnits[] = "KMGTPE";
  const char* unit = kUnits;
  while (n >= uint64_t{1024} * 1024) {
    n /= 1024;
    ++unit;
  }
  std::snprintf(buf, sizeof(buf), *unit == 'K' ? "%s%.1f%ciB" : "%s%.2f%ciB",
                sign, n / 1024.0, *unit);
  return buf;
}

std::optional<int64_t> ParseHumanBytes(std::string_view text) {
  text = base::TrimLine(text);
  double value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  std::string_view unit = text.substr(end - text.data());
  static constexpr std::string_view kUnits = "KMGTPE";
  double scale = 1;
  if (unit == "B" || unit == " bytes" || unit.empty()) {
    scale = 1;
  } else if (unit.size() == 3 && unit.substr(1) == "iB" &&
             kUnits.find(unit[0]) != kUnits.npos) {
    scale = std::pow(1024.0, static_cast<double>(kUnits.find(unit[0]) + 1));
  } else {
    return std::nullopt;
  }
  return static_cast<int64_t>(std::llround(value * scale));
}

}  // namespace hlo
