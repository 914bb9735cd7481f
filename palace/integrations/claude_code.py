"""Claude Code hook commands: ``python -m palace.integrations.claude_code EVENT``.

Claude Code runs one command per hook event and writes the event's JSON on
stdin (``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name`` and, per
event, ``source``, ``prompt``, ``tool_name``/``tool_input``/``tool_response``,
``error``, ``last_assistant_message``, ``trigger``, ``reason``…). What each event does:

* ``session-start`` (SessionStart): palace's bootstrap (essence, recent session
  summaries, open tasks) goes back as ``additionalContext``;
* ``user-prompt-submit`` (UserPromptSubmit): the memories relevant to the
  prompt go back as ``additionalContext``; the prompt is captured;
* ``post-tool-use``, ``post-tool-use-failure``, ``stop``: the payload joins the
  session's capture spool, nothing more (``DEFERRED_EVENTS``): the turn it ends is
  stored by the next capture that is not deferred, or by the warm service a moment later;
* ``pre-compact``, ``session-end``: the payload is captured (``palace.capture``,
  which also writes the session summary at the end).

Two paths, one behaviour. The *warm* path: the hook hands its payload to the
workspace's background service (``hook_service``, reached through ``hook_client``,
which imports nothing heavy) and prints its reply; the service runs ``run`` below on
its open palace. The *direct* path, when no service answers: this process opens the
palace and runs ``run`` itself, and starts a service for the hooks that follow.
``--no-service`` keeps to the direct path.

A hook must never hold up or break the session: every failure is one line on
stderr and exit status 0, and a watchdog ends the process after ``--timeout``
seconds whatever it is doing. Imports are lazy, so the warm path loads no palace
code at all, and neither path loads an embedding model: vectors come from the
sidecar when ``MEMORY_VECTOR_SERVICE_URL`` is set, otherwise search is keyword-only.
"""

from __future__ import annotations

# argparse, not click like the CLI: every hook runs this module, and click's import costs
# 12-25 ms here, a fifth of a warm hook's whole time (issue 28's note)
import argparse
import json
import os
import sys
import threading
import time
from typing import Any, Callable

# Event argument -> Claude Code's hook_event_name.
EVENTS = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "post-tool-use": "PostToolUse",
    "post-tool-use-failure": "PostToolUseFailure",
    "pre-compact": "PreCompact",
    "stop": "Stop",
    "session-end": "SessionEnd",
}
RECALL_EVENTS = {"SessionStart", "UserPromptSubmit"}
# Only appended to the spool: they come many times a turn, and Stop's turn is best stored
# a moment later anyway (Claude Code writes the transcript after the hook fires).
TOOL_EVENTS = {"PostToolUse", "PostToolUseFailure"}
DEFERRED_EVENTS = TOOL_EVENTS | {"Stop"}
DEFAULT_BOOTSTRAP_TOKENS = 1500
DEFAULT_PROMPT_TOKENS = 800
DEFAULT_TIMEOUT_S = 8.0
MAX_STDIN_BYTES = 32 * 1024 * 1024  # a tool response can be large; more is not a hook payload
SOURCE = "claude-code"


class HookError(Exception):
    """A problem worth one line on stderr; the session goes on."""


def event_name(argument: str) -> str:
    if argument in EVENTS:
        return EVENTS[argument]
    if argument in EVENTS.values():
        return argument
    raise HookError(f"unknown event {argument!r}; one of: {', '.join(EVENTS)}")


def read_stdin(stream) -> bytes:
    data = stream.buffer.read(MAX_STDIN_BYTES + 1) if hasattr(stream, "buffer") else stream.read().encode()
    if len(data) > MAX_STDIN_BYTES:
        raise HookError(f"hook payload over {MAX_STDIN_BYTES} bytes; not read")
    return data


def parse_payload(data: bytes) -> dict[str, Any]:
    if not data.strip():
        return {}
    try:
        payload = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HookError(f"hook payload on stdin is not JSON ({exc})") from None
    if not isinstance(payload, dict):
        raise HookError("hook payload on stdin is not a JSON object")
    return payload


