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

/// The Expectations check's run (`static/sweep-worker.js`, `kind: "check"`): the session's
/// scenario (with its recorded actions) run to its end, its expectations checked, as JSON. See
/// `clusterscope_web::sweep::check::check_session`.
#[wasm_bindgen]
pub fn check_session(
    builtin: &str,
    text: &str,
    variant: &str,
    seed: u64,
) -> Result<String, JsValue> {
    clusterscope_web::sweep::check::check_session(builtin, text, variant, seed)
        .map_err(|e| JsValue::from_str(&e))
}
