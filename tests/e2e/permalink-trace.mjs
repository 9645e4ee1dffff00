#!/usr/bin/env node
// One link's open traced (issue 44): a benchmark aid, not a test. Opens the link (AB_LINK, the
// `#s=...` hash) on DIST as permalink-ab.mjs does, with a Chrome trace (the main thread's tasks,
// style, layout, paint, user timing and V8's CPU samples) from navigation to the painted cursor,
// and prints where the time after the seek goes: from the start of the task that removed the
// opening card (the first frame at the cursor) to the painted cursor, the main thread's events
// by kind (self time) and the hottest functions by self time.
// Usage: AB_LINK='#s=...' node tests/e2e/permalink-trace.mjs DIST [out.json]
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { writeFileSync } from 'node:fs';
import { linkPaintedScript, serveDir } from './load.mjs';

const [dist, out] = process.argv.slice(2);
const hash = process.env.AB_LINK;
if (!dist || !hash) {
  console.error("usage: AB_LINK='#s=...' node tests/e2e/permalink-trace.mjs DIST [out.json]");
  process.exit(2);
}
const server = await serveDir(resolve(dist));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(linkPaintedScript);
  await context.addInitScript(() => {
    window.__csPerf = true;
    let had = false;
    new MutationObserver((recs) => {
      for (const r of recs) {
        if (r.type !== 'attributes' || !window.__csGone) continue;
        const t = r.target;
        if (t === document.documentElement && r.attributeName === 'style') performance.mark(`cs-root-style ${t.getAttribute('style')}`);
        if (t.tagName === 'CANVAS' && (r.attributeName === 'width' || r.attributeName === 'height')) performance.mark(`cs-canvas ${t.id || t.className} ${r.attributeName}=${t.getAttribute(r.attributeName)}`);
      }
      const o = !!document.querySelector('#opening');
      if (had && !o && !window.__csGone) {
        window.__csGone = performance.now();
        performance.mark('cs-opening-gone');
      }
      had ||= o;
      const app = document.querySelector('#app');
      const b = app && `busy${app.dataset.busy}-deferred${app.dataset.deferred}`;
      if (b && b !== window.__csBusy) performance.mark(`cs-${(window.__csBusy = b)}`);
    }).observe(document, { childList: true, subtree: true, attributes: true });
  });
  const page = await context.newPage();
  await browser.startTracing(page, {
    categories: [
      'devtools.timeline',
      'disabled-by-default-devtools.timeline',
      'blink.user_timing',
      'v8.execute',
      'disabled-by-default-v8.cpu_profiler',
      'toplevel',
    ],
  });
  await page.goto(url + hash);
  await page.waitForSelector('#app[data-ready="1"]', { timeout: 60_000 });
  const r = await page.evaluate(() =>
    window.__csLinkPainted().then(({ painted }) => {
      performance.mark('cs-cursor-painted');
      return { gone: window.__csGone, cursor: painted, step: document.querySelector('#app').dataset.step };
    }),
  );
  await new Promise((ok) => setTimeout(ok, 300));
  const buf = await browser.stopTracing();
  if (out) writeFileSync(out, buf);
  const ev = JSON.parse(buf.toString()).traceEvents;
  console.log(`opening gone ${r.gone?.toFixed(0)} ms, cursor painted ${r.cursor.toFixed(0)} ms, step ${r.step}`);
  const mark = (n) => ev.find((e) => e.name === n && e.ph !== 'E');
  const gone = mark('cs-opening-gone');
  const painted = mark('cs-cursor-painted');
  // The renderer main thread: the thread of the marks.
  const pid = gone.pid;
  const tid = gone.tid;
  const main = ev.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e.dur !== undefined);
  // The task holding the mark: the first frame at the cursor.
  const task = main.find((e) => e.name === 'RunTask' && e.ts <= gone.ts && e.ts + e.dur >= gone.ts);
  const t0 = task ? task.ts : gone.ts;
  const t1 = painted.ts;
  console.log(`window: ${((t1 - t0) / 1000).toFixed(1)} ms (the task removing the opening card started ${((gone.ts - t0) / 1000).toFixed(1)} ms before its DOM change)`);
  // The app's marks and measures (`__csPerf`) from 300 ms before the window.
  const ut = ev.filter((e) => e.cat && e.cat.includes('blink.user_timing') && e.ts >= t0 - 300_000 && e.ts < t1).sort((a, b) => a.ts - b.ts);
  console.log('user timing: ' + ut.map((e) => `${e.name}${e.ph === 'b' ? '(' : e.ph === 'e' ? ')' : ''}@${((e.ts - t0) / 1000).toFixed(1)}`).join(' '));
  // Tasks in the window.
  const tasks = main.filter((e) => e.name === 'RunTask' && e.ts >= t0 && e.ts < t1);
  for (const t of tasks.filter((t) => t.dur > 2000)) {
    const inner = main.filter((e) => e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur && e !== t);
    const kinds = {};
    for (const e of inner) kinds[e.name] = (kinds[e.name] || 0) + e.dur;
    const top = Object.entries(kinds)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`)
      .join(', ');
    console.log(`  task at +${((t.ts - t0) / 1000).toFixed(1)} ms, ${(t.dur / 1000).toFixed(1)} ms: ${top}`);
  }
  // Self times by kind in the window (nested X events: self = dur - children).
  const win = main.filter((e) => e.ts >= t0 && e.ts < t1).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const self = {};
  const stack = [];
  for (const e of win) {
    while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= e.ts) stack.pop();
    if (stack.length) self[stack[stack.length - 1].name] -= e.dur;
    self[e.name] = (self[e.name] || 0) + e.dur;
    stack.push(e);
  }
  console.log('self time by kind (ms): ' + Object.entries(self).sort((a, b) => b[1] - a[1]).slice(0, 14).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`).join(', '));
  // CPU samples (ProfileChunk events) in the window.
  const nodes = new Map();
  const samples = [];
  let ts = null;
  for (const e of ev.filter((e) => e.name === 'Profile' || e.name === 'ProfileChunk')) {
    if (e.name === 'Profile') ts = e.args.data.startTime;
    const d = e.args.data.cpuProfile || {};
    for (const n of d.nodes || []) nodes.set(n.id, n);
    const deltas = e.args.data.timeDeltas || [];
    (d.samples || []).forEach((s, i) => {
      ts += deltas[i];
      samples.push([ts, s]);
    });
  }
  const fself = {};
  let n = 0;
  for (let i = 0; i < samples.length; i++) {
    const [t, id] = samples[i];
    if (t < t0 || t >= t1) continue;
    const dt = i + 1 < samples.length ? samples[i + 1][0] - t : 0;
    const node = nodes.get(id);
    const name = node ? node.callFrame.functionName || `(${(node.callFrame.url || '').split('/').pop()})` : '?';
    fself[name] = (fself[name] || 0) + dt;
    n++;
  }
  console.log(`${n} samples; self time by function (ms):`);
  for (const [k, v] of Object.entries(fself).sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${(v / 1000).toFixed(1).padStart(7)}  ${k.slice(0, 110)}`);
} finally {
  await browser.close();
  server.close();
}
