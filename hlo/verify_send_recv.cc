// Send/recv across instructions (XLA's hlo_verifier.cc): host-transfer
// send/recv that share a channel must be identical up to their operands
// (VerifyChannels), and, with verify_no_collective_deadlocks on a scheduled
// module, device-to-device send/recv must pair up without a collective or
// the program's end in between (VerifyNoCollectiveDeadlocks).
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "hlo/attributes.h"
#include "hlo/shape_inference.h"
#include "hlo/verify_internal.h"

namespace hlo::verify_internal {
namespace {

constexpr char kPairsAttr[] = "_xla_send_recv_source_target_pairs";
constexpr int kMaxCallDepth = 64;          // nested computation calls
constexpr int64_t kMaxWalkSteps = 100000;  // computations walked in all

bool IsSendOrRecv(Opcode op) {
  return op == Opcode::kSend || op == Opcode::kRecv;
}

bool IsTrue(const ParsedFile& file, const Instruction& inst,
            std::string_view key) {
  const Attribute* a = file.FindAttribute(inst, key);
  if (a == nullptr) return false;
  absl::StatusOr<bool> on = DecodeBool(file.Text(a->value));
  return on.ok() && *on;
}

FrontendAttributes Frontend(const ParsedFile& file, const Instruction& inst) {
  const Attribute* a = file.FindAttribute(inst, "frontend_attributes");
  if (a == nullptr) return {};
  absl::StatusOr<FrontendAttributes> decoded =
      DecodeFrontendAttributes(file.Text(a->value));
  return decoded.ok() ? *std::move(decoded) : FrontendAttributes{};
}

Span Where(const Instruction& inst) {
  return inst.name.empty() ? inst.span : inst.name;
}

// ------------------------------------------------ host-transfer channels --

// XLA's Identical() with operands compared by shape: opcode, shape,
// operand shapes and frontend attributes (is_host_transfer and the channel
// are the group's own).
bool IdenticalUpToOperands(const ParsedFile& file, const Instruction& a,
                           const Instruction& b) {
  if (a.opcode != b.opcode || a.operands.count != b.operands.count ||
      ShapeFromFile(file, a.shape) != ShapeFromFile(file, b.shape)) {
    return false;
  }
  for (Id k = 0; k < a.operands.count; ++k) {
    if (OperandShape(file, a, k) != OperandShape(file, b, k)) return false;
  }
  auto sorted = [&](const Instruction& i) {
    auto entries = Frontend(file, i).entries;
    std::sort(entries.begin(), entries.end());
    return entries;
  };
  return sorted(a) == sorted(b);
}

}  // namespace

void CheckHostTransferChannels(const Findings& f) {
  const ParsedFile& file = f.file;
  // Channels are per module (a file may hold several).
  std::map<std::pair<Id, int64_t>, std::vector<Id>> by_channel;
  for (Id id = 0; id < file.instructions.size(); ++id) {
    const Instruction& inst = file.instructions[id];
    if (!IsSendOrRecv(inst.opcode) || !IsTrue(file, inst, "is_host_transfer")) {
      continue;
    }
    const Attribute* c = file.FindAttribute(inst, "channel_id");
    if (c == nullptr) continue;
    absl::StatusOr<int64_t> channel = DecodeInt(file.Text(c->value));
    if (!channel.ok() || inst.computation >= file.computations.size()) {
      continue;
    }
    by_channel[{file.computations[inst.computation].module, *channel}]
        .push_back(id);
  }
  for (const auto& [key, ids] : by_channel) {
    const Instruction& reference = file.instructions[ids[0]];
    for (Id id : ids) {
      const Instruction& inst = file.instructions[id];
      if (IdenticalUpToOperands(file, reference, inst)) continue;
      f.Error(Where(inst),
              base::Cat("Host-transfer send/recv instructions that use the "
                        "same channel must be identical up to having "
                        "different operands. Found different instructions "
                        "with the same channel ID: ",
                        file.Name(reference), " vs ", file.Name(inst)));
      break;  // XLA stops at the first
    }
  }
}

namespace {

// -------------------------------------------------------------- deadlocks --

using Pairs = std::vector<SourceTargetPair>;

// collective_permute_cycle::HasCycles: following source -> target from any
// source comes back to a device already on the path.
bool HasCycles(const Pairs& pairs) {
  std::map<int64_t, int64_t> next;
  for (const SourceTargetPair& p : pairs) next[p.source] = p.target;
  std::set<int64_t> acyclic;
  for (const auto& [start, unused] : next) {
    std::set<int64_t> path;
    for (auto it = next.find(start);
         it != next.end() && !acyclic.contains(it->first);
         it = next.find(it->second)) {
      if (!path.insert(it->first).second) return true;
    }
    acyclic.insert(path.begin(), path.end());
  }
  return false;
}

bool HasDuplicates(const Pairs& pairs) {
  std::set<int64_t> sources, targets;
  for (const SourceTargetPair& p : pairs) {
    sources.insert(p.source);
    targets.insert(p.target);
  }
  return sources.size() != pairs.size() || targets.size() != pairs.size();
}

bool IsOtherCollective(Opcode op) {
  switch (op) {
    case Opcode::kAllGather:
    case Opcode::kAllReduce:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kCollectivePermute:
    case Opcode::kReduceScatter:
    case Opcode::kCollectiveBroadcast:
      return true;
    default:
      return false;
  }
}

enum class Expect { kNothing, kSend, kRecv };

struct DfaState {
  Expect expect = Expect::kNothing;
  std::vector<Id> sends, recvs;  // unmatched, in schedule order
};

// XLA's scheduled-order walk: a send waits for the recv with the same
// source-target pairs (and the other way round); sends (or recvs) in a row
// must not conflict; no other collective and no end of program while some
// wait. The first finding ends the walk, as XLA's status does.
class DeadlockChecker {
 public:
  explicit DeadlockChecker(const Findings& f) : f_(f), file_(f.file) {}

