#include "common/flag_agreement.h"

#include <cstdint>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"

ABSL_FLAG(int, agreement_test_given, 7, "set on the test's command line");
ABSL_FLAG(int, agreement_test_given_its_default, 3, "set on the test's command line to 3");
ABSL_FLAG(absl::Duration, agreement_test_default, absl::Seconds(10), "left at its default");

namespace netbench {
namespace {

const BoundRelation kInputHoldsMessage{
    .needed = 65536, .held = 262144, .why = "echo mode reassembles a message"};

FlagSetting Input(bool given) {
  return {.name = "max_pending_input_kib", .value = 256, .given = given};
}
FlagSetting Message(bool given) {
  return {.name = "max_message_size", .value = 67108864, .given = given};
}

TEST(AgreeBoundTest, AgreeingFlagsChangeNothing) {
  absl::StatusOr<BoundAgreement> agreed =
      AgreeBound(Input(true), Message(true), {.needed = 256, .held = 262144, .why = "w"});
  ASSERT_TRUE(agreed.ok()) << agreed.status();
  EXPECT_EQ(agreed->bound, 256);
  EXPECT_EQ(agreed->bounded, 67108864);
  EXPECT_EQ(agreed->note, "");
}

TEST(AgreeBoundTest, AGivenBoundedRaisesADefaultBoundAndSaysSo) {
  absl::StatusOr<BoundAgreement> agreed =
      AgreeBound(Input(false), Message(true), kInputHoldsMessage);
  ASSERT_TRUE(agreed.ok()) << agreed.status();
  EXPECT_EQ(agreed->bound, 65536);
  EXPECT_EQ(agreed->bounded, 67108864);
  EXPECT_EQ(agreed->note,
            "--max_pending_input_kib raised from 256 to 65536 to hold --max_message_size=67108864 "
            "(echo mode reassembles a message)");
}

TEST(AgreeBoundTest, TwoGivenFlagsThatDisagreeAreAnErrorNamingBothAndWhatWouldWork) {
  absl::StatusOr<BoundAgreement> agreed =
      AgreeBound(Input(true), Message(true), kInputHoldsMessage);
  ASSERT_FALSE(agreed.ok());
  EXPECT_EQ(agreed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(agreed.status().message(),
            "--max_pending_input_kib=256 cannot hold --max_message_size=67108864 (echo mode "
            "reassembles a message): give --max_pending_input_kib >= 65536, or "
            "--max_message_size <= 262144");
}

TEST(AgreeBoundTest, ADefaultBoundedIsLoweredToWhatTheBoundHolds) {
  // A given bound: the note says what the default became.
  absl::StatusOr<BoundAgreement> agreed =
      AgreeBound(Input(true), Message(false), kInputHoldsMessage);
  ASSERT_TRUE(agreed.ok()) << agreed.status();
  EXPECT_EQ(agreed->bound, 256);
  EXPECT_EQ(agreed->bounded, 262144);
  EXPECT_EQ(agreed->note,
            "--max_message_size lowered from its default 67108864 to 262144, what "
            "--max_pending_input_kib=256 holds (echo mode reassembles a message)");
  // Two defaults: the program's design, stated by its --help; no note.
  agreed = AgreeBound(Input(false), Message(false), kInputHoldsMessage);
  ASSERT_TRUE(agreed.ok()) << agreed.status();
  EXPECT_EQ(agreed->bounded, 262144);
  EXPECT_EQ(agreed->note, "");
}

TEST(AgreeBoundTest, ABoundThatHoldsNothingIsAnErrorEvenOverADefault) {
  const FlagSetting timeout{
      .name = "timeout", .value = 3'000'000'000, .given = true, .duration = true};
  const FlagSetting duration{.name = "duration", .value = 10'000'000'000, .duration = true};
  absl::StatusOr<BoundAgreement> agreed = AgreeBound(
      timeout, duration, {.needed = 15'000'000'000, .held = -2'000'000'000, .why = "drain 5s"});
  ASSERT_FALSE(agreed.ok());
  EXPECT_EQ(agreed.status().message(),
            "--timeout=3s leaves nothing for --duration (drain 5s): give --timeout >= 15s");
}

TEST(AgreeBoundTest, DurationsAreWrittenAsOnTheCommandLine) {
  const FlagSetting connect{
      .name = "connect_timeout", .value = 90'000'000'000, .given = true, .duration = true};
  const FlagSetting timeout{.name = "timeout", .value = 60'000'000'000, .duration = true};
  absl::StatusOr<BoundAgreement> agreed =
      AgreeBound(timeout, connect, {.needed = connect.value, .held = timeout.value, .why = "w"});
  ASSERT_TRUE(agreed.ok()) << agreed.status();
  EXPECT_EQ(agreed->bound, 90'000'000'000);
  EXPECT_EQ(agreed->note, "--timeout raised from 1m to 1m30s to hold --connect_timeout=1m30s (w)");
}

TEST(SettingOfTest, ReadsTheValueAndWhetherTheCommandLineGaveIt) {
  std::vector<char*> argv = {const_cast<char*>("flag_agreement_test"),
                             const_cast<char*>("--agreement_test_given=8"),
                             const_cast<char*>("--agreement_test_given_its_default=3")};
  absl::ParseCommandLine(static_cast<int>(argv.size()), argv.data());
  const FlagSetting given = SettingOf(FLAGS_agreement_test_given);
  EXPECT_EQ(given.name, "agreement_test_given");
  EXPECT_EQ(given.value, 8);
  EXPECT_TRUE(given.given);
  EXPECT_FALSE(given.duration);
  // Named with its default value, it asks for nothing the default does not.
  EXPECT_FALSE(SettingOf(FLAGS_agreement_test_given_its_default).given);
  const FlagSetting left = SettingOf(FLAGS_agreement_test_default);
  EXPECT_EQ(left.value, 10'000'000'000);
  EXPECT_FALSE(left.given);
  EXPECT_TRUE(left.duration);
}

}  // namespace
}  // namespace netbench
