#!/usr/bin/env node
// Web app benchmark (not a test: nothing here fails on a slow machine; run.mjs does not run it).
// `scripts/bench` runs it as the `web` workload (BENCH_FILTER=web) after `trunk build --release`.
//
// Opens the release build in headless Chromium (Debian's, through playwright-core), loads the
// 251-node `cassandra-21636-rolling-upgrade` scenario and measures:
//   1. frame times while playing, at a normal and a fast speed: the app's own `cs-frame`
//      performance measures (one per animation frame: the simulation slice plus the render and
//      canvas drawing it causes, split into `cs-frame-compute` and `cs-frame-render`; the app
//      emits them when `window.__csPerf` is set, see web/src/platform.rs) and the
//      requestAnimationFrame intervals (what a person sees: 16.7 ms at 60 fps);
//   2. jump times once the run is computed to the end: a click on the timeline at the beginning,
//      25%, middle, 75%, the end and seeded random points, from the mousedown handler to the end
//      of the browser's paint of the first render where the app is idle (`cs-jump-paint`: what a
//      person waits for), to the end of that render alone (`cs-jump`), and the wall time seen
//      from the script (which adds the automation's round trips);
//   3. the initial download: wasm + js + css of dist/, gzipped (level 6, what servers use by
//      default, and level 9);
//   and the runtime rows of issue 20, in this order: End pressed at time zero (with the longest
//   gap between frames meanwhile, the wasm memory after it and the browser's page faults, Linux
//   only) against the engine alone in this page (the exported `bench_engine`, timed twice after
//   End); the jumps; switching
//   the variant and back at the end four times (the first computes, the others take kept runs);
//   a 2 s drag of the scrubber (renders that moved the cursor, per second); the permalink at
//   90% opened in a new tab (navigation to the cursor there); then, on a fresh page, the plays
//   (10x and 1000x frames as before, then 100x and 1000x with the achieved-speed label).
//
// Usage: node tests/e2e/bench.mjs [--json out.json] [--md out.md] [--profile out.cpuprofile]
//                                  [--profile-jumps out.cpuprofile] [--trace-jumps out.json]
//   --profile: also record a CPU profile (CDP Profiler) while playing at the fast speed and print
//   the functions with the most self time (build with WASM_SPLIT_KEEP_NAMES=1 so that the wasm
//   keeps its function names: `WASM_SPLIT_KEEP_NAMES=1 trunk build --release --dist /tmp/dist-names`,
//   then E2E_DIST=/tmp/dist-names; a larger download, so never for the size rows).
//   --profile-jumps: the same over the jumps.
//   --trace-jumps out.json: a Chromium performance trace over the jumps (open it in DevTools'
//   Performance panel); prints the main thread's time by event (style, layout, paint, ...).
//   --trace-scrub out.json: the same over the scrubber drag.
//   --profile-scrub out.cpuprofile: a CPU profile over the scrubber drag (as --profile-jumps).
// Env:   E2E_DIST (default <repo>/dist), CHROMIUM (default /usr/bin/chromium),
//        BENCH_PLAY_MS (default 8000 per speed), BENCH_JUMPS=0 (skip the jumps), BENCH_REPEAT (default 1: repeat the play
//        measurements this many times and pool the frames), BENCH_RANDOM_JUMPS (default 6),
//        BENCH_SWEEP=0 (skip the "How often?" sweep of cassandra-21636-echo-race in Web Workers),
//        BENCH_SWEEP_SEEDS (default 100), BENCH_ONLY_SWEEP=1 (measure the sweep alone),
//        BENCH_LOAD_RUNS (default 5; 0 skips the load time, see load.mjs), BENCH_ONLY_LOAD=1 (size and load alone).
//        BENCH_EXTRAS=0 (skip the variant switches, scrubber, permalink and the 100x/1000x speed rows),
//        BENCH_COMPARE=fixed (every row in compare mode with that variant: both sides move),
//        BENCH_ONLY_SCRUB=1 (compute to the end, the jumps and the scrubber drag alone: issue 44).
// Output: a table on stdout, `WEBBENCH key=value` lines, optional JSON and markdown files.

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { chromiumFaults, faultsSince, measureLoad, serveDir as serve } from './load.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
const DIST = resolve(process.env.E2E_DIST || join(REPO, 'dist'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const PLAY_MS = Number(process.env.BENCH_PLAY_MS || 8000);
const REPEAT = Number(process.env.BENCH_REPEAT || 1);
const RANDOM_JUMPS = Number(process.env.BENCH_RANDOM_JUMPS || 6);
const SCENARIO = 'cassandra-21636-rolling-upgrade';
const SWEEP_SCENARIO = 'cassandra-21636-echo-race';
const SWEEP_SEEDS = Number(process.env.BENCH_SWEEP_SEEDS || 100);
// BENCH_ONLY_SWEEP=1: skip playing and jumps, measure the sweep alone.
const ONLY_SWEEP = process.env.BENCH_ONLY_SWEEP === '1';
// BENCH_ONLY_SCRUB=1: compute to the end, the jumps and the scrubber drag (issue 44), nothing else.
const ONLY_SCRUB = process.env.BENCH_ONLY_SCRUB === '1';
// Load to the first usable frame (tests/e2e/load.mjs), in fresh contexts before anything else.
const LOAD_RUNS = ONLY_SCRUB ? 0 : Number(process.env.BENCH_LOAD_RUNS ?? 5);
const ONLY_LOAD = process.env.BENCH_ONLY_LOAD === '1';
const SPEEDS = [
  // Slider position -> speed (log scale 1e-4..1e3 over 0..1000): 714 = 10x (the default), 1000 = 1000x.
  { name: 'normal (10x)', pos: '714' },
  { name: 'fast (1000x)', pos: '1000' },
];

const args = process.argv.slice(2);
const argOf = (k) => {
  const i = args.indexOf(k);
  return i >= 0 ? args[i + 1] : undefined;
};


function quantile(xs, q) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return s[lo] + (s[hi] - s[lo]) * (i - lo);
}
const med = (xs) => quantile(xs, 0.5);
const p95 = (xs) => quantile(xs, 0.95);
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');

function downloadSize() {
  const files = readdirSync(DIST).filter((f) => /\.(wasm|js|css)$/.test(f));
  let raw = 0;
  let gz6 = 0;
  let gz9 = 0;
  for (const f of files) {
    const b = readFileSync(join(DIST, f));
    raw += b.length;
    gz6 += gzipSync(b, { level: 6 }).length;
    gz9 += gzipSync(b, { level: 9 }).length;
  }
  return { files, raw, gz6, gz9 };
}

async function settled(page, timeout = 300_000) {
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await page.waitForSelector('#app[data-busy="0"]', { timeout });
}

async function appData(page) {
  return page.evaluate(() => ({ ...document.querySelector('#app').dataset }));
}

/** Slider position of 100x (log scale 1e-4..1e3 over 0..1000; the app snaps to 1, 2, 5). */
const SPEED_100X = '857';

/** Start (`on`) or stop a probe of the longest gap between animation frames: how long the page
 * stayed unable to paint or answer. Returns the longest gap in ms when stopped. */
async function gapProbe(page, on) {
  if (on) {
    await page.evaluate(() => {
      window.__csGap = 0;
      window.__csGapOn = true;
      let last = performance.now();
      const f = (ts) => {
        window.__csGap = Math.max(window.__csGap, ts - last);
        last = ts;
        if (window.__csGapOn) requestAnimationFrame(f);
      };
      requestAnimationFrame(f);
    });
    return 0;
  }
  return page.evaluate(() => {
    window.__csGapOn = false;
    return window.__csGap;
  });
}

/** Drag the scrubber from 30% to 70% of the timeline for about 2 s (a move every 16 ms at most,
 * each dispatched when the page took the previous one) and count the renders that moved the
 * cursor: updates per second. The cursor is `#app[data-cursor-us]` (where the timeline draws it:
 * the dragged-to time while the frame shown is a keyframe's, `data-approx="1"`); a build without
 * it counts `data-step`. Also: how long each pointer move waited in the page before its
 * handler ran (and the automation's round trip of it), how many updates showed an approximate frame, and the time from the
 * release to the painted exact frame (`data-approx` back to "0", then a frame painted). */
async function dragScrubber(page) {
  const box = await page.locator('#timeline').boundingBox();
  const y = box.y + box.height / 2;
  const xAt = (f) => box.x + 10 + f * (box.width - 20);
  // A press away from the cursor zooms into a range (issue 14): put the cursor at 30% first,
  // then drag it from there.
  await page.mouse.click(xAt(0.3), y);
  await settled(page);
  await page.evaluate(() => {
    window.__csSteps = 0;
    window.__csApprox = 0;
    window.__csUp = null;
    window.__csExact = null;
    const el = document.querySelector('#app');
    const attr = 'cursorUs' in el.dataset ? 'cursorUs' : 'step';
    let last = el.dataset[attr];
    window.__csObs = new MutationObserver(() => {
      if (el.dataset[attr] !== last) {
        last = el.dataset[attr];
        window.__csSteps++;
        if (el.dataset.approx === '1') window.__csApprox++;
      }
      // Not busy: the model's work done (`data-busy` is also "1" while panels off screen wait
      // for the painted frame, `data-deferred`: not part of the frame a person sees).
      const idle = el.dataset.busy === '0' || el.dataset.deferred === '1';
      if (window.__csUp !== null && window.__csExact === null && el.dataset.approx !== '1' && idle) {
        const t = performance.now();
        window.__csExact = -1;
        requestAnimationFrame(() => setTimeout(() => (window.__csExact = performance.now() - window.__csUp)));
        window.__csExactRender = t - window.__csUp;
      }
    });
    window.__csObs.observe(el, { attributes: true, attributeFilter: ['data-step', 'data-cursor-us', 'data-approx', 'data-busy', 'data-deferred'] });
    addEventListener('mouseup', () => (window.__csUp = performance.now()), { capture: true, once: true });
    // Each pointer move as the page saw it: how long it waited in the browser before the first
    // handler ran (its `timeStamp` is when the browser took it from the automation, as from the
    // OS; Chromium hands moves to the page at the start of its next frame, so a move waits up
    // to one frame interval even on an idle page, and longer behind a long frame), and how long
    // the page's handlers took (a first capturing listener on window to a last bubbling one).
    window.__csMoves = [];
    window.__csMoveT = null;
    window.__csMoveOn = (e) => {
      if (!(e.buttons & 1)) return;
      const t = performance.now();
      window.__csMoveT = { wait: t - e.timeStamp, t };
    };
    window.__csMoveOff = () => {
      const m = window.__csMoveT;
      if (m) window.__csMoves.push({ wait: m.wait, handler: performance.now() - m.t });
      window.__csMoveT = null;
    };
    addEventListener('mousemove', window.__csMoveOn, { capture: true });
    addEventListener('mousemove', window.__csMoveOff);
  });
  await page.evaluate(() => performance.clearMeasures());
  await page.mouse.move(xAt(0.3), y);
  await page.mouse.down();
  const t0 = Date.now();
  const DUR = 2000;
  let moves = 0;
  const held = [];
  for (;;) {
    const el = Date.now() - t0;
    if (el >= DUR) break;
    const m0 = Date.now();
    await page.mouse.move(xAt(0.3 + (0.4 * el) / DUR), y);
    held.push(Date.now() - m0);
    moves++;
    const wait = 16 - (Date.now() - t0 - el);
    if (wait > 0) await page.waitForTimeout(wait);
  }
  const s = (Date.now() - t0) / 1000;
  const [during, pageMoves] = await page.evaluate(() => {
    removeEventListener('mousemove', window.__csMoveOn, { capture: true });
    removeEventListener('mousemove', window.__csMoveOff);
    return [[window.__csSteps, window.__csApprox], window.__csMoves];
  });
  const waits = pageMoves.map((m) => m.wait);
  const handlers = pageMoves.map((m) => m.handler);
  // The app's work per update while dragging: the model's (`cs-scrub-model`: restore and replay)
  // and the whole update to the end of its render (`cs-jump`).
  const [modelMs, appMs] = await page.evaluate(() =>
    ['cs-scrub-model', 'cs-jump'].map((n) => performance.getEntriesByName(n, 'measure').map((e) => e.duration)),
  );
  await page.mouse.up();
  await settled(page);
  await page.waitForFunction(() => window.__csExact === null || window.__csExact >= 0, null, { timeout: 5000 }).catch(() => {});
  const [exactMs, exactRenderMs, exactModelMs] = await page.evaluate(() => {
    window.__csObs.disconnect();
    // The release's restore + replay (`cs-jump-model` entries after the mouseup).
    const up = window.__csUp ?? Infinity;
    const m = performance.getEntriesByName('cs-jump-model', 'measure').filter((e) => e.startTime >= up);
    return [window.__csExact, window.__csExactRender, m.length ? m.reduce((a, e) => a + e.duration, 0) : NaN];
  });
  return {
    moves,
    updates: during[0],
    approx_updates: during[1],
    s,
    per_s: during[0] / s,
    model_median_ms: med(modelMs),
    model_p95_ms: p95(modelMs),
    app_median_ms: med(appMs),
    app_p95_ms: p95(appMs),
    // The automation's round trip of a move (CDP's dispatch returns when the page has handled
    // it): the page's wait and handlers plus the transport; what earlier runs called "held".
    move_rtt_median_ms: med(held),
    move_rtt_max_ms: Math.max(...held),
    // In the page: a move's wait before its handlers (see above) and the handlers' time.
    move_wait_median_ms: med(waits),
    move_wait_p95_ms: p95(waits),
    move_wait_max_ms: Math.max(...waits),
    // Moves that waited longer than one frame interval (60 Hz, plus 1 ms): held up behind a
    // frame's work rather than only taken at the next frame.
    moves_held: waits.filter((w) => w > 1000 / 60 + 1).length,
    move_handler_max_ms: Math.max(...handlers),
    page_moves: pageMoves.length,
    exact_after_release_ms: exactMs ?? NaN,
    exact_render_after_release_ms: exactRenderMs ?? NaN,
    exact_model_after_release_ms: exactModelMs,
  };
}

/** Play at slider position `pos` for `ms`, then pause; returns the frame measures (and, with
 * `label`, the achieved-speed label the transport shows just before pausing). */
async function playFor(page, pos, ms, profile, label) {
  await page.evaluate((pos) => {
    const e = document.querySelector('#speed');
    e.value = pos;
    e.dispatchEvent(new Event('input', { bubbles: true }));
  }, pos);
  const before = await appData(page);
  await page.evaluate(() => {
    performance.clearMeasures();
    window.__csRaf = [];
    // The frame gaps while the cursor still moves, and when it last moved: a play that reaches
    // the run's end stops there, and the wall time after it is not time spent playing (issue 44:
    // 100x over 8 s from time zero asked for 800 virtual s of an 11-minute run, so the figure
    // could not exceed 660 / 8 = 82.5x).
    window.__csRafMoving = [];
    window.__csPlayT0 = performance.now();
    window.__csLastMove = null;
    let lastT = document.querySelector('#app').dataset.timeUs;
    let last = null;
    window.__csRafOn = true;
    const f = (ts) => {
      if (last !== null) window.__csRaf.push(ts - last);
      const t = document.querySelector('#app').dataset.timeUs;
      if (t !== lastT) {
        if (last !== null) window.__csRafMoving.push(ts - last);
        lastT = t;
        window.__csLastMove = ts;
      }
      last = ts;
      if (window.__csRafOn) requestAnimationFrame(f);
    };
    requestAnimationFrame(f);
  });
  let cdp;
  if (profile) {
    cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  await page.click('#play');
  // The speed label is read while the play moves (every 250 ms, the last reading kept): read once
  // at the end, a fast play that reached the scenario's end first reads an empty label.
  const readLabel = () =>
    page.evaluate(() => {
      const e = document.querySelector('#speed-actual');
      return e ? { text: e.textContent, behind: e.dataset.behind === '1' } : { text: '', behind: false };
    });
  let lab;
  if (label) {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      await page.waitForTimeout(Math.min(250, Math.max(0, until - Date.now())));
      const l = await readLabel();
      if (l.text) lab = l;
    }
    if (!lab) lab = await readLabel();
  } else {
    await page.waitForTimeout(ms);
  }
  if (cdp) {
    const { profile: prof } = await cdp.send('Profiler.stop');
    writeFileSync(profile, JSON.stringify(prof));
    printProfile(prof);
  }
  const out = await page.evaluate(() => {
    window.__csRafOn = false;
    const get = (n) => performance.getEntriesByName(n, 'measure').map((e) => e.duration);
    return {
      frame: get('cs-frame'),
      compute: get('cs-frame-compute'),
      render: get('cs-frame-render'),
      raf: window.__csRaf,
      rafMoving: window.__csRafMoving,
      movingMs: window.__csLastMove === null ? NaN : window.__csLastMove - window.__csPlayT0,
    };
  });
  await page.click('#play');
  await settled(page);
  const after = await appData(page);
  out.steps = Number(after.step) - Number(before.step);
  out.virtualUs = Number(after.timeUs) - Number(before.timeUs);
  out.wallMs = ms;
  if (lab) {
    out.label = lab.text;
    out.behind = lab.behind;
  }
  return out;
}

/** One run of the engine alone in the page (the exported `bench_engine`: no checkpoints, no
 * bodies) on the built-in `sc`, in seconds. In the split release build its code is the check's
 * part, fetched first (untimed). */
function engineRun(page, sc) {
  return page.evaluate(async (sc) => {
    const part = window.wasmBindings.bench_part?.();
    if (part) await window.wasmBindings.load_model(part);
    const t0 = performance.now();
    window.wasmBindings.bench_engine(sc);
    return (performance.now() - t0) / 1000;
  }, sc);
}

/** Click the timeline at fraction `f` of its width; returns { ms (cs-jump-paint: to the painted
 * frame), appMs (cs-jump: to the end of the app's render), wallMs (seen from this script), step }. */
async function jumpTo(page, f) {
  const box = await page.locator('#timeline').boundingBox();
  // The track starts and ends 10 px in (web/src/draw/timeline.rs, PAD).
  const x = box.x + 10 + f * (box.width - 20);
  const y = box.y + box.height / 2;
  await page.evaluate(() => {
    performance.clearMeasures('cs-jump');
    performance.clearMeasures('cs-jump-paint');
    performance.clearMeasures('cs-jump-model');
  });
  const t0 = Date.now();
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.up();
  await settled(page);
  const wallMs = Date.now() - t0;
  // The painted figure arrives a frame after the app settles.
  await page
    .waitForFunction(() => performance.getEntriesByName('cs-jump-paint', 'measure').length > 0, null, { timeout: 5000 })
    .catch(() => {});
  const [appMs, ms] = await page.evaluate(() =>
    ['cs-jump', 'cs-jump-paint'].map((n) => {
      const e = performance.getEntriesByName(n, 'measure');
      return e.length ? e[e.length - 1].duration : NaN;
    }),
  );
  // The model's part (restore + replay, `cs-jump-model`; absent on builds before it): the rest
  // of appMs is the render, and ms - appMs the browser's style, layout and paint.
  const modelMs = await page.evaluate(() => {
    const e = performance.getEntriesByName('cs-jump-model', 'measure');
    return e.length ? e.reduce((a, x) => a + x.duration, 0) : NaN;
  });
  const a = await appData(page);
  return { f, ms, appMs, modelMs, wallMs, step: Number(a.step) };
}

/** Self time by function (top 40) of a CDP CPU profile. */
function printProfile(prof) {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = prof.timeDeltas;
  let total = 0;
  prof.samples.forEach((id, i) => {
    const n = byId.get(id);
    const cf = n.callFrame;
    const key = `${cf.functionName || '(anonymous)'} ${cf.url ? cf.url.split('/').pop() : ''}`;
    self.set(key, (self.get(key) || 0) + (dt[i] || 0));
    total += dt[i] || 0;
  });
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40);
  console.log(`profile: ${(total / 1000).toFixed(0)} ms sampled`);
  for (const [k, v] of top) console.log(`${((v / total) * 100).toFixed(1).padStart(5)}%  ${k.slice(0, 140)}`);
}

