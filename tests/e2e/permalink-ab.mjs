#!/usr/bin/env node
// The permalink row of bench.mjs, alternated between two builds (issue 44): a benchmark, not a
// test. The link is made once, on build A: the 251-node rolling upgrade computed to the end, a
// click at 90% of the timeline, the page's URL (`#s=...`). Then each round opens that link in a
// fresh browser context (nothing cached, no stored session) on A and on B, the order flipped
// every round, and times in the page, from navigation start (`performance.now()`):
//   ready   the first render with `data-ready="1"` (the app mounted, the link read and its run
//           installed at time zero: the seek starts), as the script sees it and in the page
//           (`#app`'s attributes watched from the start);
//   cursor  the painted frame at the link's cursor: `data-step` at the link's step and
//           `data-busy="0"`, then two animation frames and a task (the paint done);
//   painted the same seen in the page alone (an init script watching `#app`: no round trips to
//           this script, whose waits add their own delays under load);
//   first frame  painted minus the end of the seek's last simulation slice (the app's last
//           `cs-f1` mark before `data-busy="0"`): the panels' first frame at the cursor, its
//           render, style, layout and paint and what runs before the painted cursor is seen;
// and, from the app's `cs-frame-render` measures (bench.mjs's `__csPerf`), the renders during the
// open (count and total ms). Prints every open, then the medians and the median of the per-round
// ratios B/A.
//
// Usage: node tests/e2e/permalink-ab.mjs DIST_A DIST_B [rounds=10]
// Env:   CHROMIUM (default /usr/bin/chromium), AB_LINK (a link's `#s=...` hash to open instead of
//        making one; printed by every run), AB_TIMELINE=1 (each open also prints its timeline:
//        when each file was asked for and arrived, and when `#app`'s state changed, in ms from
//        navigation start).
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { loadavg } from 'node:os';
import { chromiumFaults, faultsSince, linkPaintedScript, serveDir } from './load.mjs';

const [distA, distB, roundsArg] = process.argv.slice(2);
if (!distA || !distB) {
  console.error('usage: node tests/e2e/permalink-ab.mjs DIST_A DIST_B [rounds]');
  process.exit(2);
}
const ROUNDS = Number(roundsArg || 10);
const SCENARIO = 'cassandra-21636-rolling-upgrade';
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const servers = await Promise.all([distA, distB].map((d) => serveDir(resolve(d))));
const urls = servers.map((s) => `http://127.0.0.1:${s.address().port}/`);
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});

async function settled(page, timeout = 600_000) {
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await page.waitForSelector('#app[data-busy="0"]', { timeout });
}

async function makeLink() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(urls[0]);
  await page.waitForSelector('#app[data-ready="1"]', { timeout: 60_000 });
  await settled(page);
  await page.selectOption('#scenario-select', SCENARIO);
  await settled(page);
  await page.click('#to-end');
  await settled(page);
  const box = await page.locator('#timeline').boundingBox();
  // The track starts and ends 10 px in (web/src/draw/timeline.rs, PAD), as bench.mjs's jumpTo.
  await page.mouse.click(box.x + 10 + 0.9 * (box.width - 20), box.y + box.height / 2);
  await settled(page);
  await page.waitForFunction(() => location.hash.length > 1, null, { timeout: 10_000 });
  const hash = await page.evaluate(() => location.hash);
  await context.close();
  return hash;
}

