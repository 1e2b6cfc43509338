#include "exec/sharded_args.h"

#include <cstring>
#include <string>

#include "exec/evaluator.h"
#include "exec/strings.h"
#include "hlo/query.h"
#include "hlo/sharding.h"

namespace hlo::exec {
namespace {

// The entry's parameter instruction with number `n`, kNone when absent.
Id EntryParameter(const ParsedFile& file, Id module, int64_t n) {
  const Computation& entry = file.computations[file.modules[module].entry];
  for (Id i = entry.instructions.begin; i < entry.instructions.end(); ++i) {
    if (file.instructions[i].opcode == Opcode::kParameter &&
        ParameterNumber(file, i) == n)
      return i;
  }
  return kNone;
}

bool SameShape(const Literal& a, const LiteralShape& b) {
  return !a.is_tuple() && a.type() == b.type && a.dims() == b.dims;
}

// Copies `shard` into `whole` at element offset `origin` per dimension,
// dropping the padding of a last, partial tile.
void PlaceShard(const Literal& shard, const std::vector<int64_t>& origin,
                Literal& whole) {
  const std::vector<int64_t>& full = whole.dims();
  const std::vector<int64_t>& part = shard.dims();
  const int rank = static_cast<int>(full.size());
  const int64_t bytes = whole.element_bytes();
  if (rank == 0) {
    std::memcpy(whole.raw(), shard.raw(), bytes);
    return;
  }
  // Rows along the last dimension, clipped to the whole array.
  const int64_t row =
      std::min(part[rank - 1], full[rank - 1] - origin[rank - 1]);
  if (row <= 0) return;
  std::vector<int64_t> index(rank, 0);  // within the shard, last dim fixed at 0
  while (true) {
    bool inside = true;
    int64_t src = 0, dst = 0;
    for (int d = 0; d < rank; ++d) {
      if (origin[d] + index[d] >= full[d]) inside = false;
      src = src * part[d] + index[d];
      dst = dst * full[d] + origin[d] + index[d];
    }
    if (inside)
      std::memcpy(whole.raw() + dst * bytes, shard.raw() + src * bytes,
                  row * bytes);
    int d = rank - 2;
    for (; d >= 0; --d) {
      if (++index[d] < part[d]) break;
      index[d] = 0;
    }
    if (d < 0) break;
  }
}

absl::StatusOr<Value> Assemble(const ParsedFile& file, Id module, int64_t n,
                               const LiteralShape& shape,
                               const std::vector<std::vector<Value>>& parts) {
  const std::string what = Cat("argument ", n, " (", ShapeString(shape), ")");
  const Id param = EntryParameter(file, module, n);
  const Attribute* attr =
      param == kNone ? nullptr
                     : file.FindAttribute(file.instructions[param], "sharding");
  if (attr == nullptr)
    return absl::InvalidArgumentError(
        Cat(what, ": partition 0 holds ", ShapeString(parts[0][n]->shape()),
            " and the parameter has no sharding to assemble it by"));
  auto sharding = DecodeSharding(file.Text(attr->value));
  if (!sharding.ok()) return sharding.status();
  if (sharding->type != ShardingType::kOther || sharding->is_named)
    return absl::UnimplementedError(
        Cat(what,
            ": the shards are not of the parameter's shape and its "
            "sharding is not a tiled one"));
  const std::vector<int64_t>& tiles = sharding->tile_assignment_dimensions;
  const size_t rank = shape.dims.size();
  if (tiles.size() < rank)
    return absl::InvalidArgumentError(
        Cat(what, ": the sharding has ", tiles.size(), " tile dimensions"));
  auto devices = TileAssignmentDevices(*sharding);
  if (!devices.ok()) return devices.status();
  auto whole = Literal::CreateArray(shape.type, shape.dims);
  if (!whole.ok()) return whole.status();
  std::vector<int64_t> shard_dims(rank);
  for (size_t d = 0; d < rank; ++d)
    shard_dims[d] =
        tiles[d] == 0 ? 0 : (shape.dims[d] + tiles[d] - 1) / tiles[d];
  // Walk the tile assignment; the trailing (replicated) dimensions repeat
  // a data tile, which the first device that holds it fills.
  std::vector<int64_t> coord(tiles.size(), 0);
  std::vector<bool> filled;
  int64_t data_tiles = 1;
  for (size_t d = 0; d < rank; ++d) data_tiles *= tiles[d];
  filled.assign(static_cast<size_t>(data_tiles), false);
  for (size_t k = 0; k < devices->size(); ++k) {
    int64_t data_index = 0;
    for (size_t d = 0; d < rank; ++d)
      data_index = data_index * tiles[d] + coord[d];
    if (!filled[data_index]) {
      const int64_t device = (*devices)[k];
      if (device < 0 || device >= static_cast<int64_t>(parts.size()))
        return absl::InvalidArgumentError(
            Cat(what, ": its sharding names device ", device,
                " but the snapshot has ", parts.size(), " partitions"));
      const Literal& shard = *parts[device][n];
      if (shard.is_tuple() || shard.type() != shape.type ||
          shard.dims() != shard_dims)
        return absl::InvalidArgumentError(
            Cat(what, ": partition ", device, " holds ",
                ShapeString(shard.shape()), ", its sharding wants shards of ",
                ShapeString(LiteralShape::Array(shape.type, shard_dims))));
      std::vector<int64_t> origin(rank);
      for (size_t d = 0; d < rank; ++d) origin[d] = coord[d] * shard_dims[d];
      PlaceShard(shard, origin, *whole);
      filled[data_index] = true;
    }
    for (int d = static_cast<int>(tiles.size()) - 1; d >= 0; --d) {
      if (++coord[d] < tiles[d]) break;
      coord[d] = 0;
    }
  }
  for (bool f : filled)
    if (!f)
      return absl::InvalidArgumentError(Cat(what, ": a tile has no device"));
  return std::make_shared<const Literal>(*std::move(whole));
}

}  // namespace

absl::StatusOr<std::vector<Value>> AssembleShardedArguments(
    const ParsedFile& file, Id module,
    const std::vector<std::vector<Value>>& partition_args) {
  auto shapes = EntryParameterShapes(file, module);
  if (!shapes.ok()) return shapes.status();
  if (partition_args.empty())
    return absl::InvalidArgumentError("the snapshot has no partitions");
  for (size_t p = 0; p < partition_args.size(); ++p) {
    if (partition_args[p].size() != shapes->size())
      return absl::InvalidArgumentError(
          Cat("partition ", p, " has ", partition_args[p].size(),
              " arguments; the module takes ", shapes->size()));
  }
  std::vector<Value> out;
  for (size_t n = 0; n < shapes->size(); ++n) {
    const LiteralShape& shape = (*shapes)[n];
    if (SameShape(*partition_args[0][n], shape)) {
      out.push_back(partition_args[0][n]);
      continue;
    }
    if (shape.type == PrimitiveType::kTuple)
      return absl::UnimplementedError(
          Cat("argument ", n, " is a tuple; sharded tuples are not assembled"));
    auto whole =
        Assemble(file, module, static_cast<int64_t>(n), shape, partition_args);
    if (!whole.ok()) return whole.status();
    out.push_back(*std::move(whole));
  }
  return out;
}

}  // namespace hlo::exec
