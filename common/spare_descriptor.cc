#include "common/internal/spare_descriptor.h"

#include <errno.h>
#include <fcntl.h>

#include "common/platform.h"
#include "common/socket.h"

namespace netbench {
namespace internal {

SpareDescriptor::SpareDescriptor() { Take(); }

void SpareDescriptor::Take() { spare_.reset(open("/dev/null", O_RDONLY | O_CLOEXEC)); }

SpareDescriptor::Outcome SpareDescriptor::RefuseOne(int listen_fd,
                                                    absl::FunctionRef<void()> count_refusal) {
  // Lost in an earlier refusal (another thread took the freed slot): one may have come free since.
  if (!spare_.valid()) Take();
  if (!spare_.valid()) return kNoSpare;
  spare_.reset();
  UniqueFd refused(AcceptConnection(listen_fd, /*non_blocking=*/true));
  const int err = errno;
  const bool was_refused = refused.valid();
  if (was_refused) count_refusal();
  refused.reset();  // the peer sees its connection end now
  Take();
  if (was_refused) return kRefused;
  return WouldBlock(err) || err == ECONNABORTED ? kNonePending : kFailed;
}

}  // namespace internal
}  // namespace netbench
