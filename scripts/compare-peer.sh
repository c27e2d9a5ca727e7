#!/usr/bin/env bash
# Side by side: the same end-to-end workload through gitlab-mcp and through
# @zereight/mcp-gitlab (the most used community GitLab MCP server), against
# the same fake GitLab, printed in one table. Not part of CI: it downloads
# the peer from npm into a scratch folder.
#
#   scripts/compare-peer.sh [PEER_VERSION]     (default 2.1.64)
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-2.1.64}"
scratch="${PEER_DIR:-${TMPDIR:-/tmp}/gitlab-mcp-peer}"
mkdir -p "$scratch"
if [ ! -f "$scratch/node_modules/@zereight/mcp-gitlab/build/index.js" ]; then
  (cd "$scratch" && npm install --no-audit --no-fund --silent "@zereight/mcp-gitlab@$version")
fi
export GITLAB_MCP_PEER_CMD="$(command -v node) $scratch/node_modules/@zereight/mcp-gitlab/build/index.js"
export GITLAB_MCP_PEER_NAME="@zereight/mcp-gitlab $version"
cargo bench --bench e2e
