#include "base/large_buffer.h"

#include <cstring>
#include <utility>

#include "gtest/gtest.h"

namespace hlo::base {
namespace {

TEST(LargeBufferTest, SmallAndLargeBuffersHoldTheirBytes) {
  for (size_t size : {size_t{0}, size_t{100}, LargeBuffer::kMapFrom - 1,
                      LargeBuffer::kMapFrom, LargeBuffer::kMapFrom * 3 + 5}) {
    LargeBuffer buffer = LargeBuffer::Allocate(size);
    ASSERT_NE(buffer.data(), nullptr) << size;
    EXPECT_EQ(buffer.size(), size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % 16, 0u);
    if (size == 0) continue;
    std::memset(buffer.data(), 'x', size);
    EXPECT_EQ(buffer.data()[size - 1], 'x');
  }
}

TEST(LargeBufferTest, MovesHandOverOwnership) {
  LargeBuffer a = LargeBuffer::Allocate(LargeBuffer::kMapFrom);
  char* bytes = a.data();
  bytes[0] = 'a';
  LargeBuffer b = std::move(a);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.data(), bytes);
  LargeBuffer c = LargeBuffer::Allocate(10);
  c = std::move(b);
  EXPECT_EQ(c.data()[0], 'a');
  EXPECT_EQ(c.size(), LargeBuffer::kMapFrom);
}

}  // namespace
}  // namespace hlo::base
