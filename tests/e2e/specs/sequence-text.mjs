// The sequence diagram never writes one text over another: message labels, the nodes' events
// and the cursor's time. Each of these scenarios had a collision at one of its captions: an
// event under a message label ("DOWN C" / "SYN", packet-loss at 40 s), the cursor's time over
// a message label at the right edge (workarounds, mutation tracking), two events of one node in
// one microsecond on one spot (the teaching round's "generation 10.0.0.3" and "... 10.0.0.4").
import assert from 'node:assert/strict';
import { app, open, settled } from './lib/app.mjs';

export const timeoutMs = 120_000;

/** Pairs of texts in the diagram whose boxes overlap by more than 2 px both ways. */
async function collisions(page) {
  return page.$$eval('#sequence text', (ts) => {
    const boxes = ts
      .filter((t) => !t.classList.contains('sq-time') && !t.classList.contains('sq-head'))
      .map((t) => ({ text: t.textContent, r: t.getBoundingClientRect() }));
    const out = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i].r, boxes[j].r];
        const ox = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const oy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (ox > 2 && oy > 2) out.push(`${boxes[i].text} / ${boxes[j].text}`);
      }
    }
    return out;
  });
}

export async function run({ page, baseUrl, log }) {
  await open(page, baseUrl);
  let checked = 0;
  for (const name of ['cassandra-21636-packet-loss', 'cassandra-21636-workarounds', 'mutation-tracking-basics', 'gossip-digest-exchange']) {
    await page.selectOption('#scenario-select', name);
    await settled(page);
    for (let i = 0; i < 6; i++) {
      await page.click('#next-caption');
      await settled(page);
      const texts = await page.$$eval('#sequence text', (ts) => ts.length);
      checked += texts;
      assert.deepEqual(await collisions(page), [], `${name} at ${(await app(page)).timeUs} us: texts written over each other`);
    }
  }
  assert.ok(checked > 100, `the diagrams had texts to check (${checked})`);
  log(`${checked} texts checked`);
}
