#!/usr/bin/env bash
# Installs what netbench needs on a Debian machine, offline-friendly and idempotent: packages already present
# are left alone, and the script says what it did. Run it before any bazel command on a new machine.
#
#   tools/bootstrap.sh            everything `bazel test //...` and `bazel run //:bench` need: compilers, Bazel, the
#                                 libraries' sources, and the toolchains of the write-ups' systems (contestants/:
#                                 Go with x/net and gorilla, Racket, Clojure on a headless JDK, nginx, curl), whose
#                                 tests run them
set -euo pipefail

for arg in "$@"; do
  case "$arg" in
    --no-peers) echo "bootstrap: --no-peers is gone: contestants/ is built and tested by bazel test //..., so its toolchains are always installed" >&2; exit 2 ;;
    --racket) ;;  # Racket is always installed now; kept so that older instructions still work
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bootstrap: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

say() { echo "bootstrap: $*"; }
die() { echo "bootstrap: error: $*" >&2; exit 1; }

[ "$(uname -s)" = Linux ] || die "netbench's bootstrap supports Debian Linux only (this is $(uname -s))."
. /etc/os-release 2>/dev/null || die "no /etc/os-release: cannot tell which system this is."
case " ${ID:-} ${ID_LIKE:-} " in
  *" debian "*) ;;
  *) die "netbench's bootstrap supports Debian (12, bookworm) only; this is '${PRETTY_NAME:-unknown}'. Install the packages listed in tools/bootstrap.sh by hand." ;;
esac
command -v apt-get >/dev/null || die "apt-get not found."

# Build and test: compiler, Bazel and what Abseil's BUILD files need of it (Skylib, a newer @platforms), and the
# interop peers the tests run. The C++ libraries are not among them: they are built from source (below). clang 14
# with libc++ is the second build CI runs (`bazel test --config=libcxx //...`, .bazelrc); its sanitizer runtimes
# and libFuzzer (libclang-rt-14-dev) build the fuzz targets (`tools/fuzz.sh`, --config=fuzz). matplotlib draws the
# report's charts; openssh-server is the remote-host tests' SSH peer (bench/running/testnet.sh, the suite's --server-host);
# chromium loads report.html headless in its browser test (bench/reporting/browser_test.py). python3-jsonschema
# checks every result document against its JSON Schema file (results/schema/) when the suite writes or reads one.
packages=(
  bazel-bootstrap bazel-skylib bazel-platforms g++ git ca-certificates
  clang-14 libc++-14-dev libc++abi-14-dev libclang-rt-14-dev
  python3 python3-websockets python3-scipy python3-statsmodels python3-matplotlib python3-jsonschema curl nginx openssl
  iproute2 openssh-server chromium
)
# The toolchains of the write-ups' systems, which contestants/ holds and Bazel builds: Go and the sources of its
# x/net and gorilla libraries (echo server, spammer, WebSocket programs, net/http fan-out), Racket (echo server),
# Clojure on the JDK (fan-out). nginx and curl are above.
packages+=(golang-go golang-golang-x-net-dev golang-github-gorilla-websocket-dev hyperfine racket clojure
           default-jdk-headless)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done

