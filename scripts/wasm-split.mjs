#!/usr/bin/env node
// trunk's post_build hook (Trunk.toml): the release build's models as parts of the wasm loaded on
// first use (issue 44; ARCHITECTURE.md, "The split build"; docs/PERFORMANCE.md, "Download size
// and load").
//
// In the release build every model but gossip (the default scenario's) is reached only through a
// lazy loader (`clusterscope_core::registry`, `wasm_split::lazy_loader!`). After trunk's
// wasm-bindgen this runs `wasm-split-cli split ORIGINAL BINDGENED OUT` (crates.io
// wasm-split-cli 0.8.0-alpha.3, Dioxus): it reads the call graph from the linker's relocations
// (web/build.rs links with --emit-relocs and keeps names) and writes the main module (without
// the parts' code; their data zeroed) and one module per part plus chunks of code parts share.
// Then, in trunk's staging folder:
//   - the main module replaces trunk's `*_bg.wasm` (same name: the JS and index.html stay), its
//     preload's integrity hash updated in index.html;
//   - the parts go to `split/`, named by their content's hash;
//   - `__wasm_split.js` (imported by the wasm-bindgen JS: the loaders' wasm imports) fetches a
//     part and instantiates it against the running instance's exports (`globalThis.__csWasm`,
//     set by the app's start: the page's, or a worker's current instance);
//   - every module loses its custom sections (the names the splitter needed).
//
// Only for `trunk build --release` (TRUNK_PROFILE=release) and not with CLUSTERSCOPE_SPLIT=0
// (which also builds the release unsplit: core's and web's build.rs). The splitter:
// WASM_SPLIT_CLI, else `wasm-split-cli` on PATH (scripts/lib.sh, ensure_wasm_split).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const env = process.env;
if (env.TRUNK_PROFILE !== 'release' || env.CLUSTERSCOPE_SPLIT === '0') process.exit(0);

const t0 = Date.now();
const staging = env.TRUNK_STAGING_DIR;
const source = env.TRUNK_SOURCE_DIR || process.cwd();
if (!staging) throw new Error('wasm-split: TRUNK_STAGING_DIR not set (run by trunk only)');
const target = env.CARGO_TARGET_DIR ? resolve(source, env.CARGO_TARGET_DIR) : join(source, 'target');
const original = env.WASM_SPLIT_ORIGINAL || join(target, 'wasm32-unknown-unknown', 'wasm-release', 'clusterscope-web.wasm');

const bgName = readdirSync(staging).find((f) => /^clusterscope-web-[0-9a-f]+_bg\.wasm$/.test(f));
if (!bgName) throw new Error(`wasm-split: no clusterscope-web-*_bg.wasm in ${staging}`);
const bgPath = join(staging, bgName);
if (!existsSync(original)) throw new Error(`wasm-split: ${original} missing`);

const out = mkdtempSync(join(tmpdir(), 'cs-split-'));
const cli = env.WASM_SPLIT_CLI || 'wasm-split-cli';
try {
  execFileSync(cli, ['split', original, bgPath, out], { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 << 20 });
} catch (e) {
  process.stderr.write(String(e.stdout || '') + String(e.stderr || ''));
  throw new Error(`wasm-split: ${cli} failed (${e.message})`);
}

/** The module without its custom sections (names, producers, target features); kept as they are
 * with WASM_SPLIT_KEEP_NAMES=1, for a profile that names its functions (a larger download: never
 * for a build that is served or measured for size). */
function stripCustom(bytes) {
  if (env.WASM_SPLIT_KEEP_NAMES === '1') return bytes;
  const keep = [bytes.subarray(0, 8)];
  let i = 8;
  const leb = () => {
    let v = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[i++];
      v += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) return v;
      shift += 7;
    }
  };
  while (i < bytes.length) {
    const start = i;
    const id = bytes[i++];
    const size = leb();
    const end = i + size;
    if (id !== 0) keep.push(bytes.subarray(start, end));
    i = end;
  }
  return Buffer.concat(keep);
}

