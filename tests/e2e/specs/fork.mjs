// Issue 18, a fork from a message: in the buggy packet-loss replay, step with "next drop" to the
// lost ECHO_REQ, open it in the sequence diagram and fork "deliver it": the replay goes back to the
// step that sent it, records the fork as an action there, and the message is now delivered (its
// arrow no longer ends in a drop). Forking a delivered message offers drop / delay instead.
import assert from 'node:assert/strict';
import { app, open, settled } from './lib/app.mjs';

export const timeoutMs = 120_000;

export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  const echo = '#sequence g.sq-msg[data-label="ECHO_REQ"][data-dropped="true"]';
  // The chapter just before the echoes (about 60 s), then drop by drop.
  const chapters = await page.$$eval('#chapters .chapter', (bs) => bs.map((b) => Number(b.dataset.atUs)));
  const near = Math.max(...chapters.filter((c) => c <= 60_000_000));
  await page.click('#chapters summary');
  await page.click(`#chapters .chapter[data-at-us="${near}"]`);
  await settled(page);
  let presses = 0;
  while (!(await page.$(echo)) && presses < 80) {
    await page.click('#next-drop');
    await settled(page);
    presses += 1;
  }
  const where = await app(page);
  const drops = await page.getAttribute('#topology', 'data-drops');
  assert.ok(await page.$(echo), `an ECHO_REQ in the sequence diagram after ${presses} drops (at ${where.timeUs} us, drops ${drops})`);
  log(`the lost ECHO_REQ after ${presses} "next drop" presses`);
  await page.click(`${echo} >> nth=-1`);
  await page.waitForSelector('#msg-body[data-dropped="true"]');
  const msg = await page.getAttribute('#msg-body', 'data-msg');
  assert.ok(await page.$('#fork-deliver'), 'a dropped message offers "deliver it"');
  assert.equal(await page.$('#fork-drop'), null, 'and not "drop it"');
  const before = await app(page);
  assert.equal(before.userActions, '0');
  await page.click('#fork-deliver');
  await settled(page);
  const after = await app(page);
  assert.equal(after.userActions, '1', 'the fork is a recorded action');
  assert.ok(Number(after.step) <= Number(before.step), `the replay went back to the send (${before.step} -> ${after.step})`);
  const status = await page.textContent('#status-line');
  assert.match(status, new RegExp(`fork: deliver message #${msg}`), status);
  // Forward a little: the message is delivered now (its arrow is no longer a drop).
  await page.click('#step');
  await settled(page);
  await page.click(`#sequence g.sq-msg[data-msg="${msg}"]`);
  await page.waitForSelector(`#msg-body[data-msg="${msg}"]`);
  assert.equal(await page.getAttribute('#msg-body', 'data-dropped'), 'false', 'delivered in the fork');
  assert.ok(await page.$('#fork-drop'), 'a delivered message offers "drop it"');
  await screenshot('delivered');
}
