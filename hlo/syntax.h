// The syntax model of an HLO text file: flat tables of modules,
// computations, instructions, operands, attributes, computation references
// and shapes, each entry carrying exact byte spans into the source buffer.
//
// Design: nodes hold Spans and Ids, never strings, so a 100 MB module parses
// into a handful of large vectors (no per-token heap allocation). The buffer
// itself is owned by the caller and must outlive the ParsedFile; text is read
// back with ParsedFile::Text(span).
#ifndef HLO_LSP_HLO_SYNTAX_H_
#define HLO_LSP_HLO_SYNTAX_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/line_index.h"
#include "hlo/opcode.h"
#include "hlo/primitive_type.h"
#include "hlo/span.h"

namespace hlo {

// ---------------------------------------------------------------- shapes --

struct Tile {
  Slice dims;  // into ParsedFile::ints; kTileCombineDim marks '*'
};
inline constexpr int64_t kTileCombineDim = -2;
inline constexpr int64_t kUnboundedDim = -1;  // '?'

struct Layout {
  Span span;                                           // '{' ... '}'
  Slice minor_to_major;                                // into ints
  Slice tiles;                                         // into ParsedFile::tiles
  int64_t element_size_in_bits = 0;                    // E(n)
  int64_t memory_space = 0;                            // S(n)
  int64_t tail_padding_alignment = 0;                  // L(n)
  int64_t dynamic_metadata_prefix_bytes = 0;           // M(n)
  PrimitiveType index_type = PrimitiveType::kInvalid;  // #(t)
  PrimitiveType pointer_type = PrimitiveType::kInvalid;  // *(t)
  Span extras;  // raw text of D(..)/SC(..)/P(..) items, kept verbatim
};

struct Shape {
  Span span;
  PrimitiveType element_type = PrimitiveType::kInvalid;  // kTuple for (...)
  Slice dims;         // into ints; kUnboundedDim for '?'
  Slice dynamic;      // into ints, 0/1 per dim; empty when every dim is static
  Slice tuple;        // into ParsedFile::shape_ids (element shapes)
  Id layout = kNone;  // into ParsedFile::layouts
  bool is_tuple() const { return element_type == PrimitiveType::kTuple; }
};

// --------------------------------------------------------------- modules --

struct Attribute {
  Span span;   // key through end of value
  Span key;    // e.g. "to_apply" (without '=')
  Span value;  // raw value text, braces and quotes included
};

// A name inside an attribute that refers to a computation (to_apply=%add,
// branch_computations={%a, %b}, calls=..., ...).
struct ComputationRef {
  Span name;               // the name without '%'
  Id instruction = kNone;  // the instruction carrying the attribute
  Id attribute = kNone;    // index into ParsedFile::attributes
  Id computation = kNone;  // resolved target, kNone when undefined
};

struct Operand {
  Span span;              // shape (if any) through name or nested op
  Span name;              // name without '%'; empty for a nested op
  Id shape = kNone;       // inline shape written before the name
  Id definition = kNone;  // defining instruction, kNone when undefined
  Id nested = kNone;      // nested instruction for `add(f32[] mul(a,b), c)`

  // The instruction whose value this is: the definition, else the nested
  // one; kNone when neither.
  Id Producer() const { return definition != kNone ? definition : nested; }
};

// A name reference in control-predecessors={...}.
struct NameRef {
  Span name;
  Id definition = kNone;
};

struct Instruction {
  Span span;         // from ROOT/name through the last attribute
  Span name;         // without '%'; empty for a nested (anonymous) op
  Span opcode_span;  // as written, e.g. "custom-call-start"
  Opcode opcode = Opcode::kUnknown;
  // For sugared async ops (`fusion-start`, `custom-call-done`...), the wrapped
  // opcode; opcode is then kAsyncStart/kAsyncUpdate/kAsyncDone.
  Opcode wrapped_opcode = Opcode::kUnknown;
  Id shape = kNone;  // result shape; kNone when omitted in hand-written text
  Id computation = kNone;
  Span operand_list;           // '(' ... ')'
  Slice operands;              // into ParsedFile::operands
  Slice attributes;            // into ParsedFile::attributes
  Slice called;                // into ParsedFile::computation_refs
  Slice control_predecessors;  // into ParsedFile::name_refs
  bool is_root = false;        // written with ROOT or chosen as the root
  bool is_nested = false;      // an anonymous operand instruction
};

struct Parameter {  // one entry of a computation signature
  Span name;
  Id shape = kNone;
};

struct Computation {
  Span span;  // ENTRY/name through the closing '}' (and execution_thread)
  Span name;  // without '%'
  Id module = kNone;
  bool is_entry = false;
  Slice parameters;         // signature, into ParsedFile::parameters
  Id result_shape = kNone;  // signature result
  Span body;                // '{' ... '}'
  Slice instructions;  // into ParsedFile::instructions (nested ops included)
  Id root = kNone;
  Span execution_thread;  // string value, quotes included; empty = main
};

// JAX >= 0.9 stack-frame tables in the module header.
struct FileLocation {
  int64_t file_name_id = 0;
  int64_t function_name_id = 0;
  int64_t line = 0;
  int64_t end_line = 0;
  int64_t column = 0;
  int64_t end_column = 0;
};
struct StackFrame {
  int64_t file_location_id = 0;
  int64_t parent_frame_id = 0;  // as written (1-based; 0 = none)
};
struct StackFrameTables {
  std::vector<Span> file_names;      // string tokens, quotes included
  std::vector<Span> function_names;  // string tokens, quotes included
  std::vector<FileLocation> file_locations;
  std::vector<StackFrame> stack_frames;
  bool empty() const {
    return file_names.empty() && function_names.empty() &&
           file_locations.empty() && stack_frames.empty();
  }
};

struct Module {
  Span span;
  Span name;  // empty for a header-less module
  bool has_header = false;
  Slice header_attributes;  // into ParsedFile::attributes
  Slice computations;       // into ParsedFile::computations
  Id entry = kNone;
  StackFrameTables stack_frames;
};

// ----------------------------------------------------------- diagnostics --

enum class Severity : uint8_t { kError, kWarning };

// Another place a finding is about (the start of an unpaired done, the
// parameter a call site disagrees with, the first definition of a name):
// LSP's relatedInformation.
struct RelatedSpan {
  Span span;
  std::string message;
};

struct Diagnostic {
  Span span;
  Severity severity = Severity::kError;
  std::string message;
  std::vector<RelatedSpan> related;  // usually empty: no allocation
};

// -------------------------------------------------------------- the file --

class ParsedFile {
 public:
  explicit ParsedFile(std::string_view text) : text_(text), lines_(text) {}

