//! The split release build's way into a part of the wasm (issue 44; ARCHITECTURE.md, "The split
//! build"), below every other module of core so that any of them may hold a split point: the one
//! way through a split point, [`split_fn!`] (the point, whose body [`answer`]s, and the function
//! that [`call`]s it: the models' builds in `registry`, the readers and writers of core, gossip's
//! views and explanation, and the web app's own parts through its `in_part!`), and the scenario
//! reader's part (`reader`) wanted. The reader's
//! part holds serde's readings of a scenario file: the text's (`scenario`), and the ones the
//! parameters of gossip and the schedule's faults fall back to when their hand-typed reading
//! (`typed`) does not take a table (`gossip::params`, `scenario_file::schedule`): a refusal's
//! words are serde's in every build.

use std::cell::Cell;

/// What the app says while the scenario reader's part is not loaded.
pub const READER_NOT_LOADED: &str =
    "the scenario reader is not loaded yet (a part of the app, split/reader)";

/// A `wasm_split` split point's future polled, never awaited ([`call`]'s way in). Ready at the
/// second poll when the part is loaded (the first hands the split's loader its callback, which it
/// calls at once), the callee having run synchronously within it; `false` when the part is not
/// loaded (nothing ran).
fn poll_split_point(mut fut: std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>) -> bool {
    use std::task::{Context, Poll, Waker};
    let mut cx = Context::from_waker(Waker::noop());
    (0..2).any(|_| fut.as_mut().poll(&mut cx) == Poll::Ready(()))
}

/// The argument and the answer of a call through a split point: the caller's, on its stack,
/// passed to the split point as its address ([`call`], [`answer`]).
pub type SplitCall<A, R> = (Option<A>, Option<R>);

/// Call the split point `point` with `arg`: its answer when its part is loaded, `None` (nothing
/// ran) when not. `point` is a `wasm_split` function of one `usize` whose body is [`answer`]:
/// both written by [`split_fn!`], the only caller.
#[doc(hidden)]
pub fn call<A, R, F>(arg: A, point: impl FnOnce(usize) -> F) -> Option<R>
where
    F: std::future::Future<Output = ()> + 'static,
{
    let mut call: SplitCall<A, R> = (Some(arg), None);
    let p: *mut SplitCall<A, R> = &mut call;
    if poll_split_point(Box::pin(point(p as usize))) {
        call.1
    } else {
        None
    }
}

/// Inside a split point called by [`call`]: answer the call at `addr` with `f` of its argument
/// (written by [`split_fn!`] only, where its contract is argued).
///
/// # Safety
/// `addr` is the address [`call`] passed, of a `SplitCall<A, R>` of these types: alive and not
/// otherwise borrowed while the split point runs (synchronously, within `call`'s poll).
#[doc(hidden)]
pub unsafe fn answer<A, R>(addr: usize, f: impl FnOnce(A) -> R) {
    // SAFETY: the caller's contract.
    let call = unsafe { &mut *(addr as *mut SplitCall<A, R>) };
    call.1 = call.0.take().map(f);
}

/// `split_fn!(part, point, vis fn name(Arg) -> Ret = f)`: the split release build's one way
/// through a split point. `f` (a function or a closure capturing nothing, of one `Arg`, answering
/// `Ret`) runs behind the `wasm_split` split point `point` of the part `part` (its own module of
/// the wasm, `dist/split/part-point-*`, fetched with the part's others), and `name(arg)` calls it:
/// `Some(f(arg))` when the part is loaded, `None` (nothing ran) while it is not, each caller with
/// its own fallback. `Arg` and `Ret` name the types (`'_` for a borrow; several arguments as a
/// tuple). Only in that build (`cs_split`), whose crate has `wasm_split` (`wasm-splitter`) as a
/// dependency: the attribute's expansion names it. A point must sit in a library crate (one in a
/// binary did not split).
///
/// The SAFETY argument, once for every split point: `name` is the point's only caller, through
/// [`call`], which passes the address of its own `SplitCall<Arg, Ret>` (its stack, alive and
/// borrowed by nothing else until the poll returns) and polls the point's future synchronously;
/// the point's body is [`answer`] with the same `Arg` and `Ret` (lifetimes aside, which do not
/// change a type's layout: the borrows it reads outlive the call), so the address is of a value of
/// the type [`answer`] reads.
#[macro_export]
macro_rules! split_fn {
    ($part:ident, $point:ident, $vis:vis fn $name:ident($arg:ty) -> $ret:ty = $f:expr) => {
        #[wasm_split::wasm_split($part)]
        async fn $point(call: usize) {
            let f = $f;
            // SAFETY: `lazy::split_fn!`'s argument: `$name` below is the only caller.
            unsafe { $crate::lazy::answer::<$arg, $ret>(call, f) }
        }

        $vis fn $name(arg: $arg) -> Option<$ret> {
            $crate::lazy::call::<$arg, $ret, _>(arg, $point)
        }
    };
}
pub use crate::split_fn;

thread_local! {
    /// The reader was needed while its part was not loaded (set only in the split build).
    static READER_WANTED: Cell<bool> = const { Cell::new(false) };
}

/// Remember that the scenario reader's part was needed and is not loaded.
pub fn want_reader() {
    READER_WANTED.with(|w| w.set(true));
}

/// Whether the reader was needed since the last call and its part was not loaded
/// (`scenario::take_reader_wanted`).
pub fn take_reader_wanted() -> bool {
    READER_WANTED.with(|w| w.replace(false))
}

/// A function of the main module whose work is in the scenario reader's part (`reader`): the
/// split point `$point` ([`split_fn!`]) answers with `$f` of the table; `$name(t)` is that answer
/// when the part is loaded, else the error `$not_loaded` with the reader wanted ([`want_reader`]).
/// The serde readings that hand-typed ones fall back to (`gossip::params`, `gossip::init`,
/// `scenario_file::schedule`) are each one of these.
#[cfg(cs_split)]
macro_rules! reader_fn {
    ($vis:vis fn $name:ident -> $out:ty = $f:path, via $point:ident, else $not_loaded:expr) => {
        $vis fn $name(t: toml::Table) -> Result<$out, String> {
            $crate::lazy::split_fn!(reader, $point, fn read(toml::Table) -> Result<$out, String> = $f);
            read(t).unwrap_or_else(|| {
                $crate::lazy::want_reader();
                Err($not_loaded)
            })
        }
    };
}
#[cfg(cs_split)]
pub(crate) use reader_fn;
