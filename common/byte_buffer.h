// A growable byte buffer with a read position: bytes are appended at the back and consumed from the front,
// and the storage is reused, so a connection's steady state allocates nothing.
//
//   ByteBuffer in;
//   ssize_t n = read(fd, in.WritableSpace(64 * 1024), 64 * 1024);
//   if (n > 0) in.CommitWrite(n);
//   size_t used = parser.Parse(in.view());
//   in.Consume(used);
#ifndef NETBENCH_COMMON_BYTE_BUFFER_H_
#define NETBENCH_COMMON_BYTE_BUFFER_H_

#include <cstddef>
#include <cstring>
#include <memory>

#include "absl/strings/string_view.h"

namespace netbench {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  explicit ByteBuffer(size_t initial_capacity) { Reserve(initial_capacity); }
  ByteBuffer(ByteBuffer&&) noexcept = default;
  ByteBuffer& operator=(ByteBuffer&&) noexcept = default;

  const char* data() const { return storage_.get() + begin_; }
  char* data() { return storage_.get() + begin_; }
  size_t size() const { return end_ - begin_; }
  bool empty() const { return begin_ == end_; }
  size_t capacity() const { return capacity_; }
  absl::string_view view() const { return absl::string_view(data(), size()); }

  // Drops `n` bytes from the front.
  void Consume(size_t n) {
    begin_ += n;
    if (begin_ == end_) begin_ = end_ = 0;  // cheap reset keeps the next read at the start
  }
  void Clear() { begin_ = end_ = 0; }

  void Append(const void* bytes, size_t n) {
    std::memcpy(WritableSpace(n), bytes, n);
    end_ += n;
  }
  void Append(absl::string_view bytes) { Append(bytes.data(), bytes.size()); }

  // Returns room for at least `n` more bytes at the back; CommitWrite says how many were written.
  char* WritableSpace(size_t n) {
    if (capacity_ - end_ < n) MakeRoom(n);
    return storage_.get() + end_;
  }
  void CommitWrite(size_t n) { end_ += n; }

  void Reserve(size_t n) {
    if (capacity_ < n) MakeRoom(n - size());
  }

  // Gives memory back when a burst made the buffer large (call when idle).
  void ShrinkTo(size_t max_capacity) {
    if (capacity_ <= max_capacity || size() > max_capacity) return;
    std::unique_ptr<char[]> smaller(new char[max_capacity]);
    std::memcpy(smaller.get(), data(), size());
    end_ = size();
    begin_ = 0;
    storage_ = std::move(smaller);
    capacity_ = max_capacity;
  }

 private:
  void MakeRoom(size_t n) {
    size_t used = size();
    if (begin_ > 0 && capacity_ - used >= n && used <= capacity_ / 2) {
      // Enough space overall: slide the live bytes to the front instead of growing.
      std::memmove(storage_.get(), data(), used);
    } else {
      size_t new_capacity = capacity_ == 0 ? 4096 : capacity_;
      while (new_capacity - used < n) new_capacity *= 2;
      std::unique_ptr<char[]> bigger(new char[new_capacity]);
      if (used > 0) std::memcpy(bigger.get(), data(), used);
      storage_ = std::move(bigger);
      capacity_ = new_capacity;
    }
    begin_ = 0;
    end_ = used;
  }

  std::unique_ptr<char[]> storage_;
  size_t capacity_ = 0;
  size_t begin_ = 0;
  size_t end_ = 0;
};

}  // namespace netbench

#endif  // NETBENCH_COMMON_BYTE_BUFFER_H_
