#!/usr/bin/env bash
# The first screen of a run's report.html, as a browser shows it: headless Chromium (tools/bootstrap.sh installs
# it) at a desktop's and a phone's width. The README shows the stored run's.
#
#   tools/report_screenshot.sh [RUN_FOLDER]   # default: results/data/linux-x86_64-2cpu
#     -> RUN_FOLDER/report-first-screen.png (1280x900) and report-first-screen-phone.png (390x844)
set -euo pipefail
folder=${1:-results/data/linux-x86_64-2cpu}
page="$folder/report.html"
[ -f "$page" ] || { echo "report_screenshot: no $page (render it: bazel run //:bench -- --rerender=$folder)" >&2; exit 2; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "report_screenshot: no chromium (tools/bootstrap.sh installs it)" >&2; exit 1; }
url="file://$(cd "$(dirname "$page")" && pwd)/report.html"
shoot() {  # width height output
  # --no-sandbox: CI and this script run as root, where Chromium's sandbox refuses to start.
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
    --window-size="$1,$2" --screenshot="$3" "$url" 2>/dev/null
  echo "report_screenshot: wrote $3"
}
shoot 1280 900 "$folder/report-first-screen.png"
shoot 390 844 "$folder/report-first-screen-phone.png"
