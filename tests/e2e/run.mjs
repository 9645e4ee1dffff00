#!/usr/bin/env node
// End-to-end test runner: serves the trunk build (dist/) on 127.0.0.1 with a tiny static server,
// launches Debian's Chromium through playwright-core (no browser download: `npx playwright
// install` cannot reach the internet here) and runs every spec in specs/*.mjs.
//
// A spec module exports `async function run({ page, baseUrl, screenshot, context, log })` and
// throws (e.g. via node:assert) to fail. Optional exports: `timeoutMs` (default 60000) and
// `allowConsoleErrors` (default false: any console.error or uncaught page error fails the spec,
// which catches wasm panics).
//
// Usage: node run.mjs [spec-name ...]      (names without .mjs; default: all specs)
// Env:   E2E_DIST (default <repo>/dist), CHROMIUM (default /usr/bin/chromium),
//        E2E_HEADED=1 to watch the browser (needs a display).
//
// Output: one line per spec, then exactly `E2E: N passed, M failed`. Exit status 1 on failure.

import { createServer } from 'node:http';
import { createReadStream, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');
const DIST = resolve(process.env.E2E_DIST || join(REPO, 'dist'));
const SPECS = join(HERE, 'specs');
const SHOTS = join(HERE, 'screenshots');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.toml': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.toml': 'text/plain; charset=utf-8',
};

/** Serve `root` on 127.0.0.1 at a free port. Unknown paths without an extension get index.html
 *  (client-side routes); a missing favicon gets 204 so it never shows up as a console error. */
function serve(root) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    let rel;
    try {
      rel = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    let file = resolve(root, rel);
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) {
      if (url.pathname === '/favicon.ico') {
        res.writeHead(204).end();
        return;
      }
      if (extname(url.pathname) === '') {
        file = join(root, 'index.html');
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${url.pathname}`);
        return;
      }
    }
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] || 'application/octet-stream',
      'cache-control': 'no-store',
    });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok(server));
  });
}

function withTimeout(promise, ms, what) {
  let timer;
  const t = new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

function firstLine(err) {
  const msg = (err && (err.stack || err.message)) || String(err);
  return msg.split('\n').slice(0, 6).join('\n    ');
}

async function runSpec(browser, baseUrl, name) {
  const mod = await import(pathToFileURL(join(SPECS, `${name}.mjs`)).href);
  if (typeof mod.run !== 'function') throw new Error(`specs/${name}.mjs exports no run()`);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`uncaught page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console.error: ${m.text()}`);
  });
  const shots = [];
  const screenshot = async (label = 'page', opts = {}) => {
    const path = join(SHOTS, `${name}-${label}.png`);
    // Cards below the fold skip rendering while off screen (`content-visibility: auto`); a person
    // scrolling sees them drawn, a full-page capture would not: render them for the picture.
    const style = await page
      .addStyleTag({ content: '.card { content-visibility: visible !important; }' })
      .catch(() => null);
    await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))).catch(() => {});
    await page.screenshot({ path, fullPage: true, ...opts });
    if (style) await style.evaluate((e) => e.remove()).catch(() => {});
    shots.push(path);
    return path;
  };
  const log = (...args) => console.log(`    [${name}]`, ...args);
  try {
    await withTimeout(
      mod.run({ page, baseUrl, screenshot, context, log }),
      mod.timeoutMs ?? 60_000,
      `spec ${name}`,
    );
    if (problems.length && !mod.allowConsoleErrors) {
      throw new Error(`the page reported errors:\n${problems.join('\n')}`);
    }
    return shots;
  } catch (err) {
    try {
      await screenshot('FAILED');
    } catch {
      /* the page may be gone */
    }
    if (problems.length && !String(err.message).includes(problems[0])) {
      err.message += `\n(page errors: ${problems.join(' | ')})`;
    }
    throw err;
  } finally {
    await context.close().catch(() => {});
  }
}

async function main() {
  const wanted = process.argv.slice(2);
  const all = readdirSync(SPECS)
    .filter((f) => f.endsWith('.mjs'))
    .map((f) => f.slice(0, -4))
    .sort();
  const names = wanted.length ? wanted : all;
  for (const n of names) {
    if (!all.includes(n)) {
      console.error(`unknown spec "${n}"; known: ${all.join(', ')}`);
      process.exit(2);
    }
  }
  if (!existsSync(join(DIST, 'index.html'))) {
    console.error(`no ${join(DIST, 'index.html')}: run \`trunk build --release\` first`);
    console.log(`E2E: 0 passed, ${names.length} failed`);
    process.exit(1);
  }
  mkdirSync(SHOTS, { recursive: true });

  const server = await serve(DIST);
  const baseUrl = `http://127.0.0.1:${server.address().port}/`;
  console.log(`serving ${DIST} at ${baseUrl}; browser ${CHROMIUM}`);
  let browser;
  let passed = 0;
  let failed = 0;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: !process.env.E2E_HEADED,
      args: process.env.E2E_HEADED ? CHROMIUM_ARGS.filter((a) => a !== '--headless') : CHROMIUM_ARGS,
      timeout: 60_000,
    });
    for (const name of names) {
      const t0 = Date.now();
      try {
        const shots = await runSpec(browser, baseUrl, name);
        passed++;
        const s = shots.length ? `, screenshots: ${shots.map((p) => p.slice(HERE.length + 1)).join(' ')}` : '';
        console.log(`PASS ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s${s})`);
      } catch (err) {
        failed++;
        console.log(`FAIL ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s): ${firstLine(err)}`);
      }
    }
  } catch (err) {
    failed = names.length - passed;
    console.log(`FAIL could not start Chromium: ${firstLine(err)}`);
  } finally {
    if (browser) await browser.close().catch(() => {});
    server.close();
  }
  console.log(`E2E: ${passed} passed, ${failed} failed`);
  process.exit(failed || names.length === 0 ? 1 : 0);
}

main().catch((err) => {
  console.error(firstLine(err));
  console.log('E2E: 0 passed, 1 failed');
  process.exit(1);
});
