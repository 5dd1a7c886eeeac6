#include "common/byte_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <new>

namespace netbench {
namespace {

std::atomic<internal::ByteBufferMap> test_map{nullptr};

// Storage above ByteBuffer::kSmallCapacity is a mapping of its own, so that freeing it returns its
// pages to the system whichever thread frees it. A mapping the system refuses (ENOMEM: RLIMIT_AS,
// or vm.max_map_count mappings in the process) is std::bad_alloc, as new's failure would be.
char* AllocateStorage(size_t capacity) {
  if (capacity <= ByteBuffer::kSmallCapacity) return new char[capacity];
  if (internal::ByteBufferMap map = test_map.load(std::memory_order_relaxed); map != nullptr) {
    void* mapped = map(capacity);
    if (mapped == nullptr) throw std::bad_alloc();
    return static_cast<char*>(mapped);
  }
  void* mapped =
      mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) throw std::bad_alloc();
  return static_cast<char*>(mapped);
}

void FreeStorage(char* storage, size_t capacity) {
  if (storage == nullptr) return;
  if (capacity <= ByteBuffer::kSmallCapacity) {
    delete[] storage;
  } else {
    munmap(storage, capacity);
  }
}

const size_t kPageSize = static_cast<size_t>(sysconf(_SC_PAGESIZE));

}  // namespace

namespace internal {
void SetByteBufferMapForTesting(ByteBufferMap map) { test_map.store(map); }
}  // namespace internal

void ByteBuffer::ShrinkTo(size_t max_capacity) {
  if (capacity_ <= max_capacity || size() > max_capacity) return;
  Reallocate(max_capacity);
}

void ByteBuffer::MakeRoom(size_t n) {
  const size_t used = size();
  if (begin_ > 0 && capacity_ - used >= n && used <= capacity_ / 2) {
    // Enough space overall: slide the live bytes to the front instead of growing.
    const size_t old_end = end_;
    std::memmove(storage_, data(), used);
    begin_ = 0;
    end_ = used;
    if (capacity_ > kSmallCapacity) {
      released_ = 0;
      ReleasePages(used, old_end);  // what the live bytes left behind
    }
    return;
  }
  // Powers of two from 4 KiB, so that the heap-backed sizes stop exactly at kSmallCapacity and the
  // mapped ones are whole pages.
  size_t new_capacity = capacity_ == 0 ? 4096 : capacity_;
  while (new_capacity - used < n) new_capacity *= 2;
  Reallocate(new_capacity);
}

void ByteBuffer::Reallocate(size_t new_capacity) {
  char* fresh = AllocateStorage(new_capacity);
  const size_t used = size();
  if (used > 0) std::memcpy(fresh, data(), used);
  FreeStorage(storage_, capacity_);
  storage_ = fresh;
  capacity_ = new_capacity;
  begin_ = 0;
  end_ = used;
  released_ = 0;
}

void ByteBuffer::Release() {
  FreeStorage(storage_, capacity_);
  storage_ = nullptr;
  capacity_ = begin_ = end_ = released_ = 0;
}

void ByteBuffer::ReleaseConsumedPages() {
  if (begin_ < released_ + kPageSize) return;  // not a whole page more yet: no system call
  ReleasePages(released_, begin_);
  released_ = begin_ / kPageSize * kPageSize;
}

void ByteBuffer::ReleasePages(size_t from, size_t to) {
  // The mapping starts on a page, so offsets round like addresses.
  const size_t first = (from + kPageSize - 1) / kPageSize * kPageSize;
  const size_t last = to / kPageSize * kPageSize;
  // The bytes there are dead, so it does not matter whether the system zeroes the pages (Linux) or
  // may keep their contents (BSDs).
  if (last > first) madvise(storage_ + first, last - first, MADV_DONTNEED);
}

}  // namespace netbench
