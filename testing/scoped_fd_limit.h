// Lowers the soft RLIMIT_NOFILE for one scope, for tests that make poll(2) fail (it refuses to
// watch more fds than the limit allows); the fds already open stay open.
//
//   ScopedFdLimit limit(4);
//   ASSERT_TRUE(limit.ok()) << "setrlimit(RLIMIT_NOFILE)";
//   ...                      // restored when `limit` goes, or by limit.Restore()
#ifndef NETBENCH_TESTING_SCOPED_FD_LIMIT_H_
#define NETBENCH_TESTING_SCOPED_FD_LIMIT_H_

#include <sys/resource.h>

namespace netbench {

class ScopedFdLimit {
 public:
  explicit ScopedFdLimit(rlim_t soft) {
    ok_ = getrlimit(RLIMIT_NOFILE, &saved_) == 0;
    rlimit lowered = saved_;
    lowered.rlim_cur = soft;
    ok_ = ok_ && setrlimit(RLIMIT_NOFILE, &lowered) == 0;
  }
  ~ScopedFdLimit() { Restore(); }
  ScopedFdLimit(const ScopedFdLimit&) = delete;
  ScopedFdLimit& operator=(const ScopedFdLimit&) = delete;

  bool ok() const { return ok_; }
  void Restore() {
    if (ok_) setrlimit(RLIMIT_NOFILE, &saved_);
    ok_ = false;
  }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

}  // namespace netbench

#endif  // NETBENCH_TESTING_SCOPED_FD_LIMIT_H_
