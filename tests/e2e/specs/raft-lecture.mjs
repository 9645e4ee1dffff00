// A Raft lecture projected live (the lead's review against RaftScope, stop 59):
// 1. The log strips tell the truth. They shared one window, the newest entries of the LONGEST
//    log: in raft-stale-read at 10.5 s the stranded leader n1 holds ~50 uncommitted entries, so
//    the new leader's committed entries on n3-n5 fell left of the window and their strips looked
//    empty. Now every strip draws its commitIndex's entry, the current leader's strip its last
//    entry, the stranded leader its newest entries after a "…" gap, and no strip with entries
//    looks empty.
// 2. A long inspector value (the waiting read of raft-stale-read's LINEARIZABLE variant, ~100
//    characters) spans the card, not a quarter of it (it wrapped ~10 lines).
// 3. A down node keeps its last term inside its (grey) disc, as RaftScope draws a stopped server.
// 5. On a phone (390x844) the topology, or a jump to it, is on the first screen.
import assert from 'node:assert/strict';
import { app, clickNode, open, openScenario, settled } from './lib/app.mjs';

export const timeoutMs = 180_000;

/** Each strip: its data attributes, the indexes it draws, the empty-strip text. */
async function strips(page) {
  return page.$$eval('#raft-strips .rs-strip', (els) => els.map((e) => ({
    ...e.dataset,
    drawn: [...e.querySelectorAll('.rs-e')].map((c) => Number(c.dataset.index)),
    gap: e.querySelector('.rs-gap')?.title ?? '',
    empty: e.querySelector('.rs-empty')?.textContent ?? '',
  })));
}

async function captions(page, n) {
  for (let i = 0; i < n; i++) {
    await page.click('#next-caption');
    await settled(page);
  }
}

/** The truth of the strips: see the header. */
function assertTruthful(s, at) {
  const leader = s.find((x) => x.role === 'leader' && x.node === s.leader);
  for (const x of s) {
    const last = Number(x.last);
    const commit = Number(x.commit);
    if (commit > 0) assert.ok(x.drawn.includes(commit), `${at}: ${x.node}'s commitIndex ${commit} is not drawn (it draws ${x.drawn.join(',')})`);
    if (last > 0) {
      assert.ok(x.drawn.length > 0 || /entries/.test(x.empty), `${at}: ${x.node} has ${last} entries and its strip looks empty ("${x.empty}")`);
      assert.ok(!/empty log/.test(x.empty), `${at}: ${x.node} has ${last} entries, its strip says "${x.empty}"`);
    }
    const hidden = Number(x.before) + Number(x.elided);
    assert.equal(x.drawn.length + hidden, last, `${at}: ${x.node}'s ${last} entries are drawn or counted as elided`);
  }
  if (leader) assert.ok(leader.drawn.includes(Number(leader.last)), `${at}: the leader ${leader.node}'s last entry ${leader.last} is drawn`);
}

