// Issue 38: a broken safety invariant is never silent. Raft Figure 8, `unsafe-commit` (whose
// expectations *expect* the violation, so the header's expectations are all green): once the run
// is computed, the timeline carries a red mark at the violation (10.01 s) before the cursor gets
// there; at and after it a banner names the invariant, what is broken and the nodes (S5, S1), and
// the topology rings those nodes; before it, no banner and no ring. `safe`: none of it.
import assert from 'node:assert/strict';
import { app, openScenario, pickVariant, settled } from './lib/app.mjs';

export const timeoutMs = 120_000;

/** The colour of the timeline canvas at time `t` (µs), `dy` CSS px above its bottom. */
async function timelinePixel(page, t, dy) {
  return page.evaluate(
    ({ t, dy }) => {
      const c = document.querySelector('#timeline');
      const lo = Number(c.dataset.viewLo);
      const hi = Number(c.dataset.viewHi);
      const w = c.clientWidth;
      const x = 10 + ((t - lo) / (hi - lo)) * (w - 20);
      const k = c.width / w;
      const px = c.getContext('2d').getImageData(Math.round(x * k), Math.round((c.clientHeight - dy) * k), 1, 1).data;
      return [px[0], px[1], px[2]];
    },
    { t, dy },
  );
}

const red = ([r, g, b]) => r > 180 && g < 120 && b < 120;

async function violations(page) {
  const v = (await page.getAttribute('#timeline', 'data-violations')) || '';
  return v.split(';').filter(Boolean);
}

export async function run({ page, baseUrl, screenshot, log }) {
  await page.setViewportSize({ width: 1366, height: 768 });
  await openScenario(page, baseUrl, 'raft-figure-8', 'unsafe-commit');
  assert.equal(await page.$('#violation:not(.none)'), null, 'no banner at the start');

  // Computed to the end: the violation, its nodes, the banner.
  await page.click('#to-end');
  await settled(page);
  const vs = await violations(page);
  assert.equal(vs.length, 1, vs.join(';'));
  const [at, invariant, nodes] = vs[0].split(':');
  assert.equal(invariant, 'Leader Completeness');
  assert.equal(nodes, 'S5,S1');
  const t = Number(at);
  assert.ok(t >= 10_000_000 && t < 10_020_000, `at 10.01 s (${t})`);
  const banner = page.locator('#violation');
  assert.equal(await banner.getAttribute('data-invariant'), 'Leader Completeness');
  assert.equal(await banner.getAttribute('data-nodes'), 'S5,S1');
  const text = await banner.textContent();
  assert.match(text, /Safety violated at 10\.0\d+s/, text);
  assert.match(text, /leader S5 of term 5 lacks entry 2 that S1 committed/, text);
  assert.ok(await banner.isVisible(), 'the banner is on screen');
  assert.equal(await page.getAttribute('#topology', 'data-violation-nodes'), 'S5,S1');
  assert.ok(red(await timelinePixel(page, t, 20)), `a red mark on the timeline at ${t} µs`);
  assert.ok(await page.$('#tl-legend .lg[data-mark="violation"]'), 'the timeline legend names the mark');
  assert.ok(await page.$('.topo-card .lg[data-mark="violation"]'), 'the topology legend names the ring');
  log(`banner: ${text}`);
  await screenshot('unsafe-end');

  // Before it: marked on the timeline (computed), no banner, no ring.
  await page.click('#to-start');
  await settled(page);
  assert.equal(await page.$('#violation:not(.none)'), null, 'no banner before the violation');
  assert.equal(await page.getAttribute('#topology', 'data-violation-nodes'), '');
  assert.equal((await violations(page)).length, 1, 'still marked ahead of the cursor');
  assert.ok(red(await timelinePixel(page, t, 20)), 'the mark is there before the cursor gets there');
  // Just before it (a click on the timeline at 9.7 s): still nothing; at it: the banner.
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = await page.locator('#timeline').boundingBox();
  const lo = Number(await page.getAttribute('#timeline', 'data-view-lo'));
  const hi = Number(await page.getAttribute('#timeline', 'data-view-hi'));
  const xAt = (us) => box.x + 10 + ((us - lo) / (hi - lo)) * (box.width - 20);
  await page.mouse.click(xAt(9_700_000), box.y + 10);
  await settled(page);
  assert.ok(Number((await app(page)).timeUs) < t);
  assert.equal(await page.$('#violation:not(.none)'), null, 'no banner before the violation');

  await page.click('#to-end');
  await settled(page);
  await page.click('#violation-go');
  await settled(page);
  assert.equal(Number((await app(page)).timeUs), t, '"go to it" moves the cursor to the violation');
  assert.ok(await page.$('#violation:not(.none)'), 'the banner at the violation itself');
  assert.equal(await page.getAttribute('#topology', 'data-violation-nodes'), 'S5,S1');

  // The safe variant: no violation anywhere.
  await pickVariant(page, 'safe');
  await page.click('#to-end');
  await settled(page);
  assert.deepEqual(await violations(page), []);
  assert.equal(await page.$('#violation:not(.none)'), null, 'no banner in safe');
  assert.equal(await page.getAttribute('#topology', 'data-violation-nodes'), '');
  assert.equal(await page.$('.lg[data-mark="violation"]'), null, 'no violation in the legends in safe');
  await screenshot('safe-end');
}
