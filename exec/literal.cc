#include "exec/literal.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "exec/strings.h"

namespace hlo::exec {
namespace {

std::atomic<int64_t> g_limit{INT64_MAX};
std::atomic<int64_t> g_in_use{0};
std::atomic<int64_t> g_peak{0};

std::string Bytes(int64_t n) {
  if (n >= (int64_t{1} << 30))
    return absl::StrFormat("%d bytes (%.1f GiB)", n, n / double(1 << 30));
  if (n >= (1 << 20))
    return absl::StrFormat("%d bytes (%.1f MiB)", n, n / double(1 << 20));
  return absl::StrFormat("%d bytes", n);
}

constexpr int kChunk = 1024;

}  // namespace

void SetMemoryLimit(int64_t bytes) { g_limit = bytes <= 0 ? INT64_MAX : bytes; }
int64_t MemoryLimit() { return g_limit; }
int64_t MemoryInUse() { return g_in_use; }
int64_t PeakMemoryInUse() { return g_peak; }

std::optional<int64_t> CheckedElementCount(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > INT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return n;
}

std::optional<int64_t> StorageByteSize(const LiteralShape& shape) {
  if (shape.is_tuple()) {
    int64_t total = 0;
    for (const LiteralShape& e : shape.tuple_elements) {
      auto b = StorageByteSize(e);
      if (!b || total > INT64_MAX - *b) return std::nullopt;
      total += *b;
    }
    return total;
  }
  auto n = CheckedElementCount(shape.dims);
  int eb = StorageBytes(shape.type);
  if (!n || (eb && *n > INT64_MAX / eb)) return std::nullopt;
  return *n * eb;
}

std::string ShapeString(const LiteralShape& shape) {
  if (shape.is_tuple()) {
    std::string s = "(";
    for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
      if (i) s += ", ";
      s += ShapeString(shape.tuple_elements[i]);
    }
    return s + ")";
  }
  std::string s(PrimitiveTypeName(shape.type));
  if (shape.type == PrimitiveType::kToken) return s;
  s += "[";
  for (size_t i = 0; i < shape.dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape.dims[i]);
  }
  return s + "]";
}

namespace {

// Arrays of 4 MiB and more are mapped directly, with transparent huge
// pages requested (where the kernel gives them, a fresh 64 MiB result takes
// 32 page faults, not 16384). Freed mappings are kept for reuse, up to
// kCacheBytes: a replay allocates the same shapes again and again, and a
// reused mapping needs neither faults nor the kernel's zeroing, which
// otherwise cost as much as an elementwise op itself.
constexpr int64_t kMapBytes = int64_t{4} << 20;
constexpr int64_t kCacheBytes = int64_t{512} << 20;

int64_t MapLength(int64_t bytes) {
  constexpr int64_t kPage = 4096;
  return (bytes + kPage - 1) / kPage * kPage;
}

struct MapCache {
  std::mutex mu;
  std::vector<std::pair<void*, int64_t>> blocks;  // oldest first
  int64_t bytes = 0;
};
MapCache& Cache() {
  static auto* cache = new MapCache;  // never destroyed: used at exit
  return *cache;
}

// A cached mapping of exactly `length` bytes, or nullptr. try_lock: a lock
// held by a thread that does not exist after fork() must not block.
void* TakeCached(int64_t length) {
  MapCache& c = Cache();
  std::unique_lock<std::mutex> lock(c.mu, std::try_to_lock);
  if (!lock.owns_lock()) return nullptr;
  for (size_t i = c.blocks.size(); i-- > 0;) {
    if (c.blocks[i].second == length) {
      void* p = c.blocks[i].first;
      c.blocks.erase(c.blocks.begin() + i);
      c.bytes -= length;
      return p;
    }
  }
  return nullptr;
}

void DropCache() {
  MapCache& c = Cache();
  std::unique_lock<std::mutex> lock(c.mu, std::try_to_lock);
  if (!lock.owns_lock()) return;
  for (auto& [p, length] : c.blocks) munmap(p, length);
  c.blocks.clear();
  c.bytes = 0;
}

void* Allocate(int64_t bytes, bool zero) {
  if (bytes >= kMapBytes) {
    const int64_t length = MapLength(bytes);
    if (void* p = TakeCached(length)) {
      if (zero) std::memset(p, 0, bytes);
      return p;
    }
    void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {  // perhaps the cache is what is in the way
      DropCache();
      p = mmap(nullptr, length, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) return nullptr;
    }
#ifdef MADV_HUGEPAGE
    madvise(p, length, MADV_HUGEPAGE);  // advice only; may be refused
#endif
    return p;  // fresh pages are zero
  }
  void* p = ::operator new (std::max<int64_t>(bytes, 1), std::align_val_t{64},
                            std::nothrow);
  if (p != nullptr && zero) std::memset(p, 0, bytes);
  return p;
}

void FreeBytes(void* p, int64_t bytes) {
  if (bytes < kMapBytes) {
    ::operator delete (p, std::align_val_t{64});
    return;
  }
  const int64_t length = MapLength(bytes);
  const int64_t cap = std::min(kCacheBytes, g_limit.load() / 8);
  MapCache& c = Cache();
  std::unique_lock<std::mutex> lock(c.mu, std::try_to_lock);
  if (!lock.owns_lock() || length > cap) {
    munmap(p, length);
    return;
  }
  while (c.bytes + length > cap && !c.blocks.empty()) {
    munmap(c.blocks.front().first, c.blocks.front().second);
    c.bytes -= c.blocks.front().second;
    c.blocks.erase(c.blocks.begin());
  }
  c.blocks.emplace_back(p, length);
  c.bytes += length;
}

}  // namespace

