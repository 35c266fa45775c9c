"""A counting, fault-injecting HTTP/1.1 proxy for the S3 tests.

It listens on 127.0.0.1 in front of one S3 server and forwards every
request byte for byte (request line, headers including Host, body), so a
SigV4 signature the client made for the proxy's host:port still verifies
at the server (which checks the Host header as sent). One upstream
connection per client connection; keep-alive on both sides; one thread
per client connection, so hundreds of requests can be in flight.

Every request is recorded (method, path, query, Range header, status,
start and end times), the number in flight is tracked (`max_in_flight`),
and so is the number of connections accepted (`accepted`).
Faults are queued with `fault(...)` and consumed by matching requests:

    status    answer with an error status (500, 503; `slowdown=True` sends
              S3's 503 SlowDown XML) instead of forwarding
    delay     forward, then wait `seconds` before sending the response
    hang      read the request and never answer (until the proxy stops or
              the client gives up)
    reset     forward, send the headers and part of the body, then reset
              the connection (RST)
    short     forward, send the headers (with the server's Content-Length)
              and part of the body, then close cleanly (FIN)
    drop      read the request and reset the connection without forwarding
              it (a PUT that never reaches the server)

`skip=K` lets the first K matching requests through untouched.

`Proxy.dead_port()` gives a port with nothing listening.
"""

import re
import socket
import struct
import threading
import time
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlsplit


@dataclass
class Record:
    method: str
    target: str
    path: str
    query: str
    range: Optional[str]
    start: float  # when the whole request had been read
    end: float = 0.0  # when the answer started to go out
    status: int = 0
    fault: Optional[str] = None
    body_bytes: int = 0
    signed: bool = False  # an Authorization header or a presigned query
    done: bool = False  # no longer counted in flight

    @property
    def key(self):
        """The object key (path without the bucket)."""
        parts = self.path.lstrip("/").split("/", 1)
        return parts[1] if len(parts) > 1 else ""


@dataclass
class Fault:
    kind: str
    count: Optional[int]  # None: forever
    method: Optional[str] = None
    path_re: Optional[str] = None
    status: int = 503
    slowdown: bool = False
    seconds: float = 0.0
    fraction: float = 0.5
    skip: int = 0
    used: int = 0
    seen: int = 0

    def matches(self, method, path):
        if self.count is not None and self.used >= self.count:
            return False
        if self.method and method != self.method:
            return False
        if self.path_re and not re.search(self.path_re, path):
            return False
        self.seen += 1
        return self.seen > self.skip


class BadRequest(Exception):
    pass


def _read_head(sock, buf):
    """Read up to the end of an HTTP head; returns (head bytes, rest)."""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            if buf:
                raise BadRequest("connection closed mid-head")
            return None, b""
        buf += chunk
    i = buf.index(b"\r\n\r\n") + 4
    return buf[:i], buf[i:]


def _headers(head):
    lines = head.decode("latin-1").split("\r\n")
    hdrs = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            hdrs[k.strip().lower()] = v.strip()
    return lines[0], hdrs


def _read_exact(sock, buf, n):
    """n bytes from buf then sock; returns (data, rest)."""
    while len(buf) < n:
        chunk = sock.recv(max(65536, n - len(buf)))
        if not chunk:
            raise BadRequest("connection closed mid-body")
        buf += chunk
    return buf[:n], buf[n:]


def _read_line(sock, buf, what):
    """One CRLF-terminated line: (line without CRLF, rest)."""
    while b"\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise BadRequest(f"closed in {what}")
        buf += chunk
    i = buf.index(b"\r\n")
    return buf[:i], buf[i + 2 :]


def _read_chunked(sock, buf):
    """A chunked body, raw (with its framing); returns (raw, rest)."""
    raw = b""
    while True:
        line, buf = _read_line(sock, buf, "chunked body")
        size = int(line.split(b";")[0], 16)
        raw += line + b"\r\n"
        if size == 0:
            # trailers until an empty line
            while True:
                line, buf = _read_line(sock, buf, "trailers")
                raw += line + b"\r\n"
                if not line:
                    return raw, buf
        data, buf = _read_exact(sock, buf, size + 2)
        raw += data


