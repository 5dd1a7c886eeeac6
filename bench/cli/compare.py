"""The comparison's command line: `bazel run //:bench -- --compare=DIR_A --compare=DIR_B [--compare=DIR_C...]`
(or `bazel run //results:compare -- DIR_A DIR_B`), each DIR a run folder such as results/data/linux-x86_64-2cpu
(or just its name). It parses and calls bench/reporting/compare.py, which writes compare.json, COMPARE.md,
compare.html and one SVG chart per headline figure to --out (default results/data/compare/<A>_vs_<B>...).
Exit 0 when every document read matched its schema, 1 when one did not (the comparison of the rest is still
written), 2 for a usage error.

    bazel run //:bench -- --compare=linux-x86_64-2cpu --compare=linux-x86_64-2cpu-xeon
    bazel run //results:compare -- results/data/a results/data/b --out=/tmp/a-vs-b
"""

import argparse
import os
import sys

from bench.reporting import compare
from bench.base import checkout


def resolve_directory(text):
    """A run folder from the command line: a path (relative to where `bazel run` was invoked) or the name of a
    folder under results/data/."""
    for candidate in (os.path.join(invoked_from(), text), os.path.join(checkout.stored_runs(), text)):
        if os.path.isdir(candidate):
            return os.path.normpath(candidate)
    raise compare.UsageError(f"{text}: no such folder (nor results/data/{text})")


def invoked_from():
    return os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd()


def run(folders, out=None, draw_charts=True):
    """Compares the run `folders` (as given on the command line) into `out`; returns the exit status."""
    try:
        if len(folders) < 2:
            raise compare.UsageError("name at least two run folders to compare (DIR_A DIR_B [DIR_C...])")
        paths = [resolve_directory(text) for text in folders]
        if len(set(paths)) < len(paths):
            raise compare.UsageError("a run folder is named twice")
        runs = [compare.load_run(path, label) for path, label in zip(paths, compare.labels_for(paths))]
    except compare.UsageError as error:
        print(f"compare: {error}", file=sys.stderr)
        return 2
    out = os.path.join(invoked_from(), out) if out else compare.default_out([r.label for r in runs])
    document = compare.write(runs, out, draw_charts)
    print(f"compare: wrote {os.path.join(out, 'COMPARE.md')} and compare.html: {len(document['rows'])} figures of "
          f"shared cases, {len(document['warnings'])} warning(s), {len(document['only_in_some'])} in only some runs")
    for warning in document["warnings"]:
        print(f"  warning: {warning['warning']}")
    for entry in document["invalid"]:
        print(f"  {entry['run']}/{entry['file']} does not match its schema: {entry['errors'][0]}")
    return 1 if document["invalid"] else 0


def main(argv):
    parser = argparse.ArgumentParser(prog="compare", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="*", metavar="DIR",
                        help="run folders (results/data/<machine>, or the machine's name); the first is the base")
    parser.add_argument("--out", metavar="DIR", help="where to write the comparison (default "
                                                     "results/data/compare/<A>_vs_<B>)")
    parser.add_argument("--no-charts", action="store_true", help="tables only (no matplotlib needed)")
    args = parser.parse_args(argv)
    return run(args.runs, args.out, not args.no_charts)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
