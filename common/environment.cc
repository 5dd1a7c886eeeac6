#include "common/environment.h"

#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "absl/base/config.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "common/platform.h"

namespace netbench {
namespace {

std::string FirstLineValue(const std::string& path, absl::string_view prefix, char separator) {
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    if (!absl::StartsWith(line, prefix)) continue;
    size_t at = line.find(separator);
    if (at == std::string::npos) continue;
    std::string value(absl::StripAsciiWhitespace(line.substr(at + 1)));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    return value;
  }
  return "";
}

std::string BuildMode() {
#ifdef __OPTIMIZE__
  std::string mode = "opt";
#else
  std::string mode = "dbg";
#endif
#if defined(__SANITIZE_ADDRESS__)
  mode += "+asan";
#endif
#if defined(__SANITIZE_THREAD__)
  mode += "+tsan";
#endif
#if defined(NETBENCH_UBSAN)
  mode += "+ubsan";
#endif
  return mode;
}

// The commit of the checkout the program was built from. `bazel run` sets
// BUILD_WORKSPACE_DIRECTORY; NETBENCH_GIT_COMMIT overrides (a suite that knows better passes it
// down).
std::string GitCommit() {
  if (const char* commit = std::getenv("NETBENCH_GIT_COMMIT");
      commit != nullptr && *commit != '\0') {
    return commit;
  }
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  std::string command = absl::StrCat("git -C '", workspace != nullptr ? workspace : ".",
                                     "' rev-parse --short=12 HEAD 2>/dev/null");
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  char buffer[64] = {0};
  std::string commit = fgets(buffer, sizeof(buffer), pipe) != nullptr ? buffer : "";
  pclose(pipe);
  return std::string(absl::StripAsciiWhitespace(commit));
}

}  // namespace

Environment CollectEnvironment() {
  Environment env;
  utsname names{};
  if (uname(&names) == 0) {
    env.os = names.sysname;
    env.kernel = names.release;
    env.machine = names.machine;
    env.hostname = names.nodename;
  }
  env.os_release = FirstLineValue("/etc/os-release", "PRETTY_NAME=", '=');
  env.cpu_model = CpuModelName();
  env.cores = OnlineCpuCount();
  env.cores_available = AvailableCpuCount();
#if defined(__clang__)
  env.compiler =
      absl::StrCat("clang++ ", __clang_major__, ".", __clang_minor__, ".", __clang_patchlevel__);
#elif defined(__GNUC__)
  env.compiler = absl::StrCat("g++ ", __GNUC__, ".", __GNUC_MINOR__, ".", __GNUC_PATCHLEVEL__);
#else
  env.compiler = "unknown";
#endif
  env.compiler += absl::StrCat(" -std=c++", __cplusplus / 100 % 100);
  env.build_mode = BuildMode();
#ifdef ABSL_LTS_RELEASE_VERSION
  env.libraries.emplace_back("abseil", absl::StrCat(ABSL_LTS_RELEASE_VERSION));
#endif
#if defined(_LIBCPP_VERSION)
  env.libraries.emplace_back("libc++", absl::StrCat(_LIBCPP_VERSION));
#elif defined(__GLIBCXX__)
  env.libraries.emplace_back("libstdc++", absl::StrCat(__GLIBCXX__));
#endif
  env.git_commit = GitCommit();
  time_t now = time(nullptr);
  tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &utc);
  env.timestamp_utc = stamp;
  return env;
}

}  // namespace netbench
