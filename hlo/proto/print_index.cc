// The printer's module-wide tables: each instruction's id, name, opcode,
// parameter number, shape and callees, from the parsed message or read off
// its wire bytes (a deferred decode: only these few fields are looked at,
// the line parses the rest), and the computations' printing order.
#include <atomic>
#include <climits>
#include <thread>

#include "google/protobuf/io/coded_stream.h"
#include "hlo/proto/print_internal.h"

namespace hlo::proto::internal {
namespace {

using google::protobuf::io::CodedInputStream;

// The fields of HloInstructionProto the index reads.
constexpr uint32_t kName = 1, kOpcode = 2, kShape = 3, kParameterNumber = 9,
                   kId = 35, kCalledComputationIds = 38;

// False when the bytes are not sound wire format, or repeat the shape
// (which a parse would merge): the full decode then decides.
bool ScanInstruction(std::string_view bytes, InstrRef* ref,
                     std::vector<int64_t>* called) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  const auto view = [&](uint64_t length) {
    return bytes.substr(in.CurrentPosition(), length);
  };
  bool shape_seen = false;
  ref->bytes = bytes;
  ref->called_begin = static_cast<uint32_t>(called->size());
  while (in.CurrentPosition() < static_cast<int>(bytes.size())) {
    const uint32_t tag = in.ReadTag();
    const uint32_t number = tag >> 3;
    if (number == 0) return false;
    uint64_t value = 0;
    switch (tag & 7) {
      case 0:
        if (!in.ReadVarint64(&value)) return false;
        if (number == kParameterNumber) {
          ref->parameter_number = static_cast<int64_t>(value);
        } else if (number == kId) {
          ref->id = static_cast<int64_t>(value);
        } else if (number == kCalledComputationIds) {
          called->push_back(static_cast<int64_t>(value));
        }
        break;
      case 1:
        if (!in.Skip(8)) return false;
        break;
      case 5:
        if (!in.Skip(4)) return false;
        break;
      case 2: {
        if (!in.ReadVarint64(&value) ||
            value > bytes.size() - in.CurrentPosition()) {
          return false;
        }
        if (number == kName) {
          ref->name = view(value);
        } else if (number == kOpcode) {
          ref->opcode = view(value);
        } else if (number == kShape) {
          if (shape_seen) return false;
          shape_seen = true;
          ref->shape = view(value);
        } else if (number == kCalledComputationIds) {
          const int end = in.CurrentPosition() + static_cast<int>(value);
          while (in.CurrentPosition() < end) {
            uint64_t id = 0;
            if (!in.ReadVarint64(&id)) return false;
            called->push_back(static_cast<int64_t>(id));
          }
          if (in.CurrentPosition() != end) return false;
          break;
        }
        if (!in.Skip(static_cast<int>(value))) return false;
        break;
      }
      default:  // groups, or no tag at all: let the parse judge
        return false;
    }
  }
  ref->called_count = static_cast<uint32_t>(called->size()) - ref->called_begin;
  return true;
}

void IndexMessages(const xla::HloComputationProto& c, CompRef* comp) {
  comp->instrs.resize(c.instructions_size());
  for (int k = 0; k < c.instructions_size(); ++k) {
    const Instr& i = c.instructions(k);
    InstrRef& ref = comp->instrs[k];
    ref.id = i.id();
    ref.name = i.name();
    ref.opcode = i.opcode();
    ref.parameter_number = i.parameter_number();
    ref.message = &i;
    ref.called_begin = static_cast<uint32_t>(comp->called.size());
    comp->called.insert(comp->called.end(), i.called_computation_ids().begin(),
                        i.called_computation_ids().end());
    ref.called_count = i.called_computation_ids_size();
  }
}

}  // namespace

bool BuildModuleIndex(const xla::HloModuleProto& module,
                      const std::vector<std::vector<std::string_view>>* wire,
                      int threads, ModuleIndex* index) {
  index->module = &module;
  const int n = module.computations_size();
  index->comps.resize(n);
  for (int k = 0; k < n; ++k) {
    index->computations.try_emplace(module.computations(k).id(), k);
    index->comps[k].message = &module.computations(k);
  }
  // Computations are indexed independently: on `threads` threads.
  std::atomic<int> next{0};
  std::atomic<bool> ok{true};
  auto work = [&] {
    for (int k; ok && (k = next.fetch_add(1)) < n;) {
      CompRef& comp = index->comps[k];
      if (!wire) {
        IndexMessages(*comp.message, &comp);
        continue;
      }
      const std::vector<std::string_view>& instrs = (*wire)[k];
      comp.instrs.resize(instrs.size());
      for (size_t i = 0; i < instrs.size(); ++i) {
        if (instrs[i].size() > static_cast<size_t>(INT_MAX) ||
            !ScanInstruction(instrs[i], &comp.instrs[i], &comp.called)) {
          ok = false;
          break;
        }
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  return ok;
}

// Callees before callers (the parser needs definitions first).
// Iterative: a damaged proto can be cyclic. Also picks the entry.
std::vector<int> PostOrder(ModuleIndex& index) {
  const xla::HloModuleProto& module = *index.module;
  std::vector<int> order;
  const CompRef* entry = nullptr;
  for (const CompRef& c : index.comps) {
    if (c.message->id() == module.entry_computation_id() &&
        (module.entry_computation_name().empty() ||
         c.message->name() == module.entry_computation_name())) {
      entry = &c;
    }
  }
  if (!entry) {
    for (const CompRef& c : index.comps) {
      if (c.message->name() == module.entry_computation_name()) entry = &c;
    }
  }
  if (!entry && !index.comps.empty()) entry = &index.comps.back();
  index.entry = entry;
  // By position: 0 new, 1 entered, 2 done.
  std::vector<char> state(index.comps.size(), 0);
  auto visit = [&](int root) {
    std::vector<std::pair<int, bool>> stack;
    stack.push_back({root, false});
    while (!stack.empty()) {
      auto [k, expanded] = stack.back();
      stack.pop_back();
      if (state[k] == 2) continue;
      if (expanded) {
        state[k] = 2;
        order.push_back(k);
        continue;
      }
      if (state[k] == 1) continue;  // a cycle
      state[k] = 1;
      stack.push_back({k, true});
      const CompRef& c = index.comps[k];
      for (auto it = c.instrs.rbegin(); it != c.instrs.rend(); ++it) {
        for (int j = static_cast<int>(it->called_count) - 1; j >= 0; --j) {
          auto found = index.computations.find(c.called[it->called_begin + j]);
          if (found != index.computations.end() && state[found->second] != 2) {
            stack.push_back({found->second, false});
          }
        }
      }
    }
  };
  // Stored order (XLA stores callees first), moving a callee forward only
  // when a caller precedes it.
  for (size_t k = 0; k < index.comps.size(); ++k) visit(static_cast<int>(k));
  return order;
}

}  // namespace hlo::proto::internal
