// A sweep worker ("How often?" and the Expectations check, web/src/sweep/): runs work with the
// app's own wasm-bindgen module. Each message: { js: the app's JS module URL, module: its compiled
// WebAssembly.Module, builtin, text, ... } and either { plan, jobs } (a batch of a sweep's jobs)
// or { kind: "check", variant, seed } (one whole run of a session, its expectations checked). The
// first message imports the JS and instantiates the module (no second download: the module is
// the page's, already compiled); the app's start function sees no window and renders nothing.
// Answers { out: JSON } or { error }.
let app = null;
self.onmessage = async (e) => {
  const d = e.data;
  try {
    if (!app) {
      const m = await import(d.js);
      await m.default({ module_or_path: d.module });
      app = m;
    }
    if (d.kind === 'check') {
      self.postMessage({ out: app.check_session(d.builtin, d.text, d.variant, BigInt(d.seed)) });
      return;
    }
    const jobs = new BigUint64Array(d.jobs.map((j) => BigInt(j)));
    self.postMessage({ out: app.sweep_jobs(d.builtin, d.text, d.plan, jobs) });
  } catch (err) {
    self.postMessage({ error: String((err && err.message) || err) });
  }
};
