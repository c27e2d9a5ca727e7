#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gitlab_mcp_fuzz::targets::web_url(data));
