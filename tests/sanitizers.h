// Whether the test binary (and so build/hlo-lsp beside it) was built with
// AddressSanitizer: it reserves terabytes of address space, so tests that
// limit address space (ulimit -v, RLIMIT_AS) skip under it.
#ifndef HLO_LSP_TESTS_SANITIZERS_H_
#define HLO_LSP_TESTS_SANITIZERS_H_

namespace hlo_lsp::testing {

constexpr bool kUnderAddressSanitizer =
#if defined(__SANITIZE_ADDRESS__)
    true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

}  // namespace hlo_lsp::testing

#endif  // HLO_LSP_TESTS_SANITIZERS_H_
