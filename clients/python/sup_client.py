"""A small client of sup's control socket (specs/ipc.md), stdlib + msgpack.

    from sup_client import Client, sockets
    with Client(sockets()[0]) as c:
        print(c.call("hello", {"client": "my-script/1"}))
        print(c.call("state")["activity"])

Errors the server answers come back as SupError with .code (BAD_REQUEST,
UNKNOWN_METHOD, ...). On Debian: apt-get install python3-msgpack.
"""
import glob
import os
import socket
import struct

import msgpack

MAX_FRAME = 1 << 20  # the protocol's frame limit, both directions
PROTOCOL = 1


class SupError(Exception):
    """An error answer: code is the stable UPPER_SNAKE code."""

    def __init__(self, code, message, id=None):
        super().__init__("%s: %s" % (code, message))
        self.code, self.message, self.id = code, message, id


def runtime_dir(env=None):
    """The runtime dir as sup computes it (specs/ipc.md, 'Where the socket is')."""
    env = os.environ if env is None else env
    if env.get("SUP_RUNTIME_DIR"):
        return env["SUP_RUNTIME_DIR"]
    xdg = env.get("XDG_RUNTIME_DIR", "")
    if xdg.startswith("/"):
        return os.path.join(xdg, "sup")
    return os.path.join(env.get("TMPDIR") or "/tmp", "sup-%d" % os.geteuid())


def sockets(dir=None):
    """Every *.sock in the runtime dir, sorted (stale ones included: a
    connect to one raises ConnectionRefusedError)."""
    return sorted(glob.glob(os.path.join(dir or runtime_dir(), "*.sock")))


def frame(value):
    """value as one frame: a 4-byte big-endian length, then msgpack."""
    body = msgpack.packb(value, use_bin_type=True)
    if not 1 <= len(body) <= MAX_FRAME:
        raise ValueError("frame of %d bytes: must be 1..%d" % (len(body), MAX_FRAME))
    return struct.pack(">I", len(body)) + body


def read_frame(sock):
    """The next value from sock; None at a clean EOF between frames."""
    head = _read_exact(sock, 4, eof_ok=True)
    if head is None:
        return None
    (n,) = struct.unpack(">I", head)
    if not 1 <= n <= MAX_FRAME:
        raise ValueError("frame length %d: must be 1..%d" % (n, MAX_FRAME))
    return msgpack.unpackb(_read_exact(sock, n), raw=False, strict_map_key=True)


def _read_exact(sock, n, eof_ok=False):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            if eof_ok and not buf:
                return None
            raise ConnectionError("connection closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def _check_server(sock, path):
    """Refuse a socket served by another uid (SO_PEERCRED, Linux), before
    sending anything: a planted socket must not get our requests
    (specs/ipc.md, 'Who may connect')."""
    if not hasattr(socket, "SO_PEERCRED"):
        return
    pid, uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    if uid != os.geteuid():
        raise SupError("PERMISSION_DENIED", "%s is served by uid %d (pid %d), not by you (uid %d); "
                       "sup talks only to your own supervisors" % (path, uid, pid, os.geteuid()))


class Client:
    """One connection. Calls are sequential; answers come back in order."""

    def __init__(self, path, timeout=10.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(path)
            _check_server(self.sock, path)
        except (OSError, SupError):
            self.sock.close()
            raise
        self.next_id = 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.sock.close()

    def call(self, method, params=None):
        """Send one request, return its result or raise SupError."""
        req_id = self.next_id
        self.next_id += 1
        req = {"v": PROTOCOL, "id": req_id, "method": method}
        if params is not None:
            req["params"] = params
        try:
            self.sock.sendall(frame(req))  # one frame, one write
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may have refused us first: read its reason
        resp = read_frame(self.sock)
        if resp is None:
            raise ConnectionError("%s: the server closed the connection" % method)
        if not resp.get("ok"):
            err = resp.get("error") or {}
            raise SupError(err.get("code", "INTERNAL"), err.get("message", ""), resp.get("id"))
        if resp.get("id") != req_id:
            raise SupError("INTERNAL", "answer id %r for request %d" % (resp.get("id"), req_id))
        return resp.get("result")

    def subscribe(self, events=None):
        """Subscribe; returns the stream's event names. Then only events()
        may be used on this connection."""
        params = {"events": list(events)} if events else None
        return self.call("subscribe", params)["events"]

    def events(self):
        """Yield event maps {event, seq, at, data} until the server closes."""
        while True:
            ev = read_frame(self.sock)
            if ev is None:
                return
            yield ev
