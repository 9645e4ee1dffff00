//! The browser side effects the app needs: storage, the URL hash, downloads, the clipboard, the
//! clock for frame budgets and the colour-scheme preference. Every function degrades quietly when
//! the browser refuses (private mode storage, no clipboard permission).

use wasm_bindgen::JsCast;

/// localStorage key of the autosaved session (a permalink payload).
pub const SESSION_KEY: &str = "clusterscope.session";
/// localStorage key of the autosaved session in a few words (`static/crash.js` names it on its
/// reload button: after a stop it cannot ask the module).
pub const SESSION_LABEL_KEY: &str = "clusterscope.session.label";
/// localStorage key of the theme choice.
pub const THEME_KEY: &str = "clusterscope.theme";

fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

fn storage() -> Option<web_sys::Storage> {
    window()?.local_storage().ok().flatten()
}

pub fn load(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

pub fn save(key: &str, value: &str) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, value);
    }
}

thread_local! {
    /// See [`opening_link`].
    static OPENING_LINK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The page started with a link in its address (`#s=`, also a reload's) and has not been ready
/// since (issue 44): what only the default scenario the app starts with would use waits for the
/// link's session instead (its Expectations check's run in a Web Worker, `ui::checks`: a second
/// engine started beside the link's own opening). Set by `crate::start`, cleared by the app's
/// first ready render (`ui::app`), a link that did not open included.
pub fn opening_link() -> bool {
    OPENING_LINK.with(|o| o.get())
}

/// Set or clear [`opening_link`].
pub fn set_opening_link(on: bool) {
    OPENING_LINK.with(|o| o.set(on));
}

/// The URL fragment without `#` (empty when there is none).
pub fn hash() -> String {
    window()
        .and_then(|w| w.location().hash().ok())
        .map(|h| h.trim_start_matches('#').to_string())
        .unwrap_or_default()
}

/// Replace the fragment without adding a history entry or firing `hashchange`.
pub fn replace_hash(payload: &str) {
    let Some(w) = window() else { return };
    let Ok(history) = w.history() else { return };
    let url = format!("#s={payload}");
    let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
}

/// Run `f` once the browser has painted the next frame, after the tasks already queued for
/// that moment (a jump's `cs-jump-paint` mark among them): work that must not hold up the frame
/// a person waits for, such as the permalink (`replaceState` took ~9 ms of every jump at 251
/// nodes, issue 44). The next frame's animation callbacks run before `f`, so a test that waits
/// two frames sees what `f` did. A hidden tab paints no frames: then `f` runs after 250 ms.
pub fn after_paint(f: impl FnOnce() + 'static) {
    use std::cell::RefCell;
    use std::rc::Rc;
    use wasm_bindgen::{closure::Closure, JsCast};
    let Some(w) = window() else {
        f();
        return;
    };
    type Once = Rc<RefCell<Option<Box<dyn FnOnce()>>>>;
    let once: Once = Rc::new(RefCell::new(Some(Box::new(f))));
    let run = |o: Once| {
        let f = o.borrow_mut().take();
        if let Some(f) = f {
            f();
        }
    };
    let o1 = once.clone();
    let raf = Closure::once_into_js(move || {
        let Some(w) = window() else { return };
        // Two hops: a task queued from the animation callback runs after that frame's paint;
        // the second lets the tasks queued there first (the paint measure) run before `f`.
        let second = Closure::once_into_js(move || {
            let task = Closure::once_into_js(move || run(o1));
            if let Some(w) = window() {
                let _ = w.set_timeout_with_callback(task.unchecked_ref());
            }
        });
        let _ = w.set_timeout_with_callback(second.unchecked_ref());
    });
    let _ = w.request_animation_frame(raf.unchecked_ref());
    let late = Closure::once_into_js(move || run(once));
    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(late.unchecked_ref(), 250);
}

/// The page's URL with `payload` as its fragment.
pub fn permalink_url(payload: &str) -> String {
    let base = window()
        .and_then(|w| w.location().href().ok())
        .unwrap_or_default();
    let base = base.split('#').next().unwrap_or_default().to_string();
    format!("{base}#s={payload}")
}

/// Offer `text` as a file download.
pub fn download(file_name: &str, text: &str, mime: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    download_parts(file_name, &parts, mime);
}

/// Offer the concatenation of `parts` (JS strings or Blobs) as a file download: a `Blob` of the
/// parts, never one large string.
pub fn download_parts(file_name: &str, parts: &js_sys::Array, mime: &str) {
    let Some(doc) = window().and_then(|w| w.document()) else {
        return;
    };
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(parts, &opts) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Ok(a) = doc.create_element("a") {
        if let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>() {
            a.set_href(&url);
            a.set_download(file_name);
            a.click();
        }
    }
    // Revoking at once can cancel the download; give the browser a moment.
    gloo::timers::callback::Timeout::new(10_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
}

/// Copy to the clipboard (best effort; the permalink is also in the address bar).
pub fn copy(text: &str) {
    if let Some(w) = window() {
        let promise = w.navigator().clipboard().write_text(text);
        // A refused write (no permission, headless) is fine: the link is in the address bar.
        let ignore = wasm_bindgen::closure::Closure::once(|_: wasm_bindgen::JsValue| {});
        let _ = promise.catch(&ignore);
        ignore.forget();
    }
}

/// [`now_ms`] in the browser; `None` natively, where the model's tests run without a clock.
pub fn clock_ms() -> Option<f64> {
    #[cfg(target_arch = "wasm32")]
    return Some(now_ms());
    #[cfg(not(target_arch = "wasm32"))]
    None
}

/// Milliseconds from a monotonic clock (for frame budgets only, never for the simulation).
pub fn now_ms() -> f64 {
    window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or_else(js_sys::Date::now)
}

pub fn prefers_dark() -> bool {
    window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Set `data-theme` on `<html>` ("light" or "dark") so CSS variables follow the choice.
pub fn apply_theme(dark: bool) {
    if let Some(el) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = el.set_attribute("data-theme", if dark { "dark" } else { "light" });
    }
}

/// `data-saving` on `#app` while the autosave waits for the session writer's part (the split
/// release build, `ui::app`): what a test waits for before it reads the saved session.
pub fn mark_saving(on: bool) {
    if let Some(app) = gloo::utils::document().get_element_by_id("app") {
        let _ = if on {
            app.set_attribute("data-saving", "1")
        } else {
            app.remove_attribute("data-saving")
        };
    }
}

/// A detached canvas of `w` x `h` CSS pixels at `dpr`, for cached layers.
pub fn offscreen(w: f64, h: f64, dpr: f64) -> Option<web_sys::HtmlCanvasElement> {
    let c = window()?
        .document()?
        .create_element("canvas")
        .ok()?
        .dyn_into::<web_sys::HtmlCanvasElement>()
        .ok()?;
    c.set_width((w * dpr).round() as u32);
    c.set_height((h * dpr).round() as u32);
    Some(c)
}

/// The 2D context of a canvas, scaled so drawing uses CSS pixels.
pub fn context(
    c: &web_sys::HtmlCanvasElement,
    dpr: f64,
) -> Option<web_sys::CanvasRenderingContext2d> {
    let ctx = c
        .get_context("2d")
        .ok()??
        .dyn_into::<web_sys::CanvasRenderingContext2d>()
        .ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    Some(ctx)
}

pub fn device_pixel_ratio() -> f64 {
    window()
        .map_or(1.0, |w| w.device_pixel_ratio())
        .clamp(1.0, 3.0)
}

/// A canvas's CSS size (`clientWidth` x `clientHeight`), remembered on the element and kept
/// current by a `ResizeObserver`. Reading `clientWidth` while drawing would force the browser to
/// lay out the page in the middle of the app's DOM update (at 251 nodes 10-25 ms per render);
/// with the remembered size the layout happens once, after the update. The first call for a
/// canvas reads the size (one forced layout) and starts observing it; when the observer reports
/// a new size, the hook set with [`on_canvas_resize`] runs so the canvases redraw.
pub fn canvas_size(canvas: &web_sys::HtmlElement) -> (i32, i32) {
    sizes::get(canvas)
}

/// Run `f` when an observed canvas changes size (see [`canvas_size`]); replaces the last hook.
pub fn on_canvas_resize(f: impl Fn() + 'static) {
    sizes::set_hook(Box::new(f));
}

/// Watches whether an element is on screen (or within 200 px of it); see [`watch_on_screen`].
/// Dropping it stops the watch.
pub struct OnScreenWatch {
    observer: web_sys::IntersectionObserver,
    _callback: wasm_bindgen::closure::Closure<dyn FnMut(js_sys::Array)>,
}

impl Drop for OnScreenWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// Call `f` with whether `el` is on screen (within 200 px), now and each time that changes, from an
/// `IntersectionObserver` (after layout: no forced layout). `None` where there is none.
pub fn watch_on_screen(el: &web_sys::Element, f: impl Fn(bool) + 'static) -> Option<OnScreenWatch> {
    use wasm_bindgen::{closure::Closure, JsCast};
    let cb = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        if crate::crash::stopped() {
            return;
        }
        // The last entry is the latest state.
        let last = entries
            .iter()
            .filter_map(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok())
            .next_back();
        if let Some(e) = last {
            f(e.is_intersecting());
        }
    });
    let opts = web_sys::IntersectionObserverInit::new();
    opts.set_root_margin("200px");
    let observer =
        web_sys::IntersectionObserver::new_with_options(cb.as_ref().unchecked_ref(), &opts).ok()?;
    observer.observe(el);
    Some(OnScreenWatch {
        observer,
        _callback: cb,
    })
}

/// Whether the first element matching `selector` is out of the viewport (farther than 200 px):
/// from one `IntersectionObserver` (no layout forced), its answer kept on the element. `false`
/// for an element not seen before (it is watched from now on) or absent. For the panels a jump
/// brings up to date only after the frame is painted while nobody can see them (issue 44).
pub fn off_screen(selector: &str) -> bool {
    off_screen::get(selector)
}

mod off_screen {
    use std::cell::RefCell;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;

    /// The expando property on a watched element: `true` while it is off screen.
    const KEY: &str = "__csOff";

    thread_local! {
        static OBSERVER: RefCell<Option<web_sys::IntersectionObserver>> = const { RefCell::new(None) };
    }

    fn observer() -> Option<web_sys::IntersectionObserver> {
        OBSERVER.with(|o| {
            if o.borrow().is_none() {
                let cb = Closure::<dyn FnMut(js_sys::Array)>::new(|entries: js_sys::Array| {
                    for e in entries.iter() {
                        let Ok(e) = e.dyn_into::<web_sys::IntersectionObserverEntry>() else {
                            continue;
                        };
                        let off = JsValue::from_bool(!e.is_intersecting());
                        let _ = js_sys::Reflect::set(&e.target(), &JsValue::from_str(KEY), &off);
                    }
                });
                let opts = web_sys::IntersectionObserverInit::new();
                opts.set_root_margin("200px");
                let io = web_sys::IntersectionObserver::new_with_options(
                    cb.as_ref().unchecked_ref(),
                    &opts,
                )
                .ok();
                // The observer lives as long as the page.
                cb.forget();
                *o.borrow_mut() = io;
            }
            o.borrow().clone()
        })
    }

    pub fn get(selector: &str) -> bool {
        let Some(el) = gloo::utils::document()
            .query_selector(selector)
            .ok()
            .flatten()
        else {
            return false;
        };
        let v = js_sys::Reflect::get(&el, &JsValue::from_str(KEY)).unwrap_or(JsValue::UNDEFINED);
        if v.is_undefined() {
            let _ = js_sys::Reflect::set(&el, &JsValue::from_str(KEY), &JsValue::FALSE);
            if let Some(io) = observer() {
                io.observe(&el);
            }
            return false;
        }
        v.is_truthy()
    }
}

mod sizes {
    use std::cell::RefCell;
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;

    /// The expando property holding `[w, h]` on an observed canvas (a JS property, not an
    /// attribute, so updating it does not touch styles).
    const KEY: &str = "__csSize";

    thread_local! {
        static OBSERVER: RefCell<Option<web_sys::ResizeObserver>> = const { RefCell::new(None) };
        static HOOK: RefCell<Option<Box<dyn Fn()>>> = const { RefCell::new(None) };
    }

    pub fn set_hook(f: Box<dyn Fn()>) {
        HOOK.with(|h| *h.borrow_mut() = Some(f));
    }

    fn remembered(el: &web_sys::HtmlElement) -> Option<(i32, i32)> {
        let v = js_sys::Reflect::get(el, &JsValue::from_str(KEY)).ok()?;
        let a = v.dyn_into::<js_sys::Int32Array>().ok()?;
        (a.length() == 2).then(|| (a.get_index(0), a.get_index(1)))
    }

    fn remember(el: &web_sys::HtmlElement, (w, h): (i32, i32)) {
        let a = js_sys::Int32Array::new_with_length(2);
        a.set_index(0, w);
        a.set_index(1, h);
        let _ = js_sys::Reflect::set(el, &JsValue::from_str(KEY), &a);
    }

    fn observer() -> Option<web_sys::ResizeObserver> {
        OBSERVER.with(|o| {
            if o.borrow().is_none() {
                let cb = Closure::<dyn FnMut(js_sys::Array)>::new(|entries: js_sys::Array| {
                    if crate::crash::stopped() {
                        return;
                    }
                    let mut changed = false;
                    for e in entries.iter() {
                        let Ok(e) = e.dyn_into::<web_sys::ResizeObserverEntry>() else {
                            continue;
                        };
                        let Ok(el) = e.target().dyn_into::<web_sys::HtmlElement>() else {
                            continue;
                        };
                        // Observer callbacks run after layout: reading the size here is free.
                        let now = (el.client_width(), el.client_height());
                        if remembered(&el) != Some(now) {
                            remember(&el, now);
                            changed = true;
                        }
                    }
                    if changed {
                        HOOK.with(|h| {
                            if let Some(f) = h.borrow().as_ref() {
                                f();
                            }
                        });
                    }
                });
                let ro = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()).ok();
                // The observer lives as long as the page.
                cb.forget();
                *o.borrow_mut() = ro;
            }
            o.borrow().clone()
        })
    }

    pub fn get(el: &web_sys::HtmlElement) -> (i32, i32) {
        if let Some(s) = remembered(el) {
            return s;
        }
        // The topology's height follows its top (`--topo-top`): set it before the first
        // measure, which lays the page out anyway.
        super::set_topology_top();
        let now = (el.client_width(), el.client_height());
        if let Some(ro) = observer() {
            remember(el, now);
            ro.observe(el);
        }
        now
    }
}

