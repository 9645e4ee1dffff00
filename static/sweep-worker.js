// A sweep worker ("How often?" and the Expectations check, web/src/sweep/): runs work with the
// app's own wasm-bindgen module. Each message: { js: the app's JS module URL, module: its compiled
// WebAssembly.Module, builtin, text, ... } and either { plan, jobs } (a batch of a sweep's jobs)
// or { kind: "check", variant, seed } (one whole run of a session, its expectations checked), or
// a hunt's { kind: "hunt", plan, first, count } / { kind: "shrink", plan, index } (web/src/hunt/). The
// first message imports the JS and instantiates the module (no second download: the module is
// the page's, already compiled); the app's start function sees no window and renders nothing.
// Answers { out: JSON } or { error }. After a panic or a trap the module's instance is unusable
// (web/src/crash.rs): the answer names the panic (a hunt's, the run it panicked in), and the next
// message runs on a fresh instance
// (the JS module imported again under another URL, the compiled module instantiated anew).
// A message whose model's code (or the hunt's) is not loaded yet (the split release build)
// loads it and runs again.
// Messages are handled one after another, in the order they came: the first one awaits the
// module's import, and a second arriving meanwhile must not overtake it (the branch list pairs
// answers with what it sent by their order; two evaluations came back swapped).
let app = null;
let fresh = 0;
let queue = Promise.resolve();
self.onmessage = (e) => {
  const d = e.data;
  queue = queue.then(() => handle(d));
};
async function handle(d) {
  self.__csHuntRun = undefined;
  try {
    if (!app) {
      const m = await import(fresh ? `${d.js}${d.js.includes('?') ? '&' : '?'}fresh=${fresh}` : d.js);
      await m.default({ module_or_path: d.module });
      app = m;
    }
    const work = () => {
      if (d.kind === 'check') return app.check_session(d.builtin, d.text, d.variant, BigInt(d.seed));
      if (d.kind === 'hunt') return app.hunt_batch(d.builtin, d.text, d.plan, BigInt(d.first), BigInt(d.count));
      if (d.kind === 'shrink') {
        // The shrink's progress ("RERUNS ACTIONS") goes to the page's hunt card as it goes.
        const progress = (p) => self.postMessage({ progress: p });
        return app.hunt_shrink(d.builtin, d.text, d.plan, BigInt(d.index), progress);
      }
      const jobs = new BigUint64Array(d.jobs.map((j) => BigInt(j)));
      return app.sweep_jobs(d.builtin, d.text, d.plan, jobs);
    };
    // In the split release build a model's code is a part loaded on first use, and so are the
    // hunt's, the scenario reader and writer: a job that found one missing (an error, or a job's
    // outcome) names it; the worker loads the part and runs the message again (a hunt's job may
    // find the hunt's code missing, then the reader, the writer (its plan's digest), then its
    // model's: a part at a time).
    let out;
    let failed;
    for (let tries = 0; ; tries++) {
      failed = undefined;
      try {
        out = work();
      } catch (err) {
        if (self.__csPanic || err instanceof WebAssembly.RuntimeError) throw err;
        failed = err;
      }
      const want = app.wanted_model();
      if (!want || tries === 5) break;
      await app.load_model(want);
    }
    if (failed !== undefined) throw failed;
    self.postMessage({ out });
  } catch (err) {
    // A panic left its message here (web/src/crash.rs).
    const panic = self.__csPanic;
    if (panic || err instanceof WebAssembly.RuntimeError) {
      self.__csPanic = undefined;
      app = null;
      fresh += 1;
      // A hunt's run names itself (web/src/hunt/mod.rs, note_run): the panic is what it found.
      const run = self.__csHuntRun;
      const what =
        d.kind === 'hunt' && run !== undefined
          ? `the model panicked in run ${run + 1}`
          : d.kind === 'shrink'
            ? `the model panicked while shrinking run ${Number(d.index) + 1}`
            : 'the simulator stopped';
      self.postMessage({ error: `${what}: ${panic || err.message || err}` });
      return;
    }
    self.postMessage({ error: String((err && err.message) || err) });
  }
}
