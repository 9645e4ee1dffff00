#!/usr/bin/env node
// Jumps on the timeline right after a permalink's opening (issue 44): a benchmark, not a test.
// Opens the bench's link (the 251-node rolling upgrade at 90%, `AB_LINK` or made as
// permalink-ab.mjs makes it) on each build in a fresh context, alternated, waits WAIT_MS after
// the cursor is painted (0: jump at once), then jumps as bench.mjs's jumps row does (0.5, 0,
// 0.25, 0.75, 1, 0.5 and 6 points of its LCG) and times each from the click's handler to the
// painted frame (`cs-jump-paint`). Prints each build's median, p95 and max per round.
//
// Usage: AB_LINK='#s=...' node tests/e2e/permalink-jumps.mjs DIST... [rounds=2]
// Env:   WAIT_MS (default 8000), CHROMIUM.
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { loadavg } from 'node:os';
import { serveDir } from './load.mjs';

const args = process.argv.slice(2);
const rounds = /^\d+$/.test(args[args.length - 1]) ? Number(args.pop()) : 2;
const dists = args;
const WAIT_MS = Number(process.env.WAIT_MS ?? 8000);
const hash = process.env.AB_LINK;
if (!dists.length || !hash) {
  console.error("usage: AB_LINK='#s=...' node tests/e2e/permalink-jumps.mjs DIST... [rounds]");
  process.exit(2);
}
const servers = await Promise.all(dists.map((d) => serveDir(resolve(d))));
const urls = servers.map((s) => `http://127.0.0.1:${s.address().port}/`);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run'],
});
const lcg = (seed) => {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
};
const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
};
async function settled(page) {
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await page.waitForSelector('#app[data-busy="0"]', { timeout: 300_000 });
}
async function jumps(url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // The app's performance marks (`platform::perf`, as bench.mjs turns them on).
  await context.addInitScript(() => {
    window.__csPerf = true;
  });
  const page = await context.newPage();
  await page.goto(url + hash);
  await page.waitForSelector('#app[data-ready="1"]', { timeout: 60_000 });
  await settled(page);
  await page.waitForTimeout(WAIT_MS);
  const rnd = lcg(42);
  const points = [0.5, 0, 0.25, 0.75, 1, 0.5];
  for (let i = 0; i < 6; i++) points.push(Math.round(rnd() * 1000) / 1000);
  const ms = [];
  for (const f of points) {
    const box = await page.locator('#timeline').boundingBox();
    await page.evaluate(() => performance.clearMeasures('cs-jump-paint'));
    await page.mouse.click(box.x + 10 + f * (box.width - 20), box.y + box.height / 2);
    await settled(page);
    await page
      .waitForFunction(() => performance.getEntriesByName('cs-jump-paint', 'measure').length > 0, null, { timeout: 5000 })
      .catch(() => {});
    ms.push(await page.evaluate(() => performance.getEntriesByName('cs-jump-paint', 'measure').at(-1)?.duration ?? NaN));
  }
  await context.close();
  return ms;
}
try {
  console.log(`wait ${WAIT_MS} ms; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const all = dists.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = dists.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const k of order) {
      const ms = await jumps(urls[k]);
      all[k].push(...ms);
      console.log(`round ${r + 1} ${dists[k]}: ${ms.map((x) => x.toFixed(0)).join(' ')} ms; median ${q(ms, 0.5).toFixed(1)}, p95 ${q(ms, 0.95).toFixed(1)}, max ${Math.max(...ms).toFixed(1)}`);
    }
  }
  dists.forEach((d, k) =>
    console.log(`${d}: ${all[k].length} jumps, median ${q(all[k], 0.5).toFixed(1)} ms, p95 ${q(all[k], 0.95).toFixed(1)}, max ${Math.max(...all[k]).toFixed(1)}`),
  );
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
} finally {
  await browser.close();
  for (const s of servers) s.close();
}
