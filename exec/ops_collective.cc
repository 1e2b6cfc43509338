// Collectives with their real meaning: each participant (a thread running
// its own evaluator) hands its operand to the rendezvous, and computes its
// result from the values of its group: all-reduce, all-gather,
// reduce-scatter, all-to-all, collective-permute, collective-broadcast.
// Groups follow XLA's modes: cross-replica (no channel_id),
// cross-replica-and-partition, flattened ids (use_global_device_ids),
// cross-partition (all-to-all / collective-permute with a channel_id).
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "exec/evaluator_internal.h"
#include "exec/rendezvous.h"
#include "exec/strings.h"

namespace hlo::exec {

absl::StatusOr<std::vector<Value>> Rendezvous::Exchange(
    uint64_t op, uint64_t occurrence, const std::vector<int64_t>& group,
    int64_t device, Value mine) {
  std::unique_lock<std::mutex> lock(mu_);
  auto key = std::make_tuple(op, occurrence, group.empty() ? 0 : group[0]);
  Slot& slot = slots_[key];
  slot.values[device] = std::move(mine);
  cv_.notify_all();
  cv_.wait(lock, [&] {
    return !aborted_.ok() || slot.values.size() >= group.size();
  });
  if (!aborted_.ok()) return aborted_;
  std::vector<Value> out;
  for (int64_t d : group) {
    auto it = slot.values.find(d);
    if (it == slot.values.end())
      return absl::InternalError("collective group members disagree");
    out.push_back(it->second);
  }
  if (++slot.readers == group.size()) slots_.erase(key);
  return out;
}

void Rendezvous::Abort(const absl::Status& status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (aborted_.ok()) {
    aborted_ = absl::AbortedError(
        Cat("another participant failed: ", status.message()));
    KeepPlace(status, aborted_);  // its line is named: the walks keep it
  }
  cv_.notify_all();
}

namespace {

using O = Opcode;

// The participants (device ids, in rank order) of this device's group.
absl::StatusOr<std::vector<int64_t>> GroupOf(const Evaluator& ev,
                                             const Node& node,
                                             bool partition_mode_ops) {
  const DeviceCount dc = ev.devices();
  const int64_t P = dc.partitions, R = dc.replicas;
  const int64_t me = ev.device(), r = me / P, p = me % P;
  std::vector<std::vector<int64_t>> groups;
  if (node.attrs.replica_groups) {
    auto g = ExpandReplicaGroups(*node.attrs.replica_groups, 1 << 16);
    if (!g.ok()) return g.status();
    groups = *std::move(g);
  }
  const bool channel = node.attrs.channel_id.has_value();
  const bool global = node.attrs.use_global_device_ids.value_or(false);
  auto find = [&](int64_t id,
                  int64_t domain) -> absl::StatusOr<std::vector<int64_t>> {
    if (groups.empty()) {
      std::vector<int64_t> all(domain);
      for (int64_t i = 0; i < domain; ++i) all[i] = i;
      return all;
    }
    for (const auto& g : groups)
      if (std::find(g.begin(), g.end(), id) != g.end()) {
        for (int64_t x : g)
          if (x < 0 || x >= domain) return Bad("replica group id out of range");
        return g;
      }
    return Bad(Cat("participant ", id, " is in no replica group"));
  };
  std::vector<int64_t> out;
  if (!channel) {  // cross-replica
    auto g = find(r, R);
    if (!g.ok()) return g.status();
    for (int64_t x : *g) out.push_back(x * P + p);
  } else if (global) {  // flattened ids
    auto g = find(me, R * P);
    if (!g.ok()) return g.status();
    out = *g;
  } else if (partition_mode_ops && P == 1 && R > 1) {
    // One partition: the ids can only be replicas (tests and hand-written
    // modules without num_partitions).
    auto g = find(r, R);
    if (!g.ok()) return g.status();
    out = *g;
  } else if (partition_mode_ops) {  // cross-partition
    auto g = find(p, P);
    if (!g.ok()) return g.status();
    for (int64_t x : *g) out.push_back(r * P + x);
  } else {  // cross-replica-and-partition
    auto g = find(r, R);
    if (!g.ok()) return g.status();
    for (int64_t x : *g)
      for (int64_t q = 0; q < P; ++q) out.push_back(x * P + q);
  }
  return out;
}

// Elementwise reduction of `values` (same shape) with the reducer.
absl::StatusOr<Value> ReduceValues(Evaluator& ev, Id reducer,
                                   const std::vector<Value>& values,
                                   int depth) {
  const Literal& first = *values[0];
  if (first.is_tuple()) {
    std::vector<Value> elements;
    for (size_t e = 0; e < first.elements().size(); ++e) {
      std::vector<Value> parts;
      for (const Value& v : values) parts.push_back(v->elements()[e]);
      auto r = ReduceValues(ev, reducer, parts, depth);
      if (!r.ok()) return r;
      elements.push_back(*r);
    }
    return std::make_shared<const Literal>(
        Literal::MakeTuple(std::move(elements)));
  }
  auto acc = first.Clone();
  if (!acc.ok()) return acc.status();
  for (size_t k = 1; k < values.size(); ++k) {
    if (values[k]->count() != first.count())
      return Bad("collective shapes differ");
    // Reduce elementwise: build a node-less binary op through the reducer's
    // root when it is a plain binary op, else per element.
    auto plan = ev.GetPlan(reducer);
    if (!plan.ok()) return plan.status();
    const Node& root = (*plan)->nodes[(*plan)->root];
    if (IsElementwise(root.op) && root.operands.size() == 2 &&
        (*plan)->nodes[root.operands[0]].op == O::kParameter &&
        (*plan)->nodes[root.operands[1]].op == O::kParameter) {
      Node op = root;
      op.shape = acc->shape();
      Value a = std::make_shared<const Literal>(*std::move(acc));
      Value ins[2] = {a, values[k]};
      auto r = EvalElementwise(op, ins);
      if (!r.ok()) return r.status();
      acc = *std::move(r);
    } else {
      const int eb = acc->element_bytes();
      for (int64_t i = 0; i < acc->count(); ++i) {
        auto x = Literal::CreateArray(acc->type(), {});
        auto y = Literal::CreateArray(acc->type(), {});
        std::memcpy(x->raw(), acc->raw() + i * eb, eb);
        std::memcpy(y->raw(), values[k]->raw() + i * eb, eb);
        Value args[2] = {std::make_shared<const Literal>(*std::move(x)),
                         std::make_shared<const Literal>(*std::move(y))};
        auto r = ev.CallScalar(reducer, args, depth);
        if (!r.ok()) return r.status();
        std::memcpy(acc->raw() + i * eb, (*r)->raw(), eb);
      }
    }
  }
  return std::make_shared<const Literal>(*std::move(acc));
}

// Concatenates arrays along `dim`.
absl::StatusOr<Literal> Concat(const std::vector<Value>& parts, int64_t dim) {
  std::vector<int64_t> dims = parts[0]->dims();
  if (dim < 0 || dim >= static_cast<int64_t>(dims.size()))
    return Bad("dimension out of range");
  dims[dim] = 0;
  for (const Value& v : parts) dims[dim] += v->dims()[dim];
  auto out = Literal::CreateArray(parts[0]->type(), dims);
  if (!out.ok()) return out;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= dims[d];
  for (size_t d = dim + 1; d < dims.size(); ++d) inner *= dims[d];
  const int eb = out->element_bytes();
  const int64_t out_row = dims[dim] * inner * eb;
  int64_t col = 0;
  for (const Value& v : parts) {
    const int64_t row = v->dims()[dim] * inner * eb;
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(out->raw() + o * out_row + col, v->raw() + o * row, row);
    col += row;
  }
  return out;
}

// Chunk `index` of `count` equal chunks along `dim`.
absl::StatusOr<Literal> Chunk(const Literal& x, int64_t dim, int64_t count,
                              int64_t index) {
  if (count == 1) return x.Clone();  // scalars too (PyTorch/XLA dumps)
  if (dim < 0 || dim >= x.rank() || x.dims()[dim] % count)
    return Bad("dimension does not split evenly across the group");
  std::vector<int64_t> dims = x.dims();
  dims[dim] /= count;
  auto out = Literal::CreateArray(x.type(), dims);
  if (!out.ok()) return out;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= dims[d];
  for (int d = dim + 1; d < x.rank(); ++d) inner *= dims[d];
  const int eb = x.element_bytes();
  const int64_t row = dims[dim] * inner * eb;
  for (int64_t o = 0; o < outer; ++o)
    std::memcpy(out->raw() + o * row, x.raw() + (o * count + index) * row, row);
  return out;
}

Value ShareResult(Literal l) {
  return std::make_shared<const Literal>(std::move(l));
}

}  // namespace

bool IsCollective(Opcode op) {
  switch (op) {
    case O::kAllReduce:
    case O::kAllReduceStart:
    case O::kCrossReplicaSum:
    case O::kAllGather:
    case O::kAllGatherStart:
    case O::kAllGatherDone:
    case O::kReduceScatter:
    case O::kAllToAll:
    case O::kCollectivePermute:
    case O::kCollectivePermuteStart:
    case O::kCollectivePermuteDone:
    case O::kCollectiveBroadcast:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<Value> EvalCollective(Evaluator& ev, const Node& node,
                                     Operands in, int depth) {
  if (node.op == O::kAllGatherDone || node.op == O::kCollectivePermuteDone) {
    if (in.empty()) return Bad("missing operand");
    if (!in[0]->is_tuple() || in[0]->elements().size() < 2) return in[0];
    return in[0]->elements()[1];
  }
  if (in.empty()) return Bad("collective without operands");
  const bool partition_ops = node.op == O::kAllToAll ||
                             node.op == O::kCollectivePermute ||
                             node.op == O::kCollectivePermuteStart ||
                             node.op == O::kCollectiveBroadcast;
  Value mine = in.size() == 1
                   ? in[0]
                   : ShareResult(Literal::MakeTuple({in.begin(), in.end()}));
  std::vector<int64_t> group;
  Rendezvous* rv = ev.rendezvous();
  const int64_t total = ev.devices().total();
  if (node.op == O::kCollectivePermute ||
      node.op == O::kCollectivePermuteStart) {
    group.resize(total);
    for (int64_t i = 0; i < total; ++i) group[i] = i;
  } else {
    auto g = GroupOf(ev, node, partition_ops);
    if (!g.ok()) return g.status();
    group = *std::move(g);
  }
  std::vector<Value> values;
  if (group.size() == 1 || rv == nullptr || total == 1) {
    values.assign(group.size(), mine);
  } else {
    static thread_local std::map<std::pair<const void*, Id>, uint64_t>
        occurrences;
    uint64_t occ = occurrences[{&ev, node.id}]++;
    auto v = rv->Exchange(node.id, occ, group, ev.device(), mine);
    if (!v.ok()) return v.status();
    values = *std::move(v);
  }
  const int64_t rank =
      std::find(group.begin(), group.end(), ev.device()) - group.begin();
  const int64_t gsize = static_cast<int64_t>(group.size());
  auto dim0 = [&]() -> int64_t {
    return node.attrs.dimensions && !node.attrs.dimensions->empty()
               ? (*node.attrs.dimensions)[0]
               : 0;
  };
  switch (node.op) {
    case O::kAllReduce:
    case O::kAllReduceStart:
    case O::kCrossReplicaSum: {
      Id reducer = node.Call("to_apply");
      if (reducer == kNone) return Bad("all-reduce without to_apply=");
      return ReduceValues(ev, reducer, values, depth);
    }
    case O::kAllGather:
    case O::kAllGatherStart: {
      if (values[0]->is_tuple()) {  // several operands: gathered one by one
        std::vector<Value> parts;
        for (size_t e = 0; e < values[0]->elements().size(); ++e) {
          std::vector<Value> column;
          for (const Value& v : values) column.push_back(v->elements()[e]);
          auto c = column[0]->rank() == 0 && gsize == 1
                       ? column[0]->Clone()
                       : Concat(column, dim0());
          if (!c.ok()) return c.status();
          parts.push_back(ShareResult(*std::move(c)));
        }
        return ShareResult(Literal::MakeTuple(std::move(parts)));
      }
      auto r = Concat(values, dim0());
      if (!r.ok()) return r.status();
      if (node.op == O::kAllGatherStart && node.shape.is_tuple())
        return ShareResult(
            Literal::MakeTuple({in[0], ShareResult(*std::move(r))}));
      return ShareResult(*std::move(r));
    }
    case O::kReduceScatter: {
      Id reducer = node.Call("to_apply");
      if (reducer == kNone) return Bad("reduce-scatter without to_apply=");
      auto sum = ReduceValues(ev, reducer, values, depth);
      if (!sum.ok()) return sum;
      if ((*sum)->is_tuple()) {
        std::vector<Value> parts;
        for (const Value& e : (*sum)->elements()) {
          auto c = Chunk(*e, dim0(), gsize, rank);
          if (!c.ok()) return c.status();
          parts.push_back(ShareResult(*std::move(c)));
        }
        return ShareResult(Literal::MakeTuple(std::move(parts)));
      }
      auto c = Chunk(**sum, dim0(), gsize, rank);
      if (!c.ok()) return c.status();
      return ShareResult(*std::move(c));
    }
    case O::kAllToAll: {
      if (!values[0]->is_tuple()) {
        const int64_t d = dim0();
        std::vector<Value> parts;
        for (int64_t k = 0; k < gsize; ++k) {
          auto c = Chunk(*values[k], d, gsize, rank);
          if (!c.ok()) return c.status();
          parts.push_back(ShareResult(*std::move(c)));
        }
        auto r = Concat(parts, d);
        if (!r.ok()) return r.status();
        return ShareResult(*std::move(r));
      }
      std::vector<Value> parts;
      for (int64_t k = 0; k < gsize; ++k) {
        if (static_cast<int64_t>(values[k]->elements().size()) != gsize)
          return Bad("tuple all-to-all needs one operand per participant");
        parts.push_back(values[k]->elements()[rank]);
      }
      return ShareResult(Literal::MakeTuple(std::move(parts)));
    }
    case O::kCollectiveBroadcast:
      return values[0];
    case O::kCollectivePermute:
    case O::kCollectivePermuteStart: {
      const DeviceCount dc = ev.devices();
      const bool channel = node.attrs.channel_id.has_value();
      const int64_t me = ev.device();
      const int64_t my_id = channel ? me % dc.partitions : me / dc.partitions;
      Value result;
      for (const SourceTargetPair& pair :
           node.attrs.source_target_pairs.value_or(
               std::vector<SourceTargetPair>{})) {
        if (pair.target != my_id) continue;
        int64_t src = channel
                          ? (me / dc.partitions) * dc.partitions + pair.source
                          : pair.source * dc.partitions + me % dc.partitions;
        if (src < 0 || src >= total) return Bad("source id out of range");
        result = values[src];
      }
      if (!result) {  // no source: zeros
        auto z = Literal::Create(in[0]->shape());
        if (!z.ok()) return z.status();
        result = ShareResult(*std::move(z));
      }
      if (node.op == O::kCollectivePermuteStart && node.shape.is_tuple()) {
        std::vector<Value> parts = {in[0], result};
        for (size_t k = 2; k < node.shape.tuple_elements.size(); ++k) {
          auto z = Literal::Create(node.shape.tuple_elements[k]);
          if (!z.ok()) return z.status();
          parts.push_back(ShareResult(*std::move(z)));
        }
        return ShareResult(Literal::MakeTuple(std::move(parts)));
      }
      return result;
    }
    default:
      return Bad("not a collective");
  }
}

}  // namespace hlo::exec
