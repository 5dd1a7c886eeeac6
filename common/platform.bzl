"""What differs between Linux and the other POSIX systems, for BUILD files (platform.h is the C++ side).

    load("//common:platform.bzl", "if_epoll", "if_uring")

    srcs = ["poll_event_loop.cc"] + if_epoll(["epoll_event_loop.cc"]),
    args = if_epoll(["threads", "poll", "epoll"], ["threads", "poll"]),

epoll is built on Linux, except under --define=netbench_platform=posix (--config=libcxx), which builds
the POSIX fallback there to prove it. portability_sources() hands a package's C++ files to
//:portability_test, which checks that only common/platform.cc and the epoll backend call Linux's own
functions.
"""

def if_epoll(with_epoll, without_epoll = []):
    return select({
        "//common:linux_posix_forced": without_epoll,
        "//common:linux": with_epoll,
        "//conditions:default": without_epoll,
    })

def if_uring(with_uring, without_uring = []):
    """io_uring (the uring server model, liburing) is built exactly where epoll is: Linux, except under
    --config=libcxx, which proves the POSIX build without it. Whether the kernel lets a process use it
    is for the program to find out when it starts (server.h's UringSupport)."""
    return if_epoll(with_uring, without_uring)

def portability_sources():
    """This package's C++ files, as :sources, for //:portability_test, which reads them all."""
    native.filegroup(
        name = "sources",
        srcs = native.glob(["**/*.cc", "**/*.h"]),
        visibility = ["//:__pkg__"],
    )
