#include "hlo/sharding.h"

#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "hlo/attr_scan.h"
#include "hlo/primitive_type.h"

namespace hlo {
namespace attr_internal {
namespace {

int64_t SaturatingMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > std::numeric_limits<int64_t>::max() / b) {
    return std::numeric_limits<int64_t>::max();
  }
  return a * b;
}

bool ParseShardingTypeName(Scanner& s, ShardingType* out) {
  size_t at = (s.SkipSpace(), s.pos());
  std::string_view word = s.Ident();
  ShardingType type;
  if (word == "replicated") {
    type = ShardingType::kReplicated;
  } else if (word == "manual") {
    type = ShardingType::kManual;
  } else if (word == "maximal") {
    type = ShardingType::kMaximal;
  } else if (word == "unknown") {
    type = ShardingType::kUnknown;
  } else if (word == "unreduced") {
    type = ShardingType::kUnreduced;
  } else {
    return s.Fail(at, at + std::max<size_t>(word.size(), 1),
                  "expected a sharding type (replicated, manual, ...)");
  }
  if (out != nullptr) *out = type;
  return true;
}

// metadata={...} or metadata={{...}, {...}} inside a sharding.
bool ParseShardingMetadata(Scanner& s, std::vector<OpMetadata>* out) {
  size_t open = (s.SkipSpace(), s.pos());
  if (!s.Expect('{')) return false;
  if (s.Peek() != '{') {
    s.set_pos(open);
    OpMetadata* md = out != nullptr ? &out->emplace_back() : nullptr;
    return ParseMetadata(s, md);
  }
  do {
    OpMetadata* md = out != nullptr ? &out->emplace_back() : nullptr;
    if (!ParseMetadata(s, md)) return false;
  } while (s.TryConsume(','));
  return s.Expect('}');
}

// One braced single sharding: {replicated}, {devices=[2]0,1 ...}, ...
bool ParseSingleSharding(Scanner& s, HloShardingValue* out) {
  size_t open = (s.SkipSpace(), s.pos());
  if (!s.Expect('{')) return false;
  bool replicated = false, manual = false, unknown = false, unreduced = false;
  bool maximal = false, has_devices_attr = false, iota = false;
  bool last_tile_dim_replicate = false, has_last_tile_dims = false;
  int64_t device_count = 0, tile_product = 1;
  size_t devices_at = open;
  while (!s.TryConsume('}')) {
    if (!s.ok()) return false;
    if (s.AtEnd()) return s.FailHere("expected '}' to close the sharding");
    size_t at = s.pos();
    std::string_view attr = s.AttributeName();
    if (attr == "device") {
      int64_t device = 0;
      if (!s.Int(&device)) return false;
      if (out != nullptr) out->tile_assignment_devices.push_back(device);
      ++device_count;
    } else if (attr == "devices") {
      if (has_devices_attr) return s.Fail(at, at + 7, "duplicate devices=");
      has_devices_attr = true;
      devices_at = at;
      size_t rank = 0;
      if (!ParseBracketDims(
              s, out != nullptr ? &out->tile_assignment_dimensions : nullptr,
              &tile_product, &rank)) {
        return false;
      }
      if (rank == 0) return s.Fail(at, s.pos(), "tile assignment needs dims");
      if (s.TryConsume2("<=")) {
        iota = true;
        if (!ParseIotaTail(
                s, tile_product,
                out != nullptr ? &out->iota_reshape_dims : nullptr,
                out != nullptr ? &out->iota_transpose_perm : nullptr)) {
          return false;
        }
      } else {
        do {
          int64_t device = 0;
          if (!s.Int(&device)) return false;
          if (out != nullptr) out->tile_assignment_devices.push_back(device);
          ++device_count;
        } while (s.TryConsume(','));
      }
    } else if (attr == "metadata") {
      if (!ParseShardingMetadata(s,
                                 out != nullptr ? &out->metadata : nullptr)) {
        return false;
      }
    } else if (attr == "last_tile_dims") {
      has_last_tile_dims = true;
      if (!s.Expect('{')) return false;
      if (!s.TryConsume('}')) {
        do {
          ShardingType type;
          if (!ParseShardingTypeName(s, &type)) return false;
          if (out != nullptr) out->last_tile_dims.push_back(type);
        } while (s.TryConsume(','));
        if (!s.Expect('}')) return false;
      }
    } else if (!attr.empty()) {
      return s.Fail(
          at, at + attr.size(),
          attr_internal::Cat("unknown sharding attribute ", attr, "="));
    } else {
      std::string_view word = s.Ident();
      if (word == "replicated") {
        replicated = true;
      } else if (word == "manual") {
        manual = true;
      } else if (word == "unknown") {
        unknown = true;
      } else if (word == "unreduced") {
        unreduced = true;
      } else if (word == "maximal") {
        maximal = true;
      } else if (word == "last_tile_dim_replicate") {
        last_tile_dim_replicate = true;
      } else if (s.RawAt(0) == '[' && PrimitiveTypeFromName(word)) {
        // Old printers wrote the tile shape first: {s32[5,6] devices=...}.
        if (!ParseBracketDims(s, nullptr, nullptr, nullptr)) return false;
        if (s.Peek() == '{' && !s.BalancedBraces(nullptr)) return false;
      } else if (word == "shard_as" || word == "shard_like") {
        int64_t id = 0;
        if (!s.Int(&id)) return false;
        if (out != nullptr)
          out->shard_group = ShardGroup{word == "shard_as", id};
      } else {
        s.set_pos(at);
        return s.FailHere(word.empty() ? "unexpected token in sharding"
                                       : "unknown sharding keyword");
      }
    }
  }
  size_t close = s.pos();
  ShardingType type = ShardingType::kOther;
  if (replicated) {
    type = ShardingType::kReplicated;
  } else if (maximal) {
    type = ShardingType::kMaximal;
  } else if (manual) {
    type = ShardingType::kManual;
  } else if (unknown) {
    type = ShardingType::kUnknown;
  } else if (unreduced) {
    type = ShardingType::kUnreduced;
  }
  if (type == ShardingType::kMaximal) {
    if (device_count != 1 || has_devices_attr) {
      return s.Fail(open, close,
                    "maximal shardings should have exactly one device "
                    "assigned (device=N)");
    }
  } else if (type != ShardingType::kOther) {
    if (device_count > 0 || has_devices_attr) {
      return s.Fail(open, close,
                    "replicated, manual, unknown and unreduced shardings "
                    "take no devices");
    }
  } else {
    if (!has_devices_attr) {
      return s.Fail(open, close,
                    "a tiled sharding needs devices=[dims]...; or say "
                    "replicated, manual or maximal");
    }
    if (!iota) {
      if (device_count != tile_product) {
        return s.Fail(
            devices_at, close,
            attr_internal::Cat("devices= lists ", device_count,
                               " devices but the tile assignment has ",
                               tile_product));
      }
      if (device_count <= 1) {
        return s.Fail(devices_at, close,
                      "an explicit device list needs more than one device");
      }
    }
  }
  if (out != nullptr) {
    out->type = type;
    out->replicate_on_last_tile_dim = last_tile_dim_replicate;
    if (!has_last_tile_dims) out->last_tile_dims.clear();
  }
  return true;
}

}  // namespace

