// Issue 38: compare's first divergence is the first *behavioural* one. CASSANDRA-21181's
// duplicate notify, buggy vs fixed: the first record that differs is a log line's wording at
// 0.301 s (`onlyUnreconciled` vs `allOffsets`), which changes nothing; the divergence is at
// 0.502 s, where the duplicate fires the read's listener (fixed) or not (buggy): the state
// differs, "jump to divergence" lands where inspector rows differ, and the bar shows the words
// that differ in full. HDDS-17673's close race, buggy vs fixed: at 3 s the held WriteChunk is
// appended (buggy: its write-chunk task starts) or rejected (fixed: the client is answered, and
// the line logged says why); the jump lands where inspector rows differ too.
import assert from 'node:assert/strict';
import { app, openScenario, settled } from './lib/app.mjs';

export const timeoutMs = 150_000;

/** Compare with `other`, wait for the divergence, jump there; returns the bar's data. */
async function jump(page, other) {
  await page.selectOption('#compare-select', other);
  await settled(page);
  await page.waitForSelector('#compare-bar[data-state="found"]', { timeout: 60_000 });
  const bar = page.locator('#compare-bar');
  const at = Number(await bar.getAttribute('data-divergence-us'));
  const kind = await bar.getAttribute('data-kind');
  await page.click('#jump-divergence');
  await settled(page);
  // The inspectors re-render (throttled) and mark their differing rows after both rendered.
  await page.waitForTimeout(400);
  await settled(page);
  const a = await app(page);
  assert.equal(Number(a.timeUs), at, 'the jump lands on the divergence');
  assert.equal(a.compareTimeUs, a.timeUs, 'both sides there');
  const rows = Number((await page.getAttribute('#compare', 'data-differing-rows')) || 0);
  const matrix = await page.$('#cmp-a #matrix');
  const cells = matrix ? Number((await matrix.getAttribute('data-differs-count')) || 0) : 0;
  return { at, kind, rows, cells };
}

/** The marked words of both sides' records, each wholly visible in its line. */
async function markedWords(page, sel) {
  return page.$$eval(sel, (ms) =>
    ms.map((m) => {
      const line = m.closest('div');
      const r = m.getBoundingClientRect();
      const l = line.getBoundingClientRect();
      const clipped = r.left < l.left - 0.5 || r.right > l.right + 0.5 || line.scrollWidth > line.clientWidth + 1;
      return { text: m.textContent, clipped, visible: r.width > 0 && r.height > 0 };
    }),
  );
}

export async function run({ page, baseUrl, screenshot, log }) {
  await page.setViewportSize({ width: 1366, height: 768 });

  await openScenario(page, baseUrl, 'cassandra-21181-duplicate-notify', 'buggy');
  const d = await jump(page, 'fixed');
  log(`21181: ${JSON.stringify(d)}; ${await page.textContent('#compare-status')}`);
  assert.equal(d.at, 502_200, 'where the duplicate fires the listener or not, not the wording at 0.301 s');
  assert.equal(d.kind, 'state');
  assert.ok(d.rows + d.cells > 0, `inspector rows or matrix cells differ at the jump (${JSON.stringify(d)})`);
  assert.ok(await page.$('#cmp-a .cmp-diff'), 'a differing inspector row is marked');
  const words = await markedWords(page, '#compare-bar .cmp-rec mark.cmp-word');
  assert.deepEqual(
    words.map((w) => w.text),
    ['finishWriting skipped: 1 listener(s) not notified', 'notifyIncomingMutationListeners fired 1'],
  );
  for (const w of words) assert.ok(w.visible && !w.clipped, `"${w.text}" shown in full`);
  const views = await page.textContent('#cmp-views');
  // The views that differ just after it, in path order: first the read that the duplicate
  // notification lets complete on one side only; the rest follow in "+N more".
  assert.match(views, /client_reads\[0\]\.outcome "pending" → "completed"/, views);
  await screenshot('21181');
  await page.click('#compare-close');
  await settled(page);

  await openScenario(page, baseUrl, 'hdds-17673-close-race', 'buggy');
  const h = await jump(page, 'fixed');
  log(`HDDS-17673: ${JSON.stringify(h)}; ${await page.textContent('#compare-status')}`);
  assert.equal(h.at, 4_000_000, 'where the held WriteChunk W1 is released (4 s)');
  assert.equal(h.kind, 'event');
  assert.ok(h.rows + h.cells > 0, `inspector rows or matrix cells differ at the jump (${JSON.stringify(h)})`);
  const recs = await page.textContent('#compare-bar .cmp-recs');
  assert.match(recs, /task-start write-chunk/, recs);
  assert.match(recs, /send CLIENT_REPLY/, recs);
  assert.match(recs, /WriteChunk W1 .*rejected/, recs);
  const hw = await markedWords(page, '#compare-bar .cmp-recs mark.cmp-word');
  for (const w of hw) assert.ok(w.visible && !w.clipped, `"${w.text}" shown in full`);
  await screenshot('hdds-17673');
}
