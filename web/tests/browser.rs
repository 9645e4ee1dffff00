//! wasm-bindgen tests of the web crate, run in headless Chromium by `scripts/test`.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn app_renders_and_marks_ready() {
    let document = gloo::utils::document();
    let host = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&host).unwrap();
    yew::Renderer::<clusterscope_web::App>::with_root(host.clone()).render();
    // Let the scheduler render and run effects.
    for _ in 0..50 {
        yew::platform::time::sleep(std::time::Duration::from_millis(10)).await;
        if let Some(app) = host.query_selector("#app").unwrap() {
            if app.get_attribute("data-ready").as_deref() == Some("1") {
                assert!(app.text_content().unwrap().contains("Clusterscope"));
                return;
            }
        }
    }
    panic!("#app never got data-ready=\"1\"");
}