/// Size a canvas's backing store to its CSS box times the pixel ratio and return a context
/// scaled so that drawing uses CSS pixels, with the CSS width and height.
pub fn prepare_canvas(
    canvas: &web_sys::HtmlCanvasElement,
    hidpi: bool,
) -> Option<(web_sys::CanvasRenderingContext2d, f64, f64)> {
    let (w, h) = canvas_size(canvas);
    let (w, h) = (w.max(1) as f64, h.max(1) as f64);
    let dpr = if hidpi { device_pixel_ratio() } else { 1.0 };
    let (bw, bh) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
    if canvas.width() != bw {
        canvas.set_width(bw);
    }
    if canvas.height() != bh {
        canvas.set_height(bh);
    }
    let ctx = canvas
        .get_context("2d")
        .ok()
        .flatten()?
        .dyn_into::<web_sys::CanvasRenderingContext2d>()
        .ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, w, h);
    Some((ctx, w, h))
}

/// Frame and jump timings as `performance.measure` entries, for `tests/e2e/bench.mjs`. Off unless
/// the page sets `window.__csPerf = true` before the app starts work (the benchmark does it in an
/// init script), so ordinary use never fills the performance timeline.
///
/// Entries: `cs-frame` (an animation frame: the simulation slice in the reducer plus the render
/// and canvas drawing it causes), split into `cs-frame-compute` and `cs-frame-render`; `cs-jump`
/// (from the click or key of a jump to the first render where the app is no longer busy) and
/// `cs-jump-paint` (to the end of the browser's paint of that render: what a person waits for);
/// `cs-jump-model` (the restore and replay of a jump alone) and `cs-scrub-model` (a drag's update's).
pub mod perf {
    use std::cell::Cell;

