// The lecture hall's top bar (issue 41's layout, kept): at 1366x768 and at a 1280-px projector,
// every built-in scenario's controls stay on one row (a second row takes ~36 px from the
// topology), and a scenario with more variants than a row of buttons holds (HDDS-17673's sweep:
// eight) offers them as one select that switches the run like the buttons do. And a model with no
// matrix card (Ozone) leaves no empty place where the matrix would be: the sequence diagram
// starts at the left edge, under the topology.
import assert from 'node:assert/strict';
import { app, open, pickVariant, settled, topbarSpread } from './lib/app.mjs';

export const timeoutMs = 120_000;

export async function run({ page, baseUrl, screenshot, log }) {
  await page.setViewportSize({ width: 1366, height: 768 });
  await open(page, baseUrl);
  const names = await page.$$eval('#scenario-select option', (o) => o.map((x) => x.value).filter((v) => v));
  assert.ok(names.length >= 20, `built-in scenarios: ${names.length}`);
  for (const width of [1366, 1280]) {
    await page.setViewportSize({ width, height: 768 });
    const wrapped = [];
    for (const name of names) {
      await page.selectOption('#scenario-select', name);
      await page.waitForFunction((n) => document.querySelector('#app').dataset.scenario === n, name);
      const r = await topbarSpread(page);
      if (r.spread >= 8) wrapped.push(`${name} (${Math.round(r.height)} px)`);
    }
    log(`${width} px: ${names.length} scenarios, ${wrapped.length} with a wrapped top bar`);
    assert.deepEqual(wrapped, [], `the top bar wraps at ${width} px for: ${wrapped.join(', ')}`);
  }

  // Many variants: one select, and it switches the run.
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.selectOption('#scenario-select', 'hdds-17673-sweep');
  await settled(page);
  const options = await page.$$eval('#variant-select option', (o) => o.map((x) => x.value));
  assert.ok(options.length > 6, `variants as a select: ${options}`);
  assert.equal(await page.$('#variants button[data-variant]'), null, 'no row of buttons beside the select');
  const open0 = (await app(page)).variant;
  assert.equal(await page.inputValue('#variant-select'), open0, 'the select shows the open variant');
  const other = options.find((v) => v !== open0);
  await pickVariant(page, other);
  assert.equal(await page.inputValue('#variant-select'), other);
  await screenshot('topbar-many-variants');
  // Few variants stay buttons.
  await page.selectOption('#scenario-select', 'cassandra-21181-overcount');
  await settled(page);
  assert.equal(await page.$('#variant-select'), null);
  assert.ok((await page.$$('#variants button[data-variant]')).length >= 5);

  // No matrix card: the sequence diagram under the topology, from the same left edge.
  for (const [name, matrix] of [['ozone-write-pipeline', false], ['raft-figure-8', true]]) {
    await page.selectOption('#scenario-select', name);
    await settled(page);
    const r = await page.evaluate(() => {
      const x = (sel) => document.querySelector(sel)?.getBoundingClientRect();
      return { topo: x('.topo-card'), seq: x('.seq-card'), matrix: x('.matrix-card') };
    });
    assert.equal(Boolean(r.matrix), matrix, `${name}: a matrix card ${matrix ? 'expected' : 'not expected'}`);
    const left = matrix ? r.matrix.left : r.topo.left;
    assert.ok(Math.abs(r.seq.left - (matrix ? r.matrix.right + 12 : left)) <= 2,
      `${name}: the sequence card starts at ${r.seq.left} px (topology at ${r.topo.left}, matrix ${matrix ? r.matrix.right : 'none'})`);
    log(`${name}: sequence card from x=${Math.round(r.seq.left)}, ${Math.round(r.seq.width)} px wide`);
  }
}
