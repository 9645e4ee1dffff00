#!/usr/bin/env node
// Main-thread freezes with a large Raft cluster (issue 39; a benchmark, not a test: run.mjs does
// not run it). Imports `sandbox-raft` grown to 512 nodes into the release build (dist/), presses
// End (compute to the end of the run) and reports the browser's long tasks (PerformanceObserver
// `longtask`: main-thread blocks over 50 ms) until the app is idle again: the longest is how long
// the page was frozen at a stretch.
//
// Usage: node tests/e2e/freeze.mjs [DURATION] [PRESET] [CLIENT_RATE]   (default: 15s default 0)
// Env:   E2E_DIST (default <repo>/dist), CHROMIUM (default /usr/bin/chromium).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDir } from './load.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [dur = '15s', preset = 'default', rate = '0'] = process.argv.slice(2);
const text = readFileSync(join(REPO, 'scenarios', 'sandbox-raft.toml'), 'utf8')
  .replace(/^duration = .*$/m, `duration = "${dur}"`)
  .replace(/^nodes = .*$/m, 'generate = { count = 512 }')
  .replace(/at = "10s"/g, 'at = "end"')
  .replace(/^preset = .*$/m, `preset = "${preset}"\nclient_rate = ${rate}`);
const server = await serveDir(resolve(process.env.E2E_DIST || join(REPO, 'dist')));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium' });
try {
  const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.addInitScript(() => {
    window.__long = [];
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) window.__long.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(url);
  await page.waitForSelector('#app[data-ready="1"]');
  await page.evaluate(() => { window.__long = []; });
  const t0 = Date.now();
  await page.setInputFiles('#import', { name: 'raft512.toml', mimeType: 'text/plain', buffer: Buffer.from(text) });
  await page.waitForSelector('#banner');
  const banner = (await page.textContent('#banner')) || '';
  if (!/^Imported/.test(banner)) throw new Error(`not imported: ${banner.slice(0, 400)}`);
  await page.keyboard.press('End');
  await page.waitForSelector('#app[data-busy="0"]', { timeout: 600_000 });
  const wall = Date.now() - t0;
  const long = (await page.evaluate(() => window.__long)).sort((a, b) => b - a);
  const d = await page.evaluate(() => ({ ...document.querySelector('#app').dataset }));
  const total = long.reduce((s, x) => s + x, 0);
  console.log(
    `raft 512 nodes, ${dur}, preset ${preset}, client_rate ${rate}: to the end (${d.timeUs} us, step ${d.step}) in ${wall} ms; ` +
      `${long.length} long tasks, longest ${long.slice(0, 3).map((x) => x.toFixed(0)).join(' / ')} ms, ${total.toFixed(0)} ms in all`,
  );
} finally {
  await browser.close();
  server.close();
}
