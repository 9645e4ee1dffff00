// "Find a run where this fails" in the app (issue 43; web/src/hunt/, web/src/ui/hunt.rs).
// sandbox-raft [sandbox] has no scripted faults and holds "one leader once the election settles";
// `clusterscope hunt sandbox-raft --variant sandbox --break "one leader once the election settles"
// --faults all --budget 2000runs --hunt-seed 9` finds run 44 (candidate 43, seed 2751569760)
// and shrinks it to one action (8 s restart n1, kill -9, down 1 ms; no leader again
// by 10 s), failing on seed 1722431403 (the seed shrink's). The app must find the same
// candidate in its Web Workers, open it as branch 2 of that
// seed (the fault a recorded action on the timeline, bookmarked) with the expectation failing
// there. Before that: a hunt that runs long (the
// invariants, which the sandbox keeps) shows progress and is cancelled, leaving the session as it
// was. At 1366x768, 1920x1080 and 390x844; screenshots of the progress and the result. The
// header's seed field shows the found seed's every digit.
import assert from 'node:assert/strict';
import { app, open, settled, shotOf } from './lib/app.mjs';

export const timeoutMs = 300_000;

const TARGET = 'one leader once the election settles';

export async function run({ page, baseUrl, log }) {
  for (const [w, h] of [[1366, 768], [1920, 1080], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    await open(page, baseUrl);
    await page.selectOption('#scenario-select', 'sandbox-raft');
    await settled(page);
    await page.waitForSelector('#checks[data-state="done"]', { timeout: 60_000 });
    const before = await app(page);
    assert.equal(before.userActions, '0');

    // The expectation's own button opens the card with it chosen.
    await page.click('#checks summary');
    await page.click(`.check-hunt[data-name="${TARGET}"]`);
    await page.waitForSelector('#hunt-panel[data-state="idle"]');
    assert.equal(await page.inputValue('#hunt-target'), TARGET);
    assert.equal(await page.inputValue('#hunt-budget'), '2000');

    // A long hunt (the invariants hold in the sandbox): progress, then Cancel.
    await page.selectOption('#hunt-target', '\u0001invariants');
    await page.fill('#hunt-budget', '50000');
    await page.click('#hunt-start');
    await page.waitForFunction(() => {
      const p = document.querySelector('#hunt-panel');
      return p && p.dataset.state === 'searching' && Number(p.dataset.done) >= 16;
    }, null, { timeout: 60_000 });
    await shotOf(page, '#hunt-panel', `hunt-app-progress-${w}`);
    const stats = await page.textContent('#hunt-panel .sweep-stats');
    assert.match(stats, /of 50000 runs · [\d.]+ runs\/s · \d workers? · .*searching/, stats);
    await page.click('#hunt-cancel');
    await page.waitForSelector('#hunt-panel[data-state="cancelled"]');
    const done = Number(await page.getAttribute('#hunt-panel', 'data-done'));
    await page.waitForTimeout(500);
    assert.equal(Number(await page.getAttribute('#hunt-panel', 'data-done')), done, 'no answers after Cancel');
    const after = await app(page);
    for (const k of ['scenario', 'variant', 'userActions', 'step']) {
      assert.equal(after[k], before[k], `Cancel leaves ${k} as it was`);
    }
    assert.equal(await page.$('#branches'), null, 'no branch was made');
    log(`${w}: cancelled after ${done} runs`);

    // A budget out of range is refused, naming the field.
    await page.fill('#hunt-budget', '999999');
    await page.click('#hunt-start');
    assert.match(await page.textContent('#hunt-panel .sweep-note'), /^Budget: a whole number of runs from 1 to 50000/);

    // The real hunt: the CLI's candidate, shrunk, opened as a branch.
    await page.selectOption('#hunt-target', TARGET);
    await page.fill('#hunt-budget', '2000');
    await page.fill('#hunt-seed', '9');
    await page.selectOption('#hunt-faults', 'all');
    // What the card says while it shrinks (recorded as it changes): its worker's progress.
    await page.evaluate(() => {
      window.__shrinkTexts = [];
      const panel = document.querySelector('#hunt-panel');
      new MutationObserver(() => {
        if (panel.dataset.state === 'shrinking') window.__shrinkTexts.push(panel.textContent);
      }).observe(panel, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    const t0 = Date.now();
    await page.click('#hunt-start');
    await page.waitForSelector('#hunt-panel[data-state="found"]', { timeout: 180_000 });
    const shrinking = await page.evaluate(() => window.__shrinkTexts);
    const progress = shrinking.filter((t) => /re-run \d+ of at most 2400; best so far \d+ actions?…/.test(t));
    assert.ok(progress.length > 0, `the card showed the shrink's progress: ${JSON.stringify(shrinking.slice(-3))}`);
    log(`${w}: ${progress.length} progress texts while shrinking, the last: ${progress[progress.length - 1].match(/re-run [^…]*/)[0]}`);
    const panel = await page.$eval('#hunt-panel', (e) => ({ ...e.dataset }));
    log(`${w}: found candidate ${panel.index} (seed ${panel.seed}, ${panel.actions} action(s)) after ${panel.done} runs in ${Date.now() - t0} ms`);
    assert.equal(panel.index, '43', 'the candidate `clusterscope hunt` finds');
    // The seed the shrunk schedule fails on: the shrink moved from the candidate's 2751569760.
    assert.equal(panel.seed, '1722431403');
    assert.equal(panel.actions, '1');
    assert.match(await page.textContent('#hunt-result'), /Run 44 of 2000 fails.*restart n1/s);
    await settled(page);
    const a = await app(page);
    assert.equal(a.scenario, 'sandbox-raft');
    assert.equal(a.variant, 'sandbox');
    assert.equal(a.userActions, '1', 'the fault is a recorded action');
    assert.equal(Number(a.timeUs), 10_000_000, 'the cursor at the failure');
    await page.waitForSelector('#branches[data-count="2"][data-current="1"]');
    assert.match(await page.textContent('.branch[data-branch="1"]'), /hunt: 8s restart n1/);
    // The fault and the failure bookmarked on the timeline.
    const marks = await page.getAttribute('#timeline', 'data-bookmarks');
    assert.match(marks, /8000000:hunt fault 1: restart n1/, marks);
    assert.match(marks, new RegExp(`10000000:✗ ${TARGET}`), marks);
    // The expectation fails on this branch (the session's check, and the branch list).
    await page.waitForSelector(`#checks[data-state="done"] .check-row[data-name="${TARGET}"][data-status="failed"]`, { timeout: 60_000 });
    await page.waitForSelector('.branch[data-branch="1"][data-passed="false"]', { timeout: 60_000 });
    await page.waitForSelector('.branch[data-branch="0"][data-passed="true"]', { timeout: 60_000 });
    await shotOf(page, '#hunt-panel', `hunt-app-result-${w}`);
    // The found seed (up to ten digits) fits its field: its text and the spinner.
    const seedFit = await page.$eval('#seed', (e) => {
      const cs = getComputedStyle(e);
      const c = document.createElement('canvas').getContext('2d');
      c.font = `${cs.fontSize} ${cs.fontFamily}`;
      const pad = parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight);
      return { value: e.value, text: c.measureText(e.value).width, room: e.clientWidth - pad };
    });
    assert.ok(seedFit.value.length > 3, JSON.stringify(seedFit));
    assert.ok(seedFit.text + 14 <= seedFit.room, `the seed fits its field at ${w}: ${JSON.stringify(seedFit)}`);
    await page.click('#hunt-close');
    await page.screenshot({ path: `tests/e2e/screenshots/hunt-app-opened-${w}.png` });
  }
}
