"""Studies beside the suite, on its scenarios and round loop: the variance study (variance_study.py) and the
dimensioning study (dimensioning_study.py), each a command of its own (BUILD.bazel)."""
