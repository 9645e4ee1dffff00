use wasm_bindgen::prelude::*;

fn main() {
    clusterscope_web::start();
}

/// A sweep worker's batch (`static/sweep-worker.js`): jobs of a plan on a scenario, their
/// outcomes as JSON. See `clusterscope_web::sweep::run_batch`. Exported from the binary so that
/// the worker imports the app's own wasm-bindgen module.
#[wasm_bindgen]
pub fn sweep_jobs(
    builtin: &str,
    text: &str,
    plan: &str,
    jobs: Vec<u64>,
) -> Result<String, JsValue> {
    clusterscope_web::sweep::run_batch(builtin, text, plan, &jobs)
        .map_err(|e| JsValue::from_str(&e))
}
