// sharding={...} values (HloSharding text) decoded into the OpSharding shape
// of xla_data.proto: replicated, manual, unknown, unreduced, maximal, tiled
// (explicit or iota device lists, with last_tile_dim_replicate or
// last_tile_dims), tuple shardings, shard_as/shard_like groups and metadata.
// Named (Shardy-style `{mesh[...], ...}`) shardings are recognised and kept
// as raw text.
#ifndef HLO_LSP_HLO_SHARDING_H_
#define HLO_LSP_HLO_SHARDING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/attr_values.h"

namespace hlo {

// OpSharding.Type numbers.
enum class ShardingType : uint8_t {
  kReplicated = 0,
  kMaximal = 1,
  kTuple = 2,
  kOther = 3,  // tiled
  kManual = 4,
  kUnknown = 5,
  kUnreduced = 6,
};

struct ShardGroup {
  bool shard_as = true;  // false: shard_like
  int64_t id = 0;
};

struct HloShardingValue {
  ShardingType type = ShardingType::kReplicated;
  std::vector<int64_t> tile_assignment_dimensions;
  // Explicit device list (devices=[2,1]0,1), or the single maximal device.
  std::vector<int64_t> tile_assignment_devices;
  // Iota device list (devices=[2,4]<=[4,2]T(1,0)); reshape empty otherwise.
  std::vector<int64_t> iota_reshape_dims;
  std::vector<int64_t> iota_transpose_perm;
  bool replicate_on_last_tile_dim = false;
  std::vector<ShardingType> last_tile_dims;
  std::vector<HloShardingValue> tuple_shardings;  // type == kTuple
  std::vector<OpMetadata> metadata;
  std::optional<ShardGroup> shard_group;
  // Named/Shardy sharding ({mesh[a=2], [{a},{}]}): kept verbatim, type is
  // kOther and nothing else is filled.
  bool is_named = false;
  std::string named_text;

  bool is_iota() const { return !iota_reshape_dims.empty(); }
};

// Decodes a whole sharding value, braces included. Errors carry the offset
// within `value`.
absl::StatusOr<HloShardingValue> DecodeSharding(std::string_view value);

// Device ids of an iota tile assignment: iota(prod(reshape_dims)) reshaped,
// transposed by `perm` (identity when empty) and flattened. Fails on a bad
// permutation or when the list would exceed `max_devices`.
absl::StatusOr<std::vector<int64_t>> ExpandIotaDevices(
    const std::vector<int64_t>& reshape_dims, const std::vector<int64_t>& perm,
    int64_t max_devices = 1 << 22);

// Device ids in tile order for any tiled sharding (explicit or iota).
absl::StatusOr<std::vector<int64_t>> TileAssignmentDevices(
    const HloShardingValue& sharding, int64_t max_devices = 1 << 22);

namespace attr_internal {
class Scanner;
// The sharding grammar over a scanner; `out` may be null (validation only).
bool ParseSharding(Scanner& s, HloShardingValue* out);
// `[dims]<=[reshape]T(perm)` after "[dims]" has been read: the iota part.
// Shared with iota replica groups. Validates that prod(reshape) == `count`
// when count >= 0.
bool ParseIotaTail(Scanner& s, int64_t count, std::vector<int64_t>* reshape,
                   std::vector<int64_t>* perm);
// [1,2,3] (square-bracketed int list); returns the product through
// `product` (saturating at INT64_MAX).
bool ParseBracketDims(Scanner& s, std::vector<int64_t>* out, int64_t* product,
                      size_t* count);
}  // namespace attr_internal

}  // namespace hlo

#endif  // HLO_LSP_HLO_SHARDING_H_
