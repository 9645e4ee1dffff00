// The sweep panel says what a metric and a parameter mean (issue 41, "Say what a metric means",
// "Vary needs a catalogue"; core/src/catalogue.rs). sandbox-raft uses `preset = "teaching"`:
// typing timeout_min shows its value from the preset (1500ms), with its unit and range; the
// folded catalogue lists every Raft parameter with its value now; after a short sweep, each
// metric's histogram carries its sentence and unit. Screenshots at 1366x768 and 390x844.
import assert from 'node:assert/strict';
import { open, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 180_000;

export async function run({ page, baseUrl, log }) {
  for (const [w, h] of [[1366, 768], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    await open(page, baseUrl);
    await page.selectOption('#scenario-select', 'sandbox-raft');
    await settled(page);
    await page.click('#sweep-open');
    await page.waitForSelector('#sweep-panel[data-state="idle"]');

    // A parameter set by the preset, not by [params]: its value now, unit and range.
    await page.fill('#sweep-grid-key-0', 'timeout_min');
    await page.press('#sweep-grid-key-0', 'Tab');
    assert.equal(await page.inputValue('#sweep-grid-values-0'), '1500ms', 'the preset\'s value');
    const about = await page.textContent('#sweep-grid-about-0');
    assert.match(about, /now 1500ms \(preset\)/, about);
    assert.match(about, /duration · at least 4us/, about);
    // A name the model does not have is said to be so.
    await page.fill('#sweep-grid-key-1', 'timeout_mni');
    await page.press('#sweep-grid-key-1', 'Tab');
    assert.match(await page.textContent('#sweep-grid-about-1'), /not a parameter of this model/);
    await page.fill('#sweep-grid-key-1', '');
    await page.press('#sweep-grid-key-1', 'Tab');

    // The whole catalogue: every Raft parameter (27, with read_option, read_timeout, the
    // slowness and no-leader timeouts and the client's own timeout), with values.
    await page.click('#sweep-params summary');
    const params = await page.$$eval('.sweep-param', (els) => els.map((e) => ({ ...e.dataset })));
    assert.equal(params.length, 27, params.map((p) => p.name).join(','));
    const byName = Object.fromEntries(params.map((p) => [p.name, p.value]));
    assert.equal(byName.preset, '"teaching"');
    assert.equal(byName.timeout_max, '3s');
    assert.equal(byName.max_outstanding, '8');
    assert.equal(byName.step_down_wait, '10s');
    assert.equal(byName.read_option, '"default"');
    assert.equal(byName.slowness_timeout, '60s');
    assert.equal(byName.no_leader_timeout, '60s');
    assert.equal(byName.client_timeout, '3s');
    // A name fills the first free row, starting from its value.
    await page.click('.sweep-param[data-name="client_rate"] button');
    assert.equal(await page.inputValue('#sweep-grid-key-1'), 'client_rate');
    assert.match(await page.textContent('#sweep-grid-about-1'), /requests\/s · 0\.\.=10000/);
    await shotOf(page, '#sweep-panel', `sweep-catalogue-params-${w}`);

    if (w === 1366) {
      // A short sweep (no grid): every metric says what it means.
      await page.fill('#sweep-grid-key-0', '');
      await page.press('#sweep-grid-key-0', 'Tab');
      await page.fill('#sweep-grid-key-1', '');
      await page.press('#sweep-grid-key-1', 'Tab');
      await page.fill('#sweep-seeds', '3');
      await page.click('#sweep-start');
      await page.waitForSelector('#sweep-panel[data-state="done"]', { timeout: 120_000 });
      const metrics = await page.$$eval('.sweep-metric figcaption', (els) =>
        els.map((e) => ({ name: e.querySelector('b').textContent, title: e.querySelector('b').title, about: e.querySelector('.sweep-metric-about').textContent })),
      );
      assert.ok(metrics.length >= 8, JSON.stringify(metrics));
      for (const m of metrics) {
        assert.ok(m.about && !m.about.includes('no description'), `${m.name}: ${m.about}`);
        assert.equal(m.title, m.about);
      }
      const lat = metrics.find((m) => m.name === 'raft_client_latency_max_ms');
      assert.match(lat.about, /longest time .* \(ms\)/);
      log(`metrics described: ${metrics.map((m) => m.name).join(', ')}`);
      await shotOf(page, '.sweep-metrics', `sweep-catalogue-metrics-${w}`);
    }
  }
}
