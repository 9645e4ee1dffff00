// The on-call engineer reviewing the 251-node rolling upgrade (issue 14): the liveness matrix
// filtered to the rows and columns with DOWN views, sorted and zoomed; every DOWN view as a list
// and as CSV; the log searched and a line clicked to move the cursor there; the sequence diagram
// on nodes that exchange messages; the 200 MB trace exported without freezing the tab.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { app, open, settled } from './lib/app.mjs';

export const timeoutMs = 300_000;

export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'cassandra-21636-rolling-upgrade');
  await settled(page);
  await page.click('#to-end');
  await settled(page, 240_000);
  const count = Number(await page.getAttribute('#matrix', 'data-down-count'));
  assert.ok(count > 100, `DOWN views at the end: ${count}`);
  const down = (await page.getAttribute('#matrix', 'data-down')).split(',');
  const observers = new Set(down.map((p) => p.split('>')[0]));
  const peers = new Set(down.map((p) => p.split('>')[1]));
  assert.equal(await page.getAttribute('#matrix', 'data-rows'), '251');

  // The sequence diagram shows nodes that exchanged messages.
  assert.ok((await page.$$('#sequence g.sq-msg')).length > 0, 'the sequence diagram has messages');

  // Filter the matrix to the rows and columns with DOWN views, then most DOWN first.
  await page.locator('#matrix-only').check();
  await page.waitForFunction((n) => document.querySelector('#matrix').dataset.rows === String(n), observers.size);
  assert.equal(await page.getAttribute('#matrix', 'data-cols'), String(peers.size));
  await page.locator('#matrix-sort').check();
  await page.waitForSelector('#matrix-sort:checked');
  assert.equal(await page.getAttribute('#matrix', 'data-rows'), String(observers.size));
  await screenshot('matrix-filtered', { fullPage: false });

  // Zoom: drag over the top-left quarter of the cells.
  const box = await page.locator('#matrix').boundingBox();
  await page.locator('#matrix').scrollIntoViewIfNeeded();
  const b = await page.locator('#matrix').boundingBox();
  await page.mouse.move(b.x + b.width * 0.3, b.y + 30);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width * 0.5, b.y + b.height * 0.4, { steps: 5 });
  await page.mouse.up();
  await page.waitForSelector('#matrix-unzoom');
  const zr = Number(await page.getAttribute('#matrix', 'data-rows'));
  assert.ok(zr > 0 && zr < observers.size, `zoomed rows: ${zr} of ${observers.size}`);
  await page.click('#matrix-unzoom');
  await page.waitForFunction((n) => document.querySelector('#matrix').dataset.rows === String(n), observers.size);
  assert.ok(box.width > 0);

  // "and N more": the whole list, and the CSV.
  await page.click('#matrix-list summary');
  // The rows render once the list is open.
  await page.waitForSelector('#matrix-list tbody tr');
  const listed = await page.$$('#matrix-list tbody tr');
  assert.equal(listed.length, Math.min(count, 1000));
  const dl = page.waitForEvent('download');
  await page.click('#matrix-csv');
  const csv = readFileSync(await (await dl).path(), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'observer,observer_dc,peer,peer_dc,state,text');
  assert.equal(csv.length, count + 1);
  const inCsv = new Set(csv.slice(1).map((l) => { const f = l.split(','); return `${f[0]}>${f[2]}`; }));
  for (const p of down) assert.ok(inCsv.has(p), `${p} in the CSV`);
  assert.ok(csv.slice(1).every((l) => /,"?DOWN/.test(l)), csv[1]);

  // Search the log (every computed line), click a line: the cursor moves to it.
  await page.locator('.log-card input[type="checkbox"]').first().check();
  await page.fill('#log-search', 'is now down');
  await page.waitForFunction(() => /matching/.test(document.querySelector('#log-count').textContent));
  const lines = await page.$$eval('#log .ll', (ls) => ls.map((l) => [l.innerText, l.dataset.timeUs]));
  assert.ok(lines.length > 0, 'the search finds DOWN transitions');
  assert.ok(lines.every(([t]) => /is now DOWN/i.test(t)), lines[0][0]);
  const [, at] = lines[0];
  await page.locator('#log .ll').first().click();
  await settled(page, 120_000);
  assert.equal((await app(page)).timeUs, at);
  await screenshot('log-search', { fullPage: false });

  // Export the trace up to the end: progress shows and the page keeps painting.
  await page.click('#to-end');
  await settled(page, 240_000);
  await page.evaluate(() => {
    window.__gaps = [];
    let last = performance.now();
    const f = (ts) => { window.__gaps.push(ts - last); last = ts; if (!window.__stop) requestAnimationFrame(f); };
    requestAnimationFrame(f);
  });
  await page.click('summary:has-text("Export")');
  const tdl = page.waitForEvent('download', { timeout: 120_000 });
  const t0 = Date.now();
  await page.click('#export-trace');
  await page.waitForSelector('#export-progress', { timeout: 5_000 });
  const file = await (await tdl).path();
  const ms = Date.now() - t0;
  const gaps = await page.evaluate(() => { window.__stop = true; return window.__gaps; });
  const worst = Math.max(...gaps);
  const bytes = statSync(file).size;
  log(`trace export: ${(bytes / 1e6).toFixed(0)} MB in ${ms} ms, longest frame gap ${worst.toFixed(0)} ms`);
  assert.ok(bytes > 100e6, `the 251-node trace is large: ${bytes}`);
  assert.ok(worst < 1500, `the tab kept painting (longest frame gap ${worst.toFixed(0)} ms)`);
  await page.waitForSelector('#export-progress', { state: 'detached' });
}
