// A growable byte buffer with a read position: bytes are appended at the back and consumed from the
// front, and the storage is reused, so a connection's steady state allocates nothing.
//
//   ByteBuffer in;
//   ssize_t n = read(fd, in.WritableSpace(64 * 1024), 64 * 1024);
//   if (n > 0) in.CommitWrite(n);
//   size_t used = parser.Parse(in.view());
//   in.Consume(used);
//
// Bursts are given back. Storage up to kSmallCapacity (what a connection's reads and replies need
// in steady state) comes from the heap and is kept; storage that grew past it (backpressure,
// pipelined requests, a large message) is mapped on its own and unmapped as soon as Consume()
// drains the buffer, so an idle connection holds at most kSmallCapacity whatever its peak was, and
// the pages go back to the system at once. From the heap they would not: glibc keeps freed blocks
// in the arena of the thread that freed them (one per thread in the threads model), and its mmap
// threshold rises to the largest block freed, so every doubling step of every connection's buffer
// stayed resident.
#ifndef NETBENCH_COMMON_BYTE_BUFFER_H_
#define NETBENCH_COMMON_BYTE_BUFFER_H_

#include <cstddef>
#include <cstring>
#include <utility>

#include "absl/strings/string_view.h"

namespace netbench {

class ByteBuffer {
 public:
  // The most storage kept by a drained buffer: one 64 KiB read.
  static constexpr size_t kSmallCapacity = 64 * 1024;

  ByteBuffer() = default;
  explicit ByteBuffer(size_t initial_capacity) { Reserve(initial_capacity); }
  ByteBuffer(ByteBuffer&& other) noexcept { *this = std::move(other); }
  ByteBuffer& operator=(ByteBuffer&& other) noexcept {
    if (this != &other) {
      Release();
      storage_ = std::exchange(other.storage_, nullptr);
      capacity_ = std::exchange(other.capacity_, 0);
      begin_ = std::exchange(other.begin_, 0);
      end_ = std::exchange(other.end_, 0);
      released_ = std::exchange(other.released_, 0);
    }
    return *this;
  }
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;
  ~ByteBuffer() { Release(); }

  const char* data() const { return storage_ + begin_; }
  char* data() { return storage_ + begin_; }
  size_t size() const { return end_ - begin_; }
  bool empty() const { return begin_ == end_; }
  size_t capacity() const { return capacity_; }
  absl::string_view view() const { return absl::string_view(data(), size()); }

  // Drops `n` bytes from the front. Draining the buffer gives back storage a burst made large (see
  // the top); views of the buffer end here.
  void Consume(size_t n) {
    begin_ += n;
    if (begin_ == end_) {
      begin_ = end_ = 0;  // cheap reset keeps the next read at the start
      if (capacity_ > kSmallCapacity) Release();
    } else if (capacity_ > kSmallCapacity) {
      ReleaseConsumedPages();
    }
  }
  // Empties the buffer and keeps its storage, whatever its size: for a buffer refilled at once (a
  // batch of frames being built).
  void Clear() { begin_ = end_ = 0; }

  void Append(const void* bytes, size_t n) {
    std::memcpy(WritableSpace(n), bytes, n);
    end_ += n;
  }
  void Append(absl::string_view bytes) { Append(bytes.data(), bytes.size()); }

  // Returns room for at least `n` more bytes at the back; CommitWrite says how many were written.
  char* WritableSpace(size_t n) {
    if (capacity_ - end_ < n) MakeRoom(n);
    return storage_ + end_;
  }
  void CommitWrite(size_t n) { end_ += n; }

  void Reserve(size_t n) {
    if (capacity_ < n) MakeRoom(n - size());
  }

  // Gives memory back when a burst made the buffer large and it still holds bytes (a drained buffer
  // does so by itself).
  void ShrinkTo(size_t max_capacity);

 private:
  void MakeRoom(size_t n);
  // Moves the live bytes into fresh storage of `new_capacity` bytes, freeing the old.
  void Reallocate(size_t new_capacity);
  // Frees the storage, emptying the buffer.
  void Release();
  // Mapped storage only: returns the whole pages before begin_ to the system. Bytes are consumed
  // from the front and appended at the back, so the live bytes walk through the storage; without
  // this every page of it would stay resident, not just the ones the live bytes occupy.
  void ReleaseConsumedPages();
  // Mapped storage only: returns the whole pages in [from, to).
  void ReleasePages(size_t from, size_t to);

  char* storage_ = nullptr;
  size_t capacity_ = 0;
  size_t begin_ = 0;
  size_t end_ = 0;
  size_t released_ = 0;  // mapped storage: pages before this offset were given back
};

namespace internal {
// For tests of what happens when the system refuses a burst's mapping (vm.max_map_count reached,
// RLIMIT_AS): `map` replaces mmap(2) for storage above kSmallCapacity, returning nullptr (errno
// set) to refuse; nullptr restores mmap(2). The failure itself, from either, is std::bad_alloc,
// which the server models catch per connection: they close that connection alone and count it
// (ServerStats::connections_out_of_memory).
using ByteBufferMap = void* (*)(size_t length);
void SetByteBufferMapForTesting(ByteBufferMap map);
}  // namespace internal

}  // namespace netbench

#endif  // NETBENCH_COMMON_BYTE_BUFFER_H_
