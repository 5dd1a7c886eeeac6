"""The three write-ups as definitions (definition.py): each one's loads and settings, the cells its claims
compare, and its section (writeups.py renders it). The command line runs every one of them alike.

    writeup_definitions.ECHO.cases(entries, runners, settings)
    writeup_definitions.ECHO.section(rows, fates, settings)     # data: bench/reporting/document.py
    writeup_definitions.ECHO.section(rows, fates, settings, stored)  # again, with the verdicts a run kept
"""

import os

from bench.scenarios import definition
from bench.scenarios import scenarios
from bench.scenarios import writeups
from bench.scenarios.writeups import Claim

# ------------------------------------------------------------------------------------------------------ echo

ECHO_LOADS = ("go-spammer", "netbench-echo-client")  # the write-up's own load first
# The throughput claims judge each run's steady-state rate (scenarios.steady_figures): the write-ups measured
# sustained rates, and a run's first tenths of a second (buffers filling, a server warming) are not one.
STEADY_RATE = "steady_msgs_per_s"


def echo_claims(rows):
    """Each claim under the write-up's load (the Go spammer) and, where it ran, netbench's client as a second
    load."""
    clients = list(dict.fromkeys(r["client"] for r in rows))
    claims = []
    for load in [c for c in ECHO_LOADS if c in clients] or clients[:1]:
        note = "" if load == "go-spammer" else f" (second load: {load})"
        racket, go = {"server": "racket", "client": load}, {"server": "go", "client": load}
        about = {"variant": load, "headline": load == ECHO_LOADS[0]}
        claims += [
            Claim(f"Racket beats Go in msgs/s{note}", racket, go, STEADY_RATE, higher_is_better=True,
                  names=("racket", "go", load), question="Racket beats Go in msgs/s", **about),
            Claim(f"Go with GOMAXPROCS=1 beats Go at its default{note}", {"server": "go-gomaxprocs1", "client": load},
                  go, STEADY_RATE, higher_is_better=True, names=("go-gomaxprocs1", "go", load),
                  same_if=("gomaxprocs",), question="Go with GOMAXPROCS=1 beats Go at its default", **about),
            # A saturated load hides the servers' speed but not what each spends per message.
            Claim(f"Racket spends less server CPU per message than Go{note}", racket, go, "server_cpu_us_per_msg",
                  higher_is_better=False, names=("racket", "go", load),
                  question="Racket spends less server CPU per message than Go", **about),
        ]
    return claims


def echo_section(rows, fates, settings, stored=None):
    return writeups.echo_section(rows, fates, settings, echo_claims(rows), stored)


ECHO = definition.Definition(
    # 4 s a run: the shortest length whose steady-state ratio agreed with the write-up's 180-s runs in the
    # dimensioning study (bench/studies/dimensioning_study.py; results/data/linux-x86_64-2cpu/dimensioning/): Racket
    # against Go 1.14 (1.03 .. 1.27) at 1 s, 1.02 (0.82 .. 1.27) at 4 s, 1.02 (0.56 .. 1.84) at 180 s.
    name="echo", document="echo_writeup", settings={"seconds": 4.0, "clients": 3}, quick={"samples": 1, "seconds": 1.0},
    flags={"samples": "samples", "seconds": "echo_seconds"}, cases=scenarios.echo_cases, section=echo_section,
    link_keys=("server", "client"), claims=echo_claims, case_s=lambda settings: settings["seconds"] * 1.05 + 0.1,
    # The write-up: its spammer, 3 clients, 180 s against each server.
    as_written={"seconds": 180.0, "clients": 3}, writeup_contestants=("racket", "go", "go-gomaxprocs1", "go-spammer"))

# ------------------------------------------------------------------------------------------------- websocket

GO_PAIR = {"server": "go-xnet", "client": "go-xnet-client"}
FOUR_CORES = "Linux: Go at GOMAXPROCS=4 beats GOMAXPROCS=1 (4 clients; 233k to 571k)"
PEERS = ("bazel build //contestants/go:all; GOMAXPROCS=N bazel-bin/contestants/go/xnet_server -addr "
         "127.0.0.1:8080 & GOMAXPROCS=N bazel-bin/contestants/go/xnet_client 4 100000, N = 1 and 2")


def websocket_claims(rows):
    """GOMAXPROCS=2 against 1 at each connection count; the claims of 4 cores and of other systems, where this
    machine cannot test them, with the command that tests them there."""
    names = ("go-xnet", "go-xnet-client")
    question = "Linux: Go at GOMAXPROCS=2 beats GOMAXPROCS=1"
    connections = sorted({r["clients"] for r in rows}) or list(scenarios.WEBSOCKET_CLIENTS)
    claims = [Claim(f"{question} ({n} client{'s' if n > 1 else ''})",
                    {**GO_PAIR, "procs": 2, "clients": n}, {**GO_PAIR, "procs": 1, "clients": n}, STEADY_RATE,
                    higher_is_better=True, names=names, same_if=("gomaxprocs",), question=question,
                    variant=f"{n} client{'s' if n > 1 else ''}", headline=n == max(connections))
              for n in connections]
    cores = os.cpu_count() or 1
    if cores >= 4:
        claims.append(Claim(FOUR_CORES, {**GO_PAIR, "procs": 4, "clients": 4}, {**GO_PAIR, "procs": 1, "clients": 4},
                            STEADY_RATE, higher_is_better=True, names=names, per_placement=False, headline=True))
    else:
        claims.append(writeups.not_testable(
            FOUR_CORES, f"needs 4 cores, this machine has {cores} (columns 3 and 4 are oversubscribed here, like the "
            "write-up's dual-core FreeBSD rows)", "bazel run //:bench -- --only=websocket (on a machine of 4 or "
            "more cores)"))
    claims.append(writeups.not_testable("macOS: Go loses about 100k msgs/s at GOMAXPROCS=2",
                                        "needs macOS (this is " + os.uname().sysname + ")", PEERS))
    claims.append(writeups.not_testable("FreeBSD, two cores: the write-up's rows", "needs FreeBSD", PEERS))
    return claims


