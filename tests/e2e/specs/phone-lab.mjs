// Issue 41 on a phone (390x844): the help dialog's key chips keep to one line inside the dialog;
// a caption's "true in this run" badge stays on the screen (hdds-17673-close-race's captions hold
// long words); the dock folds to the transport and the timeline (#dock-fold), well under the
// ~245 px it took in the student's sandbox with recorded actions.
import assert from 'node:assert/strict';
import { clickNode, clickTimeline, open, settled } from './lib/app.mjs';

export const timeoutMs = 180_000;

export async function run({ page, baseUrl, screenshot, log }) {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, baseUrl);

  // Captions: every badge inside the screen, no sideways scroll.
  await page.selectOption('#scenario-select', 'hdds-17673-close-race');
  await settled(page);
  let worst = 0;
  let badges = 0;
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('c');
    await settled(page);
    const m = await page.evaluate(() => {
      const b = document.querySelector('.caption-truth');
      return { right: b ? b.getBoundingClientRect().right : 0, wide: document.documentElement.scrollWidth };
    });
    if (m.right > 0) badges += 1;
    worst = Math.max(worst, m.right, m.wide);
    assert.ok(m.right <= 390 && m.wide <= 390, `caption ${i}: badge right ${m.right}, page ${m.wide} px wide`);
  }
  assert.ok(badges > 0, 'some caption carries a badge');
  log(`hdds-17673-close-race: ${badges} captions with a badge, rightmost edge ${worst} px`);
  await screenshot('caption', { fullPage: false });

  // Help: each key chip on one line, inside the dialog; the dialog inside the screen.
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.keyboard.press('?');
  await page.waitForSelector('#help .dialog');
  const help = await page.evaluate(() => {
    const d = document.querySelector('#help .dialog').getBoundingClientRect();
    const kbds = [...document.querySelectorAll('#help kbd')].map((k) => {
      const r = k.getBoundingClientRect();
      return { text: k.textContent, lines: k.getClientRects().length, h: r.height, right: r.right };
    });
    return { d: { left: d.left, right: d.right, top: d.top, bottom: d.bottom }, kbds };
  });
  assert.ok(help.d.left >= 0 && help.d.right <= 390 && help.d.top >= 0 && help.d.bottom <= 844, `dialog ${JSON.stringify(help.d)}`);
  for (const k of help.kbds) {
    assert.equal(k.lines, 1, `${k.text}: ${k.lines} lines`);
    assert.ok(k.h <= 24, `${k.text}: ${k.h} px tall`);
    assert.ok(k.right <= help.d.right, `${k.text}: right edge ${k.right} past the dialog's ${help.d.right}`);
  }
  await screenshot('help', { fullPage: false });
  await page.keyboard.press('Escape');

  // The student's sandbox: a recorded action, its banner; the dock folds.
  await page.selectOption('#scenario-select', 'sandbox-gossip');
  await settled(page);
  await clickTimeline(page, 0.1);
  await clickNode(page, 'C');
  await page.waitForSelector('#node-panel[data-node="C"]');
  await page.click('#act-stop');
  await settled(page);
  await page.evaluate(() => window.scrollTo(0, 0));
  const open0 = (await page.locator('#dock').boundingBox()).height;
  // The fold button covers none of the transport's controls, open or folded.
  const overlaps = () => page.evaluate(() => {
    const f = document.querySelector('#dock-fold').getBoundingClientRect();
    return [...document.querySelectorAll('#dock .tbar button, #dock .clock, #dock .speed input, #dock .speed output, #timeline')]
      .filter((e) => e.getClientRects().length)
      .map((e) => [e.id || e.className, e.getBoundingClientRect()])
      .filter(([, r]) => r.left < f.right && f.left < r.right && r.top < f.bottom && f.top < r.bottom)
      .map(([n]) => n);
  });
  assert.deepEqual(await overlaps(), [], 'open dock: the fold button covers nothing');
  await screenshot('dock-open', { fullPage: false });
  await page.click('#dock-fold');
  await page.waitForSelector('#dock[data-folded="true"]');
  const folded = (await page.locator('#dock').boundingBox()).height;
  log(`dock ${open0} px, folded ${folded} px`);
  assert.ok(folded <= 115 && folded < open0 - 40, `folded dock ${folded} px tall (open ${open0})`);
  assert.deepEqual(await overlaps(), [], 'folded dock: the fold button covers nothing');
  assert.ok(await page.isVisible('#play'), 'play stays');
  assert.ok(await page.isVisible('#timeline'), 'the timeline stays');
  const fold = await page.locator('#dock-fold').boundingBox();
  assert.ok(fold.x + fold.width <= 390, `fold button on screen: ${JSON.stringify(fold)}`);
  await screenshot('dock-folded', { fullPage: false });
  await page.click('#dock-fold');
  await page.waitForSelector('#dock[data-folded="false"]');
  assert.ok(await page.isVisible('#status-line'), 'unfolded: the status line is back');
}
