"""Claude Code hook latency, as installed, direct path against warm path in one run.

    python scripts/bench_hooks.py                       # 10,000 memories, 2 sessions of 8 turns a path
    python scripts/bench_hooks.py --pause 0.05          # no pause after Stop: turns stored while hooks run
    python scripts/bench_hooks.py --busy 4              # four other processes spinning on the CPUs
    python scripts/bench_hooks.py --size 2000 --sessions 1 --turns 4

What it does, the way a user's Claude Code would:

1. builds (once, cached in --workdir) a workspace of --size synthetic memories
   (scripts/_synthetic.py, as Markdown files that palace indexes), and copies it once
   per path for this run, so neither path syncs the other's captures;
2. ``palace install claude-code --config-dir <temp HOME> --workspace <copy>`` per path
   and reads the hook commands back from ``<temp HOME>/.claude/settings.json``;
3. plays sessions through those commands, each run through ``sh -c`` with the payload
   on stdin as Claude Code does: SessionStart, then per turn UserPromptSubmit, three
   PostToolUse, one PostToolUseFailure, Stop (every other one without
   ``last_assistant_message``, so its answer comes from the transcript written beside
   it), --pause seconds (a user reading the answer), and SessionEnd. Payloads have the
   fields real Claude Code 2.1.328 sends (recorded from the binary
   tests/integrations/test_claude_code_real.py drives): ``session_id``, ``transcript_path``, ``cwd``,
   ``prompt_id``, ``permission_mode``, ``effort``, ``hook_event_name``, and per event
   ``source``, ``prompt``, ``tool_name``/``tool_input``/``tool_response``/``tool_use_id``/
   ``duration_ms``, ``error``/``is_interrupt`` (PostToolUseFailure, from the hooks
   reference), ``stop_hook_active``/``last_assistant_message``/``background_tasks``/
   ``session_crons``, ``reason``;
4. the *direct* sessions run each command with ``--no-service`` (every hook opens the
   palace itself); the *warm* sessions run them as installed: the first hook finds no
   service, starts one and waits for it (reported on its own line), the rest talk to it.
   Direct and warm sessions alternate, so the machine's load falls on both alike; before
   each session, five runs of the floor (a Python that imports the hook command and its
   client, all the warm path loads, and exits);
5. stops the service (it stores what waits) and counts, per path, the observations and
   session summaries stored, and the answers taken from the transcripts.

Wall time of each command, start to exit, is what Claude Code waits for. Medians and
95th percentiles per hook, and the direct/warm ratio. Targets (issue 25): median <= 150
ms per hook, user-prompt-submit p95 <= 400 ms. At the end the service is stopped and
no palace hook process may be left (checked in /proc).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _synthetic as syn  # noqa: E402

MARKER = ".bench-hooks.json"
HOOKS = ("session-start", "user-prompt-submit", "post-tool-use", "post-tool-use-failure", "stop",
         "session-end")
EVENT_OF = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit",
            "post-tool-use": "PostToolUse", "post-tool-use-failure": "PostToolUseFailure",
            "stop": "Stop", "session-end": "SessionEnd"}
TARGET_MEDIAN_S = 0.150
TARGET_PROMPT_P95_S = 0.400
PATHS = ("direct", "warm")


def say(text: str = "") -> None:
    print(text, flush=True)


# --------------------------------------------------------------------------- workspace

def build(workdir: Path, size: int, seed: int) -> Path:
    ws = workdir / f"ws-{size}-seed{seed}-gen{syn.GENERATOR_VERSION}"
    try:
        if json.loads((ws / MARKER).read_text()) == {"size": size, "seed": seed,
                                                     "generator": syn.GENERATOR_VERSION}:
            return ws
    except (OSError, ValueError):
        pass
    from palace import MemoryPalaceManager, Settings
    from palace.models import Memory
    from palace.store.files import PALACE_SUBDIR, render_memory

    shutil.rmtree(ws, ignore_errors=True)
    ws.mkdir(parents=True)
    specs = syn.generate_memories(size, seed)
    say(f"building {size:,} memories in {ws} (once; cached): Markdown files, then palace indexes them …")
    started = time.perf_counter()
    root = ws / PALACE_SUBDIR
    for s in specs:  # files as a person (or git) would put them there: the palace's source of truth
        memory = Memory(id=s.id, content=s.content, summary=s.summary, tags=tuple(s.tags),
                        importance=s.importance, location=s.location, type=s.type, source=s.source,
                        created_at=s.created_at, updated_at=s.created_at)
        folder = root / s.location
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{s.id}.md").write_text(render_memory(memory), encoding="utf-8")
    settings = Settings.from_env(workspace_dir=str(ws), vector_enabled=False, timezone="Asia/Shanghai")
    with MemoryPalaceManager(str(ws), settings=settings, embedder=None) as pm:
        indexed = pm.stats()["total"]
    say(f"  written and indexed in {time.perf_counter() - started:.0f} s ({indexed} memories)")
    (ws / MARKER).write_text(json.dumps({"size": size, "seed": seed, "generator": syn.GENERATOR_VERSION}))
    return ws


def install(home: Path, ws: Path, env: dict[str, str]) -> dict[str, str]:
    """The installed hook command of each event, from the settings file install wrote."""
    done = subprocess.run([sys.executable, "-m", "palace", "install", "claude-code", "--config-dir", str(home),
                           "--workspace", str(ws)], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"palace install claude-code failed:\n{done.stdout}{done.stderr}")
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    commands = {}
    for hook, event in EVENT_OF.items():
        [group] = settings["hooks"][event]
        [entry] = group["hooks"]
        commands[hook] = entry["command"]
    return commands


# --------------------------------------------------------------------------- payloads

class Session:
    """One Claude Code session's payloads, and the transcript Claude Code would write."""

    def __init__(self, root: Path, name: str, prompts: list[str]):
        self.id = f"{name}-{os.getpid()}-5f1c9a52-4b7e-4d0e-9a51"
        self.cwd = str(root / "project")
        self.transcript = root / f"{self.id}.jsonl"
        self.prompts = prompts
        self.lines: list[dict] = []
        self.turn = 0

    def common(self, event: str) -> dict:
        """The fields Claude Code 2.1.328 sends with each event (as recorded from the real
        binary: tests/integrations/test_claude_code_real.py runs it)."""
        data = {"session_id": self.id, "transcript_path": str(self.transcript), "cwd": self.cwd}
        if event != "SessionStart":
            data["prompt_id"] = f"{self.id}-prompt{self.turn}"
        if event not in ("SessionStart", "SessionEnd"):
            data["permission_mode"] = "default"
        if event in ("PostToolUse", "PostToolUseFailure", "Stop"):
            data["effort"] = {"level": "medium"}
        return {**data, "hook_event_name": event}

    def record(self, kind: str, content, **extra) -> None:
        self.lines.append({"type": kind, "sessionId": self.id, "cwd": self.cwd, "uuid": f"u{len(self.lines)}",
                           "timestamp": "2026-12-01T10:00:00Z", "message": {"role": kind, "content": content},
                           **extra})
        with open(self.transcript, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(self.lines[-1], ensure_ascii=False) + "\n")

    def events(self) -> list[tuple[str, dict]]:
        out = [("session-start", {**self.common("SessionStart"), "source": "startup"})]
        for prompt in self.prompts:
            out += self.turn_events(prompt)
        out.append(("session-end", {**self.common("SessionEnd"), "reason": "other"}))
        return out

    def turn_events(self, prompt: str) -> list[tuple[str, dict]]:
        self.turn += 1
        n = self.turn
        calls = [("Bash", {"command": f"pytest tests/test_turn{n}.py -q", "description": "Run the tests"},
                  {"stdout": f"{n} passed in 0.4{n}s", "stderr": "", "interrupted": False, "isImage": False}),
                 ("Read", {"file_path": f"/srv/app/module{n}.py"},
                  {"type": "text", "file": {"filePath": f"/srv/app/module{n}.py",
                                            "content": "def handler(event):\n    return event\n" * 40,
                                            "numLines": 80, "startLine": 1, "totalLines": 80}}),
                 ("Edit", {"file_path": f"/srv/app/module{n}.py", "old_string": "return event",
                           "new_string": "return normalise(event)", "replace_all": False},
                  {"filePath": f"/srv/app/module{n}.py", "oldString": "return event",
                   "newString": "return normalise(event)", "structuredPatch": [], "userModified": False})]
        answer = f"Done: module{n}.py now normalises events and the tests pass ({prompt[:40]})."
        events = [("user-prompt-submit", {**self.common("UserPromptSubmit"), "prompt": prompt})]
        self.record("user", prompt)
        for i, (tool, tool_input, response) in enumerate(calls):
            use_id = f"toolu_{n:02d}{i}abcdef"
            self.record("assistant", [{"type": "tool_use", "id": use_id, "name": tool, "input": tool_input}])
            self.record("user", [{"type": "tool_result", "tool_use_id": use_id, "content": "ok"}])
            events.append(("post-tool-use", {**self.common("PostToolUse"), "tool_name": tool,
                                             "tool_input": tool_input, "tool_response": response,
                                             "tool_use_id": use_id, "duration_ms": 41}))
        failing = f"toolu_{n:02d}9abcdef"
        self.record("assistant", [{"type": "tool_use", "id": failing, "name": "Bash",
                                   "input": {"command": "npm run lint"}}])
        self.record("user", [{"type": "tool_result", "tool_use_id": failing, "is_error": True,
                              "content": "Command exited with non-zero status code 1"}])
        events.append(("post-tool-use-failure", {**self.common("PostToolUseFailure"), "tool_name": "Bash",
                                                 "tool_input": {"command": "npm run lint"},
                                                 "tool_use_id": failing,
                                                 "error": "Command exited with non-zero status code 1",
                                                 "is_interrupt": False}))
        self.record("assistant", [{"type": "text", "text": answer}])
        stop = {**self.common("Stop"), "stop_hook_active": False, "background_tasks": [], "session_crons": []}
        if n % 2:
            stop["last_assistant_message"] = answer
        events.append(("stop", stop))
        return events