  void Run(Id entry) {
    DfaState state;
    if (Walk(entry, &state, 0) && !aborted_ &&
        state.expect != Expect::kNothing) {
      CheckPending(&state);
    }
  }

 private:
  const Instruction& At(Id id) const { return file_.instructions[id]; }

  // The instruction's pairs attribute (its text), nullopt when absent.
  std::optional<std::string> PairsText(Id id) const {
    FrontendAttributes attrs = Frontend(file_, At(id));
    const std::string* v = attrs.Find(kPairsAttr);
    return v ? std::optional<std::string>(*v) : std::nullopt;
  }
  Pairs PairsOf(Id id) const {
    std::optional<std::string> text = PairsText(id);
    if (!text) return {};
    absl::StatusOr<Pairs> pairs = DecodeSourceTargetPairs(*text);
    return pairs.ok() ? *std::move(pairs) : Pairs{};
  }

  bool Fail(Id id, std::string message) {
    f_.Error(Where(At(id)), std::move(message));
    return false;
  }

  // ShouldSkipDeadlockCheck: host transfers and pipelined or validated
  // send/recv are not modeled; the rest must name sane pairs. Sets *skip.
  bool Skip(Id id, bool* skip) {
    *skip = true;
    if (IsTrue(file_, At(id), "is_host_transfer")) return true;
    FrontendAttributes attrs = Frontend(file_, At(id));
    if (attrs.Find("_xla_send_recv_pipeline") ||
        attrs.Find("_xla_send_recv_validation")) {
      return true;
    }
    if (!attrs.Find(kPairsAttr)) {
      return Fail(id, base::Cat("Instruction ", file_.Name(At(id)),
                                " does not have source-target pairs "
                                "attribute"));
    }
    *skip = false;
    return Sane(id, PairsOf(id));
  }

  bool Sane(Id id, const Pairs& pairs) {
    if (HasCycles(pairs)) {
      return Fail(id, base::Cat("Expected send and recv instructions to have "
                                "non-cyclical source-target pairs, but found ",
                                file_.Name(At(id))));
    }
    if (HasDuplicates(pairs)) {
      return Fail(id, base::Cat("Expected send and recv instructions to have "
                                "unique source and target pairs, but found ",
                                file_.Name(At(id))));
    }
    return true;
  }

  // VerifyNoConflictingSendOrRecv: joined with each waiting one, no cycle
  // and no duplicate; then `id` waits too.
  bool JoinsCleanly(Id id, std::vector<Id>* waiting) {
    const Pairs mine = PairsOf(id);
    for (Id other : *waiting) {
      Pairs joined = mine;
      const Pairs theirs = PairsOf(other);
      joined.insert(joined.end(), theirs.begin(), theirs.end());
      if (HasCycles(joined) || HasDuplicates(joined)) return false;
    }
    waiting->push_back(id);
    return true;
  }

  // Removes and returns the first of `candidates` whose pairs text is
  // `id`'s (FindMatchingInstruction).
  bool TakeMatch(Id id, std::vector<Id>* candidates) {
    std::optional<std::string> mine = PairsText(id);
    for (auto it = candidates->begin(); it != candidates->end(); ++it) {
      if (mine && PairsText(*it) == mine) {
        candidates->erase(it);
        return true;
      }
    }
    return false;
  }

