// Invariant checks for fuzz targets (fuzz.bzl): a violation prints what failed and traps, which
// libFuzzer reports as a crash (with the input saved) and the replay test as a failure.
//
//   FUZZ_CHECK(consumed <= size);
//   FUZZ_CHECK(Within(head.reason, input));

#ifndef NETBENCH_COMMON_FUZZ_CHECK_H_
#define NETBENCH_COMMON_FUZZ_CHECK_H_

#include <cstdio>

#include "absl/strings/string_view.h"

#define FUZZ_CHECK(condition)                                                                     \
  do {                                                                                            \
    if (!(condition)) {                                                                           \
      std::fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__, __LINE__, #condition); \
      __builtin_trap();                                                                           \
    }                                                                                             \
  } while (0)

namespace netbench {

// Whether `part` is empty or lies inside `whole` (a view the parser handed back into its input).
inline bool Within(absl::string_view part, absl::string_view whole) {
  if (part.empty()) return true;
  return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}

}  // namespace netbench

#endif  // NETBENCH_COMMON_FUZZ_CHECK_H_
