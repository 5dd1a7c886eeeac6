#!/bin/sh
# nginx serving the fan-out write-up's page (25,600 bytes by default) on HOST:PORT, over http, or over https with
# --tls (a self-signed P-256 certificate made at start, as //httpfanout:origin makes its own). It stays in the
# foreground (daemon off) so that the suite starts, measures (master and workers, as this script's children)
# and stops it like every other server; SIGINT or SIGTERM stops nginx and removes its folder.
#
#   serve.sh --host=127.0.0.1 --port=8081 [--tls] [--body_size=25600] [--workers=auto]
#     GET http(s)://HOST:PORT/index.html
set -eu
host=127.0.0.1 port= tls=0 body_size=25600 workers=auto
usage() { echo "usage: serve.sh --host=ADDRESS --port=PORT [--tls] [--body_size=BYTES] [--workers=N|auto]" >&2; exit 2; }
for arg in "$@"; do
  case "$arg" in
    --host=*) host=${arg#*=} ;;
    --port=*) port=${arg#*=} ;;
    --tls) tls=1 ;;
    --body_size=*) body_size=${arg#*=} ;;
    --workers=*) workers=${arg#*=} ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "serve.sh: unknown argument '$arg'" >&2; usage ;;
  esac
done
case "$port" in ''|*[!0-9]*) echo "serve.sh: --port wants a number, got '$port'" >&2; usage ;; esac
case "$body_size" in ''|*[!0-9]*) echo "serve.sh: --body_size wants a number, got '$body_size'" >&2; usage ;; esac
case "$workers" in auto) ;; ''|*[!0-9]*) echo "serve.sh: --workers wants a number or auto" >&2; usage ;; esac
case "$host" in
  *:*) listen="[$host]:$port" ;;  # IPv6
  *[!A-Za-z0-9.-]*|'') echo "serve.sh: '$host' is not an address or host name" >&2; usage ;;
  *) listen="$host:$port" ;;
esac
command -v nginx >/dev/null || { echo "serve.sh: nginx is not installed (tools/bootstrap.sh, or apt-get install nginx)" >&2; exit 1; }

prefix=$(mktemp -d "${TMPDIR:-/tmp}/netbench-nginx.XXXXXX")
nginx_pid=
stop() {
  [ -n "$nginx_pid" ] && kill -TERM "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  rm -rf "$prefix"
}
trap 'stop; exit 0' INT TERM
trap 'rm -rf "$prefix"' EXIT
# Run as root, nginx's workers drop to an unprivileged user: they must be able to read the page.
chmod 755 "$prefix"
mkdir "$prefix/html" "$prefix/logs"
awk -v n="$body_size" 'BEGIN { a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
  for (i = 0; i < n; i++) printf "%s", (i % 80 == 79) ? "\n" : substr(a, i % 64 + 1, 1) }' >"$prefix/html/index.html"
chmod -R a+rX "$prefix/html"

ssl=
if [ "$tls" = 1 ]; then
  command -v openssl >/dev/null || { echo "serve.sh: openssl is not installed (apt-get install openssl)" >&2; exit 1; }
  case "$host" in *[!0-9.:]*) san="DNS:$host" ;; *) san="IP:$host" ;; esac
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=$host" \
    -addext "subjectAltName=$san" -keyout "$prefix/key.pem" -out "$prefix/cert.pem" 2>"$prefix/logs/openssl.txt" ||
    { cat "$prefix/logs/openssl.txt" >&2; exit 1; }
  ssl=" ssl; ssl_certificate $prefix/cert.pem; ssl_certificate_key $prefix/key.pem; ssl_protocols TLSv1.2 TLSv1.3"
fi

cat >"$prefix/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes $workers;
pid $prefix/nginx.pid;
error_log stderr warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $prefix/client_body;
  proxy_temp_path $prefix/proxy;
  fastcgi_temp_path $prefix/fastcgi;
  uwsgi_temp_path $prefix/uwsgi;
  scgi_temp_path $prefix/scgi;
  sendfile on;
  keepalive_requests 100000;
  server {
    listen $listen$ssl;
    root $prefix/html;
    location / { default_type text/html; }
  }
}
CONF
nginx -t -q -p "$prefix" -c "$prefix/nginx.conf" || exit 1
nginx -p "$prefix" -c "$prefix/nginx.conf" &
nginx_pid=$!
# nginx writes its pid file after it has opened and bound its listening sockets: from then on it accepts, so
# only then is the ready line true. Bounded: 10 s.
tries=0
until [ -s "$prefix/nginx.pid" ]; do
  kill -0 "$nginx_pid" 2>/dev/null || { wait "$nginx_pid"; exit $?; }
  tries=$((tries + 1))
  [ "$tries" -le 200 ] || { echo "serve.sh: nginx did not start within 10 s" >&2; exit 1; }
  sleep 0.05
done
echo "nginx $(nginx -v 2>&1 | sed 's|.*/||'): listening on $listen ($( [ "$tls" = 1 ] && echo https || echo http), $body_size-byte /index.html, $workers workers)"
wait "$nginx_pid"
