// Keyboard shortcuts (with the help overlay) and the light/dark theme toggle.
import assert from 'node:assert/strict';
import { app, open, settled } from './lib/app.mjs';

export async function run({ page, baseUrl, screenshot }) {
  await open(page, baseUrl);
  const start = await app(page);

  await page.keyboard.press('Shift+?');
  await page.waitForSelector('#help');
  assert.match(await page.textContent('#help'), /next interesting event/);
  await screenshot('help', { fullPage: false });
  await page.keyboard.press('Escape');
  await page.waitForSelector('#help', { state: 'detached' });

  await page.keyboard.press('ArrowRight');
  await settled(page);
  assert.equal(Number((await app(page)).step), Number(start.step) + 1);
  await page.keyboard.press('ArrowLeft');
  await settled(page);
  assert.equal((await app(page)).step, start.step);

  await page.keyboard.press('Space');
  await page.waitForSelector('#app[data-busy="1"]');
  await page.waitForTimeout(400);
  await page.keyboard.press('Space');
  await settled(page);
  assert.ok(Number((await app(page)).timeUs) > 0, 'time advanced while playing');

  const s0 = Number((await app(page)).step);
  await page.keyboard.press('i'); // next interesting event
  await settled(page);
  assert.ok(Number((await app(page)).step) > s0);

  // Theme: auto (light here) -> light -> dark.
  const toggle = page.locator('button[title^="Theme"]');
  await toggle.click();
  await toggle.click();
  await page.waitForSelector('html[data-theme="dark"]');
  assert.equal((await app(page)).theme, 'dark');
  await page.keyboard.press('End');
  await settled(page);
  await screenshot('dark');
  await toggle.click(); // back to auto
  await page.waitForSelector('html[data-theme="light"]');
}
