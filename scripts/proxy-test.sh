#!/usr/bin/env bash
# Runs deploy/nginx/ for real: nginx in front of two `gitlab-mcp serve
# --http` instances on loopback, plain HTTP standing in for TLS, and checks
# through the proxy:
#
#   scripts/proxy-test.sh
#
# 1. `nginx -t` accepts deploy/nginx/gitlab-mcp.conf itself (with a
#    throwaway self-signed certificate and loopback addresses);
# 2. the official Python MCP SDK works in both protocol generations
#    (scripts/python-sdk.sh: auto, 2026-07-28, legacy);
# 3. a long call streams: its progress notifications arrive while it runs,
#    against a GitLab that takes 0.7 s per answer (scripts/python-sdk.sh
#    --progress);
# 4. the sign-in discovery documents and the 401's challenge name the
#    public URL (the proxy's), never an instance's address;
# 5. both instances served requests: no stickiness.
#
# nginx comes from Debian's packages (apt-get, as root) when it is missing;
# the fake GitLab is the workspace's `fake-gitlab` binary. Everything runs
# under one scratch folder, removed at the end, with every process it
# started stopped. About a minute once built and installed: outside CI
# because it installs a system package and binds fixed loopback ports.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
PATH="$PATH:/usr/sbin:/sbin"
proxy_port="${PROXY_TEST_PORT:-18480}"
ports=("$((proxy_port + 1))" "$((proxy_port + 2))")
gitlab_port="$((proxy_port + 3))"
public="http://127.0.0.1:$proxy_port"
scratch="$(mktemp -d /tmp/gitlab-mcp-proxy.XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    if [ -f "$scratch/nginx.pid" ]; then kill "$(cat "$scratch/nginx.pid")" 2>/dev/null || true; fi
    wait 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT
step() { echo "proxy-test: $*" >&2; }
fail() { echo "proxy-test: FAILED: $*" >&2; exit 1; }

if ! command -v nginx >/dev/null; then
    step "installing nginx from Debian's packages"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >&2
fi

step "building gitlab-mcp and fake-gitlab"
cargo build --locked -q -p gitlab-mcp -p gitlab-mcp-sandbox --bins
target_dir="$(cargo metadata --format-version 1 --no-deps --offline \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
bin="$target_dir/debug/gitlab-mcp"
fake="$target_dir/debug/fake-gitlab"

step "nginx -t on deploy/nginx/gitlab-mcp.conf"
mkdir -p "$scratch/check/snippets" "$scratch/check/conf.d"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=mcp.example.com \
    -keyout "$scratch/check/key.pem" -out "$scratch/check/cert.pem" 2>/dev/null
cp deploy/nginx/gitlab-mcp-proxy.conf "$scratch/check/snippets/"
sed -e "s|/etc/ssl/certs/mcp.example.com.pem|$scratch/check/cert.pem|" \
    -e "s|/etc/ssl/private/mcp.example.com.key|$scratch/check/key.pem|" \
    -e "s|10.0.0.1[12]:8080|127.0.0.1:1|" \
    -e "s|listen 80;|listen 127.0.0.1:$((proxy_port + 4));|" \
    -e "s|listen 443 ssl;|listen 127.0.0.1:$((proxy_port + 5)) ssl;|" \
    deploy/nginx/gitlab-mcp.conf >"$scratch/check/conf.d/gitlab-mcp.conf"
cat >"$scratch/check/nginx.conf" <<CONF
pid $scratch/check/nginx.pid;
error_log stderr;
events {}
http { include $scratch/check/conf.d/gitlab-mcp.conf; }
CONF
nginx -t -q -p "$scratch/check" -c "$scratch/check/nginx.conf" || fail "nginx -t refused deploy/nginx/gitlab-mcp.conf"

step "a slow fake GitLab on $gitlab_port, two instances on ${ports[*]}"
"$fake" --delay 700 "127.0.0.1:$gitlab_port" >/dev/null 2>"$scratch/fake.log" &
pids+=($!)
for i in 0 1; do
    GITLAB_URL="http://127.0.0.1:$gitlab_port" \
    GITLAB_OAUTH_CLIENT_ID=proxy-test GITLAB_OAUTH_CLIENT_SECRET=proxy-test-secret \
    GITLAB_MCP_TOKEN_KEY="$(printf 'ab%.0s' $(seq 32))" \
    RUST_LOG=warn,gitlab_mcp=info \
        "$bin" serve --http "127.0.0.1:${ports[$i]}" --public-url "$public" --require-client-token \
        2>"$scratch/instance$i.log" &
    pids+=($!)