/** The module's sections: [{ id, start, end }] (byte ranges, the header included). */
function sections(bytes) {
  const out = [];
  let i = 8;
  while (i < bytes.length) {
    const start = i;
    const id = bytes[i++];
    let size = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[i++];
      size += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) break;
      shift += 7;
    }
    out.push({ id, start, end: i + size });
    i += size;
  }
  return out;
}

/** An unsigned LEB128 at `b[i]`: [value, the index after it]. */
function uleb(b, i) {
  let v = 0;
  let shift = 0;
  for (;;) {
    const x = b[i++];
    v += (x & 0x7f) * 2 ** shift;
    if (!(x & 0x80)) return [v, i];
    shift += 7;
  }
}

/**
 * The active data segments of a module: [{ offset, at, len }] (`offset`: its address in the
 * memory; `at`: its first byte's index in `bytes`).
 */
function dataSegments(bytes) {
  const [d] = sections(bytes).filter((s) => s.id === 11);
  let [, i] = uleb(bytes, d.start + 1); // past the section's size
  let n;
  [n, i] = uleb(bytes, i);
  const segs = [];
  for (let k = 0; k < n; k++) {
    let flag;
    [flag, i] = uleb(bytes, i);
    if (flag !== 0 || bytes[i] !== 0x41) throw new Error('wasm-split: a data segment not of the form (i32.const N)');
    let offset;
    [offset, i] = uleb(bytes, i + 1); // a signed LEB128, read as unsigned: the same for an address
    if (bytes[i++] !== 0x0b) throw new Error('wasm-split: a data segment offset not a constant');
    let len;
    [len, i] = uleb(bytes, i);
    segs.push({ offset, at: i, len });
    i += len;
  }
  return segs;
}

/**
 * The byte ranges of the first data segment that two or more data symbols share ([start, end),
 * segment offsets), from the `linking` section's symbol table: the linker merges a string that
 * ends another into it (tail merging), so one symbol's bytes can be another's too.
 */
function sharedDataRanges(bytes) {
  const linking = sections(bytes).find((s) => {
    if (s.id !== 0) return false;
    const [l, j] = uleb(bytes, uleb(bytes, s.start + 1)[1]);
    return Buffer.from(bytes.subarray(j, j + l)).toString() === 'linking';
  });
  if (!linking) throw new Error('wasm-split: the bindgened wasm has no linking section (web/build.rs: --emit-relocs)');
  let [, i] = uleb(bytes, linking.start + 1);
  let l;
  [l, i] = uleb(bytes, i);
  i += l; // the name
  [, i] = uleb(bytes, i); // the version
  const ranges = [];
  while (i < linking.end) {
    const kind = bytes[i++];
    let size;
    [size, i] = uleb(bytes, i);
    const end = i + size;
    if (kind === 8) {
      let n;
      [n, i] = uleb(bytes, i);
      for (let k = 0; k < n; k++) {
        const sk = bytes[i++];
        let flags;
        [flags, i] = uleb(bytes, i);
        const undefinedSym = flags & 0x10;
        if (sk === 0 || sk === 2 || sk === 4 || sk === 5) {
          [, i] = uleb(bytes, i);
          if (!undefinedSym || flags & 0x40) {
            [l, i] = uleb(bytes, i);
            i += l;
          }
        } else if (sk === 1) {
          [l, i] = uleb(bytes, i);
          i += l;
          if (!undefinedSym) {
            let seg, off, sz;
            [seg, i] = uleb(bytes, i);
            [off, i] = uleb(bytes, i);
            [sz, i] = uleb(bytes, i);
            if (seg === 0 && sz > 0) ranges.push([off, off + sz]);
          }
        } else if (sk === 3) {
          [, i] = uleb(bytes, i);
        } else throw new Error(`wasm-split: symbol kind ${sk} not understood`);
      }
    }
    i = end;
  }
  ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const shared = [];
  let cur = null;
  for (const [a, e] of ranges) {
    if (cur && a < cur[1]) {
      cur[1] = Math.max(cur[1], e);
      cur.n++;
    } else {
      if (cur && cur.n > 1) shared.push(cur);
      cur = Object.assign([a, e], { n: 1 });
    }
  }
  if (cur && cur.n > 1) shared.push(cur);
  return shared;
}

