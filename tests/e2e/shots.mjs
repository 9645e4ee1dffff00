#!/usr/bin/env node
// Not a spec (run.mjs scans specs/ only): inspector screenshots of one scenario state at 1366x768,
// 1920x1080 and 390x844, for looking at a model's panels by eye.
//   node tests/e2e/shots.mjs SCENARIO VARIANT|- CAPTIONS NODE LABEL [dark]
// opens SCENARIO (VARIANT, or the default with -), presses "next caption" CAPTIONS times, selects
// NODE and writes screenshots/LABEL-<width>-insp.png (the inspector card, sticky bars unstuck) and
// LABEL-<width>-view.png (the viewport), LABEL-<width>-topo.png and -plots.png (those cards);
// with SHOTS_COMPARE=VARIANT in compare mode with VARIANT at the first divergence, plus
// LABEL-<width>-full.png (the whole page). Needs dist/ (trunk build --release) and /usr/bin/chromium.
import { chromium } from 'playwright-core';
import { serveDir } from './load.mjs';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
const HERE = new URL('.', import.meta.url).pathname;
const DIST = process.env.E2E_DIST || join(HERE, '..', '..', 'dist');
const SHOTS = join(HERE, 'screenshots');
mkdirSync(SHOTS, { recursive: true });
const srv = await serveDir(resolve(DIST));
const base = `http://127.0.0.1:${srv.address().port}/`;
const [scenario, variant, caps, node, label, theme] = process.argv.slice(2);
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
for (const [w, h] of [[1366, 768], [1920, 1080], [390, 844]]) {
  const ctx = await b.newContext({ viewport: { width: w, height: h }, colorScheme: theme === 'dark' ? 'dark' : 'light' });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.log('PAGEERROR', e.message));
  page.on('console', (m) => m.type() === 'error' && console.log('CONSOLE', m.text()));
  await page.goto(base);
  await page.waitForSelector('#app[data-ready="1"]');
  await page.selectOption('#scenario-select', scenario);
  await page.waitForSelector('#app[data-busy="0"]');
  if (variant !== '-') { await page.click(`#variants [data-variant="${variant}"]`); await page.waitForTimeout(300); }
  for (let i = 0; i < Number(caps); i++) { await page.click('#next-caption'); await page.waitForTimeout(150); await page.waitForSelector('#app[data-busy="0"]'); }
  // SHOTS_COMPARE=VARIANT: compare mode with that variant, at the first divergence (+ a full-page shot).
  if (process.env.SHOTS_COMPARE) { await page.selectOption('#compare-select', process.env.SHOTS_COMPARE); await page.waitForSelector('#cmp-b'); await page.click('#jump-divergence'); await page.waitForTimeout(300); await page.waitForSelector('#app[data-busy="0"]'); }
  const canvas = page.locator('#topology'); await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox(); const attr = await canvas.getAttribute('data-nodes');
  const part = attr.split(';').find((p) => p.startsWith(node + ':')); const [x, y] = part.slice(node.length + 1).split(',').map(Number);
  await page.mouse.click(box.x + x, box.y + y);
  await page.waitForSelector(`#inspector[data-node="${node}"]`);
  await page.waitForTimeout(300);
  await page.addStyleTag({ content: '.topbar,.transport{position:static!important} .card{content-visibility:visible!important} .mt-reads{max-height:none!important}' }); const el = page.locator('#inspector').first(); await el.scrollIntoViewIfNeeded();
  await el.screenshot({ path: `${SHOTS}/${label}-${w}-insp.png` });
  await page.screenshot({ path: `${SHOTS}/${label}-${w}-view.png` });
  for (const [sel, part] of [['.topo-card', 'topo'], ['.plots-card', 'plots']]) {
    const c = page.locator(sel).first(); if (await c.count()) { await c.scrollIntoViewIfNeeded(); await page.waitForTimeout(200); await c.screenshot({ path: `${SHOTS}/${label}-${w}-${part}.png` }); }
  }
  if (process.env.SHOTS_COMPARE) { await page.evaluate(() => window.scrollTo(0, 0)); await page.screenshot({ path: `${SHOTS}/${label}-${w}-full.png`, fullPage: true }); }
  console.log(w, JSON.stringify(await page.evaluate(() => ({ t: document.querySelector('#app').dataset.timeUs, iw: document.querySelector('#inspector').scrollWidth, cw: document.querySelector('#inspector').clientWidth }))));
  await ctx.close();
}
await b.close(); srv.close();
