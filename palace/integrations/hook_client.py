"""How a Claude Code hook reaches its workspace's warm service (``hook_service``).

Claude Code starts a new process for every hook event and waits for it. Opening a
palace of 10,000 memories and loading the search code costs such a process about a
second; the warm service has done that once and answers over a Unix socket in the
palace's ``.palace/`` folder. This module is all a hook imports on that path, so it
uses the standard library only (``python -X importtime -m palace.integrations.claude_code``
shows it); ``palace.store.layout`` gives it the two folder names.

``ask`` sends one hook (its options and the payload's bytes, untouched) and returns the
service's reply, or None when there is no service to ask: the hook then takes the
direct path, and ``ask`` has started a service for the hooks after it unless one is
already starting. At most one service runs per workspace: it holds ``hooks.lock``
while it lives, and the client only probes that lock.

The wire format, one connection per hook: a JSON header line ``{"v", "op", "event",
"options", "code", "env"}``, then the payload's bytes; the client closes its side and
reads one JSON reply: ``{"status": "ok", "stdout", "notes"}``, or ``{"status":
"restart" | "elsewhere", "message"}`` when this service must not answer this hook.
"""

from __future__ import annotations

import errno
import fcntl  # not filelock (palace.store.locks): a hook imports the standard library only
import hashlib
import json
import os
import socket
import sys
import time
from typing import Any

from palace.store import layout

PROTOCOL = 1
SERVICE_MODULE = "palace.integrations.hook_service"
SOCKET_FILE = "hooks.sock"
LOCK_FILE = "hooks.lock"
STATE_FILE = "hooks.json"     # what the running service says about itself (palace doctor)
LOG_FILE = "hooks.log"        # the service's own lines: start, stop and why, errors
MAX_SOCKET_PATH = 100         # sun_path holds 104 (macOS) to 108 (Linux) bytes
CONNECT_TIMEOUT_S = 0.5
START_WAIT_S = 3.0            # a hook waits this long for a starting service, then goes direct
MAX_REPLY_BYTES = 64 * 1024 * 1024
# The settings the service was started with must be the hook's: MEMORY_* and the zone.
_ENV_PREFIXES = ("MEMORY_",)
_ENV_NAMES = ("TZ",)


class ServiceGone(Exception):
    """No service answered (none runs, or it died mid-reply): take the direct path."""


def workspace_of(explicit: str | None) -> str | None:
    """The hook's workspace as an absolute path (``--workspace``, else MEMORY_WORKSPACE_DIR)."""
    raw = explicit or os.environ.get("MEMORY_WORKSPACE_DIR", "").strip()
    return os.path.realpath(os.path.expanduser(raw)) if raw else None


def service_dir(workspace: str) -> str:
    return os.path.join(workspace, layout.PALACE_SUBDIR, layout.INDEX_DIR)


def socket_path(workspace: str) -> str:
    """``<palace>/.palace/hooks.sock``; a workspace too deep for a socket's path gets one
    in a private folder of the temp directory, named by the workspace's digest."""
    path = os.path.join(service_dir(workspace), SOCKET_FILE)
    if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
        return path
    digest = hashlib.blake2b(os.fsencode(workspace), digest_size=10).hexdigest()
    base = os.environ.get("TMPDIR") or "/tmp"
    return os.path.join(base, f"palace-hooks-{os.getuid()}", f"{digest}.sock")


def env_digest(environ: Any = None) -> str:
    environ = os.environ if environ is None else environ
    items = sorted((k, v) for k, v in environ.items() if k.startswith(_ENV_PREFIXES) or k in _ENV_NAMES)
    return hashlib.blake2b(json.dumps(items).encode(), digest_size=12).hexdigest()


