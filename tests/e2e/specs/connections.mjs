// CASSANDRA-15138 (buggy): after node2's graceful stop races a write, node1's `small` connection
// to node2 is established on node1's side but gone on node2's (half-open). The inspector's
// Connections section shows it; scenarios without the connection model say it is not modelled.
import assert from 'node:assert/strict';
import { app, clickNode, clickTimeline, open, pickVariant, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 120_000;

/** Click the timeline at virtual time `us`. */
async function scrubTo(page, us) {
  const end = Number(await page.getAttribute('#timeline', 'aria-valuemax'));
  await clickTimeline(page, us / end);
}

export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'cassandra-21636-packet-loss');
  await settled(page);
  assert.equal(await page.getAttribute('#connections', 'data-modelled'), 'false');
  assert.match(await page.textContent('#connections'), /not modelled/);

  await page.selectOption('#scenario-select', 'cassandra-15138-shutdown-race');
  await settled(page);
  await pickVariant(page, 'buggy');
  // ~1.5 min: node2 restarted at 40 s; node1 still believes its `small` connection is established.
  await scrubTo(page, 90_000_000);
  const a = await app(page);
  log(`at ${a.timeUs} us, step ${a.step}`);
  assert.ok(Number(a.timeUs) >= 60_000_000, `cursor at ${a.timeUs}`);
  await clickNode(page, 'node1');
  await page.waitForSelector('#inspector[data-node="node1"]');
  await page.waitForSelector('#connections[data-modelled="true"]');
  const row = '#conn-table tr[data-peer="node2"][data-channel="small"]';
  assert.equal(await page.getAttribute(row, 'data-half-open'), 'true');
  assert.equal(await page.getAttribute(row, 'data-this-side'), 'established');
  assert.notEqual(await page.getAttribute(row, 'data-other-side'), 'open');
  assert.ok(Number(await page.getAttribute(row, 'data-swallowed')) > 0, 'writes were swallowed');
  // The gossip connection to node2 works (that is how node1 came to see node2 UP).
  assert.equal(
    await page.getAttribute('#conn-table tr[data-peer="node2"][data-channel="gossip"]', 'data-half-open'),
    'false',
  );
  assert.match(await page.textContent('#connections'), /half-open/);
  assert.ok(Number(await page.getAttribute('#writes tr[data-peer="node2"]', 'data-timed-out')) > 0);

  // The viewport (1280x800) with the section in the middle, and the section alone.
  const view = async (label) => {
    await page.evaluate(() => document.querySelector('#connections').scrollIntoView({ block: 'center' }));
    await screenshot(label, { fullPage: false });
  };
  await shotOf(page, '#connections', 'connections-light');
  await view('half-open-light');
  // Dark theme: auto (light here) -> light -> dark.
  const toggle = page.locator('button[title^="Theme"]');
  await toggle.click();
  await toggle.click();
  await page.waitForSelector('html[data-theme="dark"]');
  await shotOf(page, '#connections', 'connections-dark');
  await view('half-open-dark');
}
