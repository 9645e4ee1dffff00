// Ozone on Raft, hdds-17673-close-race. Buggy: step by captions to the release of the held W1
// (3 s), then event by event until W1's data stage ran: index 4, after the CloseContainer at 3,
// zero bytes on dn1 and dn3. Then to the end: dn2 came back, the leader's read of index 4 failed,
// dn1 is unhealthy, SCM closed the pipeline and container 2. Fixed: W1 is rejected, the pipeline
// stays OPEN and dn2 catches up.
import assert from 'node:assert/strict';
import { app, clickNode, open, pickVariant, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 180_000;

/** Next caption until the clock is at or past `us`. */
async function captionsUntil(page, us) {
  for (let i = 0; i < 30 && Number((await app(page)).timeUs) < us; i++) {
    await page.click('#next-caption');
    await settled(page);
  }
  assert.ok(Number((await app(page)).timeUs) >= us, `reached ${us} us`);
}

/** Step one event at a time until `fn` holds in the page (at most 400 events). */
async function stepUntil(page, fn) {
  for (let i = 0; i < 400; i++) {
    if (await page.evaluate(fn)) return;
    await page.click('#step');
    await settled(page);
  }
  assert.fail('the condition never held within 400 events');
}

async function cell(page, node, index) {
  return page.$eval(`#oz-data tr[data-node="${node}"] td[data-index="${index}"]`, (e) => ({ ...e.dataset }));
}

async function container(page, node, c) {
  return page.textContent(`#oz-containers td[data-node="${node}"][data-container="${c}"]`);
}

export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'hdds-17673-close-race');
  await settled(page);
  await pickVariant(page, 'buggy');
  await clickNode(page, 'dn1');
  await page.waitForSelector('#inspector[data-node="dn1"] #oz-data');
  await page.waitForSelector('#inspector #raft-strips');

  // 2.1 s: W1 passed startTransaction and is held before appendTransaction.
  await captionsUntil(page, 2_100_000);
  await stepUntil(page, () => document.querySelector('#oz-held')?.dataset.count === '1');
  assert.match(await page.textContent('#oz-held'), /W1/, 'W1 is held at the hold point');
  assert.equal(await page.getAttribute('#oz-pipeline', 'data-state'), 'OPEN');
  assert.equal(await page.getAttribute('#oz-pipeline', 'data-closed-by'), 'none');

  // 3.9 s (after the release at 3 s): the CloseContainer at index 3, W1 at index 4 with zero bytes.
  await captionsUntil(page, 3_000_000);
  await stepUntil(page, () => {
    const st = (n) => document.querySelector(`#oz-data tr[data-node="${n}"] td[data-index="4"]`)?.dataset.status ?? '';
    return st('dn1').includes('zero bytes') && st('dn3').includes('zero bytes');
  });
  log(`W1 written with zero bytes on dn1 and dn3 at ${(await app(page)).timeUs} us`);
  const cc = await cell(page, 'dn1', 3);
  assert.equal(cc.kind, 'CloseContainer');
  assert.equal(cc.container, '1');
  const w1 = await cell(page, 'dn1', 4);
  assert.equal(w1.kind, 'WriteChunk');
  assert.equal(w1.container, '1');
  assert.match(w1.status, /zero bytes/, `the leader wrote none of W1: ${w1.status}`);
  assert.equal((await cell(page, 'dn3', 4)).status, 'zero bytes', 'nor did dn3');
  assert.equal(await container(page, 'dn1', '1'), 'CLOSED');
  assert.equal(await page.getAttribute('#oz-health .oz-h[data-node="dn1"]', 'data-healthy'), 'true');
  await shotOf(page, '#oz-data', 'ozone-buggy-zero-bytes');

  // The end: the leader's read of index 4 failed, dn1 is unhealthy, SCM closed the pipeline.
  await page.click('#to-end');
  await settled(page);
  assert.equal((await cell(page, 'dn1', 4)).status, 'read failed', 'the appender read W1 back and failed');
  assert.equal((await cell(page, 'dn1', 2)).status, 'read from disk', 'W0 was read back from the disk');
  assert.equal(await page.getAttribute('#oz-health .oz-h[data-node="dn1"]', 'data-healthy'), 'false');
  assert.equal(await page.getAttribute('#oz-pipeline', 'data-state'), 'CLOSED');
  // Why: the leader's failed readStateMachineData (pipeline_closed_by, pipeline_close_cause).
  assert.equal(await page.getAttribute('#oz-pipeline', 'data-closed-by'), 'read failed');
  assert.equal(await page.getAttribute('#oz-health .oz-h[data-node="dn1"]', 'data-close-cause'), 'read failed');
  assert.equal(await container(page, 'scm', '2'), 'CLOSED', 'SCM closed the other container');
  const dn2 = await page.$eval('#raft-strips .rs-strip[data-node="dn2"]', (e) => ({ ...e.dataset }));
  assert.ok(Number(dn2.last) <= 3, `dn2 never gets index 4 (last ${dn2.last})`);
  log(`buggy end: dn2 last ${dn2.last}, applied ${dn2.applied}`);
  // Where the leader's appender took the data for dn2: W0 from disk, W1's read failed.
  const sentDn2 = await page.$eval('.oz-sent[data-follower="dn2"]', (e) => ({ ...e.dataset }));
  assert.ok(Number(sentDn2.failed) >= 1, `a failed read for dn2: ${sentDn2.sent}`);
  assert.match(sentDn2.sent, /\b2:disk\b/, `W0 for dn2 from disk: ${sentDn2.sent}`);
  await screenshot('buggy-end');

  // Fixed: W1 rejected (no index 4 from it), the pipeline stays OPEN, dn2 catches up.
  await pickVariant(page, 'fixed');
  await clickNode(page, 'dn1');
  await page.waitForSelector('#inspector[data-node="dn1"] #oz-data');
  await page.click('#to-end');
  await settled(page);
  assert.equal(await page.getAttribute('#oz-pipeline', 'data-state'), 'OPEN');
  assert.equal(await page.getAttribute('#oz-pipeline', 'data-closed-by'), 'none');
  assert.equal(await page.getAttribute('#oz-health .oz-h[data-node="dn1"]', 'data-healthy'), 'true');
  assert.equal((await cell(page, 'dn1', 2)).status, 'read from disk');
  const fixedDn2 = await page.$eval('#raft-strips .rs-strip[data-node="dn2"]', (e) => ({ ...e.dataset }));
  assert.ok(Number(fixedDn2.applied) >= 4, `dn2 caught up (applied ${fixedDn2.applied})`);
  assert.equal(await page.getAttribute('#oz-quota', 'data-leaked'), '0');
  const sentFixed = await page.$$eval('.oz-sent', (es) => es.map((e) => Number(e.dataset.failed)));
  assert.ok(sentFixed.length >= 1 && sentFixed.every((n) => n === 0), `no failed read in fixed: ${sentFixed}`);
  await screenshot('fixed-end');
}