# --------------------------------------------------------------------------- running

def run_hook(command: str, payload: dict, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(["sh", "-c", command], input=json.dumps(payload, ensure_ascii=False), text=True,
                          capture_output=True, env=env, timeout=60)
    seconds = time.perf_counter() - started
    if done.returncode != 0 or done.stderr.strip():
        raise SystemExit(f"hook failed ({done.returncode}): {command}\n{done.stderr}")
    if payload["hook_event_name"] in ("SessionStart", "UserPromptSubmit") and done.stdout.strip():
        output = json.loads(done.stdout)["hookSpecificOutput"]
        assert output["hookEventName"] == payload["hook_event_name"] and output["additionalContext"]
    return seconds


def play(session: Session, commands: dict[str, str], env: dict[str, str], suffix: str,
         times: dict[str, list[float]], pause: float, first: list[float] | None = None) -> None:
    for hook, payload in session.events():
        seconds = run_hook(commands[hook] + suffix, payload, env)
        if first is not None and not first:
            first.append(seconds)  # the hook that found no service (it went direct and started one)
            continue
        times.setdefault(hook, []).append(seconds)
        if hook == "stop":
            time.sleep(pause)  # a user reads the answer and types the next prompt


def floor(env: dict[str, str], runs: int) -> list[float]:
    """What no hook can beat: a Python process that imports the hook command and its
    client (all the warm path loads), then exits."""
    command = [sys.executable, "-c", "import palace.integrations.claude_code, palace.integrations.hook_client"]
    out = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, env=env, check=True)
        out.append(time.perf_counter() - started)
    return out


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def hook_processes(ws: Path) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "palace.integrations" in cmdline and str(ws) in cmdline:
            found.append(f"{entry.name}: {cmdline.strip()}")
    return found