Literal::~Literal() { Release(); }

void Literal::Release() {
  if (bytes_) {
    FreeBytes(bytes_, byte_size_);
    g_in_use -= byte_size_;
    bytes_ = nullptr;
  }
}

Literal::Literal(Literal&& o) noexcept { *this = std::move(o); }

Literal& Literal::operator=(Literal&& o) noexcept {
  if (this == &o) return *this;
  Release();
  type_ = o.type_;
  dims_ = std::move(o.dims_);
  count_ = o.count_;
  element_bytes_ = o.element_bytes_;
  byte_size_ = o.byte_size_;
  bytes_ = o.bytes_;
  elements_ = std::move(o.elements_);
  dynamic_sizes_ = std::move(o.dynamic_sizes_);
  o.bytes_ = nullptr;
  o.byte_size_ = 0;
  o.count_ = 0;
  return *this;
}

absl::StatusOr<Literal> Literal::CreateArray(PrimitiveType type,
                                             std::vector<int64_t> dims) {
  return CreateArrayImpl(type, std::move(dims), /*zero=*/true);
}

absl::StatusOr<Literal> Literal::CreateArrayForOverwrite(
    PrimitiveType type, std::vector<int64_t> dims) {
  return CreateArrayImpl(type, std::move(dims), /*zero=*/false);
}

absl::StatusOr<Literal> Literal::CreateArrayImpl(PrimitiveType type,
                                                 std::vector<int64_t> dims,
                                                 bool zero) {
  Literal lit;
  lit.type_ = type;
  if (type == PrimitiveType::kToken) return lit;
  int eb = StorageBytes(type);
  if (eb == 0) {
    return absl::InvalidArgumentError(
        Cat("no array storage for type ", PrimitiveTypeName(type)));
  }
  auto n = CheckedElementCount(dims);
  if (!n || *n > INT64_MAX / eb) {
    return absl::ResourceExhaustedError(
        "array size overflows 64 bits: " +
        ShapeString(LiteralShape::Array(type, dims)));
  }
  int64_t bytes = *n * eb;
  int64_t now = g_in_use.fetch_add(bytes) + bytes;
  if (now > g_limit) {
    g_in_use -= bytes;
    return absl::ResourceExhaustedError(
        Cat(ShapeString(LiteralShape::Array(type, dims)), " needs ",
            Bytes(bytes), "; with ", Bytes(now - bytes),
            " in use that is over the memory limit of ", Bytes(g_limit)));
  }
  int64_t peak = g_peak;
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
  void* p = Allocate(bytes, zero);
  if (p == nullptr) {
    g_in_use -= bytes;
    return absl::ResourceExhaustedError("out of memory allocating " +
                                        Bytes(bytes));
  }
  lit.bytes_ = static_cast<uint8_t*>(p);
  lit.byte_size_ = bytes;
  lit.count_ = *n;
  lit.element_bytes_ = eb;
  lit.dims_ = std::move(dims);
  return lit;
}

