#!/usr/bin/env node
// Screenshots of a scrubber drag at 251 nodes (issue 44), 1366x768: one mid-drag while the
// pointer keeps moving (taken with moves still coming, so that no rest refines the frame
// first) and one after the release. Not a test; for looking at what a drag shows.
// Usage: node tests/e2e/scrub-shots.mjs OUT_DIR [WIDTHxHEIGHT]   (E2E_DIST, CHROMIUM as for run.mjs)
import { mkdirSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveDir } from './load.mjs';
import { open, settled } from './specs/lib/app.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = resolve(process.env.E2E_DIST || join(HERE, '..', '..', 'dist'));
const OUT = resolve(process.argv[2] || '/tmp');
const [W, H] = (process.argv[3] || '1366x768').split('x').map(Number);
mkdirSync(OUT, { recursive: true });

const server = await serveDir(DIST);
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: W, height: H } });
  await open(page, url);
  await page.selectOption('#scenario-select', 'cassandra-21636-rolling-upgrade');
  await settled(page);
  await page.click('#to-end');
  await settled(page, 240_000);
  const box = await page.locator('#timeline').boundingBox();
  const y = box.y + box.height / 2;
  const xAt = (f) => box.x + 10 + f * (box.width - 20);
  await page.mouse.click(xAt(0.3), y);
  await settled(page);
  await page.mouse.move(xAt(0.3), y);
  await page.mouse.down();
  let shot = null;
  for (let i = 0; i <= 120; i++) {
    await page.mouse.move(xAt(0.3 + (0.3 * i) / 120), y);
    if (i === 80) shot = page.screenshot({ path: join(OUT, `scrub-mid-drag-${W}.png`) });
    await page.waitForTimeout(8);
  }
  await shot;
  const during = await page.evaluate(() => ({ ...document.querySelector('#app').dataset }));
  await page.mouse.up();
  await settled(page);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, `scrub-released-${W}.png`) });
  const after = await page.evaluate(() => ({ ...document.querySelector('#app').dataset }));
  console.log(JSON.stringify({ during: { approx: during.approx, held: during.held, cursorUs: during.cursorUs, timeUs: during.timeUs }, after: { approx: after.approx, held: after.held, cursorUs: after.cursorUs, timeUs: after.timeUs } }));
} finally {
  await browser.close();
  server.close();
}
