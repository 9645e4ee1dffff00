// "How often?" over a parameter grid (issue 19): cassandra-21636-packet-loss (buggy) over 4 seeds
// for echo = buggy, fixed x phi_convict_threshold = 5, 8, 12, picked in the panel's rows. The
// heatmap's six cells must carry the counts the native sweep gives
// (tests/golden/sweep_app_grid.json, blessed by tests/tests/sweep_app.rs); the measure picker
// switches the cells to one expectation; a cell shows its own failing seeds, and one of them
// opens in the replay with the cell's parameters; the heatmap shows a metric's mean, p50, p95
// or max per cell instead, with a legend naming it, its unit and meaning (issue 41) (echo=fixed: A sees B UP at the end, where the
// scenario's own buggy echo leaves B DOWN); a one-parameter sweep of that opened scenario keeps
// the cell's other parameter. A value the model refuses is named before any run.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { app, downPairs, open, pickVariant, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 240_000;

const GOLDEN = JSON.parse(readFileSync(new URL('../../golden/sweep_app_grid.json', import.meta.url), 'utf8'));

async function cells(page) {
  return page.$$eval('.sweep-cell', (els) => els.map((e) => ({ ...e.dataset })));
}

async function setRow(page, i, key, values) {
  await page.fill(`#sweep-grid-key-${i}`, key);
  await page.press(`#sweep-grid-key-${i}`, 'Tab'); // change event
  if (values !== undefined) await page.fill(`#sweep-grid-values-${i}`, values);
}

