// `hlo-lsp memory FILE [--module MODULE] [--json]`: a module's buffer
// assignment (server/common/memory_report.h): totals per kind, each
// allocation with its values, the peak set; or an OOM log's peak buffers
// matched to the module's instructions.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/strings.h"
#include "nlohmann/json.hpp"
#include "server/cli/commands.h"
#include "server/cli/path_escape.h"
#include "server/cli/simple_args.h"
#include "server/common/file_reader.h"
#include "server/common/memory_report.h"

namespace hlo_lsp::cli {
namespace {

namespace base = hlo::base;

using nlohmann::json;

constexpr char kMemoryUsage[] =
    "usage: hlo-lsp memory FILE [--module MODULE] [--json]\n\n"
    "What XLA's buffer assignment says about a module's memory: the total\n"
    "and the bytes per kind (parameter, constant, maybe_live_out,\n"
    "preallocated_temp; they overlap as in XLA's stats, a donated parameter\n"
    "returned as output counting twice), each allocation with its size,\n"
    "kinds and the values it holds (NAME{INDEX} offset O size S SHAPE), and\n"
    "the values live at the peak (XLA's \"Live ranges at T (peak)\", or\n"
    "computed from the live ranges where older XLA prints none).\n"
    "FILE: the -buffer-assignment.txt dump, the -memory-usage-report.txt\n"
    "(sizes rounded, no values), or any dump of the module (its buffer\n"
    "assignment is found beside it, this stage's first).\n"
    "FILE may also be a log holding XLA's \"BufferAssignment OOM Debugging\"\n"
    "report: each peak buffer is matched to the instructions of the\n"
    "module's optimized dump (op_name metadata, XLA Label = opcode and shape\n"
    "without layout; then without op_name; then without shape; entry\n"
    "parameters by shape). The module is MODULE when given, else the\n"
    "*after_optimizations dump beside the log that matches most buffers\n"
    "(modules the log names first).\n"
    "--json prints {\"source\",\"path\",\"module\",\"total\",\"totals\","
    "\"allocations\":[{\"index\",\"size\",\"kind\",\"kinds\",\"values\":"
    "[{\"name\",\"index\",\"offset\",\"size\",\"shape\"}]}],\"peak\":"
    "{\"time\",\"computed\",\"values\":[{\"name\",\"index\",\"bytes\"}]},"
    "\"buffers\":[{\"number\",\"line\",\"size\",\"label\",\"shape\",\"op_"
    "name\","
    "\"entry_parameter\",\"matches\":[{\"name\",\"computation\",\"line\"}]}],"
    "\"problems\":[{\"line\",\"message\"}]} (lines 1-based).\n"
    "exit: 0 shown, 1 no buffer assignment for the module or FILE holds\n"
    "none of these, 2 usage or I/O error\n";

json TotalsJson(const hlo::AllocationTotals& t) {
  return json{{"parameter", t.parameter},
              {"constant", t.constant},
              {"maybe_live_out", t.maybe_live_out},
              {"preallocated_temp", t.preallocated_temp},
              {"thread_local", t.thread_local_},
              {"temp", t.temp}};
}

std::string Dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

void PrintJson(const MemoryReport& r) {
  const hlo::AllocationTotals totals = r.Totals();
  json out = {{"source", r.SourceName()},
              {"path", json::parse(JsonPathLiteral(r.path))},
              {"module", r.module_path.empty()
                             ? json(nullptr)
                             : json::parse(JsonPathLiteral(r.module_path))},
              {"total", totals.total},
              {"totals", TotalsJson(totals)}};
  // The allocations' values are most of a large answer: written directly
  // (a DOM of 30,000 values costs more than the reading).
  std::string allocations = "[";
  for (const hlo::Allocation& a : r.dump.allocations) {
    if (allocations.size() > 1) allocations += ',';
    allocations += "{\"index\":" + std::to_string(a.index) +
                   ",\"size\":" + std::to_string(a.size) +
                   ",\"rounded\":" + (a.size_rounded ? "true" : "false") +
                   ",\"kind\":" + Dump(json(a.Kind())) +
                   ",\"kinds\":" + Dump(json(a.Kinds())) + ",\"values\":[";
    for (size_t i = 0; i < a.values.size(); ++i) {
      const hlo::AssignedValue& v = a.values[i];
      allocations += (i > 0 ? ",{\"name\":" : "{\"name\":") +
                     Dump(json(v.instruction)) +
                     ",\"index\":" + Dump(json(v.shape_index)) +
                     ",\"offset\":" + std::to_string(v.offset) +
                     ",\"size\":" + std::to_string(v.size) +
                     ",\"shape\":" + Dump(json(v.shape)) + "}";
    }
    allocations += "]}";
  }
  allocations += "]";
  json peak = json::array();
  for (const hlo::PeakValue& p : r.dump.peak) {
    peak.push_back({{"name", p.instruction},
                    {"index", p.shape_index},
                    {"bytes", p.bytes}});
  }
  out["peak"] = {
      {"time", r.dump.peak_time ? json(*r.dump.peak_time) : json(nullptr)},
      {"computed", r.dump.peak_computed},
      {"values", std::move(peak)}};
  json buffers = json::array();
  for (size_t i = 0; i < r.oom.buffers.size(); ++i) {
    const hlo::OomBuffer& b = r.oom.buffers[i];
    json matches = json::array();
    if (i < r.matches.size()) {
      for (const OomMatch& m : r.matches[i]) {
        matches.push_back({{"name", m.name},
                           {"computation", m.computation},
                           {"line", m.line}});
      }
    }
    buffers.push_back({{"number", b.number},
                       {"line", b.line},
                       {"size", b.size},
                       {"label", b.label},
                       {"shape", b.shape},
                       {"op_name", b.op_name},
                       {"entry_parameter", b.entry_parameter},
                       {"matches", std::move(matches)}});
  }
  out["buffers"] = std::move(buffers);
  if (r.oom.requested) out["requested"] = *r.oom.requested;
  json problems = json::array();
  for (const hlo::ReadProblem& p : r.dump.problems) {
    problems.push_back({{"line", p.line}, {"message", p.message}});
  }
  out["problems"] = std::move(problems);
  if (!r.note.empty()) out["note"] = r.note;
  std::string text = Dump(out);  // "{...}": the allocations go first
  text = "{\"allocations\":" + allocations + "," + text.substr(1) + "\n";
  std::fputs(text.c_str(), stdout);
}

std::string Bytes(int64_t n) {
  return std::to_string(n) + " bytes (" + hlo::HumanBytes(n) + ")";
}

void PrintText(const MemoryReport& r) {
  std::string out;
  const hlo::AllocationTotals t = r.Totals();
  if (r.oom.requested) {
    out += "out of memory allocating " + Bytes(*r.oom.requested) + "\n";
  }
  out += "total: " + Bytes(t.total) + "\n";
  out += "  parameter: " + Bytes(t.parameter) + "\n";
  out += "  constant: " + Bytes(t.constant) + "\n";
  out += "  maybe_live_out: " + Bytes(t.maybe_live_out) + "\n";
  out += "  preallocated_temp: " + Bytes(t.preallocated_temp) + "\n";
  if (r.source != MemoryReport::Source::kOomLog) {
    out += "  thread_local: " + Bytes(t.thread_local_) + "\n";
    out += "  temp: " + Bytes(t.temp) + "\n";
  }
  // Most of a large answer: appended in place, no temporaries.
  for (const hlo::Allocation& a : r.dump.allocations) {
    base::Append(out, "allocation ", a.index, ": ",
                 a.size_rounded ? "about " : "", Bytes(a.size), ", ", a.Kinds(),
                 "\n");
    for (const hlo::AssignedValue& v : a.values) {
      base::Append(out, "  ", v.instruction, v.shape_index, " offset ",
                   v.offset, " size ", v.size, " ", v.shape, "\n");
    }
  }
  if (!r.dump.peak.empty()) {
    int64_t sum = 0;
    for (const hlo::PeakValue& p : r.dump.peak) sum += p.bytes;
    out += "peak";
    if (r.dump.peak_time) out += " at " + std::to_string(*r.dump.peak_time);
    out += r.dump.peak_computed ? " (computed)" : "";
    out += ": " + std::to_string(r.dump.peak.size()) + " values, " +
           Bytes(sum) + "\n";
    for (const hlo::PeakValue& p : r.dump.peak) {
      base::Append(out, "  ", p.instruction, p.shape_index, " ", p.bytes,
                   " bytes\n");
    }
  }
  if (!r.module_path.empty())
    out += "module: " + TextPath(r.module_path) + "\n";
  for (size_t i = 0; i < r.oom.buffers.size(); ++i) {
    const hlo::OomBuffer& b = r.oom.buffers[i];
    out += "buffer " + std::to_string(b.number) + ": " + Bytes(b.size) + " " +
           (b.entry_parameter ? "entry parameter" : b.label) + " " + b.shape;
    if (!b.op_name.empty()) out += " op_name=\"" + b.op_name + "\"";
    out += "\n";
    const bool none = i >= r.matches.size() || r.matches[i].empty();
    if (none) out += "  (no instruction matches)\n";
    if (none) continue;
    for (const OomMatch& m : r.matches[i]) {
      out += "  " + TextPath(r.module_path) + ":" + std::to_string(m.line) +
             ": " + m.computation + " " + m.name + "\n";
    }
  }
  std::fputs(out.c_str(), stdout);
}

}  // namespace

int RunMemory(int argc, char** argv) {
  if (WantsHelp(argc, argv)) {
    std::fputs(kMemoryUsage, stdout);
    return kExitOk;
  }
  std::optional<SimpleArgs> args = ParseSimpleArgs(
      argc, argv, "memory", kMemoryUsage, {"--json"}, {"--module"}, 1, 1);
  if (!args) return kExitUsage;
  const std::string& path = args->operands[0];
  const std::string module = args->value("--module");
  for (const std::string& p : {path, module}) {
    struct stat st;
    if (p.empty()) continue;
    if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      const bool missing = ::stat(p.c_str(), &st) != 0;
      std::fprintf(stderr, "hlo-lsp: cannot read %s: %s\n", p.c_str(),
                   missing ? std::strerror(errno) : "not a regular file");
      return kExitUsage;
    }
  }
  absl::StatusOr<MemoryReport> report = LoadMemoryReport(path, module);
  if (!report.ok()) {
    PrintError(report.status());
    const absl::StatusCode code = report.status().code();
    return code == absl::StatusCode::kNotFound ||
                   code == absl::StatusCode::kInvalidArgument
               ? kExitNo
               : kExitUsage;
  }
  for (const hlo::ReadProblem& p : report->dump.problems) {
    std::fprintf(stderr, "%s:%u: warning: %s (skipped)\n",
                 TextPath(report->path).c_str(), p.line, p.message.c_str());
  }
  if (!report->note.empty()) {
    std::fprintf(stderr, "hlo-lsp: %s\n", report->note.c_str());
  }
  if (args->has("--json")) {
    PrintJson(*report);
  } else {
    PrintText(*report);
  }
  return kExitOk;
}

}  // namespace hlo_lsp::cli