    thread_local! {
        static FRAME: Cell<bool> = const { Cell::new(false) };
        static JUMP: Cell<bool> = const { Cell::new(false) };
        /// When the open frame's simulation ended (`None`: no frame open).
        static COMPUTED_AT: Cell<Option<f64>> = const { Cell::new(None) };
        /// How long the last frame's render took, until taken (`take_render_ms`).
        static RENDER_MS: Cell<f64> = const { Cell::new(0.0) };
    }

    /// The time from the end of the last frame's simulation to the end of the render it caused
    /// (0 when no frame rendered since the last call): measured on every frame, whether or not
    /// the performance marks are on, for the compare frame budget (`Msg::Tick::render_ms`).
    pub fn take_render_ms() -> f64 {
        RENDER_MS.with(|r| r.replace(0.0))
    }

    fn performance() -> Option<web_sys::Performance> {
        let w = web_sys::window()?;
        let on = js_sys::Reflect::get(&w, &wasm_bindgen::JsValue::from_str("__csPerf"))
            .ok()
            .is_some_and(|v| v.is_truthy());
        if on {
            w.performance()
        } else {
            None
        }
    }

    /// An animation frame starts (before the simulation slice).
    pub fn frame_start() {
        // A frame that rendered nothing leaves its time behind: not this frame's.
        COMPUTED_AT.with(|c| c.set(None));
        if let Some(p) = performance() {
            let _ = p.mark("cs-f0");
            FRAME.with(|f| f.set(true));
        }
    }

