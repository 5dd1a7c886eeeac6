"""The stored results of one run: a folder of its own under the runs' parent folder (results/data of the
checkout, unless the command line names another: parent_from), named by the run's label or by the machine's
label and the run's start time, with a <name>.json per part: every sample and the run's environment. A run never
writes into another run's folder: a label already taken gets its start time added. The folder is chosen once, by
the command line, and handed down; nothing here reads the environment. Every document is checked against its
schema (bench/reporting/result_schema.py, results/README.md) when written and when read.

    parent = result_files.parent_from(os.environ)         # NETBENCH_RESULTS_DIR, else results/data
    folder = result_files.start_run(parent, label=None)   # a new run's folder, made
    result_files.write_document(os.path.join(folder, "echo_writeup.json"), document)   # validated

A file that cannot be written (a full disk, a read-only folder) raises ResultWriteError naming its path and
errno, after its text has been written to a fallback under $TMPDIR: nothing measured is lost.
"""

import errno
import json
import os
import re
import tempfile
import time

from bench.base import checkout
from bench.base import progress
from bench.reporting import result_schema
from bench.reporting import run_environment


INTEGER_PAIR = re.compile(r"\[\s*(-?\d+),\s*(-?\d+)\s*\]")
PAIR_BREAK = re.compile(r"(?<=\d)\],\s*\n\s*\[(?=-?\d+, -?\d+\])")


class ResultWriteError(OSError):
    """A result file that could not be written: `path`, the errno, and `fallback`, where its text went instead
    (None when that failed too)."""

    def __init__(self, path, error, fallback):
        name = errno.errorcode.get(error.errno, str(error.errno))
        kept = (f"its contents are kept in {fallback}" if fallback
                else "and no fallback under $TMPDIR could be written either")
        super().__init__(error.errno, f"cannot write {path}: {error.strerror} ({name}); {kept}")
        self.path = path
        self.fallback = fallback


PARENT, LABEL = "NETBENCH_RESULTS_DIR", "NETBENCH_RESULTS_LABEL"


def parent_from(environ):
    """Where runs' folders are, as the command line's `environ` says: NETBENCH_RESULTS_DIR, else results/data of
    the checkout."""
    return environ.get(PARENT) or checkout.stored_runs()


def label_from(environ, chosen=None):
    """The run folder's name: the one `environ` asks for (NETBENCH_RESULTS_LABEL), else the one the run `chosen`
    (None: the machine's label and start time), except under a parent `environ` names, where the run keeps its
    default name."""
    return environ.get(LABEL) or (None if environ.get(PARENT) else chosen)


def machine_folder(environ, name):
    """The folder `name` of this machine's results (a study's), under the parent `environ` says: named by
    NETBENCH_RESULTS_LABEL, else by the machine's label."""
    return os.path.join(parent_from(environ), label_from(environ) or run_environment.machine_label(), name)


def start_run(parent, label=None, started=None):
    """Chooses and makes this run's folder under `parent`: `label`, else the machine's label and the run's start
    time (UTC); a name already taken gets the time (then a count) added. Returns its path."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(started))
    names = [label, f"{label}-{stamp}"] if label else [f"{run_environment.machine_label()}-{stamp}"]
    names += [f"{names[-1]}-{n}" for n in range(2, 100)]
    path = next(os.path.join(parent, n) for n in names
                if not os.path.exists(os.path.join(parent, n)) or not os.listdir(os.path.join(parent, n)))
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        pass  # writing there says why, naming the file, and keeps its contents elsewhere (write_text)
    return path


def write_text(path, text):
    """Writes `text` to `path` (its folder made first). On any OSError the text goes to a fallback file under
    $TMPDIR (tempfile.gettempdir()) and ResultWriteError says both paths and the errno."""
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    except OSError as error:
        fallback = None
        try:
            descriptor, fallback = tempfile.mkstemp(prefix="netbench-unsaved-", suffix="-" + os.path.basename(path))
            with os.fdopen(descriptor, "w") as f:
                f.write(text)
        except OSError:
            fallback = None
        failure = ResultWriteError(path, error, fallback)
        progress.log(f"bench: {failure}")
        raise failure from error


def write_document(path, document, indent=1):
    """Writes a result document as JSON and returns its mismatches with its schema ([] when it matches). A
    document that does not match is still written, so that a run's samples are never lost to a schema
    mistake, and the mismatches are logged; callers raise result_schema.SchemaError once their other files
    are written."""
    errors = result_schema.validate(document)
    text = json.dumps(document, indent=indent)
    # A histogram's buckets, thousands of [lowest value, count] pairs: one line for all, not four lines each.
    text = PAIR_BREAK.sub("], [", INTEGER_PAIR.sub(r"[\1, \2]", text))
    write_text(path, text + "\n")
    if errors:
        progress.log(f"{path} does not match its schema ({document.get('schema')}):\n  " + "\n  ".join(errors[:10]))
    return errors


def latest_run(parent, label=None):
    """The newest run folder under `parent` named by `label` (else this machine's label) that holds results, or
    None: the label alone (a run stored before runs had folders of their own) or with a start time."""
    mine = re.compile(re.escape(label or run_environment.machine_label()) + r"(-\d{8}T\d{6}Z(-\d+)?)?")
    runs = [os.path.join(parent, n) for n in os.listdir(parent) if mine.fullmatch(n)] if os.path.isdir(parent) else []
    runs = [r for r in runs if any(f.endswith(".json") for f in os.listdir(r))]
    return max(runs, key=lambda r: max(os.path.getmtime(os.path.join(r, f)) for f in os.listdir(r)), default=None)
