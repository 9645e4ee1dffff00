//! When the simulator stops for good (issue 39): a panic (a bug) or an allocation the browser
//! refuses (out of memory).
//!
//! What happens then in the browser build: wasm32-unknown-unknown on stable Rust is
//! `panic=abort` (unwinding needs a nightly `-Zbuild-std`), so a panic runs the hook installed
//! here and then traps (`unreachable`); a refused allocation traps without a panic. The trap
//! unwinds the JS stack through every Rust frame without running a destructor, so whatever those
//! frames held stays held: the model's `RefCell`, borrowed mutably in `Store::reduce`, and Yew's
//! scheduler. Later calls into the module may work or may panic again at once ("already
//! borrowed"), each a new trap; wasm-bindgen 0.2.130 poisons nothing under `panic=abort` (its
//! abort handler and `schedule_reinit` need `panic=unwind` or a fresh instance, and the page's
//! closures point into this one). So the page stops using the module and offers a reload:
//!
//! - the panic hook ([`install`]) records the message and calls `window.__csStopped`
//!   (`static/crash.js`), which shows the banner, makes the app inert, stops every DOM event
//!   before it reaches the module and cancels pending timers and animation frames;
//! - a trap without a panic reaches crash.js's `error` listener, which asks
//!   [`failed_allocation`] whether the allocator was refused, and calls [`mark_stopped`];
//! - the app's own callbacks that the browser may still call (observers, workers, the media
//!   query) return at once when [`stopped`], and the autosave never saves after a stop: the
//!   saved session is the last one that settled, never the state the panic left;
//! - the way back is a reload into the saved session, on the person's click, in plain JS.
//!
//! The allocator counts the live heap ([`heap_bytes`]): the app stops computing before the
//! page's memory nears the 4 GiB a tab's wasm32 memory can grow to, whatever the runs' own
//! accounting says (`model::PAGE_HEAP_BYTES`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

static STOPPED: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static FAILED: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting the bytes in use and remembering the size of a refused
/// request (the page's wasm memory cannot grow further).
pub struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc(l) };
        note(p, l.size());
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        // SAFETY: as above.
        let p = unsafe { System.alloc_zeroed(l) };
        note(p, l.size());
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // SAFETY: as above.
        let q = unsafe { System.realloc(p, l, new) };
        if q.is_null() {
            FAILED.store(new, Relaxed);
        } else {
            LIVE.fetch_add(new, Relaxed);
            LIVE.fetch_sub(l.size(), Relaxed);
        }
        q
    }
}

fn note(p: *mut u8, size: usize) {
    if p.is_null() {
        FAILED.store(size, Relaxed);
    } else {
        LIVE.fetch_add(size, Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes allocated and not freed (the heap in use, without the allocator's own overhead).
pub fn heap_bytes() -> usize {
    LIVE.load(Relaxed)
}

/// The size of the last allocation the system refused (0: none). A refused allocation aborts
/// the module; `static/crash.js` asks this to say so.
pub fn failed_allocation() -> usize {
    FAILED.load(Relaxed)
}

/// Whether the module stopped (a panic, or a trap crash.js reported): nothing should call into
/// it any more, and nothing is saved.
pub fn stopped() -> bool {
    STOPPED.load(Relaxed)
}

/// crash.js saw a trap (out of memory, or a panic the hook could not report).
pub fn mark_stopped() {
    STOPPED.store(true, Relaxed);
}

/// Install the panic hook (once, at start; also in a sweep worker, where there is no window:
/// the message is left in the worker's global `__csPanic` for `static/sweep-worker.js`).
/// Through Yew, whose renderer otherwise replaces any hook with its own (which only logs).
pub fn install() {
    yew::set_custom_panic_hook(Box::new(|info| {
        STOPPED.store(true, Relaxed);
        let what = info.payload_as_str().unwrap_or("a panic without a message");
        let text = match info.location() {
            Some(l) => format!("{what} (at {}:{})", l.file(), l.line()),
            None => what.to_string(),
        };
        report(&text);
    }));
}

#[cfg(target_arch = "wasm32")]
fn report(text: &str) {
    use wasm_bindgen::{JsCast, JsValue};
    let global = js_sys::global();
    let msg = JsValue::from_str(text);
    let shown = js_sys::Reflect::get(&global, &JsValue::from_str("__csStopped"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .is_some_and(|f| f.call1(&JsValue::NULL, &msg).is_ok());
    if !shown {
        let _ = js_sys::Reflect::set(&global, &JsValue::from_str("__csPanic"), &msg);
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn report(text: &str) {
    eprintln!("the simulator stopped: {text}");
}

thread_local! {
    static PLANTED: RefCell<Option<String>> = const { RefCell::new(None) };
    static ARMED: Cell<bool> = const { Cell::new(false) };
}

/// The test hook behind `test_fail_next_update` (`main.rs`): the next message the reducer
/// handles fails, as a panic with `what`, or with `"out of memory"` as allocations the browser
/// refuses. Only JavaScript running in the page reaches it (no URL, no control, no input);
/// `tests/e2e/specs/crash.mjs` uses it to fail where a real bug would, inside `Store::reduce`
/// with the model borrowed.
pub fn fail_next_update(what: String) {
    PLANTED.with(|p| *p.borrow_mut() = Some(what));
    ARMED.with(|a| a.set(true));
}

/// Called by `Store::reduce` with the model borrowed: fail as planted, if planted.
#[inline]
pub fn planted_failure() {
    if ARMED.with(|a| a.replace(false)) {
        fail_now();
    }
}

#[cold]
fn fail_now() {
    let Some(what) = PLANTED.with(|p| p.borrow_mut().take()) else {
        return;
    };
    #[cfg(target_arch = "wasm32")]
    if what == "out of memory" {
        // Gigabytes never touched until the memory cannot grow (wasm32 ends at 4 GiB): the
        // allocator is refused, and the allocation error aborts as a real one does.
        let l = Layout::from_size_align(1 << 30, 1).expect("a valid layout");
        loop {
            // SAFETY: a layout of non-zero size; the memory is never used.
            if unsafe { std::alloc::alloc(l) }.is_null() {
                std::alloc::handle_alloc_error(l);
            }
        }
    }
    panic!("{what}");
}