/**
 * `main` with the bytes of the data `source` (the bindgened module it was split from) shares
 * between symbols written back. The splitter zeroes the bytes of each data symbol only the parts
 * use (the parts write their own data when they load), but the linker merges a string that ends
 * another into it: zeroing a part's string could zero the tail of the main module's (gossip's log
 * lines came out empty on the first split build). Every byte two symbols share is the source's
 * again (a few hundred bytes); the rest the splitter zeroed stays zero (the parts' strings:
 * ~24 KB gzipped on 2026-12-06, which putting the whole data section back used to cost).
 * Checked: the same segments, every byte equal or zeroed.
 */
function withSharedDataOf(main, source) {
  const dm = sections(main).filter((s) => s.id === 11);
  const ds = sections(source).filter((s) => s.id === 11);
  if (dm.length !== 1 || ds.length !== 1) throw new Error('wasm-split: not one data section');
  const [m] = dm;
  const [s] = ds;
  let zeroed = 0;
  const ok =
    m.end - m.start === s.end - s.start &&
    main.subarray(m.start, m.end).every((b, i) => b === source[s.start + i] || (b === 0 && ++zeroed > 0));
  if (!ok) throw new Error('wasm-split: the main module\'s data section is not the bindgened one with bytes zeroed');
  const [ms] = dataSegments(main);
  const [ss] = dataSegments(source);
  if (!ms || !ss || ms.at - m.start !== ss.at - s.start || ms.len !== ss.len) throw new Error('wasm-split: the first data segments differ');
  const out = Buffer.from(main);
  let restored = 0;
  for (const [a, e] of sharedDataRanges(source)) {
    if (e > ss.len) throw new Error('wasm-split: a data symbol past its segment');
    for (let k = a; k < e; k++) {
      if (out[ms.at + k] !== source[ss.at + k]) restored++;
      out[ms.at + k] = source[ss.at + k];
    }
  }
  return { bytes: out, zeroed: zeroed - restored, restored };
}

/**
 * Every byte of the first data segment that `main` lacks (zeroed, against `source`) is written,
 * equal, by a data segment of one of `parts` when it loads: else the build fails here rather
 * than a string coming out blank in a browser.
 */
function checkPartsWriteTheirData(main, source, parts) {
  const [ms] = dataSegments(main);
  const [ss] = dataSegments(source);
  const covered = new Uint8Array(ms.len);
  for (const { file, bytes } of parts) {
    for (const seg of dataSegments(bytes)) {
      const a = seg.offset - ms.offset;
      for (let k = 0; k < seg.len; k++) {
        if (a + k < 0 || a + k >= ms.len) continue;
        if (bytes[seg.at + k] !== source[ss.at + a + k]) throw new Error(`wasm-split: ${file} writes data unlike the bindgened module's`);
        covered[a + k] = 1;
      }
    }
  }
  let lost = 0;
  for (let k = 0; k < ms.len; k++) if (main[ms.at + k] !== source[ss.at + k] && !covered[k]) lost++;
  if (lost) throw new Error(`wasm-split: ${lost} bytes of data the main module lacks are written by no part`);
}

const hash = (b, n = 12) => createHash('sha256').update(b).digest('hex').slice(0, n);
const sri = (b) => `sha384-${createHash('sha384').update(b).digest('base64')}`;

// The parts: `chunk_N_NAME.wasm` (code several parts share) and `module_N_NAME.wasm` (one
// loader's), each loaded after the chunks it relies on. Their loaders' names and dependencies
// come from the splitter's own glue, which imports the main JS as `./main.js` and fetches from a
// fixed path of Dioxus' harness: only its `makeLoad(...)` lines are read here.
const theirGlue = readFileSync(join(out, '__wasm_split.js'), 'utf8');
const loaders = [];
for (const line of theirGlue.split('\n')) {
  const m = /^export const (\w+) = makeLoad\("\/harness\/split\/([\w.-]+\.wasm)", \[([\w, ]*)\], fusedImports, initSync\);$/.exec(line);
  if (m) loaders.push({ name: m[1], file: m[2], deps: m[3].split(',').map((s) => s.trim()).filter(Boolean) });
  else if (line.includes('makeLoad("')) throw new Error(`wasm-split: glue line not understood: ${line}`);
}
if (!loaders.length) throw new Error('wasm-split: the splitter found no split points');

