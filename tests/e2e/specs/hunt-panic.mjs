// A hunt whose model panics (issue 43): wasm32 does not unwind, so a panic in a Web Worker's run
// stops that worker's module; `static/sweep-worker.js` answers "the model panicked in run N: ..."
// (the run it was in, from `note_run` in web/src/hunt/mod.rs) and the hunt stops with that error
// on its card, rather than waiting for the worker forever. The page's own module is not touched:
// the session stays as it was, no crash banner, and the next hunt runs (on fresh workers).
//
// The panic is planted: the worker script is served with `self.__csTestPanicRun = 40` in front,
// and the test hook in `note_run` panics when it runs that candidate (a real panicking input
// would stop failing once its bug is fixed; the CLI's hunt reports and shrinks such a panic,
// tests/tests/hunt.rs). Nothing a person can reach sets it: no URL, control or file.
import assert from 'node:assert/strict';
import { app, open, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 180_000;
// The worker's trap is reported in its console; the page itself must stay clean (checked below).
export const allowConsoleErrors = true;

const PLANTED = 40;

export async function run({ page, baseUrl, log }) {
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.context().route('**/sweep-worker.js', async (route) => {
    const res = await route.fetch();
    const body = await res.text();
    await route.fulfill({ response: res, body: `self.__csTestPanicRun = ${PLANTED};\n${body}` });
  });

  await page.setViewportSize({ width: 1366, height: 768 });
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'sandbox-raft');
  await settled(page);
  await page.waitForSelector('#checks[data-state="done"]', { timeout: 60_000 });
  const before = await app(page);

  await page.click('#checks summary');
  await page.click('.check-hunt');
  await page.waitForSelector('#hunt-panel[data-state="idle"]');
  // The sandbox keeps its invariants: without the planted panic this hunt would find nothing
  // in its budget, so the error can only be the panic.
  await page.selectOption('#hunt-target', '\u0001invariants');
  await page.fill('#hunt-budget', '2000');
  await page.fill('#hunt-seed', '1');
  await page.click('#hunt-start');
  await page.waitForSelector('#hunt-panel[data-state="error"]', { timeout: 120_000 });
  const note = await page.textContent('#hunt-panel .sweep-note');
  log(`error: ${note}`);
  assert.match(note, new RegExp(`^the model panicked in run ${PLANTED + 1}: .*planted by a test in candidate ${PLANTED}`), note);
  assert.match(await page.textContent('#hunt-panel .sweep-stats'), /stopped by an error/);
  // What it means and how to reproduce it: the CLI line of the same hunt.
  const what = await page.textContent('#hunt-result[data-found="panic"]');
  assert.match(what, /bug in the simulator's model.*clusterscope hunt sandbox-raft .*--invariants.*--hunt-seed 1/s, what);
  await shotOf(page, '#hunt-panel', 'hunt-panic-1366');

  // The page's module is alive and the session unchanged.
  assert.equal(await page.$('#crash'), null, 'no crash banner on the page');
  assert.deepEqual(pageErrors, [], 'no error in the page itself');
  const after = await app(page);
  for (const k of ['scenario', 'variant', 'userActions', 'step', 'ready']) {
    assert.equal(after[k], before[k], `the panic leaves ${k} as it was`);
  }
  await page.keyboard.press('ArrowRight');
  await settled(page);
  assert.notEqual((await app(page)).step, before.step, 'the page still steps');

  // A hunt that stops short of the planted run finishes on fresh workers.
  await page.fill('#hunt-budget', String(PLANTED - 8));
  await page.click('#hunt-start');
  await page.waitForSelector('#hunt-panel[data-state="not-found"]', { timeout: 120_000 });
  assert.match(await page.textContent('#hunt-result'), new RegExp(`No failing run in ${PLANTED - 8} runs`));
  assert.deepEqual(pageErrors, [], 'no error in the page itself');
}
