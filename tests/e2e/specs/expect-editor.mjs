// The expectation editor (issue 41, "Student's lab: expectations made in the app";
// web/src/ui/expect_editor.rs, core/src/user_expect.rs). In sandbox-raft: pick a view, see its
// value at the cursor, add an expectation that holds and one that fails on this run; both show
// their verdict (with the value observed) in the editor and in the Expectations list; bad input
// gets an inline error naming the field; they survive a permalink reload and an export ->
// import; a 20-seed sweep reports them; one can be removed. Screenshots at three sizes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { open, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 240_000;

const HOLDS = 'no violations at the end';
const FAILS = 'n1 stopped at 10s';

async function download(page, button) {
  await page.click('.menu summary');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return readFileSync(await dl.path(), 'utf8');
}

async function verdicts(page) {
  await page.waitForFunction(
    () => [...document.querySelectorAll('#expect-editor .ue-row')].every((r) => r.dataset.status !== 'checking')
      && document.querySelector('#checks')?.dataset.state === 'done',
    null,
    { timeout: 60_000 },
  );
  return page.$$eval('#expect-editor .ue-row', (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.name, { status: e.dataset.status, detail: e.querySelector('.ue-detail').textContent }])),
  );
}

async function checkBoth(page, where) {
  await page.evaluate(() => { document.querySelector('#expect-editor').open = true; document.querySelector('#checks').open = true; });
  const v = await verdicts(page);
  assert.equal(v[HOLDS]?.status, 'held', `${where}: ${JSON.stringify(v)}`);
  assert.equal(v[FAILS]?.status, 'failed', `${where}: ${JSON.stringify(v)}`);
  assert.match(v[FAILS].detail, /status is running, expected "stopped"/, where);
  // The Expectations list shows them too, marked as the person's.
  const row = (n) => page.$eval(`#checks .check-row[data-name="${n}"]`, (e) => ({ ...e.dataset }));
  assert.equal((await row(HOLDS)).mine, '1', where);
  assert.equal((await row(FAILS)).mine, '1', where);
  assert.ok(['failed', 'fails-later'].includes((await row(FAILS)).status), where);
}

async function add(page, { view, node, pred, value, when = 'at', at, name }) {
  await page.selectOption('#ue-view', view);
  if (node !== undefined) await page.selectOption('#ue-node', node);
  await page.selectOption('#ue-pred', pred);
  if (value !== undefined) await page.fill('#ue-value', value);
  await page.selectOption('#ue-when', when);
  if (at !== undefined) await page.fill('#ue-at', at);
  await page.fill('#ue-name', name ?? '');
  await page.click('#ue-add');
}

