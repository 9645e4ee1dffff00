// Smoke test: the app loads, the wasm starts, Yew renders and marks #app ready.
import assert from 'node:assert/strict';

export async function run({ page, baseUrl, screenshot }) {
  const response = await page.goto(baseUrl);
  assert.equal(response.status(), 200);
  await page.waitForSelector('#app[data-ready="1"]', { timeout: 30_000 });
  assert.match(await page.textContent('#app'), /Clusterscope/);
  assert.equal(await page.title(), 'Clusterscope');
  await screenshot('loaded');
}
