#!/usr/bin/env bash
# Packages the workspace's crates as crates.io would receive them, then
# installs the packaged server the way `cargo install gitlab-mcp` will once
# it is published, and runs its `demo`:
#
#   scripts/package.sh [--allow-dirty] [--debug]
#
# 1. `cargo package --workspace --locked`: the three .crate files
#    (gitlab-mcp, gitlab-mcp-catalog, gitlab-mcp-sandbox), each verified by
#    building it from its own unpacked contents;
# 2. checks what gitlab-mcp's crate holds: what the build reads (src/,
#    build/, catalog/), the README, CHANGELOG and LICENSE, and no tests,
#    fuzz targets, benchmarks, bundle or deployment files;
# 3. unpacks the crate and `cargo install --path`s it into a temporary root,
#    --locked and offline, against a stand-in for crates.io: the registry
#    crates of Cargo.lock (`cargo vendor`) plus the two sibling .crate files
#    just packaged, under the checksums the packaged Cargo.lock names;
# 4. runs the installed `gitlab-mcp --version` and `gitlab-mcp demo`.
#
# Nothing is published. Everything is written under one scratch folder
# (PACKAGE_SCRATCH, else a new /tmp folder), removed at the end: the verify
# builds and the release install write several GB. --debug installs a debug
# build (minutes faster; `cargo install` builds release). Needs the registry
# crates in cargo's cache (any earlier `cargo build --locked` fetched them).
# Takes 15-30 minutes on two busy cores: outside CI.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
allow_dirty=()
install_profile=()
for arg in "$@"; do
    case "$arg" in
        --allow-dirty) allow_dirty=(--allow-dirty) ;;
        --debug) install_profile=(--debug) ;;
        *) echo "usage: $0 [--allow-dirty] [--debug]" >&2; exit 2 ;;
    esac
done

scratch="${PACKAGE_SCRATCH:-$(mktemp -d /tmp/gitlab-mcp-package.XXXXXX)}"
trap 'rm -rf "$scratch"' EXIT
target="$scratch/target"
version="$(cargo metadata --format-version 1 --no-deps --offline \
    | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "gitlab-mcp"))')"
step() { echo "package: $*" >&2; }
seconds() { echo $(( $(date +%s) - $1 )); }

started=$(date +%s)
step "cargo package --workspace --locked (verify builds in $target)"
cargo package --workspace --locked --offline "${allow_dirty[@]}" --target-dir "$target"
package_seconds=$(seconds "$started")

step "checking the crate's contents"
list="$(cargo package -p gitlab-mcp --list --locked --offline "${allow_dirty[@]}")"
problems=0
for needed in build/main.rs build/version.rs src/main.rs src/lib.rs catalog/_shared.toml \
    catalog/gitlab_issue.toml catalog/kinds.toml catalog/vocabulary.toml catalog/icons/server.svg \
    assets/views/common.js README.md CHANGELOG.md LICENSE; do
    grep -qx "$needed" <<<"$list" || { echo "package: the crate lacks $needed" >&2; problems=1; }
done
unwanted="$(grep -E '^(tests|fuzz|benches|bundle|deploy|scripts|docs|target|\.tools|fake-gitlab|catalog-compiler)/|^catalog/surface\.lock$' <<<"$list" || true)"
if [ -n "$unwanted" ]; then
    echo "package: the crate should not ship:" >&2
    echo "$unwanted" >&2
    problems=1
fi
grep -q '^sandbox/demo/' <<<"$(cargo package -p gitlab-mcp-sandbox --list --locked --offline "${allow_dirty[@]}")" \
    || { echo "package: gitlab-mcp-sandbox lacks the sandbox's files (sandbox/demo/)" >&2; problems=1; }
[ "$problems" = 0 ] || exit 1

step "a stand-in for crates.io: Cargo.lock's registry crates and the packaged siblings"
cargo vendor --locked --offline "$scratch/vendor" >/dev/null
for crate in gitlab-mcp-catalog gitlab-mcp-sandbox; do
    file="$target/package/$crate-$version.crate"
    tar -xzf "$file" -C "$scratch/vendor"
    mv "$scratch/vendor/$crate-$version" "$scratch/vendor/$crate"
    # A directory source names each crate's checksum: the .crate file's
    # sha256, which the packaged Cargo.lock holds too.
    printf '{"files":{},"package":"%s"}' "$(sha256sum "$file" | cut -d' ' -f1)" \
        >"$scratch/vendor/$crate/.cargo-checksum.json"
done
mkdir -p "$scratch/unpacked"
tar -xzf "$target/package/gitlab-mcp-$version.crate" -C "$scratch/unpacked"

started=$(date +%s)
step "cargo install --path the unpacked crate into $scratch/root ${install_profile[*]:-(release)}"
cargo install --path "$scratch/unpacked/gitlab-mcp-$version" --root "$scratch/root" \
    --locked --offline --target-dir "$target" "${install_profile[@]}" \
    --config 'source.crates-io.replace-with="stand-in"' \
    --config "source.stand-in.directory=\"$scratch/vendor\""
install_seconds=$(seconds "$started")

bin="$scratch/root/bin/gitlab-mcp"
step "running the installed binary"
"$bin" --version
demo="$(cd "$scratch" && env -i PATH="$PATH" HOME="$scratch" "$bin" demo)"
echo "$demo" | head -5
grep -q 'gitlab_issue' <<<"$demo" || { echo "package: demo did not show gitlab_issue" >&2; exit 1; }

echo
echo "crates (bytes):"
for file in "$target"/package/*.crate; do
    printf '  %-40s %10s\n' "$(basename "$file")" "$(stat -c %s "$file")"
done
printf 'installed binary: %s bytes\n' "$(stat -c %s "$bin")"
echo "cargo package (with verify builds): ${package_seconds}s; cargo install: ${install_seconds}s"
echo "package: ok"