export async function run({ page, baseUrl, context, log }) {
  await page.setViewportSize({ width: 1366, height: 768 });
  await open(page, baseUrl);
  await page.selectOption('#new-scenario', 'sandbox-raft').catch(() => page.selectOption('#scenario-select', 'sandbox-raft'));
  await settled(page);
  await page.click('#expect-editor summary');

  // The view's description and its value at the cursor, as one picks.
  await page.selectOption('#ue-view', 'status');
  await page.selectOption('#ue-node', 'n1');
  assert.match(await page.textContent('#ue-view-about'), /process: running/);
  assert.equal(await page.getAttribute('#ue-now', 'data-value'), 'running');
  // A Raft view's sentence and unit (Raft's catalogue, in its part in the split build).
  await page.selectOption('#ue-view', 'commit_index');
  assert.match(await page.textContent('#ue-view-about'), /the highest log index the node knows to be committed \(index\)/);
  assert.equal((await page.textContent('#ue-view option[value="commit_index"]')).trim(), 'commit_index (index)');
  await page.selectOption('#ue-view', 'status');

  // Bad input: named field, the fix; nothing added, the app alive.
  await add(page, { view: 'violations', pred: 'at_least', value: 'many', at: '10s', name: 'x' });
  assert.equal(await page.getAttribute('#ue-error', 'data-field'), 'Value');
  assert.match(await page.textContent('#ue-error'), /not a number/);
  await add(page, { view: 'violations', pred: 'at_most', value: '0', at: '99s', name: 'x' });
  assert.equal(await page.getAttribute('#ue-error', 'data-field'), 'At');
  assert.match(await page.textContent('#ue-error'), /after the end of the run \(30s\)/);
  await add(page, { view: 'status', node: '', pred: 'equals', value: 'running', at: '10s', name: 'x' });
  assert.equal(await page.getAttribute('#ue-error', 'data-field'), 'Node');
  assert.equal(await page.getAttribute('#expect-editor', 'data-count'), '0');

  // One that holds, one that fails on this run.
  await add(page, { view: 'violations', pred: 'equals', value: '0', at: 'end', name: HOLDS });
  await page.waitForSelector('#expect-editor[data-count="1"]');
  await add(page, { view: 'status', node: 'n1', pred: 'equals', value: 'stopped', at: '10s', name: FAILS });
  await page.waitForSelector('#expect-editor[data-count="2"]');
  assert.equal(await page.$('#ue-error'), null);
  // A name taken is refused.
  await add(page, { view: 'violations', pred: 'equals', value: '0', at: 'end', name: HOLDS });
  assert.equal(await page.getAttribute('#ue-error', 'data-field'), 'Name');
  await checkBoth(page, 'added');
  for (const [w, h] of [[1366, 768], [1920, 1080], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.selectOption('#ue-view', 'status');
    await page.selectOption('#ue-node', 'n2');
    await shotOf(page, '#expect-editor', `expect-editor-${w}`);
  }
  await page.setViewportSize({ width: 1366, height: 768 });

  // A permalink reload keeps them.
  await page.waitForFunction(() => location.hash.length > 3);
  const link = await page.evaluate(() => location.href);
  const p2 = await context.newPage();
  await open(p2, link);
  await p2.waitForSelector('#expect-editor[data-count="2"]');
  await checkBoth(p2, 'permalink');
  await p2.close();

  // Export -> import keeps them ([[expect]] rows in the file, the person's again).
  const toml = await download(page, '#export-toml');
  assert.match(toml, /\n\[\[expect\]\]\n(\w+ = .*\n)*name = "n1 stopped at 10s"\n/);
  const p3 = await context.newPage();
  await open(p3, baseUrl);
  await p3.setInputFiles('#import', { name: 'lab.toml', mimeType: 'text/plain', buffer: Buffer.from(toml) });
  await settled(p3);
  await p3.waitForSelector('#expect-editor[data-count="2"]');
  await checkBoth(p3, 'import');
  assert.equal(await p3.getAttribute('#app', 'data-scenario'), 'sandbox-raft');
  await p3.close();

  // A 20-seed sweep reports them.
  await page.click('#sweep-open');
  await page.waitForSelector('#sweep-panel[data-state="idle"]');
  await page.fill('#sweep-seeds', '20');
  await page.click('#sweep-start');
  await page.waitForSelector('#sweep-panel[data-state="done"]', { timeout: 180_000 });
  const exp = (n) => page.$eval(`.sweep-exp[data-name="${n}"]`, (e) => ({ ...e.dataset }));
  const h = await exp(HOLDS);
  const f = await exp(FAILS);
  log(`sweep: ${HOLDS} ${h.count}/${h.runs}, ${FAILS} ${f.count}/${f.runs}`);
  assert.equal(h.runs, '20');
  assert.equal(f.runs, '20');
  assert.equal(h.count, '20');
  assert.equal(f.count, '0');
  await page.keyboard.press('Escape');
  await page.evaluate(() => document.querySelector('#sweep-close')?.click());

  // Removable.
  await page.evaluate(() => { document.querySelector('#expect-editor').open = true; });
  await page.click(`#expect-editor .ue-row[data-name="${FAILS}"] .ue-remove`);
  await page.waitForSelector('#expect-editor[data-count="1"]');
  await verdicts(page);
  assert.equal(await page.$(`#checks .check-row[data-name="${FAILS}"]`), null);
}
