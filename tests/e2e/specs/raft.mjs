// Raft (Apache Ratis), raft-leader-election: play until a leader is elected, send a client
// request from the leader's node panel, and watch the entry commit on the log strips: the
// leader's data-commit passes the new entry's index, then every follower's does.
import assert from 'node:assert/strict';
import { app, clickNode, open, overflowingCards, playUntil, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 120_000;

/** The strips' data attributes, by node. */
async function strips(page) {
  return page.$$eval('#raft-strips .rs-strip', (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.node, { ...e.dataset, entries: e.querySelectorAll('.rs-e').length }])),
  );
}

/** The topology overlay as drawn: arcs {node: fraction}, edges [{from, to, cls}]. */
async function overlay(page) {
  const [a, e] = await page.$eval('#topology', (c) => [c.dataset.arcs ?? '', c.dataset.edges ?? '']);
  const arcs = Object.fromEntries(a.split(' ').filter(Boolean).map((x) => { const [n, f] = x.split(':'); return [n, Number(f)]; }));
  const edges = e.split(' ').filter(Boolean).map((x) => { const [ft, cls] = x.split(':'); const [from, to] = ft.split('>'); return { from, to, cls: Number(cls) }; });
  return { arcs, edges };
}


export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'raft-leader-election');
  await settled(page);
  assert.equal((await app(page)).scenario, 'raft-leader-election');

  await clickNode(page, 'n1');
  await page.waitForSelector('#inspector[data-node="n1"] #raft-strips');
  let s = await strips(page);
  assert.deepEqual(Object.keys(s), ['n1', 'n2', 'n3', 'n4', 'n5'], 'the selected node first, then the others');
  assert.ok(Object.values(s).every((x) => x.role === 'follower'), 'everybody starts as a follower');
  assert.ok(await page.$('#election-left[data-left-us]'), 'a follower shows its election timer');
  // The state machine before any put: its map is said to be empty, not left blank.
  const sm = await page.$eval('#raft-sm', (e) => [...e.querySelectorAll('tr')].map((r) => r.innerText.replace(/\s+/g, ' ').trim()));
  assert.ok(sm.includes('kv empty'), `the empty kv map is shown: ${JSON.stringify(sm)}`);

  // The topology: an election-timer arc around every node, which runs down as time passes;
  // no vote arrows before anyone asked.
  let o = await overlay(page);
  assert.deepEqual(Object.keys(o.arcs).sort(), ['n1', 'n2', 'n3', 'n4', 'n5'], `arcs ${JSON.stringify(o.arcs)}`);
  assert.ok(Object.values(o.arcs).every((f) => f > 0 && f <= 1), `arc fractions ${JSON.stringify(o.arcs)}`);
  assert.deepEqual(o.edges, [], 'no votes yet');
  let o2 = o;
  for (let i = 0; i < 30 && !Object.keys(o.arcs).some((n) => o2.arcs[n] < o.arcs[n]); i++) {
    await page.click('#step');
    await settled(page);
    o2 = await overlay(page);
  }
  assert.ok(Object.keys(o.arcs).some((n) => o2.arcs[n] < o.arcs[n]), `a timer ran down: ${JSON.stringify(o.arcs)} -> ${JSON.stringify(o2.arcs)}`);

  // Play until some node leads.
  await playUntil(page, () => !!document.querySelector('#raft-strips .rs-strip[data-role="leader"]'));
  s = await strips(page);
  const leader = Object.keys(s).find((n) => s[n].role === 'leader');
  assert.ok(leader, 'a leader is elected');
  log(`leader ${leader} at ${(await app(page)).timeUs} us`);
  await page.waitForSelector(`#raft-strips[data-leader="${leader}"]`);
  // The votes of its term point at it (a majority with its own), and it has no timer arc.
  o = await overlay(page);
  const votes = o.edges.filter((d) => d.to === leader && d.cls === 0);
  assert.ok(votes.length + 1 >= 3, `vote arrows to ${leader}: ${JSON.stringify(o.edges)}`);
  assert.ok(!(leader in o.arcs), `the leader has no election timer: ${JSON.stringify(o.arcs)}`);
  assert.equal(Object.keys(o.arcs).length, 4, 'every follower keeps one');
  const legend = await page.$eval('.topo-card', (c) => c.textContent);
  assert.ok(legend.includes('election timer') && legend.includes('vote granted'), 'the legend names the overlay');
  await screenshot('elected');

  // Its strip first; the leader's startup entry of its term commits once a majority has it.
  await clickNode(page, leader);
  await page.waitForSelector(`#inspector[data-node="${leader}"] #raft-head[data-role="leader"]`);
  await playUntil(
    page,
    (l) => {
      const e = document.querySelector(`.rs-strip[data-node="${l}"]`);
      return e && Number(e.dataset.commit) >= Number(e.dataset.last) && Number(e.dataset.last) > 0;
    },
    leader,
  );
  s = await strips(page);
  const before = { last: Number(s[leader].last), commit: Number(s[leader].commit) };
  log(`before the request: ${JSON.stringify(before)}`);

  // A client request through the node panel's command: a new entry on the leader's strip.
  await page.waitForSelector('#act-client-put:not([disabled])');
  await page.click('#act-client-put');
  await settled(page);
  await playUntil(
    page,
    ([l, last]) => Number(document.querySelector(`.rs-strip[data-node="${l}"]`)?.dataset.last) > last,
    [leader, before.last],
  );
  s = await strips(page);
  const index = Number(s[leader].last);
  assert.ok(index > before.last, 'the request is appended to the leader\'s log');
  await shotOf(page, '#raft-strips', 'raft-strips-appended');

  // Commit: data-commit on the leader's strip reaches the entry, then on every follower's.
  await playUntil(
    page,
    ([l, i]) => Number(document.querySelector(`.rs-strip[data-node="${l}"]`)?.dataset.commit) >= i,
    [leader, index],
  );
  await playUntil(
    page,
    (i) => [...document.querySelectorAll('#raft-strips .rs-strip')].every((e) => Number(e.dataset.commit) >= i && Number(e.dataset.applied) >= i),
    index,
  );
  s = await strips(page);
  for (const [n, x] of Object.entries(s)) {
    assert.ok(Number(x.commit) > before.commit, `${n} commit ${x.commit} passed ${before.commit}`);
  }
  // The leader drew each follower's matchIndex at the entry.
  const follower = Object.keys(s).find((n) => n !== leader);
  assert.ok(Number(s[follower].match) >= index, `the leader's matchIndex for ${follower}: ${s[follower].match}`);
  assert.ok(Number((await page.getAttribute('#raft-client', 'data-acked')) ?? 0) >= 0);
  await shotOf(page, '.insp-card', 'raft-inspector');
  await screenshot('committed');

  // On a phone every card keeps to its width (the Threads table, six columns with executor
  // names like StateMachineUpdater, spilled 46-62 px out of the Raft and Ozone inspectors).
  await page.setViewportSize({ width: 390, height: 844 });
  for (const name of ['raft-slow-apply', 'ozone-write-pipeline', 'mutation-tracking-basics', 'cassandra-21636-restart']) {
    await page.selectOption('#scenario-select', name);
    await settled(page);
    await page.click('#next-caption');
    await settled(page);
    assert.deepEqual(await overflowingCards(page), [], `${name} at 390x844: cards wider than their box`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
