//! The split release build's parts of the web app's own code (issue 44; ARCHITECTURE.md, "The
//! split build"): code reached only through [`in_part!`] is, in that build, a part of the wasm
//! fetched when first needed (`platform::load_part`) instead of a piece of the first download.
//! The models' panels come with their engines (`models::ask`; ping-pong's is the generic
//! inspector); the hunt card and the hunt's worker runs are parts of their own (`ui::hunt`,
//! `hunt::job`), and so are the "How often?" card (`ui::sweep`), a sweep's worker batches
//! (`sweep::run_batch`), the expectation editor's form (`ui::expect_editor`) and compare's code
//! (`model::compare`: opening it, following, the search, the bar and the sides).
//!
//! Elsewhere (debug builds, tests, `CLUSTERSCOPE_SPLIT=0`) [`in_part!`] is a plain call.

use std::cell::Cell;

thread_local! {
    /// A part a worker's job asked for and did not have ([`take_wanted`]).
    static WANTED: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// Remember that the part `part` was needed and is not loaded (for a worker's job: the worker
/// loads it and runs the job again, `static/sweep-worker.js`).
pub fn want(part: &'static str) {
    WANTED.with(|w| w.set(Some(part)));
}

/// The part a job asked for since the last call whose code was not loaded ([`want`]).
pub fn take_wanted() -> Option<&'static str> {
    WANTED.with(|w| w.take())
}

/// `in_part!(part, point, Arg => Ret, arg, |arg| body)`: `Some(body)`, the closure called with
/// `arg`. In the split release build (`cs_split`, web/build.rs) the closure runs behind the
/// `wasm_split` split point `point` of the part `part` (its own module of the wasm, fetched with
/// the part's others by `platform::load_part`): core's `lazy::split_fn!`, as every split point
/// is, and the answer is `None` while that part is not loaded: nothing ran. `Arg` and `Ret` name
/// the types (`'_` for a borrow); the closure captures nothing (it is the part's code, reached
/// only from here).
#[cfg(not(cs_split))]
#[macro_export]
macro_rules! in_part {
    ($part:ident, $point:ident, $arg:ty => $ret:ty, $a:expr, $f:expr) => {
        Some(($f)($a))
    };
}

#[cfg(cs_split)]
#[macro_export]
macro_rules! in_part {
    ($part:ident, $point:ident, $arg:ty => $ret:ty, $a:expr, $f:expr) => {{
        clusterscope_core::lazy::split_fn!($part, $point, fn in_part_call($arg) -> $ret = $f);
        in_part_call($a)
    }};
}
