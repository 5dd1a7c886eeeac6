// ReadyPort: the port of every form of ready line the servers print, and -1 for any other line.
#include "testing/child_process.h"

#include "gtest/gtest.h"

namespace netbench {
namespace {

TEST(ReadyPortTest, ReadsThePortOfEveryFormOfReadyLine) {
  EXPECT_EQ(ReadyPort("listening on 127.0.0.1:8080 model=epoll threads=1"), 8080);
  EXPECT_EQ(ReadyPort("listening on 127.0.0.1:7000"), 7000);
  EXPECT_EQ(ReadyPort("listening on [::1]:9 model=poll"), 9);
  EXPECT_EQ(ReadyPort("listening on :65535"), 65535);
}

TEST(ReadyPortTest, RefusesEveryOtherLine) {
  EXPECT_EQ(ReadyPort(""), -1);
  EXPECT_EQ(ReadyPort("tls certificate sha256 ab:cd"), -1);
  EXPECT_EQ(ReadyPort("listening on 127.0.0.1"), -1);
  EXPECT_EQ(ReadyPort("listening on 127.0.0.1:"), -1);
  EXPECT_EQ(ReadyPort("listening on 127.0.0.1:80x"), -1);
  EXPECT_EQ(ReadyPort("listening on 127.0.0.1:99999"), -1);
  EXPECT_EQ(ReadyPort("listening on 127.0.0.1:1234567"), -1);
  EXPECT_EQ(ReadyPort("2024/01/02 listening on :9000"), -1);  // a log prefix: not netbench's form
}

}  // namespace
}  // namespace netbench
