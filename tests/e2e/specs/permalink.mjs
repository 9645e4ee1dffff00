// A permalink reproduces the same state in a fresh browser; a broken one shows an error banner and
// leaves the current session intact.
import assert from 'node:assert/strict';
import { app, bannerText, clickNode, downPairs, open, pickVariant, settled } from './lib/app.mjs';
import { written } from './lib/session.mjs';

export const timeoutMs = 90_000;

export async function run({ page, baseUrl, context, screenshot, log }) {
  const browser = context.browser();
  await open(page, baseUrl);
  await pickVariant(page, 'fixed');
  await page.keyboard.press('c');
  await page.keyboard.press('c');
  await settled(page);
  await clickNode(page, 'C');
  await page.waitForSelector('#node-panel[data-node="C"]');
  await page.click('#act-restart-kill');
  await settled(page);
  assert.match(await bannerText(page, 'info'), /restart C \(kill -9/);
  for (let i = 0; i < 3; i++) await page.keyboard.press('c');
  await settled(page);
  const want = await app(page);
  const wantDown = await downPairs(page);
  await written(page);
  const hash = await page.evaluate(() => location.hash);
  assert.ok(hash.startsWith('#s='), hash);
  log(`permalink: ${hash.length} characters, step ${want.step}`);

  // A fresh context: no localStorage, only the link.
  const ctx2 = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const p2 = await ctx2.newPage();
    await open(p2, baseUrl + hash);
    const got = await app(p2);
    for (const k of ['scenario', 'variant', 'step', 'userActions']) {
      assert.equal(got[k], want[k], `${k} from the permalink`);
    }
    assert.deepEqual(await downPairs(p2), wantDown);
    assert.equal(await p2.$('#banner[data-kind="error"]'), null);
  } finally {
    await ctx2.close();
  }

  // A broken link in this tab: error banner, the session stays as it was.
  await page.goto(baseUrl + '#s=' + hash.slice(3, 40) + 'garbage!!');
  await page.waitForSelector('#app[data-ready="1"]');
  await settled(page);
  assert.match(await bannerText(page, 'error'), /could not be opened/);
  const kept = await app(page);
  assert.equal(kept.step, want.step);
  assert.equal(kept.variant, 'fixed');
  assert.equal(kept.userActions, '1');
  await screenshot('broken-link', { fullPage: false });
}
