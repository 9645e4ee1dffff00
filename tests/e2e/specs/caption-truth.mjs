// Captions say what is on screen when they show (issue 38, part 3). For three scenarios, walk
// every caption with "Next caption" and check, at each stop, (1) the header's verdict of the
// caption's own checks (`[[captions.holds]]`, run by the Expectations list in a worker):
// `#caption[data-truth="held"]`, never "failed"; and (2) independently of those checks, what
// the screen itself shows at the captions that name a state: the liveness matrix for
// CASSANDRA-21636's lost echo, the Raft log strips for Figure 8, the thread panel for pingpong
// (pingpong.mjs).
import assert from 'node:assert/strict';
import { app, clickNode, downPairs, openScenario, settled } from './lib/app.mjs';

export const timeoutMs = 240_000;

async function checksDone(page) {
  await page.waitForFunction(() => document.querySelector('#checks')?.dataset.state === 'done', null, {
    timeout: 120_000,
  });
}

/** Every caption in turn from the start: [{ at, index, truth, text }], calling `at(stop)` at each. */
async function walk(page, each) {
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.keyboard.press('Home');
  await settled(page);
  const stops = [];
  for (let guard = 0; guard < 100; guard++) {
    const before = (await app(page)).timeUs;
    await page.click('#next-caption');
    await settled(page);
    const t = (await app(page)).timeUs;
    if (t === before) break;
    const c = await page.$eval('#caption', (e) => ({
      index: e.dataset.index,
      truth: e.dataset.truth,
      text: e.querySelector('.caption-text')?.textContent ?? e.textContent,
    }));
    const stop = { at: Number(t), ...c };
    stops.push(stop);
    if (each) await each(stop);
  }
  return stops;
}

/** Raft log strips by node: { S1: { entries, commit, ... } }. */
async function strips(page) {
  return page.$$eval('#raft-strips .rs-strip', (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.node, { ...e.dataset, entries: e.querySelectorAll('.rs-e').length }])),
  );
}

export async function run({ page, baseUrl, screenshot, log }) {
  await page.setViewportSize({ width: 1366, height: 768 });

  // CASSANDRA-21636, one lost echo: every caption's checks hold when it shows; at the captions
  // that say A and B convicted each other, the matrix shows both DOWN cells.
  await openScenario(page, baseUrl, 'cassandra-21636-packet-loss', 'buggy');
  await checksDone(page);
  let downAt = 0;
  const gossip = await walk(page, async (s) => {
    assert.equal(s.truth, 'held', `packet-loss caption at ${s.at} us: ${s.text}`);
    if (/DOWN/.test(s.text) && /A and B|each other|convict/i.test(s.text)) {
      const down = await downPairs(page);
      assert.ok(down.includes('A>B') && down.includes('B>A'), `at ${s.at} us the matrix shows ${down}`);
      downAt++;
    }
  });
  assert.ok(gossip.length >= 5, `packet-loss has its captions: ${gossip.length}`);
  log(`packet-loss: ${gossip.length} captions held, ${downAt} checked against the matrix`);

  // The teaching round, SYN/ACK/ACK2 message for message.
  await openScenario(page, baseUrl, 'gossip-digest-exchange');
  await checksDone(page);
  const round = await walk(page, async (s) => {
    assert.notEqual(s.truth, 'failed', `digest-exchange caption at ${s.at} us: ${s.text}`);
  });
  const held = round.filter((s) => s.truth === 'held').length;
  assert.ok(held >= round.length - 1, `digest-exchange: ${held} of ${round.length} captions checked and held`);
  log(`gossip-digest-exchange: ${held}/${round.length} captions held`);

  // Raft Figure 8 (safe): every caption held; where a caption says an entry is stored on some
  // servers, the log strips show those servers' logs long enough.
  await openScenario(page, baseUrl, 'raft-figure-8', 'safe');
  await checksDone(page);
  await clickNode(page, 'S1');
  await page.waitForSelector('#inspector[data-node="S1"] #raft-strips');
  let stripChecks = 0;
  const fig8 = await walk(page, async (s) => {
    assert.equal(s.truth, 'held', `raft-figure-8 caption at ${s.at} us: ${s.text}`);
    const m = s.text.match(/index (\d+) is (?:now )?on ((?:S\d(?:, | and )?)+)/);
    if (m) {
      const idx = Number(m[1]);
      const st = await strips(page);
      for (const n of m[2].match(/S\d/g)) {
        assert.ok(st[n] && st[n].entries >= idx, `at ${s.at} us ${n}'s log has ${st[n]?.entries} entries, the caption says index ${idx}`);
      }
      stripChecks++;
    }
  });
  assert.ok(fig8.length >= 8, `raft-figure-8 has its captions: ${fig8.length}`);
  log(`raft-figure-8 safe: ${fig8.length} captions held, ${stripChecks} checked against the log strips`);
  await screenshot('raft-figure-8-last-caption');
}
