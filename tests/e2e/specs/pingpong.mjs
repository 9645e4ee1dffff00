// The toy `pingpong` model proves the seam of 'One app, many protocols': it has no web code of its
// own, yet it opens from the picker, steps, shows its balls on the topology legend, its node's
// threads in the (generic) inspector, and a stalled worker's queue as the scenario describes.
import assert from 'node:assert/strict';
import { app, clickNode, open, settled, shotOf } from './lib/app.mjs';

export async function run({ page, baseUrl, screenshot }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'pingpong');
  await settled(page);
  let a = await app(page);
  assert.equal(a.scenario, 'pingpong');
  assert.equal(a.variant, 'ring');
  // No matrix: pingpong declares no N x N relation, and the card is left out.
  assert.equal(await page.$('#matrix'), null);
  assert.match(await page.textContent('.topo-card'), /BALL/);

  // Step event by event: the step count and the clock move.
  const before = Number(a.step);
  for (let i = 0; i < 5; i++) await page.click('#step');
  await settled(page);
  a = await app(page);
  assert.equal(Number(a.step), before + 5, 'five single steps');

  // The generic inspector: the node's threads and its state from the model's views.
  await clickNode(page, 'n3');
  await page.waitForSelector('#inspector[data-node="n3"]');
  assert.ok(await page.$('#threads tr[data-exec="worker"]'), 'the worker thread is listed');
  assert.match(await page.textContent('#node-views'), /received/);

  // Next caption: 6 s (n3's worker stalled since 5 s: balls queue), then 10.011 s (released at
  // 10 s, the backlog worked off at 2 ms a ball). Each caption says what is on screen then.
  const worker = async () =>
    Number(await page.textContent('#threads tr[data-exec="worker"] td:nth-child(3)'));
  await page.click('#next-caption');
  await settled(page);
  assert.equal((await app(page)).timeUs, '6000000', 'the second caption is at 6 s');
  const queued = await worker();
  assert.ok(queued >= 1, `n3's worker has balls queued at 6 s (${queued})`);
  await shotOf(page, '.insp-card', 'pingpong-inspector');
  await page.click('#next-caption');
  await settled(page);
  assert.equal((await app(page)).timeUs, '10011000', 'the third caption is at 10.011 s');
  assert.equal(await worker(), 0, "n3's backlog is worked off when the caption says so");
  // The header says the caption's checks held in this run (once the background check is in).
  await page.waitForSelector('#caption[data-truth="held"]', { timeout: 60_000 });
  await screenshot('pingpong');
}
