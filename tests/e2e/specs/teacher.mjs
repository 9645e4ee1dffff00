// The teacher preparing a lecture on CASSANDRA-21636 (issue 14): open the packet-loss incident,
// turn on "pause at captions" and play (it stops at the first caption), jump by chapter, play to
// the lost messages with "next drop", and switch to the fixed variant at the same moment.
import assert from 'node:assert/strict';
import { app, open, settled } from './lib/app.mjs';

export const timeoutMs = 90_000;

export async function run({ page, baseUrl, screenshot }) {
  await open(page, baseUrl);
  const chapters = await page.$$eval('#chapters .chapter', (bs) => bs.map((b) => Number(b.dataset.atUs)));
  assert.ok(chapters.length >= 3, `chapters: ${chapters}`);
  const first = chapters.find((c) => c > 0);

  await page.locator('#caption-pause').check();
  await page.click('#play');
  await page.waitForFunction(() => document.querySelector('#app').dataset.busy === '0', null, { timeout: 30_000 });
  await settled(page);
  assert.equal((await app(page)).timeUs, String(first), 'playing paused at the first caption');
  assert.equal(await page.getAttribute('#caption', 'data-index'), String(chapters.indexOf(first)));

  // A chapter: the cursor goes to its caption.
  await page.click('#chapters summary');
  const third = chapters[2];
  await page.click(`#chapters .chapter[data-at-us="${third}"]`);
  await settled(page);
  assert.equal((await app(page)).timeUs, String(third));

  // Next drop: the cursor lands just after a lost message; the topology says what was lost.
  await page.click('#next-drop');
  await settled(page);
  const atDrop = await app(page);
  assert.ok(Number(atDrop.timeUs) >= third);
  const drops = await page.getAttribute('#topology', 'data-drops');
  assert.ok(drops && drops.length > 0, `the drop is named: ${drops}`);
  await screenshot('next-drop', { fullPage: false });

  // Next message of a chosen kind: the sequence diagram shows the ECHO_REQ just sent or lost.
  await page.selectOption('#next-kind', 'ECHO_REQ');
  await page.click('#next-msg');
  await settled(page);
  assert.ok(Number((await app(page)).step) > Number(atDrop.step), 'moved forward');
  assert.ok(await page.$('#sequence g.sq-msg[data-label="ECHO_REQ"]'), 'an ECHO_REQ at the cursor');
  await page.click('#step-back');
  await settled(page);
  await page.click('#next-msg');
  await settled(page);
  const atEcho = await app(page);

  // The fixed variant at the same moment.
  await page.click('#variants [data-variant="fixed"]');
  await settled(page);
  const fixed = await app(page);
  assert.equal(fixed.variant, 'fixed');
  assert.equal(fixed.timeUs, atEcho.timeUs);
}
