//! Clusterscope web app: a thin Yew shell over `clusterscope-core`.
//!
//! - [`model`]: the app state and every transition (`impl Reducible`), no DOM access.
//! - [`layout`]: pure geometry of the topology view (positions, hit tests).
//! - [`labels`]: where labels go without overprinting (the topology's and the sequence
//!   diagram's: one box type and clearance test).
//! - [`draw`]: canvas drawing of the topology, the matrix, the timeline and the plots.
//! - [`models`]: the one place the app names models: each model's own panels (gossip's
//!   inspector), picked by the run's model; every other panel is generic.
//! - [`kit`]: what every panel takes ([`kit::PanelProps`]) and the helpers panels share, below
//!   both [`models`] and [`ui`].
//! - [`ui`]: Yew components that render the model and dispatch messages; `ui::app` puts them and
//!   the model panels together.
//! - [`sweep`]: "How often?": the open scenario over many seeds in Web Workers (the panel is
//!   `ui::sweep`).
//! - [`hunt`]: "Find a run where this fails": core's hunt in the sweep's Web Workers (the
//!   panel is `ui::hunt`).
//! - [`crash`]: when the simulator stops for good (a panic, out of memory): the panic hook, the
//!   counting allocator, and what the page does instead of calling into a stopped module.
//! - [`builtins`]: the built-in scenarios: their list compiled in, their texts (but the default
//!   scenario's) downloaded when one is first opened.
//! - [`reader`]: the scenario reader (TOML text to a scenario), a part of the split build
//!   fetched when a text is first read; [`compact`]: the default scenario read ahead of time,
//!   so that its first frame needs no reader ([`compact_typed`]: its tables typed by hand).
//! - [`split`]: the split release build's parts of the app's own code ([`in_part!`]: the
//!   models' panels, the hunt), fetched when first needed.
//! - [`platform`]: browser side effects (storage, URL, downloads, clipboard, clock, canvas sizes
//!   from a `ResizeObserver`, performance marks for the benchmark).
//!
//! Modules import downwards only (ui > models > kit > draw > model > sweep, platform, labels,
//! builtins > layout, crash): the state does not know the panels that read it.
//!
//! Contract with the end-to-end tests: `#app[data-ready="1"]` once the app has rendered a
//! scenario and applied any saved session or permalink; `data-busy="0"` when it is not playing or
//! seeking.

pub mod builtins;
pub mod compact;
pub mod compact_typed;
pub mod crash;
pub mod draw;
pub mod hunt;
pub mod kit;
pub mod labels;
pub mod layout;
pub mod model;
pub mod models;
pub mod platform;
pub mod reader;
pub mod split;
pub mod sweep;
pub mod ui;

pub use ui::app::App;

/// Mounts [`App`] into `<body>` (a page that starts with a link: once the link's fetches are
/// under way, [`open_ahead`]); in a Web Worker (a sweep's, which imports this module to run
/// jobs) there is no window and nothing to render.
pub fn start() {
    crash::install();
    // The split release build's glue (`scripts/wasm-split.mjs`) links a model's part to this
    // instance's exports (its memory, table and functions): the page's, or a worker's current
    // one (a worker instantiates the module anew after a panic). `cs_split`: web/build.rs.
    #[cfg(cs_split)]
    let _ = js_sys::Reflect::set(
        &js_sys::global(),
        &wasm_bindgen::JsValue::from_str("__csWasm"),
        &wasm_bindgen::exports(),
    );
    if web_sys::window().is_none() {
        return;
    }
    // A link (`#s=...`, also what a reload finds: the autosave keeps the address up to date)
    // is opened ahead, and the app mounts once what it needs is on its way: see [`open_ahead`].
    if let Some(link) = platform::hash().strip_prefix("s=") {
        platform::set_opening_link(true);
        let _ = gloo::timers::callback::Timeout::new(MOUNT_WAIT_MS, mount).forget();
        wasm_bindgen_futures::spawn_local(open_ahead(link.to_string()));
    } else {
        mount();
    }
}

/// The longest a page that starts with a link waits for the session reader's part before it
/// mounts the app anyway ([`open_ahead`]): a slow connection still sees the opening card soon.
const MOUNT_WAIT_MS: u32 = 200;

thread_local! {
    /// Whether [`App`] is mounted ([`mount`]).
    static MOUNTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Mount [`App`] into `<body>`, once (the page's first call; later ones do nothing).
fn mount() {
    if !MOUNTED.with(|m| m.replace(true)) && !crash::stopped() {
        yew::Renderer::<App>::new().render();
    }
}

/// Open the link `link` ahead of the app (issue 44: a permalink to the 251-node run waited
/// ~330 ms between the session reader's arrival and its scenario's fetch, while the app started
/// with the default scenario, rendered it and read the link in turns). What opening it will
/// need is fetched side by side: in the split release build the session reader (to read the
/// link) and the session writer (opening a link writes the session it replaces, kept to go back
/// to); then, the link read, its scenario's text (a built-in but the default) and the scenario
/// reader (which reads it). The app mounts once these fetches are under way (or the session
/// reader took [`MOUNT_WAIT_MS`], or the link does not read), so that its first render and the
/// default scenario it starts with take the main thread while they come rather than before
/// they are asked for. The store then opens the link the usual way (`model::store`) and finds
/// each of them loaded or coming: the glue fetches a part once, and the text's download takes
/// the response fetched ahead. Nothing here reports: a link that does not read, or a fetch that failed, is
/// the store's to say (it reads the link again; it fetches a part again, and reads the text's
/// response, `builtins::fetch_ahead`).
async fn open_ahead(link: String) {
    use clusterscope_core::session::{ScenarioRef, Session};
    // The mount waits for a task of its own: the fetches spawned below start first.
    let mount_next = || {
        gloo::timers::callback::Timeout::new(0, mount).forget();
    };
    #[cfg(cs_split)]
    {
        wasm_bindgen_futures::spawn_local(async {
            let _ = platform::load_part(reader::WRITER_PART).await;
        });
        if platform::load_part(reader::SESSION_PART).await.is_err() {
            return mount_next();
        }
    }
    if crash::stopped() {
        return;
    }
    let Ok(session) = Session::decode(&link, &clusterscope_core::limits::Limits::browser()) else {
        return mount_next();
    };
    #[cfg(cs_split)]
    if !matches!(&session.scenario, ScenarioRef::Builtin(n) if n == builtins::DEFAULT) {
        wasm_bindgen_futures::spawn_local(async {
            let _ = platform::load_part(reader::PART).await;
        });
    }
    if let ScenarioRef::Builtin(name) = &session.scenario {
        if let Some(e) = clusterscope_core::scenario::builtin::entry(name)
            .filter(|e| e.name != builtins::DEFAULT && builtins::text(e.name).is_none())
        {
            builtins::fetch_ahead(e.name);
        }
    }
    mount_next();
}
