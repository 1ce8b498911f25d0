// A second-language client of sup's control socket, written from
// specs/ipc.md alone: it proves a plugin author needs nothing else.
//
//   node client.cjs SOCKET TEXT
//
// calls hello, state and inject (TEXT, submitted), checks an unknown method
// is refused with UNKNOWN_METHOD, and prints NODE-CLIENT-OK on success.
// Required as a module it exports connect (conformance.cjs uses it):
// connect(path) → { call(method, params), subscribe(events, onEvent, onEnd), close() }.
"use strict";
const net = require("net");
const assert = require("assert");
const { encode, decode } = require("@msgpack/msgpack");

function connect(path) {
  const sock = net.createConnection(path);
  let buf = Buffer.alloc(0), nextId = 1, onEvent = null, onEnd = null;
  const pending = []; // answers come back in order
  sock.on("data", (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 4) {
      const n = buf.readUInt32BE(0);
      if (n === 0 || n > 1 << 20) { sock.destroy(new Error("bad frame length " + n)); return; }
      if (buf.length < 4 + n) break;
      const msg = decode(buf.subarray(4, 4 + n));
      buf = buf.subarray(4 + n);
      if (onEvent) { onEvent(msg); continue; }
      const p = pending.shift();
      if (!p) { sock.destroy(new Error("unexpected frame " + JSON.stringify(msg))); return; }
      if (msg.id !== p.id && msg.id !== 0) { p.reject(new Error(`answer id ${msg.id} for request ${p.id}`)); continue; }
      // A subscription's events may follow its answer in the same chunk:
      // switch to events before the next frame.
      if (msg.ok && p.onEvent) onEvent = p.onEvent;
      if (msg.ok) p.resolve(msg.result);
      else p.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
    }
  });
  sock.on("error", (err) => pending.splice(0).forEach((p) => p.reject(err)));
  sock.on("close", () => {
    pending.splice(0).forEach((p) => p.reject(new Error("closed")));
    if (onEnd) onEnd();
  });
  function call(method, params, onEventAfter) {
    const id = nextId++;
    const req = { v: 1, id, method };
    if (params !== undefined) req.params = params;
    const body = Buffer.from(encode(req));
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    sock.write(Buffer.concat([head, body])); // one write per frame
    return new Promise((resolve, reject) => pending.push({ id, resolve, reject, onEvent: onEventAfter }));
  }
  // subscribe turns the connection into an event stream: resolves to the
  // stream's event names, then calls handler(event) per event and end()
  // at EOF. Nothing else may be sent on it afterwards.
  async function subscribe(events, handler, end) {
    onEnd = end || null;
    const res = await call("subscribe", events && events.length ? { events } : undefined, handler);
    return res.events;
  }
  return { call, subscribe, close: () => sock.end() };
}

async function main() {
  const [socketPath, text] = process.argv.slice(2);
  if (!socketPath || !text) throw new Error("usage: node client.cjs SOCKET TEXT");
  const c = connect(socketPath);

  const hello = await c.call("hello", { client: "node-test/1" });
  assert.strictEqual(hello.protocol, 1);
  for (const m of ["state", "pid", "inject", "restart", "stop", "resume", "screen", "history", "subscribe"]) {
    assert.ok(hello.methods.includes(m), `hello.methods lacks ${m}: ${hello.methods}`);
  }

  const state = await c.call("state");
  assert.strictEqual(state.lifecycle, "running");
  assert.strictEqual(state.activity, "unknown");
  assert.ok(Number(state.pid) > 0, "state.pid");
  assert.ok(/^[0-9a-f]{12}$/.test(state.session_id), "state.session_id " + state.session_id);
  assert.ok(socketPath.endsWith(state.session_id + ".sock"));
  assert.strictEqual(state.last_exit, null);

  const inj = await c.call("inject", { text, submit: true });
  assert.strictEqual(Number(inj.written), Buffer.byteLength(text) + 1);

  await assert.rejects(c.call("no_such_method"), (e) => e.code === "UNKNOWN_METHOD");
  await assert.rejects(c.call("inject", { txt: "typo" }), (e) => e.code === "BAD_REQUEST");

  // Still in sync after errors: answers keep coming in order.
  const [a, b] = await Promise.all([c.call("pid"), c.call("pid")]);
  assert.strictEqual(Number(a.pid), Number(state.pid));
  assert.strictEqual(Number(b.sup_pid), Number(state.sup_pid));

  c.close();
  console.log("NODE-CLIENT-OK");
}

module.exports = { connect };

if (require.main === module) {
  main().catch((err) => {
    console.error("node client failed:", err);
    process.exit(1);
  });
}