sudo=()
if [ "$(id -u)" != 0 ]; then
  if [ ${#missing[@]} -gt 0 ] || [ ! -e /usr/bin/bazel-4.2.3 ]; then
    command -v sudo >/dev/null || die "not root and no sudo: run as root to install ${missing[*]:-the bazel-4.2.3 link}."
    sudo=(sudo)
  fi
fi

if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${#missing[@]} Debian package(s): ${missing[*]}"
  "${sudo[@]}" apt-get update -q || die "apt-get update failed."
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" \
    || die "apt-get install failed for: ${missing[*]}"
else
  say "all ${#packages[@]} Debian packages already installed"
fi

# Debian's /usr/bin/bazel is a wrapper that runs /usr/bin/bazel-<.bazelversion>; bazel-bootstrap installs the
# binary as bazel-4, so link the exact version this repository pins.
installed_version=$(dpkg-query -W -f='${Version}' bazel-bootstrap)
case "$installed_version" in
  4.2.3*) ;;
  *) die "bazel-bootstrap $installed_version is installed; netbench pins Bazel 4.2.3 (.bazelversion)." ;;
esac
if [ "$(readlink /usr/bin/bazel-4.2.3 2>/dev/null)" != bazel-4 ]; then
  "${sudo[@]}" ln -sfn bazel-4 /usr/bin/bazel-4.2.3
  say "linked /usr/bin/bazel-4.2.3 -> bazel-4 (the version .bazelversion pins)"
fi

# The C++ libraries' sources: the upstream archives (.orig.tar.*) of Debian's source packages, pinned by SHA-256 in
# WORKSPACE, which this reads so that the two cannot disagree. `apt-get source` takes the package's current Debian
# revision: its .orig archive is the same upstream release in every revision, and the hash says so.
distfiles=${NETBENCH_DISTFILES:-$HOME/.cache/netbench/distfiles}
mkdir -p "$distfiles"
here=$(cd "$(dirname "$0")/.." && pwd)
pinned=$(awk -F'"' '/debian_source_archive\(/ { a = s = p = "" }
                   /archive =/ { a = $2 } /sha256 =/ { s = $2 } /source_package =/ { p = $2 }
                   /^\)/ && a != "" { print p, a, s; a = "" }' "$here/WORKSPACE")
[ -n "$pinned" ] || die "found no debian_source_archive in $here/WORKSPACE."
sha_ok() { [ -f "$distfiles/$1" ] && [ "$(sha256sum "$distfiles/$1" | cut -d' ' -f1)" = "$2" ]; }
fetch=()
while read -r package archive sha; do
  sha_ok "$archive" "$sha" || fetch+=("$package")
done <<< "$pinned"
if [ ${#fetch[@]} -gt 0 ]; then
  if [ -z "$(apt-cache showsrc "${fetch[0]}" 2>/dev/null)" ]; then
    # No source index yet: add a deb-src entry for every archive the machine already uses (the same URIs,
    # suites and components), so no host name is written here.
    list=/etc/apt/sources.list.d/netbench-deb-src
    for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] && [ "$f" != "$list.sources" ] || continue
      awk 'BEGIN { RS = ""; ORS = "\n\n" }
           /(^|\n)Types:([^\n]* )?deb( |\n|$)/ { gsub(/(^|\n)#[^\n]*/, ""); sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f"
    done | "${sudo[@]}" tee "$list.sources" >/dev/null
    if [ -f /etc/apt/sources.list ]; then
      sed -n 's/^deb \(.*\)/deb-src \1/p' /etc/apt/sources.list | "${sudo[@]}" tee "$list.list" >/dev/null
    fi
    say "added deb-src entries ($list.*) for the archives this machine uses"
    "${sudo[@]}" apt-get update -q >/dev/null || die "apt-get update failed."
  fi
  say "fetching the sources of ${fetch[*]} into $distfiles"
  # As root, apt would hand the download to its _apt user, who cannot write to root's folders, and warn.
  as_root=(); [ "$(id -u)" = 0 ] && as_root=(-o APT::Sandbox::User=root)
  (cd "$distfiles" && apt-get source --download-only -q "${as_root[@]}" "${fetch[@]}" >/dev/null) ||
    die "apt-get source --download-only ${fetch[*]} failed (is there a deb-src entry?)."
  while read -r package archive sha; do
    [ -f "$distfiles/$archive" ] || die "$archive (from source package $package) was not fetched: Debian may have moved to another upstream version; WORKSPACE pins SHA-256 $sha."
    sha_ok "$archive" "$sha" || die "$distfiles/$archive has SHA-256 $(sha256sum "$distfiles/$archive" | cut -d' ' -f1), WORKSPACE pins $sha."
  done <<< "$pinned"
fi
say "library sources: $(wc -l <<< "$pinned") archives in $distfiles, every SHA-256 as WORKSPACE pins it"

# nginx is used by tests and benchmarks as a peer started on loopback ports of their own; the Debian package
# starts a system-wide instance on port 80 that nothing here needs.
if command -v systemctl >/dev/null && systemctl is-active --quiet nginx 2>/dev/null; then
  "${sudo[@]}" systemctl stop nginx >/dev/null 2>&1 || true
fi
# openssh-server is here for the tests' own sshd, started in test namespaces on addresses of their own. The package
# also starts the system's sshd on port 22 of every interface: when this run installed it, stop and disable that
# one (a machine that had it before keeps it as it was).
if [[ " ${missing[*]} " == *" openssh-server "* ]] && command -v systemctl >/dev/null; then
  if "${sudo[@]}" systemctl disable --now ssh >/dev/null 2>&1; then
    say "stopped and disabled the system sshd that openssh-server started (the tests run their own)"
  fi
fi

# The tests tagged netns make network namespaces (bench/running/testnet.sh) and need root; CI runs as root. They are long
# tests, out of `bazel test //...` anyway; for anyone but root `bazel test //:long_tests` (the soak and them) leaves
# them out through the (untracked) user.bazelrc that .bazelrc imports.
if [ "$(id -u)" != 0 ]; then
  rc="$here/user.bazelrc"
  if ! grep -q -- '--test_tag_filters=-netns' "$rc" 2>/dev/null; then
    printf '%s\n' "# tools/bootstrap.sh: not root, so the network-namespace tests (tag netns) are left out; run them as root." \
      "test --test_tag_filters=-netns" >>"$rc"
    say "not root: user.bazelrc leaves out the tests tagged netns (network namespaces need root; run them as root)"
  fi
fi
say "ready: bazel $(readlink /usr/bin/bazel-4.2.3 >/dev/null && echo 4.2.3), g++ $(g++ -dumpfullversion), clang $(clang-14 -dumpversion)"