    /// The simulation slice of the frame is done; rendering follows.
    pub fn frame_computed() {
        COMPUTED_AT.with(|c| c.set(Some(super::now_ms())));
        if FRAME.with(Cell::get) {
            if let Some(p) = performance() {
                let _ = p.mark("cs-f1");
            }
        }
    }

    /// Run `f` once the browser has painted the next frame: a task queued from the frame's
    /// animation callback runs after that frame's style, layout and paint.
    fn after_next_paint(f: impl FnOnce() + 'static) {
        use wasm_bindgen::{closure::Closure, JsCast};
        let Some(w) = web_sys::window() else { return };
        let raf = Closure::once_into_js(move || {
            let task = Closure::once_into_js(f);
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback(task.unchecked_ref());
            }
        });
        let _ = w.request_animation_frame(raf.unchecked_ref());
    }

    /// A timed span starts: the performance mark `start` (on wasm32, with the marks on).
    fn span_start(start: &str) {
        if !cfg!(target_arch = "wasm32") {
            return;
        }
        if let Some(p) = performance() {
            let _ = p.mark(start);
        }
    }

    /// ... and ends: the mark `end`, the measure `name` from `start` to it, both marks cleared.
    fn span_end(name: &str, start: &str, end: &str) {
        if !cfg!(target_arch = "wasm32") {
            return;
        }
        if let Some(p) = performance() {
            let _ = p.mark(end);
            let _ = p.measure_with_start_mark_and_end_mark(name, start, end);
            p.clear_marks_with_mark_name(start);
            p.clear_marks_with_mark_name(end);
        }
    }

    /// The model's part of a scrubber drag's update starts (`cs-scrub-model`, issue 44).
    pub fn scrub_start() {
        span_start("cs-s0");
    }

    /// ... and ends: `cs-scrub-model` (the restore and replay of a keyframe, or the exact jump).
    pub fn scrub_end() {
        span_end("cs-scrub-model", "cs-s0", "cs-s1");
    }

    /// A jump's model part starts: the restore and replay of [`crate::model::Model`]'s
    /// `scrub_to` (`cs-jump-model`, issue 44: a jump's time split into the model's, the render's
    /// and the browser's).
    pub fn model_start() {
        span_start("cs-m0");
    }

    /// ... and ends (`cs-jump-model`).
    pub fn model_end() {
        span_end("cs-jump-model", "cs-m0", "cs-m1");
    }

    /// A jump (scrub click, Home/End) is about to be dispatched.
    pub fn jump_start() {
        if let Some(p) = performance() {
            p.clear_marks_with_mark_name("cs-j0");
            let _ = p.mark("cs-j0");
            JUMP.with(|f| f.set(true));
        }
    }

    /// Called after every render of the root component (its effects run after the children's,
    /// which draw the canvases): closes the open frame, and the open jump once the app is idle.
    pub fn rendered(busy: bool) {
        if let Some(t) = COMPUTED_AT.with(|c| c.take()) {
            RENDER_MS.with(|r| r.set((super::now_ms() - t).max(0.0)));
        }
        let frame = FRAME.with(|f| f.replace(false));
        let jump = !busy && JUMP.with(|f| f.replace(false));
        if !frame && !jump {
            return;
        }
        let Some(p) = performance() else { return };
        if frame {
            let _ = p.mark("cs-f2");
            let _ = p.measure_with_start_mark_and_end_mark("cs-frame", "cs-f0", "cs-f2");
            let _ = p.measure_with_start_mark_and_end_mark("cs-frame-compute", "cs-f0", "cs-f1");
            let _ = p.measure_with_start_mark_and_end_mark("cs-frame-render", "cs-f1", "cs-f2");
            for m in ["cs-f0", "cs-f1", "cs-f2"] {
                p.clear_marks_with_mark_name(m);
            }
        }
        if jump {
            let _ = p.mark("cs-j1");
            let _ = p.measure_with_start_mark_and_end_mark("cs-jump", "cs-j0", "cs-j1");
            p.clear_marks_with_mark_name("cs-j1");
            after_next_paint(|| {
                if let Some(p) = performance() {
                    let _ = p.mark("cs-j2");
                    let _ =
                        p.measure_with_start_mark_and_end_mark("cs-jump-paint", "cs-j0", "cs-j2");
                    p.clear_marks_with_mark_name("cs-j0");
                    p.clear_marks_with_mark_name("cs-j2");
                }
            });
        }
    }
}

