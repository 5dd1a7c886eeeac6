"""What differs between Linux and the other POSIX systems, for BUILD files (platform.h is the C++ side).

    load("//common:platform.bzl", "if_epoll")

    srcs = ["poll_event_loop.cc"] + if_epoll(["epoll_event_loop.cc"]),
    args = if_epoll(["threads", "poll", "epoll"], ["threads", "poll"]),

epoll is built on Linux, except under --define=netbench_platform=posix (--config=libcxx), which builds
the POSIX fallback there to prove it.
"""

def if_epoll(with_epoll, without_epoll = []):
    return select({
        "//common:linux_posix_forced": without_epoll,
        "//common:linux": with_epoll,
        "//conditions:default": without_epoll,
    })
