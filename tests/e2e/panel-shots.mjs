#!/usr/bin/env node
// Not a spec: the "How often?" panel (a 2x3 grid sweep, then one cell) and the Expectations list
// at 1366x768, 1920x1080 and 390x844, for looking at them by eye.
//   node tests/e2e/panel-shots.mjs [dark]
// writes screenshots/panel-<width>-{grid,metric,metric-view,cell,checks,view}.png. Needs dist/ and /usr/bin/chromium.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { serveDir } from './load.mjs';

const HERE = new URL('.', import.meta.url).pathname;
const DIST = process.env.E2E_DIST || join(HERE, '..', '..', 'dist');
const SHOTS = join(HERE, 'screenshots');
mkdirSync(SHOTS, { recursive: true });
const srv = await serveDir(resolve(DIST));
const base = `http://127.0.0.1:${srv.address().port}/`;
const theme = process.argv[2];
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
for (const [w, h] of [[1366, 768], [1920, 1080], [390, 844]]) {
  const ctx = await b.newContext({ viewport: { width: w, height: h }, colorScheme: theme === 'dark' ? 'dark' : 'light' });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.log('PAGEERROR', e.message));
  await page.goto(base);
  await page.waitForSelector('#app[data-ready="1"]');
  await page.selectOption('#scenario-select', 'cassandra-21636-packet-loss');
  await page.waitForSelector('#app[data-busy="0"]');
  await page.click('#variants [data-variant="buggy"]');
  await page.waitForTimeout(300);
  // The Expectations list, opened and checked.
  await page.$eval('#checks', (d) => { d.open = true; });
  await page.waitForSelector('#checks[data-state="done"]', { timeout: 60_000 }).catch(() => {});
  await page.locator('#checks').screenshot({ path: `${SHOTS}/panel-${w}-checks.png` });
  await page.screenshot({ path: `${SHOTS}/panel-${w}-view.png` });
  // The grid sweep.
  await page.click('#sweep-open');
  await page.waitForSelector('#sweep-panel[data-state="idle"]');
  await page.fill('#sweep-grid-key-0', 'echo'); await page.press('#sweep-grid-key-0', 'Tab');
  await page.fill('#sweep-grid-values-0', 'buggy, fixed');
  await page.fill('#sweep-grid-key-1', 'phi_convict_threshold'); await page.press('#sweep-grid-key-1', 'Tab');
  await page.fill('#sweep-grid-values-1', '5,8,12');
  await page.fill('#sweep-seeds', '4');
  await page.click('#sweep-start');
  await page.waitForSelector('#sweep-panel[data-state="done"]', { timeout: 180_000 });
  await page.locator('#sweep-panel').screenshot({ path: `${SHOTS}/panel-${w}-grid.png` });
  // A metric's heatmap (issue 41): echo_skipped's p95 per cell, with its legend.
  await page.selectOption('#sweep-measure', 'm:echo_skipped');
  await page.selectOption('#sweep-stat', 'p95');
  await page.waitForSelector('#sweep-legend[data-stat="p95"]');
  await page.locator('#sweep-panel').screenshot({ path: `${SHOTS}/panel-${w}-metric.png` });
  await page.screenshot({ path: `${SHOTS}/panel-${w}-metric-view.png` });
  await page.selectOption('#sweep-measure', 'all');
  await page.click('.sweep-cell[data-cell="3"]');
  await page.waitForTimeout(300);
  await page.locator('#sweep-panel').screenshot({ path: `${SHOTS}/panel-${w}-cell.png` });
  console.log(w, 'ok');
  await ctx.close();
}
await b.close(); srv.close();
