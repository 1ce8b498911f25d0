// Runs sup's protocol conformance suite with the client of client.cjs:
//
//   node conformance.cjs CASES.json live=SOCK exited=SOCK halted=SOCK
//
// Prints one line per case and CONFORMANCE PASS when every case passed
// (exit 0); otherwise exits 1. The format: ipc/testdata/conformance/README.md.
"use strict";
const fs = require("fs");
const net = require("net");
const { encode, decode } = require("@msgpack/msgpack");
const { connect } = require("./client.cjs");

const CASE_TIMEOUT_MS = 20000;

function typeName(v) {
  if (v === null || v === undefined) return "nil";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "str";
  if (typeof v === "number" || typeof v === "bigint") return Number.isInteger(Number(v)) ? "int" : "float";
  if (v instanceof Uint8Array) return "bin";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "map";
  return typeof v;
}

function scalarEqual(w, g) {
  if (typeof w === "number") return (typeof g === "number" || typeof g === "bigint") && Number(g) === w;
  return typeName(w) === typeName(g) && w === g;
}

function fail(msg) {
  throw new Error(msg);
}

const show = (v) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? Number(x) : x));

function match(want, got, path = "value") {
  const at = (k) => (path === "value" ? k : path + "." + k);
  if (want === null) {
    if (got !== null && got !== undefined) fail(`${path}: got ${show(got)}, want nil or absent`);
  } else if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) fail(`${path}: got ${show(got)}, want ${want.length} elements`);
    want.forEach((w, i) => match(w, got[i], `${path}[${i}]`));
  } else if (typeof want === "object") {
    const ks = Object.keys(want);
    if (ks.length === 1 && ks[0].startsWith("$")) return matchOp(ks[0], want[ks[0]], got, path);
    if (typeName(got) !== "map") fail(`${path}: got ${show(got)}, want a map`);
    for (const k of ks.sort()) match(want[k], got[k], at(k));
  } else if (!scalarEqual(want, got)) {
    fail(`${path}: got ${show(got)}, want ${show(want)}`);
  }
}

function matchOp(op, arg, got, path) {
  switch (op) {
    case "$type":
      if (typeName(got) !== arg) fail(`${path}: got ${typeName(got)} ${show(got)}, want ${arg}`);
      break;
    case "$gte":
      if (typeName(got) !== "int" || Number(got) < arg) fail(`${path}: got ${show(got)}, want an integer >= ${arg}`);
      break;
    case "$substr":
      if (typeof got !== "string" || !got.includes(arg)) fail(`${path}: got ${show(got)}, want a string containing ${show(arg)}`);
      break;
    case "$contains":
      for (const w of arg) if (!Array.isArray(got) || !got.some((g) => scalarEqual(w, g))) fail(`${path}: got ${show(got)}, want it to contain ${show(w)}`);
      break;
    case "$one_of":
      if (!arg.some((w) => scalarEqual(w, got))) fail(`${path}: got ${show(got)}, want one of ${show(arg)}`);
      break;
    default:
      fail(`${path}: unknown matcher ${op}`);
  }
}

// expand turns {"$repeat": [s, n]} into s repeated n times.
function expand(v) {
  if (Array.isArray(v)) return v.map(expand);
  if (v !== null && typeof v === "object") {
    const ks = Object.keys(v);
    if (ks.length === 1 && ks[0] === "$repeat") return v.$repeat[0].repeat(v.$repeat[1]);
    return Object.fromEntries(ks.map((k) => [k, expand(v[k])]));
  }
  return v;
}

function frame(value) {
  const body = Buffer.from(encode(value));
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

// rawConn is a bare connection whose frames and EOF can be awaited.
function rawConn(path) {
  return new Promise((resolve, reject) => {
    const sock = net.createConnection(path);
    let buf = Buffer.alloc(0), ended = false, waiter = null;
    const wake = () => { if (waiter) { const w = waiter; waiter = null; w(); } };
    sock.on("data", (c) => { buf = Buffer.concat([buf, c]); wake(); });
    sock.on("end", () => { ended = true; wake(); });
    sock.on("close", () => { ended = true; wake(); });
    sock.on("error", (err) => { ended = true; wake(); reject(err); });
    const until = (cond) => new Promise((res) => {
      const check = () => (cond() ? res() : (waiter = check));
      check();
    });
    sock.on("connect", () => resolve({
      sock,
      write: (b) => sock.write(b),
      async next() {
        await until(() => ended || (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)));
        if (buf.length < 4 || buf.length < 4 + buf.readUInt32BE(0)) fail("connection closed before an answer");
        const n = buf.readUInt32BE(0);
        const v = decode(buf.subarray(4, 4 + n));
        buf = buf.subarray(4 + n);
        return v;
      },
      async eof() {
        await until(() => ended || buf.length > 0);
        if (buf.length > 0) fail(`want the server to close the connection, got ${buf.length} bytes`);
      },
      close: () => sock.destroy(),
    }));
  });
}

