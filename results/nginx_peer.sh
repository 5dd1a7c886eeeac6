#!/bin/sh
# The nginx contestant of the fan-out scenario (results/contestants.json) on a given address: the peer's own
# start.sh (../shared/peers/nginx: the page, the certificate, the pid file /tmp/peers-nginx/nginx.pid, ports
# 8081 http and 8443 https), with its configuration's listen addresses, 127.0.0.1, replaced by HOST, so that
# the server can listen on a test host's address (tools/testnet.sh) as every other server does with --host.
# The peer's folder is read-only and shared, so the changed copy lives in /tmp/peers-nginx-HOST.
# The peer's stop.sh stops it whatever the address.
#
#   sh results/nginx_peer.sh PEERS_DIR HOST
set -eu
[ $# -eq 2 ] || { echo "usage: nginx_peer.sh PEERS_DIR HOST" >&2; exit 2; }
peer=$1/nginx host=$2
[ -f "$peer/start.sh" ] || { echo "nginx_peer.sh: no nginx peer at $peer (start.sh missing)" >&2; exit 1; }
[ "$host" = 127.0.0.1 ] && exec sh "$peer/start.sh"
case "$host" in
  *:*) listen="[$host]" ;;  # IPv6
  *[!A-Za-z0-9.-]*|'') echo "nginx_peer.sh: '$host' is not an address or host name" >&2; exit 2 ;;
  *) listen=$host ;;
esac
copy=/tmp/peers-nginx-$host
mkdir -p "$copy"
cp "$peer/start.sh" "$peer/stop.sh" "$copy/"
sed "s/listen 127\.0\.0\.1:/listen $listen:/" "$peer/nginx.conf" >"$copy/nginx.conf"
grep -q "listen $listen:8081" "$copy/nginx.conf" ||
  { echo "nginx_peer.sh: $peer/nginx.conf no longer listens on 127.0.0.1:8081; update this script" >&2; exit 1; }
exec sh "$copy/start.sh"
