#!/usr/bin/env bash
# Validates Kubernetes manifests against the schemas of a current release
# (strict: unknown fields refused), with kubernetes-validate from PyPI:
#
#   scripts/kubernetes-validate.sh [-k VERSION] FILE...     (default 1.37.0)
#   scripts/kubernetes-validate.sh --usage FILE...
#
# --usage prints, as JSON, what the files' Deployments ask of the binary
# (args, environment, ports, probes, annotations: tests/kubernetes/usage.py),
# read with the same YAML parser. kubernetes-validate and its dependencies
# are pinned by tests/kubernetes/requirements.txt and installed with
# `python3 -m venv` and pip into .tools/kubernetes-validate/ (git-ignored)
# the first time, then reused for as long as that file and the machine's
# python3 are unchanged.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
requirements="$root/tests/kubernetes/requirements.txt"
venv="$root/.tools/kubernetes-validate"
python="$venv/bin/python"

if [ $# -lt 1 ]; then
    echo "usage: $0 [-k VERSION] FILE...  |  $0 --usage FILE..." >&2
    exit 2
fi

install() {
    command -v python3 >/dev/null || { echo "kubernetes-validate: python3 is needed" >&2; exit 3; }
    local stamp
    stamp="$(cat "$requirements"; python3 -VV)"
    if [ -x "$python" ] && [ "$stamp" = "$(cat "$venv/.installed" 2>/dev/null)" ]; then
        return 0
    fi
    echo "kubernetes-validate: installing the pinned validator into $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements" >&2
    printf '%s' "$stamp" >"$venv/.installed"
}

mkdir -p "$root/.tools"
# Tests running at once install once: the others wait here.
exec 9>"$root/.tools/.kubernetes-validate.lock"
flock 9
install
flock -u 9

if [ "$1" = "--usage" ]; then
    shift
    exec "$python" "$root/tests/kubernetes/usage.py" "$@"
fi
version=1.37.0
if [ "$1" = "-k" ]; then
    version="$2"
    shift 2
fi
exec "$venv/bin/kubernetes-validate" --strict --kubernetes-version "$version" "$@"
