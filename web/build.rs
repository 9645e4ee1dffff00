//! Optimised wasm builds: drop the `name` section at link time. It is ~0.3 MB of function names
//! (about 80 KB gzipped) that only serve stack traces, and trunk cannot strip it without wasm-opt
//! (disabled here, see index.html). Test and debug builds keep names for readable panics.
//! `CLUSTERSCOPE_WASM_NAMES=1` keeps them in an optimised build too: for measuring what is big
//! (docs/PERFORMANCE.md, "Download size and load").
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CLUSTERSCOPE_WASM_NAMES");
    let keep_names = std::env::var("CLUSTERSCOPE_WASM_NAMES").is_ok_and(|v| v == "1");
    let target = std::env::var("TARGET").unwrap_or_default();
    let opt = std::env::var("OPT_LEVEL").unwrap_or_default();
    let debug = std::env::var("DEBUG").unwrap_or_default();
    if target.starts_with("wasm32") && opt != "0" && debug != "true" && !keep_names {
        println!("cargo:rustc-link-arg-bins=--strip-all");
    }
}
