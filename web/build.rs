//! Optimised wasm builds (the release, `trunk build --release`):
//!
//! - The models but gossip are split off into parts loaded on first use (issue 44;
//!   `clusterscope_core::registry::take_wanted`, ARCHITECTURE.md, "The split build"): the splitter
//!   (`scripts/wasm-split`, trunk's `post_build` hook) reads the call graph from the linker's
//!   relocations and the functions' names, so the link keeps both (`--emit-relocs`, no
//!   `--strip-all`) and the hook drops the `name` section after the split.
//!   `CLUSTERSCOPE_SPLIT=0` builds the release unsplit (core's build.rs reads the same).
//! - Unsplit, the link drops the `name` section: ~0.3 MB of function names (about 80 KB
//!   gzipped) that only serve stack traces. `CLUSTERSCOPE_WASM_NAMES=1` keeps them (for measuring
//!   what is big, docs/PERFORMANCE.md, "Download size and load").
//!
//! Test and debug builds keep names for readable panics and are never split.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CLUSTERSCOPE_WASM_NAMES");
    println!("cargo:rerun-if-env-changed=CLUSTERSCOPE_SPLIT");
    println!("cargo::rustc-check-cfg=cfg(cs_split)");
    let keep_names = std::env::var("CLUSTERSCOPE_WASM_NAMES").is_ok_and(|v| v == "1");
    let target = std::env::var("TARGET").unwrap_or_default();
    let opt = std::env::var("OPT_LEVEL").unwrap_or_default();
    let debug = std::env::var("DEBUG").unwrap_or_default();
    let optimised = target.starts_with("wasm32") && opt != "0" && debug != "true";
    let split = optimised && !std::env::var("CLUSTERSCOPE_SPLIT").is_ok_and(|v| v == "0");
    if split {
        println!("cargo:rustc-cfg=cs_split");
        println!("cargo:rustc-link-arg-bins=--emit-relocs");
    } else if optimised && !keep_names {
        println!("cargo:rustc-link-arg-bins=--strip-all");
    }
}
