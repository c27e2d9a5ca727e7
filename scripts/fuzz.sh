#!/usr/bin/env bash
# Fuzz the server's parsers with cargo-fuzz (libFuzzer, AddressSanitizer).
#
#   scripts/fuzz.sh                 every target, 60 s each
#   scripts/fuzz.sh decode 300      one target for 300 s
#   scripts/fuzz.sh all 240 -jobs=2 extra arguments go to libFuzzer
#   scripts/fuzz.sh list            the targets
#
# Targets (fuzz/fuzz_targets/, bodies in fuzz/src/targets.rs): decode (the
# envelope and parameter decoder, then request building), request (path
# and query values into a request), status_error (GitLab's error bodies),
# pagination (pagination headers and the `Link` header), seal (sealed
# values: any text, and mutations of a real one), render (any answer
# within the size cap), web_url (web URLs and references).
#
# cargo-fuzz needs unstable rustc flags (-Zsanitizer, sancov); the stable
# toolchain accepts them with RUSTC_BOOTSTRAP=1, so no nightly is needed.
# cargo-fuzz is installed into .tools/ (ignored by git) on first use.
# The corpus grows in fuzz/corpus/<target> (ignored); fuzz/seeds/<target>
# holds the few small seeds that are committed. A crash is written to
# fuzz/artifacts/<target>/: reproduce it with
#   RUSTC_BOOTSTRAP=1 .tools/bin/cargo-fuzz run --fuzz-dir fuzz -O <target> <file>
# then fix it and add a regression test (tests/it/fuzz_seeds.rs replays
# every seed on each `cargo test`: a reproducer added to fuzz/seeds/<target>
# keeps it fixed).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"
cargo_fuzz_version=0.13.2
targets=(decode request status_error pagination seal render web_url)

target=${1:-all}
seconds=${2:-60}
shift $(( $# > 2 ? 2 : $# ))

if [[ $target == list ]]; then
    printf '%s\n' "${targets[@]}"
    exit 0
fi

export PATH="$tools/bin:$PATH"
if [[ "$(cargo-fuzz --version 2>/dev/null)" != "cargo-fuzz $cargo_fuzz_version" ]]; then
    echo "installing cargo-fuzz $cargo_fuzz_version into $tools" >&2
    cargo install cargo-fuzz --version "$cargo_fuzz_version" --locked --root "$tools"
fi
export RUSTC_BOOTSTRAP=1

if [[ $target == all ]]; then
    run=("${targets[@]}")
else
    if [[ ! " ${targets[*]} " == *" $target "* ]]; then
        echo "unknown target $target; one of: ${targets[*]}" >&2
        exit 2
    fi
    run=("$target")
fi

for t in "${run[@]}"; do
    corpus="$root/fuzz/corpus/$t"
    mkdir -p "$corpus"
    dict=()
    if [[ $t == decode ]]; then
        # The envelope's words plus every tool, action and parameter name of
        # the catalog, so that mutations reach each action's own checks
        # instead of mostly the unknown-name path.
        words="$root/fuzz/target/decode.dict"
        mkdir -p "$root/fuzz/target"
        {
            cat "$root/fuzz/dicts/envelope.dict"
            grep -ho 'name = "[A-Za-z0-9_.-]*"' "$root"/catalog/*.toml |
                sed 's/^name = "\(.*\)"$/"\\"\1\\""/' | sort -u
        } > "$words"
        dict=(-dict="$words")
    fi
    echo "== $t: ${seconds}s" >&2
    cargo fuzz run --fuzz-dir "$root/fuzz" -O "$t" "$corpus" "$root/fuzz/seeds/$t" -- \
        -max_total_time="$seconds" -print_final_stats=1 -max_len=65536 \
        "${dict[@]}" "$@"
done
