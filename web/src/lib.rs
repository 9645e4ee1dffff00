//! Clusterscope web app (placeholder): a thin Yew shell over `clusterscope-core`.
//!
//! The real UI replaces this file; what the build and tests rely on is small:
//! `App` renders an element with id `app` and sets `data-ready="1"` on it once it has been
//! rendered (the end-to-end smoke test waits for that attribute).

use yew::prelude::*;

/// Root component.
#[function_component(App)]
pub fn app() -> Html {
    let root = use_node_ref();
    {
        let root = root.clone();
        // Runs after the first render: the DOM exists, so mark the app ready.
        use_effect_with((), move |_| {
            if let Some(el) = root.cast::<web_sys::Element>() {
                let _ = el.set_attribute("data-ready", "1");
            }
        });
    }
    html! {
        <main id="app" ref={root}>
            <h1>{ "Clusterscope" }</h1>
            <p class="tagline">{ "Deterministic distributed-systems incident simulator" }</p>
        </main>
    }
}

/// Mounts [`App`] into `<body>`.
pub fn start() {
    yew::Renderer::<App>::new().render();
}
