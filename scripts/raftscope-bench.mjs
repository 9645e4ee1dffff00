#!/usr/bin/env node
// RaftScope's Raft model (ongardie/raftscope: raft.js and util.js), run headless under node with
// its own fixed tick, for the side-by-side of issue 44 (`BENCH_FILTER=raftscope scripts/bench`).
//
//   node scripts/raftscope-bench.mjs DIR [--seconds 120] [--rate 100] [--tick-us 1000] [--json]
//
// DIR holds RaftScope's raft.js and util.js as its repository has them (RAFTSCOPE_DIR; the files
// are never part of this repository). Nothing of RaftScope is changed: the two files are
// evaluated as the page's <script> tags would, in one function scope. The one jQuery function they
// call (util.mapValues: `$.map` over a plain object, which keeps every value that is not
// null/undefined, in key order) is given by an equivalent of a few lines below, and state.js /
// script.js (the page's checkpoints, rendering and buttons) are not loaded.
//
// The run does what the page does at 1x speed, without the page: 5 servers (raft.js's
// NUM_SERVERS), `model.time` advanced by one tick (1 ms of virtual time; RaftScope counts in
// microseconds) and `raft.update(model)` once per tick, for 120 virtual seconds. A client request
// is offered every 1/rate s the way the page's "C" key does it: `raft.clientRequest(model,
// leader)` on the leader of the highest term, when there is one (otherwise it is dropped, as the
// page drops it). raft.js delivers every message due at a tick inside `raft.update`; the harness
// counts, before each update, the messages whose `recvTime` has come (those are exactly the ones
// that update delivers: a message sent during an update is due >= 10 ms later). That count is
// inside the timed loop, so it is charged to RaftScope (no difference beyond noise: --no-count).
//
// Printed (one line, or JSON with --json): messages delivered, client requests offered / accepted
// by a leader / committed (the highest commitIndex: entries a majority holds in the leader's
// term), the loop's CPU time (process.cpuUsage: user + system of the whole process during the
// loop, V8's helper threads included), its wall time, and the process's peak RSS.

import { readFileSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(args[i + 1]);
  if (!Number.isFinite(v) || v <= 0) {
    console.error(`raftscope-bench: ${name} wants a positive number, got '${args[i + 1]}'`);
    process.exit(2);
  }
  return v;
};
const valued = ["--seconds", "--rate", "--tick-us"];
const dir = args.find((a, i) => !a.startsWith("--") && !valued.includes(args[i - 1]));
if (!dir) {
  console.error(
    "usage: node scripts/raftscope-bench.mjs RAFTSCOPE_DIR [--seconds 120] [--rate 100] [--tick-us 1000] [--json] [--no-count]\n" +
      "RAFTSCOPE_DIR: a checkout of https://github.com/ongardie/raftscope (its raft.js and util.js are read)"
  );
  process.exit(2);
}
const seconds = opt("--seconds", 120);
const rate = opt("--rate", 100);
const tickUs = opt("--tick-us", 1000);
const json = args.includes("--json");
const count = !args.includes("--no-count");

let src;
try {
  src = ["util.js", "raft.js"].map((f) => readFileSync(join(dir, f), "utf8"));
} catch (e) {
  console.error(
    `raftscope-bench: cannot read RaftScope's util.js / raft.js in '${dir}' (${e.code || e.message}): ` +
      "set RAFTSCOPE_DIR to a checkout of https://github.com/ongardie/raftscope"
  );
  process.exit(2);
}

// jQuery's $.map over a plain object: fn(value, key) for each own enumerable key in order, values
// that are null/undefined dropped (arrays would be flattened; raft.js's maps hold numbers/booleans).
const $ = {
  map(obj, fn) {
    const out = [];
    for (const k in obj) {
      const v = fn(obj[k], k);
      if (v != null) out.push(v);
    }
    return out;
  },
};
// The two files as the page's script tags would run them (raft.js reads util and NUM_SERVERS).
const load = new Function(
  "$",
  "jQuery",
  `${src[0]}\n;\n${src[1]}\n;return { util, raft, NUM_SERVERS };`
);
const { raft, NUM_SERVERS } = load($, $);

// The model as script.js builds it: servers 1..NUM_SERVERS, each with the others as peers.
const model = { servers: [], messages: [], time: 0 };
for (let i = 1; i <= NUM_SERVERS; i += 1) {
  const peers = [];
  for (let j = 1; j <= NUM_SERVERS; j += 1) if (i !== j) peers.push(j);
  model.servers.push(raft.server(i, peers));
}
// script.js's getLeader: the leader of the highest term.
const getLeader = () => {
  let leader = null;
  let term = 0;
  for (const s of model.servers) {
    if (s.state === "leader" && s.term > term) {
      leader = s;
      term = s.term;
    }
  }
  return leader;
};

const endUs = seconds * 1e6;
const requestEveryUs = 1e6 / rate;
let nextRequest = requestEveryUs;
let offered = 0;
let accepted = 0;
let delivered = 0;
let ticks = 0;

const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
for (let time = tickUs; time <= endUs; time += tickUs) {
  model.time = time;
  while (nextRequest <= time) {
    nextRequest += requestEveryUs;
    offered += 1;
    const leader = getLeader();
    if (leader !== null) {
      raft.clientRequest(model, leader);
      accepted += 1;
    }
  }
  if (count) {
    const ms = model.messages;
    for (let i = 0; i < ms.length; i += 1) if (ms[i].recvTime <= time) delivered += 1;
  }
  raft.update(model);
  ticks += 1;
}
const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
const cpuS = (cpu.user + cpu.system) / 1e6;

let committed = 0;
let maxTerm = 0;
for (const s of model.servers) {
  committed = Math.max(committed, s.commitIndex);
  maxTerm = Math.max(maxTerm, s.term);
}
const out = {
  side: "raftscope",
  servers: NUM_SERVERS,
  virtual_s: seconds,
  tick_us: tickUs,
  ticks,
  rate,
  offered,
  accepted,
  committed,
  max_term: maxTerm,
  messages_delivered: count ? delivered : null,
  cpu_s: Number(cpuS.toFixed(4)),
  user_s: Number((cpu.user / 1e6).toFixed(4)),
  wall_s: Number(wallS.toFixed(4)),
  messages_per_cpu_s: count ? Math.round(delivered / cpuS) : null,
  max_rss_kb: process.resourceUsage().maxRSS,
  node: process.version,
};
if (json) {
  console.log(JSON.stringify(out));
} else {
  console.log(
    `RAFTSCOPE messages=${out.messages_delivered} cpu_s=${out.cpu_s} wall_s=${out.wall_s} ` +
      `msgs_per_cpu_s=${out.messages_per_cpu_s} offered=${offered} accepted=${accepted} ` +
      `committed=${committed} max_term=${maxTerm} ticks=${ticks} max_rss_kb=${out.max_rss_kb} node=${process.version}`
  );
}
