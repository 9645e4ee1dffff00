// A sweep worker ("How often?", web/src/sweep/): runs batches of a sweep's jobs with the app's own
// wasm-bindgen module. Each message: { js: the app's JS module URL, module: its compiled
// WebAssembly.Module, builtin, text, plan, jobs }. The first one imports the JS and instantiates
// the module (no second download: the module is the page's, already compiled); the app's start
// function sees no window and renders nothing. Answers { out: outcomes JSON } or { error }.
let app = null;
self.onmessage = async (e) => {
  const d = e.data;
  try {
    if (!app) {
      const m = await import(d.js);
      await m.default({ module_or_path: d.module });
      app = m;
    }
    const jobs = new BigUint64Array(d.jobs.map((j) => BigInt(j)));
    self.postMessage({ out: app.sweep_jobs(d.builtin, d.text, d.plan, jobs) });
  } catch (err) {
    self.postMessage({ error: String((err && err.message) || err) });
  }
};