def websocket_section(rows, fates, settings, stored=None):
    return writeups.websocket_section(rows, fates, settings, websocket_claims(rows), stored)


WEBSOCKET = definition.Definition(
    # 20,000 messages per client: their ratio agreed with the write-up's 100,000 in the dimensioning study (GOMAXPROCS
    # 2 against 1, 4 clients: 1.20 (1.11 .. 1.30) at 20,000, 1.27 (1.18 .. 1.38) at 100,000).
    name="websocket", document="websocket_writeup", settings={"messages": 20000}, quick={"samples": 1,
                                                                                       "messages": 2000},
    flags={"samples": "samples", "messages": "websocket_messages"}, cases=scenarios.websocket_cases,
    section=websocket_section, link_keys=("server", "client", "procs", "clients"), claims=websocket_claims,
    case_s=lambda settings: settings["messages"] / 40000 + 0.1,
    # The write-up: x/net's server and client, 100,000 messages per client.
    as_written={"messages": 100000}, writeup_contestants=("go-xnet", "go-xnet-client"))

# ---------------------------------------------------------------------------------------------------- fanout

# The cells the fan-out's claims compare.
FANOUT_CLAIM_SERVERS = ("origin-50ms",)


def fanout_claims(rows):
    """The write-up's JVM side (the http-kit-design client) against Go from the origin answering after 50 ms,
    each scheme, in each condition, its own condition (as written up, http) the headline."""
    origin = FANOUT_CLAIM_SERVERS[0]
    claims = []
    for jvm_client, jvm_text in writeups.FANOUT_JUDGED_JVM_CLIENTS:
        question = f"JVM ({jvm_text}) faster than Go fetching 500 URLs (origin 50 ms)"
        for scheme in ("http", "https"):
            for index, (text, jvm_condition, go_client, go_condition) in enumerate(writeups.FANOUT_CONDITIONS):
                claims.append(Claim(
                    f"JVM ({jvm_text}) faster than Go, {scheme}, origin 50 ms; {text}",
                    {"server": origin, "scheme": scheme, "client": jvm_client, "condition": jvm_condition},
                    {"server": origin, "scheme": scheme, "client": go_client, "condition": go_condition},
                    "walls_s", higher_is_better=False, names=(jvm_client, go_client, origin), question=question,
                    variant=f"{scheme}, {writeups.FANOUT_CONDITION_NAMES[index]}",
                    headline=scheme == "http" and index == 0))
    return claims


def fanout_cases(entries, runners, settings):
    """Every client in each of its conditions against every server and scheme (scenarios.fanout_cases), the
    JVM clients against the write-up's origin only: each of their runs starts a JVM and warms it for seconds
    (two thirds of a round's time against all three servers), and against the others they answer no claim."""
    cases, fates = scenarios.fanout_cases(entries, runners, settings)
    jvm = {name for name, _ in writeups.FANOUT_JVM_CLIENTS}
    return [c for c in cases if c.fields["client"] not in jvm or c.fields["server"] in FANOUT_CLAIM_SERVERS], fates


def fanout_section(rows, fates, settings, stored=None):
    return writeups.fanout_section(rows, fates, settings, fanout_claims(rows), stored)


FANOUT = definition.Definition(
    # The JVM clients warm up for 3 repetitions and at least 10 s, as criterium (the write-up's harness) runs code
    # for 10 s before it times it: after 5 s, C2 is still compiling the client's loop, and the timed repetitions
    # took 7% longer (0.889 .. 0.973 in 20 paired rounds) and spent 60% more CPU. A quick run is a smoke check and
    # does not wait for the JIT.
    name="fanout", document="fanout_writeup",
    settings={"requests": 500, "reps": 3, "warmup": 3, "warmup_seconds": 10},
    quick={"samples": 1, "requests": 50, "reps": 1, "warmup": 0, "warmup_seconds": 0},
    flags={"samples": "fanout_samples", "reps": "fanout_reps"}, cases=fanout_cases,
    section=fanout_section, claims=fanout_claims,
    # The stored run's mean: 4.2 s a run of 500 requests, 3 timed and 3 warm-up repetitions.
    case_s=lambda settings: 0.7 * (settings["reps"] + settings["warmup"]) * settings["requests"] / 500 + 0.1,
    # In the shared placement only: the write-up's client had its machine to itself and fetched from a remote
    # site, which the shared placement is the nearer to (split would leave the JVM one CPU to size its pools
    # from); and its JVM runs, 8-20 s each, decide the claims in about 8 rounds, which both placements could
    # not fit beside echo and websocket in the main job's 30 minutes.
    placements=("shared",),
    # The write-up's harnesses: criterium's `bench` (10 s of warm-up, as the JVM clients do by default, then 60
    # samples) against Go's testing.B; the origin stands in for the site it fetched from, and Go's kept
    # condition needs go-keep (net/http's default transport keeps 2 connections per host).
    as_written={"reps": 60}, writeup_contestants=("origin-50ms", "jvm", "go", "go-keep"))

ALL = (ECHO, WEBSOCKET, FANOUT)
