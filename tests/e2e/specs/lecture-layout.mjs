// The lecture view of Raft Figure 8 at each of its captions, at 1366x768 (normal and presentation
// mode) and 1920x1080 (presentation mode), against two defects seen on the projected screenshots
// (stop 58):
// - the dock's "Just now" line was blank after four of the twelve captions (the step before was
//   S1's log flush, or an appender's send), and under it an empty status line kept 30 px: a
//   blank band of ~45 px over the topology. Now the line says something after every caption,
//   and the topology card starts at most 24 px under it.
// - the 5-node ring's labels crowded the text under a node: a lost APPEND_ENTRIES was written
//   2-3 px under the leader's "leader t2" (it read as its next line), and the links and drop
//   crosses into the leader ran through "leader t2" and between its words. Now no message or
//   drop label (`data-texts`) comes within 3 px of a node's under-text (`data-unders`, the
//   lines written under the nodes and their boxes), and nothing is drawn across one: every
//   pixel of its box is the panel's colour, the text's, or a blend of the two.
// - (stop 59) two drop labels side by side, 1-5 px apart, read as one phrase: labels on one line stand
//   an em (12 px) apart at least.
import assert from 'node:assert/strict';
import { app, open, settled } from './lib/app.mjs';

export const timeoutMs = 300_000;

function parse(attr, sep) {
  return (attr || '').split(sep).filter(Boolean).map((t) => {
    const at = t.lastIndexOf('@');
    const [x, y, w, h] = t.slice(at + 1).split(',').map(Number);
    return { text: t.slice(0, at), x, y, w, h };
  });
}

/** Distance between two text boxes (left end x on baseline y, h above it, 2 px below). */
function clearance(a, b) {
  const sx = Math.max(b.x - (a.x + a.w), a.x - (b.x + b.w));
  const sy = Math.max(b.y - b.h - (a.y + 2), a.y - a.h - (b.y + 2));
  return sx < 0 && sy < 0 ? Math.max(sx, sy) : Math.hypot(Math.max(sx, 0), Math.max(sy, 0));
}

/** The under-texts whose box has a pixel off the line from the panel's colour to its ink (the
 *  pixel farthest from the panel): something else was drawn across the text. */
async function crossed(page) {
  return page.evaluate(() => {
    const c = document.querySelector('#topology');
    const k = Number(c.dataset.scale || 1) * (c.width / c.clientWidth);
    const hex = c.dataset.panel;
    const panel = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
    const ctx = c.getContext('2d');
    const out = [];
    for (const t of (c.dataset.unders || '').split('|').filter(Boolean)) {
      const at = t.lastIndexOf('@');
      const [x, y, w, h] = t.slice(at + 1).split(',').map(Number);
      const [x0, y0] = [Math.ceil(x * k), Math.ceil((y - h) * k)];
      const [x1, y1] = [Math.floor((x + w) * k), Math.floor((y + 2) * k)];
      const d = ctx.getImageData(x0, y0, x1 - x0, y1 - y0).data;
      const px = [];
      // (Over the panel: the canvas may leave it transparent.)
      for (let i = 0; i < d.length; i += 4) px.push([0, 1, 2].map((j) => (d[i + j] * d[i + 3] + panel[j] * (255 - d[i + 3])) / 255));
      const dist = (p, q) => Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
      const ink = px.reduce((a, p) => (dist(p, panel) > dist(a, panel) ? p : a), panel);
      const seg = ink.map((v, i) => v - panel[i]);
      const len2 = seg.reduce((s, v) => s + v * v, 0) || 1;
      const off = px.filter((p) => {
        const f = Math.min(1, Math.max(0, p.reduce((s, v, i) => s + (v - panel[i]) * seg[i], 0) / len2));
        return dist(p, panel.map((v, i) => v + f * seg[i])) > 40;
      });
      const rgb = (p) => `rgb(${p.map((v) => v.toFixed(0)).join(',')})`;
      if (off.length > 0) out.push(`${t.slice(0, at)} (${off.length} px, e.g. ${rgb(off[0])}, ink ${rgb(ink)})`);
    }
    return out;
  });
}

export async function run({ page, baseUrl, screenshot, log }) {
  let checked = 0;
  for (const [width, height, present] of [[1366, 768, false], [1366, 768, true], [1920, 1080, true]]) {
    await page.setViewportSize({ width, height });
    await open(page, baseUrl);
    await page.selectOption('#scenario-select', 'raft-figure-8');
    await settled(page);
    if (present) {
      await page.evaluate(() => document.activeElement && document.activeElement.blur());
      await page.keyboard.press('f');
      await page.waitForFunction(() => document.querySelector('#app').classList.contains('present'));
      await page.waitForTimeout(300);
      await settled(page);
    }
    const where = `${width}x${height}${present ? ' present' : ''}`;
    for (let i = 1; i <= 12; i++) {
      if (await page.$eval('#next-caption', (b) => b.disabled)) break;
      await page.click('#next-caption');
      await settled(page);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(50);
      const at = `${where}, caption ${i} (${(await app(page)).timeUs} us)`;
      const g = await page.evaluate(() => {
        const line = document.querySelector('#lecture-line');
        const topo = document.querySelector('.topo-card');
        const c = document.querySelector('#topology');
        // The dock's last text (the "Just now" line, or a banner under it).
        let last = line.getBoundingClientRect().bottom;
        for (const e of document.querySelectorAll('#dock *')) {
          const r = e.getBoundingClientRect();
          if (r.height > 0 && e.textContent.trim() !== '') last = Math.max(last, r.bottom);
        }
        return {
          text: line.textContent.replace(/\u00a0/g, ' ').trim(),
          band: topo.getBoundingClientRect().top - last,
          texts: c.dataset.texts, unders: c.dataset.unders,
        };
      });
      assert.match(g.text, /^(Just now: |[^:]+: )\S/, `${at}: the "Just now" line says nothing: "${g.text}"`);
      assert.ok(g.band <= 24, `${at}: ${g.band.toFixed(0)} px of blank band between the dock's last line and the topology`);
      const texts = parse(g.texts, ' ');
      const unders = parse(g.unders, '|');
      assert.equal(unders.length, 5, `${at}: a text under each of the 5 nodes (data-unders "${g.unders}")`);
      for (const t of texts) {
        for (const u of unders) {
          const cl = clearance(t, u);
          assert.ok(cl >= 3, `${at}: label ${t.text} at ${t.x},${t.y} is ${cl.toFixed(1)} px from "${u.text}" at ${u.x},${u.y}`);
        }
      }
      // Two labels side by side read as one phrase ("REQUEST_VOTE HEARTBEAT" 1-5 px apart): on
      // one line (boxes sharing some height), an em, 12 px, at least (labels::LABEL_SEP), 1 px
      // less for the attribute's rounding.
      for (let a = 0; a < texts.length; a++) {
        for (let b = a + 1; b < texts.length; b++) {
          const [p, q] = [texts[a], texts[b]];
          if (!(p.y - p.h < q.y + 2 && q.y - q.h < p.y + 2)) continue;
          const d = Math.max(q.x - (p.x + p.w), p.x - (q.x + q.w));
          assert.ok(d >= 11, `${at}: labels ${p.text} and ${q.text} are ${d.toFixed(1)} px apart on one line`);
        }
      }
      assert.deepEqual(await crossed(page), [], `${at}: drawn across a node's under-text`);
      checked += texts.length;
    }
    await screenshot(`figure-8-${where.replace(' ', '-')}`);
  }
  assert.ok(checked > 20, `labels were written to check (${checked})`);
  log(`${checked} labels checked against the texts under the nodes`);
}
