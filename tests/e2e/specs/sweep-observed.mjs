// Issue 41, the student's lab: in sandbox-gossip with C stopped, "A sees C UP" holds in 0 of 30
// seeds, and the panel says what A saw instead without opening a seed: the expectation's row
// names the values observed where it failed with their seed counts ("saw DOWN in 30 seeds"), and
// each failing seed's title names what each failed expectation saw in it. The metrics' histograms
// of one row of the panel end on one line, however long their captions are.
import assert from 'node:assert/strict';
import { app, clickNode, clickTimeline, open, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 240_000;

export async function run({ page, baseUrl, log }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'sandbox-gossip');
  await settled(page);
  // Stop C at about 12 s (after the 10 s the expectation starts at).
  await clickTimeline(page, 0.1);
  await clickNode(page, 'C');
  await page.waitForSelector('#node-panel[data-node="C"]');
  await page.click('#act-stop');
  await settled(page);
  assert.equal((await app(page)).userActions, '1');

  await page.click('#sweep-open');
  await page.waitForSelector('#sweep-panel[data-state="idle"]');
  await page.check('#sweep-with-actions');
  await page.fill('#sweep-seeds', '30');
  await page.click('#sweep-start');
  await page.waitForSelector('#sweep-panel[data-state="done"]', { timeout: 200_000 });

  const rows = await page.$$eval('.sweep-exp', (els) =>
    els.map((e) => ({ ...e.dataset, saw: (e.querySelector('.sweep-exp-saw') || { textContent: '' }).textContent })),
  );
  const up = rows.find((r) => r.name.startsWith('A sees C UP'));
  assert.ok(up, rows.map((r) => r.name).join('; '));
  assert.deepEqual([up.count, up.runs], ['0', '30'], 'C stopped: A never sees it UP to the end');
  assert.equal(up.observed, 'DOWN:30', `what A saw: ${up.observed}`);
  assert.match(up.saw, /saw DOWN in 30 seeds/, up.saw);
  // What held has no values.
  for (const r of rows.filter((r) => r.count === r.runs)) assert.equal(r.observed, '', `${r.name}: ${r.observed}`);
  log(`A sees C UP: ${up.saw.trim()}`);

  // Each failing seed's title says what it saw.
  const seeds = await page.$$eval('.sweep-seed', (els) => els.map((e) => ({ seed: e.dataset.seed, observed: e.dataset.observed, title: e.title })));
  assert.equal(seeds.length, 30);
  for (const s of seeds) {
    assert.match(s.observed, /A sees C UP[^|]*=DOWN/, `seed ${s.seed}: ${s.observed}`);
    assert.match(s.title, /\(saw DOWN\)/, `seed ${s.seed}: ${s.title}`);
  }

  // The histograms of a row end on one line (captions of different heights above them).
  const figs = await page.$$eval('.sweep-metric', (els) =>
    els.map((f) => {
      const cap = f.querySelector('figcaption').getBoundingClientRect();
      const c = f.querySelector('canvas').getBoundingClientRect();
      return { top: f.getBoundingClientRect().top, capH: cap.height, canvasTop: c.top, canvasBottom: c.bottom };
    }),
  );
  const byRow = new Map();
  for (const f of figs) {
    const k = Math.round(f.top);
    byRow.set(k, [...(byRow.get(k) || []), f]);
  }
  let compared = 0;
  let unequal = 0;
  for (const [top, fs] of byRow) {
    const bottoms = fs.map((f) => f.canvasBottom);
    assert.ok(Math.max(...bottoms) - Math.min(...bottoms) <= 1, `row at ${top}: histogram bottoms ${bottoms}`);
    const caps = fs.map((f) => f.capH);
    if (Math.max(...caps) - Math.min(...caps) > 1) unequal += 1;
    compared += fs.length > 1 ? 1 : 0;
  }
  assert.ok(compared > 0, 'some row with two histograms or more');
  log(`${figs.length} histograms in ${byRow.size} rows; rows whose captions differ in height: ${unequal}`);
  await shotOf(page, '#sweep-panel', 'sweep-observed');
}
