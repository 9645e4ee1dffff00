// "How often?" (issue 19): sweeps in Web Workers. A 20-seed sweep of cassandra-21636-packet-loss
// (buggy) must show the counts the native CLI prints (tests/golden/sweep_app.json, blessed by
// tests/tests/sweep_app.rs: `clusterscope sweep cassandra-21636-packet-loss --variant buggy
// --seeds 20 --format json`); the progress bar moves; a second sweep is cancelled part-way and
// keeps its partial results; a failing seed opens in the replay with one click; a recorded action
// is swept as a timed fault when asked.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { app, clickNode, open, pickVariant, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 300_000;

const GOLDEN = JSON.parse(readFileSync(new URL('../../golden/sweep_app.json', import.meta.url), 'utf8'));

async function panel(page) {
  return page.evaluate(() => ({ ...document.querySelector('#sweep-panel').dataset }));
}

export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'cassandra-21636-packet-loss');
  await settled(page);
  await pickVariant(page, 'buggy');

  // The panel says what is swept.
  await page.click('#sweep-open');
  await page.waitForSelector('#sweep-panel[data-state="idle"]');
  const scope = await page.textContent('#sweep-scope');
  assert.match(scope, /cassandra-21636-packet-loss/);
  assert.match(scope, /variant buggy/);
  assert.equal(await page.inputValue('#sweep-seeds'), '100', 'default: 100 seeds');

  // 20 seeds: the bar moves (sampled while running), then the counts equal the native CLI's.
  await page.fill('#sweep-seeds', '20');
  await page.click('#sweep-start');
  const seen = new Set();
  const animated = new Set();
  const t0 = Date.now();
  for (;;) {
    const p = await panel(page);
    seen.add(p.done);
    // Nothing on the page animates meanwhile: a CSS transition per progress update kept the page
    // painting every frame of a sweep, on the cores the workers need (docs/PERFORMANCE.md).
    for (const a of await page.evaluate(() =>
      document.getAnimations().map((a) => `${a.constructor.name} on ${a.effect && a.effect.target ? a.effect.target.className : '?'}`),
    )) {
      animated.add(a);
    }
    if (p.state !== 'running') break;
    assert.ok(Date.now() - t0 < 240_000, 'the sweep finishes');
    await page.waitForTimeout(50);
  }
  let p = await panel(page);
  assert.equal(p.state, 'done');
  assert.equal(p.done, '20');
  assert.ok(Number(p.workers) >= 1 && Number(p.workers) <= 8, `workers ${p.workers}`);
  assert.deepEqual([...animated], [], 'no animation runs on the page during a sweep');
  const moved = [...seen].map(Number).filter((d) => d > 0 && d < 20);
  assert.ok(moved.length > 0, `progress seen between 0 and 20: ${[...seen]}`);
  log(`20 seeds done in ${((Date.now() - t0) / 1000).toFixed(1)} s with ${p.workers} workers; progress seen at ${[...seen].join(',')}`);
  // The page stayed responsive: the app is still interactive (not checked by timing).
  const want = GOLDEN.cells[0];
  const all = await page.evaluate(() => ({ ...document.querySelector('#sweep-all').dataset }));
  assert.deepEqual([all.count, all.runs], [String(want.all_passed.count), String(want.all_passed.runs)]);
  const rows = await page.$$eval('.sweep-exp', (els) => els.map((e) => ({ ...e.dataset })));
  assert.equal(rows.length, want.expectations.length);
  for (const [i, e] of want.expectations.entries()) {
    assert.equal(rows[i].name, e.name);
    assert.equal(rows[i].count, String(e.count), e.name);
    assert.equal(rows[i].runs, String(e.runs), e.name);
  }
  // A histogram per metric, its bins counting every seed.
  const hists = await page.$$eval('.sweep-hist', (els) => els.map((e) => ({ ...e.dataset })));
  assert.deepEqual(hists.map((h) => h.metric).sort(), Object.keys(want.metrics).sort());
  const running0 = hists.find((h) => h.metric === 'running_nodes');
  assert.deepEqual([running0.min, running0.max], [String(want.metrics.running_nodes.min), String(want.metrics.running_nodes.max)]);
  for (const h of hists) {
    const n = h.bins.split(' ').map(Number).reduce((a, b) => a + b, 0);
    assert.equal(n, 20, `${h.metric}: ${h.bins}`);
  }
  await screenshot('done');
  await shotOf(page, '#sweep-panel', 'sweep-panel');

  // Recorded actions: left out by default (the panel says so), or swept as timed faults. Stop C
  // at 5 s: with the action as a fault, two nodes run at the end in every seed (three without).
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.keyboard.press('c'); // the first caption, 5 s
  await settled(page);
  await clickNode(page, 'C');
  await page.click('#act-stop');
  await settled(page);
  assert.equal((await app(page)).userActions, '1');
  assert.equal(await page.getAttribute('#sweep-scope', 'data-actions'), '1');
  assert.match(await page.textContent('#sweep-scope'), /not included/);
  await page.check('#sweep-with-actions');
  assert.match(await page.textContent('#sweep-scope'), /as faults at their virtual times/);
  await page.fill('#sweep-seeds', '5');
  await page.click('#sweep-start');
  await page.waitForSelector('#sweep-panel[data-state="done"]', { timeout: 120_000 });
  const running = await page.$eval('.sweep-hist[data-metric="running_nodes"]', (e) => ({ ...e.dataset }));
  assert.deepEqual([running.min, running.max, running.bins], ['2', '2', '5'], 'C stopped at 5 s in every seed');
  await page.uncheck('#sweep-with-actions');

  // A variant of the scenario where every seed fails (buggy with the fixed echo: the bug's
  // expectations fail), imported as a file; a 100-seed sweep cancelled part-way.
  const text = readFileSync(new URL('../../../scenarios/cassandra-21636-packet-loss.toml', import.meta.url), 'utf8')
    .replace('params = { echo = "buggy" }', 'params = { echo = "fixed" }');
  await page.setInputFiles('#import', {
    name: 'fixed-as-buggy.toml',
    mimeType: 'text/plain',
    buffer: Buffer.from(text),
  });
  await settled(page);
  await pickVariant(page, 'buggy');
  await page.fill('#sweep-seeds', '100');
  await page.click('#sweep-start');
  await page.waitForFunction(() => {
    const d = document.querySelector('#sweep-panel').dataset;
    return d.state === 'running' && Number(d.done) >= 3;
  }, null, { timeout: 120_000 });
  await page.click('#sweep-cancel');
  p = await panel(page);
  assert.equal(p.state, 'cancelled');
  const done = Number(p.done);
  assert.ok(done >= 3 && done < 100, `cancelled part-way at ${done}`);
  await page.waitForTimeout(500);
  assert.equal((await panel(page)).done, p.done, 'nothing arrives after a cancel');
  const part = await page.evaluate(() => ({ ...document.querySelector('#sweep-all').dataset }));
  assert.deepEqual([part.count, part.runs], ['0', String(done)], 'partial results: every seed failed');
  const seeds = await page.$$eval('.sweep-seed', (els) => els.map((e) => e.dataset.seed));
  assert.equal(seeds.length, done, 'each failing seed listed');
  await screenshot('cancelled');

  // One click opens a failing seed in the replay (the imported scenario, variant buggy).
  const pick = seeds[seeds.length - 1];
  await page.click(`.sweep-seed[data-seed="${pick}"]`);
  await settled(page);
  assert.equal(await page.inputValue('#seed'), pick);
  const a = await app(page);
  assert.equal(a.variant, 'buggy');
  assert.match(await page.textContent('#scenario-select'), /\(imported\)/);
  log(`opened failing seed ${pick} after a cancel at ${done} of 100`);
}
