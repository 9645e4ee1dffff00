// Drop a link by clicking it on the topology canvas, see it recorded, reload and find the session
// restored (autosave), then open the app without the URL fragment and find it restored again.
import assert from 'node:assert/strict';
import { app, bannerText, clickLink, clickNode, open, settled } from './lib/app.mjs';

export const timeoutMs = 90_000;

export async function run({ page, baseUrl, screenshot }) {
  await open(page, baseUrl);
  await page.keyboard.press('c'); // next caption (5 s)
  await settled(page);
  assert.equal((await app(page)).timeUs, '5000000');

  await clickLink(page, 'A', 'B');
  await page.waitForSelector('#link-panel[data-link="A-B"]');
  assert.equal(await page.getAttribute('#link-panel', 'data-ab'), 'up');
  await page.click('#link-drop-both');
  await page.waitForSelector('#link-panel[data-ab="down"][data-ba="down"]');
  assert.match(await bannerText(page, 'info'), /drop A<->B/);
  const afterDrop = await app(page);
  assert.equal(afterDrop.userActions, '1');
  await screenshot('dropped', { fullPage: false });

  // Play on a little: the drop shows as messages lost on the A-B link.
  await page.click('#play');
  await page.waitForFunction(() => Number(document.querySelector('#app').dataset.timeUs) > 9_000_000, null, { timeout: 30_000 });
  await page.click('#play');
  await settled(page);
  const before = await app(page);
  assert.equal(before.userActions, '1');
  assert.ok(page.url().includes('#s='), 'the URL carries the session');

  // Reload: the same state comes back.
  await page.reload();
  await page.waitForSelector('#app[data-ready="1"]');
  await settled(page);
  let after = await app(page);
  assert.equal(after.step, before.step);
  assert.equal(after.userActions, '1');
  assert.equal(after.variant, before.variant);

  // Without the fragment: restored from localStorage.
  await open(page, baseUrl);
  after = await app(page);
  assert.equal(after.step, before.step);
  assert.equal(after.userActions, '1');
  await clickNode(page, 'A');
  await page.waitForSelector('#node-panel[data-node="A"]');
  await page.selectOption('#link-select', { label: 'A ↔ B' });
  await page.waitForSelector('#link-panel[data-link="A-B"][data-ab="down"][data-ba="down"]');

  // A timed cut (down_for): heal, drop both ways "for 1000 ms"; a virtual second later the link
  // is up again by itself (the scenario's own cut of A-B is at 20 s).
  await page.click('#link-heal-both');
  await page.waitForSelector('#link-panel[data-ab="up"][data-ba="up"]');
  await page.fill('#link-cut-for', '1000');
  await page.click('#link-drop-both');
  await page.waitForSelector('#link-panel[data-ab="down"][data-ba="down"]');
  assert.match(await bannerText(page, 'info'), /drop A<->B/);
  const t0 = Number((await app(page)).timeUs);
  assert.ok(t0 < 18_000_000, `the timed cut starts at ${t0} us, before the scenario's own at 20 s`);
  await page.click('#play');
  await page.waitForFunction((t) => Number(document.querySelector('#app').dataset.timeUs) > t + 1_200_000, t0, { timeout: 30_000 });
  await page.click('#play');
  await settled(page);
  const t1 = Number((await app(page)).timeUs);
  assert.ok(t1 < 20_000_000, `stopped at ${t1} us, before the scenario's own cut`);
  await page.waitForSelector('#link-panel[data-ab="up"][data-ba="up"]', { timeout: 5_000 });
}
