// The value readers of encode_internal.h and the encoders of composite
// attribute values (metadata, sharding, frontend attributes, literals).
#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "hlo/proto/encode_internal.h"
#include "hlo/proto/small_float.h"

namespace hlo::proto::internal {

// ------------------------------------------------ small value readers --
// The typed decoders of hlo/attributes.h take over these once they land;
// these read the forms the printer writes (and XLA prints).

std::string_view Trim(std::string_view s) {
  while (!s.empty() && absl::ascii_isspace(s.front())) s.remove_prefix(1);
  while (!s.empty() && absl::ascii_isspace(s.back())) s.remove_suffix(1);
  return s;
}

// Splits on `sep`, keeping empty parts (std::string_view throughout: this
// abseil's StrSplit speaks absl::string_view).
std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    parts.push_back(
        s.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

std::string_view StripBraces(std::string_view s) {
  s = Trim(s);
  if (s.size() >= 2 && s.front() == '{' && s.back() == '}') {
    s = s.substr(1, s.size() - 2);
  }
  return Trim(s);
}

bool ReadInt(std::string_view s, int64_t* out) {
  s = Trim(s);
  if (!s.empty() && s.front() == '%') return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool ReadIntList(std::string_view s, std::vector<int64_t>* out) {
  s = StripBraces(s);
  out->clear();
  if (s.empty()) return true;
  for (std::string_view part : Split(s, ',')) {
    int64_t v;
    if (!ReadInt(part, &v)) return false;
    out->push_back(v);
  }
  return true;
}

// "{{0,1},{2,3}}" -> lists.
bool ReadIntListList(std::string_view s,
                     std::vector<std::vector<int64_t>>* out) {
  s = StripBraces(s);
  out->clear();
  size_t i = 0;
  while (i < s.size()) {
    size_t open = s.find('{', i);
    if (open == std::string_view::npos) break;
    size_t close = s.find('}', open);
    if (close == std::string_view::npos) return false;
    std::vector<int64_t> list;
    if (!ReadIntList(s.substr(open, close - open + 1), &list)) return false;
    out->push_back(std::move(list));
    i = close + 1;
  }
  return true;
}

bool ReadString(std::string_view s, std::string* out) {
  s = Trim(s);
  if (s.size() < 2 || (s.front() != '"' && s.front() != '\'') ||
      s.back() != s.front()) {
    return false;
  }
  std::string error;
  return absl::CUnescape(base::ToAbsl(s.substr(1, s.size() - 2)), out, &error);
}

// A string-or-dict value (backend_config, frontend attribute values).
std::string ReadStringOrDict(std::string_view s) {
  std::string out;
  if (ReadString(s, &out)) return out;
  return std::string(Trim(s));
}

// "3x3" -> {3, 3}.
bool ReadDxD(std::string_view s, std::vector<int64_t>* out) {
  out->clear();
  for (std::string_view part : Split(Trim(s), 'x')) {
    int64_t v;
    if (!ReadInt(part, &v)) return false;
    out->push_back(v);
  }
  return true;
}

// "1_2x0_0_1" -> per dimension {low, high[, interior]}.
bool ReadPads(std::string_view s, std::vector<std::vector<int64_t>>* out) {
  out->clear();
  s = Trim(s);
  if (s.empty()) return true;
  for (std::string_view dim : Split(s, 'x')) {
    std::vector<int64_t> values;
    for (std::string_view part : Split(dim, '_')) {
      int64_t v;
      if (!ReadInt(part, &v)) return false;
      values.push_back(v);
    }
    if (values.size() < 2 || values.size() > 3) return false;
    out->push_back(std::move(values));
  }
  return true;
}

// Space- or comma-separated `key=value` items inside braces, values may be
// strings or braced lists.
std::vector<std::pair<std::string_view, std::string_view>> ReadKeyValues(
    std::string_view s) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  s = StripBraces(s);
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (absl::ascii_isspace(s[i]) || s[i] == ',')) ++i;
    size_t eq = s.find('=', i);
    if (eq == std::string_view::npos) break;
    std::string_view key = Trim(s.substr(i, eq - i));
    size_t j = eq + 1;
    int depth = 0;
    bool quoted = false;
    char quote = 0;
    for (; j < s.size(); ++j) {
      const char c = s[j];
      if (quoted) {
        if (c == '\\')
          ++j;
        else if (c == quote)
          quoted = false;
        continue;
      }
      if (c == '"' || c == '\'') {
        quoted = true;
        quote = c;
      } else if (c == '{' || c == '[' || c == '(') {
        ++depth;
      } else if (c == '}' || c == ']' || c == ')') {
        --depth;
      } else if (depth == 0 && (absl::ascii_isspace(c) || c == ',')) {
        break;
      }
    }
    out.push_back({key, s.substr(eq + 1, j - eq - 1)});
    i = j;
  }
  return out;
}

