// Typed views of instruction attributes, decoded from their raw text. The
// parser keeps every attribute as raw spans; this layer turns the values the
// evaluator, the printer and the proto encoder need into typed structs, and
// lets the parser check known attributes while parsing.
#ifndef HLO_LSP_HLO_ATTRIBUTES_H_
#define HLO_LSP_HLO_ATTRIBUTES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hlo {

// An error inside an attribute value; offset/length are relative to the
// start of the value text.
struct AttributeError {
  uint32_t offset = 0;
  uint32_t length = 0;
  std::string message;
};

// Checks the value of a known attribute key. nullopt when the value is well
// formed or the key is not one this layer knows. Must not allocate on the
// success path of common keys (it runs for every attribute of a 100 MB file).
std::optional<AttributeError> ValidateAttributeValue(std::string_view key,
                                                     std::string_view value);

}  // namespace hlo

#endif  // HLO_LSP_HLO_ATTRIBUTES_H_
