// Two flags that bound the same thing, made to agree before a program starts, or the program
// refuses to (exit 2). One flag, the bound, must hold what another, the bounded, asks for: the
// WebSocket echo server's --max_pending_input_kib must hold a --max_message_size message, the echo
// client's --timeout must hold --warmup + --duration + --drain_timeout, the fan-out's --timeout its
// --connect_timeout. Which one wins depends on which the command line gave:
//
//   both agree                   nothing changes;
//   only the bounded was given   the bound is raised to what it needs, and a note says so;
//   the bounded was not given    it is lowered to what the bound holds, with a note when the
//                                bound was given (two defaults that differ are the program's own
//                                design, which its --help states);
//   both were given              an InvalidArgument error naming both flags and the value of the
//                                bound that would hold the bounded.
//
//   FlagSetting input = SettingOf(FLAGS_max_pending_input_kib);   // 256, not given
//   FlagSetting message = SettingOf(FLAGS_max_message_size);      // 67108864, given
//   absl::StatusOr<BoundAgreement> agreed = AgreeBound(
//       input, message, {.needed = 65536, .held = 262144,
//                        .why = "echo mode reassembles a message within the input bound"});
//   // agreed->bound == 65536, agreed->note == "--max_pending_input_kib raised from 256 to 65536
//   // to hold --max_message_size=67108864 (echo mode reassembles ...)"
#ifndef NETBENCH_COMMON_FLAG_AGREEMENT_H_
#define NETBENCH_COMMON_FLAG_AGREEMENT_H_

#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace netbench {

// A flag's value as the program reads it, and whether the command line set it to something other
// than its default.
struct FlagSetting {
  std::string name;       // without the dashes: "max_message_size"
  int64_t value = 0;      // in the flag's unit; nanoseconds for a duration
  bool given = false;     // set on the command line to a value other than the default
  bool duration = false;  // shown as a duration ("10s") rather than an integer
};

// How the two flags of AgreeBound relate, in their own units.
struct BoundRelation {
  int64_t needed = 0;  // the least value of the bound that holds the bounded as it is
  int64_t held = 0;    // the most of the bounded that the bound holds as it is
  // Why the bound caps the bounded, for the note and the error: "echo mode reassembles a message
  // within the input bound".
  std::string why;
};

struct BoundAgreement {
  int64_t bound = 0;    // the bound's value to use
  int64_t bounded = 0;  // the bounded flag's value to use
  std::string note;     // "" or one line for the program to print where it starts
};

// See the top. An error when both flags were given and disagree, or when the bound holds nothing
// of the bounded (held < 1 with the bounded not given).
absl::StatusOr<BoundAgreement> AgreeBound(const FlagSetting& bound, const FlagSetting& bounded,
                                          const BoundRelation& relation);

// "--name=value", the value written as on the command line.
std::string FlagText(const FlagSetting& flag);
std::string FlagText(const FlagSetting& flag, int64_t value);

// A flag's setting after absl::ParseCommandLine, read through Abseil's reflection. For integer and
// absl::Duration flags. Given means "differs from its default": this Abseil keeps whether the
// command line named a flag to itself (CommandLineFlag::IsSpecifiedOnCommandLine is private), and a
// flag named with its default value asks for nothing the default does not.
template <typename T>
FlagSetting SettingOf(const absl::Flag<T>& flag) {
  FlagSetting setting;
  const absl::CommandLineFlag& reflection = absl::GetFlagReflectionHandle(flag);
  setting.name = std::string(reflection.Name());
  setting.given = reflection.CurrentValue() != reflection.DefaultValue();
  if constexpr (std::is_same_v<T, absl::Duration>) {
    setting.value = absl::ToInt64Nanoseconds(absl::GetFlag(flag));
    setting.duration = true;
  } else {
    static_assert(std::is_integral_v<T>, "SettingOf takes integer and absl::Duration flags");
    setting.value = static_cast<int64_t>(absl::GetFlag(flag));
  }
  return setting;
}

}  // namespace netbench

#endif  // NETBENCH_COMMON_FLAG_AGREEMENT_H_
