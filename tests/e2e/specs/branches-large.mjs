// Branches above 64 nodes (issue 18): their expectations are not run by themselves (a whole
// 251-node run each) but on request. In cassandra-21636-echo-race (buggy, 251 nodes) a kill
// from a log line forks the run; the branch list shows both branches unevaluated and an
// "Evaluate expectations" button; after a click both get their results from the worker: the
// original's "at least one observer is wedged" holds for seed 1 (as `clusterscope run` says),
// and the branch's result is known too. The button goes once asked.
import assert from 'node:assert/strict';
import { app, branchList, chapterBefore, open, settled } from './lib/app.mjs';

export const timeoutMs = 180_000;

export async function run({ page, baseUrl, screenshot, log }) {
  await open(page, baseUrl);
  await page.selectOption('#scenario-select', 'cassandra-21636-echo-race');
  await settled(page);
  await page.click('#variants [data-variant="buggy"]');
  await settled(page);
  // Past the restart of n100 (30 s) and its return (40 s): the echoes have raced.
  await chapterBefore(page, 60_000_000);

  const line = page.locator('#log .ll').first();
  const at = await line.getAttribute('data-time-us');
  await line.click();
  await settled(page);
  await page.waitForSelector(`#log-fork[data-time-us="${at}"]`);
  await page.click('#log-fork-kill');
  await settled(page);
  assert.equal((await app(page)).userActions, '1', 'the kill is recorded');

  await page.waitForSelector('#branches');
  let bs = await page.$$eval('#branches .branch', (b) => b.map((x) => ({ ...x.dataset })));
  assert.equal(bs.length, 2, JSON.stringify(bs));
  assert.deepEqual(bs.map((b) => b.passed), ['unknown', 'unknown'], 'not evaluated by themselves above 64 nodes');
  assert.ok(await page.$('#branches-eval'), 'a button offers the evaluation');
  await screenshot('unevaluated');

  await page.click('#branches-eval');
  bs = await branchList(page);
  log(`evaluated: ${bs.map((b) => `${b.branch}:${b.passed}`).join(' ')}`);
  assert.equal(bs[0].passed, 'true', `the original run: ${bs[0].text}`);
  assert.ok(['true', 'false'].includes(bs[1].passed), `the fork: ${bs[1].text}`);
  assert.equal(await page.$('#branches-eval'), null, 'asked once: the button goes');
  await screenshot('evaluated');
}
