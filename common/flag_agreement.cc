#include "common/flag_agreement.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace netbench {
namespace {

// The value as the flag is written: "65536", "10s".
std::string ValueText(const FlagSetting& flag, int64_t value) {
  return flag.duration ? absl::FormatDuration(absl::Nanoseconds(value)) : absl::StrCat(value);
}

}  // namespace

std::string FlagText(const FlagSetting& flag, int64_t value) {
  return absl::StrCat("--", flag.name, "=", ValueText(flag, value));
}

std::string FlagText(const FlagSetting& flag) { return FlagText(flag, flag.value); }

absl::StatusOr<BoundAgreement> AgreeBound(const FlagSetting& bound, const FlagSetting& bounded,
                                          const BoundRelation& relation) {
  BoundAgreement agreed{.bound = bound.value, .bounded = bounded.value, .note = ""};
  if (bound.value >= relation.needed) return agreed;
  if (bounded.given && !bound.given) {
    agreed.bound = relation.needed;
    agreed.note = absl::StrCat("--", bound.name, " raised from ", ValueText(bound, bound.value),
                               " to ", ValueText(bound, relation.needed), " to hold ",
                               FlagText(bounded), " (", relation.why, ")");
    return agreed;
  }
  if (bounded.given) {
    std::string error =
        absl::StrCat(FlagText(bound), " cannot hold ", FlagText(bounded), " (", relation.why,
                     "): give --", bound.name, " >= ", ValueText(bound, relation.needed));
    if (relation.held >= 1) {
      absl::StrAppend(&error, ", or --", bounded.name, " <= ", ValueText(bounded, relation.held));
    }
    return absl::InvalidArgumentError(error);
  }
  if (relation.held < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(FlagText(bound), " leaves nothing for --", bounded.name, " (", relation.why,
                     "): give --", bound.name, " >= ", ValueText(bound, relation.needed)));
  }
  agreed.bounded = relation.held;
  if (bound.given) {
    agreed.note =
        absl::StrCat("--", bounded.name, " lowered from its default ",
                     ValueText(bounded, bounded.value), " to ", ValueText(bounded, relation.held),
                     ", what ", FlagText(bound), " holds (", relation.why, ")");
  }
  return agreed;
}

}  // namespace netbench
