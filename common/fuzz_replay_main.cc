// The main of a fuzz target when libFuzzer is not linked (the default g++ build; common/fuzz.bzl):
// runs LLVMFuzzerTestOneInput once on each file named on the command line, or on each file in a
// folder named there, so that a seed corpus or a crash file replays as an ordinary program.
//
//   bazel-bin/websocket/close_frame_fuzzer websocket/testdata/fuzz/close_frame_fuzzer crash-1234
//
// A violated invariant traps inside the target; this main only reports how many inputs ran.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool RunFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  // Its own exact-size allocation, as libFuzzer gives: a read past the end is a heap overflow.
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto* copy = new uint8_t[bytes.size()];
  std::copy(bytes.begin(), bytes.end(), copy);
  LLVMFuzzerTestOneInput(copy, bytes.size());
  delete[] copy;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int inputs = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (!entry.is_regular_file()) continue;
        ok = RunFile(entry.path()) && ok;
        ++inputs;
      }
    } else {
      ok = RunFile(arg) && ok;
      ++inputs;
    }
  }
  std::printf("%d inputs replayed\n", inputs);
  return ok && inputs > 0 ? 0 : 1;
}
