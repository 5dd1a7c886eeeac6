"""Fuzz targets: one LLVMFuzzerTestOneInput per parser, built two ways from the same source.

    load("//common:fuzz.bzl", "fuzz_target")

    fuzz_target(
        name = "close_frame_fuzzer",        # close_frame_fuzzer.cc beside close_frame.cc
        deps = [":close_frame"],
    )                                       # seeds: testdata/fuzz/close_frame_fuzzer/*

makes
- `close_frame_fuzzer`, a cc_binary: under `--config=fuzz` (clang 14, ASan, UBSan) libFuzzer's main, so
  `bazel-bin/.../close_frame_fuzzer -max_total_time=60 corpus/` fuzzes (tools/fuzz.sh runs them all);
  under the default g++ build common/fuzz_replay_main.cc, which runs the files named on its command line once.
- `close_frame_fuzzer_corpus_test`, a cc_test that runs every seed file through the target, so that
  `bazel test //...` replays the corpus with g++ too (and under --config=fuzz with libFuzzer).
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")

def fuzz_target(name, deps = [], srcs = None, corpus = None):
    srcs = srcs or [name + ".cc"]
    corpus = corpus or "testdata/fuzz/" + name
    cc_library(
        name = name + "_lib",
        testonly = True,
        srcs = srcs,
        deps = deps,
        alwayslink = True,
    )
    main_deps = [":" + name + "_lib"] + select({
        "//common:fuzzing_build": [],
        "//conditions:default": ["//common:fuzz_replay_main"],
    })
    main_linkopts = select({
        "//common:fuzzing_build": ["-fsanitize=fuzzer"],
        "//conditions:default": [],
    })
    cc_binary(
        name = name,
        testonly = True,
        deps = main_deps,
        linkopts = main_linkopts,
    )
    native.filegroup(
        name = name + "_corpus",
        srcs = native.glob([corpus + "/*"]),
    )
    cc_test(
        name = name + "_corpus_test",
        size = "small",
        deps = main_deps,
        linkopts = main_linkopts,
        data = [":" + name + "_corpus"],
        args = ["$(rootpaths :" + name + "_corpus)"],
    )