bool ParseBracketDims(Scanner& s, std::vector<int64_t>* out, int64_t* product,
                      size_t* count) {
  if (!s.Expect('[')) return false;
  if (out != nullptr) out->clear();
  int64_t p = 1;
  size_t n = 0;
  if (!s.TryConsume(']')) {
    do {
      int64_t v = 0;
      if (!s.NonNegativeInt(&v)) return false;
      if (out != nullptr) out->push_back(v);
      p = SaturatingMul(p, v);
      ++n;
    } while (s.TryConsume(','));
    if (!s.Expect(']')) return false;
  }
  if (product != nullptr) *product = p;
  if (count != nullptr) *count = n;
  return true;
}

bool ParseIotaTail(Scanner& s, int64_t count, std::vector<int64_t>* reshape,
                   std::vector<int64_t>* perm) {
  size_t at = (s.SkipSpace(), s.pos());
  int64_t product = 1;
  size_t rank = 0;
  if (!ParseBracketDims(s, reshape, &product, &rank)) return false;
  if (rank == 0) return s.Fail(at, s.pos(), "iota reshape needs dims");
  if (count >= 0 && product != count) {
    return s.Fail(
        at, s.pos(),
        attr_internal::Cat("iota reshape dims hold ", product,
                           " devices but the assignment needs ", count));
  }
  if (perm != nullptr) perm->clear();
  size_t save = s.pos();
  if (s.Ident() != "T" || s.RawAt(0) != '(') {
    s.set_pos(save);
    return true;
  }
  size_t perm_at = s.pos() - 1;
  s.Expect('(');
  uint64_t seen = 0;
  size_t n = 0;
  if (!s.TryConsume(')')) {
    do {
      int64_t axis = 0;
      size_t axis_at = (s.SkipSpace(), s.pos());
      if (!s.NonNegativeInt(&axis)) return false;
      if (axis >= static_cast<int64_t>(rank) || axis >= 64 ||
          (seen & (uint64_t{1} << axis))) {
        return s.Fail(axis_at, s.pos(),
                      "iota transpose is not a permutation of the reshape "
                      "dims");
      }
      seen |= uint64_t{1} << axis;
      if (perm != nullptr) perm->push_back(axis);
      ++n;
    } while (s.TryConsume(','));
    if (!s.Expect(')')) return false;
  }
  if (n != rank) {
    return s.Fail(perm_at, s.pos(),
                  "iota transpose must have the rank of the reshape dims");
  }
  return true;
}

