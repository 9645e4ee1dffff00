// Issue 41, the incident review: a permalink opens at the exact time shared (not the step before
// it); named bookmarks (b) are drawn on the timeline, listed (a click jumps), and survive the
// permalink and an export -> import, which also keeps every branch; "No more captions after the
// cursor." goes once the cursor moves back; "explain" says readable durations and opens in view;
// "How often?" covers nothing on a phone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { app, bannerText, clickNode, clickTimeline, nodes, open, settled } from './lib/app.mjs';
import { decodeSession, encodeSession } from './lib/session.mjs';

export const timeoutMs = 180_000;

const FIG8 = 'raft-figure-8';

async function download(page, button) {
  await page.click('.menu summary');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return readFileSync(await dl.path(), 'utf8');
}

/** The payload in the address bar once the app has written this state there. */
async function payloadFor(page, timeUs) {
  await page.waitForFunction(
    async ([t]) => {
      const h = location.hash.slice(3);
      if (!h) return false;
      const b64 = h.replace(/-/g, '+').replace(/_/g, '/');
      const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
      const out = new Blob([Uint8Array.from(bin, (c) => c.charCodeAt(0))]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
      const s = JSON.parse(await new Response(out).text());
      return s.at_us === t;
    },
    [timeUs],
    { timeout: 10_000 },
  );
  return page.evaluate(() => location.hash.slice(3));
}

async function inFreshTab(browser, url, fn) {
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 768 }, acceptDownloads: true });
  try {
    const p = await ctx.newPage();
    await open(p, url);
    return await fn(p);
  } finally {
    await ctx.close();
  }
}

