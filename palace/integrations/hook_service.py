"""The Claude Code hooks' warm service: one background process per workspace that keeps
the palace open, so a hook costs a socket round trip instead of opening a palace.

``python -m palace.integrations.hook_service --workspace WS`` (the first hook that finds
no service starts it: ``hook_client.start_service``). It

* holds ``<palace>/.palace/hooks.lock`` for its whole life, so it is the only one;
* listens on ``hooks.sock`` beside it (mode 0600) and answers each hook by running
  ``claude_code.run`` on its open palace, the direct path's code, so both answer alike;
  every capture only joins the session's spool, and the turns those captures end are
  stored ``DRAIN_DELAY_S`` later by a worker, in a pause between hooks (Claude Code
  writes the transcript after the hook, and no hook should wait behind the worker);
  the same worker brings the index in line with files edited by hand (a sync stats
  every file: ~0.1 s at 10,000 memories, which no hook should pay);
* answers only hooks of its own install and settings (``code`` and ``env`` of the
  request): a hook with other MEMORY_* settings, or one run after palace's code
  changed on disk (an upgrade, a ``git pull``), makes it store what waits and exit, and
  the hook goes direct and starts a fresh one;
* exits after ``MEMORY_HOOK_SERVICE_IDLE`` seconds without a hook (900), on SIGTERM,
  on ``hook_client.stop``, and when its workspace or its socket disappears, never
  leaving a stray process behind; ``palace doctor`` shows it (``hook_client.status``).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import signal
import socketserver
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from palace.integrations import claude_code, hook_client
from palace.store.atomic import atomic_write

DRAIN_DELAY_S = 2.0        # a turn's end waits this long before it is stored
DRAIN_QUIET_S = 0.5        # ...and for a moment without hooks, so no hook waits behind it
DRAIN_MAX_DELAY_S = 15.0   # ...but never longer than this once due
CHECK_EVERY_S = 0.5        # how often the service looks at its reasons to exit
SYNC_INTERVAL_S = 2.0      # hand edits noticed this soon while hooks come (in a pause between them)
IDLE_SYNC_INTERVAL_S = 30.0  # ...and this soon while none do (or they never pause)
LOCK_WAIT_S = 2.0          # a starting service waits this long for the lock (a probe holds it briefly)
MAX_HEADER_BYTES = 64 * 1024
MAX_LOG_BYTES = 1024 * 1024
WARM_UP_QUERY = "上周 database 数据库 decision"  # loads the segmenter, time words, the index pages


def log(message: str) -> None:
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    sys.stderr.write(f"{stamp} palace hook service [{os.getpid()}]: {message}\n")
    sys.stderr.flush()


def code_stamp(package: str) -> str:
    """A digest of palace's code as it lies on disk: a changed file, a new one, one gone."""
    entries = []
    for folder, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                try:
                    info = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                entries.append(f"{os.path.relpath(os.path.join(folder, name), package)}:"
                               f"{info.st_mtime_ns}:{info.st_size}")
    return hashlib.blake2b("\n".join(entries).encode(), digest_size=12).hexdigest()


