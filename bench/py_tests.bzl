"""The suite's Python tests: one py_test per `*_test.py` of the calling folder, with Debian's python.

    load("//bench:py_tests.bzl", "py_tests")
    py_tests(deps = [":reporting"], data = {"charts_test": ["//results:stored_runs"]}, sizes = {"charts_test": "medium"})

A new module and its test in a folder need no line here: the folder's py_library globs its modules and this
macro its tests. Only a test that needs data (programs, stored runs), more time or a tag names itself.
"""

def py_tests(deps, data = {}, extra_deps = {}, sizes = {}, tags = {}, args = {}):
    """`deps`: every test's; the dicts are keyed by test name (the file name without `.py`)."""
    for src in native.glob(["*_test.py"]):
        name = src[:-len(".py")]
        native.py_test(
            name = name,
            srcs = [src],
            main = src,
            deps = deps + extra_deps.get(name, []),
            data = data.get(name, []),
            size = sizes.get(name, "small"),
            tags = tags.get(name, []),
            args = args.get(name, []),
            python_version = "PY3",
        )