export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'cassandra-21636-packet-loss');
  await settled(page);
  await pickVariant(page, 'buggy');
  await page.click('#sweep-open');
  await page.waitForSelector('#sweep-panel[data-state="idle"]');

  // Picking a parameter starts from its current value; a value the model refuses is named.
  await setRow(page, 0, 'echo');
  assert.equal(await page.inputValue('#sweep-grid-values-0'), 'buggy', 'the value the scenario has');
  await page.fill('#sweep-grid-values-0', 'buggy,bogus');
  await page.fill('#sweep-seeds', '4');
  await page.click('#sweep-start');
  // (The split build loads the scenario reader first: the grid's values are read as TOML.)
  await page.waitForSelector('#sweep-panel:not([data-state="loading"])');
  const note = await page.textContent('.sweep-note');
  assert.match(note, /Vary echo = bogus/, note);
  assert.equal(await page.getAttribute('#sweep-panel', 'data-state'), 'idle', 'nothing started');

  // The grid: 2 x 3 cells x 4 seeds.
  await page.fill('#sweep-grid-values-0', 'buggy, fixed');
  await setRow(page, 1, 'phi_convict_threshold', '5,8,12');
  await page.click('#sweep-start');
  await page.waitForSelector('#sweep-panel[data-state="done"]', { timeout: 180_000 });
  assert.equal(await page.getAttribute('#sweep-panel', 'data-total'), '24');
  assert.equal(await page.getAttribute('#sweep-grid', 'data-axes'), '2');
  let cs = await cells(page);
  assert.equal(cs.length, 6);
  for (const [i, want] of GOLDEN.cells.entries()) {
    const label = want.values.map(([k, v]) => `${k}=${v}`).join(' ');
    assert.equal(cs[i].label, label);
    assert.deepEqual([cs[i].count, cs[i].runs], [String(want.all_passed.count), String(want.all_passed.runs)], label);
  }
  log(`cells (all held): ${cs.map((c) => `${c.label}: ${c.count}/${c.runs}`).join('; ')}`);
  await screenshot('grid');
  await shotOf(page, '#sweep-panel', 'sweep-grid-panel');

  // One expectation instead of all: the cells show its counts.
  const k = GOLDEN.cells[0].expectations.findIndex((e) => e.name === 'C sees B UP at the end');
  assert.ok(k >= 0);
  await page.selectOption('#sweep-measure', String(k));
  cs = await cells(page);
  for (const [i, want] of GOLDEN.cells.entries()) {
    assert.equal(cs[i].count, String(want.expectations[k].count), `${cs[i].label}: ${want.expectations[k].name}`);
  }

  // A metric's heatmap (issue 41): echo_skipped per cell, its mean (the native summary's, to the
  // digit), its max, and p50 <= p95 <= max; the legend names the metric, its unit and what it
  // means (the model's catalogue), and the scale's ends are the lowest and highest cell.
  await page.selectOption('#sweep-measure', 'm:echo_skipped');
  await page.waitForSelector('#sweep-legend[data-metric="echo_skipped"]');
  const statOf = async (stat) => {
    if (stat) await page.selectOption('#sweep-stat', stat);
    await page.waitForSelector(`#sweep-legend[data-stat="${stat || 'mean'}"]`);
    return (await cells(page)).map((c) => Number(c.value));
  };
  const means = await statOf('');
  for (const [i, want] of GOLDEN.cells.entries()) {
    assert.equal(means[i], want.metrics.echo_skipped.mean, `${cs[i].label}: mean echo_skipped`);
  }
  const leg = await page.evaluate(() => ({ ...document.querySelector('#sweep-legend').dataset, text: document.querySelector('#sweep-legend').textContent }));
  assert.equal(leg.unit, 'count', `unit of echo_skipped: ${leg.unit}`);
  assert.match(leg.text, /echo_skipped/);
  assert.match(leg.text, /mean over the cell's seeds/);
  assert.ok(!/no description/.test(leg.text), `the metric's description: ${leg.text}`);
  assert.equal(Number(leg.lo), Math.min(...means));
  assert.equal(Number(leg.hi), Math.max(...means));
  // The colours follow the values: the highest cell is the darkest (light theme).
  const light = await page.$$eval('.sweep-cell', (els) => els.map((e) => Number(/hsl\(\d+, \d+%, (\d+)%\)/.exec(e.getAttribute('style'))[1])));
  const hiCell = means.indexOf(Math.max(...means));
  const loCell = means.indexOf(Math.min(...means));
  assert.ok(light[hiCell] < light[loCell], `lightness ${light}`);
  await shotOf(page, '#sweep-panel', 'sweep-grid-metric');
  const maxes = await statOf('max');
  const p50 = await statOf('p50');
  const p95 = await statOf('p95');
  for (const [i, want] of GOLDEN.cells.entries()) {
    assert.equal(maxes[i], want.metrics.echo_skipped.max, `${cs[i].label}: max`);
    assert.ok(p50[i] <= p95[i] && p95[i] <= maxes[i], `${cs[i].label}: p50 ${p50[i]} p95 ${p95[i]} max ${maxes[i]}`);
    // Four seeds: the nearest-rank p95 is the largest.
    assert.equal(p95[i], maxes[i], `${cs[i].label}: p95 of 4 seeds`);
  }
  log(`echo_skipped per cell: mean ${means.join(', ')}; p50 ${p50.join(', ')}; max ${maxes.join(', ')}`);
  // Back to a fraction: the legend says so.
  await page.selectOption('#sweep-measure', 'all');
  await page.waitForSelector('#sweep-legend[data-measure="all"]');

  // A cell's own results: echo=fixed, phi 8 fails in every seed (the buggy variant's expectations).
  const fixed8 = GOLDEN.cells.findIndex((c) => c.values[0][1] === 'fixed' && c.values[1][1] === '8');
  await page.click(`.sweep-cell[data-cell="${fixed8}"]`);
  assert.equal(await page.getAttribute('#sweep-cell-title', 'data-cell'), String(fixed8));
  assert.equal(await page.getAttribute(`.sweep-cell[data-cell="${fixed8}"]`, 'data-selected'), 'true');
  const all = await page.evaluate(() => ({ ...document.querySelector('#sweep-all').dataset }));
  assert.deepEqual([all.count, all.runs], ['0', '4']);
  const seeds = await page.$$eval('.sweep-seed', (els) => els.map((e) => e.dataset.seed));
  assert.deepEqual(seeds, GOLDEN.cells[fixed8].failed_seeds.map(String));

  // Open seed 3 of that cell: the replay runs with echo=fixed, so A sees B UP at the end.
  await page.click('.sweep-seed[data-seed="3"]');
  await settled(page);
  assert.equal(await page.inputValue('#seed'), '3');
  assert.equal((await app(page)).variant, 'buggy');
  assert.match(await page.textContent('#scenario-select'), /\(imported\)/);
  await page.click('#to-end');
  await settled(page);
  const down = await downPairs(page);
  assert.ok(!down.includes('A>B') && !down.includes('B>A'), `echo=fixed: A and B UP at the end, down: ${down}`);
  // Another seed of the sweep still opens from the cell's scenario.
  await page.click('.sweep-seed[data-seed="4"]');
  await settled(page);
  assert.equal(await page.inputValue('#seed'), '4');

  // One parameter over the opened cell's scenario (it carries phi_convict_threshold = 8): a
  // column of cells with their bars, the counts of the phi 8 cells above.
  await setRow(page, 1, '');
  await page.fill('#sweep-grid-values-0', 'buggy,fixed');
  await page.click('#sweep-start');
  await page.waitForSelector('#sweep-panel[data-state="done"]', { timeout: 120_000 });
  assert.equal(await page.getAttribute('#sweep-grid', 'data-axes'), '1');
  const one = await cells(page);
  const at8 = (echo) => GOLDEN.cells.find((c) => c.values[0][1] === echo && c.values[1][1] === '8').all_passed;
  assert.deepEqual(one.map((c) => [c.label, c.count, c.runs]), [
    ['echo=buggy', String(at8('buggy').count), '4'],
    ['echo=fixed', String(at8('fixed').count), '4'],
  ]);
  await shotOf(page, '#sweep-panel', 'sweep-grid-one');
  log(`cell ${cs[fixed8].label}: seeds ${seeds} failed; seed 3 opened, down pairs at the end: ${down.join(',') || 'none'}`);
}
