// callHierarchy: computations call computations through to_apply, calls,
// body, condition, branch_computations, ...
#include <map>

#include "hlo/query.h"
#include "server/features/features.h"

namespace hlo_lsp {
namespace {

CallHierarchyItem ItemFor(const Snapshot& snap, hlo::Id c) {
  const hlo::ParsedFile& file = *snap.file;
  const hlo::Computation& comp = file.computations[c];
  CallHierarchyItem item;
  item.name = file.Name(comp);
  item.kind = SymbolKind::kFunction;
  item.detail = comp.is_entry ? "ENTRY" : "";
  item.uri = snap.uri;
  item.range = snap.ToRange(comp.span);
  item.selection_range = snap.ToRange(comp.name);
  return item;
}

// The computation an item names: by the name, checked against the position.
hlo::Id Resolve(const Snapshot& snap, const CallHierarchyItem& item) {
  const hlo::ParsedFile& file = *snap.file;
  hlo::Id at =
      hlo::ComputationAt(file, snap.ToOffset(item.selection_range.start));
  if (at != hlo::kNone && file.Name(file.computations[at]) == item.name)
    return at;
  return hlo::FindComputation(file, item.name);
}

}  // namespace

std::vector<CallHierarchyItem> PrepareCallHierarchy(const Snapshot& snap,
                                                    Position position) {
  const hlo::ParsedFile& file = *snap.file;
  hlo::Offset offset = snap.ToOffset(position);
  hlo::NodeAt node = hlo::FindNodeAt(file, offset);
  hlo::Id target = hlo::kNone;
  if (node.kind == hlo::NodeKind::kComputationName) {
    target = node.id;
  } else if (node.kind == hlo::NodeKind::kComputationRef) {
    target = file.computation_refs[node.id].computation;
  } else {
    target = hlo::ComputationAt(file, offset);  // anywhere in a body
  }
  if (target == hlo::kNone || target >= file.computations.size()) return {};
  return {ItemFor(snap, target)};
}

std::vector<CallHierarchyCall> IncomingCalls(const Snapshot& snap,
                                             const CallHierarchyItem& item) {
  const hlo::ParsedFile& file = *snap.file;
  hlo::Id target = Resolve(snap, item);
  if (target == hlo::kNone) return {};
  std::map<hlo::Id, std::vector<Range>> by_caller;
  for (hlo::Id ref : hlo::CallersOf(file, target)) {
    const hlo::ComputationRef& r = file.computation_refs[ref];
    if (r.instruction >= file.instructions.size()) continue;
    hlo::Id caller = file.instructions[r.instruction].computation;
    if (caller >= file.computations.size()) continue;
    by_caller[caller].push_back(snap.ToRange(r.name));
  }
  std::vector<CallHierarchyCall> out;
  for (auto& [caller, ranges] : by_caller) {
    out.push_back(CallHierarchyCall{ItemFor(snap, caller), std::move(ranges)});
  }
  return out;
}

std::vector<CallHierarchyCall> OutgoingCalls(const Snapshot& snap,
                                             const CallHierarchyItem& item) {
  const hlo::ParsedFile& file = *snap.file;
  hlo::Id source = Resolve(snap, item);
  if (source == hlo::kNone) return {};
  std::map<hlo::Id, std::vector<Range>> by_callee;
  for (hlo::Id ref : hlo::CalleesOf(file, source)) {
    const hlo::ComputationRef& r = file.computation_refs[ref];
    if (r.computation >= file.computations.size()) continue;
    by_callee[r.computation].push_back(snap.ToRange(r.name));
  }
  std::vector<CallHierarchyCall> out;
  for (auto& [callee, ranges] : by_callee) {
    out.push_back(CallHierarchyCall{ItemFor(snap, callee), std::move(ranges)});
  }
  return out;
}

}  // namespace hlo_lsp
