"""Progress messages of the bench scripts: on stderr, flushed at once, so that a long run shows where it is
while stdout keeps only the tables a script prints at the end.

    progress.log(f"round {round_index + 1}/{samples}: {load} -> {server_name}")
"""

import sys


def log(message):
    print(message, file=sys.stderr, flush=True)