// A model's part: the loader of the module `__wasm_split_load_<module>_<hash>_<fn>`; the app
// asks for it by <module> (`globalThis.__csLoadPart`, web/src/platform.rs).
const partOf = (name) => /^__wasm_split_load_(\w+?)_[0-9a-f]{32}_\w+$/.exec(name)?.[1];
// ... and its split point's function (`enter`: core's model engine; `panels`: web's model panels).
const pointOf = (name) => /^__wasm_split_load_\w+?_[0-9a-f]{32}_(\w+)$/.exec(name)?.[1];
const splitDir = join(staging, 'split');
rmSync(splitDir, { recursive: true, force: true });
mkdirSync(splitDir);
const urls = new Map();
const sizes = [];
const partBytes = [];
for (const l of loaders) {
  const b = stripCustom(readFileSync(join(out, l.file)));
  new WebAssembly.Module(b); // valid, or fail the build here rather than in a browser
  // `raft-enter-<hash>.wasm`, `chunk_0-<hash>.wasm`: named by the part, its point and content.
  const file = `${partOf(l.name) ? `${partOf(l.name)}-${pointOf(l.name)}` : l.file.replace(/^(chunk_\d+)_.*\.wasm$/, '$1')}-${hash(b)}.wasm`;
  writeFileSync(join(splitDir, file), b);
  partBytes.push({ file, bytes: b });
  urls.set(l.name, file);
  sizes.push(`${file} ${(b.length / 1024).toFixed(0)} KB raw, ${(gzipSync(b, { level: 6 }).length / 1024).toFixed(0)} KB gzip -6`);
}

const oldBg = readFileSync(bgPath);
const data = withSharedDataOf(readFileSync(join(out, 'main.wasm')), oldBg);
const main = stripCustom(data.bytes);
checkPartsWriteTheirData(main, oldBg, partBytes);
const mainModule = new WebAssembly.Module(main);
const tables = WebAssembly.Module.exports(mainModule).filter((e) => e.kind === 'table').map((e) => e.name);
if (!tables.includes('__indirect_function_table')) {
  throw new Error(`wasm-split: the main module exports no __indirect_function_table (tables: ${tables.join(', ')})`);
}
writeFileSync(bgPath, main);

