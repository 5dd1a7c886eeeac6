"""The source checkout the suite works in: where it builds programs, reads the git commit and stores results.

    subprocess.run(["git", "-C", checkout.repo_root(), "rev-parse", "HEAD"])
"""

import os


def repo_root():
    """The source checkout: where `bazel run` was invoked, else the folder above bench/ (this file is
    bench/base/checkout.py)."""
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if workspace:
        return workspace
    here = os.path.dirname(os.path.realpath(__file__))
    return os.path.dirname(os.path.dirname(here))


def stored_runs():
    """results/data/ of the checkout: one folder per machine's stored run, and compare/."""
    return os.path.join(repo_root(), "results", "data")
