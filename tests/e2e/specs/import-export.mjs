// Export the session as a scenario file and the trace as JSON lines; import the file back (same
// variant and actions, at the exported cursor); an invalid file gives an error naming the place
// and changes nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { app, bannerText, open, pickVariant, settled } from './lib/app.mjs';

export const timeoutMs = 90_000;

async function download(page, button) {
  await page.click('.menu summary');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return { name: dl.suggestedFilename(), text: readFileSync(await dl.path(), 'utf8') };
}

export async function run({ page, baseUrl, screenshot }) {
  await open(page, baseUrl);
  await pickVariant(page, 'fixed');
  await page.keyboard.press('c');
  await settled(page);
  await page.selectOption('#link-select', { label: 'A ↔ B' });
  await page.waitForSelector('#link-panel[data-link="A-B"]');
  await page.fill('#link-loss', '50');
  await page.click('#link-set-loss');
  await page.waitForSelector('#link-panel[data-ab="lossy"][data-ba="lossy"]');
  await page.keyboard.press('c');
  await settled(page);
  const before = await app(page);

  const toml = await download(page, '#export-toml');
  assert.equal(toml.name, 'cassandra-21636-packet-loss-fixed-seed1.toml');
  assert.match(toml.text, /# clusterscope: variant = "fixed"/);
  assert.match(toml.text, /\[\[recorded\]\]/);
  assert.match(toml.text, /action = "set-loss"/);

  const trace = await download(page, '#export-trace');
  assert.match(trace.name, /-trace\.jsonl$/);
  const lines = trace.text.trim().split('\n');
  assert.ok(lines.length > 100, `${lines.length} trace lines`);
  const recs = lines.map((l) => JSON.parse(l));
  assert.ok(recs.every((r) => r.step < Number(before.step)), 'the trace stops at the cursor');
  assert.ok(recs.some((r) => r.kind === 'action' && /loss 50\.0%/.test(r.action)));

  // An invalid file: a clear error, the session unchanged.
  await page.setInputFiles('#import', {
    name: 'broken.toml',
    mimeType: 'text/plain',
    buffer: Buffer.from('name = "x"\ntitle = 3\n'),
  });
  const err = await bannerText(page, 'error');
  assert.match(err, /broken\.toml/);
  assert.match(err, /line \d+/);
  assert.equal((await app(page)).step, before.step);
  await screenshot('import-error', { fullPage: false });

  // Importing the export replays the same actions in the same variant.
  await page.goto(baseUrl);
  await page.waitForSelector('#app[data-ready="1"]');
  await pickVariant(page, 'buggy');
  await page.setInputFiles('#import', {
    name: toml.name,
    mimeType: 'text/plain',
    buffer: Buffer.from(toml.text),
  });
  // (A fresh page: in the split build the scenario reader is fetched first, "Loading the
  // scenario reader…", then the file is imported.)
  await page.waitForFunction(() => /Imported/.test(document.querySelector('#banner[data-kind="info"] .banner-text')?.textContent || ''));
  await settled(page);
  let got = await app(page);
  assert.equal(got.variant, 'fixed');
  assert.equal(got.userActions, '1');
  assert.match(await page.textContent('#scenario-select'), /\(imported\)/);
  // It opens where it was exported (issue 14), in the same state.
  got = await app(page);
  assert.equal(got.timeUs, before.timeUs, 'opens at the exported cursor');
  assert.equal(got.step, before.step, 'same state at the same time');
}
