#!/usr/bin/env bash
# Headless Chromium for the viewer's browser tests (tests/viewer/): Debian's package,
# never a browser download of Playwright's own. A CJK font so that screenshots of
# Chinese memories show text, not boxes. Idempotent: does nothing when all is there.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
fc-list 2>/dev/null | grep -qi "wenquanyi\|noto sans cjk" || need+=(fonts-wqy-microhei)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
chromium --version