def code_dir() -> str:
    """The palace package this process runs (a service answers only hooks of its own install)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------- asking

def ask(workspace: str, event: str, options: dict[str, Any], payload: bytes, *,
        timeout: float, start: bool = True) -> dict[str, Any] | None:
    """The service's reply to this hook, or None (no service: the caller goes direct).
    Raises TimeoutError when the service took the hook but did not answer in time."""
    header = {"v": PROTOCOL, "op": "hook", "event": event, "options": options,
              "code": code_dir(), "env": env_digest()}
    deadline = time.monotonic() + timeout
    try:
        reply = request(workspace, header, payload, timeout=timeout)
    except ServiceGone:
        if not start:
            return None
        # Starting a service costs what the direct path costs (opening the palace), so
        # rather than do that work twice on a busy machine, wait for it a while.
        process = start_service(workspace)
        if process is None and not lock_is_held(workspace):
            return None  # no palace yet: the direct path creates it
        started = _when_started(workspace, header, payload, process,
                                min(deadline, time.monotonic() + START_WAIT_S), deadline)
        if started is None:
            return None
        reply = started
    if reply.get("status") != "ok":
        return None  # restarting (new code or settings) or another install's: go direct
    return reply


def _when_started(workspace: str, header: dict[str, Any], payload: bytes, process: Any,
                  wait_until: float, deadline: float) -> dict[str, Any] | None:
    """The reply of a service that is starting, or None if it is not up by ``wait_until``
    (or its process already ended)."""
    while time.monotonic() < wait_until:
        time.sleep(0.02)
        if process is not None and process.poll() is not None:
            return None  # it could not start (hooks.log says why), or another one won the lock
        if process is None and not lock_is_held(workspace):
            return None
        if not os.path.exists(socket_path(workspace)):
            continue
        try:
            return request(workspace, header, payload, timeout=max(0.1, deadline - time.monotonic()))
        except ServiceGone:
            continue
    return None


def request(workspace: str, header: dict[str, Any], payload: bytes = b"", *,
            timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(CONNECT_TIMEOUT_S)
        try:
            connection.connect(socket_path(workspace))
        except (FileNotFoundError, ConnectionRefusedError, socket.timeout) as exc:
            raise ServiceGone(str(exc)) from None
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ECONNREFUSED, errno.ENOTDIR, errno.EACCES):
                raise ServiceGone(str(exc)) from None
            raise
        try:
            connection.settimeout(max(0.05, deadline - time.monotonic()))
            connection.sendall(json.dumps(header).encode() + b"\n" + payload)
            connection.shutdown(socket.SHUT_WR)
            chunks = []
            received = 0
            while True:
                connection.settimeout(max(0.05, deadline - time.monotonic()))
                chunk = connection.recv(1 << 16)
                if not chunk:
                    break
                received += len(chunk)
                if received > MAX_REPLY_BYTES:
                    raise ServiceGone("reply too large")
                chunks.append(chunk)
        except socket.timeout:
            raise TimeoutError("the warm service did not answer in time") from None
        except (BrokenPipeError, ConnectionResetError) as exc:
            raise ServiceGone(str(exc)) from None
    finally:
        connection.close()
    try:
        reply = json.loads(b"".join(chunks))
    except ValueError:
        raise ServiceGone("the service closed the connection without a reply") from None
    if not isinstance(reply, dict):
        raise ServiceGone("the service's reply is not an object")
    return reply


# --------------------------------------------------------------------------- starting

def lock_is_held(workspace: str) -> bool:
    """True while a service lives (or is starting) for this workspace."""
    try:
        fd = os.open(os.path.join(service_dir(workspace), LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing releases a lock this probe took
    return False


def start_service(workspace: str) -> Any:
    """Start the workspace's service in the background unless one lives or is starting;
    its process (a ``subprocess.Popen``), or None. Detached: its own session, no
    inherited stdin/stdout (Claude Code reads the hook's stdout until every copy of it
    is closed), its lines in ``hooks.log``."""
    folder = service_dir(workspace)
    if not os.path.isdir(folder) or lock_is_held(workspace):
        return None  # no palace yet (the direct path makes it), or a service is there
    import subprocess

    log_path = os.path.join(folder, LOG_FILE)
    try:
        with open(log_path, "ab") as log:
            return subprocess.Popen([sys.executable, "-m", SERVICE_MODULE, "--workspace", workspace],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=folder,
                                    start_new_session=True, close_fds=True)
    except OSError:
        return None


def read_state(workspace: str) -> dict[str, Any] | None:
    """What the service wrote about itself when it started, if that file is there."""
    try:
        with open(os.path.join(service_dir(workspace), STATE_FILE), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def status(workspace: str, *, timeout: float = 2.0) -> dict[str, Any]:
    """The service as ``palace doctor`` shows it: ``{"running": bool, …}`` with its own
    answer (pid, uptime, hooks served, idle limit) when it runs."""
    try:
        reply = request(workspace, {"v": PROTOCOL, "op": "status"}, timeout=timeout)
    except (ServiceGone, TimeoutError, OSError) as exc:
        stale = os.path.exists(socket_path(workspace)) and not lock_is_held(workspace)
        return {"running": False, "socket": socket_path(workspace), "stale_socket": stale,
                "detail": str(exc) or type(exc).__name__}
    return {"running": True, **reply}


def stop(workspace: str, *, timeout: float = 10.0) -> bool:
    """Ask the workspace's service to exit and wait until its process is gone (it stores
    what it deferred first); True when one was running."""
    try:
        reply = request(workspace, {"v": PROTOCOL, "op": "status"}, timeout=timeout)
        request(workspace, {"v": PROTOCOL, "op": "stop"}, timeout=timeout)
    except (ServiceGone, TimeoutError):
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (lock_is_held(workspace) or _alive(reply.get("pid"))):
        time.sleep(0.02)
    return True


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, its parent not yet told) is gone for our purpose
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return True
