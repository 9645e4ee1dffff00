// Issue 40 (its second half): Raft's moments on the timeline (drawn, in the legend, n steps to
// the election), the "Just now:" line changes on a step and names a vote in Raft's words, a
// one-key action (K: kill the leader) is recorded and brings the "you changed the script"
// notice, whose button returns to the original run; raft-slow-apply's strips draw committed
// but unapplied entries apart. Screenshots at 1366x768 and 390x844.
import assert from 'node:assert/strict';
import { app, openScenario, settled } from './lib/app.mjs';

export const timeoutMs = 150_000;

async function moments(page) {
  const v = (await page.getAttribute('#timeline', 'data-moments')) || '';
  return v.split(';').filter(Boolean).map((s) => {
    const [t, kind, node] = s.split(':');
    return { t: Number(t), kind: Number(kind), node };
  });
}

/** The timeline canvas's colour at time `t` (µs), `y` CSS px from its top. */
async function pixel(page, t, y) {
  return page.evaluate(
    ({ t, y }) => {
      const c = document.querySelector('#timeline');
      const lo = Number(c.dataset.viewLo);
      const hi = Number(c.dataset.viewHi);
      const w = c.clientWidth;
      const x = 10 + ((t - lo) / (hi - lo)) * (w - 20);
      const k = c.width / w;
      const px = c.getContext('2d').getImageData(Math.round(x * k), Math.round(y * k), 1, 1).data;
      return [px[0], px[1], px[2], px[3]];
    },
    { t, y },
  );
}

async function key(page, k) {
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.keyboard.press(k);
  await settled(page);
}

async function justNow(page) {
  return ((await page.textContent('#what-happened')) || '').trim();
}

export async function run({ page, baseUrl, screenshot, log }) {
  await page.setViewportSize({ width: 1366, height: 768 });
  await openScenario(page, baseUrl, 'raft-leader-election');

  // Computed to its end: the moments are listed and drawn, and named in the legend.
  await page.click('#to-end');
  await settled(page);
  const ms = await moments(page);
  const won = ms.filter((m) => m.kind === 0);
  assert.equal(won.length, 1, JSON.stringify(ms));
  assert.ok(ms.some((m) => m.kind === 1 && m.t <= won[0].t), 'a new term before the win');
  const legend = await page.locator('#tl-legend .lg[data-mark="moment"]').allTextContents();
  assert.deepEqual(legend, ['leader elected', 'new term', 'commit']);
  // The election's tick (its head, 2 px under the density band's top) is drawn, not the card.
  const at = await pixel(page, won[0].t, 31);
  const bg = await pixel(page, won[0].t + 3_000_000 > 30_000_000 ? 1_000 : won[0].t + 3_000_000, 31);
  assert.notDeepEqual(at.slice(0, 3), bg.slice(0, 3), `a tick at ${won[0].t}: ${at} vs ${bg}`);

  // From the start, n steps moment by moment to the election.
  await key(page, 'Home');
  let found = false;
  for (let i = 0; i < 6 && !found; i++) {
    await key(page, 'n');
    const text = await justNow(page);
    found = /elected leader of term 1/.test(text);
  }
  assert.ok(found, 'n reached the election');
  const a = await app(page);
  assert.ok(Number(a.timeUs) >= won[0].t, `${a.timeUs} at the election ${won[0].t}`);
  assert.match(await justNow(page), new RegExp(`leader elected: ${won[0].node} elected leader of term 1`));
  await screenshot('election-1366');

  // A step changes the line; before the election, a vote is named in Raft's words.
  await key(page, 'Home');
  const first = await justNow(page);
  let vote = null;
  let changed = false;
  for (let i = 0; i < 400 && !vote; i++) {
    await page.keyboard.press('ArrowRight');
    await settled(page);
    const t = await justNow(page);
    if (t !== first) changed = true;
    if (/granted its vote to \S+ in term 1/.test(t)) vote = t;
  }
  assert.ok(changed, 'the line changes on a step');
  assert.ok(vote, 'a granted vote is named');
  log(vote);

  // A one-key action: K kills the leader, recorded; the notice; back to the original run.
  await page.click('#to-end');
  await settled(page);
  await key(page, 'K');
  assert.equal((await app(page)).userActions, '1', 'K is a recorded action');
  const notice = page.locator('#script-changed');
  assert.ok(await notice.isVisible(), 'the notice is on screen');
  assert.match(await notice.textContent(), /captions and expectations describe the original run/);
  await screenshot('changed-1366');
  await page.setViewportSize({ width: 390, height: 844 });
  await settled(page);
  await screenshot('changed-390');
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.click('#back-to-script');
  await settled(page);
  assert.equal((await app(page)).userActions, '0');
  assert.equal(await page.$('#script-changed'), null);

  // The ? help lists the model's one-key actions.
  await key(page, '?');
  const keys = await page.locator('#quick-keys kbd').allTextContents();
  assert.deepEqual(keys, ['r', 'R', 'K', 't', 's', 'A', 'S']);
  await key(page, 'Escape');

  // raft-slow-apply: committed but not applied entries drawn apart on n1's strip.
  await openScenario(page, baseUrl, 'raft-slow-apply');
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.locator('#timeline').scrollIntoViewIfNeeded();
  const box = await page.locator('#timeline').boundingBox();
  const lo = Number(await page.getAttribute('#timeline', 'data-view-lo'));
  const hi = Number(await page.getAttribute('#timeline', 'data-view-hi'));
  const f = (7_800_000 - lo) / (hi - lo);
  await page.mouse.click(box.x + 10 + f * (box.width - 20), box.y + 12);
  await settled(page);
  const unapplied = await page.locator('.rs-strip[data-node="n1"] .rs-e[data-stage="unapplied"]').count();
  const applied = await page.locator('.rs-strip[data-node="n1"] .rs-e[data-stage="applied"]').count();
  log(`slow-apply at ${(await app(page)).timeUs}: n1 ${applied} applied, ${unapplied} committed not applied`);
  assert.ok(unapplied > 0, 'committed entries wait to be applied on n1');
  await page.locator('#raft-strips').scrollIntoViewIfNeeded();
  await screenshot('slow-apply-1366');
}