def captured(ws: Path, sessions: list[Session]) -> tuple[int, int, int]:
    """Observations and session summaries of these sessions, and answers that came from a transcript."""
    from palace import MemoryPalaceManager, Settings

    settings = Settings.from_env(workspace_dir=str(ws), vector_enabled=False)
    with MemoryPalaceManager(str(ws), settings=settings, embedder=None) as pm:
        observations = pm.list(type="observation", limit=100_000)
        summaries = pm.list(type="session", limit=100_000)
    ids = {s.id for s in sessions}
    mine = [m for m in observations if m.extra.get("sessionId") in ids]
    answers = {f"({p[:40]})" for s in sessions for i, p in enumerate(s.prompts, 1) if i % 2 == 0}
    return (len(mine), sum(1 for m in summaries if m.extra.get("sessionId") in ids),
            sum(1 for m in mine if any(a in m.content for a in answers)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=2, help="sessions per path (default 2)")
    parser.add_argument("--turns", type=int, default=8, help="turns per session (default 8)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--busy", type=int, default=0,
                        help="keep this many other processes spinning on the CPUs meanwhile (a busy machine)")
    parser.add_argument("--pause", type=float, default=1.0,
                        help="seconds after each Stop before the next prompt (default 1; a real user "
                             "takes longer, and the service stores the turn in that pause)")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "palace-bench-hooks"))
    args = parser.parse_args()

    from palace.integrations import hook_client

    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    built = build(workdir, args.size, args.seed)
    run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=workdir))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(MEMORY_VECTOR_ENABLED="false", MEMORY_TIMEZONE="Asia/Shanghai")
    # one copy of the workspace (and one install, one HOME) a path, so neither path's
    # captures are the other's to sync
    spaces: dict[str, Path] = {}
    commands: dict[str, dict[str, str]] = {}
    envs: dict[str, dict[str, str]] = {}
    for path in PATHS:
        spaces[path] = run_dir / f"ws-{path}"
        shutil.copytree(built, spaces[path], ignore=shutil.ignore_patterns("hooks.*"))
        envs[path] = {**env, "HOME": str(run_dir / f"home-{path}")}
        commands[path] = install(run_dir / f"home-{path}", spaces[path], envs[path])
    queries = iter(q.text for q in syn.generate_queries(240, seed=7))
    played = {path: [Session(run_dir, f"{path}{i}", [next(queries) for _ in range(args.turns)])
                     for i in range(args.sessions)] for path in PATHS}

    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    load = os.getloadavg()
    say(f"{args.size:,} memories, {args.sessions} sessions of {args.turns} turns a path (alternating), "
        f"{args.pause:g} s after each Stop; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; "
        f"{os.cpu_count()} CPUs; {args.busy} spinning processes")
    say(f"installed command, e.g.: {commands['warm']['user-prompt-submit']}")
    times: dict[str, dict[str, list[float]]] = {path: {} for path in PATHS}
    floors: list[float] = []
    first: list[float] = []
    warm_ws = str(spaces["warm"])
    try:
        for i in range(args.sessions):
            floors += floor(envs["warm"], 5)
            play(played["direct"][i], commands["direct"], envs["direct"], " --no-service", times["direct"],
                 args.pause)
            floors += floor(envs["warm"], 5)
            play(played["warm"][i], commands["warm"], envs["warm"], "", times["warm"], args.pause,
                 None if i else first)
        status = hook_client.status(warm_ws)
    finally:
        stopped = hook_client.stop(warm_ws)
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    left = hook_processes(spaces["warm"]) + hook_processes(spaces["direct"])
    stored = {path: captured(spaces[path], played[path]) for path in PATHS}
    direct, warm = times["direct"], times["warm"]
    say()
    say("| hook | runs | direct median | direct p95 | warm median | warm p95 | median ratio |")
    say("|---|---|---|---|---|---|---|")
    for hook in HOOKS:
        d, w = direct.get(hook, []), warm.get(hook, [])
        if not d or not w:
            continue
        dm, wm = statistics.median(d), statistics.median(w)
        say(f"| {hook} | {len(d)}/{len(w)} | {dm * 1000:.0f} ms | {pct(d, 95) * 1000:.0f} ms | "
            f"{wm * 1000:.0f} ms | {pct(w, 95) * 1000:.0f} ms | {dm / wm:.1f}x |")
    all_direct = [t for v in direct.values() for t in v]
    all_warm = [t for v in warm.values() for t in v]
    say(f"| every hook | {len(all_direct)}/{len(all_warm)} | {statistics.median(all_direct) * 1000:.0f} ms | "
        f"{pct(all_direct, 95) * 1000:.0f} ms | {statistics.median(all_warm) * 1000:.0f} ms | "
        f"{pct(all_warm, 95) * 1000:.0f} ms | {statistics.median(all_direct) / statistics.median(all_warm):.1f}x |")
    say(f"| floor: python -c 'import palace.integrations.claude_code, …hook_client' | {len(floors)} | | | "
        f"{statistics.median(floors) * 1000:.0f} ms | {pct(floors, 95) * 1000:.0f} ms | |")
    say()
    say(f"first hook of the warm run (no service yet: starts one and waits for it): {first[0] * 1000:.0f} ms")
    for path, (observations, summaries, from_transcript) in stored.items():
        say(f"captured ({path}): {observations} observations of {args.sessions * args.turns} turns, "
            f"{summaries} session summaries, {from_transcript} answers read from the transcript "
            f"(of {sum(1 for s in played[path] for n in range(1, args.turns + 1) if n % 2 == 0)} "
            "Stops without last_assistant_message)")
    say(f"service: {status.get('hooks_served')} hooks served, pid {status.get('pid')}, stopped: {stopped}")
    worst_median = max(statistics.median(v) for v in warm.values())
    prompt_p95 = pct(warm["user-prompt-submit"], 95)
    say(f"targets: every warm median <= {TARGET_MEDIAN_S * 1000:.0f} ms: "
        f"{'yes' if worst_median <= TARGET_MEDIAN_S else 'NO'} (worst {worst_median * 1000:.0f} ms); "
        f"user-prompt-submit p95 <= {TARGET_PROMPT_P95_S * 1000:.0f} ms: "
        f"{'yes' if prompt_p95 <= TARGET_PROMPT_P95_S else 'NO'} ({prompt_p95 * 1000:.0f} ms)")
    say(f"palace hook processes left after stop: {len(left)}")
    for line in left:
        say(f"  {line}")
    shutil.rmtree(run_dir, ignore_errors=True)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
