// The printer's module-wide tables: each instruction's id, name, parameter
// number, shape and callees, from the parsed message or read off
// its wire bytes (a deferred decode: only these few fields are looked at,
// the line parses the rest), and the computations' printing order.
#include <algorithm>
#include <atomic>
#include <climits>
#include <new>

#include "base/large_buffer.h"
#include "base/run_parallel.h"
#include "hlo/proto/callee_order.h"
#include "hlo/proto/print_internal.h"
#include "hlo/proto/wire_reader.h"

namespace hlo::proto::internal {
namespace {

// The fields of HloInstructionProto the index reads.
constexpr uint32_t kName = 1, kOpcode = 2, kShape = 3, kParameterNumber = 9,
                   kId = 35, kCalledComputationIds = 38;

// False when the bytes are not sound wire format, or repeat the shape
// (which a parse would merge): the full decode then decides. A field of
// another wire type than its declaration's is left to the parse as well.
bool ScanInstruction(std::string_view bytes, InstrRef* ref,
                     std::vector<int64_t>* called) {
  ref->source = bytes.data();
  ref->size = static_cast<uint32_t>(bytes.size());
  const auto offset = [&](std::string_view part) {
    return static_cast<uint32_t>(part.data() - bytes.data());
  };
  bool shape_seen = false;
  std::string_view opcode;
  wire::Field field;
  for (size_t pos = 0; pos < bytes.size();) {
    if (!wire::ReadField(bytes, &pos, &field)) return false;
    if (field.type == wire::kVarint) {
      if (field.number == kParameterNumber) {
        ref->parameter_number = static_cast<int64_t>(field.value);
      } else if (field.number == kId) {
        ref->id = static_cast<int64_t>(field.value);
      } else if (field.number == kCalledComputationIds) {
        called->push_back(static_cast<int64_t>(field.value));
      }
    } else if (field.type == wire::kLengthDelimited) {
      if (field.number == kName) {
        ref->name_offset = offset(field.data);
        ref->name_size = static_cast<uint32_t>(field.data.size());
      } else if (field.number == kOpcode) {
        opcode = field.data;
      } else if (field.number == kShape) {
        if (shape_seen) return false;
        shape_seen = true;
        ref->shape_offset = offset(field.data);
        ref->shape_size = static_cast<uint32_t>(field.data.size());
      } else if (field.number == kCalledComputationIds) {  // packed
        for (size_t at = 0; at < field.data.size();) {
          uint64_t id = 0;
          if (!wire::ReadVarint(field.data, &at, &id)) return false;
          called->push_back(static_cast<int64_t>(id));
        }
      }
    }
  }
  ref->is_parameter = opcode == "parameter";
  return true;
}

void IndexMessages(const xla::HloComputationProto& c, CompRef* comp,
                   std::vector<int64_t>* called) {
  for (int k = 0; k < c.instructions_size(); ++k) {
    const Instr& i = c.instructions(k);
    InstrRef& ref = comp->instrs[k];
    ref.id = i.id();
    ref.parameter_number = i.parameter_number();
    ref.source = &i;
    ref.parsed = true;
    ref.is_parameter = i.opcode() == "parameter";
    called->insert(called->end(), i.called_computation_ids().begin(),
                   i.called_computation_ids().end());
  }
}

// A run of one computation's instructions, indexed on one thread; the
// callees it found are joined to the computation's after.
struct Piece {
  int comp;
  size_t begin, end;
  std::vector<int64_t> called;
};

// Wire instructions go in pieces of at most this many: a module's entry
// computation often holds most of them.
constexpr size_t kPieceInstructions = 4096;

}  // namespace

bool BuildModuleIndex(const xla::HloModuleProto& module,
                      const std::vector<std::vector<std::string_view>>* wire,
                      int threads, ModuleIndex* index) {
  index->module = &module;
  const int n = module.computations_size();
  index->comps.resize(n);
  index->computations.reserve(n);
  auto count_of = [&](int k) -> size_t {
    return wire ? (*wire)[k].size()
                : module.computations(k).instructions_size();
  };
  size_t total = 0;
  for (int k = 0; k < n; ++k) {
    index->computations.try_emplace(module.computations(k).id(), k);
    index->comps[k].message = &module.computations(k);
    total += count_of(k);
  }
  // At least a mapping's worth once past a few hundred KB, so that it maps
  // (and may take huge pages).
  size_t bytes = total * sizeof(InstrRef);
  if (bytes >= (size_t{256} << 10)) {
    bytes = std::max(bytes, base::LargeBuffer::kMapFrom);
  }
  index->instr_storage = base::LargeBuffer::Allocate(bytes);
  if (index->instr_storage.data() == nullptr) return false;
  InstrRef* next_ref = reinterpret_cast<InstrRef*>(index->instr_storage.data());
  std::vector<Piece> pieces;
  pieces.reserve(n + total / kPieceInstructions);
  for (int k = 0; k < n; ++k) {
    const size_t count = count_of(k);
    index->comps[k].instrs = absl::MakeSpan(next_ref, count);
    next_ref += count;
    if (!wire) {
      pieces.push_back({k, 0, count, {}});
      continue;
    }
    for (size_t begin = 0; begin < count; begin += kPieceInstructions) {
      pieces.push_back(
          {k, begin, std::min(count, begin + kPieceInstructions), {}});
    }
  }
  // Pieces are indexed independently: on up to `threads` threads.
  std::atomic<size_t> next{0};
  std::atomic<bool> ok{true};
  auto work = [&] {
    for (size_t p; ok && (p = next.fetch_add(1)) < pieces.size();) {
      Piece& piece = pieces[p];
      CompRef& comp = index->comps[piece.comp];
      for (size_t i = piece.begin; i < piece.end; ++i) {
        new (&comp.instrs[i]) InstrRef();
      }
      if (!wire) {
        IndexMessages(*comp.message, &comp, &piece.called);
        continue;
      }
      const std::vector<std::string_view>& instrs = (*wire)[piece.comp];
      for (size_t i = piece.begin; i < piece.end; ++i) {
        if (instrs[i].size() > static_cast<size_t>(INT_MAX) ||
            !ScanInstruction(instrs[i], &comp.instrs[i], &piece.called)) {
          ok = false;
          break;
        }
      }
    }
  };
  threads = static_cast<int>(
      std::clamp<size_t>(pieces.size(), 1, static_cast<size_t>(threads)));
  if (!base::RunInParallel(threads, [&](int) { work(); })) {
    return false;  // out of memory
  }
  for (Piece& piece : pieces) {
    std::vector<int64_t>& called = index->comps[piece.comp].called;
    if (called.empty()) {
      called = std::move(piece.called);
    } else {
      called.insert(called.end(), piece.called.begin(), piece.called.end());
    }
  }
  return ok;
}

// Callees before callers (the parser needs definitions first). Also picks
// the entry.
std::vector<int> PostOrder(ModuleIndex& index) {
  const xla::HloModuleProto& module = *index.module;
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
  return CalleesFirstOrder(static_cast<int>(index.comps.size()),
                           [&](int k, std::vector<int>* callees) {
                             for (int64_t id : index.comps[k].called) {
                               auto found = index.computations.find(id);
                               if (found != index.computations.end()) {
                                 callees->push_back(found->second);
                               }
                             }
                           });
}

}  // namespace hlo::proto::internal
