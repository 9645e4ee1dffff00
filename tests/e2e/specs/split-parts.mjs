// Issue 44: in the release build every model but gossip is a part of the wasm fetched when a
// scenario of it is first opened (scripts/wasm-split.mjs, `clusterscope_core::registry::load`).
// The default scenario (gossip, read ahead of time) opens with no part fetched and, unchanged,
// saves nothing; the session writer (the autosave, the link) is a part fetched at the first
// change (a refused fetch an error naming it, nothing written, the next change saves); the session
// reader (a link, the autosave) is a part fetched when a session is first read, and the scenario
// reader one fetched when a text is first read (a refused fetch an error naming it, the
// session unchanged, opening again retries); a ping-pong scenario fetches its
// part (busy and a notice meanwhile; the check's worker loads it too), a second opening fetches
// nothing; a part that cannot
// be fetched is an error naming the model, the session unchanged and the app usable. A model's
// panels come with its engine (Raft's; ping-pong's generic inspector), and the hunt card and the
// expectation editor's form are parts fetched at their first opening, a failed fetch a note naming
// it; a sweep's worker batches are a part its workers fetch at the first sweep; compare's code is a
// part fetched when a variant is first picked to compare with. Two parts come in every visit
// right after the first frame, not before it: the cards below the first screen (`below`: the
// sequence diagram, the plots, the log; placeholders of their size meanwhile, a refused fetch a
// note with a button that fetches it again), the topology card's node and link panels
// (`actions`: a placeholder of the node panel's height meanwhile, a refused fetch a note with a
// button; the Expectations card's rows too, its counts shown without them) and the check's whole run (`check_runs`, fetched by the Expectations check's worker). An unsplit
// build (CLUSTERSCOPE_SPLIT=0) has no parts: the spec then checks only that the models open.
import assert from 'node:assert/strict';
import { app, bannerText, clickNode, open, pickVariant, settled } from './lib/app.mjs';

export const timeoutMs = 120_000;
// The refused part is reported by the browser as a failed resource load, and by the loader.
export const allowConsoleErrors = true;

// The parts every visit fetches right after its first frame (ui/below.rs, ui/actions.rs,
// sweep/check.rs).
const AFTER_PAINT = /^(below-cards|actions-panels|actions-explain|check_runs-run)-/;
const others = (parts) => parts.filter((p) => !AFTER_PAINT.test(p));

// With the fetches of `glob` refused, `use` (a part's first use) then `read` (the error text it
// leaves): the session and the cursor as they were. Returns the text and the states before and
// after, for what each part checks beside.
async function refused(page, log, glob, use, read) {
  await page.route(glob, (route) => route.abort('internetdisconnected'));
  const was = await app(page);
  await use();
  const text = await read();
  log(text);
  const now = await app(page);
  assert.equal(now.scenario, was.scenario, 'the session is unchanged');
  assert.equal(now.step, was.step, 'the cursor is unchanged');
  await page.unroute(glob);
  return { text, was, now };
}