bool ParseSharding(Scanner& s, HloShardingValue* out) {
  if (!s.Enter()) return false;
  size_t open = (s.SkipSpace(), s.pos());
  if (!s.Expect('{')) return false;
  char next = s.Peek();
  if (next == '{' || next == '}') {
    if (out != nullptr) out->type = ShardingType::kTuple;
    if (s.TryConsume('}')) return (s.Leave(), true);
    do {
      HloShardingValue* element =
          out != nullptr ? &out->tuple_shardings.emplace_back() : nullptr;
      if (s.Peek() != '{') return s.FailHere("expected '{' of a tuple element");
      if (!ParseSingleSharding(s, element)) return false;
    } while (s.TryConsume(','));
    if (!s.Expect('}')) return false;
    s.Leave();
    return true;
  }
  std::string_view word = s.Ident();
  if ((word == "mesh" || word == "maximal_mesh") && s.RawAt(0) == '[') {
    s.set_pos(open);
    std::string_view raw;
    if (!s.BalancedBraces(&raw)) return false;
    if (out != nullptr) {
      out->type = ShardingType::kOther;
      out->is_named = true;
      out->named_text.assign(raw);
    }
    s.Leave();
    return true;
  }
  s.set_pos(open);
  if (!ParseSingleSharding(s, out)) return false;
  s.Leave();
  return true;
}

}  // namespace attr_internal

absl::StatusOr<HloShardingValue> DecodeSharding(std::string_view value) {
  HloShardingValue result;
  absl::Status status =
      attr_internal::RunGrammar(value, &result, attr_internal::ParseSharding);
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<std::vector<int64_t>> ExpandIotaDevices(
    const std::vector<int64_t>& reshape_dims, const std::vector<int64_t>& perm,
    int64_t max_devices) {
  const size_t rank = reshape_dims.size();
  int64_t total = 1;
  for (int64_t d : reshape_dims) {
    if (d < 0) return absl::InvalidArgumentError("negative iota dimension");
    total = attr_internal::SaturatingMul(total, d);
    if (total > max_devices) {
      return absl::ResourceExhaustedError(
          attr_internal::Cat("iota device list larger than ", max_devices));
    }
  }
  std::vector<int64_t> order(rank);
  std::vector<bool> used(rank, false);
  for (size_t i = 0; i < rank; ++i) {
    int64_t axis = perm.empty() ? static_cast<int64_t>(i) : perm[i];
    if (perm.size() > 0 && perm.size() != rank) {
      return absl::InvalidArgumentError("iota transpose rank mismatch");
    }
    if (axis < 0 || axis >= static_cast<int64_t>(rank) || used[axis]) {
      return absl::InvalidArgumentError("iota transpose is not a permutation");
    }
    used[axis] = true;
    order[i] = axis;
  }
  // Row-major strides of the reshaped iota, visited in transposed order.
  std::vector<int64_t> stride(rank, 1);
  for (size_t a = rank; a-- > 1;) stride[a - 1] = stride[a] * reshape_dims[a];
  std::vector<int64_t> result;
  result.reserve(static_cast<size_t>(total));
  std::vector<int64_t> index(rank, 0);
  for (int64_t n = 0; n < total; ++n) {
    int64_t source = 0;
    for (size_t i = 0; i < rank; ++i) source += index[i] * stride[order[i]];
    result.push_back(source);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < reshape_dims[order[i]]) break;
      index[i] = 0;
    }
  }
  return result;
}

absl::StatusOr<std::vector<int64_t>> TileAssignmentDevices(
    const HloShardingValue& sharding, int64_t max_devices) {
  if (sharding.is_iota()) {
    return ExpandIotaDevices(sharding.iota_reshape_dims,
                             sharding.iota_transpose_perm, max_devices);
  }
  return sharding.tile_assignment_devices;
}

}  // namespace hlo
