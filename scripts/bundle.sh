#!/usr/bin/env bash
# Builds the MCP Bundle for Claude Desktop and other bundle-aware clients:
#
#   scripts/bundle.sh [--binary PATH] [--out DIR] [--update-server-json]
#
# writes DIR/gitlab-mcp-<version>-<os>-<arch>.mcpb (os and arch as Node
# names them: linux, darwin, win32; x64, arm64) and DIR/server.json, the
# repository's MCP Registry entry with that bundle's sha256 and version
# filled in (--update-server-json writes them into ./server.json too, for a
# release). DIR defaults to target/bundle/.
#
# The bundle is bundle/manifest.json (its platforms narrowed to the one
# built, its tools listed from the binary's own catalog), the binary as
# server/gitlab-mcp, and LICENSE, validated with `mcpb validate` and packed
# with `mcpb pack`: the official CLI (@anthropic-ai/mcpb), pinned by
# bundle/tools/package.json and package-lock.json and installed with
# `npm ci` into .tools/mcpb/ (git-ignored) the first time, then reused for
# as long as the lock file is unchanged. Needs npm and node to install and
# run it. Without --binary, the release binary is built first
# (`cargo build --release --locked`: minutes, ~3 GB in the target folder).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
pins="$root/bundle/tools"
tools="$root/.tools/mcpb"
mcpb="$tools/node_modules/@anthropic-ai/mcpb/dist/cli/cli.js"

binary=""
out="$root/target/bundle"
update=false
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --update-server-json) update=true; shift ;;
        *) echo "usage: $0 [--binary PATH] [--out DIR] [--update-server-json]" >&2; exit 2 ;;
    esac
done

install() {
    if [ -f "$mcpb" ] && cmp -s "$pins/package-lock.json" "$tools/.installed-lock"; then
        return 0
    fi
    command -v npm >/dev/null || { echo "bundle: npm is needed to install mcpb" >&2; exit 3; }
    echo "bundle: installing the pinned mcpb into $tools" >&2
    rm -rf "$tools/node_modules" "$tools/.installed-lock"
    cp "$pins/package.json" "$pins/package-lock.json" "$tools/"
    npm ci --prefix "$tools" --no-audit --no-fund --ignore-scripts --loglevel=error >&2
    cp "$pins/package-lock.json" "$tools/.installed-lock"
}

mkdir -p "$tools"
# Tests running at once install once: the others wait here.
exec 9>"$tools/.lock"
flock 9
install
flock -u 9

if [ -z "$binary" ]; then
    (cd "$root" && cargo build --release --locked --bin gitlab-mcp >&2)
    target_dir="$(cd "$root" && cargo metadata --format-version 1 --no-deps --offline \
        | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')"
    binary="$target_dir/release/gitlab-mcp"
fi
[ -x "$binary" ] || { echo "bundle: no binary at $binary" >&2; exit 2; }

# `gitlab-mcp 0.1.0 (commit abc, x86_64-unknown-linux-gnu)`: the version
# and target the binary was built with name the bundle.
read -r version target < <("$binary" --version | sed -E 's/^gitlab-mcp ([^ ]+) \(commit [^,]+, ([^)]+)\)$/\1 \2/')
case "$target" in
    *-linux-*) os=linux ;;
    *-apple-*) os=darwin ;;
    *-windows-*) os=win32 ;;
    *) echo "bundle: no MCPB platform for target $target" >&2; exit 2 ;;
esac
case "$target" in
    x86_64-*) arch=x64 ;;
    aarch64-*) arch=arm64 ;;
    *) echo "bundle: no MCPB architecture for target $target" >&2; exit 2 ;;
esac
name="gitlab-mcp-$version-$os-$arch.mcpb"

stage="$out/stage"
rm -rf "$stage"
mkdir -p "$stage/server"
exe=gitlab-mcp
[ "$os" = win32 ] && exe=gitlab-mcp.exe
cp "$binary" "$stage/server/$exe"
chmod 755 "$stage/server/$exe"
cp "$root/LICENSE" "$stage/"
"$binary" catalog --json >"$out/catalog.json"
MANIFEST="$root/bundle/manifest.json" CATALOG="$out/catalog.json" OS="$os" VERSION="$version" \
    node -e '
    const fs = require("fs");
    const manifest = JSON.parse(fs.readFileSync(process.env.MANIFEST, "utf8"));
    if (manifest.version !== process.env.VERSION) {
        console.error(`bundle: bundle/manifest.json says ${manifest.version}, the binary ${process.env.VERSION}`);
        process.exit(1);
    }
    manifest.compatibility.platforms = [process.env.OS];
    const catalog = JSON.parse(fs.readFileSync(process.env.CATALOG, "utf8"));
    manifest.tools = catalog.tools.map((t) => ({ name: t.name, description: t.description }));
    console.log(JSON.stringify(manifest, null, 2));
    ' >"$stage/manifest.json"
rm "$out/catalog.json"

node "$mcpb" validate "$stage/manifest.json" >&2
rm -f "$out/$name"
node "$mcpb" pack "$stage" "$out/$name" >&2
rm -rf "$stage"
sha="$(sha256sum "$out/$name" | cut -d' ' -f1)"

# The registry entry names this bundle by its release URL's file name.
NAME="$name" SHA="$sha" VERSION="$version" node -e '
    const fs = require("fs");
    const entry = JSON.parse(fs.readFileSync(0, "utf8"));
    const pkg = (entry.packages || []).find((p) => p.registryType === "mcpb" && p.identifier.endsWith("/" + process.env.NAME));
    if (!pkg) {
        console.error(`bundle: server.json has no mcpb package for ${process.env.NAME}`);
        process.exit(1);
    }
    pkg.fileSha256 = process.env.SHA;
    pkg.version = entry.version = process.env.VERSION;
    console.log(JSON.stringify(entry, null, 2));
' <"$root/server.json" >"$out/server.json"
if $update; then
    cp "$out/server.json" "$root/server.json"
fi

echo "bundle: $out/$name ($(stat -c %s "$out/$name") bytes, sha256 $sha)" >&2
echo "$out/$name"
