// The canvases stay the same elements while the panels around them change: a hover tooltip
// coming and going next to the timeline, the matrix's list of notable cells appearing and
// disappearing as a jump crosses the incident, the inspector's and sequence diagram's optional
// rows. Yew pairs unkeyed children from the end, so an optional child that adds or removes a node
// shifts every sibling before it onto the wrong old node: the canvas was replaced, and sized and
// drawn from scratch (a forced layout and a full matrix redraw on every such jump at 251 nodes).
// `kit::slot` keeps such children at one node each.
import assert from 'node:assert/strict';
import { app, clickTimeline, openScenario, settled } from './lib/app.mjs';

export const timeoutMs = 120_000;

export async function run({ page, baseUrl, log }) {
  await openScenario(page, baseUrl, 'cassandra-21636-packet-loss', 'buggy');
  await page.click('#to-end');
  await settled(page);
  assert.notEqual(await page.getAttribute('#matrix', 'data-down-count'), '0', 'A and B DOWN at the end');

  // Remember the elements, then make every optional neighbour come and go.
  await page.evaluate(() => {
    window.__kept = ['timeline', 'matrix', 'topology'].map((id) => document.getElementById(id));
  });
  const same = () =>
    page.evaluate(() =>
      window.__kept.map((el) => [el.id, el.isConnected && document.getElementById(el.id) === el]),
    );

  const box = await page.locator('#timeline').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.waitForSelector('.tl-tip');
  await page.mouse.move(box.x + box.width / 2, box.y - 40);
  await page.waitForSelector('.tl-tip', { state: 'detached' });

  await clickTimeline(page, 0);
  assert.equal(await page.getAttribute('#matrix', 'data-down-count'), '0', 'nobody DOWN at the start');
  assert.equal(await page.$('#matrix-list'), null, 'no list of notable cells at the start');
  await clickTimeline(page, 1);
  assert.ok(await page.$('#matrix-list'), 'the list is back at the end');
  assert.equal((await app(page)).timeUs, String(12 * 60 * 1_000_000));

  for (const [id, kept] of await same()) {
    assert.ok(kept, `#${id} is the element it was before the tooltip and the jumps`);
  }
  log('timeline, matrix and topology canvases kept across a tooltip and jumps across the incident');
}
