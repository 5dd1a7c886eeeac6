#include "common/byte_buffer.h"

#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace netbench {
namespace {

TEST(ByteBufferTest, AppendsAndConsumesInOrder) {
  ByteBuffer buffer;
  buffer.Append("hello, ");
  buffer.Append("world");
  EXPECT_EQ(buffer.view(), "hello, world");
  buffer.Consume(7);
  EXPECT_EQ(buffer.view(), "world");
  buffer.Consume(5);
  EXPECT_TRUE(buffer.empty());
}

TEST(ByteBufferTest, SteadyStateReusesItsStorage) {
  ByteBuffer buffer;
  char* first = buffer.WritableSpace(ByteBuffer::kSmallCapacity);
  for (int i = 0; i < 100; ++i) {
    char* space = buffer.WritableSpace(ByteBuffer::kSmallCapacity);
    EXPECT_EQ(space, first);
    buffer.CommitWrite(1000);
    buffer.Consume(1000);
  }
  EXPECT_EQ(buffer.capacity(), ByteBuffer::kSmallCapacity);
}

// A burst grows the buffer far past a read's size; once it drains, the buffer holds no more than a
// steady-state one, so idle connections do not keep their peak.
TEST(ByteBufferTest, DrainingGivesBackWhatABurstGrew) {
  ByteBuffer buffer;
  const std::string chunk(1000, 'b');
  while (buffer.size() < (1 << 20)) buffer.Append(chunk);
  EXPECT_GE(buffer.capacity(), size_t{1} << 20);
  // Partly consumed, the bytes left are intact and the storage is kept.
  buffer.Consume(buffer.size() - 1500);
  EXPECT_GE(buffer.capacity(), size_t{1} << 20);
  EXPECT_EQ(buffer.view(), std::string(1500, 'b'));
  buffer.Consume(1500);
  EXPECT_LE(buffer.capacity(), ByteBuffer::kSmallCapacity);
  // And it grows again for the next burst.
  buffer.Append(std::string(300000, 'c'));
  EXPECT_EQ(buffer.view(), std::string(300000, 'c'));
}

TEST(ByteBufferTest, ClearKeepsTheStorageForARefill) {
  ByteBuffer buffer;
  buffer.Append(std::string(200000, 'x'));
  const size_t capacity = buffer.capacity();
  buffer.Clear();
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.capacity(), capacity);
}

TEST(ByteBufferTest, ShrinkToKeepsTheBytes) {
  ByteBuffer buffer;
  buffer.Append(std::string(500000, 'x'));
  buffer.Consume(499000);
  buffer.ShrinkTo(4096);
  EXPECT_EQ(buffer.capacity(), 4096u);
  EXPECT_EQ(buffer.view(), std::string(1000, 'x'));
  buffer.ShrinkTo(100);  // the bytes would not fit: nothing changes
  EXPECT_EQ(buffer.capacity(), 4096u);
}

TEST(ByteBufferTest, MovesTakeTheStorage) {
  ByteBuffer a;
  a.Append(std::string(100000, 'm'));
  ByteBuffer b(std::move(a));
  EXPECT_EQ(b.view(), std::string(100000, 'm'));
  ByteBuffer c;
  c.Append("small");
  c = std::move(b);
  EXPECT_EQ(c.view(), std::string(100000, 'm'));
}

}  // namespace
}  // namespace netbench