def hook_output(event: str, context: str) -> dict[str, Any]:
    """What Claude Code reads from stdout to add context to the session."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}


def render(result, kind: str) -> str:
    intro = ("What palace (long-term memory) knows for this session" if kind == "bootstrap"
             else "Memories from palace relevant to this prompt")
    return (f'<palace-memory kind="{kind}" tokens="{result.tokens_used}">\n'
            f"{intro}. Cite a memory by its [id]; the palace MCP server's get_memory opens one in full.\n\n"
            f"{result.text}\n</palace-memory>")


def open_manager(workspace: str | None, *, sync: bool = True):
    from palace.manager.opening import open_manager as open_palace
    from palace.settings import Settings

    overrides: dict[str, Any] = {"workspace_dir": workspace} if workspace else {}
    settings = Settings.from_env(**overrides)
    if not workspace and settings.sources.get("workspace_dir") != "env":
        raise HookError("no workspace: pass --workspace DIR (palace install claude-code writes it) "
                        "or set MEMORY_WORKSPACE_DIR")
    return open_palace(settings, sync=sync)  # never torch in a hook


def recall(pm, event: str, payload: dict[str, Any], args) -> str | None:
    from palace.features import context as ctx

    if event == "SessionStart":
        result = ctx.bootstrap(pm, None, args.bootstrap_tokens)
        kind = "bootstrap"
    else:
        prompt = payload.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return None
        result = ctx.get_context(pm, prompt, args.prompt_tokens)
        kind = "context"
    return render(result, kind) if result.text.strip() else None


def capture(pm, payload: dict[str, Any], *, defer: bool) -> dict[str, Any]:
    """Hand the hook payload to palace's capture. Each hook is its own process: the
    capture keeps the session's open turn in a spool file under the workspace and
    stores an observation when the turn ends (Stop) and the summary at SessionEnd.
    ``defer``: only into the spool (``palace.capture.pipeline``)."""
    from palace.capture.service import capture_payloads

    result = capture_payloads(pm, SOURCE, [payload], defer=defer)
    if result["errors"]:
        # the message names the problem, never the payload's text (it may hold a secret)
        raise HookError(f"capture failed: {result['errors'][0]['message']}")
    return result


def run(event: str, payload: dict[str, Any], args, *, pm=None, defer_all: bool = False, out=None,
        note: Callable[[str], Any] | None = None) -> int:
    """One hook on an open palace (``pm``: the warm service's) or on one opened here.
    ``defer_all``: every capture only joins the spool (the service stores the turns)."""
    out = out or sys.stdout
    if note is None:
        def note(message: str) -> None:
            sys.stderr.write(f"palace hook {event}: {message}\n")
    payload.setdefault("hook_event_name", event)
    if pm is None:
        # a hook that only joins the spool reads no memory: no need to sync the index first
        spool_only = (event not in RECALL_EVENTS or args.no_recall) and (defer_all or event in DEFERRED_EVENTS)
        with open_manager(args.workspace, sync=not spool_only) as opened:
            return run(event, payload, args, pm=opened, defer_all=defer_all, out=out, note=note)
    if event in RECALL_EVENTS and not args.no_recall:
        try:
            context = recall(pm, event, payload, args)
        except Exception as exc:  # recall failing must not stop capture
            note(f"recall failed: {exc}")
            context = None
        if context:
            out.write(json.dumps(hook_output(event, context), ensure_ascii=False) + "\n")
            out.flush()
    if not args.no_capture:
        capture(pm, payload, defer=defer_all or event in DEFERRED_EVENTS)
    return 0


def start_watchdog(seconds: float, event: str) -> threading.Timer:
    def give_up() -> None:
        sys.stderr.write(f"palace hook {event}: gave up after {seconds:g} s (the session goes on)\n")
        sys.stderr.flush()
        os._exit(0)

    timer = threading.Timer(seconds, give_up)
    timer.daemon = True
    timer.start()
    return timer


def service_options(args) -> dict[str, Any]:
    """What the warm service needs of this hook's command line (``args_from``: back)."""
    return {"bootstrap_tokens": args.bootstrap_tokens, "prompt_tokens": args.prompt_tokens,
            "no_recall": args.no_recall, "no_capture": args.no_capture}


def args_from(options: dict[str, Any], workspace: str) -> argparse.Namespace:
    args = parse_args(["session-start"])
    for key, value in options.items():
        if hasattr(args, key):
            setattr(args, key, value)
    args.workspace = workspace
    return args


def warm(args, event: str, data: bytes, started: float) -> bool:
    """The hook answered by the workspace's warm service; False: take the direct path."""
    from palace.integrations import hook_client

    workspace = hook_client.workspace_of(args.workspace)
    if workspace is None:
        return False
    left = args.timeout - (time.monotonic() - started) - 0.2
    try:
        reply = hook_client.ask(workspace, event, service_options(args), data, timeout=max(0.1, left))
    except TimeoutError:
        # the service holds the payload and will still capture it; the session goes on
        sys.stderr.write(f"palace hook {args.event}: the warm service did not answer within "
                         f"{args.timeout:g} s (the session goes on)\n")
        return True
    if reply is None:
        return False
    sys.stdout.write(str(reply.get("stdout") or ""))
    sys.stdout.flush()
    for line in reply.get("notes") or ():
        sys.stderr.write(f"palace hook {args.event}: {line}\n")
    return True


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m palace.integrations.claude_code",
                                     description="palace's Claude Code hook commands")
    parser.add_argument("event", help=f"one of: {', '.join(EVENTS)} (or the hook_event_name)")
    parser.add_argument("--workspace", "-w", help="palace workspace (default MEMORY_WORKSPACE_DIR)")
    parser.add_argument("--bootstrap-tokens", type=int, default=DEFAULT_BOOTSTRAP_TOKENS,
                        help=f"budget of the session-start context (default {DEFAULT_BOOTSTRAP_TOKENS})")
    parser.add_argument("--prompt-tokens", type=int, default=DEFAULT_PROMPT_TOKENS,
                        help=f"budget of the memories added to a prompt (default {DEFAULT_PROMPT_TOKENS})")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                        help=f"give up after this many seconds (default {DEFAULT_TIMEOUT_S:g})")
    parser.add_argument("--no-recall", action="store_true", help="capture only")
    parser.add_argument("--no-capture", action="store_true", help="recall only")
    parser.add_argument("--no-service", action="store_true",
                        help="never use (or start) the workspace's warm service: open the palace here")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, stdin=None) -> int:
    """Always 0: a hook that fails says so on stderr and lets the session go on."""
    label = "?"
    try:
        started = time.monotonic()
        args = parse_args(argv)
        label = args.event
        event = event_name(args.event)
        start_watchdog(args.timeout, args.event)
        data = read_stdin(stdin or sys.stdin)
        if not args.no_service and warm(args, event, data, started):
            return 0
        return run(event, parse_payload(data), args)
    except SystemExit:  # argparse printed the usage; the session still goes on
        return 0
    except HookError as exc:
        sys.stderr.write(f"palace hook {label}: {exc}\n")
    except Exception as exc:  # noqa: BLE001 - whatever it is, the session goes on
        sys.stderr.write(f"palace hook {label}: {type(exc).__name__}: {exc}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
