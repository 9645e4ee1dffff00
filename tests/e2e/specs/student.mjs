// The student (issue 14): start a sandbox from "New", drop a link, restart a node, reload, and
// find the session (actions, cursor) and the selected node again.
import assert from 'node:assert/strict';
import { app, bannerText, clickLink, clickNode, open, settled } from './lib/app.mjs';

export const timeoutMs = 90_000;

export async function run({ page, baseUrl, screenshot }) {
  await open(page, baseUrl);
  const sandboxes = await page.$$eval('#new-scenario option', (os) => os.map((o) => o.value).filter(Boolean));
  for (const m of ['gossip', 'raft', 'ozone', 'mutation-tracking', 'pingpong']) {
    assert.ok(sandboxes.includes(`sandbox-${m}`), `a ${m} sandbox in New: ${sandboxes}`);
  }
  await page.selectOption('#new-scenario', 'sandbox-gossip');
  await settled(page);
  assert.equal((await app(page)).scenario, 'sandbox-gossip');
  assert.equal(await page.inputValue('#new-scenario'), '', 'the New menu resets');

  // Let it run a little, drop the A-B link.
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.click('#play');
  await page.waitForFunction(() => Number(document.querySelector('#app').dataset.timeUs) > 5_000_000);
  await page.click('#play');
  await settled(page);
  await clickLink(page, 'A', 'B');
  await page.waitForSelector('#link-panel[data-link="A-B"]');
  await page.click('#link-drop-both');
  await page.waitForSelector('#link-panel[data-ab="down"][data-ba="down"]');
  assert.match(await bannerText(page, 'info'), /drop A<->B/);

  // Restart C.
  await clickNode(page, 'C');
  await page.waitForSelector('#node-panel[data-node="C"]');
  await page.click('#act-restart');
  await settled(page);
  assert.equal((await app(page)).userActions, '2');
  await page.click('#play');
  await page.waitForFunction(() => Number(document.querySelector('#app').dataset.timeUs) > 12_000_000);
  await page.click('#play');
  await settled(page);
  const before = await app(page);
  await screenshot('before-reload', { fullPage: false });

  // Reload: the same session, the same cursor, C still selected.
  await page.waitForTimeout(300);
  await page.reload();
  await page.waitForSelector('#app[data-ready="1"]');
  await settled(page);
  const after = await app(page);
  assert.equal(after.scenario, 'sandbox-gossip');
  assert.equal(after.userActions, '2');
  assert.equal(after.step, before.step);
  await page.waitForSelector('#node-panel[data-node="C"]');
  await page.waitForSelector('#inspector[data-node="C"]');
}