class HookService:
    def __init__(self, workspace: str, idle_s: float):
        self.workspace = workspace
        self.idle_s = idle_s
        self.folder = hook_client.service_dir(workspace)
        self.socket_path = hook_client.socket_path(workspace)
        self.code = hook_client.code_dir()
        self.stamp = code_stamp(self.code)
        self.env = hook_client.env_digest()
        self.started = time.time()
        self.last_request = time.monotonic()
        self.served = 0
        self.pm: Any = None
        self.lock = threading.Lock()           # one hook (or drain) on the palace at a time
        self.due: dict[str, tuple[float, float]] = {}  # session -> (due from, stored by at the latest)
        self.due_changed = threading.Condition()
        self.exit_reason: str | None = None
        self.last_sync = time.monotonic()
        self._lock_fd: int | None = None
        self._socket_inode: int | None = None

    # ------------------------------------------------------------------ life

    def acquire(self) -> bool:
        os.makedirs(self.folder, exist_ok=True)
        fd = os.open(os.path.join(self.folder, hook_client.LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                import fcntl  # not palace.store.locks: this is the lock hook_client probes (stdlib only)

                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._lock_fd = fd
                return True
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return False
                time.sleep(0.02)

    def open(self) -> None:
        self.pm = claude_code.open_manager(self.workspace)
        for note in self.pm.notes:
            log(note)
        try:  # the first search of a process loads what every later one uses
            self.pm.search(WARM_UP_QUERY, top_k=3, record_access=False)
            from palace.features import context  # noqa: F401 - recall's code and capture's (its secret rules)
            from palace.capture import pipeline  # noqa: F401
        except Exception as exc:  # noqa: BLE001 - a warm-up is worth no failure
            log(f"warm-up search failed ({type(exc).__name__}: {exc})")
        self.last_sync = time.monotonic()  # opening synced

    def bind(self) -> socketserver.UnixStreamServer:
        os.makedirs(os.path.dirname(self.socket_path), mode=0o700, exist_ok=True)
        try:
            os.unlink(self.socket_path)  # a dead service's: we hold the lock, so no live one's
        except FileNotFoundError:
            pass
        service = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                service.handle(self.rfile, self.wfile)

        class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
            daemon_threads = True

        old_umask = os.umask(0o177)  # the socket is the user's alone from its first moment
        try:
            server = Server(self.socket_path, Handler)
        finally:
            os.umask(old_umask)
        self._socket_inode = os.stat(self.socket_path).st_ino
        return server

    def write_state(self) -> None:
        from palace import __version__

        state = {"pid": os.getpid(), "workspace": self.workspace, "socket": self.socket_path,
                 "started": datetime.fromtimestamp(self.started, timezone.utc).isoformat(timespec="seconds"),
                 "version": __version__, "idle_s": self.idle_s, "python": sys.executable}
        atomic_write(Path(self.folder) / hook_client.STATE_FILE, json.dumps(state))

    def run(self) -> int:
        if not self.acquire():
            log("another service holds this workspace's lock; not starting")
            return 0
        server = None
        try:
            self.open()
            server = self.bind()
            self.write_state()
            threading.Thread(target=server.serve_forever, name="hooks-server", daemon=True).start()
            threading.Thread(target=self.drain_loop, name="hooks-drain", daemon=True).start()
            log(f"serving {self.workspace} on {self.socket_path} (idle limit {self.idle_s:g} s)")
            while self.exit_reason is None:
                time.sleep(CHECK_EVERY_S)
                self.exit_reason = self.exit_reason or self.reason_to_exit()
            log(f"exiting: {self.exit_reason}")
        finally:
            if server is not None:
                server.shutdown()
                server.server_close()
            self.close()
        return 0

    def reason_to_exit(self) -> str | None:
        if not os.path.isdir(self.folder):
            return "the workspace's palace is gone"
        try:
            if os.stat(self.socket_path).st_ino != self._socket_inode:
                return "its socket was replaced"
        except FileNotFoundError:
            return "its socket was removed"
        if code_stamp(self.code) != self.stamp:
            return "palace's code changed on disk"
        with self.due_changed:
            waiting = bool(self.due)
        if not waiting and time.monotonic() - self.last_request > self.idle_s:
            return f"idle for {self.idle_s:g} s"
        return None

    def close(self) -> None:
        """Store what waits (unless the palace is gone), then leave nothing behind."""
        with self.due_changed:
            sessions, self.due = list(self.due), {}
        if sessions and self.pm is not None and os.path.isdir(self.folder):
            self.drain(sessions)
        if self.pm is not None:
            with self.lock:
                self.pm.close()
        try:
            if self._socket_inode is not None and os.stat(self.socket_path).st_ino == self._socket_inode:
                os.unlink(self.socket_path)
        except OSError:
            pass
        state = os.path.join(self.folder, hook_client.STATE_FILE)
        try:
            with open(state, encoding="utf-8") as handle:
                if json.load(handle).get("pid") == os.getpid():
                    os.unlink(state)
        except (OSError, ValueError):
            pass
        if self._lock_fd is not None:
            os.close(self._lock_fd)

    # ------------------------------------------------------------------ hooks

    def handle(self, rfile: Any, wfile: Any) -> None:
        header_line = rfile.readline(MAX_HEADER_BYTES)
        try:
            header = json.loads(header_line)
        except ValueError:
            return
        if not isinstance(header, dict):
            return
        op = header.get("op")
        if op == "status":
            reply: dict[str, Any] = self.status()
        elif op == "stop":
            self.exit_reason = "asked to stop"
            reply = {"status": "ok"}
        elif op == "hook":
            self.last_request = time.monotonic()
            payload = rfile.read(claude_code.MAX_STDIN_BYTES + 1)
            reply = self.hook(header, payload)
        else:
            reply = {"status": "error", "message": f"unknown op {op!r}"}
        try:
            wfile.write(json.dumps(reply, ensure_ascii=False).encode("utf-8"))
        except OSError:
            pass  # the hook gave up waiting (its watchdog); what it sent is captured

    def hook(self, header: dict[str, Any], payload: bytes) -> dict[str, Any]:
        if header.get("v") != hook_client.PROTOCOL or header.get("code") != self.code:
            return {"status": "elsewhere", "message": "this service runs another palace install"}
        if header.get("env") != self.env:
            self.exit_reason = "a hook came with other MEMORY_* settings"
            return {"status": "restart", "message": self.exit_reason}
        if code_stamp(self.code) != self.stamp:
            self.exit_reason = "palace's code changed on disk"
            return {"status": "restart", "message": self.exit_reason}
        try:
            event = claude_code.event_name(str(header.get("event")))
        except claude_code.HookError as exc:
            return {"status": "ok", "stdout": "", "notes": [str(exc)]}
        args = claude_code.args_from(header.get("options") or {}, self.workspace)
        out, notes = io.StringIO(), list[str]()
        session = None
        with self.lock:
            self.served += 1
            try:
                if len(payload) > claude_code.MAX_STDIN_BYTES:
                    raise claude_code.HookError(f"hook payload over {claude_code.MAX_STDIN_BYTES} bytes; not read")
                data = claude_code.parse_payload(payload)
                session = data.get("session_id")
                claude_code.run(event, data, args, pm=self.pm, defer_all=True, out=out, note=notes.append)
            except claude_code.HookError as exc:
                notes.append(str(exc))
            except Exception as exc:  # noqa: BLE001 - as the direct path: one line, the session goes on
                notes.append(f"{type(exc).__name__}: {exc}")
        if isinstance(session, str) and not args.no_capture and event not in claude_code.TOOL_EVENTS:
            self.schedule(session)  # a turn (or the session) ended: store it in a moment
        return {"status": "ok", "stdout": out.getvalue(), "notes": notes}

    def sync(self) -> None:
        """Files edited by hand, by git, restored from a backup (memories written by the
        MCP server or the CLI are in the shared index already)."""
        with self.lock:
            try:
                self.pm.sync(full=None)
            except Exception as exc:  # noqa: BLE001 - the next one tries again
                log(f"sync failed ({type(exc).__name__}: {exc})")
            self.last_sync = time.monotonic()

    def status(self) -> dict[str, Any]:
        from palace import __version__

        with self.due_changed:
            waiting = len(self.due)
        return {"status": "ok", "pid": os.getpid(), "workspace": self.workspace,
                "version": __version__, "uptime_s": round(time.time() - self.started, 1),
                "hooks_served": self.served, "idle_s": round(time.monotonic() - self.last_request, 1),
                "idle_limit_s": self.idle_s, "sessions_waiting": waiting, "socket": self.socket_path}

    # ------------------------------------------------------------------ deferred turns

    def schedule(self, session: str) -> None:
        with self.due_changed:
            now = time.monotonic()
            latest = self.due.get(session, (0.0, now + DRAIN_DELAY_S + DRAIN_MAX_DELAY_S))[1]
            self.due[session] = (now + DRAIN_DELAY_S, latest)
            self.due_changed.notify()

    def drain_loop(self) -> None:
        """The worker: stores the turns that are due, else syncs when that is due."""
        while self.exit_reason is None:
            ready, sync = self.next_chore()
            if ready:
                self.drain(ready)
            elif sync:
                self.sync()

    def next_chore(self) -> tuple[list[str], bool]:
        """The sessions due now, or whether a sync is; waits a moment when neither is."""
        with self.due_changed:
            now = time.monotonic()
            quiet = now - self.last_request >= DRAIN_QUIET_S
            ready = [s for s, (due, latest) in self.due.items() if (due <= now and quiet) or latest <= now]
            for session in ready:
                del self.due[session]
            if ready:
                return ready, False
            hooks_came = self.last_request > self.last_sync
            since = now - self.last_sync
            if since >= IDLE_SYNC_INTERVAL_S or (quiet and hooks_came and since >= SYNC_INTERVAL_S):
                return [], True
            wait = min((due for due, _latest in self.due.values()), default=now + CHECK_EVERY_S) - now
            self.due_changed.wait(timeout=max(0.05, min(wait, CHECK_EVERY_S)))
            return [], False

    def drain(self, sessions: list[str]) -> None:
        from palace.capture.service import drain_sessions

        with self.lock:
            try:
                drain_sessions(self.pm, sessions)
            except Exception as exc:  # noqa: BLE001 - the events stay in the spool for the next try
                log(f"storing deferred turns failed ({type(exc).__name__}: {exc})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m palace.integrations.hook_service",
                                     description="the Claude Code hooks' warm service for one workspace")
    parser.add_argument("--workspace", "-w", required=True, help="the palace workspace")
    parser.add_argument("--idle", type=float, default=None,
                        help="exit after this many seconds without a hook (default MEMORY_HOOK_SERVICE_IDLE)")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--status", action="store_true", help="say whether it runs (JSON) instead")
    what.add_argument("--stop", action="store_true", help="stop the running one instead (it stores what waits)")
    args = parser.parse_args(argv)
    if args.status or args.stop:
        target = hook_client.workspace_of(args.workspace) or args.workspace
        if args.stop:
            print("stopped" if hook_client.stop(target) else "not running")
        else:
            print(json.dumps(hook_client.status(target), indent=2))
        return 0
    from palace.settings import Settings

    try:  # stderr is hooks.log (append mode): keep it small
        if os.fstat(2).st_size > MAX_LOG_BYTES:
            os.ftruncate(2, 0)
    except OSError:
        pass
    workspace = hook_client.workspace_of(args.workspace)
    assert workspace is not None
    idle = args.idle or Settings.from_env().hook_service_idle_s
    service = HookService(workspace, idle)

    def stop(signum: int, _frame: Any) -> None:
        service.exit_reason = f"signal {signal.Signals(signum).name}"

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        return service.run()
    except Exception as exc:  # noqa: BLE001 - the hooks go direct; say why in hooks.log
        log(f"could not serve: {type(exc).__name__}: {exc}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
