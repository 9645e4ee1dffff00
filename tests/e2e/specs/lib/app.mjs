// Helpers shared by the specs (this folder is not scanned for specs).
//
// How the specs find things (the web app exposes its state for them):
// - `#app` carries data-ready ("1" once a scenario is rendered and any saved session or permalink
//   applied), data-busy ("1" while playing or computing), data-scenario, data-variant, data-step,
//   data-time-us, data-frontier, data-user-actions, data-theme.
// - `#topology` (canvas) carries data-nodes="name:x,y;..." in CSS pixels of the canvas, so a spec
//   can click a node, or a link at the midpoint of two nodes.
// - `#matrix` (canvas) carries data-down="A>B,B>A" (observer>peer pairs seen DOWN) and
//   data-down-count; `#matrix-summary` says the same in words.
// - `#endpoint-states tr[data-peer]` rows carry data-liveness/-generation/-heartbeat;
//   `#inflight tr[data-peer]` rows carry data-stuck.
// - `#connections` carries data-modelled ("false" when the scenario has no connection model) and
//   data-half-open (count); `#conn-table tr[data-peer][data-channel]` rows carry data-this-side,
//   data-other-side, data-half-open, data-swallowed; `#writes tr[data-peer]` carry data-timed-out.
// - `#link-panel` carries data-link="A-B", data-ab / data-ba (up | lossy | down).
// - `#banner` carries data-kind (error | info).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'screenshots');

export async function open(page, url) {
  const res = await page.goto(url);
  assert.equal(res.status(), 200);
  await ready(page);
}

export async function ready(page) {
  await page.waitForSelector('#app[data-ready="1"]', { timeout: 30_000 });
  await settled(page);
}

/** Wait until the app is neither playing nor computing. Two animation frames first, so that a
 *  render scheduled by the last action has happened (else a stale data-busy="0" could pass). */
export async function settled(page, timeout = 90_000) {
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await page.waitForSelector('#app[data-busy="0"]', { timeout });
}

/** How far apart the middles of the top bar's visible controls are (px; under 8: one row), and
 *  the bar's height. */
export async function topbarSpread(page) {
  return page.evaluate(() => {
    const h = document.querySelector('.topbar');
    const kids = [...h.children].filter((e) => e.getClientRects().length);
    const ys = kids.map((e) => {
      const r = e.getBoundingClientRect();
      return r.top + r.height / 2;
    });
    return { spread: Math.max(...ys) - Math.min(...ys), height: h.getBoundingClientRect().height };
  });
}

/** The #app data attributes. */
export async function app(page) {
  return page.evaluate(() => ({ ...document.querySelector('#app').dataset }));
}

/** Node positions from the topology canvas, in page coordinates. */
export async function nodes(page) {
  const canvas = page.locator('#topology');
  await canvas.scrollIntoViewIfNeeded();
  // The canvas in the same place two frames apart (a card above it that is still changing
  // height would move a node from under the click).
  let box = await canvas.boundingBox();
  for (let i = 0; i < 20; i++) {
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
    const again = await canvas.boundingBox();
    const same = again && box && again.x === box.x && again.y === box.y;
    box = again;
    if (same) break;
  }
  const attr = await canvas.getAttribute('data-nodes');
  assert.ok(attr, '#topology has data-nodes');
  const out = {};
  for (const part of attr.split(';')) {
    const i = part.lastIndexOf(':');
    const [x, y] = part.slice(i + 1).split(',').map(Number);
    out[part.slice(0, i)] = { x: box.x + x, y: box.y + y };
  }
  return out;
}

export async function clickNode(page, name) {
  const p = (await nodes(page))[name];
  assert.ok(p, `node ${name} is on the canvas`);
  await page.mouse.click(p.x, p.y);
}

/** Click the middle of the link between two nodes. */
export async function clickLink(page, a, b) {
  const n = await nodes(page);
  await page.mouse.click((n[a].x + n[b].x) / 2, (n[a].y + n[b].y) / 2);
}

export async function downPairs(page) {
  const v = await page.getAttribute('#matrix', 'data-down');
  return v ? v.split(',').filter(Boolean) : [];
}

export async function liveness(page, peer) {
  return page.getAttribute(`#endpoint-states tr[data-peer="${peer}"]`, 'data-liveness');
}

export async function pickVariant(page, v) {
  // A row of buttons, or one select when the scenario has more variants than a row holds.
  if (await page.$('#variant-select')) await page.selectOption('#variant-select', v);
  else await page.click(`#variants [data-variant="${v}"]`);
  await settled(page);
  assert.equal((await app(page)).variant, v);
}

/** Open the built-in scenario `name` in `variant` (its default when none is given). */
export async function openScenario(page, url, name, variant) {
  await open(page, url);
  await page.selectOption('#scenario-select', name);
  await settled(page);
  if (variant) await pickVariant(page, variant);
}

