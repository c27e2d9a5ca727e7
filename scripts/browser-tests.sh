#!/usr/bin/env bash
# The browser tests (tests/browser/) in Debian's headless Chromium, driven
# by Playwright for Python:
#
#   scripts/browser-tests.sh views merge-request|pipeline MCP_URL ARTIFACTS_DIR
#   scripts/browser-tests.sh consent AUTHORIZE_URL CLIENT_NAME REDIRECT_URI ARTIFACTS_DIR
#
# `views` shows the MCP Apps views of a server started with the sandbox's
# data (`gitlab-mcp serve --sandbox --http 127.0.0.1:8080`, then
# http://127.0.0.1:8080/mcp) in tests/browser/host.html; `consent` goes
# through a sign-in server's consent page. tests/it/browser.rs starts the
# servers, runs this and checks what GitLab received.
#
# What it needs, installed the first time and reused after:
# - Debian's `chromium` package (with `fonts-dejavu-core`), by apt-get after
#   an `apt-get update`, as root (as on the project's machines and in CI),
#   unless /usr/bin/chromium is there; no browser build is ever downloaded;
# - Playwright and the MCP SDK, pinned by tests/browser/requirements.txt,
#   in a venv under .tools/browser/ (git-ignored), rebuilt when the pins or
#   the machine's python3 change. Playwright's own browser download is
#   never run (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 for good measure).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
requirements="$root/tests/browser/requirements.txt"
venv="$root/.tools/browser"
python="$venv/bin/python"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

case "${1:-}" in
    views | consent) check="$1"; shift ;;
    *)
        sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
        ;;
esac

install_chromium() {
    [ -x /usr/bin/chromium ] && return 0
    if [ "$(id -u)" != 0 ]; then
        echo "browser-tests: /usr/bin/chromium is missing: install Debian's chromium package as root" >&2
        exit 3
    fi
    echo "browser-tests: installing Debian's chromium" >&2
    local start=$SECONDS
    DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core >&2
    echo "browser-tests: chromium installed in $((SECONDS - start)) s" >&2
}

install_python() {
    command -v python3 >/dev/null || { echo "browser-tests: python3 is needed" >&2; exit 3; }
    local stamp
    stamp="$(cat "$requirements" "$root/tests/python/requirements.txt"; python3 -VV)"
    if [ -x "$python" ] && [ "$stamp" = "$(cat "$venv/.installed" 2>/dev/null)" ]; then
        return 0
    fi
    echo "browser-tests: installing the pinned Playwright and MCP SDK into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements" >&2
    printf '%s' "$stamp" >"$venv/.installed"
}

mkdir -p "$root/.tools"
# Tests running at once install once: the others wait here.
exec 9>"$root/.tools/.browser.lock"
flock 9
install_chromium
install_python
flock -u 9

cd "$root/tests/browser"
exec "$python" "$check.py" "$@"
