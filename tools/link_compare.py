"""The websocket write-up's sink load over three links in the same rounds: loopback, two test hosts joined by
an unshaped veth link, and two test hosts on a Gigabit link (tools/testnet.sh up --rate=1gbit).

  sudo /usr/bin/python3 tools/link_compare.py --bin-dir=bazel-bin --rounds=5 --out=DIR

For every round, every case in an order shuffled per round: link x pair x clients, where pair is netbench's
sink server and client (//websocket:server --mode=sink --model=epoll, //websocket:client, the suite's
registry commands) or Go's x/net server and client (//contestants/go:xnet_server, xnet_client -drain), both
at --procs (GOMAXPROCS, netbench's --threads), CLIENTS x --messages "hello, world!" messages. On the test
hosts the server runs in the first host's namespace on its address, the client in the second's, each
started with `ip netns exec`; on loopback both run here. msgs/s is what each client prints ("rate of
N/second"). The result: every run and, per pair and clients, each link's median and the per-round ratio of
each link to loopback and of the Gigabit link to the unshaped one (DIR/link_compare.json, link_compare.md).
Exit 1 when a run fails (its output is kept), 2 for usage. Needs root (namespaces) and tc's tbf.

Why beside the suite: it puts three links (loopback, an unshaped veth, the shaped one) in the same rounds and
starts both sides with `ip netns exec`, without SSH; the suite's `--server-host ... --compare-loopback` compares
one link with loopback (results/data/linux-x86_64-2cpu-veth-1gbit-ssh/README.md has both runs).
"""

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time

TESTNET = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testnet.sh")
LINKS = ("loopback", "veth", "veth-1gbit")
RATE = re.compile(r"rate of ([0-9.]+)/second")


def testnet(*args):
    return subprocess.run([TESTNET, *args], capture_output=True, text=True, check=True, timeout=120).stdout


def in_ns(namespace, argv):
    return argv if namespace is None else ["ip", "netns", "exec", namespace, *argv]


def pair_commands(pair, bin_dir, host, port, clients, messages, procs):
    url = f"ws://{host}:{port}/echo"
    if pair == "netbench":
        server = [os.path.join(bin_dir, "websocket/server"), f"--host={host}", f"--port={port}", "--mode=sink",
                  "--model=epoll", f"--threads={procs}"]
        client = [os.path.join(bin_dir, "websocket/client"), f"--url={url}", f"--clients={clients}",
                  f"--messages={messages}", "--model=epoll", f"--threads={procs}", "--timeout=120s",
                  "--progress=false"]
        return server, client, {}
    server = [os.path.join(bin_dir, "contestants/go/xnet_server"), "-addr", f"{host}:{port}"]
    client = [os.path.join(bin_dir, "contestants/go/xnet_client"), "-url", url, "-timeout", "120s", "-drain",
              str(clients), str(messages)]
    return server, client, {"GOMAXPROCS": str(procs)}


def run_case(bin_dir, where, pair, clients, messages, procs, port):
    """msgs/s of one run; raises RuntimeError with the output when it fails."""
    (server_ns, host), client_ns = where
    server_argv, client_argv, env = pair_commands(pair, bin_dir, host, port, clients, messages, procs)
    environment = {**os.environ, **env}
    server = subprocess.Popen(in_ns(server_ns, server_argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, env=environment)
    try:
        for line in server.stdout:
            if line.startswith("listening on"):
                break
        else:
            raise RuntimeError(f"{pair} server exited {server.wait()} before listening")
        result = subprocess.run(in_ns(client_ns, client_argv), capture_output=True, text=True, env=environment,
                                timeout=180)
        output = result.stdout + result.stderr
        match = RATE.search(output)
        if result.returncode != 0 or not match:
            raise RuntimeError(f"{pair} client exited {result.returncode}:\n{output[-1500:]}")
        return float(match.group(1))
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server.stdout.close()


def summarize(runs, rounds):
    """Per (pair, clients): each link's median msgs/s and per-round ratios against loopback and veth."""
    table = []
    keys = sorted({(r["pair"], r["clients"]) for r in runs})
    for pair, clients in keys:
        by = {(r["link"], r["round"]): r["msgs_per_s"] for r in runs if r["pair"] == pair and r["clients"] == clients}
        entry = {"pair": pair, "clients": clients}
        for link in LINKS:
            values = [by[(link, i)] for i in range(rounds) if (link, i) in by]
            entry[link] = {"median": statistics.median(values) if values else None, "values": values}
        for a, b in (("veth", "loopback"), ("veth-1gbit", "loopback"), ("veth-1gbit", "veth")):
            ratios = [by[(a, i)] / by[(b, i)] for i in range(rounds) if (a, i) in by and (b, i) in by]
            entry[f"{a}/{b}"] = {"median": statistics.median(ratios) if ratios else None,
                                 "min": min(ratios, default=None), "max": max(ratios, default=None)}
        table.append(entry)
    return table


def markdown(table, settings):
    lines = [f"Rounds: {settings['rounds']}, {settings['messages']:,} messages per client, procs "
             f"{settings['procs']}; medians over rounds, ratios taken within each round (median, min .. max).", "",
             "| pair | clients | loopback msgs/s | veth msgs/s | 1 Gbit msgs/s | veth / loopback | 1 Gbit / loopback "
             "| 1 Gbit / veth |", "|---|---|---|---|---|---|---|---|"]
    fmt = lambda v: "-" if v is None else f"{v:,.0f}"
    ratio = lambda r: "-" if r["median"] is None else f"{r['median']:.3f} ({r['min']:.3f} .. {r['max']:.3f})"
    for e in table:
        lines.append(f"| {e['pair']} | {e['clients']} | {fmt(e['loopback']['median'])} | {fmt(e['veth']['median'])} | "
                     f"{fmt(e['veth-1gbit']['median'])} | {ratio(e['veth/loopback'])} | "
                     f"{ratio(e['veth-1gbit/loopback'])} | {ratio(e['veth-1gbit/veth'])} |")
    return "\n".join(lines) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", required=True, help="bazel-bin (with //websocket and //contestants/go built)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--messages", type=int, default=100000, help="per client")
    parser.add_argument("--clients", default="1,4")
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--pairs", default="netbench,go")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    clients = [int(c) for c in args.clients.split(",")]
    pairs = args.pairs.split(",")
    if (not 1 <= args.rounds <= 50 or not 1 <= args.messages <= 10_000_000 or not all(1 <= c <= 64 for c in clients)
            or not set(pairs) <= {"netbench", "go"} or not 1 <= args.procs <= 64):
        print("link_compare: --rounds 1..50, --messages 1..1e7, --clients 1..64 each, --pairs netbench,go, "
              "--procs 1..64", file=sys.stderr)
        return 2
    name_plain, name_gig = f"lc{os.getpid() % 100000}u", f"lc{os.getpid() % 100000}g"
    os.makedirs(args.out, exist_ok=True)
    runs, failures = [], []
    try:
        plain = [line.split() for line in testnet("up", "--name", name_plain, "--hosts", "2").splitlines()]
        gig = [line.split() for line in testnet("up", "--name", name_gig, "--hosts", "2", "--rate=1gbit").splitlines()]
        qdisc = subprocess.run(["tc", "-n", gig[0][0], "qdisc", "show", "dev", "eth0"], capture_output=True,
                               text=True).stdout.strip()
        print(f"link_compare: 1 Gbit hosts {gig}: {qdisc}", flush=True)
        where = {"loopback": ((None, "127.0.0.1"), None), "veth": ((plain[0][0], plain[0][1]), plain[1][0]),
                 "veth-1gbit": ((gig[0][0], gig[0][1]), gig[1][0])}
        cases = [(link, pair, n) for link in LINKS for pair in pairs for n in clients]
        port = 20000 + os.getpid() % 10000
        for round_index in range(args.rounds):
            order = cases[:]
            random.Random(round_index).shuffle(order)
            for link, pair, n in order:
                port += 1
                record = {"round": round_index, "link": link, "pair": pair, "clients": n}
                try:
                    record["msgs_per_s"] = run_case(args.bin_dir, where[link], pair, n, args.messages, args.procs,
                                                    port)
                    runs.append(record)
                    print(f"link_compare round {round_index + 1}/{args.rounds}: {pair} x{n} over {link}: "
                          f"{record['msgs_per_s']:,.0f} msgs/s", flush=True)
                except (RuntimeError, subprocess.TimeoutExpired) as error:
                    record["error"] = str(error)
                    failures.append(record)
                    print(f"link_compare round {round_index + 1}/{args.rounds}: {pair} x{n} over {link}: FAILED: "
                          f"{str(error).splitlines()[0]}", flush=True)
    finally:
        for name in (name_plain, name_gig):
            subprocess.run([TESTNET, "down", "--name", name], capture_output=True)
    settings = {"rounds": args.rounds, "messages": args.messages, "clients": clients, "procs": args.procs,
                "pairs": pairs, "qdisc": qdisc, "kernel": os.uname().release,
                "timestamp_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    table = summarize(runs, args.rounds)
    with open(os.path.join(args.out, "link_compare.json"), "w") as f:
        json.dump({"schema": "netbench.link_compare/1", "settings": settings, "table": table, "runs": runs,
                   "failures": failures}, f, indent=1)
        f.write("\n")
    with open(os.path.join(args.out, "link_compare.md"), "w") as f:
        f.write(markdown(table, settings))
    print(markdown(table, settings))
    if failures:
        print(f"link_compare: {len(failures)} run(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