export async function run({ page, baseUrl, context, screenshot, log }) {
  const browser = context.browser();
  await page.setViewportSize({ width: 1366, height: 768 });
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', FIG8);
  await settled(page);

  // 1. A scrub lands between two events; the link carries that time.
  await clickTimeline(page, 0.61);
  const here = await app(page);
  const t = Number(here.timeUs);
  log(`cursor at ${t} us, step ${here.step}`);
  const payload = await payloadFor(page, t);
  const s = await decodeSession(page, payload);
  assert.equal(s.at_us, t);
  assert.equal(String(s.cursor), here.step);
  await inFreshTab(browser, `${baseUrl}#s=${payload}`, async (p) => {
    const got = await app(p);
    assert.equal(got.timeUs, here.timeUs, 'the link opens at the time shared');
    assert.equal(got.step, here.step);
  });
  // The same link without the time (as links were) opens at its step's time: earlier. So the
  // check above tells the two apart.
  const old = await encodeSession(page, { ...s, at_us: undefined });
  await inFreshTab(browser, `${baseUrl}#s=${old}`, async (p) => {
    const got = await app(p);
    assert.equal(got.step, here.step);
    assert.ok(Number(got.timeUs) < t, `the step alone is at ${got.timeUs} us, before ${t}`);
  });

  // 2. A bookmark at the cursor: b, a name, a note, Enter.
  await page.keyboard.press('b');
  await page.waitForSelector('#bookmark-form');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'bookmark-name');
  await page.fill('#bookmark-name', 'W1 index 4');
  await page.fill('#bookmark-note', 'here W1 gets index 4');
  await page.press('#bookmark-note', 'Enter');
  await page.waitForSelector('#bookmarks[data-count="1"]');
  assert.equal(await page.$('#bookmark-form'), null, 'the form closes');
  assert.equal(await page.getAttribute('#timeline', 'data-bookmarks'), `${t}:W1 index 4`);
  assert.ok(await page.$('#tl-legend .lg[data-mark="bookmark"]'));
  assert.match(await page.textContent('#bookmarks .bm'), /here W1 gets index 4/);
  // A click on it jumps there from elsewhere.
  await page.keyboard.press('Home');
  await settled(page);
  assert.equal((await app(page)).timeUs, '0');
  await page.click('#bookmarks .bm-go');
  await settled(page);
  assert.equal((await app(page)).timeUs, String(t), 'the bookmark jumps to its time');
  await screenshot('bookmarked', { fullPage: false });

  // 3. A branch: compute further, come back to the bookmark, act there.
  await page.keyboard.press('c');
  await settled(page);
  await page.click('#bookmarks .bm-go');
  await settled(page);
  let killed = null;
  for (const n of ['S1', 'S2', 'S3', 'S4', 'S5']) {
    await clickNode(page, n);
    await page.waitForSelector(`#node-panel[data-node="${n}"]`);
    if (await page.isEnabled('#act-kill')) {
      killed = n;
      break;
    }
  }
  assert.ok(killed, 'a running node to kill');
  await page.click('#act-kill');
  await settled(page);
  await page.waitForSelector('#branches[data-count="2"][data-current="1"]');
  const after = await app(page);

  // The permalink carries the bookmark and both branches.
  const link = await payloadFor(page, Number(after.timeUs));
  await inFreshTab(browser, `${baseUrl}#s=${link}`, async (p) => {
    await p.waitForSelector('#bookmarks[data-count="1"] .bm[data-name="W1 index 4"]');
    await p.waitForSelector('#branches[data-count="2"][data-current="1"]');
    assert.equal((await app(p)).timeUs, after.timeUs);
  });

  // 4. Export, then import into a fresh tab: the same bookmark, both branches, the same time.
  const toml = await download(page, '#export-toml');
  assert.match(toml, /^# clusterscope: session = /m);
  await inFreshTab(browser, baseUrl, async (p) => {
    await p.setInputFiles('#import', { name: 'review.toml', mimeType: 'text/plain', buffer: Buffer.from(toml) });
    await settled(p);
    assert.match(await bannerText(p, 'info'), /Imported review\.toml/);
    await p.waitForSelector('#bookmarks[data-count="1"] .bm[data-name="W1 index 4"]');
    await p.waitForSelector('#branches[data-count="2"][data-current="1"]');
    const got = await app(p);
    assert.equal(got.timeUs, after.timeUs);
    assert.equal(got.step, after.step);
    assert.equal(got.userActions, after.userActions);
    // The other branch comes back too: switch to it.
    await p.click('#branches .branch[data-branch="0"]');
    await settled(p);
    assert.equal((await app(p)).userActions, '0');
    assert.equal((await app(p)).timeUs, after.timeUs, 'a switch keeps the time');
  });

  // A bookmark is removable.
  await page.click('#bookmarks .bm-remove');
  await page.waitForSelector('#bookmarks', { state: 'detached' });
  assert.equal(await page.getAttribute('#timeline', 'data-bookmarks'), '');

  // 5. "No more captions after the cursor." goes when the cursor moves back.
  await page.keyboard.press('End');
  await settled(page);
  await page.keyboard.press('c');
  assert.match(await bannerText(page, 'info'), /No more captions after the cursor/);
  const atEnd = (await app(page)).timeUs;
  await page.keyboard.press('Shift+C');
  await settled(page);
  log(`notice at ${atEnd} us; after C at ${(await app(page)).timeUs} us`);
  const banner = await page.$('#banner');
  const text = banner ? await banner.textContent() : '';
  assert.doesNotMatch(text, /No more captions/, 'the notice goes once the cursor moved');

  // 6. Explain: a follower's "last heard" in a person's units, in view at 1366x768.
  await clickTimeline(page, 0.3);
  let said = '';
  for (const n of ['S1', 'S2', 'S3', 'S4', 'S5']) {
    await clickNode(page, n);
    if (!(await page.$('#explain'))) await page.click('#explain-toggle');
    await page.waitForSelector(`#explain[data-node="${n}"][data-stale="false"]`);
    said = await page.textContent('#explain');
    if (/ago\)/.test(said)) break;
  }
  log(`explain: ${said.slice(0, 200)}`);
  assert.match(said, /\((\d+(\.\d+)? (µs|ms|s)|\d+m\d\ds) ago\)/, 'a readable age');
  assert.doesNotMatch(said, /\d+us ago/);
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = await page.locator('#explain').boundingBox();
  assert.ok(box && box.y + 20 < 768, `explain starts in view at 1366x768 (y ${box && box.y})`);

  // 7. "How often?" is in the page's flow: on a phone nothing lies over node B or the node
  // panel's buttons (it floated over both).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.selectOption('#scenario-select', 'cassandra-21636-packet-loss');
  await settled(page);
  assert.notEqual(await page.$eval('#sweep-open', (e) => getComputedStyle(e).position), 'fixed');
  const n = await nodes(page);
  for (const name of Object.keys(n)) {
    const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.id, [n[name].x, n[name].y]);
    assert.equal(hit, 'topology', `node ${name} is not covered`);
  }
  for (const b of await page.$$('#node-panel button')) {
    await b.scrollIntoViewIfNeeded();
    const r = await b.boundingBox();
    const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('#node-panel') !== null, [r.x + r.width / 2, r.y + r.height / 2]);
    assert.ok(hit, `${await b.textContent()} is not covered`);
  }
}
