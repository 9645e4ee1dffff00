// CASSANDRA-21636, packet-loss scenario: play to the end and read A's view of B from the inspector
// and the liveness matrix: DOWN forever in `buggy`, UP again in `fixed` and `legacy`.
import assert from 'node:assert/strict';
import { app, downPairs, liveness, openScenario, pickVariant, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 120_000;

export async function run({ page, baseUrl, screenshot, log }) {
  await openScenario(page, baseUrl, 'cassandra-21636-packet-loss', 'buggy');

  await page.click('#to-end');
  await settled(page);
  const a = await app(page);
  assert.equal(a.timeUs, String(12 * 60 * 1_000_000), 'at the end (12 min)');
  log(`buggy: end reached at step ${a.step}`);

  // Matrix: A and B see each other DOWN; C sees everyone UP.
  const down = await downPairs(page);
  assert.ok(down.includes('A>B') && down.includes('B>A'), `down pairs: ${down}`);
  assert.ok(!down.some((p) => p.startsWith('C>')), `C sees everyone UP: ${down}`);
  assert.match(await page.textContent('#matrix-summary'), /A sees B DOWN/);

  // Inspector (A is selected): B DOWN, its heartbeat kept advancing, and the echo entry is stuck.
  assert.equal(await page.getAttribute('#inspector', 'data-node'), 'A');
  assert.equal(await liveness(page, 'B'), 'DOWN');
  const hb = Number(await page.getAttribute('#endpoint-states tr[data-peer="B"]', 'data-heartbeat'));
  assert.ok(hb > 600, `B's heartbeat in A's map advanced to ${hb}`);
  assert.equal(await page.getAttribute('#inflight tr[data-peer="B"]', 'data-stuck'), 'true');
  assert.match(await page.textContent('#log'), /Skipping ECHO_REQ to \/B since it is already inflight/);
  assert.match(await page.textContent('#caption'), /never heals/i);

  // A message in the sequence diagram opens its body.
  await page.click('#sequence g.sq-msg[data-label="SYN"] >> nth=-1');
  assert.match(await page.textContent('#msg-body pre'), /GossipDigestSyn\n[A-C]:\d+:\d+/);

  await screenshot('buggy-end');
  await shotOf(page, '.topo-card', 'view-topology');
  await shotOf(page, '.insp-card', 'view-inspector');
  await shotOf(page, '.matrix-card', 'view-matrix');
  await shotOf(page, '.seq-card', 'view-sequence');
  await shotOf(page, '.plots-card', 'view-plots');
  await shotOf(page, '.log-card', 'view-log');
  await shotOf(page, '.transport', 'view-transport');

  // The fixed variant at the same time: everyone UP, nothing stuck.
  await pickVariant(page, 'fixed');
  assert.equal((await app(page)).timeUs, a.timeUs, 'switching variant keeps the cursor time');
  assert.deepEqual(await downPairs(page), []);
  assert.equal(await page.getAttribute('#matrix', 'data-down-count'), '0');
  assert.equal(await liveness(page, 'B'), 'UP');
  assert.ok(await page.$('#inflight-empty'), 'no inflightEcho entry left');
  await screenshot('fixed-end');

  await pickVariant(page, 'legacy');
  assert.equal(await liveness(page, 'B'), 'UP');
  assert.deepEqual(await downPairs(page), []);

  // And back: buggy again shows the wedge at the same time.
  await pickVariant(page, 'buggy');
  assert.equal(await liveness(page, 'B'), 'DOWN');
}
