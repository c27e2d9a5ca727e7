#!/usr/bin/env bash
# Drives a server's streamable HTTP endpoint with the official Python MCP SDK
# (tests/python/sdk_client.py), in the SDK's 2026-07-28 and legacy modes:
#
#   scripts/python-sdk.sh URL [--mode auto|2026-07-28|legacy ...]
#
# The SDK (`mcp` from PyPI) and its dependencies are pinned by
# tests/python/requirements.txt and installed with `python3 -m venv` and pip
# into .tools/python/ (git-ignored) the first time, then reused for as long
# as that file is unchanged. The GitLab token is sent as a Private-Token
# header: GITLAB_TOKEN, glpat-alice (the fake's) by default.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
requirements="$root/tests/python/requirements.txt"
venv="$root/.tools/python"
python="$venv/bin/python"

if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
    echo "usage: $0 URL [--mode auto|2026-07-28|legacy ...]" >&2
    exit 2
fi

install() {
    if [ -x "$python" ] && cmp -s "$requirements" "$venv/.installed-requirements"; then
        return 0
    fi
    command -v python3 >/dev/null || { echo "python-sdk: python3 is needed" >&2; exit 3; }
    echo "python-sdk: installing the pinned SDK into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements" >&2
    cp "$requirements" "$venv/.installed-requirements"
}

mkdir -p "$root/.tools"
# Tests running at once install once: the others wait here.
exec 9>"$root/.tools/.python.lock"
flock 9
install
flock -u 9

exec "$python" "$root/tests/python/sdk_client.py" "$@"
