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

/// A hunt worker's batch (`static/sweep-worker.js`, `kind: "hunt"`): candidates `first..first +
/// count` of a hunt plan, up to the first failing one. See `clusterscope_web::hunt::run_batch`.
#[wasm_bindgen]
pub fn hunt_batch(
    builtin: &str,
    text: &str,
    plan: &str,
    first: u64,
    count: u64,
) -> Result<String, JsValue> {
    clusterscope_web::hunt::job(clusterscope_web::hunt::Job::Batch {
        builtin,
        text,
        plan,
        first,
        count,
    })
    .map_err(|e| JsValue::from_str(&e))
}

/// A hunt's shrink (`kind: "shrink"`): candidate `index` shrunk and recorded as actions. See
/// `clusterscope_web::hunt::run_shrink`.
#[wasm_bindgen]
pub fn hunt_shrink(
    builtin: &str,
    text: &str,
    plan: &str,
    index: u64,
    progress: &js_sys::Function,
) -> Result<String, JsValue> {
    clusterscope_web::hunt::job(clusterscope_web::hunt::Job::Shrink {
        builtin,
        text,
        plan,
        index,
        progress: &mut |reruns, actions| {
            // "RERUNS ACTIONS": the worker posts it as `{ progress }` (web/src/sweep/workers.rs).
            let _ = progress.call1(
                &JsValue::NULL,
                &JsValue::from_str(&format!("{reruns} {actions}")),
            );
        },
    })
    .map_err(|e| JsValue::from_str(&e))
}

/// The engine alone on a built-in scenario's default variant, the way `clusterscope run` runs it
/// without `--trace` (no checkpoints, no message bodies): the figure the app's "compute to the
/// end" is compared with (`tests/e2e/bench.mjs`, issue 20; the page has opened it, so its text
/// is downloaded). Returns the events run. In the split release build its code is the check's
/// part: `bench_part` names it while it is not loaded (`load_model` loads it).
#[wasm_bindgen]
pub fn bench_engine(builtin: &str) -> Result<f64, JsValue> {
    clusterscope_web::sweep::check::bench_engine(builtin)
        .map(|n| n as f64)
        .map_err(|e| JsValue::from_str(&e))
}

/// For `tests/e2e/bench.mjs`: the part `bench_engine` needs loaded first, if it is not.
#[wasm_bindgen]
pub fn bench_part() -> Option<String> {
    clusterscope_web::sweep::check::bench_part().map(String::from)
}

/// For `static/sweep-worker.js`: the model or part whose code a job asked for and did not have
/// (in the split release build each model but gossip is a part loaded on first use, and so are
/// the hunt's code, `clusterscope_web::split`, the scenario reader and the scenario writer), if
/// any since the last call. The worker then
/// awaits [`load_model`] and runs the job again.
#[wasm_bindgen]
pub fn wanted_model() -> Option<String> {
    clusterscope_core::registry::take_wanted()
        .or_else(|| {
            clusterscope_web::reader::take_wanted().then_some(clusterscope_web::reader::PART)
        })
        .or_else(|| {
            // The scenario writer (a plan's digest, a hunt's found scenario).
            clusterscope_web::reader::take_writer_wanted()
                .then_some(clusterscope_web::reader::WRITER_PART)
        })
        .or_else(clusterscope_web::split::take_wanted)
        .map(String::from)
}

/// Load the code of the model `name` (`clusterscope_web::platform::load_model`): at once when
/// it is in the main module, else its part of the split build; or the part `name` of the app's
/// own code (`clusterscope_web::split`).
#[wasm_bindgen]
pub async fn load_model(name: String) -> Result<(), JsValue> {
    if clusterscope_core::registry::find(&name).is_none() {
        return clusterscope_web::platform::load_part(&name)
            .await
            .map_err(|()| JsValue::from_str(&format!("the part {name} of the app did not load")));
    }
    clusterscope_web::platform::load_model(&name)
        .await
        .map_err(|e| JsValue::from_str(&e))
}

/// For `static/crash.js`: the size of the allocation the browser refused, if one was (0: none).
#[wasm_bindgen]
pub fn failed_allocation() -> f64 {
    clusterscope_web::crash::failed_allocation() as f64
}

/// For `static/crash.js`: the module trapped without a panic; nothing may call into it now.
#[wasm_bindgen]
pub fn mark_stopped() {
    clusterscope_web::crash::mark_stopped();
}

/// A test hook (`tests/e2e/specs/crash.mjs`): the next message the app's reducer handles
/// fails, with a panic saying `what` or, for `"out of memory"`, with allocations the browser
/// refuses. Reachable only from JavaScript running in the page: no URL, control or input leads
/// here (see `clusterscope_web::crash::fail_next_update`).
#[wasm_bindgen]
pub fn test_fail_next_update(what: String) {
    clusterscope_web::crash::fail_next_update(what);
}
