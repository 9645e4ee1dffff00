// Expectations of the session (web/src/ui/checks.rs): the scenario's expectations for the variant,
// checked by a whole run of the session in a Web Worker and placed against the cursor. The
// packet-loss replay (buggy) holds all eight: "holds" at the start, "held" at the end. Stopping
// C at the first caption changes the session: it is checked again, and what now fails is listed
// with its time and reason, one click moving the cursor there. At 251 nodes the check waits for
// the button, then runs.
import assert from 'node:assert/strict';
import { app, clickNode, open, pickVariant, settled } from './lib/app.mjs';

export const timeoutMs = 240_000;

async function checks(page) {
  return page.evaluate(() => ({ ...document.querySelector('#checks').dataset }));
}

async function rows(page) {
  return page.$$eval('.check-row', (els) => els.map((e) => ({ ...e.dataset })));
}

async function done(page, session, timeout = 60_000) {
  await page.waitForFunction(
    (s) => {
      const d = document.querySelector('#checks')?.dataset;
      return d && d.state === 'done' && (s === undefined || d.session !== s);
    },
    session,
    { timeout },
  );
}

export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'cassandra-21636-packet-loss');
  await settled(page);
  await pickVariant(page, 'buggy');
  await done(page);
  let c = await checks(page);
  // Its eight expectations and the checks of its captions (`[[captions.holds]]`): all hold.
  assert.equal(c.failed, '0', `the buggy replay holds every check: ${JSON.stringify(c)}`);
  assert.ok(Number(c.held) >= 8, `eight expectations and the captions' checks: ${JSON.stringify(c)}`);
  await page.$eval('#checks', (d) => { d.open = true; });
  assert.equal((await rows(page)).length, Number(c.held), 'one row for each check');
  assert.ok((await rows(page)).every((r) => r.status === 'holds'), 'at 0 s every one is still ahead');
  await page.click('#to-end');
  await settled(page);
  assert.ok((await rows(page)).every((r) => r.status === 'held'), 'at the end every one held');

  // The person stops C at the first caption (5 s): a new session, checked again.
  const before = c.session;
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.keyboard.press('Home');
  await settled(page);
  await page.keyboard.press('c');
  await settled(page);
  await clickNode(page, 'C');
  await page.click('#act-stop');
  await settled(page);
  assert.equal((await app(page)).userActions, '1');
  await done(page, before);
  c = await checks(page);
  assert.ok(Number(c.failed) > 0, `stopping C breaks something: ${JSON.stringify(c)}`);
  const failing = (await rows(page)).filter((r) => r.failedAtUs);
  assert.ok(failing.length > 0);
  for (const r of failing) assert.equal(r.status, 'fails-later', `${r.name} fails after 5 s`);
  const first = failing.reduce((a, b) => (Number(a.failedAtUs) <= Number(b.failedAtUs) ? a : b));
  await page.click(`.check-row[data-name="${first.name}"] .check-go`);
  await settled(page);
  assert.equal((await app(page)).timeUs, first.failedAtUs, 'the cursor moved to the failure');
  const now = await rows(page);
  assert.equal(now.find((r) => r.name === first.name).status, 'failed');
  // What was seen instead: "… is UP, expected "DOWN"" or "heartbeat did not increase: 31 -> 31".
  assert.match(
    await page.textContent(`.check-row[data-name="${first.name}"] .check-detail`),
    /^at \d.*(expected|did not)/,
  );
  await screenshot('failed');
  log(`with C stopped: ${c.failed} failed; "${first.name}" first at ${first.failedAtUs} us`);

  // 251 nodes: checked on request.
  await page.selectOption('#scenario-select', 'cassandra-21636-rolling-upgrade');
  await settled(page);
  c = await checks(page);
  assert.equal(c.state, 'stale');
  await page.$eval('#checks', (d) => { d.open = true; });
  await page.click('#checks-run');
  assert.equal((await checks(page)).state, 'running');
  await done(page, undefined, 180_000);
  c = await checks(page);
  assert.ok(Number(c.held) + Number(c.failed) > 0, JSON.stringify(c));
  log(`rolling upgrade (${(await app(page)).variant}): ${c.held} held, ${c.failed} failed`);
}