absl::StatusOr<Literal> Literal::Create(const LiteralShape& shape) {
  if (shape.is_tuple()) {
    std::vector<Value> elements;
    for (const LiteralShape& e : shape.tuple_elements) {
      auto lit = Create(e);
      if (!lit.ok()) return lit.status();
      elements.push_back(std::make_shared<Literal>(*std::move(lit)));
    }
    return MakeTuple(std::move(elements));
  }
  return CreateArray(shape.type, shape.dims);
}

Literal Literal::MakeTuple(std::vector<Value> elements) {
  Literal lit;
  lit.type_ = PrimitiveType::kTuple;
  lit.elements_ = std::move(elements);
  return lit;
}

Literal Literal::ScalarFromDouble(PrimitiveType type, double v) {
  auto lit = CreateArray(type, {});
  if (!lit.ok()) return Literal();
  lit->SetDouble(0, v);
  return *std::move(lit);
}

Literal Literal::ScalarFromInt(PrimitiveType type, int64_t v) {
  auto lit = CreateArray(type, {});
  if (!lit.ok()) return Literal();
  lit->SetInt(0, v);
  return *std::move(lit);
}

absl::StatusOr<Literal> Literal::Clone() const {
  if (is_tuple()) return MakeTuple(elements_);
  auto lit = CreateArray(type_, dims_);
  if (!lit.ok()) return lit;
  if (byte_size_) std::memcpy(lit->raw(), bytes_, byte_size_);
  lit->dynamic_sizes_ = dynamic_sizes_;
  return lit;
}

LiteralShape Literal::shape() const {
  if (is_tuple()) {
    std::vector<LiteralShape> es;
    for (const Value& e : elements_) es.push_back(e->shape());
    return LiteralShape::Tuple(std::move(es));
  }
  return LiteralShape::Array(type_, dims_);
}

double Literal::GetDouble(int64_t i) const {
  double out = 0;
  VisitType(type_, [&]<typename T>() {
    auto c = T::Load(data<typename T::S>()[i]);
    if constexpr (T::kKind == Kind::kComplex) {
      out = static_cast<double>(c.real());
    } else {
      out = static_cast<double>(c);
    }
  });
  return out;
}

int64_t Literal::GetInt(int64_t i) const {
  int64_t out = 0;
  VisitType(type_, [&]<typename T>() {
    auto c = T::Load(data<typename T::S>()[i]);
    if constexpr (T::kKind == Kind::kComplex) {
      out = SaturatingFloatToInt<int64_t>(static_cast<double>(c.real()));
    } else if constexpr (T::kKind == Kind::kFloat) {
      out = SaturatingFloatToInt<int64_t>(static_cast<double>(c));
    } else {
      out = static_cast<int64_t>(c);
    }
  });
  return out;
}

void Literal::SetDouble(int64_t i, double v) {
  VisitType(type_, [&]<typename T>() {
    using C = typename T::C;
    auto* d = data<typename T::S>();
    if constexpr (T::kKind == Kind::kComplex) {
      d[i] = C(static_cast<typename C::value_type>(v), 0);
    } else if constexpr (T::kKind == Kind::kFloat) {
      d[i] = T::Store(static_cast<C>(v));
    } else if constexpr (T::kKind == Kind::kPred) {
      d[i] = T::Store(v != 0);
    } else {
      d[i] = T::Store(SaturatingFloatToInt<C>(v));
    }
  });
}

void Literal::SetInt(int64_t i, int64_t v) {
  VisitType(type_, [&]<typename T>() {
    using C = typename T::C;
    auto* d = data<typename T::S>();
    if constexpr (T::kKind == Kind::kComplex) {
      d[i] = C(static_cast<typename C::value_type>(v), 0);
    } else if constexpr (T::kKind == Kind::kPred) {
      d[i] = T::Store(v != 0);
    } else {
      d[i] = T::Store(static_cast<C>(v));
    }
  });
}

