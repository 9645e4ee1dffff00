// Issue 39: a link whose recorded action is refused only while running (a kill at step 0: the
// link's checks see A running from time zero, but A has not started at the first step) opens,
// stops at that action with an error naming it, and never replaces the autosaved session: it
// survives a reload, and "Back to saved" brings it back as it was. Hooks: #app[data-trial]
// (pending, failed), #trial-back, #trial-keep (web/src/model/trial.rs).
import assert from 'node:assert/strict';
import { app, bannerText, open, pickVariant, ready, settled } from './lib/app.mjs';
import { decodeSession, encodeSession, savedPayload } from './lib/session.mjs';

export const timeoutMs = 120_000;

/** Settled, and the effects of the last render (the autosave) have run. */
async function quiet(page) {
  await settled(page);
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
}

export async function run({ page, baseUrl, screenshot, log }) {
  // The person's session: the packet-loss incident, `fixed`, two captions in.
  await open(page, baseUrl);
  await pickVariant(page, 'fixed');
  await page.keyboard.press('c');
  await page.keyboard.press('c');
  await quiet(page);
  const want = await app(page);
  const saved = await savedPayload(page);
  assert.ok(saved, 'the session is autosaved');
  const mine = await decodeSession(page, saved);
  assert.equal(mine.variant, 'fixed');
  assert.equal(String(mine.cursor), want.step);

  // A link to the same incident, `buggy`, killing A at step 0.
  const bad = await encodeSession(page, {
    ...mine,
    variant: 'buggy',
    cursor: 500,
    actions: [{ step: 0, at: '0s', action: 'kill', node: 'A' }],
    branches: [],
    branch: 0,
  });

  // Pasted into this tab (a fragment change: the app opens it).
  await page.goto(`${baseUrl}#s=${bad}`);
  await quiet(page);
  assert.equal(await savedPayload(page), saved, 'the autosave is still the session before the link');
  assert.equal((await app(page)).variant, 'buggy', "the link's session is shown");
  const text = await bannerText(page, 'error');
  log(text);
  assert.match(text, /recorded action 1 of 1 \(actions\[0\]: “kill -9 A” at 0\.000s, step 0\) was refused/);
  assert.match(text, /cannot kill A/);
  assert.match(text, /Your saved session \(cassandra-21636-packet-loss \(fixed\) at /);
  assert.equal((await app(page)).trial, 'failed');
  await page.waitForSelector('#trial-back');
  await page.waitForSelector('#trial-keep');
  await screenshot('refused', { fullPage: false });

  // A reload opens the link again: it fails again, and the autosave is still there.
  await page.reload();
  await ready(page);
  await quiet(page);
  assert.equal(await savedPayload(page), saved, 'the autosave survives a reload');
  assert.match(await bannerText(page, 'error'), /was refused/);
  assert.equal((await app(page)).trial, 'failed');

  // Back to the saved session, as it was; the address bar follows, and a reload keeps it.
  await page.click('#trial-back');
  await quiet(page);
  const back = await app(page);
  for (const k of ['scenario', 'variant', 'step', 'userActions']) {
    assert.equal(back[k], want[k], `${k} after "Back to saved"`);
  }
  assert.equal(back.trial, undefined);
  assert.equal(await page.evaluate(() => location.hash), `#s=${saved}`);
  await page.reload();
  await ready(page);
  await quiet(page);
  const again = await app(page);
  for (const k of ['scenario', 'variant', 'step', 'userActions']) {
    assert.equal(again[k], want[k], `${k} after the reload`);
  }
  assert.equal(await page.$('#banner[data-kind="error"]'), null);
  assert.equal(await savedPayload(page), saved);
}
