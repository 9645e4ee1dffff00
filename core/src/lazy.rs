//! The split release build's way into a part of the wasm (issue 44; ARCHITECTURE.md, "The split
//! build"), below every other module of core so that any of them may hold a split point: the one
//! way through a split point, [`call`] in the caller and [`answer`] in the point (the models'
//! builds in `registry`, the readers and writers of core, and the web app's own parts through its
//! `in_part!`), and the scenario reader's part (`reader`) wanted. The reader's
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
/// ran) when not. `point` is a `wasm_split` function of one `usize` whose body is [`answer`].
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

/// Inside a split point called by [`call`]: answer the call at `addr` with `f` of its argument.
///
/// # Safety
/// `addr` is the address [`call`] passed, of a `SplitCall<A, R>` of these types: alive and not
/// otherwise borrowed while the split point runs (synchronously, within `call`'s poll).
pub unsafe fn answer<A, R>(addr: usize, f: impl FnOnce(A) -> R) {
    // SAFETY: the caller's contract.
    let call = unsafe { &mut *(addr as *mut SplitCall<A, R>) };
    call.1 = call.0.take().map(f);
}

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
/// split point `$point` answers with `$f` of the table; `$name(t)` is that answer when the part is
/// loaded, else the error `$not_loaded` with the reader wanted ([`want_reader`]). The serde
/// readings that hand-typed ones fall back to (`gossip::params`, `gossip::init`,
/// `scenario_file::schedule`) are each one of these.
#[cfg(cs_split)]
macro_rules! reader_fn {
    ($vis:vis fn $name:ident -> $out:ty = $f:path, via $point:ident, else $not_loaded:expr) => {
        #[wasm_split::wasm_split(reader)]
        async fn $point(call: usize) {
            // SAFETY: `$name` passes its call's address through `lazy::call`.
            unsafe { $crate::lazy::answer(call, $f) }
        }

        $vis fn $name(t: toml::Table) -> Result<$out, String> {
            if let Some(r) = $crate::lazy::call(t, $point) {
                return r;
            }
            $crate::lazy::want_reader();
            Err($not_loaded)
        }
    };
}
#[cfg(cs_split)]
pub(crate) use reader_fn;
