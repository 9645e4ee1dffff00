// Issue 18, compare mode: the buggy packet-loss replay beside the fixed one on one cursor. The
// first divergence is found and marked (compare bar, timeline), "jump to divergence" moves both
// sides there, a step and a scrub move both sides together, differing matrix cells are outlined
// (and named in the canvas's data-differs) once the sides differ, and a reload keeps compare.
import assert from 'node:assert/strict';
import { app, open, settled } from './lib/app.mjs';

export const timeoutMs = 120_000;

async function together(page, what) {
  const a = await app(page);
  assert.equal(a.compareTimeUs, a.timeUs, `${what}: both sides at the same virtual time`);
  return a;
}

export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  assert.equal((await app(page)).variant, 'buggy');
  await page.selectOption('#compare-select', 'fixed');
  await settled(page);
  await page.waitForSelector('#cmp-b[data-variant="fixed"]');
  await page.waitForSelector('#compare-bar[data-state="found"]', { timeout: 30_000 });
  const div = Number(await page.getAttribute('#compare-bar', 'data-divergence-us'));
  assert.ok(div > 0, `a divergence time (${div})`);
  assert.match(await page.textContent('#compare-status'), /first divergence at/);
  log(`first divergence at ${div} us: ${await page.textContent('#compare-bar .cmp-recs')}`);
  assert.equal((await app(page)).compare, 'fixed');

  await page.click('#jump-divergence');
  await settled(page);
  const at = await together(page, 'jump to divergence');
  assert.equal(Number(at.timeUs), div, 'the jump lands on the divergence');
  await screenshot('divergence');

  await page.click('#step');
  await settled(page);
  const stepped = await together(page, 'step');
  assert.ok(Number(stepped.step) > Number(at.step), 'the step moved');

  // Scrub: a click at 80% of the timeline.
  const tl = page.locator('#timeline');
  const box = await tl.boundingBox();
  await page.mouse.click(box.x + box.width * 0.8, box.y + box.height / 2);
  await settled(page);
  const scrubbed = await together(page, 'scrub');
  assert.ok(Number(scrubbed.timeUs) > Number(stepped.timeUs), 'the scrub moved forward');

  // Differing cells: by the end the sides see different liveness.
  await page.click('#to-end');
  await settled(page);
  await together(page, 'jump to end');
  const differs = (await page.getAttribute('#cmp-a #matrix', 'data-differs')) || '';
  assert.ok(differs.split(',').filter(Boolean).length > 0, `differing cells outlined (${differs})`);
  assert.equal(await page.getAttribute('#cmp-b #matrix-b', 'data-differs'), differs, 'the same cells on both sides');
  log(`differing cells at the end: ${differs}`);
  await screenshot('end');

  // A reload keeps compare (autosave and permalink).
  const before = await app(page);
  await page.reload();
  await page.waitForSelector('#app[data-ready="1"]');
  await settled(page);
  const after = await together(page, 'after reload');
  assert.equal(after.compare, 'fixed');
  assert.equal(after.variant, 'buggy');
  assert.equal(after.step, before.step);
  await page.waitForSelector('#cmp-b[data-variant="fixed"]');
  assert.equal(await page.inputValue('#compare-select'), 'fixed');

  // Close: one side again.
  await page.click('#compare-close');
  await settled(page);
  assert.equal(await page.$('#cmp-b'), null);
  assert.equal((await app(page)).compare, undefined);
}
