#!/usr/bin/env node
// Not a spec (run.mjs scans specs/ only): what a lecture hall and a phone see of one scenario.
//   node tests/e2e/view-shots.mjs SCENARIO CAPTIONS LABEL [WIDTHS]
// opens SCENARIO, presses "next caption" CAPTIONS times and writes the viewport at 1366x768 and
// 1920x1080 (normal and presentation mode) and 390x844 into $OUT (default /tmp/view-shots):
// LABEL-<width>[-present].png, printing the topology's labels and the "Just now" line of each.
// WIDTHS: a comma list to take only some (1366,1920). Needs dist/ and /usr/bin/chromium.
import { chromium } from 'playwright-core';
import { serveDir } from './load.mjs';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
const HERE = new URL('.', import.meta.url).pathname;
const DIST = process.env.E2E_DIST || join(HERE, '..', '..', 'dist');
const OUT = process.env.OUT || '/tmp/view-shots';
mkdirSync(OUT, { recursive: true });
const srv = await serveDir(resolve(DIST));
const base = `http://127.0.0.1:${srv.address().port}/`;
const [scenario, caps, label, sizes] = process.argv.slice(2);
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const settled = async (page) => { await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))); await page.waitForSelector('#app[data-busy="0"]'); };
const all = [[1366, 768], [1920, 1080], [390, 844]].filter(([w]) => !sizes || sizes.split(',').includes(String(w)));
for (const [w, h] of all) {
  for (const pres of w === 390 ? [false] : [false, true]) {
    const ctx = await b.newContext({ viewport: { width: w, height: h } });
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.log('PAGEERROR', e.message));
    await page.goto(base);
    await page.waitForSelector('#app[data-ready="1"]');
    await page.selectOption('#scenario-select', scenario);
    await settled(page);
    for (let i = 0; i < Number(caps); i++) { await page.click('#next-caption'); await page.waitForTimeout(100); await settled(page); }
    if (pres) { await page.evaluate(() => document.activeElement && document.activeElement.blur()); await page.keyboard.press('f'); await page.waitForTimeout(400); await settled(page); }
    await page.evaluate(() => window.scrollTo(0, 0)); await page.waitForTimeout(200);
    const f = `${OUT}/${label}-${w}${pres ? '-present' : ''}.png`;
    await page.screenshot({ path: f });
    const info = await page.evaluate(() => { const c = document.querySelector('#topology'); const l = document.querySelector('#lecture-line'); return { t: document.querySelector('#app').dataset.timeUs, texts: c.dataset.texts, line: l && l.textContent, lineBox: l && JSON.stringify(l.getBoundingClientRect()) }; });
    console.log(f, JSON.stringify(info));
    await ctx.close();
  }
}
await b.close(); srv.close();
