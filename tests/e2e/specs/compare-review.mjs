// Issue 41: compare is symmetric. Both sides' rows line up (the actions sit in a row of their own
// across both sides, not under one topology): the matrices, the inspectors and their rows start
// at the same height on both sides (within 4 px). The cards drawn for one side only (sequence
// diagram, system.log, "Over time") say which ("side A: buggy"). At 1366 px the header does not
// wrap with "compare: fixed" chosen.
import assert from 'node:assert/strict';
import { open, settled, topbarSpread } from './lib/app.mjs';

export const timeoutMs = 180_000;

// The last field: whether the inspectors' first common row must line up too. In 21181 side B's
// read has an augment line side A's has not (issue 41): the line is there on both sides (side A
// says "none"), so that the tables below it start at one height.
const CASES = [
  ['hdds-17673-close-race', 'buggy', 'fixed', true],
  ['cassandra-21181-duplicate-notify', 'buggy', 'fixed', true],
];

async function tops(page, sel) {
  return page.evaluate((sel) => [...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect().top + window.scrollY), sel);
}

/** Inspector rows by (table, first cell), with their y, on one side. */
async function rowYs(page, side) {
  return page.evaluate((side) => {
    const out = {};
    const seen = {};
    const card = document.querySelector(`#${side} .cmp-insp`);
    for (const tr of card.querySelectorAll('.insp-card tr')) {
      const t = tr.closest('table');
      const k0 = `${t.id || t.className}|${tr.firstElementChild ? tr.firstElementChild.textContent : ''}`;
      seen[k0] = (seen[k0] || 0) + 1;
      out[`${k0}#${seen[k0]}`] = { y: tr.getBoundingClientRect().top + window.scrollY };
    }
    return out;
  }, side);
}

export async function run({ page, baseUrl, screenshot, log }) {
  await page.setViewportSize({ width: 1366, height: 768 });
  await open(page, baseUrl);
  let compared = 0;
  for (const [name, a, b, firstRow] of CASES) {
    await page.selectOption('#scenario-select', name);
    await settled(page);
    await page.click(`#variants [data-variant="${a}"]`);
    await settled(page);
    await page.selectOption('#compare-select', b);
    await page.waitForSelector(`#cmp-b[data-variant="${b}"]`);
    await page.waitForSelector('#compare-bar[data-state="found"]', { timeout: 60_000 });
    await page.click('#jump-divergence');
    await settled(page);
    // After the divergence, a little later: the sides differ.
    await page.keyboard.press('c');
    await settled(page);

    // The header keeps one row: every control's middle on one line.
    const head = await topbarSpread(page);
    log(`${name}: header spread ${head.spread.toFixed(1)} px, height ${head.height.toFixed(0)} px`);
    assert.ok(head.spread < 8, `${name}: the header wraps at 1366 px (controls ${head.spread} px apart)`);

    // No node panel under one topology only: the actions are across both sides.
    assert.equal(await page.$('#cmp-a #node-panel'), null);
    assert.equal(await page.$('#cmp-b #node-panel'), null);
    assert.ok(await page.$('#cmp-actions #node-panel, #cmp-actions #link-panel, #cmp-actions p'));
    for (const row of ['.cmp-head', '.cmp-topo', '.cmp-matrix', '.cmp-insp']) {
      const [ya, yb] = [await tops(page, `#cmp-a > ${row}`), await tops(page, `#cmp-b > ${row}`)];
      assert.ok(ya.length === 1 && yb.length === 1, `${row} on both sides`);
      assert.ok(Math.abs(ya[0] - yb[0]) <= 4, `${name}: ${row} at ${ya[0]} and ${yb[0]}`);
    }
    const [ra, rb] = [await rowYs(page, 'cmp-a'), await rowYs(page, 'cmp-b')];
    const first = Object.keys(ra).find((k) => k in rb);
    assert.ok(first, `${name}: inspector rows on both sides`);
    log(`${name}: first common inspector row ${first} at ${ra[first].y} / ${rb[first].y}`);
    if (firstRow) {
      assert.ok(Math.abs(ra[first].y - rb[first].y) <= 4, `${name}: row ${first} at ${ra[first].y} and ${rb[first].y}`);
      compared += 1;
    }
    // Every row both sides have, in the first read card of each: at one height.
    const reads = await page.evaluate(() => ['cmp-a', 'cmp-b'].map((side) => {
      const r = document.querySelector(`#${side} .cmp-insp .mt-read`);
      return r ? [...r.querySelectorAll('.mt-detail > div, .mt-detail tr')].map((e) => e.getBoundingClientRect().top + window.scrollY) : [];
    }));
    if (reads[0].length && reads[1].length) {
      const n = Math.min(reads[0].length, reads[1].length);
      for (let i = 0; i < n; i++) {
        assert.ok(Math.abs(reads[0][i] - reads[1][i]) <= 4, `${name}: the reads' row ${i} at ${reads[0][i]} and ${reads[1][i]}`);
      }
      log(`${name}: ${n} rows of the first read at one height on both sides`);
    }
    for (const sel of ['.insp-card .card-head', '.insp-card h4']) {
      const [ya, yb] = [await tops(page, `#cmp-a .cmp-insp ${sel}`), await tops(page, `#cmp-b .cmp-insp ${sel}`)];
      assert.ok(ya.length && yb.length && Math.abs(ya[0] - yb[0]) <= 4, `${name}: the inspectors' first ${sel} at ${ya[0]} and ${yb[0]}`);
    }

    // The cards of side A alone say so.
    for (const card of ['.seq-card', '.log-card', '.plots-card']) {
      const label = await page.$(`${card} .cmp-side-label`);
      assert.ok(label, `${card} is labelled by its variant`);
      assert.equal(await label.getAttribute('data-variant'), a);
      assert.equal((await label.textContent()).trim(), `side A: ${a}`);
    }
    assert.equal((await page.textContent('#cmp-a .cmp-head')).trim(), `side A: ${a}`);
    assert.equal((await page.textContent('#cmp-b .cmp-head')).trim(), `side B: ${b}`);
    await screenshot(`${name}-1366`, { fullPage: false });
    // On a phone the sides stack, each as wide as the screen: the page never scrolls sideways
    // (a side's rows sized to their content ran ~50 px past a 390 px screen).
    await page.setViewportSize({ width: 390, height: 844 });
    await settled(page);
    const wide = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      sides: ['cmp-a', 'cmp-b'].map((s) => Math.round(document.querySelector(`#${s} .cmp-insp`).getBoundingClientRect().right)),
    }));
    log(`${name}: at 390 px the page is ${wide.page} px wide, the inspectors end at ${wide.sides.join(' and ')} px`);
    assert.ok(wide.page <= 390 && wide.sides.every((r) => r <= 390), `${name}: compare at 390 px is wider than the screen: ${JSON.stringify(wide)}`);
    await page.setViewportSize({ width: 1366, height: 768 });
    await settled(page);
    await page.click('#compare-close');
    await settled(page);
    assert.equal(await page.$('.cmp-side-label'), null, 'no side label without compare');
  }
  assert.ok(compared > 0, 'inspector rows compared row against row');
}
