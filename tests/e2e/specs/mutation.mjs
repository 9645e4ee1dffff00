// CASSANDRA-21181 bug 1 (cassandra-21181-duplicate-notify): the read panel of node1's read r1.
// Buggy: after the pulled W2 arrives as a duplicate, remaining mutations stay at 1, W2's listener
// is orphaned, and the read times out. Fixed: the duplicate fires the listener and the read
// completes with every counter at 0.
import assert from 'node:assert/strict';
import { app, clickNode, open, pickVariant, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 120_000;

// node2 holds a summary-side reconciliation under the same read id: node1's is the data read.
const READ = '#mt-reads .mt-read[data-read="node1/r1"][data-node="node1"]';

async function read(page) {
  return page.$eval(READ, (e) => ({ ...e.dataset }));
}

/** Next caption until the clock is at or past `us`. */
async function captionsUntil(page, us) {
  for (let i = 0; i < 20 && Number((await app(page)).timeUs) < us; i++) {
    await page.click('#next-caption');
    await settled(page);
  }
  assert.ok(Number((await app(page)).timeUs) >= us, `reached ${us} us`);
}

export async function run({ page, baseUrl, screenshot }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'cassandra-21181-duplicate-notify');
  await settled(page);
  await pickVariant(page, 'buggy');
  await clickNode(page, 'node1');
  await page.waitForSelector('#inspector[data-node="node1"] #mt-reads');

  // 3 s (the orphaned listener expires): r1 is still pending with one mutation outstanding.
  await captionsUntil(page, 3_000_000);
  let r = await read(page);
  assert.equal(r.outcome, 'pending');
  assert.equal(r.mutations, '1', 'remaining mutations stuck at 1');
  assert.equal(r.summaries, '0');
  assert.equal(r.syncAcks, '0');
  // The pulled W2 was a duplicate and fired nothing.
  assert.ok(
    await page.$('#mt-deliveries tr[data-id="node3:0"][data-new="false"][data-fired="0"]'),
    'a duplicate delivery of node3:0 that fired no listener',
  );
  await shotOf(page, READ, 'mutation-buggy-stuck');

  // The end: the read timed out, the counter still at 1.
  await page.click('#to-end');
  await settled(page);
  r = await read(page);
  assert.equal(r.outcome, 'timeout', 'the read times out');
  assert.equal(r.mutations, '1');
  assert.equal(await page.getAttribute('#mt-node', 'data-listeners-expired'), '1');
  await screenshot('buggy-end');

  // Fixed: the read completes, every counter at 0.
  await pickVariant(page, 'fixed');
  await clickNode(page, 'node1');
  await page.waitForSelector('#inspector[data-node="node1"] #mt-reads');
  await page.click('#to-end');
  await settled(page);
  r = await read(page);
  assert.equal(r.outcome, 'completed');
  assert.deepEqual([r.mutations, r.summaries, r.syncAcks], ['0', '0', '0']);
  assert.equal(r.missing ?? null, null, 'no missing mutation');
  assert.equal(await page.$$eval('#mt-listeners tr[data-orphaned="true"]', (x) => x.length), 0);
  assert.ok(
    await page.$('#mt-deliveries tr[data-id="node3:0"][data-new="false"]:not([data-fired="0"])'),
    'the duplicate of node3:0 fired the listener',
  );
  await shotOf(page, '.insp-card', 'mutation-fixed');
  await screenshot('fixed-end');
}