/** Click the timeline at fraction `f` of its visible window (the track is inset 10 px on both
 * sides) and wait for the app to settle. */
export async function clickTimeline(page, f) {
  const box = await page.locator('#timeline').boundingBox();
  await page.mouse.click(box.x + 10 + f * (box.width - 20), box.y + box.height / 2);
  await settled(page);
}

/** Screenshot of one element into tests/e2e/screenshots/<name>.png. */
export async function shotOf(page, selector, name) {
  mkdirSync(SHOTS, { recursive: true });
  const el = page.locator(selector).first();
  await el.scrollIntoViewIfNeeded();
  await el.screenshot({ path: join(SHOTS, `${name}.png`) });
}

export async function bannerText(page, kind) {
  const sel = kind ? `#banner[data-kind="${kind}"]` : '#banner';
  await page.waitForSelector(sel, { timeout: 10_000 });
  return page.textContent(`${sel} .banner-text`);
}

/** The session's branches (`#branches .branch` data and text), once every one is evaluated
 * (in a Web Worker: the answers come later). */
export async function branchList(page) {
  await page.waitForFunction(() => !document.querySelector('#branches .branch[data-passed="unknown"]'), null, {
    timeout: 60_000,
  });
  return page.$$eval('#branches .branch', (bs) => bs.map((b) => ({ ...b.dataset, text: b.textContent })));
}

/** Open the chapter list and go to the last chapter at or before `limitUs`; returns its time. */
export async function chapterBefore(page, limitUs) {
  const chapters = await page.$$eval('#chapters .chapter', (bs) => bs.map((b) => Number(b.dataset.atUs)));
  const near = Math.max(...chapters.filter((c) => c <= limitUs));
  await page.click('#chapters summary');
  await page.click(`#chapters .chapter[data-at-us="${near}"]`);
  await settled(page);
  return near;
}

/** Press "next drop" until the sequence diagram shows a lost `label` (at most 80 presses);
 * returns the selector of such messages and the presses it took. */
export async function nextLost(page, label) {
  const sel = `#sequence g.sq-msg[data-label="${label}"][data-dropped="true"]`;
  let presses = 0;
  while (!(await page.$(sel)) && presses < 80) {
    await page.click('#next-drop');
    await settled(page);
    presses += 1;
  }
  if (!(await page.$(sel))) throw new Error(`no lost ${label} in the sequence diagram after ${presses} drops`);
  return { sel, presses };
}

/** The issue-18 counterfactual of cassandra-21636-packet-loss (buggy): once the lost ECHO_REQ
 * and ECHO_RSP are delivered in a fork, A and B end UP, so the third branch (the current one)
 * fails the buggy variant's "... DOWN from 5 s after the heal ..." expectations. Returns the
 * failing expectations' text. */
export async function assertDeliveredEchoBranchFails(page) {
  const bs = await branchList(page);
  assert.equal(bs.length, 3, JSON.stringify(bs));
  assert.equal(bs[2].current, 'true');
  assert.equal(bs[2].passed, 'false', `A and B end UP: the buggy expectations fail (${bs[2].text})`);
  const why = await page.textContent('#branch-failing');
  assert.match(why, /DOWN from 5 s after the heal to the end/, why);
  return why;
}

/** The cards wider than their own box (content spilling out sideways, not scrolled inside a
 *  container of their own): "CARD +Npx by ELEMENT" for each. */
export async function overflowingCards(page) {
  return page.evaluate(() => {
    const out = [];
    const scrolls = (el) => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(el).overflowX);
    const name = (el) => el.tagName.toLowerCase() + (el.id ? `#${el.id}` : '') + [...el.classList].map((c) => `.${c}`).join('');
    for (const card of document.querySelectorAll('.card')) {
      if (scrolls(card) || card.scrollWidth <= card.clientWidth + 1) continue;
      const right = card.getBoundingClientRect().right;
      let worst = null;
      let by = 0;
      for (const el of card.querySelectorAll('*')) {
        let p = el.parentElement;
        while (p && p !== card && !scrolls(p)) p = p.parentElement;
        if (p !== card) continue;
        const d = el.getBoundingClientRect().right - right;
        if (d > by) [worst, by] = [el, d];
      }
      if (worst) out.push(`${name(card)} +${Math.round(by)}px by ${name(worst)}`);
    }
    return out;
  });
}

/** Play until `fn(arg)` holds in the page, then pause (the play button toggles) and settle. */
export async function playUntil(page, fn, arg, timeout = 60_000) {
  await page.click('#play');
  try {
    await page.waitForFunction(fn, arg, { timeout });
  } finally {
    if ((await app(page)).busy === '1') await page.click('#play');
    await settled(page);
  }
}
