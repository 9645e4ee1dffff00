// Start states in the app (issue 42): a scenario file with `[[ozone.start]]` and
// `[[ozone.scm_container]]`, or `[[mutation-tracking.start]]`, imported as a person would, shows
// its preloaded state at time 0 (before any event): the preloaded container states and BCSIDs,
// the witnessed offsets.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, open, settled } from './lib/app.mjs';

export const timeoutMs = 120_000;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

async function importFile(page, rel) {
  const text = readFileSync(join(ROOT, rel), 'utf8');
  await page.setInputFiles('#import', { name: rel.split('/').pop(), mimeType: 'text/plain', buffer: Buffer.from(text) });
  await settled(page);
}

export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  await importFile(page, 'tests/scenarios/ozone/start-states.toml');
  let a = await app(page);
  assert.equal(a.scenario, 'ozone-start-states', JSON.stringify(a));
  assert.equal(a.timeUs, '0');
  // The containers table at 0 s: container 1 CLOSED at BCSID 5 on every datanode, container 3
  // QUASI_CLOSED at BCSID 9 on dn1 and 7 on dn3, container 2 (not preloaded) OPEN.
  const cells = await page.$$eval('#oz-containers td.oz-cs', (els) =>
    Object.fromEntries(els.map((e) => [`${e.dataset.node}/${e.dataset.container}`, e.textContent])));
  assert.equal(cells['dn1/1'], 'CLOSED · 5', JSON.stringify(cells));
  assert.equal(cells['dn2/1'], 'CLOSED · 5');
  assert.equal(cells['dn1/3'], 'QUASI_CLOSED · 9');
  assert.equal(cells['dn3/3'], 'QUASI_CLOSED · 7');
  assert.equal(cells['dn1/2'], 'OPEN');
  assert.equal(cells['scm/1'], 'CLOSED');
  assert.equal(cells['scm/3'], 'QUASI_CLOSED');
  await screenshot('ozone-t0');
  await importFile(page, 'tests/scenarios/mutation/start-states.toml');
  a = await app(page);
  assert.equal(a.scenario, 'mutation-start-states', JSON.stringify(a));
  assert.equal(a.timeUs, '0');
  // node1's log at 0 s: it witnessed 0-2, node2 0-2, node3 0-1; 0-1 reconciled, 2 not yet; its
  // journal holds the three.
  const row = await page.$eval('#mt-logs tr[data-log="node1"]', (e) => [...e.cells].map((c) => c.textContent.trim()));
  assert.deepEqual(row.slice(0, 6), ['node1', '{0-2}', '{0-2}', '{0-1}', '{0-1}', '{2}'], JSON.stringify(row));
  assert.match(await page.textContent('#mt-journal'), /node1:2/);
  await screenshot('mutation-t0');
}
