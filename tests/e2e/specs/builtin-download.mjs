// Issue 44: the built-in scenarios' texts are not in the wasm but fetched from `scenarios/` when
// one is first opened (web/src/builtins.rs). The default opens with no fetch; another built-in
// is fetched once (busy, not ready and a notice meanwhile, then opened); a permalink to a
// built-in not fetched yet opens it on a fresh page; a failed fetch is an error naming the file,
// the session unchanged and the app usable, and choosing it again works once the file is back.
import assert from 'node:assert/strict';
import { app, bannerText, open, pickVariant, ready, settled } from './lib/app.mjs';
import { savedPayload } from './lib/session.mjs';

export const timeoutMs = 120_000;
// The refused fetch is reported by the browser as a failed resource load.
export const allowConsoleErrors = true;

export async function run({ page, baseUrl, screenshot, context, log }) {
  const fetched = [];
  page.on('request', (r) => {
    if (/\/scenarios\/[^/]+\.toml$/.test(r.url())) fetched.push(r.url().replace(/.*\/scenarios\//, ''));
  });
  await page.setViewportSize({ width: 1366, height: 768 });
  await open(page, baseUrl);
  assert.equal((await app(page)).scenario, 'cassandra-21636-packet-loss');
  assert.deepEqual(fetched, [], 'the default scenario is in the wasm: nothing fetched');
  await pickVariant(page, 'fixed');
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  const defaultLink = await savedPayload(page);
  assert.ok(defaultLink, 'the session is autosaved');

  // Another built-in, its file held back 1.5 s: the app says what it is doing and is busy.
  let release;
  const held = new Promise((ok) => (release = ok));
  await page.route('**/scenarios/raft-figure-8.toml', async (route) => {
    await held;
    await route.continue();
  });
  await page.selectOption('#scenario-select', 'raft-figure-8');
  await page.waitForSelector('#app[data-busy="1"][data-ready="0"]');
  const notice = await bannerText(page, 'info');
  log(notice);
  assert.match(notice, /Opening raft-figure-8: downloading its scenario file/);
  assert.equal((await app(page)).scenario, 'cassandra-21636-packet-loss', 'the current session stays meanwhile');
  await screenshot('downloading');
  release();
  await page.waitForSelector('#app[data-ready="1"][data-scenario="raft-figure-8"]');
  await settled(page);
  assert.deepEqual(fetched, ['raft-figure-8.toml']);
  assert.equal(await page.$('#banner[data-kind="info"]'), null, 'the notice goes once it opened');
  // Back to the default and again: nothing fetched twice.
  await page.selectOption('#scenario-select', 'cassandra-21636-packet-loss');
  await settled(page);
  await page.selectOption('#scenario-select', 'raft-figure-8');
  await settled(page);
  assert.equal((await app(page)).scenario, 'raft-figure-8');
  assert.deepEqual(fetched, ['raft-figure-8.toml'], 'a text is fetched once a page');
  await page.unroute('**/scenarios/raft-figure-8.toml');

  // The saved session (raft-figure-8) restores on a fresh page: its text is fetched first; a
  // link opened with it (the default scenario, `fixed`) is applied after it, not overtaken.
  const saved = await savedPayload(page);
  assert.equal(JSON.parse(JSON.stringify(saved)) !== defaultLink, true);
  const fresh = await context.newPage();
  await open(fresh, baseUrl);
  assert.equal((await app(fresh)).scenario, 'raft-figure-8', 'the saved session restores');
  await fresh.close();
  const linked = await context.newPage();
  await open(linked, `${baseUrl}#s=${defaultLink}`);
  const l = await app(linked);
  assert.deepEqual([l.scenario, l.variant], ['cassandra-21636-packet-loss', 'fixed'], 'the link wins over the saved session');
  await linked.close();
  // A permalink to a built-in not fetched yet, in a new browser context (no saved session).
  const other = await context.browser().newContext({ viewport: { width: 1366, height: 768 } });
  const op = await other.newPage();
  await open(op, `${baseUrl}#s=${saved}`);
  assert.equal((await app(op)).scenario, 'raft-figure-8', 'a permalink opens a built-in not fetched yet');
  await other.close();

  // Offline: the file cannot be fetched. An error names it; the session is unchanged and usable.
  await page.route('**/scenarios/*.toml', (route) => route.abort('internetdisconnected'));
  const before = await app(page);
  await page.selectOption('#scenario-select', 'hdds-17673-close-race');
  const err = await bannerText(page, 'error');
  log(err);
  assert.match(err, /Could not open the built-in scenario hdds-17673-close-race: could not download scenarios\/hdds-17673-close-race\.toml/);
  await settled(page);
  const after = await app(page);
  assert.equal(after.scenario, before.scenario, 'the session is unchanged');
  assert.equal(after.step, before.step);
  assert.equal(after.ready, '1');
  await page.keyboard.press('ArrowRight');
  await settled(page);
  assert.equal(Number((await app(page)).step), Number(before.step) + 1, 'the app still steps');
  assert.equal(await page.inputValue('#scenario-select'), 'raft-figure-8', 'the picker shows what is open');

  // Back online: choosing it again opens it.
  await page.unroute('**/scenarios/*.toml');
  await page.selectOption('#scenario-select', 'hdds-17673-close-race');
  await page.waitForSelector('#app[data-scenario="hdds-17673-close-race"]');
  await settled(page);
  assert.equal(await page.$('#banner[data-kind="error"]'), null, 'the error went');
}
