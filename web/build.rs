//! Optimised wasm builds: drop the `name` section at link time. It is ~0.3 MB of function names
//! (about 80 KB gzipped) that only serve stack traces, and trunk cannot strip it without wasm-opt
//! (disabled here, see index.html). Test and debug builds keep names for readable panics.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    let opt = std::env::var("OPT_LEVEL").unwrap_or_default();
    let debug = std::env::var("DEBUG").unwrap_or_default();
    if target.starts_with("wasm32") && opt != "0" && debug != "true" {
        println!("cargo:rustc-link-arg-bins=--strip-all");
    }
}