  std::string_view text() const { return text_; }
  std::string_view Text(Span span) const {
    return text_.substr(span.begin, span.end - span.begin);
  }
  // Built at the first call (thread-safe): `check` of a clean file never
  // needs one.
  const LineIndex& lines() const { return lines_.Get(); }

  // Node tables. Ids index into these.
  std::vector<Module> modules;
  std::vector<Computation> computations;
  std::vector<Instruction> instructions;
  std::vector<Operand> operands;
  std::vector<Attribute> attributes;
  std::vector<ComputationRef> computation_refs;
  std::vector<NameRef> name_refs;
  std::vector<Parameter> parameters;
  std::vector<Shape> shapes;
  std::vector<Layout> layouts;
  std::vector<Tile> tiles;
  std::vector<Id> shape_ids;  // tuple element lists
  std::vector<int64_t> ints;  // dims, minor_to_major, tile dims

  std::vector<Diagnostic> diagnostics;
  bool diagnostics_truncated = false;  // past the cap, more were dropped

  // Reverse edges, built once at the end of parsing so that "users of" and
  // "callers of" never scan a 700,000-instruction computation:
  // use_edges[use_offsets[i] .. use_offsets[i + 1]) are the operands that
  // name instruction i (text order), and caller_refs[caller_offsets[c] ..
  // caller_offsets[c + 1]) the computation_refs that target computation c.
  struct UseEdge {
    Id user = kNone;     // the instruction holding the operand
    Id operand = kNone;  // into operands
  };
  std::vector<Id> use_offsets;
  std::vector<UseEdge> use_edges;
  std::vector<Id> caller_offsets;
  std::vector<Id> caller_refs;

  // Convenience accessors.
  std::string_view Name(const Instruction& i) const { return Text(i.name); }
  std::string_view Name(const Computation& c) const { return Text(c.name); }
  std::string_view Name(const Module& m) const { return Text(m.name); }
  const int64_t* Ints(Slice s) const { return ints.data() + s.begin; }
  // Attribute value by key on an instruction; empty span when absent.
  const Attribute* FindAttribute(const Instruction& i,
                                 std::string_view key) const;
  bool HasErrors() const;
  // Fills use_offsets/use_edges/caller_offsets/caller_refs (the parser calls
  // it; call it again after editing the tables by hand).
  void BuildReverseEdges();

  // Bytes of heap memory held by the tables (for the memory benchmark).
  size_t MemoryUsage() const;

 private:
  // A LineIndex made once, on first use, by whichever thread asks first.
  // A copy or assignment starts without one (it is rebuilt on demand).
  class LazyLineIndex {
   public:
    explicit LazyLineIndex(std::string_view text) : text_(text) {}
    LazyLineIndex(const LazyLineIndex& other) : text_(other.text_) {}
    LazyLineIndex& operator=(const LazyLineIndex& other) {
      text_ = other.text_;
      built_.store(nullptr, std::memory_order_relaxed);
      index_.reset();
      return *this;
    }
    const LineIndex& Get() const {
      if (const LineIndex* built = built_.load(std::memory_order_acquire)) {
        return *built;
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (index_ == nullptr) {
        index_ = std::make_unique<LineIndex>(text_);
        built_.store(index_.get(), std::memory_order_release);
      }
      return *index_;
    }

   private:
    std::string_view text_;
    mutable std::mutex mutex_;
    mutable std::unique_ptr<LineIndex> index_;
    mutable std::atomic<const LineIndex*> built_{nullptr};
  };

  std::string_view text_;
  LazyLineIndex lines_;
};

}  // namespace hlo

#endif  // HLO_LSP_HLO_SYNTAX_H_