/// Presentation mode's fullscreen (the Fullscreen API): on asks for the whole page (the browser
/// may refuse without a user gesture, or in a frame: presentation mode still applies), off
/// leaves fullscreen if the page is in it.
pub fn fullscreen(on: bool) {
    let doc = gloo::utils::document();
    if on {
        if doc.fullscreen_element().is_none() {
            if let Some(el) = doc.document_element() {
                let _ = el.request_fullscreen();
            }
        }
    } else if doc.fullscreen_element().is_some() {
        doc.exit_fullscreen();
    }
}

/// Whether the page is fullscreen now.
pub fn is_fullscreen() -> bool {
    gloo::utils::document().fullscreen_element().is_some()
}

/// Scrolls the page so that the card holding the element `id` starts just under the sticky
/// dock: a phone's jump to the topology, which is under the title, the caption and the dock,
/// off the first screen at 390x844.
pub fn scroll_under_dock(id: &str) {
    let doc = gloo::utils::document();
    let (Some(w), Some(e)) = (window(), doc.get_element_by_id(id)) else {
        return;
    };
    let target = e.closest(".card").ok().flatten().unwrap_or(e);
    let dock = doc
        .get_element_by_id("dock")
        .map_or(0.0, |d| d.get_bounding_client_rect().height());
    let y = w.scroll_y().unwrap_or(0.0) + target.get_bounding_client_rect().top() - dock - 4.0;
    w.scroll_to_with_x_and_y(0.0, y.max(0.0));
}

