// Issue 39: a panic inside the simulator, and an allocation the browser refuses, stop the
// WebAssembly module for good (wasm32 is panic=abort: a trap). The page must say so and stay
// usable: a banner with the message and the way back, no further call into the module (no new
// page error whatever the person does), the autosaved session untouched, and its reload button
// brings the saved session back.
//
// The failure is planted with a test hook, `wasmBindings.test_fail_next_update(what)` (web/src/
// crash.rs, main.rs): the next message the reducer handles panics with `what`, inside
// `Store::reduce` with the model borrowed, where a real bug fails (the mutation model's index out
// of bounds did, in a step); "out of memory" makes it allocate until the browser refuses. No
// input reaches the hook: no URL, control or file, only JavaScript run in the page, which can
// break the page anyway. A real panicking input would stop failing once its bug is fixed.
import assert from 'node:assert/strict';
import { app, open, pickVariant, ready, settled } from './lib/app.mjs';
import { savedPayload } from './lib/session.mjs';

export const timeoutMs = 120_000;
// The trap itself is an uncaught page error; the spec counts the ones after it.
export const allowConsoleErrors = true;

async function quiet(page) {
  await settled(page);
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
}

/** Everything a person might do to a stopped page: keys, clicks, a wheel, a resize, time. */
async function poke(page) {
  // Not on the banner's focused button (a key there would press it).
  await page.evaluate(() => document.activeElement?.blur());
  for (const k of ['ArrowRight', ' ', 'e', 'Home', 'x', '?']) await page.keyboard.press(k);
  const tl = await page.locator('#timeline').boundingBox();
  await page.mouse.click(tl.x + tl.width / 2, tl.y + tl.height / 2);
  await page.mouse.wheel(0, 300);
  await page.mouse.click(20, 300);
  await page.setViewportSize({ width: 1000, height: 700 });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.evaluate(() => window.dispatchEvent(new HashChangeEvent('hashchange')));
  await page.waitForTimeout(1500);
}

/** Traps and panics static/crash.js saw, and the page's errors. */
async function failures(page, errors) {
  const n = await page.evaluate(() => ({ traps: window.__csTraps, panics: window.__csPanics }));
  return { ...n, errors: errors.length };
}

export async function run({ page, baseUrl, screenshot, log }) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));

  await open(page, baseUrl);
  await pickVariant(page, 'fixed');
  await page.keyboard.press('c');
  await quiet(page);
  const want = await app(page);
  const saved = await savedPayload(page);
  assert.ok(saved);
  assert.equal(errors.length, 0, errors.join('\n'));

  // A panic in the next step.
  await page.evaluate(() => window.wasmBindings.test_fail_next_update('planted by crash.mjs: index out of bounds'));
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('#crash[data-kind="panic"]', { timeout: 10_000 });
  const message = await page.textContent('#crash-message');
  log(message);
  assert.match(message, /^planted by crash\.mjs: index out of bounds \(at web\/src\/crash\.rs:\d+\)$/);
  const all = await page.textContent('#crash');
  assert.match(all, /The simulator stopped/);
  assert.match(all, /Your session is kept: cassandra-21636-packet-loss \(fixed\) at .* was saved before this happened/);
  assert.equal(await page.getAttribute('#app', 'inert'), '');
  assert.equal(await page.textContent('#crash-reload'), 'Reload the saved session');
  await screenshot('stopped', { fullPage: false });
  const after = await failures(page, errors);
  log(`at the stop: ${JSON.stringify(after)}; ${errors.join(' | ').slice(0, 300)}`);
  assert.equal(after.traps, 1);
  assert.equal(after.panics, 1);

  // The tab answers, and nothing the person does reaches the module any more.
  await poke(page);
  assert.deepEqual(await failures(page, errors), after, `no trap, panic or error after the stop: ${errors.slice(after.errors)}`);
  assert.equal(await page.evaluate(() => document.querySelector('#crash') !== null), true);
  assert.equal(await savedPayload(page), saved, 'the autosave is the session before the panic');

  // The way back: a reload into the saved session.
  await Promise.all([page.waitForEvent('load'), page.click('#crash-reload')]);
  await ready(page);
  await quiet(page);
  const back = await app(page);
  for (const k of ['scenario', 'variant', 'step', 'userActions']) {
    assert.equal(back[k], want[k], `${k} after the reload`);
  }
  assert.equal(await page.$('#crash'), null);
  assert.equal(await page.getAttribute('#app', 'inert'), null);

  // Out of memory: the module traps without a panic; the banner says what was refused.
  const before = errors.length;
  await page.evaluate(() => window.wasmBindings.test_fail_next_update('out of memory'));
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('#crash[data-kind="oom"]', { timeout: 30_000 });
  const oom = await page.textContent('#crash-message');
  log(oom);
  assert.match(oom, /^it ran out of memory: the browser refused 1\.00 GiB more with \d\.\d\d GiB of WebAssembly memory in use/);
  const after2 = await failures(page, errors);
  log(`at the out-of-memory stop: ${JSON.stringify(after2)} (${after2.errors - before} new errors)`);
  assert.equal(after2.traps, 1);
  assert.equal(after2.panics, 0);
  await poke(page);
  assert.deepEqual(await failures(page, errors), after2, 'no trap, panic or error after the out-of-memory stop');
  assert.equal(await savedPayload(page), saved);
  await screenshot('oom', { fullPage: false });
}