done

step "nginx on $proxy_port"
mkdir -p "$scratch/proxy"
cat >"$scratch/proxy/nginx.conf" <<CONF
pid $scratch/nginx.pid;
error_log $scratch/proxy/error.log;
events {}
http {
    access_log $scratch/proxy/access.log;
    client_body_temp_path $scratch/proxy/body;
    proxy_temp_path $scratch/proxy/proxy;
    upstream gitlab_mcp {
        server 127.0.0.1:${ports[0]};
        server 127.0.0.1:${ports[1]};
        keepalive 8;
    }
    server {
        listen 127.0.0.1:$proxy_port;
        location / {
            include $root/deploy/nginx/gitlab-mcp-proxy.conf;
        }
    }
}
CONF
nginx -p "$scratch/proxy" -c "$scratch/proxy/nginx.conf"
for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:${ports[0]}/healthz" >/dev/null 2>&1 \
        && curl -fsS "http://127.0.0.1:${ports[1]}/healthz" >/dev/null 2>&1 \
        && curl -fsS "$public/healthz" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -fsS "$public/healthz" >/dev/null || fail "the proxy does not answer /healthz"

expected_tools="$("$bin" tools --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tools"]))')"
step "the Python SDK in both protocol generations, through the proxy"
GITLAB_TOKEN=glpat-alice EXPECTED_TOOLS="$expected_tools" scripts/python-sdk.sh "$public/mcp" \
    | tee "$scratch/sdk.out"
tail -1 "$scratch/sdk.out" | grep -qx '3 passed, 0 failed' || fail "the SDK through the proxy"

step "a long call streams its progress through the proxy"
GITLAB_TOKEN=glpat-alice scripts/python-sdk.sh --progress "$public/mcp" | tee "$scratch/progress.out"
tail -1 "$scratch/progress.out" | grep -qx '3 passed, 0 failed' || fail "the long call did not stream"

step "the sign-in discovery documents name the public URL"
PUBLIC="$public" PORTS="${ports[*]}" python3 - <<'PY'
import json, os, urllib.error, urllib.request
public = os.environ["PUBLIC"]
instances = os.environ["PORTS"].split()

def get(path):
    with urllib.request.urlopen(public + path) as r:
        return r.read().decode()

try:
    urllib.request.urlopen(urllib.request.Request(public + "/mcp", data=b"{}", method="POST",
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}))
    raise SystemExit("an unauthenticated call was accepted")
except urllib.error.HTTPError as e:
    assert e.code == 401, e.code
    challenge = e.headers["WWW-Authenticate"]
    expected = f'resource_metadata="{public}/.well-known/oauth-protected-resource/mcp"'
    assert expected in challenge, challenge
docs = {path: get(path) for path in [
    "/.well-known/oauth-protected-resource/mcp",
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
]}
resource = json.loads(docs["/.well-known/oauth-protected-resource/mcp"])
assert resource["resource"] == public + "/mcp", resource
assert resource["authorization_servers"] == [public], resource
server = json.loads(docs["/.well-known/oauth-authorization-server"])
assert server["issuer"] == public, server
for key in ["authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"]:
    assert server[key].startswith(public + "/"), (key, server[key])
for path, text in docs.items():
    for port in instances:
        assert f":{port}" not in text, f"{path} names instance port {port}: {text}"
print(f"ok discovery: {len(docs)} documents and the 401 challenge name {public}")
PY

step "both instances served requests"
for i in 0 1; do
    n="$(grep -cE 'method=POST path="?/mcp' "$scratch/instance$i.log" || true)"
    echo "instance $i (port ${ports[$i]}): $n MCP requests"
    [ "$n" -gt 0 ] || fail "instance $i served no MCP request: the proxy stuck to one"
done
echo "proxy-test: ok"