/// Keeps the CSS variable `--topo-top` on the root element at the topology canvas' top in the
/// document (px, as at scroll 0), so that `style.css` sizes the canvas to end at the bottom of
/// the viewport: the whole ring fits on screen at any size (issue 40: the bottom node of a
/// 5-node ring was cut at 1366x768 and 1920x1080). A `ResizeObserver` on `#app` reads it after
/// layout (no forced layout while drawing): anything above the canvas that changes height
/// (the caption, the dock, presentation mode) changes the app's height too; the canvas' own
/// height does not move its top, so setting it settles at once.
pub fn watch_topology_top() -> Option<TopWatch> {
    use wasm_bindgen::{closure::Closure, JsCast};
    let update = set_topology_top;
    let cb = Closure::<dyn FnMut(js_sys::Array)>::new(move |_: js_sys::Array| {
        if !crate::crash::stopped() {
            update();
        }
    });
    let ro = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()).ok()?;
    let app = gloo::utils::document().get_element_by_id("app")?;
    ro.observe(&app);
    update();
    Some(TopWatch {
        observer: ro,
        _callback: cb,
    })
}

/// The watch of [`watch_topology_top`]; dropping it stops it.
pub struct TopWatch {
    observer: web_sys::ResizeObserver,
    _callback: wasm_bindgen::closure::Closure<dyn FnMut(js_sys::Array)>,
}