std::string Literal::ToString(int64_t max_elements) const {
  if (is_tuple()) {
    std::string s = "(";
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i) s += ", ";
      s += elements_[i]->ToString(max_elements);
    }
    return s + ")";
  }
  std::string s = ShapeString(shape());
  if (type_ == PrimitiveType::kToken) return s;
  s += " {";
  int64_t n = std::min(count_, max_elements);
  for (int64_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    if (IsComplex(type_)) {
      // As XLA prints them: "(re, im)".
      const std::complex<double> c =
          type_ == PrimitiveType::kC64
              ? std::complex<double>(data<std::complex<float>>()[i])
              : data<std::complex<double>>()[i];
      absl::StrAppendFormat(&s, "(%g, %g)", c.real(), c.imag());
    } else if (IsFloatingPoint(type_)) {
      const double v = GetDouble(i);
      if (std::isnan(v)) {
        s += "nan";
      } else {
        absl::StrAppendFormat(&s, "%g", v);
      }
    } else if (type_ == PrimitiveType::kPred) {
      s += GetInt(i) ? "true" : "false";
    } else if (type_ == PrimitiveType::kU64) {
      absl::StrAppend(&s, static_cast<uint64_t>(GetInt(i)));
    } else {
      absl::StrAppend(&s, GetInt(i));
    }
  }
  if (count_ > n) s += ", ...";
  return s + "}";
}

// ------------------------------------------------------------- convert --

namespace {

// Intermediate values: one of these per source kind.
struct Wide {
  double f[kChunk];
  int64_t s[kChunk];
  uint64_t u[kChunk];
  std::complex<double> c[kChunk];
};

template <typename To>
typename To::S FromDouble(double v) {
  using C = typename To::C;
  if constexpr (To::kKind == Kind::kPred) return To::Store(v != 0);
  if constexpr (To::kKind == Kind::kFloat) return To::Store(static_cast<C>(v));
  if constexpr (To::kKind == Kind::kComplex)
    return C(static_cast<typename C::value_type>(v), 0);
  if constexpr (To::kKind == Kind::kSigned || To::kKind == Kind::kUnsigned) {
    if constexpr (To::kBits < 8) {
      if (std::isnan(v)) return 0;
      double lo = To::Min(), hi = To::Max();
      return static_cast<typename To::S>(v <= lo ? lo : v >= hi ? hi : v);
    } else {
      return SaturatingFloatToInt<C>(v);
    }
  }
  return {};
}

template <typename To, typename I>
typename To::S FromInt(I v) {
  using C = typename To::C;
  if constexpr (To::kKind == Kind::kPred) return To::Store(v != 0);
  if constexpr (To::kKind == Kind::kFloat) return To::Store(static_cast<C>(v));
  if constexpr (To::kKind == Kind::kComplex)
    return C(static_cast<typename C::value_type>(v), 0);
  if constexpr (To::kKind == Kind::kSigned || To::kKind == Kind::kUnsigned)
    return To::Store(static_cast<C>(v));
  return {};
}

}  // namespace

absl::StatusOr<Literal> ConvertLiteral(const Literal& in, PrimitiveType to) {
  if (in.is_tuple()) return absl::InvalidArgumentError("convert of a tuple");
  auto out = Literal::CreateArray(to, in.dims());
  if (!out.ok()) return out;
  if (in.type() == to) {
    std::memcpy(out->raw(), in.raw(), in.byte_size());
    return out;
  }
  auto wide = std::make_unique<Wide>();
  Kind src_kind = Kind::kOther;
  for (int64_t base = 0; base < in.count(); base += kChunk) {
    const int64_t n = std::min<int64_t>(kChunk, in.count() - base);
    VisitType(in.type(), [&]<typename T>() {
      src_kind = T::kKind;
      const auto* src = in.data<typename T::S>() + base;
      for (int64_t i = 0; i < n; ++i) {
        auto c = T::Load(src[i]);
        if constexpr (T::kKind == Kind::kFloat) wide->f[i] = c;
        if constexpr (T::kKind == Kind::kSigned) wide->s[i] = c;
        if constexpr (T::kKind == Kind::kUnsigned) wide->u[i] = c;
        if constexpr (T::kKind == Kind::kPred) wide->u[i] = c ? 1 : 0;
        if constexpr (T::kKind == Kind::kComplex)
          wide->c[i] = std::complex<double>(c.real(), c.imag());
      }
    });
    VisitType(to, [&]<typename To>() {
      auto* dst = out->data<typename To::S>() + base;
      switch (src_kind) {
        case Kind::kFloat:
          for (int64_t i = 0; i < n; ++i) dst[i] = FromDouble<To>(wide->f[i]);
          break;
        case Kind::kSigned:
          for (int64_t i = 0; i < n; ++i) dst[i] = FromInt<To>(wide->s[i]);
          break;
        case Kind::kPred:
        case Kind::kUnsigned:
          for (int64_t i = 0; i < n; ++i) dst[i] = FromInt<To>(wide->u[i]);
          break;
        case Kind::kComplex:
          for (int64_t i = 0; i < n; ++i) {
            if constexpr (To::kKind == Kind::kComplex) {
              using V = typename To::C::value_type;
              dst[i] = typename To::C(static_cast<V>(wide->c[i].real()),
                                      static_cast<V>(wide->c[i].imag()));
            } else {
              dst[i] = FromDouble<To>(wide->c[i].real());
            }
          }
          break;
        default:
          break;
      }
    });
  }
  return out;
}

