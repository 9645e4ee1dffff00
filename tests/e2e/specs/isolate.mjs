// Isolate a node from the node panel (a partition of it alone against the rest, issue 43's
// timed cuts from the app): on raft-leader-election, cut the elected leader off for 8 s. The
// others elect a new leader while it is away; once its links come back by themselves the old
// leader follows the new term. Then an isolation until a heal, ended by "Heal all".
import assert from 'node:assert/strict';
import { app, bannerText, clickNode, open, playUntil, settled } from './lib/app.mjs';

export const timeoutMs = 120_000;

/** Role and term of every node, from the log strips. */
async function roles(page) {
  return page.$$eval('#raft-strips .rs-strip', (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.node, { role: e.dataset.role, term: Number(e.dataset.term) }])),
  );
}


const leaderOf = () => document.querySelector('#raft-strips')?.dataset.leader ?? '';

export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'raft-leader-election');
  await settled(page);
  await clickNode(page, 'n1');
  await page.waitForSelector('#inspector[data-node="n1"] #raft-strips');
  await playUntil(page, () => !!document.querySelector('#raft-strips .rs-strip[data-role="leader"]'));
  const old = await page.evaluate(leaderOf);
  assert.ok(old, 'a leader is elected');
  const oldTerm = (await roles(page))[old].term;

  // Isolate it for 8 s from its node panel: each follower stands at most two election timeouts
  // (2 x 3 s in the teaching preset) after the last heartbeat it heard, inside the cut.
  await clickNode(page, old);
  await page.waitForSelector(`#node-panel[data-node="${old}"]`);
  await page.fill('#isolate-for', '8000');
  await page.click('#act-isolate');
  const said = await bannerText(page, 'info');
  assert.match(said, new RegExp(`partition \\[${old}\\] \\| \\[.+\\] for 8s`), said);
  const t0 = Number((await app(page)).timeUs);
  log(`${old} (term ${oldTerm}) isolated at ${t0} us`);

  // The others elect a new leader of a later term while it is away (stepped event by event, so
  // that the time is the election's, not where a play was paused).
  let next = '';
  for (let i = 0; i < 600 && (next === '' || next === old); i++) {
    await page.click('#step');
    await settled(page);
    next = await page.evaluate(leaderOf);
  }
  const t1 = Number((await app(page)).timeUs);
  assert.ok(t1 < t0 + 8_000_000, `a new leader at ${t1} us, inside the 8 s cut from ${t0}`);
  let r = await roles(page);
  assert.ok(r[next].term > oldTerm, `the new leader's term ${r[next].term} is above ${oldTerm}`);
  await screenshot('new-leader', { fullPage: false });

  // 1.5 s past the cut's end: the old leader is back and follows the new term.
  await playUntil(page, (t) => Number(document.querySelector('#app').dataset.timeUs) > t, t0 + 9_500_000);
  r = await roles(page);
  assert.equal(r[old].role, 'follower', `${old} after the cut: ${JSON.stringify(r)}`);
  assert.equal(r[old].term, r[next].term, `${old} has the new term: ${JSON.stringify(r)}`);

  // Until a heal: no duration; "Heal all" ends it.
  await clickNode(page, next);
  await page.waitForSelector(`#node-panel[data-node="${next}"]`);
  await page.fill('#isolate-for', '');
  await page.click('#act-isolate');
  assert.match(await bannerText(page, 'info'), new RegExp(`partition \\[${next}\\] \\| \\[[^\\]]+\\]$`));
  await page.click('#act-heal-all');
  assert.match(await bannerText(page, 'info'), /heal all links/);
  assert.equal((await app(page)).userActions, '3');
}
