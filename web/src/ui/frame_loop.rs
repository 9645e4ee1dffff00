//! The animation loop of a playing or seeking replay: a [`Msg::Tick`] each display frame
//! (`requestAnimationFrame`), with the time since the last and the last tick's cost.
//!
//! Measured and not kept (issue 44, 2026-12-06): running a seek's quiet slices back to back as
//! tasks (a `MessageChannel` message after a slice that shows nothing) instead of each waiting
//! for a display frame: the gaps between the ~45 ms slices of End at 251 nodes were the same
//! (113-158 ms in all against 121-164 ms, three alternated runs), as Chromium starts the next
//! frame at once after a callback that overran its frame.

use crate::model::{Msg, Store};
use crate::platform;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

type FrameClosure = Rc<RefCell<Option<Closure<dyn FnMut(f64)>>>>;

/// A `requestAnimationFrame` loop that dispatches [`Msg::Tick`] until dropped.
pub struct FrameLoop {
    alive: Rc<Cell<bool>>,
    id: Rc<Cell<i32>>,
    closure: FrameClosure,
}

impl FrameLoop {
    pub fn start(s: UseReducerHandle<Store>) -> FrameLoop {
        let alive = Rc::new(Cell::new(true));
        let id = Rc::new(Cell::new(0));
        let closure: FrameClosure = Rc::new(RefCell::new(None));
        let last: Cell<Option<f64>> = Cell::new(None);
        let cost = Cell::new(0.0f64);
        let (a2, id2, c2) = (alive.clone(), id.clone(), closure.clone());
        *closure.borrow_mut() = Some(Closure::new(move |ts: f64| {
            if !a2.get() || crate::crash::stopped() {
                return;
            }
            let dt = last.get().map_or(16.7, |l| ts - l);
            last.set(Some(ts));
            let c = cost.get();
            let t0 = platform::now_ms();
            platform::perf::frame_start();
            s.dispatch(Msg::Tick {
                dt_ms: dt,
                cost_ms: c,
                render_ms: platform::perf::take_render_ms(),
            });
            platform::perf::frame_computed();
            cost.set(platform::now_ms() - t0);
            if a2.get() {
                if let (Some(w), Some(f)) = (web_sys::window(), c2.borrow().as_ref()) {
                    if let Ok(i) = w.request_animation_frame(f.as_ref().unchecked_ref()) {
                        id2.set(i);
                    }
                }
            }
        }));
        if let (Some(w), Some(f)) = (web_sys::window(), closure.borrow().as_ref()) {
            if let Ok(i) = w.request_animation_frame(f.as_ref().unchecked_ref()) {
                id.set(i);
            }
        }
        FrameLoop { alive, id, closure }
    }
}

impl Drop for FrameLoop {
    fn drop(&mut self) {
        self.alive.set(false);
        if let Some(w) = web_sys::window() {
            let _ = w.cancel_animation_frame(self.id.get());
        }
        // Break the closure's self-reference; it is not running now (drop happens in an effect).
        self.closure.borrow_mut().take();
    }
}
