// Issue 40, lessons in a course page: the example course page (static/examples/course.html,
// served as examples/course.html) embeds two replays through `index.html?embed` and drives them
// with postMessage (docs/EMBEDDING.md). Checks: each frame shows the lecture view only (no
// menu, no sweep button, no log), its nodes whole inside the frame; it reports `ready` with its
// chapters; the host's chapter, play, pause, seek and variant commands move it and it reports
// `chapter` and `state`; an unknown command gets an `error`; and an embedded replay never writes
// the app's saved session. Screenshot: embed-course.png.
import assert from 'node:assert/strict';

export const timeoutMs = 180_000;

const SAVED = 'clusterscope.session';

async function frameApp(frame) {
  return frame.evaluate(() => ({ ...document.querySelector('#app').dataset }));
}

async function settledIn(frame) {
  await frame.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await frame.waitForSelector('#app[data-busy="0"]', { timeout: 60_000 });
}

export async function run({ page, baseUrl, screenshot }) {
  // The reader's own session, saved by the app: an embedded replay must leave it alone.
  await page.goto(baseUrl);
  await page.waitForSelector('#app[data-ready="1"]');
  await page.evaluate((k) => localStorage.setItem(k, 'the-readers-own-session'), SAVED);

  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto(`${baseUrl}examples/course.html`);
  const ready = (id) =>
    page.waitForFunction((id) => window.courseState?.[id]?.chapters?.length > 0, id, { timeout: 60_000 });
  await ready('election');
  await ready('figure8');
  const frame = (id) => page.frame({ url: (u) => String(u).includes(id === 'election' ? 'raft-leader-election' : 'raft-figure-8') });
  const el = frame('election');
  const f8 = frame('figure8');
  assert.ok(el && f8, 'both frames are there');

  // The lecture view only.
  for (const f of [el, f8]) {
    await settledIn(f);
    assert.ok(await f.$('#app.embed'), 'the embed form');
    assert.equal(await f.$('.topbar').then((e) => e && e.isVisible()), false, 'no header');
    for (const sel of ['.menu', '#sweep-open', '.log-card', '.seq-card', '.plots-card']) {
      const shown = await f.$eval(sel, (e) => e.offsetParent !== null).catch(() => false);
      assert.equal(shown, false, `${sel} is hidden in the embed form`);
    }
    // Every node whole inside the frame.
    const { nodes, box, vw, vh } = await f.evaluate(() => {
      const c = document.querySelector('#topology');
      const r = c.getBoundingClientRect();
      return { nodes: c.dataset.nodes, box: { x: r.x, y: r.y }, vw: innerWidth, vh: innerHeight };
    });
    for (const part of nodes.split(';')) {
      const [x, y] = part.slice(part.lastIndexOf(':') + 1).split(',').map(Number);
      assert.ok(box.x + x > 0 && box.x + x < vw && box.y + y > 0 && box.y + y < vh,
        `node ${part} inside the ${vw}x${vh} frame`);
    }
  }
  const st = () => page.evaluate(() => JSON.parse(JSON.stringify(window.courseState)));
  let s = await st();
  const first = s.election.events.find((e) => e.clusterscope === 'ready');
  assert.equal(first.scenario, 'raft-leader-election');
  assert.equal(first.variant, 'ratis');
  assert.ok(first.chapters.length >= 2 && first.duration > 0, JSON.stringify(first));
  assert.ok(s.figure8.events.some((e) => e.clusterscope === 'chapter' && e.index === 0), 'opened at chapter 0 (?chapter=0)');

  // Chapter 2 of the election: the cursor at its caption, and the host told.
  const ch = s.election.chapters[1];
  await page.click('[data-for="election"] [data-index="1"]');
  await page.waitForFunction(() => window.courseState.election.chapter === 1);
  await settledIn(el);
  assert.equal(Number((await frameApp(el)).timeUs), Math.round(ch.at * 1e6), 'the cursor is at chapter 2');
  assert.match(await page.textContent('#election-now'), /^Chapter 2 of \d+: /);

  // Play, then pause: `state` events, and the time moved.
  const t0 = Number((await frameApp(el)).timeUs);
  await page.click('[data-for="election"] [data-cmd="play"]');
  await page.waitForFunction(() => window.courseState.election.events.some((e) => e.clusterscope === 'state' && e.playing));
  await page.waitForTimeout(600);
  await page.click('[data-for="election"] [data-cmd="pause"]');
  await page.waitForFunction(() => {
    const ev = window.courseState.election.events.filter((e) => e.clusterscope === 'state');
    return ev.length && !ev[ev.length - 1].playing;
  });
  await settledIn(el);
  assert.ok(Number((await frameApp(el)).timeUs) > t0, 'playing moved the cursor');

  // Seek to the start.
  await page.click('[data-for="election"] [data-cmd="seek"]');
  await page.waitForFunction(() => document.querySelector('#election').contentDocument.querySelector('#app').dataset.timeUs === '0');

  // Figure 8: next chapter, then the other variant.
  await page.click('[data-for="figure8"] [data-step="1"]');
  await page.waitForFunction(() => window.courseState.figure8.chapter === 1);
  await page.click('[data-for="figure8"] [data-name="safe"]');
  await page.waitForFunction(() => document.querySelector('#figure8').contentDocument.querySelector('#app').dataset.variant === 'safe');
  s = await st();
  assert.ok(s.figure8.events.some((e) => e.clusterscope === 'ready' && e.variant === 'safe'), 'ready again for the new variant');

  // Bad commands are answered, not ignored.
  await page.evaluate(() => document.querySelector('#figure8').contentWindow.postMessage({ clusterscope: 'explode' }, '*'));
  await page.evaluate(() => document.querySelector('#figure8').contentWindow.postMessage({ clusterscope: 'chapter', index: 999 }, '*'));
  await page.waitForFunction(() => window.courseState.figure8.events.filter((e) => e.clusterscope === 'error').length >= 2);
  s = await st();
  const errs = s.figure8.events.filter((e) => e.clusterscope === 'error').map((e) => e.message);
  assert.ok(errs.some((m) => /unknown command "explode"/.test(m) && /play, pause/.test(m)), errs.join(' | '));
  assert.ok(errs.some((m) => /chapter 999/.test(m)), errs.join(' | '));

  await screenshot('embed-course', { fullPage: true });
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), SAVED), 'the-readers-own-session',
    'the saved session is untouched');
}
