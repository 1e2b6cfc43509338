// wire::ReadField, the field reader behind the deferred decode's hollowing,
// the prescreen and the printer's index, and CalleesFirstOrder, the
// computation order the encoder and the printer share.
#include "hlo/proto/wire_reader.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/proto/callee_order.h"

namespace hlo::proto {
namespace {

using ::testing::ElementsAre;

std::vector<wire::Field> ReadAll(std::string_view bytes, bool* ok) {
  std::vector<wire::Field> fields;
  wire::Field field;
  size_t pos = 0;
  *ok = true;
  while (pos < bytes.size()) {
    if (!wire::ReadField(bytes, &pos, &field)) {
      *ok = false;
      break;
    }
    fields.push_back(field);
  }
  return fields;
}

TEST(WireReader, ReadsEachWireType) {
  // 1: varint 300; 2: "ab"; 3: fixed64; 4: fixed32.
  const std::string bytes(
      "\x08\xac\x02\x12\x02"
      "ab\x19\x01\x02\x03\x04\x05\x06\x07\x08"
      "\x25\x01\x02\x03\x04",
      21);
  bool ok = false;
  std::vector<wire::Field> fields = ReadAll(bytes, &ok);
  ASSERT_TRUE(ok);
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[0].number, 1u);
  EXPECT_EQ(fields[0].type, wire::kVarint);
  EXPECT_EQ(fields[0].value, 300u);
  EXPECT_EQ(fields[1].number, 2u);
  EXPECT_EQ(fields[1].type, wire::kLengthDelimited);
  EXPECT_EQ(fields[1].data, "ab");
  EXPECT_EQ(fields[2].type, wire::kFixed64);
  EXPECT_EQ(fields[2].data.size(), 8u);
  EXPECT_EQ(fields[3].type, wire::kFixed32);
  EXPECT_EQ(fields[3].data, std::string_view("\x01\x02\x03\x04", 4));
}

TEST(WireReader, RefusesWhatTheParserWouldJudge) {
  const std::vector<std::string> broken = {
      std::string("\x08", 1),      // varint missing
      std::string("\x08\x80", 2),  // varint truncated
      std::string("\x12\x05"
                  "ab",
                  4),                                  // length past the end
      std::string("\x19\x01\x02", 3),                  // fixed64 short
      std::string("\x00\x01", 2),                      // field number 0
      std::string("\x0b\x0c", 2),                      // a group
      std::string("\x0e\x01", 2),                      // wire type 6
      std::string("\x88\x80\x80\x80\x80\x00\x01", 7),  // 6-byte tag
      // an 11-byte varint
      std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12),
  };
  for (const std::string& bytes : broken) {
    bool ok = true;
    ReadAll(bytes, &ok);
    EXPECT_FALSE(ok) << testing::PrintToString(bytes);
  }
  // A non-canonical 5-byte tag is one protobuf reads too.
  bool ok = false;
  std::vector<wire::Field> fields =
      ReadAll(std::string("\x88\x80\x80\x80\x00\x07", 6), &ok);
  ASSERT_TRUE(ok);
  ASSERT_EQ(fields.size(), 1u);
  EXPECT_EQ(fields[0].number, 1u);
  EXPECT_EQ(fields[0].value, 7u);
}

std::vector<int> Order(const std::vector<std::vector<int>>& callees) {
  return internal::CalleesFirstOrder(
      static_cast<int>(callees.size()), [&](int k, std::vector<int>* out) {
        out->insert(out->end(), callees[k].begin(), callees[k].end());
      });
}

TEST(CalleesFirstOrder, KeepsAnOrderThatIsOne) {
  EXPECT_THAT(Order({{}, {0}, {0, 1}}), ElementsAre(0, 1, 2));
}

TEST(CalleesFirstOrder, MovesCalleesForwardInCallOrder) {
  // 0 calls 2 then 1; 1 calls 3.
  EXPECT_THAT(Order({{2, 1}, {3}, {}, {}}), ElementsAre(2, 3, 1, 0));
  // Repeats count once.
  EXPECT_THAT(Order({{1, 1, 1}, {}}), ElementsAre(1, 0));
}

TEST(CalleesFirstOrder, CutsACycleWhereItCloses) {
  EXPECT_THAT(Order({{1}, {2}, {0}}), ElementsAre(2, 1, 0));
  EXPECT_THAT(Order({{0}}), ElementsAre(0));
}

}  // namespace
}  // namespace hlo::proto
