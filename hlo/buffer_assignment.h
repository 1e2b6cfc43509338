// Readers for XLA's buffer-assignment dumps, as xla/service/dump.cc writes
// them next to the optimized module:
//  - `<base>-buffer-assignment.txt`: BufferAssignment::ToString (each
//    "allocation N: size S, KINDS:" with its " value: <ID NAME{IDX} @C>
//    (size=S,offset=O): SHAPE" lines, "Total bytes used", "Used values"),
//    then HloLiveRange::ToString (InstructionSequence, BufferLiveRange
//    "NAME{IDX}:START-END", and in newer XLA "Live ranges at T (peak):").
//  - `<base>-memory-usage-report.txt`: BufferAssignment::MemoryUsageReport,
//    allocations with human-readable (rounded) sizes and no value names.
// Pure text in, structs out: no I/O. A line that does not read is skipped
// and noted with its line number; nothing here aborts. Names and shapes are
// views into the text read (a dump of 30,000 values allocates no string
// per value): the text must outlive the dump.
#ifndef HLO_LSP_HLO_BUFFER_ASSIGNMENT_H_
#define HLO_LSP_HLO_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hlo {

// One value held by an allocation (HloValue::ToShortString plus its slice).
struct AssignedValue {
  int64_t id = -1;
  std::string_view instruction;  // the defining instruction's name
  std::string_view shape_index;  // "{0,1}"; "" when XLA printed none
  bool phi = false;
  int64_t offset = 0;
  int64_t size = 0;
  std::string_view shape;  // with layout, as printed
  uint32_t line = 0;       // 1-based line in the dump
};

struct Allocation {
  int64_t index = -1;
  int64_t size = 0;
  bool size_rounded = false;  // from a memory report's "1.50MiB"
  int64_t color = 0;
  std::optional<int64_t> parameter;  // entry parameter number
  std::string_view parameter_shape;  // "f32[4]" (no layout)
  std::string_view parameter_index;  // "{}"
  std::string_view output_shape;     // "output shape is |...|"
  bool constant = false;
  bool thread_local_ = false;
  bool maybe_live_out = false;
  bool preallocated_temp = false;
  std::vector<AssignedValue> values;
  uint32_t line = 0;  // 1-based line of the "allocation N:" header

  // "parameter", "constant", "thread-local", "maybe-live-out",
  // "preallocated-temp" or "temp": the first that applies, in that order.
  std::string_view Kind() const;
  // Every kind XLA printed, as it printed them: "parameter 0, maybe-live-out".
  std::string Kinds() const;
};

// A value live at the peak moment of the module's live ranges.
struct PeakValue {
  std::string_view instruction;
  std::string_view shape_index;  // always "{...}" as HloLiveRange prints it
  int64_t bytes = 0;
};

struct LiveRange {
  std::string_view instruction;
  std::string_view shape_index;
  int64_t start = 0, end = 0;
};

// A place other than its definition where a value appears ("Used values"
// positions): a get-tuple-element, bitcast or tuple element aliasing it.
struct ValuePosition {
  std::string_view instruction;
  std::string_view shape_index;  // "{0}" for a tuple element; "" otherwise
  int64_t value_id = -1;
};

struct ReadProblem {
  uint32_t line = 0;  // 1-based
  std::string message;
};

// BufferAssignment::StatsString's kinds. They overlap as XLA's do (a
// donated parameter returned as output is parameter and maybe_live_out);
// `total` is every allocation once.
struct AllocationTotals {
  int64_t parameter = 0, constant = 0, maybe_live_out = 0,
          preallocated_temp = 0, thread_local_ = 0, temp = 0, total = 0;
};

struct BufferAssignmentDump {
  std::vector<Allocation> allocations;  // in file order
  std::optional<int64_t> total_bytes;   // "Total bytes used: N"
  std::vector<LiveRange> live_ranges;
  std::vector<ValuePosition> aliases;
  // The peak: as "Live ranges at T (peak)" lists it, or (older XLA, no such
  // section) computed from the live ranges and the values' sizes.
  std::optional<int64_t> peak_time;
  bool peak_computed = false;
  std::vector<PeakValue> peak;  // largest first
  std::vector<ReadProblem> problems;
  bool from_memory_report = false;

  AllocationTotals Totals() const;
  const Allocation* Largest() const;
};

BufferAssignmentDump ReadBufferAssignment(std::string_view text);
BufferAssignmentDump ReadMemoryUsageReport(std::string_view text);

// Every place an instruction's values live: (allocation, value) pairs, its
// own values first, then those it aliases (`alias_index` its index there).
struct ValuePlace {
  const Allocation* allocation = nullptr;
  const AssignedValue* value = nullptr;
  bool alias = false;
  std::string_view alias_index;
};
std::vector<ValuePlace> PlacesOf(const BufferAssignmentDump& dump,
                                 std::string_view instruction);
// True when a value of `instruction` (its own or one it aliases) is in the
// peak set.
bool LiveAtPeak(const BufferAssignmentDump& dump, std::string_view instruction);

// "1.50MiB", "512B": tsl::strings::HumanReadableNumBytes's spelling.
std::string HumanBytes(int64_t bytes);
// Its inverse, for the memory report and OOM logs: nullopt when unreadable.
std::optional<int64_t> ParseHumanBytes(std::string_view text);

}  // namespace hlo

#endif  // HLO_LSP_HLO_BUFFER_ASSIGNMENT_H_
