#include "common/event_loop.h"

#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <climits>
#include <functional>
#include <future>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "common/clock.h"
#include "common/platform.h"
#include "common/unique_fd.h"
#include "gtest/gtest.h"
#include "testing/scoped_fd_limit.h"

namespace netbench {
namespace {

struct SocketPair {
  UniqueFd a;
  UniqueFd b;
};

SocketPair MakeSocketPair() {
  int fds[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// Records every call; runs `action` (if any) from inside the handler.
class RecordingHandler : public FdHandler {
 public:
  void OnEvents(int fd, int events) override {
    calls.push_back({fd, events});
    if (action) action(fd, events);
  }
  std::vector<std::pair<int, int>> calls;
  std::function<void(int, int)> action;
};

class EventLoopTest : public testing::TestWithParam<EventLoopBackend> {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<EventLoop>> loop = EventLoop::Create(GetParam());
    ASSERT_TRUE(loop.ok()) << loop.status();
    loop_ = *std::move(loop);
  }
  std::unique_ptr<EventLoop> loop_;
};

TEST_P(EventLoopTest, ReportsReadableOnlyAfterDataArrives) {
  SocketPair pair = MakeSocketPair();
  RecordingHandler handler;
  ASSERT_TRUE(loop_->Add(pair.a.get(), kReadable, &handler).ok());
  EXPECT_EQ(loop_->RunOnce(0).value(), 0);
  EXPECT_TRUE(handler.calls.empty());
  ASSERT_EQ(write(pair.b.get(), "x", 1), 1);
  EXPECT_EQ(loop_->RunOnce(-1).value(), 1);
  ASSERT_EQ(handler.calls.size(), 1u);
  EXPECT_EQ(handler.calls[0].first, pair.a.get());
  EXPECT_TRUE(handler.calls[0].second & kReadable);
  EXPECT_FALSE(handler.calls[0].second & kWritable);
}

TEST_P(EventLoopTest, ReportsWritableAndRejectsDoubleAdd) {
  SocketPair pair = MakeSocketPair();
  RecordingHandler handler;
  ASSERT_TRUE(loop_->Add(pair.a.get(), kWritable, &handler).ok());
  EXPECT_FALSE(loop_->Add(pair.a.get(), kReadable, &handler).ok());
  EXPECT_EQ(loop_->RunOnce(-1).value(), 1);
  ASSERT_EQ(handler.calls.size(), 1u);
  EXPECT_EQ(handler.calls[0].second & (kReadable | kWritable), kWritable);
}

TEST_P(EventLoopTest, PeerCloseIsReportedAsReadable) {
  SocketPair pair = MakeSocketPair();
  RecordingHandler handler;
  ASSERT_TRUE(loop_->Add(pair.a.get(), kReadable, &handler).ok());
  pair.b.reset();
  EXPECT_EQ(loop_->RunOnce(-1).value(), 1);
  ASSERT_EQ(handler.calls.size(), 1u);
  EXPECT_TRUE(handler.calls[0].second & kReadable);
  char byte;
  EXPECT_EQ(read(pair.a.get(), &byte, 1), 0);
}

TEST_P(EventLoopTest, NoEventsPausesEvenAHungUpFd) {
  SocketPair pair = MakeSocketPair();
  RecordingHandler handler;
  ASSERT_TRUE(loop_->Add(pair.a.get(), kReadable, &handler).ok());
  ASSERT_TRUE(loop_->Modify(pair.a.get(), kNoEvents).ok());
  ASSERT_EQ(write(pair.b.get(), "x", 1), 1);
  pair.b.reset();
  EXPECT_EQ(loop_->RunOnce(0).value(), 0);
  EXPECT_TRUE(handler.calls.empty());
  ASSERT_TRUE(loop_->Modify(pair.a.get(), kReadable).ok());
  EXPECT_EQ(loop_->RunOnce(-1).value(), 1);
  EXPECT_EQ(handler.calls.size(), 1u);
}

TEST_P(EventLoopTest, ModifyInsideHandler) {
  SocketPair pair = MakeSocketPair();
  RecordingHandler handler;
  handler.action = [&](int fd, int) { ASSERT_TRUE(loop_->Modify(fd, kNoEvents).ok()); };
  ASSERT_TRUE(loop_->Add(pair.a.get(), kReadable, &handler).ok());
  ASSERT_EQ(write(pair.b.get(), "x", 1), 1);
  EXPECT_EQ(loop_->RunOnce(-1).value(), 1);
  // The byte is still unread, but the handler paused itself.
  EXPECT_EQ(loop_->RunOnce(0).value(), 0);
  EXPECT_EQ(handler.calls.size(), 1u);
}

TEST_P(EventLoopTest, RemoveInsideHandlerDropsPendingEventsOfTheRemovedFd) {
  SocketPair first = MakeSocketPair();
  SocketPair second = MakeSocketPair();
  RecordingHandler handler;
  // Whichever fd is dispatched first removes both; the other's event, already collected in this
  // batch, must not be delivered.
  handler.action = [&](int, int) {
    loop_->Remove(first.a.get());
    loop_->Remove(second.a.get());
  };
  ASSERT_TRUE(loop_->Add(first.a.get(), kReadable, &handler).ok());
  ASSERT_TRUE(loop_->Add(second.a.get(), kReadable, &handler).ok());
  ASSERT_EQ(write(first.b.get(), "x", 1), 1);
  ASSERT_EQ(write(second.b.get(), "x", 1), 1);
  EXPECT_EQ(loop_->RunOnce(-1).value(), 1);
  EXPECT_EQ(handler.calls.size(), 1u);
  EXPECT_EQ(loop_->RunOnce(0).value(), 0);
  // Removed fds may be added again, also with a new handler.
  RecordingHandler again;
  ASSERT_TRUE(loop_->Add(first.a.get(), kReadable, &again).ok());
  EXPECT_EQ(loop_->RunOnce(-1).value(), 1);
  EXPECT_EQ(again.calls.size(), 1u);
}

TEST_P(EventLoopTest, RemoveAndCloseSelfThenReuseFdNumberInsideHandler) {
  SocketPair pair = MakeSocketPair();
  SocketPair other = MakeSocketPair();
  RecordingHandler handler;
  RecordingHandler replacement;
  UniqueFd reused;
  handler.action = [&](int fd, int) {
    loop_->Remove(fd);
    pair.a.reset();
    // The lowest free fd number is the one just closed: a fresh connection would get it.
    reused.reset(dup(other.a.get()));
    ASSERT_EQ(reused.get(), fd);
    ASSERT_TRUE(loop_->Add(reused.get(), kReadable, &replacement).ok());
  };
  ASSERT_TRUE(loop_->Add(pair.a.get(), kReadable, &handler).ok());
  ASSERT_EQ(write(pair.b.get(), "x", 1), 1);
  EXPECT_EQ(loop_->RunOnce(-1).value(), 1);
  EXPECT_TRUE(replacement.calls.empty());
  ASSERT_EQ(write(other.b.get(), "y", 1), 1);
  EXPECT_EQ(loop_->RunOnce(-1).value(), 1);
  EXPECT_EQ(replacement.calls.size(), 1u);
  loop_->Remove(reused.get());
}

TEST_P(EventLoopTest, TimersRunInDeadlineOrderAndCancelledOnesNever) {
  std::vector<int> order;
  int64_t now = MonotonicNanos();
  loop_->AddTimer(now - 10, [&] { order.push_back(3); });
  loop_->AddTimer(now - 30, [&] { order.push_back(1); });
  uint64_t cancelled = loop_->AddTimer(now - 20, [&] { order.push_back(99); });
  loop_->AddTimer(now - 20, [&] { order.push_back(2); });  // same deadline: runs after its elder
  loop_->AddTimer(now + 3600 * kNanosPerSecond, [&] { order.push_back(100); });
  loop_->CancelTimer(cancelled);
  loop_->CancelTimer(cancelled);  // twice is harmless
  ASSERT_TRUE(loop_->RunOnce(0).ok());
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST_P(EventLoopTest, RunOnceWaitsForTheNextTimer) {
  bool fired = false;
  loop_->AddTimer(MonotonicNanos() + kNanosPerMilli, [&] { fired = true; });
  // Returns once the timer is due; no fd is watched.
  while (!fired) ASSERT_TRUE(loop_->RunOnce(-1).ok());
  EXPECT_TRUE(fired);
}

TEST_P(EventLoopTest, TimerAddedByTimerWaitsForTheNextPass) {
  int runs = 0;
  std::function<void()> rearm = [&] {
    ++runs;
    loop_->AddTimer(0, rearm);
  };
  loop_->AddTimer(0, rearm);
  ASSERT_TRUE(loop_->RunOnce(0).ok());
  EXPECT_EQ(runs, 1);
  ASSERT_TRUE(loop_->RunOnce(0).ok());
  EXPECT_EQ(runs, 2);
}

TEST_P(EventLoopTest, PostAndStopFromAnotherThread) {
  std::promise<std::thread::id> ran_on;
  std::thread runner([&] { EXPECT_TRUE(loop_->Run().ok()); });
  std::vector<int> seen;  // touched only on the loop thread, read after join
  for (int i = 0; i < 1000; ++i) loop_->Post([&seen, i] { seen.push_back(i); });
  loop_->Post([&] { ran_on.set_value(std::this_thread::get_id()); });
  EXPECT_EQ(ran_on.get_future().get(), runner.get_id());
  loop_->Stop();
  runner.join();
  ASSERT_EQ(seen.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(seen[i], i);
}

TEST_P(EventLoopTest, StopFromHandlerAndBeforeRun) {
  loop_->Stop();
  EXPECT_TRUE(loop_->Run().ok());  // returns at once
  SocketPair pair = MakeSocketPair();
  RecordingHandler handler;
  handler.action = [&](int, int) { loop_->Stop(); };
  ASSERT_TRUE(loop_->Add(pair.a.get(), kWritable, &handler).ok());
  EXPECT_TRUE(loop_->Run().ok());
  EXPECT_EQ(handler.calls.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, EventLoopTest, testing::ValuesIn(AvailableEventLoopBackends()),
                         [](const testing::TestParamInfo<EventLoopBackend>& info) {
                           return std::string(EventLoopBackendName(info.param));
                         });

// ---- A failing wait is returned, not retried ----

// poll(2) fails with EINVAL when asked to watch more fds than RLIMIT_NOFILE allows, and fails the
// same way on every call: a loop that treated it as "nothing ready" would spin for ever.
TEST(EventLoopErrorTest, PollFailureIsReturnedByRunOnceAndRun) {
  absl::StatusOr<std::unique_ptr<EventLoop>> loop = EventLoop::Create(EventLoopBackend::kPoll);
  ASSERT_TRUE(loop.ok()) << loop.status();
  std::vector<SocketPair> pairs;
  RecordingHandler handler;
  for (int i = 0; i < 8; ++i) {  // 8 fds, and the wake-up pipe
    pairs.push_back(MakeSocketPair());
    ASSERT_TRUE((*loop)->Add(pairs.back().a.get(), kReadable, &handler).ok());
  }
  absl::StatusOr<int> once;
  absl::Status run;
  {
    ScopedFdLimit limit(4);
    ASSERT_TRUE(limit.ok()) << "setrlimit(RLIMIT_NOFILE)";
    once = (*loop)->RunOnce(0);
    run = (*loop)->Run();  // no Stop(): returns only because the wait fails
  }
  ASSERT_FALSE(once.ok());
  EXPECT_EQ(once.status().code(), absl::StatusCode::kInvalidArgument) << once.status();
  EXPECT_TRUE(absl::StrContains(once.status().message(), "poll(9 fds)")) << once.status();
  EXPECT_TRUE(absl::StrContains(once.status().message(), "[EINVAL]")) << once.status();
  EXPECT_EQ(run, once.status());
  EXPECT_TRUE(handler.calls.empty());
  // With the limit back, the same loop works again: the error was the wait's, not the loop's.
  EXPECT_EQ((*loop)->RunOnce(0).value(), 0);
}

TEST(EventLoopBackendTest, ParsesNames) {
  EXPECT_EQ(*ParseEventLoopBackend("poll"), EventLoopBackend::kPoll);
  EXPECT_FALSE(ParseEventLoopBackend("select").ok());
}

TEST(EventLoopBackendTest, EpollExactlyWhereItIsBuilt) {
  EXPECT_EQ(AvailableEventLoopBackends().size(), kHasEpoll ? 2u : 1u);
  EXPECT_EQ(ParseEventLoopBackend("epoll").ok(), kHasEpoll);
  EXPECT_EQ(DefaultEventLoopBackend(),
            kHasEpoll ? EventLoopBackend::kEpoll : EventLoopBackend::kPoll);
  EXPECT_EQ(EventLoop::Create(EventLoopBackend::kEpoll).ok(), kHasEpoll);
}

}  // namespace
}  // namespace netbench
