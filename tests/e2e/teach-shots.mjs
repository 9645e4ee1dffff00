#!/usr/bin/env node
// Not a spec (run.mjs scans specs/ only): screenshots of the three walks of issue 14 at 1366x768,
// 1920x1080 and 390x844, for looking at them by eye:
//   node tests/e2e/teach-shots.mjs [dark]
// writes screenshots/walk-<width>-{teacher,zoomed,message,present,oncall,student}.png (the
// viewport): the teacher (packet-loss at the third caption, A selected and explained), the
// timeline zoomed with its overview strip, the message-by-message mode mid-message, presentation
// mode, the on-call 251-node rolling upgrade at 2 minutes (at 390 also scrolled down
// the page: oncall-scroll1..8), the student's gossip sandbox.
// Needs dist/ (trunk build --release) and /usr/bin/chromium.
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
const dark = process.argv[2] === 'dark';
const only = process.env.SHOTS_ONLY ? process.env.SHOTS_ONLY.split(',') : null;
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const idle = async (page) => { await page.waitForTimeout(120); await page.waitForSelector('#app[data-busy="0"]', { timeout: 120_000 }); };
async function clickNode(page, node) {
  const canvas = page.locator('#topology'); await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox(); const attr = await canvas.getAttribute('data-nodes');
  const part = attr.split(';').find((p) => p.startsWith(node + ':')); const [x, y] = part.slice(node.length + 1).split(',').map(Number);
  await page.mouse.click(box.x + x, box.y + y);
}
for (const [w, h] of [[1366, 768], [1920, 1080], [390, 844]]) {
  if (only && !only.includes(String(w))) continue;
  const ctx = await b.newContext({ viewport: { width: w, height: h }, colorScheme: dark ? 'dark' : 'light' });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => console.log('PAGEERROR', e.message));
  page.on('console', (m) => m.type() === 'error' && console.log('CONSOLE', m.text()));
  const shot = async (name) => { await page.evaluate(() => window.scrollTo(0, 0)); await page.waitForTimeout(150); await page.screenshot({ path: `${SHOTS}/walk-${w}-${name}.png` }); };
  await page.goto(`${base}#`);
  await page.waitForSelector('#app[data-ready="1"]');
  await page.selectOption('#scenario-select', 'cassandra-21636-packet-loss'); await idle(page);
  for (let i = 0; i < 3; i++) { await page.click('#next-caption'); await idle(page); }
  await clickNode(page, 'A');
  await page.click('#explain-toggle');
  await shot('teacher');
  await page.keyboard.press('z'); await page.keyboard.press('z'); await page.keyboard.press('z');
  await page.click('#next-drop'); await idle(page);
  await shot('zoomed');
  await page.keyboard.press('0');
  await page.keyboard.press('m');
  await page.click('#play'); await page.waitForTimeout(900); await page.click('#play'); await idle(page);
  await shot('message');
  await page.keyboard.press('m');
  await page.keyboard.press('f'); await page.waitForTimeout(400);
  await shot('present');
  await page.keyboard.press('f'); await page.waitForTimeout(200);
  await page.selectOption('#scenario-select', 'cassandra-21636-rolling-upgrade'); await idle(page);
  await page.evaluate(() => { location.hash = ''; });
  const tl = page.locator('#timeline'); const tb = await tl.boundingBox();
  // 2 minutes of the run: click at that x (the timeline shows the whole run).
  const end = Number(await tl.getAttribute('data-view-hi'));
  await page.mouse.click(tb.x + 10 + (tb.width - 20) * (120e6 / end), tb.y + tb.height / 2); await idle(page);
  await shot('oncall');
  if (w === 390) {
    // The phone pass: every card in one column, tables scrolling inside their cards.
    await page.addStyleTag({ content: '.card{content-visibility:visible!important}' });
    const total = await page.evaluate(() => document.documentElement.scrollHeight);
    for (let k = 1, y = 700; y < total && k <= 8; k++, y += 700) {
      await page.evaluate((y) => window.scrollTo(0, y), y); await page.waitForTimeout(200);
      await page.screenshot({ path: `${SHOTS}/walk-${w}-oncall-scroll${k}.png` });
    }
  }
  await page.selectOption('#new-scenario', 'sandbox-gossip'); await idle(page);
  await page.click('#next-caption').catch(() => {}); await idle(page);
  await shot('student');
  console.log(w, 'done');
  await ctx.close();
}
await b.close(); srv.close();
