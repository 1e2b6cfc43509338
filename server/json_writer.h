// A JSON writer that appends text straight to a string: no DOM is built,
// so a reply of hundreds of items costs one pass over its bytes. Strings
// are escaped exactly as nlohmann's dump() with error_handler_t::replace
// escapes them (the rest of the protocol layer), invalid UTF-8 included.
// The caller nests Begin/End calls correctly; the writer adds the commas.
#ifndef HLO_LSP_SERVER_JSON_WRITER_H_
#define HLO_LSP_SERVER_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hlo_lsp {

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(out) {}

  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // An object's member name; the next value call writes its value.
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view s);
  JsonWriter& Uint(uint64_t v);
  JsonWriter& Int(int64_t v);
  JsonWriter& Bool(bool v);
  JsonWriter& Null();
  // Text that is already JSON (a request id's dump, say).
  JsonWriter& Raw(std::string_view json);

 private:
  void BeforeValue();

  std::string* out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace hlo_lsp

#endif  // HLO_LSP_SERVER_JSON_WRITER_H_
