"""Where a write-up's two sides run on this machine's CPUs: part of each write-up's design.

    shared  server and load may use every CPU, as the write-ups ran them on one machine: the faithful
            reproduction, and the verdict's headline. Go and the JVM size themselves from all the CPUs.
    split   server and load on disjoint halves of the CPUs (sched_setaffinity): each side's efficiency with a
            core of its own. A Go program then sees only its half: GOMAXPROCS unset follows it.

    names = placement.parse("shared,split")          # ValueError naming the bad word
    placement.ANSWERS["split"]                       # the sentence a section prints for it

contest.Runner(pin=True) is a split runner, contest.Runner() a shared one (bench/cli/pipeline.py makes one per placement).
"""

SHARED, SPLIT = NAMES = ("shared", "split")
ANSWERS = {
    "shared": "server and load share every CPU, as the write-ups ran them: which system is faster on one "
              "machine, contention included",
    "split": "server and load each have their own half of the CPUs: how each side does with a core of its "
             "own, and what it costs per message, without the other taking its CPU",
}


def parse(text):
    """The placements named in `text` ("shared", "split" or both, comma-separated), in the order of NAMES."""
    words = [w.strip() for w in text.split(",") if w.strip()]
    unknown = [w for w in words if w not in NAMES]
    if unknown or not words:
        raise ValueError(f"--placement takes {' and/or '.join(NAMES)}, comma-separated; got '{text}'")
    return [n for n in NAMES if n in words]
