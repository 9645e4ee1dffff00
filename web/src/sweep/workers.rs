//! The Web Workers of a sweep: module workers running `static/sweep-worker.js`, which imports the
//! app's own wasm-bindgen JS and instantiates the already compiled `WebAssembly.Module` this page
//! runs (`wasm_bindgen::module()`, posted with each batch), then calls `sweep_jobs`
//! ([`super::run_batch`]). Dropping a [`Pool`] terminates its workers at once (a cancel).

use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

/// A worker's answer: its index and the outcomes JSON, or an error.
pub type Reply = (usize, Result<String, String>);

/// What a batch runs on: the scenario (a built-in's name, else the imported text) and the plan.
pub struct Job<'a> {
    pub builtin: &'a str,
    pub text: &'a str,
    pub plan_json: &'a str,
    pub jobs: &'a [u64],
}

type Handlers = (
    Closure<dyn FnMut(MessageEvent)>,
    Closure<dyn FnMut(web_sys::Event)>,
);

pub struct Pool {
    workers: Vec<Worker>,
    _handlers: Vec<Handlers>,
    app_js: String,
}

/// The URL of the app's wasm-bindgen JS module (Trunk preloads it with `rel="modulepreload"`).
fn app_js_url() -> Result<String, String> {
    let doc = gloo::utils::document();
    let el = doc
        .query_selector("link[rel=modulepreload][href$='.js']")
        .ok()
        .flatten()
        .ok_or("the app's JS module is not in the page (no modulepreload link)")?;
    let href = el.get_attribute("href").unwrap_or_default();
    let base = doc.base_uri().ok().flatten().unwrap_or_default();
    web_sys::Url::new_with_base(&href, &base)
        .map(|u| u.href())
        .map_err(|_| format!("the app's JS module URL {href} is not a URL"))
}

fn worker_url() -> String {
    let base = gloo::utils::document()
        .base_uri()
        .ok()
        .flatten()
        .unwrap_or_default();
    web_sys::Url::new_with_base("sweep-worker.js", &base)
        .map(|u| u.href())
        .unwrap_or_else(|_| "sweep-worker.js".into())
}

/// `navigator.hardwareConcurrency` (1 if the browser does not say).
pub fn cores() -> f64 {
    gloo::utils::window().navigator().hardware_concurrency()
}

impl Pool {
    /// `n` module workers; `on_reply` gets every answer.
    pub fn start(n: usize, on_reply: Rc<dyn Fn(Reply)>) -> Result<Pool, String> {
        Self::start_with(n, on_reply, Rc::new(|_| {}))
    }

    /// [`Pool::start`], and `on_progress` gets a worker's `{ progress }` messages before its
    /// answer (a hunt's shrink: "RERUNS ACTIONS").
    pub fn start_with(
        n: usize,
        on_reply: Rc<dyn Fn(Reply)>,
        on_progress: Rc<dyn Fn(String)>,
    ) -> Result<Pool, String> {
        let app_js = app_js_url()?;
        let opts = WorkerOptions::new();
        opts.set_type(WorkerType::Module);
        opts.set_name("clusterscope-sweep");
        let url = worker_url();
        let mut workers = Vec::with_capacity(n);
        let mut handlers = Vec::with_capacity(n);
        for i in 0..n {
            let w = Worker::new_with_options(&url, &opts)
                .map_err(|e| format!("could not start a worker: {e:?}"))?;
            let f = on_reply.clone();
            let progress = on_progress.clone();
            let onmsg = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                // After a panic the page calls nothing in the module (`crate::crash`).
                if crate::crash::stopped() {
                    return;
                }
                let d = e.data();
                let get = |k: &str| {
                    js_sys::Reflect::get(&d, &JsValue::from_str(k))
                        .ok()
                        .and_then(|v| v.as_string())
                };
                if let Some(p) = get("progress") {
                    progress(p);
                    return;
                }
                f((
                    i,
                    match (get("out"), get("error")) {
                        (Some(out), _) => Ok(out),
                        (None, Some(err)) => Err(err),
                        (None, None) => Err("a worker sent an empty message".into()),
                    },
                ));
            });
            let f = on_reply.clone();
            let onerr = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
                if crate::crash::stopped() {
                    return;
                }
                let text = e
                    .dyn_ref::<web_sys::ErrorEvent>()
                    .map(|e| e.message())
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| "the worker script could not be loaded".into());
                f((i, Err(format!("worker {i}: {text}"))));
            });
            w.set_onmessage(Some(onmsg.as_ref().unchecked_ref()));
            w.set_onerror(Some(onerr.as_ref().unchecked_ref()));
            workers.push(w);
            handlers.push((onmsg, onerr));
        }
        Ok(Pool {
            workers,
            _handlers: handlers,
            app_js,
        })
    }

    pub fn len(&self) -> usize {
        self.workers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.workers.is_empty()
    }

    /// A message for a worker: the app's module and the scenario, plus what `more` adds.
    fn post(
        &self,
        i: usize,
        builtin: &str,
        text: &str,
        more: impl FnOnce(&dyn Fn(&str, &JsValue)),
    ) -> Result<(), String> {
        let o = js_sys::Object::new();
        let set = |k: &str, v: &JsValue| {
            let _ = js_sys::Reflect::set(&o, &JsValue::from_str(k), v);
        };
        set("js", &JsValue::from_str(&self.app_js));
        set("module", &wasm_bindgen::module());
        set("builtin", &JsValue::from_str(builtin));
        set("text", &JsValue::from_str(text));
        more(&set);
        self.workers[i]
            .post_message(&o)
            .map_err(|e| format!("could not reach worker {i}: {e:?}"))
    }

    /// Ask worker `i` to run a session to its end and check its expectations
    /// (`super::check::check_session`).
    pub fn send_check(
        &self,
        i: usize,
        builtin: &str,
        text: &str,
        variant: &str,
        seed: u64,
    ) -> Result<(), String> {
        self.post(i, builtin, text, |set| {
            set("kind", &JsValue::from_str("check"));
            set("variant", &JsValue::from_str(variant));
            // Exact up to 2^53; the worker makes a BigInt of it.
            set("seed", &JsValue::from_str(&seed.to_string()));
        })
    }

    /// Ask worker `i` for a hunt's work (`crate::hunt`): `kind` "hunt" with `first` and
    /// `count` (a batch of candidates), or "shrink" with `index`.
    pub fn send_hunt(
        &self,
        i: usize,
        builtin: &str,
        text: &str,
        plan_json: &str,
        kind: &str,
        fields: &[(&str, u64)],
    ) -> Result<(), String> {
        self.post(i, builtin, text, |set| {
            set("kind", &JsValue::from_str(kind));
            set("plan", &JsValue::from_str(plan_json));
            for (k, v) in fields {
                // Exact up to 2^53; the worker makes a BigInt of it.
                set(k, &JsValue::from_str(&v.to_string()));
            }
        })
    }

    /// Hand worker `i` a batch.
    pub fn send(&self, i: usize, job: &Job) -> Result<(), String> {
        self.post(i, job.builtin, job.text, |set| {
            set("plan", &JsValue::from_str(job.plan_json));
            let jobs = js_sys::Array::new();
            for j in job.jobs {
                jobs.push(&JsValue::from_f64(*j as f64));
            }
            set("jobs", &jobs);
        })
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        for w in &self.workers {
            w.set_onmessage(None);
            w.set_onerror(None);
            w.terminate();
        }
    }
}