export async function run({ page, baseUrl, screenshot, log }) {
  await page.setViewportSize({ width: 1366, height: 768 });
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'raft-stale-read');
  await settled(page);

  // 1. Two leaders at 10.5 s (the third caption).
  await captions(page, 3);
  await clickNode(page, 'n3');
  await page.waitForSelector('#inspector[data-node="n3"] #raft-strips');
  const leader = await page.$eval('#raft-strips', (e) => e.dataset.leader);
  let s = (await strips(page)).map((x) => ({ ...x, leader }));
  const by = Object.fromEntries(s.map((x) => [x.node, x]));
  log(`at ${(await app(page)).timeUs} us: leader ${leader}; ${s.map((x) => `${x.node} ${x.role} last ${x.last} commit ${x.commit} drawn ${x.drawn.length}`).join('; ')}`);
  assert.ok(['n3', 'n4', 'n5'].includes(leader), `the majority's leader is drawn (${leader})`);
  assert.equal(by.n1.role, 'leader', 'n1 still leads its minority');
  assert.ok(Number(by.n1.last) > Number(by[leader].last) + 20, `n1's log runs far past the leader's (${by.n1.last} vs ${by[leader].last})`);
  assertTruthful(s, 'raft-stale-read 10.5 s');
  // The stranded leader's newest entry is drawn after a gap that says what it stands for.
  assert.ok(by.n1.drawn.includes(Number(by.n1.last)), `n1's last entry ${by.n1.last} is drawn (${by.n1.drawn.join(',')})`);
  assert.match(by.n1.gap, /^\d+ entries not drawn \(indexes \d+–\d+\)$/, `n1's gap says what it elides: "${by.n1.gap}"`);
  const cols = await page.$eval('#raft-strips .rs-boxes', (e) => getComputedStyle(e).gridTemplateColumns.split(' ').length);
  assert.ok(cols <= 20, `${cols} columns`);
  await screenshot('raft-stale-read-two-leaders');

  // 2. The LINEARIZABLE variant's waiting read on n1 at 11.1 s spans the inspector.
  await openScenario(page, baseUrl, 'raft-stale-read', 'linearizable');
  await captions(page, 4);
  log(`linearizable, caption 4: ${(await app(page)).timeUs} us`);
  await clickNode(page, 'n1');
  await page.waitForSelector('#inspector[data-node="n1"] #raft-reads dd');
  const read = await page.$eval('#inspector[data-node="n1"]', (card) => {
    const dd = card.querySelector('#raft-reads dd');
    const lh = parseFloat(getComputedStyle(dd).lineHeight) || 16;
    return { w: dd.getBoundingClientRect().width, card: card.getBoundingClientRect().width, lines: dd.getBoundingClientRect().height / lh, text: dd.textContent };
  });
  log(`the read: ${read.w.toFixed(0)} of ${read.card.toFixed(0)} px, ${read.lines.toFixed(1)} lines: ${read.text}`);
  assert.ok(read.text.length > 60, `a long value: ${read.text}`);
  assert.ok(read.w >= 0.6 * read.card, `the read's value is ${read.w.toFixed(0)} px of the card's ${read.card.toFixed(0)}`);
  assert.ok(read.lines <= 3.2, `the read wraps ${read.lines.toFixed(1)} lines`);
  s = (await strips(page)).map((x) => ({ ...x, leader: '' }));
  assertTruthful(s, 'raft-stale-read linearizable 11.1 s');

  // 3. raft-leader-crash: the crashed leader's last term stays inside its disc.
  await page.selectOption('#scenario-select', 'raft-leader-crash');
  await settled(page);
  let down = null;
  for (let i = 0; i < 8 && !down; i++) {
    if (await page.$eval('#next-caption', (b) => b.disabled)) break;
    await captions(page, 1);
    await clickNode(page, 'n1');
    await page.waitForSelector('#raft-strips');
    down = (await strips(page)).find((x) => x.role === 'down') ?? null;
  }
  assert.ok(down, 'a caption shows a down node');
  const glance = await page.$eval('#topology', (c) => c.dataset.glance);
  const g = glance.split(' ').map((x) => x.split(':')).find((x) => x[0] === down.node);
  assert.ok(g, `${down.node} is down in term ${down.term}: no term inside its node (data-glance "${glance}")`);
  assert.equal(g[1], down.term, `${down.node}'s last term`);
  log(`${down.node} down, term ${g[1]} inside on ${g[2]}`);

  // 5. A phone: the topology canvas, or a jump to it, on the first screen; the jump brings the
  // canvas under the sticky dock.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await settled(page);
  const where = () => page.evaluate(() => {
    const r = document.querySelector('#topology').getBoundingClientRect();
    const j = document.querySelector('#jump-topology');
    const jr = j && j.getBoundingClientRect();
    return {
      top: r.top, bottom: r.bottom, h: innerHeight, dock: document.querySelector('#dock').getBoundingClientRect().bottom,
      jump: !!jr && jr.height > 0 && jr.top >= 0 && jr.bottom <= innerHeight,
      jumpW: jr ? jr.width : 0, jumpH: jr ? jr.height : 0,
    };
  });
  const first = await where();
  log(`phone: topology ${first.top.toFixed(0)}..${first.bottom.toFixed(0)} of ${first.h}; jump in view ${first.jump}`);
  assert.ok(first.top + (first.bottom - first.top) / 2 < first.h || first.jump, `at 390x844 the topology starts at ${first.top.toFixed(0)} px, off the first screen, and no jump to it is in view`);
  if (first.jump) {
    // WCAG 2.2's minimum target size (2.5.8): 24 x 24 CSS px.
    assert.ok(first.jumpW >= 24 && first.jumpH >= 24, `the phone's jump to the topology is ${first.jumpW.toFixed(0)} x ${first.jumpH.toFixed(0)} px, under the 24 x 24 px minimum target`);
    await page.click('#jump-topology');
    await page.waitForTimeout(300);
    const after = await where();
    log(`after the jump: topology ${after.top.toFixed(0)}..${after.bottom.toFixed(0)}, dock ends at ${after.dock.toFixed(0)}`);
    assert.ok(after.top >= after.dock - 1 && after.bottom <= after.h + 1, `the jump shows the whole canvas under the dock: ${JSON.stringify(after)}`);
  }
  await screenshot('raft-leader-crash-phone');
  await page.setViewportSize({ width: 1280, height: 800 });
}
