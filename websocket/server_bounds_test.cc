#include "websocket/server_bounds.h"

#include "common/flag_agreement.h"
#include "gtest/gtest.h"

namespace netbench::websocket {
namespace {

FlagSetting Message(int64_t bytes, bool given) {
  return {.name = "max_message_size", .value = bytes, .given = given};
}
FlagSetting Input(int64_t kib, bool given) {
  return {.name = "max_pending_input_kib", .value = kib, .given = given};
}

TEST(AgreeMessageBoundsTest, EchoWithDefaultsHoldsWhatTheInputBoundHolds) {
  absl::StatusOr<MessageBounds> bounds =
      AgreeMessageBounds(WebSocketServerMode::kEcho, Message(16 << 20, false), Input(256, false));
  ASSERT_TRUE(bounds.ok()) << bounds.status();
  EXPECT_EQ(bounds->max_message_size, 256u << 10);
  EXPECT_EQ(bounds->max_pending_input, 256u << 10);
  EXPECT_EQ(bounds->note, "");
}

TEST(AgreeMessageBoundsTest, AGivenMessageSizeRaisesTheDefaultInputBoundToWholeKiB) {
  absl::StatusOr<MessageBounds> bounds = AgreeMessageBounds(
      WebSocketServerMode::kEcho, Message((64 << 20) + 1, true), Input(256, false));
  ASSERT_TRUE(bounds.ok()) << bounds.status();
  EXPECT_EQ(bounds->max_message_size, (64u << 20) + 1);
  EXPECT_EQ(bounds->max_pending_input, (64u << 20) + 1024);
  EXPECT_EQ(bounds->note,
            "--max_pending_input_kib raised from 256 to 65537 to hold --max_message_size=67108865 "
            "(echo mode reassembles a message whole within the input bound)");
}

TEST(AgreeMessageBoundsTest, BothGivenAndDisagreeingIsAnError) {
  absl::StatusOr<MessageBounds> bounds =
      AgreeMessageBounds(WebSocketServerMode::kEcho, Message(64 << 20, true), Input(256, true));
  ASSERT_FALSE(bounds.ok());
  EXPECT_EQ(bounds.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(AgreeMessageBoundsTest, BothGivenAndAgreeingKeepsBoth) {
  absl::StatusOr<MessageBounds> bounds =
      AgreeMessageBounds(WebSocketServerMode::kEcho, Message(1 << 20, true), Input(2048, true));
  ASSERT_TRUE(bounds.ok()) << bounds.status();
  EXPECT_EQ(bounds->max_message_size, 1u << 20);
  EXPECT_EQ(bounds->max_pending_input, 2048u << 10);
  EXPECT_EQ(bounds->note, "");
}

TEST(AgreeMessageBoundsTest, AGivenInputBoundLowersTheDefaultMessageSizeAndSaysSo) {
  absl::StatusOr<MessageBounds> bounds =
      AgreeMessageBounds(WebSocketServerMode::kEcho, Message(16 << 20, false), Input(1024, true));
  ASSERT_TRUE(bounds.ok()) << bounds.status();
  EXPECT_EQ(bounds->max_message_size, 1u << 20);
  EXPECT_EQ(bounds->max_pending_input, 1u << 20);
  EXPECT_NE(bounds->note, "");
}

TEST(AgreeMessageBoundsTest, ASinkLeavesBothAsGiven) {
  absl::StatusOr<MessageBounds> bounds =
      AgreeMessageBounds(WebSocketServerMode::kSink, Message(64 << 20, true), Input(256, true));
  ASSERT_TRUE(bounds.ok()) << bounds.status();
  EXPECT_EQ(bounds->max_message_size, 64u << 20);
  EXPECT_EQ(bounds->max_pending_input, 256u << 10);
  EXPECT_EQ(bounds->note, "");
}

}  // namespace
}  // namespace netbench::websocket
