// Smoke test: the app loads, the wasm starts, Yew renders a scenario and marks #app ready.
import assert from 'node:assert/strict';
import { app, open } from './lib/app.mjs';

export async function run({ page, baseUrl, screenshot }) {
  await open(page, baseUrl);
  assert.match(await page.textContent('#app'), /Clusterscope/);
  assert.equal(await page.title(), 'Clusterscope');
  const a = await app(page);
  assert.equal(a.scenario, 'cassandra-21636-packet-loss');
  assert.equal(a.variant, 'buggy');
  // Every panel is there.
  for (const sel of ['#topology', '#timeline', '#matrix', '#endpoint-states', '#log', '#caption']) {
    assert.ok(await page.$(sel), `${sel} is rendered`);
  }
  assert.ok((await page.getAttribute('#topology', 'data-nodes')).startsWith('A:'));
  await screenshot('loaded', { fullPage: false });
}
