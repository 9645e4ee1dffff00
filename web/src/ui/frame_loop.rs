//! The animation loop of a playing or seeking replay: a [`Msg::Tick`] each display frame
//! (`requestAnimationFrame`), or, after a tick that computed part of a seek and has nothing to
//! show ([`crate::model::Model::quiet_tick`]), at once as a task (a `MessageChannel` message:
//! no 4 ms clamp as a nested `setTimeout` has, and input events still run between slices). A
//! seek's slice is ~45 ms ([`crate::model::SEEK_FRAME_MS`]): waiting for the next display frame
//! after each left ~5 ms of every ~50 idle (issue 44, End at 251 nodes).

use crate::model::{Msg, Store};
use crate::platform;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

type FrameClosure = Rc<RefCell<Option<Closure<dyn FnMut(f64)>>>>;

/// A loop that dispatches [`Msg::Tick`] until dropped.
pub struct FrameLoop {
    alive: Rc<Cell<bool>>,
    id: Rc<Cell<i32>>,
    closure: FrameClosure,
    /// The task lane: the channel (its first port calls the tick) and the port's handler.
    lane: Option<(web_sys::MessageChannel, Closure<dyn FnMut()>)>,
}

impl FrameLoop {
    pub fn start(s: UseReducerHandle<Store>) -> FrameLoop {
        let alive = Rc::new(Cell::new(true));
        let id = Rc::new(Cell::new(0));
        let closure: FrameClosure = Rc::new(RefCell::new(None));
        let channel = web_sys::MessageChannel::new().ok();
        let port = channel.as_ref().map(|c| c.port2());
        let last: Cell<Option<f64>> = Cell::new(None);
        let cost = Cell::new(0.0f64);
        let (a2, id2, c2) = (alive.clone(), id.clone(), closure.clone());
        let tick: Rc<dyn Fn(f64)> = Rc::new(move |ts: f64| {
            if !a2.get() || crate::crash::stopped() {
                return;
            }
            let dt = last.get().map_or(16.7, |l| (ts - l).max(0.0));
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
            if !a2.get() {
                return;
            }
            let quiet = s.model.try_borrow().is_ok_and(|m| m.quiet_tick());
            if let (true, Some(p)) = (quiet, port.as_ref()) {
                if p.post_message(&JsValue::NULL).is_ok() {
                    return;
                }
            }
            if let (Some(w), Some(f)) = (web_sys::window(), c2.borrow().as_ref()) {
                if let Ok(i) = w.request_animation_frame(f.as_ref().unchecked_ref()) {
                    id2.set(i);
                }
            }
        });
        let t = tick.clone();
        *closure.borrow_mut() = Some(Closure::new(move |ts: f64| t(ts)));
        let lane = channel.map(|c| {
            let t = tick.clone();
            let on = Closure::<dyn FnMut()>::new(move || t(platform::now_ms()));
            c.port1().set_onmessage(Some(on.as_ref().unchecked_ref()));
            (c, on)
        });
        if let (Some(w), Some(f)) = (web_sys::window(), closure.borrow().as_ref()) {
            if let Ok(i) = w.request_animation_frame(f.as_ref().unchecked_ref()) {
                id.set(i);
            }
        }
        FrameLoop {
            alive,
            id,
            closure,
            lane,
        }
    }
}

impl Drop for FrameLoop {
    fn drop(&mut self) {
        self.alive.set(false);
        if let Some(w) = web_sys::window() {
            let _ = w.cancel_animation_frame(self.id.get());
        }
        // A message already posted finds no handler (and the loop not alive).
        if let Some((c, _)) = &self.lane {
            c.port1().set_onmessage(None);
            c.port1().close();
            c.port2().close();
        }
        // Break the closure's self-reference; it is not running now (drop happens in an effect).
        self.closure.borrow_mut().take();
    }
}
