#include "websocket/mask_key_source.h"

#include <openssl/rand.h>

namespace netbench::websocket {

void MaskKeySource::Refill() {
  // BoringSSL's RAND_bytes aborts rather than returning weak bytes, so there is no error to handle.
  RAND_bytes(reinterpret_cast<uint8_t*>(keys_), sizeof keys_);
  next_ = 0;
}

}  // namespace netbench::websocket