const modules = loaders.filter((l) => !l.name.startsWith('__wasm_split_load_chunk_'));
for (const l of modules) if (!partOf(l.name)) throw new Error(`wasm-split: loader name not understood: ${l.name}`);
// A part may have several split points, each its own module (the splitter makes one per point):
// a model's engine (core's `registry`) and its panels (web's `models::ask`). The app asks for
// the part by name and gets all of its modules, fetched side by side.
const partNames = new Map();
for (const l of modules) {
  const p = partOf(l.name);
  if (!partNames.has(p)) partNames.set(p, []);
  partNames.get(p).push(l);
}
const glue = `// Written by scripts/wasm-split.mjs (the release build's split): the loaders the wasm imports.
// A part is fetched (after the chunks it relies on) and instantiated against the running
// instance's exports (globalThis.__csWasm, set by the app's start), once per instance, when the
// app asks for it (globalThis.__csLoadPart(name): a promise of true, or false when it could not
// be fetched; it may be asked again: every module of the part). The loaders the wasm calls (wasm_split's) answer at once
// once their part is in, else when it comes.
const base = new URL('./split/', import.meta.url);
const states = new WeakMap();
function state() {
  const ex = globalThis.__csWasm;
  let st = states.get(ex);
  if (!st) states.set(ex, (st = { ex, loads: new Map(), done: new Set(), waiting: new Map(), fused: {} }));
  return st;
}
function loadOnce(file, deps) {
  const load = () => {
    const st = state();
    let p = st.loads.get(file);
    if (!p) {
      p = (async () => {
        for (const d of deps) if (!(await d())) return false;
        try {
          const resp = await fetch(new URL(file, base));
          if (!resp.ok) throw new Error(\`\${file}: the server answered \${resp.status}\`);
          const bytes = await resp.arrayBuffer();
          const ex = st.ex;
          const own = { memory: ex.memory, __indirect_function_table: ex.__indirect_function_table };
          const imports = { env: { memory: ex.memory }, __wasm_split: Object.assign({}, ex, st.fused, own) };
          const { instance } = await WebAssembly.instantiate(bytes, imports);
          Object.assign(st.fused, instance.exports);
        } catch (e) {
          console.error('could not load a part of the app', e);
          st.loads.delete(file);
          return false;
        }
        st.done.add(file);
        for (const [cb, data] of st.waiting.get(file) || []) st.ex.__indirect_function_table.get(cb)(data, true);
        st.waiting.delete(file);
        return true;
      })();
      st.loads.set(file, p);
    }
    return p;
  };
  load.file = file;
  return load;
}
function loader(load) {
  return (callback, data) => {
    const st = state();
    if (st.done.has(load.file)) {
      st.ex.__indirect_function_table.get(callback)(data, true);
      return;
    }
    if (!st.waiting.has(load.file)) st.waiting.set(load.file, []);
    st.waiting.get(load.file).push([callback, data]);
    load();
  };
}
${loaders.map((l) => `const ${l.name}_once = loadOnce(${JSON.stringify(urls.get(l.name))}, [${l.deps.map((d) => `${d}_once`).join(', ')}]);`).join('\n')}
${modules.map((l) => `export const ${l.name} = loader(${l.name}_once);`).join('\n')}
const parts = { ${[...partNames].map(([p, ls]) => `${JSON.stringify(p)}: [${ls.map((l) => `${l.name}_once`).join(', ')}]`).join(', ')} };
globalThis.__csLoadPart = (name) =>
  parts[name] ? Promise.all(parts[name].map((load) => load())).then((ok) => ok.every(Boolean)) : Promise.resolve(false);
`;
// The chunks' loaders are declared before the modules' (the splitter's order): check it.
for (const l of loaders) for (const d of l.deps) if (loaders.findIndex((x) => x.name === d) > loaders.indexOf(l)) throw new Error(`wasm-split: ${l.name} before its dependency ${d}`);
const imported = WebAssembly.Module.imports(mainModule).filter((i) => i.module === './__wasm_split.js').map((i) => i.name);
for (const name of imported) {
  if (!urls.has(name) || name.startsWith('__wasm_split_load_chunk_')) throw new Error(`wasm-split: the main module imports ${name}, which the glue lacks`);
}
writeFileSync(join(staging, '__wasm_split.js'), glue);

// index.html: the wasm's preload names the new bytes' hash; the glue is preloaded with the JS.
const htmlPath = join(staging, 'index.html');
let html = readFileSync(htmlPath, 'utf8');
const oldSri = sri(oldBg);
if (html.includes(oldSri)) html = html.split(oldSri).join(sri(main));
else if (html.includes('integrity=')) throw new Error('wasm-split: the wasm preload hash not found in index.html');
// (crossorigin as trunk's preload of the JS: the module import's request, so the preload is used.)
const publicUrl = (env.TRUNK_PUBLIC_URL || '/').replace(/\/?$/, '/');
html = html.replace('</head>', `<link crossorigin href="${publicUrl}__wasm_split.js" rel="modulepreload"></head>`);
writeFileSync(htmlPath, html);
rmSync(out, { recursive: true, force: true });

const kb = (b) => (b.length / 1024).toFixed(0);
console.log(
  `wasm-split: main ${kb(oldBg)} -> ${kb(main)} KB raw (gzip -6 ${kb(gzipSync(oldBg, { level: 6 }))} -> ${kb(gzipSync(main, { level: 6 }))} KB); ` +
    `${data.zeroed} bytes of the parts' data left out, ${data.restored} shared ones kept; ` +
    `${loaders.length} parts in split/ (${((Date.now() - t0) / 1000).toFixed(1)} s):\n  ${sizes.join('\n  ')}`,
);
