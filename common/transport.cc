#include "common/transport.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <climits>
#include <string>

#include "common/errno_status.h"
#include "common/platform.h"
#include "common/socket.h"

namespace netbench {
namespace {

IoResult Transferred(size_t bytes) {
  IoResult result;
  result.bytes = bytes;
  return result;
}

class PlainTransport final : public Transport {
 public:
  explicit PlainTransport(UniqueFd fd) : fd_(std::move(fd)) {}

  int fd() const override { return fd_.get(); }

  IoResult Handshake() override { return IoResult(); }

  IoResult Read(char* buffer, size_t length) override {
    ssize_t n;
    do {
      n = ReadUncancellable(fd_.get(), buffer, length);
    } while (n < 0 && errno == EINTR);
    if (n > 0) return Transferred(static_cast<size_t>(n));
    if (n == 0) {
      IoResult result;
      result.status = IoStatus::kEof;
      return result;
    }
    return Failure(errno, IoStatus::kWantRead, "read");
  }

  IoResult Write(const char* data, size_t length) override {
    ssize_t n;
    do {
      // A reset peer must never kill the process with SIGPIPE.
      n = SendNoSignal(fd_.get(), data, length);
    } while (n < 0 && errno == EINTR);
    if (n >= 0) return Transferred(static_cast<size_t>(n));
    return Failure(errno, IoStatus::kWantWrite, "write");
  }

  IoResult Writev(const iovec* iov, int count) override {
    // sendmsg rather than writev: writev would raise SIGPIPE.
    msghdr message{};
    message.msg_iov = const_cast<iovec*>(iov);
    message.msg_iovlen = count < IOV_MAX ? count : IOV_MAX;
    ssize_t n;
    do {
      n = SendMessageNoSignal(fd_.get(), &message);
    } while (n < 0 && errno == EINTR);
    if (n >= 0) return Transferred(static_cast<size_t>(n));
    return Failure(errno, IoStatus::kWantWrite, "writev");
  }

  void ShutdownWrite() override { ::shutdown(fd_.get(), SHUT_WR); }

  // Every byte waits in the kernel, where poll sees it.
  size_t Pending() const override { return 0; }

  const char* name() const override { return "tcp"; }

 private:
  // Maps a failed read/write's errno: would-block becomes a readiness wish, the rest an error
  // whose text this transport keeps (IoResult::message) until its next failure.
  IoResult Failure(int err, IoStatus would_block, const char* operation) {
    IoResult result;
    if (WouldBlock(err)) {
      result.status = would_block;
      return result;
    }
    error_text_ = std::string(ErrnoStatus(err, operation).message());
    result.status = IoStatus::kError;
    result.error = err;
    result.message = error_text_.c_str();
    return result;
  }

  UniqueFd fd_;
  std::string error_text_;
};

}  // namespace

std::unique_ptr<Transport> MakePlainTransport(UniqueFd fd) {
  return std::make_unique<PlainTransport>(std::move(fd));
}

}  // namespace netbench
