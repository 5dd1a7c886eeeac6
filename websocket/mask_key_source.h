// Random masking keys for a client's frames, from BoringSSL's RAND_bytes, fetched 1,024 keys at a
// time so that sending a frame costs no system call or lock for its key.
//
//   MaskKeySource keys;          // one per connection or thread; not thread-safe
//   uint32_t key = keys.Next();
#ifndef NETBENCH_WEBSOCKET_MASK_KEY_SOURCE_H_
#define NETBENCH_WEBSOCKET_MASK_KEY_SOURCE_H_

#include <cstddef>
#include <cstdint>

namespace netbench::websocket {

class MaskKeySource {
 public:
  uint32_t Next() {
    if (next_ == kKeys) Refill();
    return keys_[next_++];
  }

 private:
  static constexpr size_t kKeys = 1024;
  void Refill();

  size_t next_ = kKeys;
  uint32_t keys_[kKeys];
};

}  // namespace netbench::websocket

#endif  // NETBENCH_WEBSOCKET_MASK_KEY_SOURCE_H_