async function open(url, hash) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(linkPaintedScript);
  await context.addInitScript(() => {
    window.__csPerf = true;
    // `#app`'s state as it changes (AB_TIMELINE): mounted, ready, busy, the step, the opening card.
    window.__csTimeline = [];
    let last = '';
    const look = () => {
      const app = document.querySelector('#app');
      const s = app
        ? `ready=${app.dataset.ready} busy=${app.dataset.busy} scenario=${app.dataset.scenario} step=${app.dataset.step}${document.querySelector('#opening') ? ' opening' : ''}`
        : 'no app';
      if (s !== last) window.__csTimeline.push([performance.now(), (last = s)]);
    };
    new MutationObserver(look).observe(document, { attributes: true, childList: true, subtree: true });
    // The painted cursor seen in the page itself (no round trip to this script): the run
    // installed, not busy and no opening card, then two animation frames and a task
    // (`linkPaintedScript`, installed first), the seek's end taken when the state is met.
    window
      .__csLinkPainted({ ready: true, atMet: () => window.__csLastF1 ?? NaN })
      .then(({ at, painted }) => (window.__csPainted = [at, painted]));
    // When each animation frame's simulation slice ended (the app's `cs-f1` mark): the last one
    // before the cursor is the seek's end, where the first frame at the cursor starts.
    const mark = performance.mark.bind(performance);
    performance.mark = (name, ...rest) => {
      if (name === 'cs-f1') window.__csLastF1 = performance.now();
      return mark(name, ...rest);
    };
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  const f0 = chromiumFaults();
  await page.goto(url + hash);
  await page.waitForSelector('#app[data-ready="1"]', { timeout: 60_000 });
  const ready = await page.evaluate(() => performance.now());
  const f1 = chromiumFaults();
  const faultsOpen = faultsSince(f0);
  await settled(page);
  // The cursor painted as this script sees it: not busy (the opening card not awaited).
  const r = await page.evaluate(() =>
    window.__csLinkPainted({ opening: false }).then(({ painted }) => {
      const app = document.querySelector('#app');
      const renders = performance.getEntriesByName('cs-frame-render', 'measure');
      const first = window.__csTimeline.find(([, s]) => s.startsWith('ready=1'));
      return {
        installed: first ? first[0] : NaN,
        cursor: painted,
        step: app.dataset.step,
        renders: renders.length,
        render_ms: renders.reduce((a, e) => a + e.duration, 0),
      };
    }),
  );
  await page.waitForFunction(() => window.__csPainted, null, { timeout: 60_000 });
  [r.seek_end, r.painted] = await page.evaluate(() => window.__csPainted);
  r.faults_open = faultsOpen;
  r.faults_seek = faultsSince(f1);
  if (process.env.AB_TIMELINE === '1') {
    const t = await page.evaluate(() => ({
      files: performance
        .getEntriesByType('resource')
        .map((e) => [e.startTime, e.responseEnd, e.name.replace(location.origin + '/', '')]),
      app: window.__csTimeline,
    }));
    const lines = [
      ...t.files.map(([a, b, n]) => [a, `${n.slice(0, 60)} asked, arrived ${b.toFixed(0)}`]),
      ...t.app.filter(([ms]) => ms < 5000).map(([ms, s]) => [ms, s]),
    ].sort((x, y) => x[0] - y[0]);
    let seen = 0;
    for (const [ms, s] of lines) {
      // The step moves at every progress render: only the first ten states are printed.
      if (!s.includes('asked') && ++seen > 10) continue;
      console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${s}`);
    }
  }
  await context.close();
  return { ready, ...r };
}

try {
  const hash = process.env.AB_LINK || (await makeLink());
  console.log(`link ${hash.length} chars: ${hash}`);
  console.log(`A ${distA}\nB ${distB}\nload average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const runs = [[], []];
  const ratios = [];
  const readyRatios = [];
  const frameRatios = [];
  const paintedRatios = [];
  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 ? [1, 0] : [0, 1];
    const got = [];
    for (const k of order) {
      const r = await open(urls[k], hash);
      got[k] = r;
      runs[k].push(r);
      console.log(
        `round ${i + 1} ${'AB'[k]}: cursor ${(r.cursor / 1000).toFixed(3)} s (ready ${(r.ready / 1000).toFixed(3)} s, in the page ${(r.installed / 1000).toFixed(3)} s) step ${r.step}, ${r.renders} renders ${r.render_ms.toFixed(0)} ms, page faults ${r.faults_open}k to ready, ${r.faults_seek}k after; in the page: painted ${(r.painted / 1000).toFixed(3)} s, first frame ${(r.painted - r.seek_end).toFixed(0)} ms`,
      );
    }
    if (got[0].step !== got[1].step) throw new Error(`A and B stopped at different steps: ${got[0].step} ${got[1].step}`);
    ratios.push(got[1].cursor / got[0].cursor);
    frameRatios.push((got[1].painted - got[1].seek_end) / (got[0].painted - got[0].seek_end));
    paintedRatios.push(got[1].painted / got[0].painted);
    readyRatios.push(got[1].installed / got[0].installed);
  }
  for (const k of [0, 1]) {
    const rs = runs[k];
    console.log(
      `${'AB'[k]}: cursor median ${(median(rs.map((r) => r.cursor)) / 1000).toFixed(3)} s (min ${(Math.min(...rs.map((r) => r.cursor)) / 1000).toFixed(3)}), ready median ${(median(rs.map((r) => r.ready)) / 1000).toFixed(3)} s (in the page ${(median(rs.map((r) => r.installed)) / 1000).toFixed(3)} s), renders median ${median(rs.map((r) => r.renders))} (${median(rs.map((r) => r.render_ms)).toFixed(0)} ms), page faults median ${median(rs.map((r) => r.faults_open))}k to ready, ${median(rs.map((r) => r.faults_seek))}k after`,
    );
  }
  for (const k of [0, 1]) {
    const fs = runs[k].map((r) => r.painted - r.seek_end);
    console.log(`${'AB'[k]}: in the page, cursor painted median ${(median(runs[k].map((r) => r.painted)) / 1000).toFixed(3)} s; first frame (the seek's last slice computed to the painted cursor) median ${median(fs).toFixed(0)} ms (${Math.min(...fs).toFixed(0)}-${Math.max(...fs).toFixed(0)})`);
  }
  console.log(
    `first frame, B/A per round: median ${median(frameRatios).toFixed(3)} (${Math.min(...frameRatios).toFixed(3)}-${Math.max(...frameRatios).toFixed(3)}); cursor painted in the page, B/A per round: median ${median(paintedRatios).toFixed(3)} (${Math.min(...paintedRatios).toFixed(3)}-${Math.max(...paintedRatios).toFixed(3)})`,
  );
  console.log(
    `ready in the page, B/A per round: median ${median(readyRatios).toFixed(3)} (${Math.min(...readyRatios).toFixed(3)}-${Math.max(...readyRatios).toFixed(3)})`,
  );
  console.log(
    `B/A per round: median ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}); load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  );
} finally {
  await browser.close();
  for (const s of servers) s.close();
}
