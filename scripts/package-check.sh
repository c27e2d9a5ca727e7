#!/usr/bin/env bash
# CI's check that the published crate builds from its package, as
# `cargo install gitlab-mcp` will build it:
#
#   scripts/package-check.sh
#
# 1. `cargo package --workspace --locked --no-verify`: the three .crate
#    files exactly as crates.io would receive them;
# 2. unpacks them side by side and builds the unpacked gitlab-mcp, offline,
#    with its two sibling crates taken from their unpacked packages (they
#    are not on crates.io yet, so `[patch.crates-io]` stands in for it);
#    every file the build script or an `include_str!` reads must be in the
#    package, or this build fails;
# 3. checks that the packaged Cargo.lock is what was built: the patch may
#    only take the siblings' registry source and checksum away;
# 4. runs the built binary's `--version` and `demo` (the sandbox, no
#    network).
#
# scripts/package.sh is the longer check (a release install against a
# stand-in registry, --locked); this one takes about two minutes.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
target_root="${CARGO_TARGET_DIR:-$root/target}"
# Unpacked outside the repository, or cargo would take the crates for
# members of this workspace.
unpacked="$(mktemp -d "${TMPDIR:-/tmp}/gitlab-mcp-package-check.XXXXXX")"
trap 'rm -rf "$unpacked"' EXIT

cargo package --workspace --locked --no-verify --offline --allow-dirty --quiet \
    --target-dir "$target_root" 2>/dev/null
version="$(cargo metadata --format-version 1 --no-deps --offline \
    | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "gitlab-mcp"))')"
for crate in gitlab-mcp gitlab-mcp-catalog gitlab-mcp-sandbox; do
    tar -xzf "$target_root/package/$crate-$version.crate" -C "$unpacked"
done

server="$unpacked/gitlab-mcp-$version"
cp "$server/Cargo.lock" "$unpacked/Cargo.lock.packaged"
(
    cd "$server"
    cargo build --offline --quiet --target-dir "$target_root/package-check/target" \
        --config "patch.crates-io.gitlab-mcp-catalog.path=\"../gitlab-mcp-catalog-$version\"" \
        --config "patch.crates-io.gitlab-mcp-sandbox.path=\"../gitlab-mcp-sandbox-$version\""
)

# The lock after the build, less the two siblings' registry lines, must be
# the packaged lock less the same lines: nothing else was re-resolved.
strip_siblings() {
    python3 - "$1" <<'PY'
import sys, tomllib
lock = tomllib.load(open(sys.argv[1], "rb"))
for package in lock["package"]:
    if package["name"] in ("gitlab-mcp-catalog", "gitlab-mcp-sandbox"):
        package.pop("source", None)
        package.pop("checksum", None)
print(sorted((p["name"], p["version"], p.get("source", ""), p.get("checksum", "")) for p in lock["package"]))
PY
}
if [ "$(strip_siblings "$unpacked/Cargo.lock.packaged")" != "$(strip_siblings "$server/Cargo.lock")" ]; then
    echo "package-check: building the package changed its Cargo.lock beyond the two siblings:" >&2
    diff "$unpacked/Cargo.lock.packaged" "$server/Cargo.lock" >&2 || true
    exit 1
fi

binary="$target_root/package-check/target/debug/gitlab-mcp"
"$binary" --version
"$binary" demo >/dev/null
echo "package-check: gitlab-mcp $version builds from its package and runs its demo"
