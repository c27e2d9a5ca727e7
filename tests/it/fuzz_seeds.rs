//! The fuzz targets' smoke run, on every `cargo test`: each seed in
//! `fuzz/seeds/<target>/` (reproducers of fixed crashes included) and a few
//! thousand deterministic mutations of them go through the same functions
//! libFuzzer drives (`fuzz/src/targets.rs`, included here). The long runs
//! are `scripts/fuzz.sh`, outside CI.

#[path = "../../fuzz/src/targets.rs"]
#[allow(dead_code)]
mod targets;

use std::path::Path;

/// Mutations per target: a few seconds in a debug build.
const MUTATIONS: usize = 5000;

fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    assert!(!seeds.is_empty(), "{target} has seeds");
    seeds
}

/// xorshift64*, seeded per target: the same inputs on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// libFuzzer's simplest mutations: change, insert, erase, copy a range,
/// splice another seed in, keep the two bytes that pick a case.
fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        match rng.below(6) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] = rng.next() as u8;
            }
            1 => {
                let i = rng.below(len + 1);
                let bytes: Vec<u8> = (0..1 + rng.below(8)).map(|_| rng.next() as u8).collect();
                data.splice(i..i, bytes);
            }
            2 if len > 2 => {
                let i = 2 + rng.below(len - 2);
                let n = rng.below(32).min(len - i);
                data.drain(i..i + n);
            }
            3 if len > 0 => {
                let i = rng.below(len);
                let n = rng.below(64).min(len - i);
                let copy = data[i..i + n].to_vec();
                let at = rng.below(len + 1);
                data.splice(at..at, copy);
            }
            4 if !other.is_empty() => {
                let at = rng.below(len + 1);
                let from = rng.below(other.len());
                let n = rng.below(64).min(other.len() - from);
                data.splice(at..at, other[from..from + n].iter().copied());
            }
            _ => {
                // A byte that means something to JSON or to a path.
                let i = rng.below(len + 1);
                const MEANINGFUL: &[u8] = b"{}[]\",:\\/.%0\n\x00";
                let b = MEANINGFUL[rng.below(MEANINGFUL.len())];
                data.insert(i, b);
            }
        }
    }
    data
}

fn smoke(target: &str, run: fn(&[u8])) {
    let seeds = seeds(target);
    for seed in &seeds {
        run(seed);
    }
    let mut rng = Rng(0x00F0_0D5E_ED00 ^ target.len() as u64);
    for _ in 0..MUTATIONS {
        let seed = &seeds[rng.below(seeds.len())];
        let other = &seeds[rng.below(seeds.len())];
        run(&mutate(&mut rng, seed, other));
    }
}

#[test]
fn the_decode_target_holds_on_its_seeds_and_their_mutations() {
    smoke("decode", targets::decode);
}

#[test]
fn the_request_target_holds_on_its_seeds_and_their_mutations() {
    smoke("request", targets::request);
}

#[test]
fn the_status_error_target_holds_on_its_seeds_and_their_mutations() {
    smoke("status_error", targets::status_error);
}

#[test]
fn the_pagination_target_holds_on_its_seeds_and_their_mutations() {
    smoke("pagination", targets::pagination);
}

#[test]
fn the_seal_target_holds_on_its_seeds_and_their_mutations() {
    smoke("seal", targets::seal);
}

#[test]
fn the_render_target_holds_on_its_seeds_and_their_mutations() {
    smoke("render", targets::render);
}

#[test]
fn the_web_url_target_holds_on_its_seeds_and_their_mutations() {
    smoke("web_url", targets::web_url);
}
