#!/usr/bin/env bash
# Installs what the instruction benchmark needs from Debian's packages, when
# it is missing: valgrind (callgrind counts instructions, which do not move
# with the machine's load, unlike times) and nginx (a fixed GitLab serving
# canned JSON, so the measured server is the only thing that changes).
#
#   scripts/perf-tools.sh          # exits 0 when both are there afterwards
#
# Runs apt-get as root (CI and the development machines run as root); the
# package's service is not started (policy-rc.d), the benchmark starts its
# own nginx on loopback with its own configuration.
set -euo pipefail

missing=()
command -v valgrind >/dev/null || missing+=(valgrind)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "perf-tools: ${missing[*]} missing, and installing needs root (apt-get)" >&2
    exit 3
fi
echo "perf-tools: installing ${missing[*]} from Debian's packages" >&2
# Keep the package from starting a system nginx on port 80.
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod +x "$policy"
    created_policy=1
fi
trap '[ "$created_policy" = 1 ] && rm -f "$policy"' EXIT
# Several test processes may call this at once: one installs, the others wait.
exec 9>/tmp/gitlab-mcp-perf-tools.lock
flock 9
apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
