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

/// Mounts [`App`] into `<body>`; in a Web Worker (a sweep's, which imports this module to run
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
    // needs the session reader, and opening it writes the session it replaces (kept to go back
    // to): both parts are fetched now, side by side while the app starts, rather than one after
    // the other when the store first wants each (issue 44: a permalink to the 251-node run
    // waited for each in turn). The store's own `load_part` finds them loaded or loading (the
    // glue fetches a part once; a failed fetch is tried again when the store asks, and says so
    // then).
    #[cfg(cs_split)]
    if platform::hash().starts_with("s=") {
        for part in [reader::SESSION_PART, reader::WRITER_PART] {
            wasm_bindgen_futures::spawn_local(async move {
                let _ = platform::load_part(part).await;
            });
        }
    }
    yew::Renderer::<App>::new().render();
}