def _read_body(sock, buf, hdrs, is_response=False, no_body=False):
    if no_body:
        return b"", buf
    if "chunked" in hdrs.get("transfer-encoding", "").lower():
        return _read_chunked(sock, buf)
    if "content-length" in hdrs:
        return _read_exact(sock, buf, int(hdrs["content-length"]))
    if is_response:
        # until close
        data = buf
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return data, b""
            data += chunk
    return b"", buf


def _rst_close(sock):
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


class Proxy:
    def __init__(self, upstream_port, upstream_host="127.0.0.1", port=0):
        self.upstream = (upstream_host, upstream_port)
        self.lock = threading.Lock()
        self.records = []
        self.faults = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.stopping = threading.Event()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(1024)
        self.port = self.listener.getsockname()[1]
        self.conns = set()
        self.accepted = 0  # client connections accepted so far
        self.thread = threading.Thread(target=self._accept_loop, daemon=True)
        self.thread.start()

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    # --- the test's side ---------------------------------------------------

    def reset(self):
        """Forget records and faults, and zero the concurrency peak."""
        with self.lock:
            self.records = []
            self.faults = []
            self.max_in_flight = self.in_flight

    def clear_faults(self):
        with self.lock:
            self.faults = []

    def fault(self, kind, count=1, method=None, path_re=None, status=503, slowdown=False, seconds=0.0, fraction=0.5,
              skip=0):
        """Queue a fault for the next `count` matching requests (None: all),
        after letting `skip` of them through."""
        assert kind in ("status", "delay", "hang", "reset", "short", "drop")
        with self.lock:
            self.faults.append(Fault(kind, count, method, path_re, status, slowdown, seconds, fraction, skip))

    def snapshot(self, settle=1.0):
        """The records so far, after waiting up to `settle` seconds for the
        requests in flight to finish (a client may have its answer a moment
        before the proxy has noted the end)."""
        deadline = time.monotonic() + settle
        while time.monotonic() < deadline:
            with self.lock:
                if self.in_flight == 0:
                    break
            time.sleep(0.01)
        with self.lock:
            return list(self.records)

    def requests(self, method=None):
        return [r for r in self.snapshot() if method is None or r.method == method]

    def lists(self):
        """GETs on a bucket with a list-type / prefix / delimiter query (ListObjects)."""
        return [r for r in self.snapshot() if r.method == "GET" and (r.key == "" or "list-type" in r.query)]

    def object_gets(self):
        return [r for r in self.snapshot() if r.method == "GET" and r.key != "" and "list-type" not in r.query]

    def stop(self):
        self.stopping.set()
        try:
            self.listener.close()
        except OSError:
            pass
        with self.lock:
            conns = list(self.conns)
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                c.close()
            except OSError:
                pass

    @staticmethod
    def dead_port():
        """A port on 127.0.0.1 with nothing listening (bound then released)."""
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        return port

    # --- the proxy ---------------------------------------------------------

    def _accept_loop(self):
        while not self.stopping.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.conns.add(client)
                self.accepted += 1
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _take_fault(self, method, path):
        with self.lock:
            for f in self.faults:
                if f.matches(method, path):
                    f.used += 1
                    return f
        return None

    def _begin(self, rec):
        with self.lock:
            self.records.append(rec)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _end(self, rec, status):
        """The request is answered (or abandoned): no longer in flight. Called
        just before the answer goes out, so that a request the client sends
        once it has the answer never counts as in flight beside this one."""
        with self.lock:
            if rec.done:
                return
            rec.done = True
            rec.status = status or rec.status
            rec.end = rec.end or time.monotonic()
            self.in_flight -= 1

    def _serve(self, client):
        upstream = None
        buf = b""
        try:
            while not self.stopping.is_set():
                head, buf = _read_head(client, buf)
                if head is None:
                    return
                reqline, hdrs = _headers(head)
                method, target = reqline.split(" ")[0], reqline.split(" ")[1]
                if hdrs.get("expect", "").lower() == "100-continue":
                    client.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
                body, buf = _read_body(client, buf, hdrs)
                u = urlsplit(target)
                rec = Record(method, target, u.path, u.query, hdrs.get("range"), time.monotonic(),
                             body_bytes=len(body),
                             signed="authorization" in hdrs or "x-amz-signature=" in u.query.lower())
                self._begin(rec)
                status = 0
                try:
                    f = self._take_fault(method, u.path)
                    rec.fault = f.kind if f else None
                    if f and f.kind == "status":
                        status = rec.status = f.status
                        if f.slowdown:
                            payload = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
                                       b"<Message>Please reduce your request rate.</Message></Error>")
                            reason = b"Slow Down"
                        else:
                            payload = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code>'
                                       b"<Message>injected</Message></Error>")
                            reason = b"Service Unavailable" if status == 503 else b"Internal Server Error"
                        self._end(rec, status)
                        client.sendall(b"HTTP/1.1 %d %s\r\nContent-Type: application/xml\r\n"
                                       b"Content-Length: %d\r\n\r\n" % (status, reason, len(payload)) + payload)
                        continue
                    if f and f.kind == "drop":
                        _rst_close(client)
                        return
                    if f and f.kind == "hang":
                        # Never answer; wait for the client to go away or the proxy to stop.
                        client.settimeout(0.5)
                        while not self.stopping.is_set():
                            try:
                                if not client.recv(65536):
                                    break
                            except socket.timeout:
                                continue
                            except OSError:
                                break
                        return
                    if upstream is None:
                        upstream = socket.create_connection(self.upstream, timeout=120)
                        upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    upstream.sendall(head + body)
                    rest = b""
                    while True:  # 1xx interim answers (100 Continue) were already given by us
                        rhead, rest = _read_head(upstream, rest)
                        if rhead is None:
                            raise BadRequest("upstream closed")
                        statusline, rhdrs = _headers(rhead)
                        status = rec.status = int(statusline.split(" ")[1])
                        if not 100 <= status < 200:
                            break
                    no_body = method == "HEAD" or status in (204, 304) or 100 <= status < 200
                    rbody, rest = _read_body(upstream, rest, rhdrs, is_response=True, no_body=no_body)
                    if "content-length" not in rhdrs and "chunked" not in rhdrs.get("transfer-encoding", "").lower() \
                            and not no_body:
                        upstream.close()
                        upstream = None
                    if f and f.kind == "delay":
                        time.sleep(f.seconds)
                    if f and f.kind in ("reset", "short") and len(rbody) > 0:
                        cut = max(0, min(len(rbody) - 1, int(len(rbody) * f.fraction)))
                        client.sendall(rhead + rbody[:cut])
                        time.sleep(0.05)
                        if f.kind == "reset":
                            _rst_close(client)
                        else:
                            client.shutdown(socket.SHUT_WR)
                            client.close()
                        return
                    # The end is noted before the answer goes out: a request the
                    # client sends after reading this answer starts later (its
                    # start is noted once it is read whole), and is never in
                    # flight beside this one.
                    self._end(rec, status)
                    client.sendall(rhead + rbody)
                    if rhdrs.get("connection", "").lower() == "close" or hdrs.get("connection", "").lower() == "close":
                        return
                finally:
                    self._end(rec, status)
        except (OSError, BadRequest, ValueError, IndexError):
            return
        finally:
            with self.lock:
                self.conns.discard(client)
            try:
                client.close()
            except OSError:
                pass
            if upstream is not None:
                try:
                    upstream.close()
                except OSError:
                    pass


def overlapping(records):
    """The largest number of the given requests in flight at one time."""
    events = []
    for r in records:
        events.append((r.start, 1))
        events.append((r.end, -1))
    events.sort(key=lambda e: (e[0], e[1]))
    cur = peak = 0
    for _, d in events:
        cur += d
        peak = max(peak, cur)
    return peak
