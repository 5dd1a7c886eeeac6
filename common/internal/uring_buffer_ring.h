// A provided buffer ring (kernel 5.19): buffers a ring lends the kernel, which picks a free one
// for each receive that completes (IOSQE_BUFFER_SELECT), as the uring models' multishot receives
// need. The owner hands each buffer back once it has seen its bytes; the kernel may fill it again
// from the next io_uring_enter on.
//
//   UringBufferRing buffers;
//   if (absl::Status s = buffers.Init(ring, /*group=*/0, /*count=*/256, /*size=*/16384); !s.ok()) ...
//   io_uring_prep_recv_multishot(sqe, fd, nullptr, 0, 0);
//   sqe->flags |= IOSQE_BUFFER_SELECT;
//   sqe->buf_group = 0;
//   ...for each completion with IORING_CQE_F_BUFFER:
//   const unsigned id = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
//   Consume(buffers.data(id), cqe->res);
//   buffers.Return(id);
//   ...after the pass's completions:
//   buffers.Publish();
#ifndef NETBENCH_COMMON_INTERNAL_URING_BUFFER_RING_H_
#define NETBENCH_COMMON_INTERNAL_URING_BUFFER_RING_H_

#include <errno.h>
#include <liburing.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "common/errno_status.h"

namespace netbench {
namespace internal {

class UringBufferRing {
 public:
  UringBufferRing() = default;
  UringBufferRing(const UringBufferRing&) = delete;
  UringBufferRing& operator=(const UringBufferRing&) = delete;
  // The ring it was registered with must still be set up, or already torn down (which
  // unregisters it).
  ~UringBufferRing() {
    if (memory_ != nullptr) munmap(memory_, bytes_);
  }

  // `count`: a power of two up to 32768. Registers the ring's entries and every buffer with
  // `ring` under `group`.
  absl::Status Init(io_uring& ring, uint16_t group, unsigned count, size_t size) {
    count_ = count;
    size_ = size;
    bytes_ = count * sizeof(io_uring_buf) + static_cast<size_t>(count) * size;
    void* memory =
        mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (memory == MAP_FAILED) return ErrnoStatus(errno, "mmap of the receive buffers");
    memory_ = static_cast<char*>(memory);
    entries_ = reinterpret_cast<io_uring_buf_ring*>(memory_);
    data_ = memory_ + count * sizeof(io_uring_buf);
    io_uring_buf_ring_init(entries_);
    io_uring_buf_reg reg{};
    reg.ring_addr = reinterpret_cast<uint64_t>(entries_);
    reg.ring_entries = count;
    reg.bgid = group;
    if (int error = io_uring_register_buf_ring(&ring, &reg, 0); error < 0) {
      return ErrnoStatus(-error, "registering the provided buffer ring");
    }
    for (unsigned i = 0; i < count; ++i) {
      io_uring_buf_ring_add(entries_, data(i), size_, i, io_uring_buf_ring_mask(count), i);
    }
    io_uring_buf_ring_advance(entries_, count);
    return absl::OkStatus();
  }

  size_t size() const { return size_; }
  char* data(unsigned id) const { return data_ + static_cast<size_t>(id) * size_; }
  // Hands buffer `id` back; the kernel sees it after Publish.
  void Return(unsigned id) {
    io_uring_buf_ring_add(entries_, data(id), size_, id, io_uring_buf_ring_mask(count_),
                          returned_++);
  }
  void Publish() {
    if (returned_ == 0) return;
    io_uring_buf_ring_advance(entries_, returned_);
    returned_ = 0;
  }

 private:
  char* memory_ = nullptr;  // the ring's entries, then the buffers
  size_t bytes_ = 0;
  io_uring_buf_ring* entries_ = nullptr;
  char* data_ = nullptr;
  unsigned count_ = 0;
  size_t size_ = 0;
  unsigned returned_ = 0;  // handed back since the last Publish
};

}  // namespace internal
}  // namespace netbench

#endif  // NETBENCH_COMMON_INTERNAL_URING_BUFFER_RING_H_
