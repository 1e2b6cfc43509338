// The child -> parent pipe's wire format, shared by replay's child process
// (its result) and the GPU backend's (its extras, the GPU query): integers,
// doubles and strings in native endianness (both ends are this binary),
// statistics records and values as .npz bytes. Internal to exec/.
#ifndef HLO_LSP_EXEC_WIRE_H_
#define HLO_LSP_EXEC_WIRE_H_

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "exec/evaluator.h"
#include "exec/literal.h"

namespace hlo::exec {

struct WireWriter {
  std::string out;
  void U64(uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }
  void F64(double v) { out.append(reinterpret_cast<const char*>(&v), 8); }
  void Str(std::string_view v) {
    U64(v.size());
    out.append(v);
  }
  void Stats(const InstructionStats& x) {
    U64(x.instruction);
    U64(x.runs);
    U64(x.elements);
    U64(x.nan_count);
    U64(x.inf_count);
    F64(x.min);
    F64(x.max);
    F64(x.sum);
  }
};

struct WireReader {
  std::string_view in;
  bool ok = true;  // false once a read ran past the end
  uint64_t U64() {
    if (in.size() < 8) {
      ok = false;
      return 0;
    }
    uint64_t v;
    std::memcpy(&v, in.data(), 8);
    in.remove_prefix(8);
    return v;
  }
  double F64() {
    uint64_t u = U64();
    double d;
    std::memcpy(&d, &u, 8);
    return d;
  }
  std::string Str() {
    uint64_t n = U64();
    if (!ok || n > in.size()) {
      ok = false;
      return "";
    }
    std::string v(in.substr(0, n));
    in.remove_prefix(n);
    return v;
  }
  InstructionStats Stats() {
    InstructionStats x;
    x.instruction = static_cast<Id>(U64());
    x.runs = static_cast<int64_t>(U64());
    x.elements = static_cast<int64_t>(U64());
    x.nan_count = static_cast<int64_t>(U64());
    x.inf_count = static_cast<int64_t>(U64());
    x.min = F64();
    x.max = F64();
    x.sum = F64();
    return x;
  }
};

// A value's arrays (FlattenResult) as .npz bytes; empty when they do not
// encode.
std::string NpzBytesOf(const Value& value);

// Writes all of `bytes` to `fd` (the child's end of the pipe), retrying
// after signals; false on a write error.
bool WriteAll(int fd, std::string_view bytes);

// Reads the parent's end of the pipe into `*bytes` until EOF (or an
// error), polling every 100 ms; stops early past `timeout_seconds` (0: no
// limit) or once `*cancel` (may be null) is set.
enum class PipeRead { kEnd, kTimedOut, kCancelled };
PipeRead ReadUntilEnd(int fd, double timeout_seconds,
                      const std::atomic<bool>* cancel, std::string* bytes);

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_WIRE_H_
