// Issue 18, the branch tree: in the buggy packet-loss replay, fork at the lost ECHO_REQ with
// "deliver it", then at its answer (the ECHO_RSP crosses the same cut link and is lost too) —
// each fork is a new branch and the original stays; the branch list shows every branch's
// expectations, the shown branch's failing ones and why; one click switches back.
import assert from 'node:assert/strict';
import { app, assertDeliveredEchoBranchFails, branchList, chapterBefore, nextLost, open, settled } from './lib/app.mjs';

export const timeoutMs = 150_000;

async function forkLost(page, label) {
  const { sel, presses } = await nextLost(page, label);
  await page.click(`${sel} >> nth=-1`);
  await page.waitForSelector('#msg-body[data-dropped="true"]');
  const msg = await page.getAttribute('#msg-body', 'data-msg');
  await page.click('#fork-deliver');
  await settled(page);
  return { msg, presses };
}


export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  assert.equal(await page.$('#branches'), null, 'one branch: no list');
  await chapterBefore(page, 60_000_000);

  const req = await forkLost(page, 'ECHO_REQ');
  log(`forked ECHO_REQ #${req.msg} after ${req.presses} drops`);
  await page.waitForSelector('#branches');
  let bs = await branchList(page);
  assert.equal(bs.length, 2, JSON.stringify(bs));
  assert.equal(bs[1].current, 'true');
  assert.equal(bs[0].passed, 'true', `the original's expectations hold: ${bs[0].text}`);
  assert.notEqual(bs[1].passed, 'unknown', 'the fork is evaluated');

  const rsp = await forkLost(page, 'ECHO_RSP');
  log(`forked ECHO_RSP #${rsp.msg} after ${rsp.presses} drops`);
  const why = await assertDeliveredEchoBranchFails(page);
  assert.match(why, / — \S/, 'each failing expectation says why');
  log(`branch 3 fails: ${why.slice(0, 200)}`);
  assert.equal((await app(page)).userActions, '2');
  await screenshot('forked');

  // One click back to the original: no actions, its expectations hold.
  await page.click('#branches .branch[data-branch="0"]');
  await settled(page);
  assert.equal((await app(page)).userActions, '0');
  bs = await branchList(page);
  assert.equal(bs[0].current, 'true');
  assert.equal(bs.length, 3, 'every branch stays');

  // The branches are in the permalink: a reload keeps them and the one shown.
  await page.reload();
  await page.waitForSelector('#app[data-ready="1"]');
  await settled(page);
  bs = await branchList(page);
  assert.equal(bs.length, 3);
  assert.equal(bs[0].current, 'true');

  // Fork from the log: a line's "kill here" acts at that line's time.
  const line = page.locator('#log .ll').first();
  const at = await line.getAttribute('data-time-us');
  await line.click();
  await settled(page);
  await page.waitForSelector(`#log-fork[data-time-us="${at}"]`);
  const node = await page.getAttribute('#log-fork', 'data-node');
  await page.click('#log-fork-kill');
  await settled(page);
  const a = await app(page);
  assert.equal(a.userActions, '1', 'the kill is recorded');
  assert.equal(a.timeUs, at, "at the line's time");
  assert.match(await page.textContent('#status-line'), new RegExp(`kill.*${node}|${node}.*kill`, 'i'));
}
