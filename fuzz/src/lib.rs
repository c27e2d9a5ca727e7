//! The fuzz targets' bodies, shared by the libFuzzer binaries in
//! `fuzz_targets/` and the seed replay in the main crate's tests.

pub mod targets;