  bool SendOrRecv(Id id, DfaState* s) {
    bool skip = false;
    if (!Skip(id, &skip)) return false;
    if (skip) return true;
    const bool send = At(id).opcode == Opcode::kSend;
    std::vector<Id>& same = send ? s->sends : s->recvs;
    std::vector<Id>& other = send ? s->recvs : s->sends;
    const Expect waits_for_other = send ? Expect::kRecv : Expect::kSend;
    if (s->expect == Expect::kNothing) {
      same.push_back(id);
      s->expect = waits_for_other;
    } else if (s->expect == waits_for_other) {
      if (!JoinsCleanly(id, &same)) {
        return Fail(id, base::Cat("Expected ", send ? "recv" : "send",
                                  ", but found ", file_.Name(At(id))));
      }
    } else if (TakeMatch(id, &other)) {
      if (other.empty()) s->expect = Expect::kNothing;
    } else {
      same.push_back(id);
    }
    return true;
  }

  bool OtherCollective(Id id, const DfaState& s) {
    if (s.expect == Expect::kNothing) return true;
    if (!s.sends.empty() || !s.recvs.empty()) {
      return Fail(id, base::Cat("Expected send and recv instructions to have "
                                "the same source-target pairs, but could not "
                                "match some instructions. Introducing the "
                                "following instruction will cause a "
                                "deadlock: ",
                                file_.Name(At(id))));
    }
    return Fail(
        id, base::Cat("Expected send or recv, but found ", file_.Name(At(id))));
  }

  // CheckPendingSendRecvDeadlocks: what still waits must pair up.
  bool CheckPending(DfaState* s) {
    if (s->recvs.empty() && !s->sends.empty()) {
      return Fail(s->sends[0], "Expected recv to match send");
    }
    if (s->sends.empty() && !s->recvs.empty()) {
      return Fail(s->recvs[0], "Expected send to match recv");
    }
    std::vector<Id> unmatched;
    for (Id send : s->sends) {
      if (!TakeMatch(send, &s->recvs)) unmatched.push_back(send);
    }
    for (Id recv : s->recvs) {
      if (!TakeMatch(recv, &s->sends)) unmatched.push_back(recv);
    }
    if (unmatched.empty()) return true;
    std::string names;
    for (Id id : unmatched) names += base::Cat(file_.Name(At(id)), ",");
    return Fail(unmatched[0],
                "Deadlock detected. Last checked instructions: " + names);
  }

  // An async-wrapped group of send/recv (more than one instruction besides
  // parameters) is checked on its own, then must leave nothing waiting.
  bool IsAsyncGroup(const ComputationRef& ref) const {
    if (ref.instruction == kNone ||
        At(ref.instruction).opcode != Opcode::kAsyncStart) {
      return false;
    }
    const Computation& c = file_.computations[ref.computation];
    for (Id i = c.instructions.begin; i < c.instructions.end(); ++i) {
      if (i != c.root && At(i).opcode != Opcode::kParameter) return true;
    }
    return false;
  }

  bool Walk(Id computation, DfaState* s, int depth) {
    // A computation is walked once per call, as in XLA; calls nested in
    // calls multiply, so past the budget the walk stops without a finding.
    if (depth > kMaxCallDepth || ++steps_ > kMaxWalkSteps) {
      aborted_ = true;
      return true;
    }
    const Computation& c = file_.computations[computation];
    for (Id id = c.instructions.begin; id < c.instructions.end(); ++id) {
      const Instruction& inst = At(id);
      if (inst.called.count == 0) {
        if (IsSendOrRecv(inst.opcode)) {
          if (!SendOrRecv(id, s)) return false;
        } else if (IsOtherCollective(inst.opcode)) {
          if (!OtherCollective(id, *s)) return false;
        }
        continue;
      }
      for (Id r = inst.called.begin; r < inst.called.end(); ++r) {
        const ComputationRef& ref = file_.computation_refs[r];
        if (ref.computation == kNone) continue;
        if (!IsAsyncGroup(ref)) {
          if (!Walk(ref.computation, s, depth + 1)) return false;
          continue;
        }
        DfaState group;
        if (!Walk(ref.computation, &group, depth + 1)) return false;
        if (!aborted_ && s->expect != Expect::kNothing &&
            !CheckPending(&group)) {
          return false;
        }
      }
    }
    return true;
  }

  const Findings& f_;
  const ParsedFile& file_;
  int64_t steps_ = 0;     // computations walked
  bool aborted_ = false;  // past a limit: what waits proves nothing
};

}  // namespace

void CheckCollectiveDeadlocks(const Findings& f) {
  const ParsedFile& file = f.file;
  for (const Module& m : file.modules) {
    bool scheduled = false;
    for (Id a = m.header_attributes.begin; a < m.header_attributes.end(); ++a) {
      const Attribute& attr = file.attributes[a];
      scheduled |= file.Text(attr.key) == "is_scheduled" &&
                   file.Text(attr.value) == "true";
    }
    // XLA checks only a schedule; an unscheduled module's order is none.
    if (scheduled && m.entry != kNone) DeadlockChecker(f).Run(m.entry);
  }
}

}  // namespace hlo::verify_internal
