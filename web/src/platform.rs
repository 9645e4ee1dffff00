//! The browser side effects the app needs: storage, the URL hash, downloads, the clipboard, the
//! clock for frame budgets and the colour-scheme preference. Every function degrades quietly when
//! the browser refuses (private mode storage, no clipboard permission).

use wasm_bindgen::JsCast;

/// localStorage key of the autosaved session (a permalink payload).
pub const SESSION_KEY: &str = "clusterscope.session";
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
    let Some(doc) = window().and_then(|w| w.document()) else {
        return;
    };
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else {
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

/// Size a canvas's backing store to its CSS box times the pixel ratio and return a context
/// scaled so that drawing uses CSS pixels, with the CSS width and height.
pub fn prepare_canvas(
    canvas: &web_sys::HtmlCanvasElement,
    hidpi: bool,
) -> Option<(web_sys::CanvasRenderingContext2d, f64, f64)> {
    let w = canvas.client_width().max(1) as f64;
    let h = canvas.client_height().max(1) as f64;
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
/// (from the click or key of a jump to the first render where the app is no longer busy).
pub mod perf {
    use std::cell::Cell;

    thread_local! {
        static FRAME: Cell<bool> = const { Cell::new(false) };
        static JUMP: Cell<bool> = const { Cell::new(false) };
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
        if let Some(p) = performance() {
            let _ = p.mark("cs-f0");
            FRAME.with(|f| f.set(true));
        }
    }

    /// The simulation slice of the frame is done; rendering follows.
    pub fn frame_computed() {
        if FRAME.with(Cell::get) {
            if let Some(p) = performance() {
                let _ = p.mark("cs-f1");
            }
        }
    }

    /// A jump (scrub click, Home/End) is about to be dispatched.
    pub fn jump_start() {
        if let Some(p) = performance() {
            let _ = p.mark("cs-j0");
            JUMP.with(|f| f.set(true));
        }
    }

    /// Called after every render of the root component (its effects run after the children's,
    /// which draw the canvases): closes the open frame, and the open jump once the app is idle.
    pub fn rendered(busy: bool) {
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
            p.clear_marks_with_mark_name("cs-j0");
            p.clear_marks_with_mark_name("cs-j1");
        }
    }
}
