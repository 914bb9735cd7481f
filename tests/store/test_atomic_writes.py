"""One way to write a file whole (palace.store.atomic) and one lock helper
(palace.store.locks): every writer in palace uses them, and what they promise holds."""

from __future__ import annotations

import ast
import os
import stat
import threading
import time
from pathlib import Path

import pytest

from palace.backends.capture_state import FileCaptureState
from palace.capture.privacy import load_key
from palace.store.atomic import atomic_write, write_once
from palace.store.locks import file_lock

REPO = Path(__file__).resolve().parents[2]
HELPER = "palace/store/atomic.py"

# Renames that move a whole file somewhere else (nothing is written): (file, function) -> why.
MOVES = {
    ("palace/store/files.py", "move_to_trash"): "the memory's file into .trash/, one rename",
    ("palace/store/files.py", "move_from_trash"): "the trashed file back into its room, one rename",
    ("palace/maintenance/doctor.py", "_quarantine"): "a differing trash copy aside into .quarantine/",
    ("palace/index/opening.py", "open_index"): "a damaged index aside as index.db.corrupt",
    ("palace/graph/decisions.py", "adopt_client_log"): "a merged client log kept as .merged",
}


def _renames(path: Path) -> list[tuple[str, int]]:
    """(enclosing function, line) of each os.replace / os.rename / os.link and each
    Path.replace(x) / Path.rename(x) (one argument: str.replace takes two, the
    dataclass and datetime replace take keywords)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                attr, owner = child.func.attr, child.func.value
                on_os = isinstance(owner, ast.Name) and owner.id == "os"
                if (on_os and attr in ("replace", "rename", "link")) or (
                        not on_os and attr in ("replace", "rename") and len(child.args) == 1
                        and not child.keywords):
                    found.append((function, child.lineno))
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_every_file_palace_writes_whole_goes_through_the_one_helper():
    stray, moves = [], set()
    for top in ("palace", "vector_service"):
        for path in sorted((REPO / top).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if rel == HELPER:
                continue
            for function, line in _renames(path):
                if (rel, function) in MOVES:
                    moves.add((rel, function))
                else:
                    stray.append(f"{rel}:{line} in {function}")
    assert stray == [], ("write the file with palace.store.atomic.atomic_write (or write_once), "
                         "or list a move of a whole file in MOVES with its reason")
    assert sorted(set(MOVES) - moves) == [], "a listed move is gone: take it out of MOVES"


def test_the_rename_finder_sees_each_kind(tmp_path):
    source = tmp_path / "fake.py"
    source.write_text("import os\n"
                      "def a(p, q):\n    os.replace(p, q)\n    p.rename(q)\n    os.link(p, q)\n"
                      "def b(s, d):\n    s.replace('x', 'y')\n    d.replace(tzinfo=None)\n", encoding="utf-8")
    assert _renames(source) == [("a", 3), ("a", 4), ("a", 5)]


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_waiting_turn_in_the_capture_spool_is_the_users_alone(tmp_path, umask_022):
    state = FileCaptureState(tmp_path / ".capture")
    with state.visit("session-1") as spool:
        spool.write([{"kind": "prompt", "text": "the staging password is in the vault"}], {"turns": 1})
    with state.visit("session-1") as spool:
        events, saved = spool.read()
        spool.write(events * 2, {"turns": 2})
    path = state.spool_path("session-1")
    assert _mode(path) == 0o600  # like the memories the turn becomes
    with state.visit("session-1") as spool:
        assert spool.read() == (events * 2, {"turns": 2})
    assert sorted(p.name for p in path.parent.iterdir()) == sorted([path.name, path.with_suffix(".lock").name])


def test_the_session_key_map_is_written_whole(tmp_path, umask_022):
    state = FileCaptureState(tmp_path / ".capture")
    assert state.learn_session_keys({"agent:main": "s1"}, ["agent:main"]) == ({"agent:main": "s1"},
                                                                             {"agent:main": "s1"})
    assert state.learn_session_keys({"agent:other": "s2"}, []) == ({"agent:main": "s1", "agent:other": "s2"},
                                                                  {"agent:other": "s2"})
    assert _mode(state.spool_path("\0openclaw-session-keys")) == 0o600


def test_a_rewrite_over_a_symbolic_link_is_owner_only_not_0777(tmp_path):
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("{}")
    link = tmp_path / "config.json"
    link.symlink_to(elsewhere)
    atomic_write(link, "{\"a\": 1}\n")
    assert not link.is_symlink() and _mode(link) == 0o600
    assert elsewhere.read_text() == "{}"


def test_an_explicit_mode_wins_over_the_files_own(tmp_path):
    path = tmp_path / "journal.jsonl"
    atomic_write(path, "a\n")
    path.chmod(0o644)
    atomic_write(path, "b\n")
    assert _mode(path) == 0o644  # a rewrite keeps a mode someone chose
    atomic_write(path, "c\n", mode=0o600)
    assert _mode(path) == 0o600 and path.read_text() == "c\n"


def test_the_first_writer_of_a_write_once_file_wins(tmp_path):
    path = tmp_path / "keys" / "redaction.key"
    assert write_once(path, "first") is True
    assert write_once(path, "second") is False
    assert path.read_text() == "first" and _mode(path) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["redaction.key"]  # no temp file left


def test_racing_threads_all_read_the_one_redaction_key(tmp_path):
    keys: list[bytes] = []
    threads = [threading.Thread(target=lambda: keys.append(load_key(tmp_path))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(keys) == 8 and len(set(keys)) == 1
    assert _mode(tmp_path / "redaction.key") == 0o600


def test_a_file_lock_lets_one_holder_in_at_a_time(tmp_path):
    inside: list[int] = []
    overlaps: list[int] = []

    def hold(n: int) -> None:
        with file_lock(tmp_path / "locks" / "spool.lock"):
            if inside:
                overlaps.append(n)
            inside.append(n)
            time.sleep(0.05)
            inside.remove(n)

    threads = [threading.Thread(target=hold, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlaps == []
