#!/usr/bin/env bash
# Test hosts on one machine: network namespaces that act as hosts on a private /24, each joined by a veth pair
# to a bridge in the root namespace, so that a server and its clients talk over a link instead of loopback.
#
#   bench/running/testnet.sh up   [--name NAME] [--hosts N] [--subnet 10.A.B.0/24] [--rate RATE] [--delay TIME]
#   bench/running/testnet.sh down [--name NAME]
#   bench/running/testnet.sh list [--name NAME]
#
#   up     makes namespaces NAME1..NAMEN (default: nb, 3 hosts) and prints one line per host,
#          "<namespace> <address>": the hosts get .11, .12, ... of the subnet, the bridge (NAME-br, in the root
#          namespace) gets .1, so processes in the root namespace reach every host. Run a program on a host with
#          `ip netns exec NAME1 PROGRAM ...`. Idempotent: up again gives the same net (adding or removing hosts
#          to match --hosts); the default subnet is derived from NAME (in 10.200-254.x.0/24, the next free one
#          if another interface or route of this machine already covers it), so several nets can exist at once
#          under different names. A --subnet that this machine already uses is refused.
#   down   removes the namespaces (ending any process still running in them), their links and the bridge;
#          nothing to remove is fine.
#   list   prints the "<namespace> <address>" lines of a net that is up (exit 1 if it is not).
#
# Link profiles (up): the veth links run at memory speed unless shaped.
#   --rate RATE   each host's link carries at most RATE each way (tc's units: 1gbit, 100mbit, 500kbit): a tbf
#                 qdisc on both ends of its veth pair, eth0 in the host (what it sends) and NAME-v<i> in the root
#                 namespace (what it receives), with a burst of 1 ms at RATE (at least 32 KiB) and at most 5 ms
#                 queued. A Gigabit LAN between two test hosts: `up --hosts 2 --rate=1gbit`.
#   --delay TIME  each host's sends wait TIME (netem on its eth0; e.g. 1ms), so two hosts' round trip gains
#                 2 x TIME.
# up without them removes any shaping, so the net is what the command asked for. A qdisc this kernel lacks
# (netem is often not built, or not allowed in a namespace) is refused, naming the kind: up exits 1 rather
# than leave a net unshaped (one made by this command is removed again; one that was up before is left as
# it stands, part shaped: do not use it).

#
# NAME: a letter, then letters, digits or '_', at most 10 characters, not ending in a digit (so that "nb" host
# 11 and "nb1" host 1 cannot both be "nb11"). Needs root and iproute2's `ip`. Nothing here routes beyond the
# namespaces: they have no default route and no NAT, and reach each other only through the bridge.
set -euo pipefail

prog=testnet
usage() { awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"; }
usage_error() { echo "$prog: $*" >&2; echo "Run 'bench/running/testnet.sh --help' for usage." >&2; exit 2; }
die() { echo "$prog: error: $*" >&2; exit 1; }

# --- Arguments ---------------------------------------------------------------------------------------------
[ $# -gt 0 ] || usage_error "missing command: up, down or list"
case "$1" in
  -h|--help|help) usage; exit 0 ;;
  up|down|list) command=$1; shift ;;
  *) usage_error "unknown command '$1' (expected up, down or list)" ;;
esac

name=nb
hosts=3
subnet=
rate=
delay=
while [ $# -gt 0 ]; do
  arg=$1
  shift
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    --name=*|--hosts=*|--subnet=*|--rate=*|--delay=*) value=${arg#*=}; arg=${arg%%=*} ;;
    --name|--hosts|--subnet|--rate|--delay)
      [ $# -gt 0 ] || usage_error "$arg needs a value"
      value=$1
      shift ;;
    *) usage_error "unknown argument '$arg'" ;;
  esac
  case "$arg" in
    --name) name=$value ;;
    --hosts) [ "$command" = up ] || usage_error "--hosts is for 'up' only"; hosts=$value ;;
    --subnet) [ "$command" = up ] || usage_error "--subnet is for 'up' only"; subnet=$value ;;
    --rate) [ "$command" = up ] || usage_error "--rate is for 'up' only"; rate=$value ;;
    --delay) [ "$command" = up ] || usage_error "--delay is for 'up' only"; delay=$value ;;
  esac
done

[[ "$name" =~ ^[A-Za-z][A-Za-z0-9_]{0,9}$ ]] ||
  usage_error "--name='$name': a letter, then letters, digits or '_', 10 characters at most"
[[ "$name" =~ [0-9]$ ]] && usage_error "--name='$name' ends in a digit: host 1 of 'nb1' would be host 11 of 'nb'"
[[ "$hosts" =~ ^[1-9][0-9]{0,2}$ ]] && [ "$hosts" -le 200 ] || usage_error "--hosts='$hosts': a number from 1 to 200"

# --rate in bits a second, and the tbf burst: 1 ms at that rate, at least 32 KiB (a GSO packet on a veth is
# up to 64 KiB; tbf splits what exceeds its burst).
burst=
if [ -n "$rate" ]; then
  [[ "$rate" =~ ^([1-9][0-9]{0,5})(bit|kbit|mbit|gbit)$ ]] ||
    usage_error "--rate='$rate': a whole number and a unit, bit, kbit, mbit or gbit (e.g. 1gbit, 100mbit)"
  case "${BASH_REMATCH[2]}" in
    bit) bits=${BASH_REMATCH[1]} ;;
    kbit) bits=$((BASH_REMATCH[1] * 1000)) ;;
    mbit) bits=$((BASH_REMATCH[1] * 1000000)) ;;
    gbit) bits=$((BASH_REMATCH[1] * 1000000000)) ;;
  esac
  [ "$bits" -ge 8000 ] && [ "$bits" -le 100000000000 ] || usage_error "--rate='$rate': from 8kbit to 100gbit"
  burst=$((bits / 8 / 1000))
  [ "$burst" -ge 32768 ] || burst=32768
fi
if [ -n "$delay" ]; then
  [[ "$delay" =~ ^[1-9][0-9]{0,3}(us|ms)$ ]] || usage_error "--delay='$delay': a whole number of us or ms, e.g. 1ms"
fi

# The subnet's first three octets, "A.B.C", from "A.B.C.0/24" in a private range.
subnet_prefix() {
  local s=$1
  [[ "$s" =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.0/24$ ]] || return 1
  local a=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]} c=${BASH_REMATCH[3]}
  [ "$a" -le 255 ] && [ "$b" -le 255 ] && [ "$c" -le 255 ] || return 1
  { [ "$a" = 10 ] || { [ "$a" = 172 ] && [ "$b" -ge 16 ] && [ "$b" -le 31 ]; } || { [ "$a" = 192 ] && [ "$b" = 168 ]; }; } ||
    return 1
  echo "$a.$b.$c"
}
if [ -n "$subnet" ]; then
  subnet_prefix "$subnet" >/dev/null ||
    usage_error "--subnet='$subnet': a private /24 written A.B.C.0/24 (in 10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16)"
fi

# --- Can this process make namespaces? --------------------------------------------------------------------
# `ip` lives in /usr/sbin, which a non-login PATH (Bazel's test environment, cron, sudo -E) may lack.
PATH=$PATH:/usr/sbin:/sbin
command -v ip >/dev/null || die "'ip' (iproute2) not found: install iproute2 (tools/bootstrap.sh does)"
[ -z "$rate$delay" ] || command -v tc >/dev/null || die "--rate and --delay need 'tc' (iproute2), not found"
[ "$(id -u)" = 0 ] || die "network namespaces need root (CAP_SYS_ADMIN and CAP_NET_ADMIN); this is uid $(id -u)"
[ -e /proc/self/ns/net ] || die "this kernel has no network namespaces (/proc/self/ns/net is missing)"

bridge=$name-br
veth() { echo "$name-v$1"; }  # the root namespace's end of host $1's pair; the host's end is its eth0

# One net changes at a time on this machine: `ip netns add` sets up /run/netns on first use, and two `up`s
# choosing default subnets must not pick the same free one.
lock_dir=/run/lock
[ -d "$lock_dir" ] || lock_dir=/tmp
exec 9>"$lock_dir/netbench-testnet.lock"
command -v flock >/dev/null && flock 9

# The net's namespaces present now, "NAME<index>", in index order.
present_namespaces() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${name}[0-9]+\$" | sort -V || true
}
namespace_exists() { ip netns list 2>/dev/null | awk '{print $1}' | grep -qxF "$1"; }
link_exists() { ip link show dev "$1" >/dev/null 2>&1; }

list_hosts() {
  local ns address found=0
  for ns in $(present_namespaces); do
    address=$(ip -n "$ns" -4 -o addr show dev eth0 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -n1)
    [ -n "$address" ] || continue
    echo "$ns $address"
    found=1
  done
  [ "$found" = 1 ]
}

# Ends what still runs in a namespace: its processes would otherwise keep the namespace, and its address,
# alive after `ip netns delete`.
end_processes() {
  local ns=$1 pids tries
  pids=$(ip netns pids "$ns" 2>/dev/null || true)
  [ -n "$pids" ] || return 0
  echo "$prog: ending processes still running in $ns: $(echo $pids)" >&2
  kill -TERM $pids 2>/dev/null || true
  for tries in $(seq 20); do
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -n "$pids" ] || return 0
    sleep 0.05
  done
  kill -KILL $pids 2>/dev/null || true
}

remove_host() {
  local ns=$1 index=${1#"$name"}
  if namespace_exists "$ns"; then end_processes "$ns"; fi
  # The pair first: deleting one end deletes both at once, while a deleted namespace's interfaces go away
  # later, in the kernel's own time, and an `up` right after would find the old pair's name still taken.
  if link_exists "$(veth "$index")"; then ip link delete "$(veth "$index")"; fi
  if namespace_exists "$ns"; then ip netns delete "$ns"; fi
}

down() {
  local ns link
  for ns in $(present_namespaces); do remove_host "$ns"; done
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^${name}-v[0-9]+\$" || true); do
    ip link delete "$link"
  done
  if link_exists "$bridge"; then ip link delete "$bridge"; fi
}

# Whether something on this machine other than our bridge already covers A.B.C.0/24: an address or a route
# (the default route aside) would make the net's addresses ambiguous.
prefix_in_use() {
  local prefix=$1
  ip -4 -o addr show | awk -v bridge="$bridge" '$2 != bridge {print $4}' | grep -q "^${prefix//./\\.}\\." && return 0
  ip -4 -o route show match "$prefix.1" | grep -v '^default ' | grep -vq " dev $bridge " && return 0
  # `show match` lists only routes covering the whole /24; a narrower one inside it counts too.
  ip -4 -o route show root "$prefix.0/24" | grep -v " dev $bridge " | grep -q . && return 0
  return 1
}

# The default subnet: a hash of NAME into 10.200-254.x.0/24, then the next slots until one is free.
default_prefix() {
  local hash slot tries prefix
  hash=$(printf '%s' "$name" | cksum | awk '{print $1}')
  slot=$((hash % (55 * 256)))
  for tries in $(seq 64); do
    prefix="10.$((200 + slot / 256)).$((slot % 256))"
    prefix_in_use "$prefix" || { echo "$prefix"; return 0; }
    slot=$(((slot + 1) % (55 * 256)))
  done
  return 1
}

quiet_ipv6() {  # no router solicitations or MLD reports on the link: only the benchmark's traffic
  local conf=$1
  [ -w "$conf/disable_ipv6" ] && echo 1 >"$conf/disable_ipv6" || true
}

# Adds one qdisc with `tc ARGS...`; a kind the kernel lacks stops up, naming it.
add_qdisc() {
  local kind=$1 where=$2 out
  shift 2
  out=$("$@" 2>&1) && return 0
  if grep -qiE "kind is unknown|unknown qdisc|no such file" <<<"$out"; then
    die "the '$kind' qdisc is missing on this machine (kernel module sch_$kind, or not allowed in a" \
      "namespace); refusing to run unshaped ($where: $out)"
  fi
  die "tc could not add the '$kind' qdisc on $where: $out"
}

# The link profile on one end of a host's pair: `shape DEVICE [NAMESPACE]`. eth0 (the host's end) gets the
# delay and the rate, the root namespace's end the rate only.
shape() {
  local device=$1 ns=${2:-} where tc_=(tc) parent=(root)
  if [ -n "$ns" ]; then tc_=(tc -n "$ns"); where="$device in $ns"; else where=$device; fi
  "${tc_[@]}" qdisc del dev "$device" root 2>/dev/null || true
  if [ -n "$delay" ] && [ -n "$ns" ]; then
    add_qdisc netem "$where" "${tc_[@]}" qdisc add dev "$device" root handle 1: netem delay "$delay"
    parent=(parent 1:1)
  fi
  if [ -n "$rate" ]; then
    add_qdisc tbf "$where" "${tc_[@]}" qdisc add dev "$device" "${parent[@]}" handle 10: tbf rate "$rate" \
      burst "$burst" latency 5ms
  fi
}

up() {
  local prefix existing ns index address
  existing=
  if link_exists "$bridge"; then
    existing=$(ip -4 -o addr show dev "$bridge" | awk '{print $4}' | head -n1)
    [[ "$existing" =~ ^(.*)\.1/24$ ]] ||
      die "$bridge exists but has no A.B.C.1/24 address; run 'bench/running/testnet.sh down --name $name' first"
    prefix=${BASH_REMATCH[1]}
    if [ -n "$subnet" ] && [ "$(subnet_prefix "$subnet")" != "$prefix" ]; then
      die "net '$name' is up on $prefix.0/24, not $subnet; run 'bench/running/testnet.sh down --name $name' first"
    fi
  elif [ -n "$subnet" ]; then
    prefix=$(subnet_prefix "$subnet")
    if prefix_in_use "$prefix"; then
      die "$subnet is already in use on this machine (an interface or a route covers it); choose another --subnet"
    fi
  else
    prefix=$(default_prefix) || die "no free subnet near the one derived from '$name'; give --subnet"
  fi

  # A net made here and failing half-way is removed again, so that a failed up leaves nothing behind.
  if [ -z "$existing" ] && [ -z "$(present_namespaces)" ]; then
    trap 'status=$?; if [ $status -ne 0 ]; then down >/dev/null 2>&1 || true; fi' EXIT
  fi

  if [ -z "$existing" ]; then
    ip link add "$bridge" type bridge stp_state 0 ||
      die "cannot create bridge $bridge (is this a container without CAP_NET_ADMIN, or a kernel without bridging?)"
    ip addr add "$prefix.1/24" dev "$bridge"
    quiet_ipv6 "/proc/sys/net/ipv6/conf/$bridge"
    ip link set "$bridge" up
  fi

  for index in $(seq "$hosts"); do
    ns=$name$index
    if ! namespace_exists "$ns"; then
      ip netns add "$ns" || die "cannot create network namespace $ns (no permission, or /run/netns not writable?)"
    fi
    ip -n "$ns" link set lo up
    if ! link_exists "$(veth "$index")"; then
      # A stale eth0 (its pair deleted from outside) would block the new one.
      ip -n "$ns" link delete eth0 2>/dev/null || true
      ip link add "$(veth "$index")" type veth peer name eth0 netns "$ns"
    fi
    ip link set "$(veth "$index")" master "$bridge"
    quiet_ipv6 "/proc/sys/net/ipv6/conf/$(veth "$index")"
    ip link set "$(veth "$index")" up
    address="$prefix.$((10 + index))/24"
    if [ "$(ip -n "$ns" -4 -o addr show dev eth0 | awk '{print $4}')" != "$address" ]; then
      ip -n "$ns" addr flush dev eth0
      ip -n "$ns" addr add "$address" dev eth0
    fi
    ip netns exec "$ns" sh -c 'echo 1 > /proc/sys/net/ipv6/conf/eth0/disable_ipv6' 2>/dev/null || true
    ip -n "$ns" link set eth0 up
    shape eth0 "$ns"
    shape "$(veth "$index")"
  done

  # up with fewer hosts than before removes the rest: the net is what this command asked for.
  for ns in $(present_namespaces); do
    index=${ns#"$name"}
    if [ "$index" -gt "$hosts" ]; then remove_host "$ns"; fi
  done
  trap - EXIT
  list_hosts
}

case "$command" in
  up) up ;;
  down) down ;;
  list) list_hosts || die "no test net named '$name' is up (bench/running/testnet.sh up --name $name)" ;;
esac
