//! The built-in scenarios in the browser. Their list (name, node count) is compiled in
//! (`clusterscope_core::scenario::builtin::CATALOG`); their texts are not (the default scenario
//! is, read ahead of time: `crate::compact`, so that the app opens at once without the
//! scenario reader, `crate::reader`): trunk copies `scenarios/` next to the app
//! (`index.html`) and a text is fetched the first time its scenario is opened ([`download`];
//! ~1/4 of the gzipped wasm's data, docs/PERFORMANCE.md, "Download size and load").
//!
//! [`get`] answers from the texts at hand; for one not downloaded yet it returns an error and
//! remembers the name ([`take_wanted`]): the store then keeps the message, has the app download
//! the text and applies the message again (`model::store`). A worker gets the text with each
//! message from the page ([`provide`]) and never fetches.

use clusterscope_core::limits::Limits;
use clusterscope_core::scenario::builtin::{self, Entry, CATALOG};
use clusterscope_core::scenario::Scenario;
use clusterscope_core::session::ScenarioRef;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The scenario the app opens first; it is compiled in, read ahead of time (`crate::compact`).
pub const DEFAULT: &str = "cassandra-21636-packet-loss";

thread_local! {
    /// Texts downloaded (or given by the page, in a worker), by name.
    static TEXTS: RefCell<BTreeMap<&'static str, Rc<str>>> = const { RefCell::new(BTreeMap::new()) };
    /// A built-in asked for by [`get`] whose text is not here yet.
    static WANTED: Cell<Option<&'static str>> = const { Cell::new(None) };
}

/// The built-in scenarios, in the picker's order.
pub fn catalog() -> &'static [Entry] {
    CATALOG
}

/// The text of the built-in `name`, if it is at hand (the default scenario's never is in the
/// app's wasm build: [`get`] builds it from its form read ahead of time, a worker too).
pub fn text(name: &str) -> Option<Rc<str>> {
    // Native builds that compile the texts into core (its `builtin-texts` feature: the crate's
    // tests, a workspace build) have every text at hand, as if downloaded; the app's wasm build
    // has none and downloads them.
    TEXTS
        .with(|t| t.borrow().get(name).cloned())
        .or_else(|| builtin::text(name).map(Rc::from))
}

/// Keep `text` as the built-in `name`'s (downloaded, or sent to a worker by the page).
pub fn provide(name: &str, text: &str) -> Result<(), String> {
    let e = builtin::entry(name).ok_or_else(|| builtin::unknown(name))?;
    if e.name != DEFAULT {
        TEXTS.with(|t| t.borrow_mut().insert(e.name, Rc::from(text)));
    }
    Ok(())
}

/// What a worker's message says of a scenario (`static/sweep-worker.js`): a built-in's name
/// and its text (the worker has not downloaded it), or no name and an imported file's text.
pub fn job(r: &ScenarioRef) -> (String, String) {
    match r {
        ScenarioRef::Builtin(n) => (
            n.clone(),
            text(n).map(|t| t.to_string()).unwrap_or_default(),
        ),
        ScenarioRef::Custom(t) => (String::new(), t.clone()),
    }
}

/// The built-in scenario `name`, parsed. When its text is not downloaded yet: an error, and the
/// name is remembered for [`take_wanted`]; when the scenario reader is not loaded (the split
/// release build): an error, and the reader is wanted (`crate::reader`). The default scenario
/// needs neither: it is read ahead of time (`crate::compact`).
pub fn get(name: &str) -> Result<Scenario, String> {
    let e = builtin::entry(name).ok_or_else(|| builtin::unknown(name))?;
    if e.name == DEFAULT {
        return crate::compact::scenario(&e.file(), &Limits::default()).map_err(|e| e.to_string());
    }
    match text(name) {
        Some(t) => crate::reader::parse(&e.file(), &t, &Limits::default()),
        None => {
            WANTED.with(|w| w.set(Some(e.name)));
            Err(format!(
                "the built-in scenario {name} is not downloaded yet ({})",
                url(e.name)
            ))
        }
    }
}

/// The built-in asked for by [`get`] since the last call whose text was not at hand.
pub fn take_wanted() -> Option<&'static str> {
    WANTED.with(|w| w.take())
}

/// Where the app finds the text of the built-in `name`: beside `index.html`.
pub fn url(name: &str) -> String {
    format!("scenarios/{name}.toml")
}

thread_local! {
    /// A text's fetch started ahead ([`fetch_ahead`]): the next [`download`] of that name takes
    /// its response instead of fetching again.
    static AHEAD: RefCell<Option<(&'static str, js_sys::Promise)>> = const { RefCell::new(None) };
}

/// The fetch of the built-in `name`'s text (`None`: no window).
fn request(name: &str) -> Option<js_sys::Promise> {
    let init = web_sys::RequestInit::new();
    // Revalidated each time: the file is not named by its content as the wasm is, and a text
    // left from an older build could disagree with this one.
    init.set_cache(web_sys::RequestCache::NoCache);
    Some(web_sys::window()?.fetch_with_str_and_init(&url(name), &init))
}

/// Start fetching the text of the built-in `name` now, for the [`download`] that will want it (a
/// link's scenario as the page starts, `crate::start`): that download reads this response
/// (or its error) instead of fetching again.
pub fn fetch_ahead(name: &'static str) {
    if let Some(p) = request(name) {
        AHEAD.with(|a| *a.borrow_mut() = Some((name, p)));
    }
}

/// Download the text of the built-in `name` and keep it. The error names the file and the
/// reason (offline, a status other than 200).
pub async fn download(name: &'static str) -> Result<(), String> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let url = url(name);
    let fail = |why: String| format!("could not download {url}: {why}");
    let js = |e: wasm_bindgen::JsValue| {
        e.dyn_ref::<js_sys::Error>()
            .map(|e| String::from(e.message()))
            .or_else(|| e.as_string())
            .unwrap_or_else(|| format!("{e:?}"))
    };
    let ahead = AHEAD.with(|a| a.borrow_mut().take_if(|(n, _)| *n == name));
    let fetch = match ahead {
        Some((_, p)) => p,
        None => request(name).ok_or_else(|| fail("no window".into()))?,
    };
    let resp = JsFuture::from(fetch).await.map_err(|e| fail(js(e)))?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|e| fail(js(e)))?;
    if !resp.ok() {
        return Err(fail(format!(
            "the server answered {} {}",
            resp.status(),
            resp.status_text()
        )));
    }
    let body = JsFuture::from(resp.text().map_err(|e| fail(js(e)))?)
        .await
        .map_err(|e| fail(js(e)))?;
    let text = body
        .as_string()
        .ok_or_else(|| fail("its body is not text".into()))?;
    provide(name, &text)
}
