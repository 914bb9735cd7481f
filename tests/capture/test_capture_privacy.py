"""Privacy: no secret and no <private> span reaches any byte of the workspace (Markdown
files, SQLite, journal, spool, logs), whether it came as a live event or in a
transcript; look-alikes (git SHAs, UUIDs, base64 images, Chinese text) stay as they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from capture_corpus import CWD, LOOKALIKES, SECRETS, SESSION, hook, needles, planted_hook_payloads, scan
from capture_helpers import invoke

from palace.capture.privacy import Redactor


def planted_transcript(path: Path) -> Path:
    """A Claude Code transcript with every secret in a prompt, an answer, a command, a tool
    result and a file body."""
    rows = []
    for i, (name, _secret, line) in enumerate(SECRETS):
        base = {"sessionId": SESSION, "cwd": CWD, "version": "2.0.14", "isSidechain": False,
                "userType": "external", "timestamp": f"2026-03-18T02:{i // 60:02d}:{i % 60:02d}.000Z"}
        rows.append({**base, "type": "user", "uuid": f"u-{i}",
                     "message": {"role": "user", "content": f"set up {name}: {line}"}})
        rows.append({**base, "type": "assistant", "uuid": f"a-{i}", "message": {
            "role": "assistant", "content": [
                {"type": "text", "text": f"Decided to store it as\n- {line}"},
                {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash",
                 "input": {"command": f"echo \"{line}\" | tee .config"}},
                {"type": "tool_use", "id": f"toolu_w{i}", "name": "Write",
                 "input": {"file_path": f"{CWD}/notes/{i}.md", "content": line}}]}})
        rows.append({**base, "type": "user", "uuid": f"r-{i}", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": f"error: {line}",
             "is_error": True},
            {"type": "tool_result", "tool_use_id": f"toolu_w{i}", "content": "File created"}]}})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


# --------------------------------------------------------------------------- the detector

def test_every_secret_shape_is_redacted_and_no_lookalike_is():
    redactor = Redactor(b"k" * 32)
    assert len(SECRETS) >= 80
    missed = [name for name, secret, line in SECRETS
              if any(n in redactor.clean(line) for n in needles(secret))]
    changed = [name for name, text in LOOKALIKES if redactor.clean(text) != text]
    print(f"secrets redacted: {len(SECRETS) - len(missed)}/{len(SECRETS)}; "
          f"look-alikes kept: {len(LOOKALIKES) - len(changed)}/{len(LOOKALIKES)}")
    assert missed == [] and changed == []


def test_markers_are_stable_per_secret_and_keyed_per_workspace():
    one, other = Redactor(b"a" * 32), Redactor(b"b" * 32)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    first = one.clean(f"GITHUB={token}")
    assert first == one.clean(f"token {token} again").split(" ")[1].join(["GITHUB=", ""])
    assert first.startswith("GITHUB=[REDACTED:github-token:") and token not in first
    assert one.clean(token) != other.clean(token)        # another workspace, another key
    assert one.clean(token) != one.clean(token[:-1] + "Z")


def test_only_the_matched_span_is_replaced():
    redactor = Redactor(b"k" * 32)
    out = redactor.clean("connect with postgres://app:Sup3r-Secret-9@db:5432/shop then run migrations")
    assert out.startswith("connect with postgres://app:[REDACTED:password-in-url:")
    assert out.endswith("@db:5432/shop then run migrations")


def test_private_spans_are_removed_and_an_all_private_turn_is_dropped(workspace):
    payloads = [
        hook("UserPromptSubmit", prompt="<private>my home address is 12 Elm Street</private>"),
        hook("Stop", stop_hook_active=False),
        hook("UserPromptSubmit", prompt="Deploy the app. <private>the door code is 4711</private> Use staging."),
        hook("PostToolUse", tool_name="Bash", tool_input={"command": "make deploy"},
             tool_response={"stdout": "ok <PRIVATE>internal host 10.9.8.7</PRIVATE> done", "exitCode": 0}),
        hook("Stop", stop_hook_active=False),
    ]
    result = invoke("capture", "-w", str(workspace), input="\n".join(json.dumps(p) for p in payloads))
    assert result.exit_code == 0, result.output
    blob = b"".join(p.read_bytes() for p in workspace.rglob("*") if p.is_file())
    for text in (b"Elm Street", b"4711", b"10.9.8.7", b"door code"):
        assert text not in blob
    from palace import MemoryPalaceManager

    with MemoryPalaceManager(workspace) as pm:
        [obs] = pm.list(type="observation")
        assert obs.summary == "Deploy the app. Use staging."


# --------------------------------------------------------------------------- whole workspace

def test_no_secret_reaches_the_workspace_from_live_events(workspace):
    payloads = planted_hook_payloads()
    outputs = []
    # a few one per process, as hooks send them; the rest as one batch of JSON lines
    for payload in payloads[:6]:
        result = invoke("capture", "-w", str(workspace), input=json.dumps(payload))
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    result = invoke("capture", "--source", "claude-code", "--json", "-w", str(workspace),
                    input="\n".join(json.dumps(p) for p in payloads[6:]))
    assert result.exit_code == 0, result.output
    outputs.append(result.output)
    report = json.loads(result.stdout)
    assert report["errors"] == [] and report["redacted"] > len(SECRETS)
    from palace import MemoryPalaceManager

    with MemoryPalaceManager(workspace) as pm:
        assert len(pm.list(type="observation")) == len(SECRETS)
        assert pm.search("configure stripe", top_k=3)         # the index is built and searched
    files = list(workspace.rglob("*"))
    assert any(p.suffix == ".md" for p in files) and any("index" in p.name for p in files)
    found = scan(workspace, tuple(outputs))
    assert found == [], found[:5]


def test_no_secret_reaches_the_workspace_from_a_transcript(workspace, tmp_path):
    transcript = planted_transcript(tmp_path / f"{SESSION}.jsonl")
    result = invoke("ingest", str(transcript), "--json", "-w", str(workspace))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["turns"][SESSION] == {"turns": len(SECRETS), "stored": len(SECRETS)}
    from palace import MemoryPalaceManager

    with MemoryPalaceManager(workspace) as pm:
        session = next(m for m in pm.list(type="session"))
        assert "[REDACTED:" in session.content
        pm.search("set up anthropic", top_k=3)
        pm.get(session.id)                                   # writes the access journal
    assert (workspace / "memory" / "palace" / ".journal").exists()
    found = scan(workspace, (result.output,))
    assert found == [], found[:5]


@pytest.mark.parametrize("name,text", [(n, t) for n, t in LOOKALIKES if len(t) < 380])
def test_lookalikes_survive_capture_verbatim(workspace, name, text):
    payloads = [hook("UserPromptSubmit", prompt=text), hook("Stop", stop_hook_active=False)]
    result = invoke("capture", "-w", str(workspace), input="\n".join(json.dumps(p) for p in payloads))
    assert result.exit_code == 0
    files = [p.read_text(encoding="utf-8") for p in workspace.rglob("*.md")]
    assert any(" ".join(text.split()) in f for f in files), name


def test_exclusion_settings_and_none_switches_the_default_off():
    from palace.capture.privacy import Exclusions
    from palace.settings import Settings

    default = Exclusions.from_settings(Settings.from_env({}))
    assert default.path("/home/dev/app/.env") and default.path("/home/dev/.ssh/id_rsa")
    assert not default.path("/home/dev/app/main.py")
    off = Exclusions.from_settings(Settings.from_env({"MEMORY_CAPTURE_EXCLUDE_PATHS": "none",
                                                      "MEMORY_CAPTURE_EXCLUDE_TOOLS": "mcp__vault__*"}))
    assert not off.path("/home/dev/app/.env")
    assert off.tool("MCP__vault__read") and not off.tool("Read")


def test_threads_creating_the_redaction_key_at_once_agree_and_do_not_fail(tmp_path):
    """Two managers in one process capturing at once both found no key; they shared one
    temp file name (the pid), so one linked and removed it under the other, which failed
    with FileNotFoundError (seen in the shared-capture test on Postgres)."""
    import threading

    from palace.capture.privacy import load_key

    def create(folder, start, keys, errors):
        start.wait()
        try:
            keys.append(load_key(folder))
        except BaseException as exc:  # surfaced in the test's thread
            errors.append(exc)

    for attempt in range(30):
        folder, start = tmp_path / f"ws{attempt}", threading.Barrier(4)
        keys: list[bytes] = []
        errors: list[BaseException] = []
        threads = [threading.Thread(target=create, args=(folder, start, keys, errors)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert errors == [] and len(set(keys)) == 1 and len(keys) == 4
        assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]  # no temp file left
