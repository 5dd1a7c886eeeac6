#include "testing/open_descriptors.h"

#include <fcntl.h>
#include <sys/resource.h>

#include <algorithm>

namespace netbench {

std::vector<int> OpenDescriptors() {
  rlimit limit{};
  rlim_t end = 1024;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    end = limit.rlim_cur;
  }
  // A limit of millions would make this slow, and no test holds that many.
  end = std::min<rlim_t>(end, 1 << 20);
  std::vector<int> open;
  for (rlim_t fd = 0; fd < end; ++fd) {
    if (fcntl(static_cast<int>(fd), F_GETFD) != -1) open.push_back(static_cast<int>(fd));
  }
  return open;
}

}  // namespace netbench