// The scenario writer (`Scenario::to_toml`: the session as a scenario file with its recorded
// actions, which the Expectations check runs; a plan's digest) is the session writer's part's
// second module: a first action recorded with the part refused leaves the check an error naming
// it (never a check of the scenario without the action), and once the part is in, the next
// change is checked. In a fresh context: the first visit's first changes.
async function scenarioWriter(browser, baseUrl, log) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  try {
    const page = await context.newPage();
    const parts = [];
    page.on('requestfinished', (r) => {
      if (/\/split\/[^/]+\.wasm$/.test(r.url())) parts.push(r.url().replace(/.*\/split\//, ''));
    });
    const writerGlob = '**/split/session_write-*.wasm';
    await page.route(writerGlob, (route) => route.abort('internetdisconnected'));
    await open(page, baseUrl);
    await page.waitForSelector('#checks[data-state="done"]', { timeout: 60_000 });
    // Another variant of the default scenario (its parameters) needs no reader either.
    await pickVariant(page, 'fixed');
    await page.waitForSelector('#checks[data-state="done"]', { timeout: 60_000 });
    assert.deepEqual(others(parts), [], `the default scenario's variants fetch no part: ${parts.join(', ')}`);
    await clickNode(page, 'C');
    await page.click('#act-stop');
    await settled(page);
    assert.equal((await app(page)).userActions, '1');
    await page.waitForSelector('#checks[data-state="error"]', { timeout: 30_000 });
    const err = await page.textContent('#checks .checks-note.error');
    log(err);
    assert.match(err, /Could not check: the session writer's code did not load \(a part of the app, split\/session_write/);
    assert.ok(!parts.some((p) => p.startsWith('session_write-')), `no writer loaded: ${parts.join(', ')}`);
    await page.unroute(writerGlob);
    // The next change: the writers' part is fetched and the session with both actions checked.
    const was = await page.$eval('#checks', (d) => d.dataset.session);
    // C again, once it has stopped (a few steps on).
    for (let i = 0; i < 200 && (await page.$('#act-start[disabled]')); i++) {
      await page.keyboard.press('ArrowRight');
      await settled(page);
    }
    await page.click('#act-start');
    await settled(page);
    assert.equal((await app(page)).userActions, '2');
    await page.waitForFunction((s) => {
      const d = document.querySelector('#checks')?.dataset;
      return d && d.state === 'done' && d.session !== s;
    }, was, { timeout: 60_000 });
    assert.ok(parts.some((p) => p.startsWith('session_write-write_toml-')), `the scenario writer is fetched: ${parts.join(', ')}`);
  } finally {
    await context.close();
  }
}

// A part refused (`part`): once `ready` sees its placeholders say so, the note (`note`) names the
// part, `before` checks what is missing, the app steps meanwhile; then the part is let through,
// the note's button (`retry`) pressed, and `after` checks what came.
async function partRefused(browser, baseUrl, log, { part, ready, note, before = async () => {}, retry, after }) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  try {
    const page = await context.newPage();
    const files = `**/split/${part}-*.wasm`;
    await page.route(files, (route) => route.abort('internetdisconnected'));
    await open(page, baseUrl);
    await ready(page);
    const text = await page.textContent(note);
    log(text);
    assert.match(text, new RegExp(`did not load \\(a part of the app, split/${part}`));
    await before(page);
    const was = Number((await app(page)).step);
    await page.keyboard.press('ArrowRight');
    await settled(page);
    assert.equal(Number((await app(page)).step), was + 1, 'the app steps meanwhile');
    await page.unroute(files);
    await page.click(retry);
    await after(page);
  } finally {
    await context.close();
  }
}

// The cards below the first screen with their part refused: each says so with a button; the
// app is ready and usable; a press fetches the part and the three cards come.
function belowRefused(browser, baseUrl, log) {
  return partRefused(browser, baseUrl, log, {
    part: 'below',
    ready: (page) =>
      page.waitForFunction(() => document.querySelectorAll('.below-wait[data-part="error"]').length === 3, null, { timeout: 10_000 }),
    note: '.seq-card .part-note',
    retry: '.log-card .part-note button',
    after: async (page) => {
      await page.waitForFunction(() => document.querySelectorAll('.below-wait').length === 0, null, { timeout: 10_000 });
      await page.waitForSelector('.log-card #log-search', { state: 'attached' });
    },
  });
}

// The topology card's actions with their part refused: the panel says so with a button; the
// app is ready and usable; a press fetches the part and the node's panel comes, and a link's
// panel opens at once after it.
function actionsRefused(browser, baseUrl, log) {
  return partRefused(browser, baseUrl, log, {
    part: 'actions',
    ready: (page) => page.waitForSelector('.topo-card .panel-wait[data-part="error"]', { timeout: 10_000 }),
    note: '.topo-card .panel-wait .part-note',
    before: async (page) => {
      assert.equal(await page.$('#node-panel'), null, 'no node panel without its part');
      // The help overlay, gossip's explanation and the fork bar are the same part: each says
      // so in its place.
      await page.keyboard.press('?');
      await page.waitForSelector('#help-wait .part-note', { timeout: 10_000 });
      assert.match(await page.textContent('#help-wait'), /did not load \(a part of the app, split\/actions/);
      assert.equal(await page.$('#help'), null, 'no help without its part');
      await page.keyboard.press('Escape');
      await page.waitForSelector('#help-wait', { state: 'detached' });
      await page.click('#explain-toggle');
      await page.waitForSelector('.topo-card .explain[data-part="error"] .part-note', { timeout: 10_000 });
      assert.equal(await page.$('#explain'), null, 'no explanation without its part');
      await page.click('#fork-here');
      await page.waitForSelector('#tl-fork-wait .part-note', { timeout: 10_000 });
      assert.equal(await page.$('#tl-fork'), null, 'no fork bar without its part');
      await page.click('#tl-fork-close');
      // The Expectations card's rows too: its counts come with the check, "done" with the note
      // in the rows' place.
      await page.waitForSelector('#checks[data-state="done"]', { timeout: 60_000 });
      assert.match(await page.textContent('#checks summary'), /expectations: \d+ ✓ 0 ✗/);
      assert.match(await page.textContent('#checks-wait'), /did not load \(a part of the app, split\/actions/);
      assert.equal(await page.$('#checks .check-row'), null, 'no rows without their part');
    },
    retry: '.topo-card .panel-wait .part-note button',
    after: async (page) => {
      await page.waitForSelector('#node-panel #act-isolate', { timeout: 10_000 });
      assert.equal(await page.$('.panel-wait'), null, 'the placeholder is gone');
      await page.waitForSelector('#explain[data-node]', { timeout: 10_000 });
      assert.ok((await page.textContent('#explain')).length > 20, "gossip's explanation drawn once the part is in");
      await page.click('#explain-toggle');
      await page.keyboard.press('?');
      await page.waitForSelector('#help', { timeout: 10_000 });
      assert.match(await page.textContent('#help'), /next interesting event/);
      await page.keyboard.press('Escape');
      await page.click('#fork-here');
      await page.waitForSelector('#tl-fork', { timeout: 10_000 });
      await page.click('#tl-fork-close');
      await page.selectOption('#link-select', { index: 1 });
      await page.waitForSelector('#link-panel #link-drop-both', { timeout: 10_000 });
      assert.equal(await page.$('.panel-wait'), null, "the link's panel needs no other fetch");
      await page.waitForSelector('#checks .check-row', { state: 'attached', timeout: 10_000 });
      assert.equal(await page.$('#checks-wait'), null, "the rows' note is gone");
    },
  });
}

export async function run({ page, baseUrl, log }) {
  const split = (await (await fetch(`${baseUrl}__wasm_split.js`)).status) === 200;
  log(`split build: ${split}`);
  if (split) await scenarioWriter(page.context().browser(), baseUrl, log);
  if (split) await belowRefused(page.context().browser(), baseUrl, log);
  if (split) await actionsRefused(page.context().browser(), baseUrl, log);
  const parts = [];
  page.on('request', (r) => {
    if (/\/split\/[^/]+\.wasm$/.test(r.url())) parts.push(r.url().replace(/.*\/split\//, ''));
  });
  await page.setViewportSize({ width: 1366, height: 768 });
  await open(page, baseUrl);
  assert.equal((await app(page)).scenario, 'cassandra-21636-packet-loss');
  assert.deepEqual(others(parts), [], 'gossip is in the main module: no part fetched');
  if (split) {
    // The cards below the first screen: placeholders in the first frame, then the cards.
    const attached = { state: 'attached', timeout: 10_000 };
    await page.waitForSelector('.seq-card:not(.below-wait) .chips', attached);
    await page.waitForSelector('.plots-card:not(.below-wait) canvas.plot-canvas', attached);
    await page.waitForSelector('.log-card:not(.below-wait) #log-search', attached);
    await page.waitForSelector('.topo-card #node-panel #act-isolate', attached);
    await page.waitForSelector('#checks[data-state="done"]', { timeout: 60_000 });
    const kinds = parts.map((p) => p.replace(/-[0-9a-f]+\.wasm$/, ''));
    assert.deepEqual(kinds.filter((k) => k === 'below-cards'), ['below-cards'], `the cards' part, once: ${parts.join(', ')}`);
    assert.deepEqual(kinds.filter((k) => k === 'actions-panels'), ['actions-panels'], `the actions' part, once: ${parts.join(', ')}`);
    assert.deepEqual(kinds.filter((k) => k === 'actions-explain'), ['actions-explain'], `gossip's explanation with it: ${parts.join(', ')}`);
    assert.ok(!kinds.some((k) => k.startsWith('gossip_views')), `gossip's views as JSON are never fetched: ${parts.join(', ')}`);
    assert.ok(kinds.includes('check_runs-run'), `the check's worker fetches its run: ${parts.join(', ')}`);
  }
  // The session writer (the autosave, the link) is a part too: a first visit that changes
  // nothing saves nothing and fetches it not; the first change does. A refused writer is an
  // error naming it, the session shown as it was; the next change saves.
  const writerGlob = '**/split/session_write-*.wasm';
  const wrote = () => page.waitForFunction(() => location.hash.length > 1, null, { timeout: 10_000 });
  if (split) {
    await page.waitForTimeout(500);
    assert.deepEqual(others(parts), [], 'a first visit that changed nothing fetches no part (nothing to save)');
    assert.equal(await page.evaluate(() => location.hash), '', 'nothing in the address bar');
    await page.route(writerGlob, (route) => route.abort('internetdisconnected'));
    await page.keyboard.press('ArrowRight');
    await settled(page);
    const err = await bannerText(page, 'error');
    log(err);
    assert.match(err, /Your session could not be saved: the session writer's code did not load \(a part of the app, split\/session_write/);
    assert.equal(await page.evaluate(() => location.hash), '', 'nothing written');
    await page.unroute(writerGlob);
  }
  // A reload (the session in the link and the autosave, naming the default scenario) reads no
  // scenario text: only the session reader is fetched (a part of its own), the session as it
  // was. A refused session reader is an error naming it, the default scenario shown and the
  // saved session kept: the next reload restores it.
  await page.keyboard.press('ArrowRight');
  await settled(page);
  const stepped = (await app(page)).step;
  await wrote();
  if (split) {
    const kinds = others(parts).map((p) => p.replace(/-[0-9a-f]+\.wasm$/, ''));
    // Its two modules: the session's writer and the scenario's (`Scenario::to_toml`).
    assert.deepEqual([...new Set(kinds)].sort(), ['session_write-write', 'session_write-write_toml'], 'the first change fetches the writers alone');
  }
  if (split) {
    await page.route('**/split/session-*.wasm', (route) => route.abort('internetdisconnected'));
    await page.reload();
    const err = await bannerText(page, 'error');
    log(err);
    assert.match(err, /Could not read the session: the session reader's code did not load \(a part of the app, split\/session/);
    assert.match(err, /Your saved session stays saved/);
    await page.waitForSelector('#app[data-ready="1"]');
    assert.equal((await app(page)).scenario, 'cassandra-21636-packet-loss');
    await page.unroute('**/split/session-*.wasm');
    parts.length = 0;
  }
  await page.reload();
  await page.waitForSelector('#app[data-ready="1"]');
  await settled(page);
  assert.equal((await app(page)).step, stepped, 'the session is restored');
  // The autosave then writes the restored session to compare it with the saved one: the writer.
  if (split) await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /\/split\/session_write-/.test(e.name)), null, { timeout: 10_000 });
  const kinds = others(parts).map((p) => p.replace(/-[0-9a-f]+\.wasm$/, ''));
  assert.deepEqual([...kinds].sort(), split ? ['session-read', 'session_write-write', 'session_write-write_toml'] : [], 'a session of the default scenario fetches only the session reader and writer');
  parts.length = 0;
  // The default scenario is read ahead of time: its first frame needs no scenario reader. Any
  // other scenario's text is read by the reader, a part fetched when a text is first read; a
  // fetch that fails is an error naming it, the session and cursor unchanged.
  if (split) {
    const { text: err } = await refused(page, log, '**/split/reader-*.wasm',
      () => page.selectOption('#scenario-select', 'pingpong'),
      async () => { const t = await bannerText(page, 'error'); await settled(page); return t; });
    assert.match(err, /Could not read the scenario: the scenario reader's code did not load \(a part of the app, split\/reader/);
    assert.equal((await app(page)).ready, '1', 'the app is usable');
    assert.ok(!parts.some((p) => p.startsWith('pingpong')), `no model part without the reader: ${parts.join(', ')}`);
  }

  // Ping-pong's part, held back 1 s: the app says so and is busy meanwhile.
  let release;
  const held = new Promise((ok) => (release = ok));
  await page.route('**/split/*pingpong*.wasm', async (route) => {
    await held;
    await route.continue();
  });
  await page.selectOption('#scenario-select', 'pingpong');
  if (split) {
    await page.waitForSelector('#banner[data-kind="info"]');
    const notice = await bannerText(page, 'info');
    log(notice);
    assert.match(notice, /Loading the pingpong model|Loading the scenario reader|downloading its scenario file/);
    await page.waitForFunction(() => /Loading the pingpong model/.test(document.querySelector('#banner .banner-text')?.textContent || ''));
    assert.equal((await app(page)).ready, '0', 'not ready while the part loads');
    assert.equal((await app(page)).scenario, 'cassandra-21636-packet-loss', 'the current session stays meanwhile');
  }
  setTimeout(release, 1000);
  await page.waitForSelector('#app[data-ready="1"][data-scenario="pingpong"]');
  await settled(page);
  const at = Number((await app(page)).step);
  await page.keyboard.press('ArrowRight');
  await settled(page);
  assert.equal(Number((await app(page)).step), at + 1, 'the ping-pong run steps');
  // The page's instance and the Expectations check's worker (its own instance) load it: its
  // engine and its panels (the generic inspector), two modules.
  const pingpong = parts.filter((p) => p.includes('pingpong'));
  if (split) {
    assert.ok(pingpong.length >= 2 && pingpong.length <= 4, `the part is fetched by the page and the check's worker: ${parts.join(', ')}`);
    assert.ok(pingpong.some((p) => p.startsWith('pingpong-enter-')) && pingpong.some((p) => p.startsWith('pingpong-panels-')), `ping-pong's engine and panels: ${parts.join(', ')}`);
    // The reader, once refused above, is fetched when the text is read again, before the model.
    const reader = parts.findIndex((p) => p.startsWith('reader-'));
    assert.ok(reader >= 0 && reader < parts.findIndex((p) => p.startsWith('pingpong')), `the reader, then the model: ${parts.join(', ')}`);
    // The reader's part also holds serde's readings of gossip's parameters and of the faults,
    // which the default scenario's hand-typed ones stand in for (`core/src/typed.rs`), and of a
    // `[gossip]` section (`gossip/init.rs`), which no built-in default has.
    for (const m of ['params_serde', 'faults_serde', 'gossip_init_serde']) {
      assert.ok(parts.some((p) => p.startsWith(`reader-${m}-`)), `the reader's module ${m}: ${parts.join(', ')}`);
    }
  }
  await clickNode(page, 'n3');
  await page.waitForSelector('#inspector[data-node="n3"] #node-views');
  // A gossip scenario with a `[gossip]` section (its initial endpoint maps), read by serde in
  // the reader's part: it opens.
  await page.selectOption('#scenario-select', 'gossip-digest-exchange');
  await settled(page);
  assert.equal((await app(page)).scenario, 'gossip-digest-exchange');
  assert.equal(await page.$('#banner[data-kind="error"]'), null, 'no error');
  // Back to gossip and again: nothing more fetched.
  const before = others(parts).length;
  await page.selectOption('#scenario-select', 'cassandra-21636-packet-loss');
  await settled(page);
  await page.selectOption('#scenario-select', 'sandbox-pingpong');
  await page.waitForSelector('#app[data-ready="1"][data-scenario="sandbox-pingpong"]');
  // (A check's worker is a new instance each time: it fetches the check's run again.)
  assert.equal(others(parts).length, before, 'a part is fetched once a page');
  await page.unroute('**/split/*pingpong*.wasm');

  // A model's panels come with its engine: one part, its modules fetched together (the
  // splitter makes a module per split point: `raft-enter-*`, core's engine, and `raft-panels-*`,
  // the web app's inspector); the inspector draws at once.
  await page.selectOption('#scenario-select', 'raft-leader-election');
  await page.waitForSelector('#app[data-ready="1"][data-scenario="raft-leader-election"]');
  await settled(page);
  if (split) {
    const raft = parts.filter((p) => p.startsWith('raft-'));
    assert.ok(raft.some((p) => p.startsWith('raft-enter-')) && raft.some((p) => p.startsWith('raft-panels-')), `Raft's engine and panels: ${parts.join(', ')}`);
  }
  await clickNode(page, 'n1');
  await page.waitForSelector('#inspector[data-node="n1"] #raft-strips');

  // The hunt card is a part of its own (issue 44), fetched at its first opening: none before;
  // a fetch that fails leaves a note naming the part and the session as it was; pressing again
  // opens the card.
  assert.ok(!parts.some((p) => p.startsWith('hunt')), `no hunt code before the card opens: ${parts.join(', ')}`);
  if (split) {
    const { text: note } = await refused(page, log, '**/split/hunt-*.wasm',
      () => page.click('#hunt-open'),
      async () => (await page.waitForSelector('[data-part="error"]')).textContent());
    assert.match(note, /The hunt's code did not load \(a part of the app, split\/hunt/);
    assert.equal(await page.$('#hunt-panel'), null, 'no card without its code');
  }
  await page.click('#hunt-open');
  await page.waitForSelector('#hunt-panel[data-state="idle"]');
  if (split) assert.ok(parts.some((p) => p.startsWith('hunt-card-')), `the hunt card's part: ${parts.join(', ')}`);
  assert.equal(await page.$('[data-part]'), null, 'no note once the card is in');
  await page.click('#hunt-close');
  await page.selectOption('#scenario-select', 'cassandra-21636-packet-loss');
  await page.waitForSelector('#app[data-ready="1"][data-scenario="cassandra-21636-packet-loss"]');
  await settled(page);

  // The expectation editor's form is a part (issue 44), fetched when the card is first opened:
  // none before; a fetch that fails leaves a note naming the part in the card, the session as it
  // was; opening the card again fetches it and the form draws.
  assert.ok(!parts.some((p) => p.startsWith('editor-')), `no editor code before the card opens: ${parts.join(', ')}`);
  if (split) {
    const { text: note } = await refused(page, log, '**/split/editor-*.wasm',
      () => page.click('#expect-editor summary'),
      async () => (await page.waitForSelector('#expect-editor [data-part="error"]')).textContent());
    assert.match(note, /The expectation editor did not load \(a part of the app, split\/editor/);
    assert.equal(await page.$('#ue-view'), null, 'no form without its code');
    await page.click('#expect-editor summary'); // closed
  }
  await page.click('#expect-editor summary');
  await page.waitForSelector('#expect-editor #ue-view');
  if (split) assert.ok(parts.some((p) => p.startsWith('editor-form-')), `the editor's part: ${parts.join(', ')}`);
  assert.equal(await page.$('#expect-editor [data-part]'), null, 'no note once the form is in');
  await page.selectOption('#ue-view', 'liveness');
  await page.waitForSelector('#ue-view-about:not(:empty)');

  // A sweep's batches are a part the workers fetch at the first sweep (not when the card opens).
  assert.ok(!parts.some((p) => p.startsWith('sweep_runs-')), `no sweep batches before a sweep: ${parts.join(', ')}`);
  await page.click('#sweep-open');
  await page.waitForSelector('#sweep-panel[data-state="idle"]');
  assert.ok(!parts.some((p) => p.startsWith('sweep_runs-')), `no sweep batches when the card opens: ${parts.join(', ')}`);
  await page.fill('#sweep-seeds', '4');
  await page.click('#sweep-start');
  await page.waitForSelector('#sweep-panel[data-state="done"]', { timeout: 60_000 });
  if (split) assert.ok(parts.some((p) => p.startsWith('sweep_runs-batch-')), `the workers fetch the sweep batches: ${parts.join(', ')}`);
  await page.click('#sweep-close');
  await settled(page);

  // Compare's code is a part (issue 44), fetched when a variant is first picked to compare with:
  // none before; a fetch that fails is an error naming the part, compare off, the session and
  // cursor unchanged; picking the variant again fetches it and compare opens.
  assert.ok(!parts.some((p) => p.startsWith('compare-')), `no compare code before compare: ${parts.join(', ')}`);
  if (split) {
    const { text: err, was, now } = await refused(page, log, '**/split/compare-*.wasm',
      () => page.selectOption('#compare-select', 'fixed'),
      async () => { const t = await bannerText(page, 'error'); await settled(page); return t; });
    assert.match(err, /Could not compare: the compare view's code did not load \(a part of the app, split\/compare/);
    assert.equal(now.compare, undefined, 'compare stays off');
    assert.equal(now.variant, was.variant, 'the variant is unchanged');
    assert.equal(await page.$eval('#compare-select', (s) => s.value), '', 'the picker says compare… again');
  }
  await page.selectOption('#compare-select', 'fixed');
  await page.waitForSelector('#cmp-b[data-variant="fixed"]');
  await page.waitForSelector('#compare-bar[data-state="found"]', { timeout: 30_000 });
  assert.equal((await app(page)).compare, 'fixed');
  if (split) assert.ok(parts.some((p) => p.startsWith('compare-')), `compare's part: ${parts.join(', ')}`);
  await page.click('#compare-close');
  await settled(page);
  assert.equal((await app(page)).compare, undefined, 'compare closed');

  if (!split) return;
  // A part that cannot be fetched (offline): an error naming the model; the session unchanged.
  await page.route('**/split/*.wasm', (route) => route.abort('internetdisconnected'));
  const was = await app(page);
  await page.selectOption('#scenario-select', 'sandbox-mutation-tracking');
  const err = await bannerText(page, 'error');
  log(err);
  assert.match(err, /Could not open a scenario of the mutation-tracking model: the code of the mutation-tracking model did not load/);
  await settled(page);
  const after = await app(page);
  assert.equal(after.scenario, was.scenario, 'the session is unchanged');
  assert.equal(after.ready, '1');
  await page.keyboard.press('ArrowRight');
  await settled(page);
  assert.equal(Number((await app(page)).step), Number(was.step) + 1, 'the app still steps');
}