absl::StatusOr<Literal> BitcastConvertLiteral(const Literal& in,
                                              const LiteralShape& to) {
  if (in.is_tuple() || to.is_tuple())
    return absl::InvalidArgumentError("bitcast-convert of a tuple");
  int in_bits = PrimitiveTypeBitWidth(in.type());
  int out_bits = PrimitiveTypeBitWidth(to.type);
  if (in_bits < 8 || out_bits < 8) {
    if (in_bits != out_bits)
      return absl::UnimplementedError(
          "bitcast-convert between sub-byte types of different widths");
  }
  auto out = Literal::Create(to);
  if (!out.ok()) return out;
  if (out->byte_size() != in.byte_size())
    return absl::InvalidArgumentError(
        Cat("bitcast-convert changes the byte size: ", ShapeString(in.shape()),
            " to ", ShapeString(to)));
  std::memcpy(out->raw(), in.raw(), in.byte_size());
  if (in_bits < 8) {  // storage is sign-extended for signed types: re-wrap
    VisitType(to.type, [&]<typename T>() {
      auto* d = out->data<typename T::S>();
      for (int64_t i = 0; i < out->count(); ++i)
        d[i] = T::Store(static_cast<typename T::C>(d[i]));
    });
  }
  return out;
}

absl::StatusOr<Literal> LiteralFromValue(const LiteralValue& value,
                                         const LiteralShape& shape,
                                         bool* elided) {
  if (shape.is_tuple()) {
    std::vector<Value> elements;
    for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
      if (i >= value.tuple_elements.size() && !value.elided)
        return absl::InvalidArgumentError(
            "tuple constant has too few elements");
      static const LiteralValue kElided = [] {
        LiteralValue v;
        v.elided = true;
        return v;
      }();
      const LiteralValue& ev = value.elided && i >= value.tuple_elements.size()
                                   ? kElided
                                   : value.tuple_elements[i];
      auto e = LiteralFromValue(ev, shape.tuple_elements[i], elided);
      if (!e.ok()) return e.status();
      elements.push_back(std::make_shared<Literal>(*std::move(e)));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  auto lit = Literal::Create(shape);
  if (!lit.ok()) return lit;
  if (value.elided) {
    if (elided) *elided = true;
    return lit;
  }
  const int64_t n = lit->count();
  const int64_t stored = static_cast<int64_t>(value.stored_elements());
  if (stored == 0 && n == 0) return lit;
  if (stored != n && !(value.splat || stored == 1)) {
    return absl::InvalidArgumentError(
        Cat("constant has ", stored, " elements, shape needs ", n));
  }
  VisitType(shape.type, [&]<typename T>() {
    auto* d = lit->data<typename T::S>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t j = stored == 1 ? 0 : i;
      if (!value.floats.empty()) {
        d[i] = FromDouble<T>(value.floats[j]);
      } else if (!value.ints.empty()) {
        d[i] = FromInt<T>(value.ints[j]);
      } else if (!value.uints.empty()) {
        d[i] = FromInt<T>(value.uints[j]);
      } else if (!value.preds.empty()) {
        d[i] = FromInt<T>(static_cast<int64_t>(value.preds[j]));
      } else if (!value.complexes.empty()) {
        if constexpr (T::kKind == Kind::kComplex) {
          using V = typename T::C::value_type;
          d[i] = typename T::C(static_cast<V>(value.complexes[j].real()),
                               static_cast<V>(value.complexes[j].imag()));
        } else {
          d[i] = FromDouble<T>(value.complexes[j].real());
        }
      }
    }
  });
  return lit;
}

}  // namespace hlo::exec