void EncodeMetadata(std::string_view value, xla::OpMetadata* m) {
  for (auto [key, v] : ReadKeyValues(value)) {
    std::string s;
    int64_t n = 0;
    if (key == "op_type" && ReadString(v, &s))
      m->set_op_type(s);
    else if (key == "op_name" && ReadString(v, &s))
      m->set_op_name(s);
    else if (key == "source_file" && ReadString(v, &s))
      m->set_source_file(s);
    else if (key == "deduplicated_name" && ReadString(v, &s))
      m->set_deduplicated_name(s);
    else if (key == "scheduling_name" && ReadString(v, &s))
      m->set_scheduling_name(s);
    else if (key == "source_line" && ReadInt(v, &n))
      m->set_source_line(n);
    else if (key == "source_end_line" && ReadInt(v, &n))
      m->set_source_end_line(n);
    else if (key == "source_column" && ReadInt(v, &n))
      m->set_source_column(n);
    else if (key == "source_end_column" && ReadInt(v, &n))
      m->set_source_end_column(n);
    else if (key == "stack_frame_id" && ReadInt(v, &n))
      m->set_stack_frame_id(n);
    else if (key == "profile_type") {
      std::vector<int64_t> list;
      if (ReadIntList(v, &list)) {
        for (int64_t t : list)
          m->add_profile_type(static_cast<xla::ProfileType>(t));
      }
    }
  }
}

void EncodeFrontendAttributes(std::string_view value,
                              xla::FrontendAttributes* out) {
  for (auto [key, v] : ReadKeyValues(value)) {
    (*out->mutable_map())[std::string(key)] = ReadStringOrDict(v);
  }
}

void EncodeSharding(const HloShardingValue& s, xla::OpSharding* out,
                    int depth) {
  out->set_type(static_cast<xla::OpSharding::Type>(s.type));
  SetList(s.tile_assignment_dimensions,
          out->mutable_tile_assignment_dimensions());
  SetList(s.tile_assignment_devices, out->mutable_tile_assignment_devices());
  SetList(s.iota_reshape_dims, out->mutable_iota_reshape_dims());
  for (int64_t p : s.iota_transpose_perm) out->add_iota_transpose_perm(p);
  out->set_replicate_on_last_tile_dim(s.replicate_on_last_tile_dim);
  for (ShardingType t : s.last_tile_dims) {
    out->add_last_tile_dims(static_cast<xla::OpSharding::Type>(t));
  }
  if (depth < 8) {
    for (const HloShardingValue& element : s.tuple_shardings) {
      EncodeSharding(element, out->add_tuple_shardings(), depth + 1);
    }
  }
  if (s.shard_group) {
    out->set_is_shard_group(true);
    out->set_shard_group_id(s.shard_group->id);
    out->set_shard_group_type(s.shard_group->shard_as ? xla::OpSharding::AS
                                                      : xla::OpSharding::LIKE);
  }
}

// ------------------------------------------- newer composite values --

bool ReadDouble(std::string_view s, double* out) {
  s = Trim(s);
  if (s == "inf" || s == "+inf") {
    *out = INFINITY;
    return true;
  }
  if (s == "-inf") {
    *out = -INFINITY;
    return true;
  }
  if (s == "nan" || s == "-nan") {
    *out = s[0] == '-' ? -NAN : NAN;
    return true;
  }
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

namespace {

// The index just past the bracket matching the one at `open` (quotes
// skipped), or npos.
size_t SkipBalanced(std::string_view s, size_t open) {
  int depth = 0;
  bool quoted = false;
  for (size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (quoted) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ')' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// Splits on commas outside brackets and quotes.
std::vector<std::string_view> SplitTopLevel(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      size_t close = i + 1;
      while (close < s.size() && s[close] != '"') {
        close += s[close] == '\\' ? 2 : 1;
      }
      i = close;
    } else if (c == '{' || c == '(' || c == '[') {
      const size_t end = SkipBalanced(s, i);
      if (end == std::string_view::npos) break;
      i = end - 1;
    } else if (c == ',') {
      parts.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string_view last = Trim(s.substr(std::min(start, s.size())));
  if (!last.empty() || !parts.empty()) parts.push_back(last);
  return parts;
}

}  // namespace

bool ReadAliasEntries(std::string_view s, std::vector<AliasEntry>* out) {
  out->clear();
  s = StripBraces(s);
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (absl::ascii_isspace(s[i]) || s[i] == ',')) ++i;
    if (i >= s.size()) break;
    if (s[i] != '{') return false;
    const size_t index_end = SkipBalanced(s, i);
    if (index_end == std::string_view::npos) return false;
    AliasEntry entry;
    if (!ReadIntList(s.substr(i, index_end - i), &entry.output_index)) {
      return false;
    }
    i = index_end;
    while (i < s.size() && absl::ascii_isspace(s[i])) ++i;
    if (i >= s.size() || s[i] != ':') return false;
    ++i;
    while (i < s.size() && absl::ascii_isspace(s[i])) ++i;
    if (i >= s.size() || s[i] != '(') return false;
    const size_t tuple_end = SkipBalanced(s, i);
    if (tuple_end == std::string_view::npos) return false;
    std::vector<std::string_view> parts =
        SplitTopLevel(s.substr(i + 1, tuple_end - i - 2));
    if (parts.size() < 2 || !ReadInt(parts[0], &entry.number) ||
        !ReadIntList(parts[1], &entry.operand_index)) {
      return false;
    }
    if (parts.size() > 2) entry.kind = parts[2];
    out->push_back(std::move(entry));
    i = tuple_end;
  }
  return true;
}

bool ReadDonorEntries(
    std::string_view s,
    std::vector<std::pair<int64_t, std::vector<int64_t>>>* out) {
  out->clear();
  s = StripBraces(s);
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (absl::ascii_isspace(s[i]) || s[i] == ',')) ++i;
    if (i >= s.size()) break;
    if (s[i] != '(') return false;
    const size_t end = SkipBalanced(s, i);
    if (end == std::string_view::npos) return false;
    std::vector<std::string_view> parts =
        SplitTopLevel(s.substr(i + 1, end - i - 2));
    std::pair<int64_t, std::vector<int64_t>> donor;
    if (parts.size() != 2 || !ReadInt(parts[0], &donor.first) ||
        !ReadIntList(parts[1], &donor.second)) {
      return false;
    }
    out->push_back(std::move(donor));
    i = end;
  }
  return true;
}