impl Drop for TopWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// Set `--topo-top` ([`watch_topology_top`]) to the topology canvas' top now, if it moved (reads
/// its box: a layout if the page changed). Also called before a canvas is measured for the first
/// time ([`canvas_size`]): a topology card that has just appeared (a link's first frame at its
/// cursor, after the opening card) would otherwise be drawn at the height of the variable's
/// default, and the observer's correction after that layout would resize it and draw every
/// panel again (~40 ms of the first frame at 251 nodes, issue 44).
fn set_topology_top() {
    use wasm_bindgen::JsCast;
    let doc = gloo::utils::document();
    let (Some(c), Some(root)) = (doc.get_element_by_id("topology"), doc.document_element()) else {
        return;
    };
    let scroll = window().map_or(0.0, |w| w.scroll_y().unwrap_or(0.0));
    let top = (c.get_bounding_client_rect().top() + scroll)
        .round()
        .max(0.0);
    let Ok(root) = root.dyn_into::<web_sys::HtmlElement>() else {
        return;
    };
    let v = format!("{top}px");
    let style = root.style();
    if style.get_property_value("--topo-top").ok().as_deref() != Some(v.as_str()) {
        let _ = style.set_property("--topo-top", &v);
    }
}

/// Whether the page is laid out for a phone (the `max-width: 560px` of `style.css`, where the
/// present button is hidden, so `f` does nothing either).
pub fn is_phone() -> bool {
    window()
        .and_then(|w| w.match_media("(max-width: 560px)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Make the code of the model `name` available: at once when it is in the main module (every
/// model in a debug or unsplit build, gossip always); in the split release build, the part of
/// the wasm that holds it (its engine and its panels), fetched and linked by the split's glue
/// (`globalThis.__csLoadPart`, written by `scripts/wasm-split.mjs`). The page's and each
/// worker's instance load their own.
pub async fn load_model(name: &str) -> Result<(), String> {
    let model = clusterscope_core::registry::find(name)
        .ok_or_else(|| format!("protocol \"{name}\" is not modelled"))?;
    let Some(part) = model.part else {
        return Ok(());
    };
    load_part(part).await.map_err(|()| {
        format!(
            "the code of the {name} model did not load (a part of the app, split/; check the \
             connection and choose it again)"
        )
    })
}

/// Fetch and link the part `part` of the split release build's wasm (every module of it: a
/// model's engine and its panels, or a panel of the app's own, see `in_part!`): `Err` when
/// the build has no such part or a fetch failed (it may be asked again). Only the split build
/// calls it with a part that is not in the main module.
pub async fn load_part(part: &str) -> Result<(), ()> {
    loaded(start_load(part)).await
}

/// Every part of `parts` fetched side by side ([`load_part`]); `Err` names the first that did
/// not load.
pub async fn load_parts(parts: &[&'static str]) -> Result<(), &'static str> {
    let started: Vec<_> = parts.iter().map(|p| (*p, start_load(p))).collect();
    for (part, promise) in started {
        loaded(promise).await.map_err(|()| part)?;
    }
    Ok(())
}

/// The glue's promise of the part `part` (`None`: no glue, not the split build).
fn start_load(part: &str) -> Option<js_sys::Promise> {
    use wasm_bindgen::JsValue;
    let load = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("__csLoadPart"))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())?;
    load.call1(&JsValue::NULL, &JsValue::from_str(part))
        .ok()
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok())
}

async fn loaded(promise: Option<js_sys::Promise>) -> Result<(), ()> {
    match wasm_bindgen_futures::JsFuture::from(promise.ok_or(())?).await {
        Ok(v) if v.as_bool() == Some(true) => Ok(()),
        _ => Err(()),
    }
}
