// Issue 18, fork from the timeline: in the buggy packet-loss replay, a right-click on the
// timeline at the lost ECHO_REQ's drop mark offers "deliver" (#tl-fork); taken, it is a new
// branch. The same at the answer that is then lost (the ECHO_RSP crosses the same cut link): A
// and B end UP, so the branch's buggy expectations fail, and the branch list says why. Then a
// right-click on a state mark (a node marked DOWN) offers kill / restart / stall for that node
// at the mark's time. Zoom keeps working (shift+drag zooms, no fork bar); a plain click on a
// mark only moves the cursor (issue 40: clicks never open a menu).
import assert from 'node:assert/strict';
import { app, assertDeliveredEchoBranchFails, branchList, chapterBefore, nextLost, open, settled } from './lib/app.mjs';

export const timeoutMs = 150_000;

const PAD = 10; // web/src/draw/timeline.rs

/** Page coordinates of virtual time `t` on the timeline. */
async function xyOf(page, t) {
  const box = await page.locator('#timeline').boundingBox();
  const lo = Number(await page.getAttribute('#timeline', 'data-view-lo'));
  const hi = Number(await page.getAttribute('#timeline', 'data-view-hi'));
  assert.ok(t >= lo && t <= hi, `${t} in the window ${lo}..${hi}`);
  const x = box.x + PAD + ((t - lo) / Math.max(1, hi - lo)) * (box.width - 2 * PAD);
  return { x, y: box.y + box.height / 2 };
}

/** Right-click at time `t` on the timeline: what can be forked there. */
async function click(page, t) {
  const { x, y } = await xyOf(page, t);
  // A plain click there first: it scrubs and opens nothing.
  await page.mouse.click(x, y);
  await settled(page);
  assert.equal(await page.$('#tl-fork'), null, 'a plain click opens no fork bar');
  await page.mouse.click(x, y, { button: 'right' });
  await settled(page);
}

/** Step with "next drop" until the sequence diagram shows a lost `label`; its message id. */
async function lostMsg(page, label) {
  const { sel } = await nextLost(page, label);
  return page.getAttribute(`${sel} >> nth=-1`, 'data-msg');
}

/** Deliver message `msg` (lost) from its drop mark on the timeline. */
async function deliverFromTimeline(page, msg, label) {
  // Zoom in around the cursor (it stands at the drop) so that the mark stands alone.
  for (let i = 0; i < 3; i++) await page.click('#zoom-in');
  await settled(page);
  const drops = (await page.getAttribute('#timeline', 'data-drops')) || '';
  const mine = drops.split(',').find((d) => d.endsWith(`:${label}:${msg}`));
  assert.ok(mine, `the lost ${label} #${msg} is marked on the timeline: ${drops.slice(0, 300)}`);
  const t = Number(mine.split(':')[0]);
  await click(page, t);
  const btn = `#tl-fork .tl-fork-deliver[data-msg="${msg}"]`;
  await page.waitForSelector(btn);
  assert.match(await page.textContent(btn), new RegExp(`deliver ${label}`));
  await page.click(btn);
  await settled(page);
  await page.click('#zoom-reset');
  await settled(page);
  return t;
}


export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  const near = await chapterBefore(page, 60_000_000);

  // A shift+drag on the timeline zooms (and offers no fork).
  const before = await xyOf(page, near);
  await page.mouse.move(before.x - 60, before.y);
  await page.keyboard.down('Shift');
  await page.mouse.down();
  await page.mouse.move(before.x - 20, before.y, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await settled(page);
  const lo = Number(await page.getAttribute('#timeline', 'data-view-lo'));
  assert.ok(lo > 0, 'the drag zoomed in');
  assert.equal(await page.$('#tl-fork'), null, 'a shift+drag offers no fork');
  await page.click('#zoom-reset');
  await settled(page);

  const req = await lostMsg(page, 'ECHO_REQ');
  const tReq = await deliverFromTimeline(page, req, 'ECHO_REQ');
  log(`delivered ECHO_REQ #${req} (lost at ${tReq} us) from the timeline`);
  await page.waitForSelector('#branches');
  let bs = await branchList(page);
  assert.equal(bs.length, 2, JSON.stringify(bs));
  assert.equal(bs[1].current, 'true');
  assert.equal((await app(page)).userActions, '1');
  // The fork delivered it: the message is no longer lost in the branch.
  const stillLost = await page.$(`#sequence g.sq-msg[data-msg="${req}"][data-dropped="true"]`);
  assert.equal(stillLost, null, 'the ECHO_REQ is delivered in the branch');

  const rsp = await lostMsg(page, 'ECHO_RSP');
  const tRsp = await deliverFromTimeline(page, rsp, 'ECHO_RSP');
  log(`delivered ECHO_RSP #${rsp} (lost at ${tRsp} us) from the timeline`);
  await assertDeliveredEchoBranchFails(page);
  assert.equal((await app(page)).userActions, '2');
  await screenshot('delivered');

  // Back to the original, then fork from a state mark: kill that node at the mark's time.
  await page.click('#branches .branch[data-branch="0"]');
  await settled(page);
  await page.click('#to-end');
  await settled(page);
  const marks = ((await page.getAttribute('#timeline', 'data-marks')) || '').split(',').filter(Boolean);
  assert.ok(marks.length > 0, 'state marks on the timeline');
  // A DOWN mark (above the track) well inside the run.
  const [tm, node] = marks.find((k) => k.endsWith(':above')).split(':');
  await page.click('#to-start');
  await settled(page);
  await click(page, Number(tm));
  const kill = `#tl-fork .tl-fork-kill[data-node="${node}"]`;
  await page.waitForSelector(kill);
  assert.equal(await page.getAttribute('#tl-fork', 'data-time-us'), tm, "the fork acts at the mark's time");
  assert.ok(await page.$(`#tl-fork .tl-fork-stall[data-node="${node}"]`), 'stall offered too');
  await screenshot('state-mark');
  await page.click(kill);
  await settled(page);
  const a = await app(page);
  assert.equal(a.userActions, '1', 'the kill is recorded');
  assert.equal(a.timeUs, tm, "at the mark's time");
  assert.match(await page.textContent('#status-line'), new RegExp(`kill.*${node}|${node}.*kill`, 'i'));
  bs = await branchList(page);
  assert.equal(bs.length, 4, 'a fourth branch');
  assert.equal(await page.$('#tl-fork'), null, 'the bar closes with the fork');
}
