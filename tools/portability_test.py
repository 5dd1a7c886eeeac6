"""Linux's and glibc's own interfaces appear only in common/platform.cc, common/epoll_event_loop.cc and the
io_uring model's files (issue 12, issue 22): everything else calls common/platform.h, so that it builds on macOS and FreeBSD.

`--config=libcxx` builds platform.h's POSIX fallbacks on Linux and proves that they work; it cannot prove that
nothing else calls Linux's own functions, because on Linux those compile. This test does, by name. A file in
NOT_YET_PORTED is reported, not failed: its remaining calls are listed in the test log.
"""

import os
import re
import sys
import unittest

# Each name, and what to call instead (common/platform.h unless it says otherwise).
LINUX_ONLY = [
    (r"\baccept4\b", "AcceptConnection"),
    (r"\bSOCK_(NONBLOCK|CLOEXEC)\b", "OpenStreamSocket or AcceptConnection"),
    (r"\bMSG_NOSIGNAL\b", "SendNoSignal or SendMessageNoSignal"),
    (r"\bpipe2\b", "OpenPipe"),
    (r"\bprctl\b|<sys/prctl\.h>", "RequestPreciseWakeups"),
    (r"\bclock_nanosleep\b", "SleepUntilMonotonic"),
    (r"<malloc\.h>|\bmallopt\b|\bmalloc_trim\b", "RetainFreedHeap"),
    (r"\bprogram_invocation_(short_)?name\b", "nothing: a program's *_main.cc is known by its name (server_flags.cc)"),
    (r"\bsched_getaffinity\b|\bCPU_COUNT\b", "AvailableCpuCount"),
    (r"\bEAI_ADDRFAMILY\b", "nothing: Resolve retries any lasting failure (socket.cc)"),
    (r"\"/proc/", "CpuModelName, ReadProcessStatLine or ReadNetworkLimits"),
    (r"<sys/epoll\.h>|\bepoll_(create1?|ctl|wait)\b", "EventLoop (event_loop.h)"),
    (r"<sys/(eventfd|timerfd|sendfile)\.h>|\bsplice\b", "a POSIX form, or a function in platform.h"),
]

# Linux's own, on purpose.
ALLOWED = {
    "common/platform.cc", "common/epoll_event_loop.cc", "common/epoll_event_loop_test.cc",
    # The io_uring model, built where epoll is (platform.bzl's if_uring), and its test.
    "common/uring_probe.cc", "common/uring_server.cc", "common/uring_server_test.cc",
    "common/uring_client_runner.cc", "common/internal/uring_buffer_ring.h", "common/uring_client_test.cc",
    "common/internal/uring_ring.h",
    "testing/refuse_io_uring.cc",
}

# The clients, being rewritten at the time of issue 12; each comes off this list when it moves to platform.h.
NOT_YET_PORTED = set()

# A // comment, not the // of "http://".
COMMENT = re.compile(r"(^|\s)//.*$")


def sources():
    root = os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"])
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "external"]
        for name in files:
            if name.endswith((".cc", ".h")):
                path = os.path.join(folder, name)
                yield os.path.relpath(path, root), path


def linux_only_calls(path):
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            code = COMMENT.sub("", line)
            for pattern, instead in LINUX_ONLY:
                for match in re.finditer(pattern, code):
                    yield f"{number}: {match.group(0)} (instead: {instead})"


class PortabilityTest(unittest.TestCase):
    def test_only_the_platform_files_call_linux_only_functions(self):
        found = dict(sources())
        # The test sees every package's sources (BUILD.bazel), or it proves nothing.
        for expected in ("common/platform.cc", "echo/server_main.cc", "websocket/server_main.cc",
                         "httpfanout/origin_main.cc", "testing/child_process.cc"):
            self.assertIn(expected, found)
        offenders, remaining = [], []
        for name, path in sorted(found.items()):
            if name in ALLOWED:
                continue
            calls = [f"{name}:{call}" for call in linux_only_calls(path)]
            (remaining if name in NOT_YET_PORTED else offenders).extend(calls)
        if remaining:
            print("Not yet ported (NOT_YET_PORTED):", *remaining, sep="\n  ", file=sys.stderr)
        self.assertEqual(offenders, [], "Linux-only calls outside common/platform.cc; use common/platform.h")


if __name__ == "__main__":
    unittest.main()
