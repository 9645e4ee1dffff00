//! The golden-hash check, compiled for both targets from the same source and the same file:
//! natively by `cargo test`, and in headless Chromium by
//! `cargo test --target wasm32-unknown-unknown -p clusterscope-wasm-tests` (see scripts/test).

use clusterscope_wasm_tests::{check_golden, parse, GOLDEN};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn golden_hashes_match() {
    let have: Vec<String> = parse(GOLDEN).into_iter().map(|c| c.name).collect();
    let missing: Vec<String> = clusterscope_wasm_tests::scenario_cases()
        .into_iter()
        .filter(|c| !have.contains(c))
        .collect();
    assert!(
        missing.is_empty(),
        "built-in scenario cases without a golden hash (bless natively with CLUSTERSCOPE_BLESS=1): {missing:?}"
    );
    let n = check_golden(GOLDEN);
    assert!(
        n >= 3 + clusterscope_wasm_tests::scenario_cases().len(),
        "only {n} golden cases found"
    );
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn same_seed_same_hash_different_seed_different_hash() {
    use clusterscope_wasm_tests::hash_of;
    let a = hash_of("pingpong-worker7", 5).unwrap();
    assert_eq!(a, hash_of("pingpong-worker7", 5).unwrap());
    assert_ne!(a, hash_of("pingpong-worker7", 6).unwrap());
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
#[cfg_attr(not(target_arch = "wasm32"), test)]
fn unknown_prefixes_are_skipped() {
    let text = "# comment\n\nscenario-x 1 00000000000000ff\n";
    assert_eq!(parse(text).len(), 1);
    assert_eq!(check_golden(text), 0);
}

/// `CLUSTERSCOPE_BLESS=1 cargo test -p clusterscope-wasm-tests --test golden` rewrites the
/// pingpong lines of the golden file from a native run; other lines are kept as they are.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn bless() {
    use clusterscope_wasm_tests::{format_line, hash_of, PINGPONG_CASES, PINGPONG_SEEDS};
    if std::env::var_os("CLUSTERSCOPE_BLESS").is_none() {
        return;
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../golden/pingpong_hashes.txt");
    let old = std::fs::read_to_string(path).unwrap_or_default();
    let mut out: Vec<String> = old
        .lines()
        .filter(|l| !l.trim_start().starts_with("pingpong-"))
        .map(str::to_string)
        .collect();
    // Pingpong lines go right after the header comments, ahead of other families.
    let at = out
        .iter()
        .position(|l| !l.trim_start().starts_with('#'))
        .unwrap_or(out.len());
    let mut fresh = Vec::new();
    for name in PINGPONG_CASES {
        for &seed in PINGPONG_SEEDS {
            fresh.push(format_line(name, seed, hash_of(name, seed).unwrap()));
        }
    }
    out.splice(at..at, fresh);
    out.retain(|l| !l.trim_start().starts_with("scenario:"));
    for name in clusterscope_wasm_tests::scenario_cases() {
        out.push(format_line(&name, 7, hash_of(&name, 7).unwrap()));
    }
    let mut text = out.join("\n");
    text.push('\n');
    std::fs::write(path, text).unwrap();
}
