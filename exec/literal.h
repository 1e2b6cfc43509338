// Dense arrays of every HLO element type, stored in logical row-major order
// whatever the layout (one storage element per array element; sub-byte types
// take a byte each), and tuples of them. Every allocation is counted against
// a process-wide memory limit and refused, with the number, before it is made.
#ifndef HLO_LSP_EXEC_LITERAL_H_
#define HLO_LSP_EXEC_LITERAL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/element.h"
#include "hlo/literal_text.h"
#include "hlo/primitive_type.h"

namespace hlo::exec {

// The process-wide allocation budget of the evaluator (bytes). Default: no
// limit. Thread-safe.
void SetMemoryLimit(int64_t bytes);
int64_t MemoryLimit();
int64_t MemoryInUse();
int64_t PeakMemoryInUse();

// Elements of `dims`, nullopt on overflow or a negative dim.
std::optional<int64_t> CheckedElementCount(const std::vector<int64_t>& dims);
// Bytes an array of this shape takes here (tuples: sum); nullopt on overflow.
std::optional<int64_t> StorageByteSize(const LiteralShape& shape);
std::string ShapeString(const LiteralShape& shape);

class Literal;
using Value = std::shared_ptr<const Literal>;

class Literal {
 public:
  Literal() = default;
  ~Literal();
  Literal(Literal&& other) noexcept;
  Literal& operator=(Literal&& other) noexcept;
  Literal(const Literal&) = delete;
  Literal& operator=(const Literal&) = delete;

  // A zero-filled array (or tuple of them); fails over the memory limit.
  static absl::StatusOr<Literal> Create(const LiteralShape& shape);
  static absl::StatusOr<Literal> CreateArray(PrimitiveType type,
                                             std::vector<int64_t> dims);
  // Like CreateArray, but the contents are unspecified: for results whose
  // every element the caller writes (skips zeroing large arrays).
  static absl::StatusOr<Literal> CreateArrayForOverwrite(
      PrimitiveType type, std::vector<int64_t> dims);
  static Literal MakeTuple(std::vector<Value> elements);
  // A scalar from a double (rounded/converted as Convert does).
  static Literal ScalarFromDouble(PrimitiveType type, double v);
  static Literal ScalarFromInt(PrimitiveType type, int64_t v);

  absl::StatusOr<Literal> Clone() const;

  PrimitiveType type() const { return type_; }
  bool is_tuple() const { return type_ == PrimitiveType::kTuple; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t count() const { return count_; }
  LiteralShape shape() const;

  template <typename S>
  S* data() {
    return reinterpret_cast<S*>(bytes_);
  }
  template <typename S>
  const S* data() const {
    return reinterpret_cast<const S*>(bytes_);
  }
  uint8_t* raw() { return bytes_; }
  const uint8_t* raw() const { return bytes_; }
  int64_t byte_size() const { return byte_size_; }
  int element_bytes() const { return element_bytes_; }

  // Tuple elements.
  const std::vector<Value>& elements() const { return elements_; }
  std::vector<Value>& mutable_elements() { return elements_; }

  // Slow generic access (indices, scalars, tests).
  double GetDouble(int64_t i) const;
  int64_t GetInt(int64_t i) const;  // floats truncate; unsigned as int64
  void SetDouble(int64_t i, double v);
  void SetInt(int64_t i, int64_t v);

  // The same data viewed with other dims (same element count).
  void Reshape(std::vector<int64_t> dims) {
    dims_ = std::move(dims);
    dynamic_sizes_.clear();
  }

  // Dynamic dimensions (set-dimension-size, dynamic-reshape): the data keeps
  // the bound dims and these are the logical size of each dim, as XLA's
  // Literal::GetDynamicSize. Empty when every dim is static.
  const std::vector<int64_t>& dynamic_sizes() const { return dynamic_sizes_; }
  void set_dynamic_sizes(std::vector<int64_t> sizes) {
    dynamic_sizes_ = std::move(sizes);
  }

  // "f32[2,2] {1, 2, 3, 4}", at most `max_elements` shown.
  std::string ToString(int64_t max_elements = 16) const;

 private:
  static absl::StatusOr<Literal> CreateArrayImpl(PrimitiveType type,
                                                 std::vector<int64_t> dims,
                                                 bool zero);
  void Release();
  PrimitiveType type_ = PrimitiveType::kInvalid;
  std::vector<int64_t> dims_;
  int64_t count_ = 0;
  int element_bytes_ = 0;
  int64_t byte_size_ = 0;
  uint8_t* bytes_ = nullptr;
  std::vector<Value> elements_;
  std::vector<int64_t> dynamic_sizes_;
};

// Element type conversion with XLA's rules (convert).
absl::StatusOr<Literal> ConvertLiteral(const Literal& in, PrimitiveType to);
// Reinterprets the bits (bitcast-convert); the byte sizes must agree.
absl::StatusOr<Literal> BitcastConvertLiteral(const Literal& in,
                                              const LiteralShape& to);
// Builds a literal from a decoded text literal (constant). Elided data
// gives zeros and `*elided` set.
absl::StatusOr<Literal> LiteralFromValue(const LiteralValue& value,
                                         const LiteralShape& shape,
                                         bool* elided);

}  // namespace hlo::exec

#endif  // HLO_LSP_EXEC_LITERAL_H_
