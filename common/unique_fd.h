// An owned file descriptor: closed exactly once, when the owner goes away.
//
//   UniqueFd fd(socket(AF_INET, SOCK_STREAM, 0));
//   if (!fd.valid()) return ErrnoStatus(errno, "socket");
//   Use(fd.get());            // still owned
//   int raw = fd.release();   // ownership handed on
#ifndef NETBENCH_COMMON_UNIQUE_FD_H_
#define NETBENCH_COMMON_UNIQUE_FD_H_

#include <unistd.h>

#include <utility>

namespace netbench {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  bool valid() const { return fd_ >= 0; }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

}  // namespace netbench

#endif  // NETBENCH_COMMON_UNIQUE_FD_H_
