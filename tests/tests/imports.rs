//! Imports run downwards (ARCHITECTURE.md, "Invariants"; issue 45): no import cycle between the
//! top-level modules of core, nor between the sibling files of any folder of core/src. A new
//! cycle fails here, naming its files and the names that tie them. The checker is
//! `clusterscope_tests::imports`; the fixtures below plant cycles it must find.

use clusterscope_tests::imports::{cycles, cycles_in, Cycle};
use std::path::Path;

fn assert_none(src: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(src);
    let found = cycles_in(&root);
    let text: Vec<String> = found.iter().map(Cycle::to_string).collect();
    assert!(
        found.is_empty(),
        "{src}: {} import cycle(s); layer the modules so that imports run downwards \
         (ARCHITECTURE.md, \"Invariants\"):\n{}",
        found.len(),
        text.join("\n")
    );
}

#[test]
fn core_imports_run_downwards() {
    assert_none("core/src");
}

#[test]
fn web_imports_run_downwards() {
    assert_none("web/src");
}

fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect()
}

/// Top-level modules tied both ways, through a grouped `use`, a `super::` path and an inline
/// path: the cycle names both files and the names on each side.
#[test]
fn finds_a_planted_cycle_between_top_level_modules() {
    let found = cycles(&files(&[
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("a.rs", "use crate::{c::C, b::{B, other}};\npub struct A;\n"),
        ("b.rs", "pub struct B;\nfn f() { let _ = super::a::A; }\n"),
        ("c.rs", "pub struct C;\n"),
    ]));
    assert_eq!(found.len(), 1, "{found:?}");
    let c = &found[0];
    assert_eq!(c.folder, "");
    assert_eq!(c.members, vec!["a.rs", "b.rs"]);
    assert_eq!(c.ties.len(), 2, "{:?}", c.ties);
    assert!(
        c.ties[0].starts_with("a.rs -> b.rs: B (a.rs:1), other (a.rs:1)"),
        "{:?}",
        c.ties
    );
    assert!(
        c.ties[1].starts_with("b.rs -> a.rs: A (b.rs:2)"),
        "{:?}",
        c.ties
    );
}

/// A cycle through a folder module (its face and a file inside it), and one between two sibling
/// files of a folder (`self::`/`super::` paths); a three-module ring.
#[test]
fn finds_cycles_through_folders_and_between_siblings() {
    let found = cycles(&files(&[
        ("lib.rs", "mod m; mod n; mod p; mod q;"),
        ("m/mod.rs", "mod x; mod y;\n"),
        ("m/x.rs", "use super::y::Y;\npub struct X;\n"),
        ("m/y.rs", "pub struct Y(crate::m::x::X);\n"),
        ("n.rs", "mod deep;\n"),
        ("n/deep.rs", "pub fn f() { crate::p::g() }\n"),
        ("p.rs", "pub fn g() { crate::q::h() }\n"),
        ("q.rs", "pub fn h() { crate::n::deep::f() }\n"),
    ]));
    let shown: Vec<String> = found.iter().map(Cycle::to_string).collect();
    assert_eq!(found.len(), 2, "{shown:?}");
    assert_eq!(found[0].folder, "");
    assert_eq!(found[0].members, vec!["n/", "p.rs", "q.rs"], "{shown:?}");
    assert!(
        shown[0].contains("q.rs -> n/: deep::f (q.rs:1)"),
        "{shown:?}"
    );
    assert_eq!(found[1].folder, "m");
    assert_eq!(found[1].members, vec!["m/x.rs", "m/y.rs"], "{shown:?}");
}

/// Not cycles: a child using its folder's face and the face using its children; test code
/// (`#[cfg(test)]` items and test-only files) reaching upwards; paths in comments and strings.
#[test]
fn ignores_faces_tests_comments_and_strings() {
    let found = cycles(&files(&[
        ("lib.rs", "pub mod low; pub mod high;"),
        ("low/mod.rs", "mod a;\n#[cfg(test)]\nmod tests;\npub use a::A;\npub struct L;\n"),
        ("low/a.rs", "use super::L;\npub struct A;\n#[cfg(test)]\nmod t { use crate::high::H; }\n"),
        ("low/tests.rs", "use crate::high::H;\n"),
        (
            "high.rs",
            "use crate::low::A;\n// crate::low::x\npub struct H;\n/// crate::high\nconst S: &str = \"crate::low::A\";\nconst C: char = '\"';\n",
        ),
        ("high2.rs", "fn f() { let s = r#\"crate::high::H\"#; }\n"),
    ]));
    assert!(found.is_empty(), "{found:?}");
    // ...and the same files with one upward path outside a test: a cycle.
    let found = cycles(&files(&[
        ("lib.rs", "pub mod low; pub mod high;"),
        ("low/mod.rs", "mod a;\npub use a::A;\npub struct L;\n"),
        (
            "low/a.rs",
            "use super::L;\npub struct A;\nfn f() { crate::high::g() }\n",
        ),
        ("high.rs", "use crate::low::A;\npub fn g() {}\n"),
    ]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].members, vec!["high.rs", "low/"]);
}
