"""Shared helper for the pynetbox scenario scripts (not a scenario itself: its name starts with "_").

Each scenario is a small set of named checks. Every check prints exactly one line:

    ok <name>
    FAIL <name>: <reason>
    pending <name>: <reason>      (neither a pass nor a failure)

and the script exits 1 when any check failed. With NETLEDGER_LIST_CHECKS=1 it only prints
`check <name>` per check (and the pending lines) and touches no server. test/clients.test.ts turns each ok/FAIL line into one
uvu test. The service comes from the environment: NETLEDGER_URL, NETLEDGER_TOKEN and
NETLEDGER_ADMIN_PASSWORD (user "admin").

Every api() built here records its HTTP exchanges, so a failure names the request that went wrong
(method, path, status and the start of the body).
"""
import json
import os
import sys
import threading
import traceback
from urllib.parse import urlsplit

import pynetbox
import requests

URL = os.environ.get("NETLEDGER_URL", "http://127.0.0.1:8000").rstrip("/")
TOKEN = os.environ.get("NETLEDGER_TOKEN", "")
ADMIN_USERNAME = os.environ.get("NETLEDGER_ADMIN_USERNAME", "admin")
ADMIN_PASSWORD = os.environ.get("NETLEDGER_ADMIN_PASSWORD", "")
# NETLEDGER_LIST_CHECKS=1: print `check <name>` for every check without running it (`pending-check <name>`
# for a pending one); test/clients.test.ts uses this to declare one uvu test per check before the run.
LIST_ONLY = os.environ.get("NETLEDGER_LIST_CHECKS") == "1"


class Wire:
    """Records every request a session sends and the response it got (thread-safe)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.log = []

    def hook(self, response, *args, **kwargs):
        with self.lock:
            self.log.append(response)
        return response

    def clear(self):
        with self.lock:
            self.log = []

    def requests(self, method=None, path_contains=None):
        with self.lock:
            out = list(self.log)
        if method:
            out = [r for r in out if r.request.method == method]
        if path_contains:
            out = [r for r in out if path_contains in r.request.url]
        return out

    def last(self):
        with self.lock:
            return self.log[-1] if self.log else None


def api(token=TOKEN, threading=False):
    """pynetbox.api(...) whose session records requests in `nb.wire`."""
    nb = pynetbox.api(URL, token=token or None, threading=threading)
    wire = Wire()
    session = requests.Session()
    session.hooks["response"].append(wire.hook)
    nb.http_session = session
    nb.wire = wire
    return nb


def describe_response(r):
    if r is None:
        return "no request recorded"
    u = urlsplit(r.request.url)
    body = r.request.body
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    sent = f" body={short(body, 200)}" if body else ""
    return f"{r.request.method} {u.path}{'?' + u.query if u.query else ''}{sent} -> {r.status_code} {short(r.text, 300)}"


def short(value, n=240):
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


class Missing(Exception):
    pass


class State(dict):
    """Values that checks hand to later checks; a missing one names the earlier check that failed."""

    def __getitem__(self, key):
        if key not in self:
            raise Missing(f"needs {key!r}, which an earlier check that failed should have provided")
        return super().__getitem__(key)


class Checks:
    def __init__(self, scenario):
        self.scenario = scenario
        self.failed = 0
        self.passed = 0
        self.wires = []  # wires whose last request is shown on failure

    def watch(self, nb):
        self.wires.append(nb.wire)
        return nb

    def _reason(self, exc):
        if isinstance(exc, Missing):
            reason = str(exc)
        elif isinstance(exc, AssertionError):
            reason = str(exc) or "assertion failed"
        elif isinstance(exc, pynetbox.RequestError):
            reason = f"pynetbox.RequestError: {describe_response(exc.req)}"
        elif isinstance(exc, (pynetbox.ContentError, pynetbox.AllocationError)):
            reason = f"pynetbox.{type(exc).__name__}: {describe_response(exc.req)}"
        else:
            tb = traceback.extract_tb(exc.__traceback__)
            where = f" at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""
            reason = f"{type(exc).__name__}: {exc}{where}"
            last = [w.last() for w in self.wires if w.last() is not None]
            if last and not isinstance(exc, AssertionError):
                reason += f" (last request: {describe_response(last[-1])})"
        return short(reason, 900)

    def check(self, name):
        """Decorator: runs the function at once as the check `name`; returns its result (None on failure)."""

        def run(fn):
            if LIST_ONLY:
                print(f"check {name}", flush=True)
                return None
            for w in self.wires:
                w.clear()
            try:
                result = fn()
            except Exception as exc:  # noqa: BLE001 - every failure is reported, none stops the script
                self.failed += 1
                print(f"FAIL {name}: {self._reason(exc)}", flush=True)
                return None
            self.passed += 1
            print(f"ok {name}", flush=True)
            return result

        return run

    def pending(self, name, reason):
        if LIST_ONLY:
            print(f"pending-check {name}", flush=True)
            return
        print(f"pending {name}: {reason}", flush=True)

    def done(self):
        sys.stdout.flush()
        sys.exit(1 if self.failed else 0)


def eq(actual, expected, what):
    if actual != expected:
        raise AssertionError(f"{what}: expected {short(expected)}, got {short(actual)}")


def true(cond, what):
    if not cond:
        raise AssertionError(what)


def raises(exc_type, fn, what):
    """Runs fn; returns the exception it raised, fails when it raised nothing or something else."""
    try:
        value = fn()
    except exc_type as exc:
        return exc
    except Exception as exc:  # noqa: BLE001
        raise AssertionError(f"{what}: expected {exc_type.__name__}, got {type(exc).__name__}: {short(str(exc))}")
    raise AssertionError(f"{what}: expected {exc_type.__name__}, nothing was raised (returned {short(value)})")


def request_error(fn, status, what):
    """Runs fn and expects pynetbox.RequestError with this HTTP status; returns the error."""
    exc = raises(pynetbox.RequestError, fn, what)
    eq(exc.req.status_code, status, f"{what}: HTTP status ({describe_response(exc.req)})")
    return exc


def body_of(response):
    body = response.request.body
    if isinstance(body, bytes):
        body = body.decode("utf-8")
    return json.loads(body) if body else None


def ids(records):
    return [r.id for r in records]


def no_duplicates(values, what):
    seen = set()
    dups = [v for v in values if v in seen or seen.add(v)]
    true(not dups, f"{what}: {len(dups)} duplicate(s), e.g. {dups[:5]}")
