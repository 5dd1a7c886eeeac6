"""The three write-ups as definitions (definition.py): each one's quote, loads, settings and claims read from its
file (bench/registry/writeups/<name>.toml, by claim_files.py), its cases (writeup_cases.py) and its section
(writeup_sections.py). The command line runs every one of them alike.

    writeup_definitions.ECHO.cases(entries, runners, settings)
    writeup_definitions.ECHO.section(rows, fates, settings)     # data: bench/reporting/document.py
    writeup_definitions.ECHO.section(rows, fates, settings, stored)  # again, with the verdicts a run kept
"""

from bench.scenarios import claim_files
from bench.scenarios import definition
from bench.scenarios import writeup_cases
from bench.scenarios import writeup_sections

# The throughput claims judge each run's steady-state rate (writeup_cases.steady_figures): the write-ups measured
# sustained rates, and a run's first tenths of a second (buffers filling, a server warming) are not one.
STEADY_RATE = "steady_msgs_per_s"

FILES = {name: claim_files.writeup(name) for name in ("echo", "websocket", "fanout")}


def _section(name, builder):
    """The write-up `name`'s section: `builder` (writeup_sections.py's) with its file's claims and quote."""
    writeup = FILES[name]

    def section(rows, fates, settings, stored=None):
        return builder(rows, fates, settings, writeup.claims(rows), writeup.quote, stored)
    return section


def _definition(name, **rest):
    """The write-up `name`'s definition: what its file says (settings, quick, as written, its claims), and
    `rest`, what its code says (its cases, flags, how long a case takes)."""
    writeup = FILES[name]
    return definition.Definition(
        name=name, document=f"{name}_writeup", settings=dict(writeup.settings), quick=dict(writeup.quick),
        section=_section(name, getattr(writeup_sections, f"{name}_section")), claims=writeup.claims,
        as_written=dict(writeup.as_written.get("settings", {})),
        writeup_contestants=tuple(writeup.as_written.get("contestants", ())), control=writeup.control, **rest)


# ------------------------------------------------------------------------------------------------------ echo

# Its run length, and why: bench/registry/writeups/echo.toml.
ECHO = _definition("echo", flags={"samples": "samples", "seconds": "echo_seconds"}, cases=writeup_cases.echo_cases,
                   link_keys=("server", "client"), case_s=lambda settings: settings["seconds"] * 1.05 + 0.1)

# ------------------------------------------------------------------------------------------------- websocket

# Its run length, and why: bench/registry/writeups/websocket.toml.
WEBSOCKET = _definition("websocket", flags={"samples": "samples", "messages": "websocket_messages"},
                        cases=writeup_cases.websocket_cases, link_keys=("server", "client", "procs", "clients"),
                        case_s=lambda settings: settings["messages"] / 40000 + 0.1)

# ---------------------------------------------------------------------------------------------------- fanout

# The cells the fan-out's claims compare.
FANOUT_CLAIM_SERVERS = ("origin-50ms",)


def fanout_cases(entries, runners, settings):
    """Every client in each of its conditions against every server and scheme (writeup_cases.fanout_cases), the
    JVM clients against the write-up's origin only: each of their runs starts a JVM and warms it for seconds
    (two thirds of a round's time against all three servers), and against the others they answer no claim."""
    cases, fates = writeup_cases.fanout_cases(entries, runners, settings)
    jvm = {name for name, _ in writeup_sections.FANOUT_JVM_CLIENTS}
    return [c for c in cases if c.fields["client"] not in jvm or c.fields["server"] in FANOUT_CLAIM_SERVERS], fates


# Its warm-up, and why: bench/registry/writeups/fanout.toml.
FANOUT = _definition(
    "fanout", flags={"samples": "fanout_samples", "reps": "fanout_reps"}, cases=fanout_cases,
    # The stored run's mean: 4.2 s a run of 500 requests, 3 timed and 3 warm-up repetitions.
    case_s=lambda settings: 0.7 * (settings["reps"] + settings["warmup"]) * settings["requests"] / 500 + 0.1,
    # In the shared placement only: the write-up's client had its machine to itself and fetched from a remote
    # site, which the shared placement is the nearer to (split would leave the JVM one CPU to size its pools
    # from); and its JVM runs, 8-20 s each, decide the claims in about 8 rounds, which both placements could
    # not fit beside echo and websocket in the main job's 30 minutes.
    placements=("shared",))

ALL = (ECHO, WEBSOCKET, FANOUT)
