// The teaching scenario (one gossip round from the study notes): the sequence diagram shows SYN,
// ACK and ACK2 between 10.0.0.1 and 10.0.0.2, each message's body can be read, and the endpoint
// state maps end in sync (10.0.0.1 learned 10.0.0.2's heartbeat 63).
import assert from 'node:assert/strict';
import { app, clickNode, open, settled, shotOf } from './lib/app.mjs';

export async function run({ page, baseUrl, screenshot }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'gossip-digest-exchange');
  await settled(page);
  await page.click('#to-end');
  await settled(page);
  assert.equal((await app(page)).timeUs, '5000000');

  const labels = await page.$$eval('#sequence g.sq-msg', (gs) => gs.map((g) => g.dataset.label));
  // The round, then the echoes 10.0.0.2 sends for the endpoints that are new to it.
  assert.deepEqual(labels.slice(0, 3), ['SYN', 'ACK', 'ACK2']);
  assert.ok(labels.slice(3).every((l) => l.startsWith('ECHO_')), labels.join(','));

  const body = async (label) => {
    await page.click(`#sequence g.sq-msg[data-label="${label}"]`);
    await page.waitForSelector('#msg-body pre');
    return page.textContent('#msg-body pre');
  };
  assert.match(await body('SYN'), /^GossipDigestSyn\n10\.0\.0\.1:\d+:\d+/);
  assert.match(await body('ACK'), /^GossipDigestAck\n/);
  const ack2 = await body('ACK2');
  assert.match(ack2, /^GossipDigestAck2\n/);
  await shotOf(page, '.seq-card', 'teaching-sequence');

  // 10.0.0.2 notes two new generations in one microsecond (the ACK2's 10.0.0.3 and 10.0.0.4):
  // each on its own row, between the ACK2's arrival and the ECHO_REQs it sends (they were
  // written on one spot, the second hiding the first, with the echoes drawn across them).
  const ev = await page.$$eval('#sequence g.sq-ev', (gs) =>
    gs.map((g) => ({ text: g.textContent, y: Number(g.querySelector('circle').getAttribute('cy')) })),
  );
  const gens = ev.filter((e) => e.text.startsWith('generation '));
  assert.deepEqual(gens.map((e) => e.text).sort(), ['generation 10.0.0.3', 'generation 10.0.0.4']);
  assert.equal(new Set(ev.map((e) => e.y)).size, ev.length, `events on distinct rows: ${JSON.stringify(ev)}`);
  const ys = await page.$$eval('#sequence g.sq-msg', (gs) =>
    gs.map((g) => {
      const l = g.querySelector('line:not(.sq-hit)');
      return { label: g.dataset.label, y1: Number(l.getAttribute('y1')), y2: Number(l.getAttribute('y2')) };
    }),
  );
  const ack2y = ys.find((a) => a.label === 'ACK2').y2;
  const echoY = Math.min(...ys.filter((a) => a.label === 'ECHO_REQ').map((a) => a.y1));
  for (const g of gens) assert.ok(ack2y < g.y && g.y < echoY, `${g.text} at ${g.y}: after the ACK2 (${ack2y}), before the echoes (${echoY})`);

  await clickNode(page, '10.0.0.1');
  await page.waitForSelector('#inspector[data-node="10.0.0.1"]');
  assert.equal(
    await page.getAttribute('#endpoint-states tr[data-peer="10.0.0.2"]', 'data-heartbeat'),
    '63',
  );
  await screenshot('end');
}