/** Time by event name on the renderer's main thread of a Chromium trace (nested events count in
 * their parents too): where the browser's own work (style, layout, paint) goes. */
function printTrace(trace) {
  const ev = trace.traceEvents || trace;
  const main = ev.find((e) => e.name === 'thread_name' && e.args && e.args.name === 'CrRendererMain');
  const by = new Map();
  for (const e of ev) {
    if (!main || e.pid !== main.pid || e.tid !== main.tid || e.ph !== 'X' || !e.dur) continue;
    by.set(e.name, (by.get(e.name) || 0) + e.dur);
  }
  const top = [...by.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30);
  console.log('trace: main-thread time by event (ms, nested events also count in their parents)');
  for (const [k, v] of top) console.log(`${(v / 1000).toFixed(1).padStart(8)}  ${k}`);
}

// A small deterministic generator for the random jump points.
function lcg(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

async function main() {
  if (!existsSync(join(DIST, 'index.html'))) {
    console.error(`no ${join(DIST, 'index.html')}: run \`trunk build --release\` first`);
    process.exit(1);
  }
  const load0 = loadavg()[0];
  const size = downloadSize();
  const server = await serve(DIST);
  const baseUrl = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
  });
  const version = browser.version();
  const result = { date: new Date().toISOString(), chromium: version, scenario: SCENARIO, size };
  try {
    if (LOAD_RUNS > 0) {
      result.load_to_usable = await measureLoad(browser, baseUrl, LOAD_RUNS);
      console.log(`WEBBENCH load median_ms=${f1(result.load_to_usable.median)} max_ms=${f1(result.load_to_usable.max)}`);
    }
    if (ONLY_LOAD) {
      const l = result.load_to_usable;
      if (l) console.log(`load to first usable frame: median ${f1(l.median)} ms, max ${f1(l.max)} ms (goal <= 500 ms)`);
      console.log(`download gzip -6: ${(size.gz6 / 1024).toFixed(0)} KB (goal <= 600 KB)`);
      return;
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(() => {
      window.__csPerf = true;
      // trunk's loader announces the instance; its memory is the app's wasm linear memory.
      addEventListener('TrunkApplicationStarted', (e) => {
        window.__csWasm = e.detail && e.detail.wasm;
      });
    });
    const freshPage = async () => {
      const pg = await context.newPage();
      pg.on('pageerror', (e) => console.error(`page error: ${e.message}`));
      await pg.goto(baseUrl);
      await pg.waitForSelector('#app[data-ready="1"]', { timeout: 60_000 });
      await settled(pg);
      await pg.selectOption('#scenario-select', SCENARIO);
      await settled(pg);
      return pg;
    };
    let page = await freshPage();
    // BENCH_COMPARE=VARIANT: the same rows in compare mode (issue 18): both sides play and jump.
    if (process.env.BENCH_COMPARE) {
      await page.selectOption('#compare-select', process.env.BENCH_COMPARE);
      await page.waitForSelector('#cmp-b');
      await settled(page);
      result.compare = process.env.BENCH_COMPARE;
      console.log(`WEBBENCH compare with=${result.compare}`);
    }


    // 2. Compute to the end, then jump around.
    if (process.env.BENCH_JUMPS !== '0' && !ONLY_SWEEP) {
    // The engine alone in this page (the exported `bench_engine`: no checkpoints, no bodies),
    // timed twice after the app's End; the faster of the two counts (this machine's speed moves
    // with other work, and the smaller figure gives the larger, more cautious ratio). Not before
    // End: a run's memory is fresh to the tab the first time (each 4 KiB page's first touch is a
    // page fault, ~4-8 us here), and an engine run before End left End ~110 MB of memory already
    // touched that a person pressing End never has, while the variant switch, compared with End
    // below, computes its run in fresh memory (2026-12-07: End's page faults 54k after the
    // engine's run against 81-83k without it, the first switch 66-97k). After End, the engine
    // reuses End's memory: the cautious side for the ratio.
    const engineAlone = () => engineRun(page, SCENARIO);
    await gapProbe(page, true);
    await page.evaluate(() => performance.clearMeasures('cs-jump-paint'));
    const faults0 = chromiumFaults();
    const t0 = Date.now();
    await page.click('#to-end');
    await settled(page, 600_000);
    result.compute_to_end_faults_k = faultsSince(faults0);
    // Seen from this script: the automation's click (actionability checks, the mouse) and its
    // polls for the settled page add 0.2-0.5 s that are not the app's.
    result.compute_to_end_wall_s = (Date.now() - t0) / 1000;
    // In the page, as the jumps are timed: from the click's handler to the painted frame at the
    // end (`cs-jump-paint`, which End's jump records; absent on builds before it: the wall time).
    await page
      .waitForFunction(() => performance.getEntriesByName('cs-jump-paint', 'measure').length > 0, null, { timeout: 5000 })
      .catch(() => {});
    const endPaintMs = await page.evaluate(() => {
      const e = performance.getEntriesByName('cs-jump-paint', 'measure');
      return e.length ? e[e.length - 1].duration : NaN;
    });
    result.compute_to_end_s = Number.isFinite(endPaintMs) ? endPaintMs / 1000 : result.compute_to_end_wall_s;
    result.compute_max_gap_ms = await gapProbe(page, false);
    result.wasm_memory_mib = await page.evaluate(() =>
      window.__csWasm && window.__csWasm.memory ? window.__csWasm.memory.buffer.byteLength / 2 ** 20 : NaN,
    );
    const engineAfter = [await engineAlone(), await engineAlone()];
    result.engine_alone_runs_s = engineAfter;
    result.engine_alone_s = Math.min(...engineAfter);
    result.compute_ratio = result.compute_to_end_s / result.engine_alone_s;
    const end = await appData(page);
    result.frontier = Number(end.frontier);
    console.log(`WEBBENCH computed_to_end s=${result.compute_to_end_s.toFixed(2)} wall_s=${result.compute_to_end_wall_s.toFixed(2)} engine_alone_s=${result.engine_alone_runs_s.map((x) => x.toFixed(2)).join(',')} ratio=${result.compute_ratio.toFixed(2)} page_faults_k=${result.compute_to_end_faults_k ?? 'n/a'} max_gap_ms=${f1(result.compute_max_gap_ms)} steps=${end.frontier} wasm_memory_mib=${f1(result.wasm_memory_mib)}`);
    const rnd = lcg(42);
    // BENCH_JUMP_POINTS=0,1,0,1: jump to these fractions instead (e.g. restores alone, no replay).
    const points = process.env.BENCH_JUMP_POINTS ? process.env.BENCH_JUMP_POINTS.split(',').map(Number) : [0.5, 0, 0.25, 0.75, 1, 0.5];
    for (let i = 0; i < (process.env.BENCH_JUMP_POINTS ? 0 : RANDOM_JUMPS); i++) points.push(Math.round(rnd() * 1000) / 1000);
    result.jumps = [];
    let prev = Number(end.step);
    let jcdp;
    if (argOf('--trace-jumps')) {
      await browser.startTracing(page, {
        path: argOf('--trace-jumps'),
        categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'blink', 'v8'],
      });
    }
    if (argOf('--profile-jumps')) {
      jcdp = await page.context().newCDPSession(page);
      await jcdp.send('Profiler.enable');
      await jcdp.send('Profiler.setSamplingInterval', { interval: 100 });
      await jcdp.send('Profiler.start');
    }
    for (const f of points) {
      const j = await jumpTo(page, f);
      j.from = prev;
      j.dir = j.step < prev ? 'back' : j.step > prev ? 'forward' : 'none';
      prev = j.step;
      result.jumps.push(j);
      console.log(`WEBBENCH jump at=${f} ms=${f1(j.ms)} app_ms=${f1(j.appMs)} model_ms=${f1(j.modelMs)} wall_ms=${j.wallMs} step=${j.step} from=${j.from} dir=${j.dir}`);
    }
    if (argOf('--trace-jumps')) {
      await browser.stopTracing();
      printTrace(JSON.parse(readFileSync(argOf('--trace-jumps'))));
    }
    if (jcdp) {
      const { profile: prof } = await jcdp.send('Profiler.stop');
      writeFileSync(argOf('--profile-jumps'), JSON.stringify(prof));
      printProfile(prof);
    }
    const js = result.jumps.map((j) => j.ms).filter(Number.isFinite);
    result.jump_median = med(js);
    result.jump_max = Math.max(...js);
    const apps = result.jumps.map((j) => j.appMs).filter(Number.isFinite);
    result.jump_app_median = med(apps);
    result.jump_app_max = Math.max(...apps);
    // The split (issue 44): the model's restore + replay, the app's render after it, the browser's
    // style, layout and paint; medians of each part over the jumps.
    const models = result.jumps.map((j) => j.modelMs).filter(Number.isFinite);
    if (models.length) {
      result.jump_model_median = med(models);
      result.jump_render_median = med(result.jumps.map((j) => j.appMs - j.modelMs).filter(Number.isFinite));
      result.jump_browser_median = med(result.jumps.map((j) => j.ms - j.appMs).filter(Number.isFinite));
      console.log(`WEBBENCH jump_split model_ms=${f1(result.jump_model_median)} render_ms=${f1(result.jump_render_median)} browser_ms=${f1(result.jump_browser_median)} (medians)`);
    }
    }

    // 3. Switch the variant and back at the end (the first switch computes the other variant;
    //    the next ones take the kept runs back), then drag the scrubber, then take the link at 90%.
    if (process.env.BENCH_JUMPS !== '0' && process.env.BENCH_EXTRAS !== '0' && !ONLY_SWEEP) {
      if (!ONLY_SCRUB) {
        await jumpTo(page, 1);
        const variants = await page.$$eval('#variants button[data-variant]', (bs) => bs.map((b) => b.dataset.variant));
        const from = (await appData(page)).variant;
        const other = variants.find((v) => v !== from);
        result.switches = [];
        for (const v of [other, from, other, from]) {
          await page.evaluate(() => {
            performance.clearMeasures('cs-jump');
            performance.clearMeasures('cs-jump-paint');
            performance.clearMeasures('cs-jump-model');
          });
          // Click to painted frame measured by the page itself, the same way for every build: the
          // click (a capturing listener), then the first animation frame after `#app`'s
          // data-variant changed, then a task after that frame's paint.
          await page.evaluate((v) => {
            window.__csSwitchPaint = null;
            const token = (window.__csSwitchToken = (window.__csSwitchToken || 0) + 1);
            const onClick = (e) => {
              if (!e.target.closest || !e.target.closest(`#variants button[data-variant="${v}"]`)) return;
              window.removeEventListener('click', onClick, true);
              const t0 = performance.now();
              const app = document.querySelector('#app');
              const done = () =>
                requestAnimationFrame(() =>
                  setTimeout(() => {
                    if (window.__csSwitchToken === token) window.__csSwitchPaint = performance.now() - t0;
                  }),
                );
              if (app.dataset.variant === v) return done();
              const obs = new MutationObserver(() => {
                if (app.dataset.variant !== v) return;
                obs.disconnect();
                done();
              });
              obs.observe(app, { attributes: true, attributeFilter: ['data-variant'] });
            };
            window.addEventListener('click', onClick, true);
          }, v);
          const faults1 = chromiumFaults();
          const t1 = Date.now();
          await page.click(`#variants button[data-variant="${v}"]`);
          await page.waitForSelector(`#app[data-variant="${v}"]`, { timeout: 600_000 });
          await settled(page, 600_000);
          const ms = Date.now() - t1;
          const faultsK = faultsSince(faults1);
          // In the page, as for jumps (issue 44): from the click to the painted frame of the other
          // run, without the automation's round trips and the off-screen panels' catch-up after
          // the paint; the app's own marks (`cs-jump-paint`, `cs-jump-model`) where the build
          // sets them for a variant button.
          await page.waitForFunction(() => window.__csSwitchPaint !== null, null, { timeout: 5000 }).catch(() => {});
          const [markMs, modelMs] = await page.evaluate(() =>
            ['cs-jump-paint', 'cs-jump-model'].map((n) => {
              const e = performance.getEntriesByName(n, 'measure');
              return e.length ? e[e.length - 1].duration : NaN;
            }),
          );
          const paintMs = await page.evaluate(() => (window.__csSwitchPaint === null ? NaN : window.__csSwitchPaint));
          const a = await appData(page);
          result.switches.push({ to: v, ms, paint_ms: paintMs, mark_ms: markMs, model_ms: modelMs, time_us: Number(a.timeUs), frontier: Number(a.frontier), page_faults_k: faultsK });
          console.log(`WEBBENCH switch to=${v} ms=${ms} click_to_paint_ms=${f1(paintMs)} (app's mark ${f1(markMs)}, model ${f1(modelMs)}) time_us=${a.timeUs} frontier=${a.frontier} page_faults_k=${faultsK ?? 'n/a'}`);
        }
        result.switch_first_ms = result.switches[0].ms;
        result.switch_again_ms = Math.max(...result.switches.slice(1).map((x) => x.ms));
        result.switch_again_paint_ms = Math.max(...result.switches.slice(1).map((x) => x.paint_ms));
        result.wasm_memory_two_runs_mib = await page.evaluate(() =>
          window.__csWasm && window.__csWasm.memory ? window.__csWasm.memory.buffer.byteLength / 2 ** 20 : NaN,
        );
      }

      // Scrubber: drag across the timeline (60 moves over about 2 s, as a hand does) and count
      // the renders that moved the cursor while dragging.
      // --trace-scrub out.json: a Chromium performance trace over the drag.
      if (argOf('--trace-scrub')) {
        await browser.startTracing(page, {
          path: argOf('--trace-scrub'),
          categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'blink', 'v8'],
        });
      }
      let scdp;
      if (argOf('--profile-scrub')) {
        scdp = await page.context().newCDPSession(page);
        await scdp.send('Profiler.enable');
        await scdp.send('Profiler.setSamplingInterval', { interval: 100 });
        await scdp.send('Profiler.start');
      }
      result.scrub = await dragScrubber(page);
      if (scdp) {
        const { profile: prof } = await scdp.send('Profiler.stop');
        writeFileSync(argOf('--profile-scrub'), JSON.stringify(prof));
        printProfile(prof);
      }
      if (argOf('--trace-scrub')) {
        await browser.stopTracing();
        printTrace(JSON.parse(readFileSync(argOf('--trace-scrub'))));
      }
      const sc = result.scrub;
      console.log(`WEBBENCH scrub moves=${sc.moves} updates=${sc.updates} approx=${sc.approx_updates} s=${sc.s.toFixed(2)} updates_per_s=${sc.per_s.toFixed(1)} model_ms=${f1(sc.model_median_ms)}/${f1(sc.model_p95_ms)} app_ms=${f1(sc.app_median_ms)}/${f1(sc.app_p95_ms)} move_wait_ms=${f1(sc.move_wait_median_ms)}/${f1(sc.move_wait_p95_ms)}/${f1(sc.move_wait_max_ms)} moves_held=${sc.moves_held}/${sc.page_moves} move_handler_max_ms=${f1(sc.move_handler_max_ms)} move_rtt_ms=${f1(sc.move_rtt_median_ms)}/${f1(sc.move_rtt_max_ms)} exact_after_release_ms=${f1(sc.exact_after_release_ms)} (render ${f1(sc.exact_render_after_release_ms)}, model ${f1(sc.exact_model_after_release_ms)})`);

      if (!ONLY_SCRUB) {
        // The permalink at 90% of the run, opened in a new tab: from navigation to the cursor there.
        await jumpTo(page, 0.9);
        const at = await appData(page);
        await page.waitForFunction(() => location.hash.length > 1, null, { timeout: 10_000 });
        const link = await page.evaluate(() => location.href);
        await page.close();
        const p2 = await context.newPage();
        const t2 = Date.now();
        await p2.goto(link);
        await p2.waitForSelector('#app[data-ready="1"]', { timeout: 60_000 });
        await settled(p2, 600_000);
        await p2.waitForSelector(`#app[data-step="${at.step}"]`, { timeout: 600_000 });
        result.permalink_s = (Date.now() - t2) / 1000;
        console.log(`WEBBENCH permalink s=${result.permalink_s.toFixed(2)} step=${at.step}`);
        await p2.close();
        page = await freshPage();
        if (process.env.BENCH_COMPARE) {
          // The autosaved session restores compare; open it again if it did not.
          if (!(await page.$('#cmp-b'))) await page.selectOption('#compare-select', process.env.BENCH_COMPARE);
          await page.waitForSelector('#cmp-b');
          await settled(page);
        }
      }
    }

    // 4. Frames while playing, from the start of a fresh page (computing as it plays), then on
    //    from where it stopped; then at 100x, the speed the issue asks for, with its label.
    if (process.env.BENCH_EXTRAS === '0' && process.env.BENCH_JUMPS !== '0') {
      await page.click('#to-start').catch(() => {});
      await settled(page);
    }
    result.play = [];
    for (const sp of ONLY_SWEEP || ONLY_SCRUB ? [] : SPEEDS) {
      const pooled = { frame: [], compute: [], render: [], raf: [], steps: 0, virtualUs: 0, wallMs: 0 };
      for (let r = 0; r < REPEAT; r++) {
        const prof = r === 0 && sp === SPEEDS[1] ? argOf('--profile') : undefined;
        const o = await playFor(page, sp.pos, PLAY_MS, prof);
        for (const k of ['frame', 'compute', 'render', 'raf']) pooled[k].push(...o[k]);
        pooled.steps += o.steps;
        pooled.virtualUs += o.virtualUs;
        pooled.wallMs += o.wallMs;
      }
      const row = {
        speed: sp.name,
        frames: pooled.frame.length,
        frame_median: med(pooled.frame),
        frame_p95: p95(pooled.frame),
        compute_median: med(pooled.compute),
        render_median: med(pooled.render),
        render_p95: p95(pooled.render),
        raf_median: med(pooled.raf),
        raf_p95: p95(pooled.raf),
        fps: (pooled.raf.length / pooled.wallMs) * 1000,
        steps_per_frame: pooled.steps / Math.max(1, pooled.frame.length),
        virtual_per_real: pooled.virtualUs / 1000 / pooled.wallMs,
      };
      result.play.push(row);
      console.log(`WEBBENCH play speed="${sp.name}" ${Object.entries(row).slice(1).map(([k, v]) => `${k}=${typeof v === 'number' ? v.toFixed(2) : v}`).join(' ')}`);
    }

    if (!ONLY_SWEEP && !ONLY_SCRUB && process.env.BENCH_EXTRAS !== '0') {
      await page.click('#to-start').catch(() => {});
      await settled(page);
      // 6 s: 600 virtual s of the 660 s run at 100x, so that the play does not reach the end
      // (the label is read while playing); the speed is over the time the cursor moved.
      const o = await playFor(page, SPEED_100X, Math.min(PLAY_MS, 6000), undefined, true);
      const moving = Number.isFinite(o.movingMs) ? Math.min(o.wallMs, o.movingMs) : o.wallMs;
      result.speed100 = {
        achieved: o.virtualUs / 1000 / moving,
        label: o.label,
        behind: o.behind,
        raf_p95: p95(o.rafMoving),
        raf_median: med(o.rafMoving),
        moving_ms: moving,
      };
      console.log(`WEBBENCH speed100 achieved=${result.speed100.achieved.toFixed(1)} label="${o.label}" behind=${o.behind} frame_gap_ms=${f1(result.speed100.raf_median)}/${f1(result.speed100.raf_p95)} moving_ms=${moving.toFixed(0)} virtual_s=${(o.virtualUs / 1e6).toFixed(1)}`);
      await page.click('#to-start').catch(() => {});
      await settled(page);
      const f = await playFor(page, '1000', 3000, undefined, true);
      result.speed1000 = { achieved: f.virtualUs / 1000 / f.wallMs, label: f.label, behind: f.behind };
      console.log(`WEBBENCH speed1000 achieved=${result.speed1000.achieved.toFixed(1)} label="${f.label}" behind=${f.behind}`);
    }
    // 5. "How often?": a sweep in Web Workers (all of navigator.hardwareConcurrency, at most 8).
    if (process.env.BENCH_SWEEP !== '0' && !ONLY_SCRUB) {
      await page.selectOption('#scenario-select', SWEEP_SCENARIO);
      await settled(page);
      // This machine's speed at this moment, for reading the sweep: one run of the scenario's
      // engine on the page's thread (`bench_engine`: the default variant and seed, traced, so a
      // little slower than a sweep's untraced seed), median of three. A sweep in W workers cannot
      // beat seeds x that / W.
      const engineSeed = [];
      for (let i = 0; i < 3; i++) {
        engineSeed.push(await engineRun(page, SWEEP_SCENARIO));
      }
      await page.click('#sweep-open');
      await page.fill('#sweep-seeds', String(SWEEP_SEEDS));
      await page.click('#sweep-start');
      await page.waitForSelector('#sweep-panel[data-state="done"]', { timeout: 1_800_000 });
      const d = await page.evaluate(() => ({ ...document.querySelector('#sweep-panel').dataset }));
      result.sweep = {
        scenario: SWEEP_SCENARIO,
        seeds: Number(d.done),
        workers: Number(d.workers),
        cores: await page.evaluate(() => navigator.hardwareConcurrency),
        s: Number(d.elapsedMs) / 1000,
      };
      result.sweep.seeds_per_s = result.sweep.seeds / result.sweep.s;
      result.sweep.engine_seed_s = med(engineSeed);
      result.sweep.floor_s = (result.sweep.seeds * result.sweep.engine_seed_s) / result.sweep.workers;
      console.log(`WEBBENCH sweep s=${result.sweep.s.toFixed(2)} engine_seed_s=${engineSeed.map((x) => x.toFixed(3)).join(',')} floor_s=${result.sweep.floor_s.toFixed(2)}`);
    }
  } finally {
    await browser.close().catch(() => {});
    server.close();
  }
  result.load = [load0, loadavg()[0]];

  // The table.
  const lines = [];
  lines.push(`| measure | value | target | met? |`);
  lines.push(`|---|---:|---|---|`);
  for (const r of result.play) {
    lines.push(`| playing ${r.speed}: frame work (compute + render), median / p95 | ${f1(r.frame_median)} / ${f1(r.frame_p95)} ms | median <= 16 ms | ${r.frame_median <= 16 ? 'yes' : '**NO**'} |`);
    lines.push(`| playing ${r.speed}: of which compute / render (medians) | ${f1(r.compute_median)} / ${f1(r.render_median)} ms | - | - |`);
    lines.push(`| playing ${r.speed}: frame interval (rAF), median / p95; fps | ${f1(r.raf_median)} / ${f1(r.raf_p95)} ms; ${f1(r.fps)} | - | - |`);
    lines.push(`| playing ${r.speed}: events per frame; virtual s per real s | ${r.steps_per_frame.toFixed(0)}; ${r.virtual_per_real.toFixed(2)} | - | - |`);
  }
  const jf = (j) => `${j.f === 0 ? 'start' : j.f === 1 ? 'end' : `${(j.f * 100).toFixed(1)}%`} (${j.dir})`;
  if (result.jumps) lines.push(`| jump (click to painted frame), median / p95 | ${f1(result.jump_median)} / ${f1(p95(result.jumps.map((j) => j.ms).filter(Number.isFinite)))} ms | median and p95 <= 100 ms | - |`);
  if (result.jumps) lines.push(`| jump (click to painted frame), median / max over ${result.jumps.length} (${result.jumps.map((j) => `${jf(j)} ${f1(j.ms)}`).join(', ')}) | ${f1(result.jump_median)} / ${f1(result.jump_max)} ms | any <= 100 ms | ${result.jump_max <= 100 ? 'yes' : '**NO**'} |`);
  if (result.jumps) lines.push(`| of which the app's work (click to the end of its render), median / max | ${f1(result.jump_app_median)} / ${f1(result.jump_app_max)} ms | - | - |`);
  if (result.jump_model_median !== undefined) lines.push(`| ... split, medians: the model's restore + replay / the app's render / the browser's style, layout, paint | ${f1(result.jump_model_median)} / ${f1(result.jump_render_median)} / ${f1(result.jump_browser_median)} ms | - | - |`);
  if (result.jumps) {
    const r = result;
    lines.push(`| compute to end, 251 nodes (End from time zero): in the app (click to painted frame, in the page; ${(r.compute_to_end_wall_s ?? r.compute_to_end_s).toFixed(2)} s seen from this script) / engine alone in Chromium | ${r.compute_to_end_s.toFixed(2)} s / ${r.engine_alone_s.toFixed(2)} s = **${r.compute_ratio.toFixed(2)}x** (${r.frontier} events; engine alone ${r.engine_alone_runs_s.map((x) => x.toFixed(2)).join(' s and ')} s after End; End's page faults ${r.compute_to_end_faults_k ?? 'n/a'}k); longest gap between frames ${f1(r.compute_max_gap_ms)} ms | <= 1.5x, page responsive throughout | ${r.compute_ratio <= 1.5 ? 'yes' : '**NO**'} |`);
    lines.push(`| tab memory after the 251-node run (wasm linear memory) | ${f1(r.wasm_memory_mib)} MiB | <= 300 MiB, any jump <= 100 ms | ${r.wasm_memory_mib <= 300 && r.jump_max <= 100 ? 'yes' : '**NO**'} |`);
    if (r.switches) {
      lines.push(`| switch variant and back at the end: first switch / later switches (worst of 3) | ${(r.switch_first_ms / 1000).toFixed(2)} s (page faults ${r.switches[0].page_faults_k ?? 'n/a'}k) / ${r.switch_again_ms} ms | first <= compute time (both seen from this script), second <= 100 ms | ${r.switch_first_ms <= (r.compute_to_end_wall_s ?? r.compute_to_end_s) * 1000 && r.switch_again_ms <= 100 ? 'yes' : '**NO**'} |`);
      lines.push(`| ... later switches, click to painted frame in the page (worst of 3) | ${f1(r.switch_again_paint_ms)} ms | <= 100 ms | ${r.switch_again_paint_ms <= 100 ? 'yes' : '**NO**'} |`);
      lines.push(`| ... wasm linear memory with both variants computed | ${f1(r.wasm_memory_two_runs_mib)} MiB | - | - |`);
      lines.push(`| open a permalink at 90% of the run (new tab, to the cursor there) | ${r.permalink_s.toFixed(2)} s | <= 2 s | ${r.permalink_s <= 2 ? 'yes' : '**NO**'} |`);
    }
  }
  if (result.scrub) {
    const c = result.scrub;
    lines.push(`| scrubber drag at 251 nodes (2 s, ${c.moves} moves; ${c.approx_updates} of the updates a keyframe's frame) | ${c.per_s.toFixed(1)} updates/s | >= 30 updates/s | ${c.per_s >= 30 ? 'yes' : '**NO**'} |`);
    lines.push(`| ... an update's work, median / p95: the model's (restore, replay) and to the end of its render | ${f1(c.model_median_ms)} / ${f1(c.model_p95_ms)} ms; ${f1(c.app_median_ms)} / ${f1(c.app_p95_ms)} ms | - | - |`);
    lines.push(`| ... a pointer move's wait in the page before its handler (event timeStamp to handler), median / p95 / max; the handlers' longest; moves that waited more than one 60 Hz frame | ${f1(c.move_wait_median_ms)} / ${f1(c.move_wait_p95_ms)} / ${f1(c.move_wait_max_ms)} ms; ${f1(c.move_handler_max_ms)} ms; ${c.moves_held} of ${c.page_moves} | a move never held up behind a frame's work | ${c.moves_held === 0 ? 'yes' : '**NO**'} |`);
    lines.push(`| ... a move's automation round trip (the wait, the handlers and the transport), median / max | ${f1(c.move_rtt_median_ms)} / ${f1(c.move_rtt_max_ms)} ms | - | - |`);
    lines.push(`| ... release to the painted exact frame (to the end of the render; the model's restore + replay) | ${f1(c.exact_after_release_ms)} ms (${f1(c.exact_render_after_release_ms)}; ${f1(c.exact_model_after_release_ms)}) | <= 100 ms | ${c.exact_after_release_ms <= 100 ? 'yes' : '**NO**'} |`);
  }
  if (result.speed100) {
    const a = result.speed100;
    const b = result.speed1000;
    lines.push(`| playback at 100x, 251 nodes: achieved (label shown); frame gap median / p95 | ${a.achieved.toFixed(1)}x ("${a.label}"); ${f1(a.raf_median)} / ${f1(a.raf_p95)} ms | 100x real, actual speed shown, p95 frame gap <= 33 ms | ${a.achieved >= 95 && a.label && a.raf_p95 <= 33.4 ? 'yes' : '**NO**'} |`);
    lines.push(`| playback at 1000x: achieved (label shown) | ${b.achieved.toFixed(1)}x ("${b.label}") | "falling behind" visible when it cannot keep up | ${b.achieved < 900 ? (b.behind ? 'yes' : '**NO**') : 'keeps up'} |`);
  }
  if (result.sweep) {
    const w = result.sweep;
    lines.push(`| sweep ${w.seeds} seeds of ${w.scenario} in ${w.workers} Web Workers (${w.cores} cores reported): wall; seeds/s | ${w.s.toFixed(1)} s; ${w.seeds_per_s.toFixed(2)} | 100 seeds <= 15 s | ${w.seeds === 100 && w.s <= 15 ? 'yes' : '**NO**'} |`);
    lines.push(`| ... one seed's engine alone on the page (traced, median of 3); seeds x that / workers | ${w.engine_seed_s.toFixed(3)} s; ${w.floor_s.toFixed(1)} s (the sweep took ${(w.s / w.floor_s).toFixed(2)}x that) | - | - |`);
  }
  if (result.load_to_usable) {
    const l = result.load_to_usable;
    lines.push(`| load to first usable frame (fresh context, loopback), median / max of ${l.runs.length} | ${f1(l.median)} / ${f1(l.max)} ms | <= 500 ms | ${l.median <= 500 ? 'yes' : '**NO**'} |`);
  }
  lines.push(`| initial download, wasm + js + css, gzip -6 (-9) | ${(size.gz6 / 1024).toFixed(0)} KB (${(size.gz9 / 1024).toFixed(0)} KB); raw ${(size.raw / 1024).toFixed(0)} KB | <= 600 KB | ${size.gz6 <= 600 * 1024 ? 'yes' : '**NO**'} |`);
  const md = `${lines.join('\n')}\n\n${result.date}, ${result.chromium === undefined ? '' : `Chromium ${result.chromium}, `}load average (1 min) ${load0.toFixed(1)} before, ${result.load[1].toFixed(1)} after.\n`;
  console.log(`\n${md}`);
  console.log(`WEBBENCH size gz6=${size.gz6} gz9=${size.gz9} raw=${size.raw}`);
  if (argOf('--json')) writeFileSync(argOf('--json'), JSON.stringify(result, null, 2));
  if (argOf('--md')) writeFileSync(argOf('--md'), md);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
