// Issue 44, scrub like a video: while the scrubber of the 251-node rolling upgrade is dragged
// (computed to its end), the cursor follows the pointer and the frame shown may be a keyframe's
// (the nearest stored state before it, replayed on a little): the clock then marks its time
// "≈" and the dock's lecture line says "≈ frame at <time> · exact on release" (never over the
// timeline, whose top row holds the faults' marks), and the frame's own time is
// never after the cursor. Released, the exact frame at the pointer is shown: the same step and time
// as a click (a jump) at that place. A drag that rests (the button still down) refines too.
// While the drag moves, the DOM-heavy panels (inspector, sequence, plots, log) wait for its rest
// or release and say so (`#app[data-held="1"]`: dimmed, "paused while dragging · updates on
// release").
import assert from 'node:assert/strict';
import { app, open, settled } from './lib/app.mjs';

export const timeoutMs = 300_000;

const PAD = 10; // web/src/draw/timeline.rs

export async function run({ page, baseUrl, screenshot, log }) {
  await page.setViewportSize({ width: 1366, height: 768 });
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'cassandra-21636-rolling-upgrade');
  await settled(page);
  await page.click('#to-end');
  await settled(page, 240_000);

  const box = await page.locator('#timeline').boundingBox();
  const y = box.y + box.height / 2;
  const xAt = (f) => Math.round(box.x + PAD + f * (box.width - 2 * PAD));

  // Record what the drag showed: every state of #app's cursor attributes.
  await page.evaluate(() => {
    const el = document.querySelector('#app');
    window.__seen = [];
    const note = () => {
      const d = el.dataset;
      const note = document.querySelector('#scrub-approx');
      window.__seen.push({
        approx: d.approx,
        held: d.held,
        cursor: Number(d.cursorUs),
        time: Number(d.timeUs),
        mark: !!document.querySelector('#clock-approx.on'),
        note: note ? note.textContent : null,
      });
    };
    window.__obs = new MutationObserver(note);
    window.__obs.observe(el, { attributes: true, attributeFilter: ['data-cursor-us', 'data-approx', 'data-step'] });
  });

  // Press at 20% and drag to 55% by small moves (a hand's pace); keep moving while a screenshot
  // of the approximate state is taken.
  await page.mouse.click(xAt(0.2), y);
  await settled(page);
  await page.mouse.move(xAt(0.2), y);
  await page.mouse.down();
  const N = 70;
  let shot = null;
  for (let i = 1; i <= N; i++) {
    await page.mouse.move(xAt(0.2 + (0.35 * i) / N), y);
    if (!shot && i > N / 2 && (await page.getAttribute('#app', 'data-approx')) === '1') {
      shot = await app(page);
      // The note covers none of the timeline (its fault marks run along the top).
      const [nb, tb] = await Promise.all([page.locator('#scrub-approx').boundingBox(), page.locator('#timeline').boundingBox()]);
      assert.ok(nb && nb.width > 0, 'the note is shown');
      const overlaps = nb.x < tb.x + tb.width && tb.x < nb.x + nb.width && nb.y < tb.y + tb.height && tb.y < nb.y + nb.height;
      assert.ok(!overlaps, `the note is clear of the timeline: ${JSON.stringify({ nb, tb })}`);
      // The DOM-heavy panels wait while the drag moves (issue 44) and say so: the inspector
      // card is dimmed under "paused while dragging · updates on release".
      const insp = await page.evaluate(() => {
        const c = document.querySelector('.insp-card');
        return {
          held: document.querySelector('#app').dataset.held,
          note: getComputedStyle(c, '::before').content,
          opacity: getComputedStyle(c.firstElementChild).opacity,
        };
      });
      assert.equal(insp.held, '1', 'the slow panels are held while the drag moves');
      assert.equal(insp.note, '"paused while dragging · updates on release"', `the inspector says it is paused: ${JSON.stringify(insp)}`);
      assert.ok(Number(insp.opacity) < 1, `the inspector is dimmed: ${JSON.stringify(insp)}`);
      // The viewport (1366x768) while the pointer keeps moving (a rest would refine).
      let moving = true;
      const wiggle = (async () => {
        for (let k = 0; moving; k++) {
          await page.mouse.move(xAt(0.2 + (0.35 * i) / N) + (k % 2 ? 3 : -3), y);
          await page.waitForTimeout(15);
        }
      })();
      await page.waitForTimeout(60);
      await screenshot('dragging', { fullPage: false });
      moving = false;
      await wiggle;
    }
    await page.waitForTimeout(10);
  }
  const xEnd = xAt(0.55);
  await page.mouse.up();
  await settled(page);
  await page.waitForSelector('#app[data-approx="0"]', { timeout: 5_000 });
  const released = await app(page);
  const seen = await page.evaluate(() => {
    window.__obs.disconnect();
    return window.__seen;
  });
  const approx = seen.filter((s) => s.approx === '1');
  log(`drag: ${seen.length} updates, ${approx.length} approximate; released at step ${released.step}, ${released.timeUs} us`);
  assert.ok(shot, 'the drag showed a keyframe (data-approx="1") at some point');
  assert.ok(approx.length >= 3, `approximate updates while dragging: ${approx.length}`);
  for (const s of approx) {
    assert.ok(s.time <= s.cursor, `a keyframe's frame is at or before the cursor: ${JSON.stringify(s)}`);
    assert.ok(s.mark, `the clock marks the time approximate (≈): ${JSON.stringify(s)}`);
    assert.match(s.note || '', /^≈ frame at .* · exact on release$/, `the timeline says so: ${JSON.stringify(s)}`);
    assert.equal(s.held, '1', `the slow panels say they wait while a keyframe is shown: ${JSON.stringify(s)}`);
  }
  // The cursor followed the pointer forward.
  const cursors = seen.map((s) => s.cursor);
  assert.ok(new Set(cursors).size >= 10, `the cursor moved ${new Set(cursors).size} times`);
  assert.equal(released.approx, '0');
  assert.equal(released.cursorUs, released.timeUs, 'released: the frame is at the cursor');
  assert.equal(await page.$('#clock-approx.on'), null, 'released: no approximate clock');
  assert.equal(await page.$('#scrub-approx'), null, 'released: no note');
  assert.equal(released.held, '0', 'released: the panels follow again');
  assert.equal(
    await page.evaluate(() => getComputedStyle(document.querySelector('.insp-card'), '::before').content),
    'none',
    'released: no "paused" note on the inspector',
  );

  // The same place by a click (a jump from elsewhere): the same exact frame.
  await page.mouse.click(xAt(0.1), y);
  await settled(page);
  assert.notEqual((await app(page)).step, released.step);
  await page.mouse.click(xEnd, y);
  await settled(page);
  const jumped = await app(page);
  assert.equal(jumped.step, released.step, 'a jump to the release point lands on the same step');
  assert.equal(jumped.timeUs, released.timeUs, 'and the same time');

  // A drag that rests refines with the button still down.
  await page.mouse.move(xEnd, y);
  await page.mouse.down();
  let wasApprox = false;
  for (let i = 1; i <= 20; i++) {
    await page.mouse.move(xEnd - i * 8, y);
    wasApprox ||= (await page.getAttribute('#app', 'data-approx')) === '1';
  }
  await page.waitForSelector('#app[data-approx="0"]', { timeout: 5_000 });
  await page.waitForSelector('#app[data-held="0"]', { timeout: 5_000 });
  const rested = await app(page);
  log(`rested (button down): approximate before ${wasApprox}, step ${rested.step}, ${rested.timeUs} us`);
  assert.equal(rested.cursorUs, rested.timeUs);
  assert.equal(rested.held, '0', 'rested: the panels follow again');
  // At rest the inspector shows the exact frame already: the release (same place) changes
  // none of its rows.
  const rows = () => page.$$eval('#endpoint-states tr[data-peer]', (rs) => rs.map((r) => `${r.dataset.peer}:${r.dataset.liveness}:${r.dataset.heartbeat}`).join(','));
  await settled(page);
  const atRest = await rows();
  assert.ok(atRest.length > 0, 'the inspector lists endpoints');
  await page.mouse.up();
  await settled(page);
  assert.equal(await rows(), atRest, 'the inspector at rest was the exact frame\'s');
  await screenshot('released', { fullPage: false });
}
