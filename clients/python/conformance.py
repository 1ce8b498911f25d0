"""Runs sup's protocol conformance suite with sup_client.

    /usr/bin/python3 conformance.py CASES.json live=SOCK exited=SOCK halted=SOCK

Prints one line per case and CONFORMANCE PASS when every case passed
(exit 0); otherwise exits 1. The format: ipc/testdata/conformance/README.md.
"""
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sup_client import Client, SupError, frame, read_frame  # noqa: E402

CASE_TIMEOUT = 20.0


class Mismatch(Exception):
    pass


def type_name(v):
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, str):
        return "str"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, (list, tuple)):
        return "array"
    if isinstance(v, bytes):
        return "bin"
    return type(v).__name__


def scalar_equal(want, got):
    if type_name(want) in ("int", "float"):
        return type_name(got) in ("int", "float") and want == got
    return type_name(want) == type_name(got) and want == got


def match(want, got, path="value"):
    if want is None:
        if got is not None:
            raise Mismatch("%s: got %r, want nil or absent" % (path, got))
    elif isinstance(want, dict) and len(want) == 1 and next(iter(want)).startswith("$"):
        op, arg = next(iter(want.items()))
        match_op(op, arg, got, path)
    elif isinstance(want, dict):
        if not isinstance(got, dict):
            raise Mismatch("%s: got %r, want a map" % (path, got))
        for k in sorted(want):
            match(want[k], got.get(k), k if path == "value" else path + "." + k)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            raise Mismatch("%s: got %r, want %d elements" % (path, got, len(want)))
        for i, (w, g) in enumerate(zip(want, got)):
            match(w, g, "%s[%d]" % (path, i))
    elif not scalar_equal(want, got):
        raise Mismatch("%s: got %r, want %r" % (path, got, want))


def match_op(op, arg, got, path):
    if op == "$type":
        if type_name(got) != arg:
            raise Mismatch("%s: got %s %r, want %s" % (path, type_name(got), got, arg))
    elif op == "$gte":
        if type_name(got) != "int" or got < arg:
            raise Mismatch("%s: got %r, want an integer >= %r" % (path, got, arg))
    elif op == "$substr":
        if not isinstance(got, str) or arg not in got:
            raise Mismatch("%s: got %r, want a string containing %r" % (path, got, arg))
    elif op == "$contains":
        for w in arg:
            if not isinstance(got, list) or not any(scalar_equal(w, g) for g in got):
                raise Mismatch("%s: got %r, want it to contain %r" % (path, got, w))
    elif op == "$one_of":
        if not any(scalar_equal(w, got) for w in arg):
            raise Mismatch("%s: got %r, want one of %r" % (path, got, arg))
    else:
        raise Mismatch("%s: unknown matcher %s" % (path, op))


def expand(v):
    """{"$repeat": [s, n]} becomes s*n; everything else as is."""
    if isinstance(v, dict):
        if list(v) == ["$repeat"]:
            s, n = v["$repeat"]
            return s * n
        return {k: expand(e) for k, e in v.items()}
    if isinstance(v, list):
        return [expand(e) for e in v]
    return v


def raw_conn(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(CASE_TIMEOUT)
    s.connect(path)
    return s


def hello_on(sock):
    sock.sendall(frame({"v": 1, "id": 99, "method": "hello"}))
    match({"id": 99, "ok": True}, read_frame(sock), "hello")


def expect_eof(sock):
    try:
        data = sock.recv(1)
    except ConnectionResetError:
        return
    if data:
        raise Mismatch("want the server to close the connection, read %r" % data)


def run_call(case, path):
    with Client(path, CASE_TIMEOUT) as c:
        params = case["call"].get("params")
        try:
            result = c.call(case["call"]["method"], expand(params) if params is not None else None)
        except SupError as e:
            if "error" not in case:
                raise Mismatch("got error %s, want a result" % e)
            match(case["error"], {"code": e.code, "message": e.message})
            return
        if "error" in case:
            raise Mismatch("got result %r, want error %r" % (result, case["error"]))
        match(case["result"], result)


def run_subscribe(case, path):
    with Client(path, CASE_TIMEOUT) as c:
        names = c.subscribe(case["subscribe"].get("events"))
        match(case["result"], {"events": names})
        Client(path).close()  # provoke: connect
        ev = next(c.events(), None)
        if ev is None:
            raise Mismatch("the stream ended before an event")
        match(case["event"], ev)


def run_raw(raw, path):
    held = []
    try:
        for _ in range(raw.get("hold", 0)):
            held.append(raw_conn(path))
            hello_on(held[-1])
        sock = raw_conn(path)
        try:
            out = b"".join(frame(expand(s["msg"])) if "msg" in s else bytes.fromhex(s["hex"].replace(" ", ""))
                           for s in raw["send"])
            if out:
                sock.sendall(out)
            for i, want in enumerate(raw["expect"]):
                got = read_frame(sock)
                if got is None:
                    raise Mismatch("answer %d: connection closed" % (i + 1))
                match(want, got, "answer %d" % (i + 1))
            then = raw["then"]
            if then == "open":
                hello_on(sock)
            elif then == "closed":
                expect_eof(sock)
            elif then == "byte_closes":
                sock.sendall(b"\0")
                expect_eof(sock)
            else:  # client_close: the server lives on
                sock.close()
                live = raw_conn(path)
                hello_on(live)
                live.close()
        finally:
            sock.close()
    finally:
        for h in held:
            h.close()


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: conformance.py CASES.json NAME=SOCKET...")
    with open(argv[1]) as f:
        suite = json.load(f)
    sockets = dict(a.split("=", 1) for a in argv[2:])
    failed = 0
    for case in suite["cases"]:
        t0 = time.monotonic()
        try:
            path = sockets[case["socket"]]
            if "call" in case:
                run_call(case, path)
            elif "subscribe" in case:
                run_subscribe(case, path)
            else:
                run_raw(case["raw"], path)
            print("ok   %s (%d ms)" % (case["name"], (time.monotonic() - t0) * 1000))
        except Exception as e:  # every failure is reported, the run goes on
            failed += 1
            print("FAIL %s: %s: %s" % (case["name"], type(e).__name__, e))
    if failed:
        print("CONFORMANCE FAILED %d of %d" % (failed, len(suite["cases"])))
        sys.exit(1)
    print("CONFORMANCE PASS %d cases" % len(suite["cases"]))


if __name__ == "__main__":
    main(sys.argv)
