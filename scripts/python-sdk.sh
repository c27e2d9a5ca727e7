#!/usr/bin/env bash
# Drives a server's streamable HTTP endpoint with the official Python MCP SDK
# (tests/python/sdk_client.py), in the SDK's 2026-07-28 and legacy modes:
#
#   scripts/python-sdk.sh URL [--mode auto|2026-07-28|legacy ...]
#
# or, with --perf first, makes N calls one after another for the
# instruction benchmark (tests/python/perf_calls.py URL N [--mode ...]),
# or, with --progress first, makes a long call that must stream its progress
# notifications (tests/python/sdk_progress.py, against a slow GitLab), or,
# with --oauth first, signs in with GitLab through the SDK's OAuth client
# (tests/python/sdk_oauth.py; the server must have sign-in on):
#
#   scripts/python-sdk.sh --oauth URL [--auth none|client_secret_basic|client_secret_post ...]
#       [--user alice] [--client-metadata-url URL --redirect-uri URI]
#
# The SDK (`mcp` from PyPI) and its dependencies are pinned by
# tests/python/requirements.txt and installed with `python3 -m venv` and pip
# into .tools/python/ (git-ignored) the first time, then reused for as long
# as that file and the machine's python3 are unchanged. The GitLab token is
# sent as a Private-Token header: GITLAB_TOKEN, glpat-alice (the fake's) by
# default.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
requirements="$root/tests/python/requirements.txt"
venv="$root/.tools/python"
python="$venv/bin/python"

client="$root/tests/python/sdk_client.py"
if [ "${1:-}" = "--oauth" ]; then
    client="$root/tests/python/sdk_oauth.py"
    shift
elif [ "${1:-}" = "--perf" ]; then
    # N sequential calls for benches/instructions.rs: perf_calls.py URL N.
    client="$root/tests/python/perf_calls.py"
    shift
elif [ "${1:-}" = "--progress" ]; then
    client="$root/tests/python/sdk_progress.py"
    shift
fi
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
    echo "usage: $0 URL [--mode auto|2026-07-28|legacy ...]" >&2
    echo "       $0 --oauth URL [--auth none|client_secret_basic|client_secret_post ...] [--user NAME]" >&2
    echo "           [--client-metadata-url URL --redirect-uri URI]" >&2
    exit 2
fi

install() {
    command -v python3 >/dev/null || { echo "python-sdk: python3 is needed" >&2; exit 3; }
    # The venv is rebuilt when the pins or the machine's Python change.
    local stamp
    stamp="$(cat "$requirements"; python3 -VV)"
    if [ -x "$python" ] && [ "$stamp" = "$(cat "$venv/.installed" 2>/dev/null)" ]; then
        return 0
    fi
    echo "python-sdk: installing the pinned SDK into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements" >&2
    printf '%s' "$stamp" >"$venv/.installed"
}

mkdir -p "$root/.tools"
# Tests running at once install once: the others wait here.
exec 9>"$root/.tools/.python.lock"
flock 9
install
flock -u 9

exec "$python" "$client" "$@"
