//! `cfg(cs_split)`: the models' lazy loaders (`registry`, issue 44) in the web app's release
//! build only: an optimised wasm32 build (not a test's or a debug build, which no splitter
//! follows) with the `split-models` feature, which the web crate turns on.
//! `CLUSTERSCOPE_SPLIT=0` builds that release unsplit (web/build.rs reads the same condition).
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CLUSTERSCOPE_SPLIT");
    println!("cargo::rustc-check-cfg=cfg(cs_split)");
    let target = std::env::var("TARGET").unwrap_or_default();
    let debug = std::env::var("DEBUG").unwrap_or_default();
    let feature = std::env::var_os("CARGO_FEATURE_SPLIT_MODELS").is_some();
    let off = std::env::var("CLUSTERSCOPE_SPLIT").is_ok_and(|v| v == "0");
    if target.starts_with("wasm32") && debug != "true" && feature && !off {
        println!("cargo:rustc-cfg=cs_split");
    }
}