async function helloOn(c) {
  c.write(frame({ v: 1, id: 99, method: "hello" }));
  match({ id: 99, ok: true }, await c.next(), "hello");
}

async function runCall(cs, path) {
  const c = connect(path);
  try {
    const p = cs.call.params;
    let result;
    try {
      result = await c.call(cs.call.method, p === undefined || p === null ? undefined : expand(p));
    } catch (e) {
      if (!e.code) throw e;
      if (!cs.error) fail(`got error ${e.code}: ${e.message}, want a result`);
      return match(cs.error, { code: e.code, message: e.message });
    }
    if (cs.error) fail(`got result ${show(result)}, want error ${show(cs.error)}`);
    match(cs.result, result);
  } finally {
    c.close();
  }
}

async function runSubscribe(cs, path) {
  const c = connect(path);
  try {
    const events = [];
    let wake = null;
    const names = await c.subscribe(cs.subscribe.events, (ev) => { events.push(ev); if (wake) wake(); });
    match(cs.result, { events: names });
    (await rawConn(path)).close(); // provoke: connect
    if (!events.length) await new Promise((res) => { wake = res; });
    match(cs.event, events[0]);
  } finally {
    c.close();
  }
}

async function runRaw(raw, path) {
  const held = [];
  try {
    for (let i = 0; i < (raw.hold || 0); i++) {
      held.push(await rawConn(path));
      await helloOn(held[held.length - 1]);
    }
    const c = await rawConn(path);
    try {
      const out = Buffer.concat(raw.send.map((s) => (s.msg ? frame(expand(s.msg)) : Buffer.from(s.hex.replace(/ /g, ""), "hex"))));
      if (out.length) c.write(out);
      for (let i = 0; i < raw.expect.length; i++) match(raw.expect[i], await c.next(), `answer ${i + 1}`);
      if (raw.then === "open") await helloOn(c);
      else if (raw.then === "closed") await c.eof();
      else if (raw.then === "byte_closes") { c.write(Buffer.from([0])); await c.eof(); }
      else { c.close(); const live = await rawConn(path); await helloOn(live); live.close(); }
    } finally {
      c.close();
    }
  } finally {
    held.forEach((h) => h.close());
  }
}

function withTimeout(p, name) {
  let timer;
  return Promise.race([p, new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(`${name}: timed out`)), CASE_TIMEOUT_MS); })])
    .finally(() => clearTimeout(timer));
}

async function main() {
  const [casesPath, ...args] = process.argv.slice(2);
  if (!casesPath) throw new Error("usage: node conformance.cjs CASES.json NAME=SOCKET...");
  const suite = JSON.parse(fs.readFileSync(casesPath, "utf8"));
  const sockets = Object.fromEntries(args.map((a) => [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]));
  let failed = 0;
  for (const cs of suite.cases) {
    try {
      const path = sockets[cs.socket];
      if (!path) fail(`no socket ${cs.socket} given`);
      const t0 = Date.now();
      const run = cs.call ? runCall(cs, path) : cs.subscribe ? runSubscribe(cs, path) : runRaw(cs.raw, path);
      await withTimeout(run, cs.name);
      console.log(`ok   ${cs.name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${cs.name}: ${e.message}`);
    }
  }
  if (failed) {
    console.log(`CONFORMANCE FAILED ${failed} of ${suite.cases.length}`);
    process.exit(1);
  }
  console.log(`CONFORMANCE PASS ${suite.cases.length} cases`);
}

main().catch((err) => {
  console.error("conformance runner failed:", err);
  process.exit(1);
});