bool EncodeStatistics(std::string_view value, xla::StatisticsViz* out) {
  out->Clear();
  bool first = true;
  for (auto [key, v] : ReadKeyValues(value)) {
    if (first && key == "visualizing_index") {
      int64_t index = 0;
      if (!ReadInt(v, &index)) return false;
      out->set_stat_index_to_visualize(index);
    } else {
      double d = 0;
      if (!ReadDouble(v, &d)) return false;
      auto* stat = out->add_statistics();
      stat->set_stat_name(std::string(key));
      stat->set_stat_val(d);
    }
    first = false;
  }
  return true;
}

bool EncodeResultAccuracy(std::string_view value, xla::ResultAccuracy* out) {
  out->Clear();
  for (auto [key, v] : ReadKeyValues(value)) {
    if (key == "mode") {
      xla::ResultAccuracy::Mode mode;
      if (!xla::ResultAccuracy::Mode_Parse(
              absl::AsciiStrToUpper(base::ToAbsl(Trim(v))), &mode)) {
        return false;
      }
      out->set_mode(mode);
    } else if (key == "tolerance") {
      auto* tolerance = out->mutable_tolerance();
      for (auto [name, number] : ReadKeyValues(v)) {
        double d = 0;
        int64_t n = 0;
        if (name == "atol" && ReadDouble(number, &d)) {
          tolerance->set_atol(d);
        } else if (name == "rtol" && ReadDouble(number, &d)) {
          tolerance->set_rtol(d);
        } else if (name == "ulps" && ReadInt(number, &n)) {
          tolerance->set_ulps(n);
        } else {
          return false;
        }
      }
    } else {
      return false;
    }
  }
  return true;
}

namespace {

// One node of an original-value tree: `( node, node )` for a tuple,
// `{"name" {index}}` or `{}` for a leaf. `index` is the node's position.
bool ReadOriginalNode(std::string_view s, std::vector<int64_t>* index,
                      xla::OriginalValueProto* out, int depth) {
  s = Trim(s);
  if (depth > kMaxShapeDepth || s.empty()) return false;
  if (s.front() == '(') {
    if (s.back() != ')') return false;
    std::vector<std::string_view> children =
        SplitTopLevel(s.substr(1, s.size() - 2));
    index->push_back(0);
    for (std::string_view child : children) {
      if (!ReadOriginalNode(child, index, out, depth + 1)) return false;
      ++index->back();
    }
    index->pop_back();
    return true;
  }
  if (s.front() != '{' || s.back() != '}') return false;
  std::string_view leaf = Trim(s.substr(1, s.size() - 2));
  if (leaf.empty()) return true;  // no original array here
  if (leaf.front() != '"') return false;
  size_t close = 1;
  while (close < leaf.size() && leaf[close] != '"') {
    if (leaf[close] == '\\') ++close;
    ++close;
  }
  if (close >= leaf.size()) return false;
  std::string name;
  if (!ReadString(leaf.substr(0, close + 1), &name)) return false;
  std::vector<int64_t> array_index;
  std::string_view rest = Trim(leaf.substr(close + 1));
  if (!rest.empty() && !ReadIntList(rest, &array_index)) return false;
  auto* element = out->add_elements();
  SetList(*index, element->mutable_shape_index());
  element->mutable_original_array()->set_instruction_name(name);
  SetList(array_index,
          element->mutable_original_array()->mutable_shape_index());
  return true;
}

}  // namespace

bool EncodeOriginalValue(std::string_view value, xla::OriginalValueProto* out) {
  out->Clear();
  value = Trim(value);
  if (value.size() < 2 || value.front() != '{' || value.back() != '}') {
    return false;
  }
  std::string_view inside = Trim(value.substr(1, value.size() - 2));
  if (inside == "[synthetic_call]") {
    out->set_is_synthetic_call(true);
    return true;
  }
  std::vector<int64_t> index;
  return ReadOriginalNode(inside, &index, out, 0);
}

}  // namespace hlo::proto::internal
