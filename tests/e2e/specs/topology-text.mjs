// The topology never writes one message or drop label over another, nor past its edges. Raft
// Figure 8 at 9 s wrote a lost REQUEST_VOTE and a lost APPEND_ENTRIES on one spot (their marks
// 10 px apart on crossing links), and once they were apart, "REQUEST_VOTE" started left of the
// canvas ("QUEST_VOTE"). The canvas lists the labels it wrote and their boxes in `data-texts`
// (`LABEL@x,y,w,h`: left end on the baseline y, h above it, 2 px below for descenders).
import assert from 'node:assert/strict';
import { app, open, settled } from './lib/app.mjs';

export const timeoutMs = 150_000;

function boxes(attr) {
  return (attr || '').split(' ').filter(Boolean).map((t) => {
    const at = t.lastIndexOf('@');
    const [x, y, w, h] = t.slice(at + 1).split(',').map(Number);
    return { text: t.slice(0, at), left: x, right: x + w, top: y - h, bottom: y + 2 };
  });
}

/** Pairs of labels whose boxes overlap by more than 1 px both ways. */
function collisions(list) {
  const out = [];
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      const [a, b] = [list[i], list[j]];
      const ox = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const oy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (ox > 1 && oy > 1) out.push(`${a.text} / ${b.text}`);
    }
  }
  return out;
}

/** Pairs of labels on one line (their boxes share some height) nearer than `sep` px: two kinds
 *  side by side 1-5 px apart read as one phrase on a projected ring ("REQUEST_VOTE HEARTBEAT");
 *  the placer keeps an em, 12 px (`labels::LABEL_SEP`), 1 px less here for the attribute's
 *  rounding. */
function tooClose(list, sep = 11) {
  const out = [];
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      const [a, b] = [list[i], list[j]];
      if (!(a.top < b.bottom && b.top < a.bottom)) continue;
      const d = Math.max(b.left - a.right, a.left - b.right);
      if (d < sep) out.push(`${a.text} / ${b.text} ${d.toFixed(1)} px`);
    }
  }
  return out;
}

export async function run({ page, baseUrl, log }) {
  await open(page, baseUrl);
  let checked = 0;
  // The default window, then a phone's (a smaller canvas: where the spots run out).
  for (const [name, width, height] of [
    ['raft-figure-8', 1280, 800], ['raft-partition', 1280, 800], ['hdds-17673-close-race', 1280, 800],
    ['cassandra-21181-overcount', 1280, 800], ['gossip-digest-exchange', 1280, 800], ['cassandra-21636-packet-loss', 1280, 800],
    ['raft-figure-8', 390, 844], ['hdds-17673-close-race', 390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    await page.selectOption('#scenario-select', name);
    await settled(page);
    for (let i = 0; i < 10; i++) {
      if (await page.$eval('#next-caption', (b) => b.disabled)) break;
      await page.click('#next-caption');
      await settled(page);
      await page.waitForTimeout(50);
      const [attr, w, h] = await page.$eval('#topology', (c) => [c.getAttribute('data-texts'), c.clientWidth, c.clientHeight]);
      const list = boxes(attr);
      checked += list.length;
      const at = `${name} at ${(await app(page)).timeUs} us, ${width}x${height}`;
      assert.deepEqual(collisions(list), [], `${at}: labels written over each other`);
      assert.deepEqual(tooClose(list), [], `${at}: labels too close to read as two`);
      const out = list.filter((b) => b.left < -1 || b.top < -1 || b.right > w + 1 || b.bottom > h + 1).map((b) => b.text);
      assert.deepEqual(out, [], `${at}: labels past the ${w}x${h} canvas's edges`);
    }
  }
  assert.ok(checked > 40, `the topology had labels to check (${checked})`);
  log(`${checked} labels checked`);
}
