// Shared by the fused-kernel generator's parts: the element types as the
// generated CUDA stores and computes them, the per-element expressions of
// the elementwise ops (fused_codegen_ops.cc), and the elemental walk over
// indices (Generator: fused_codegen.cc walks the nodes and maps the
// indices of data movement; fused_codegen_index.cc holds the index
// arithmetic and the ops that branch: concatenate, pad, dynamic-slice,
// dynamic-update-slice).
#ifndef HLO_LSP_EXEC_GPU_FUSED_CODEGEN_INTERNAL_H_
#define HLO_LSP_EXEC_GPU_FUSED_CODEGEN_INTERNAL_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/evaluator_internal.h"
#include "exec/strings.h"

namespace hlo::exec::gpu::fused {

enum class K { kPred, kSigned, kUnsigned, kFloat };

// How a type is stored (s: each value's variable) and computed with (c).
struct Ty {
  K kind;
  const char* s;      // storage type in the prelude's names
  const char* c;      // compute type
  const char* u;      // unsigned twin (integers)
  const char* load;   // storage -> compute function ("" for none)
  const char* store;  // compute -> storage function
};

std::optional<Ty> TypeOf(PrimitiveType t);

// Unimplemented: "no fused kernel for <op>: <why>".
absl::Status Decline(const Node& node, std::string_view why);

// One element of a node, held in a variable (or literal) of its storage
// type.
struct Val {
  std::string var;
  PrimitiveType type;
  Ty ty;
};

// The value in its compute type.
std::string Load(const Val& v);
// A compute-type expression stored as `t`.
std::string Store(const Ty& t, const std::string& e);

// The storage-type expression of the elementwise `node` (unary, binary,
// compare, select, clamp, convert, is-finite, real/imag) on one element of
// each operand.
absl::StatusOr<std::string> ElementwiseExpr(const Node& node,
                                            const std::vector<Val>& in);
// A scalar constant's bits as a storage-type expression.
absl::StatusOr<std::string> ConstantExpr(const Node& node);
// iota's element at `coordinate` (an s64 expression), as the CPU converts.
std::string IotaExpr(const Ty& t, const std::string& coordinate);

using Dims = std::vector<int64_t>;
// Per dimension: an integer literal or a variable (an s64 atom).
using Index = std::vector<std::string>;

// The expansion limits (see fused_codegen.h): values defined per kernel,
// and nodes on one path from the root (the walk's recursion).
inline constexpr int kMaxValues = 4096;
inline constexpr int kMaxNesting = 512;

// Index arithmetic on atoms (fused_codegen_index.cc): the literal's value;
// a * k + c and a + sign * b, folded where the atoms are literals.
std::optional<int64_t> IntOf(const std::string& a);
std::string Affine(const std::string& a, int64_t k, int64_t c);
std::string Plus(const std::string& a, const std::string& b, int sign);
bool IsPermutation(const Dims& p, size_t rank);

// The elemental emitter of one fused computation (fused_codegen.h).
class Generator {
 public:
  Generator(const Plan& plan, std::string_view name, bool wide_index)
      : plan_(plan), name_(name), wide_index_(wide_index) {}

  // The kernel's text (after the prelude), its element count, parameter
  // and result counts; or Unimplemented naming what is not taken.
  struct Kernel {
    std::string text;
    int64_t elements = 0;
    int parameters = 0, results = 0;
  };
  absl::StatusOr<Kernel> Run();

 private:
  bool Narrow() const;
  absl::StatusOr<Val> At(int i, Index index);
  absl::StatusOr<Val> Compute(int i, const Index& index);
  absl::StatusOr<Val> Elementwise(const Node& node, const Ty& t,
                                  const Index& index);
  absl::StatusOr<Val> Concatenate(const Node& node, const Ty& t,
                                  const Index& index);
  absl::StatusOr<Val> Pad(const Node& node, const Ty& t, const Index& index);
  absl::StatusOr<Val> DynamicSlice(const Node& node, const Index& index,
                                   bool update);
  absl::StatusOr<std::vector<std::string>> Starts(const Node& node,
                                                  size_t first,
                                                  const Dims& dims,
                                                  const Dims& sizes);

  // An s64 atom holding `expr` (a literal stays one).
  std::string Idx(const std::string& expr);
  // `index` over `to` (a node's dims) as the index over `from` with the
  // same row-major linear position (reshape; equal element counts > 0).
  Index Relinearize(const Index& index, const Dims& to, const Dims& from);
  std::string Linear(const Index& index, const Dims& dims) {
    return Relinearize(index, dims, {Count(dims)})[0];
  }
  static int64_t Count(const Dims& dims) {
    return CheckedElementCount(dims).value_or(-1);
  }

  void Line(const std::string& s) {
    *out_ += std::string((in_pre_ ? 2 : 4) + 2 * depth_, ' ') + s + "\n";
  }
  Val Define(const Node& node, const Ty& t, const std::string& expr) {
    Val v{Cat("v", next_var_++), node.shape.type, t};
    Line(Cat("const ", t.s, " ", v.var, " = ", expr, ";"));
    ++values_;
    return v;
  }
  // A variable assigned in branches.
  Val Declare(const Node& node, const Ty& t) {
    Val v{Cat("v", next_var_++), node.shape.type, t};
    Line(Cat(t.s, " ", v.var, ";"));
    return v;
  }
  std::optional<Val> Find(const std::string& key) const {
    auto it = memo_.find(Cat("P", key));
    if (it == memo_.end() && !in_pre_) it = memo_.find(Cat("L", key));
    if (it == memo_.end()) return std::nullopt;
    return it->second;
  }
  void Remember(const std::string& key, const Val& v) {
    const std::string k = Cat(in_pre_ ? "P" : "L", key);
    memo_[k] = v;
    if (depth_ > 0) log_.push_back(k);
  }
  // Runs `f` emitting before the loop (values of one element: computed
  // once per thread, and remembered for the whole kernel).
  template <class F>
  auto BeforeTheLoop(F f) {
    std::string* out = out_;
    const int depth = depth_;
    const bool in_pre = in_pre_;
    out_ = &pre_;
    in_pre_ = true;
    depth_ = 0;
    auto r = f();
    out_ = out;
    in_pre_ = in_pre;
    depth_ = depth;
    return r;
  }
  void Open(const std::string& cond) {
    Line(Cat("if (", cond, ") {"));
    marks_.push_back(log_.size());
    ++depth_;
  }
  void Next(const std::string& cond) {  // "": the last branch
    Unwind();
    --depth_;
    Line(cond.empty() ? "} else {" : Cat("} else if (", cond, ") {"));
    ++depth_;
  }
  void Close() {
    Unwind();
    marks_.pop_back();
    --depth_;
    Line("}");
  }
  void Unwind() {
    while (log_.size() > marks_.back()) {
      memo_.erase(log_.back());
      log_.pop_back();
    }
  }

  const Plan& plan_;
  std::string name_;
  bool wide_index_;
  std::string pre_, body_;  // before the loop; in it
  std::string* out_ = &body_;
  bool in_pre_ = false;
  int depth_ = 0;  // open branches in the current part
  std::map<std::string, Val> memo_;
  std::vector<std::string> log_;  // memo keys defined inside branches
  std::vector<size_t> marks_;
  int next_var_ = 0, values_ = 0, nesting_ = 0;
  // Index arithmetic in 32 bits when every position fits (cheaper on the
  // device than 64-bit division), else 64.
  const char* index_type_ = "s64";
};

}  // namespace hlo::exec::gpu::fused

#endif  // HLO_LSP_EXEC_GPU_FUSED_CODEGEN_INTERNAL_H_
