"""Supersession on hand edits: a fact written by hand into a Markdown file goes through
the same rule as ``store`` at the next sync (API, CLI, MCP), once; the person's own
frontmatter wins; a fact removed by hand gives back what it had retired."""

from __future__ import annotations

import json

import pytest
from pathlib import Path

import yaml

from cli_helpers import cli_on


def hand_file(palace_root: Path, memory_id: str, body: str, relations: list[str], *,
              created: str, room: str = "general", extra: str = "") -> Path:
    """A memory written in an editor: plain YAML, not the JSON lines palace writes."""
    lines = "".join(f"  - {r}\n" for r in relations)
    path = palace_root / room / f"{memory_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nid: {memory_id}\ncreatedAt: {created}\n{extra}relations:\n{lines}---\n{body}\n",
                    "utf-8")
    return path


def front(path: Path) -> dict:
    return yaml.safe_load(path.read_text("utf-8").split("---")[1])


def snapshot(palace_root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(palace_root.rglob("*")) if p.is_file()
            and ".palace" not in p.parts and ".journal" not in p.parts}


def test_a_hand_added_fact_retires_the_old_one_at_sync_once(pm, palace_root):
    old = pm.store("我住在北京", created_at="2024-01-01")
    hand_file(palace_root, "moved-by-hand", "搬家了", ["{subject: 我, predicate: 搬到, object: 杭州}"],
              created="2025-03-01T10:00:00+08:00")
    report = pm.sync()
    assert report.added == ["moved-by-hand"]
    stale = pm.get(old.id, record_access=False)
    assert stale.extra["supersededBy"] == "moved-by-hand"
    assert front(stale.path)["relations"][0]["validTo"].startswith("2025-03-01")
    assert [(r.object, r.valid_to is None) for r in pm.graph.history("我")] == [("北京", False), ("杭州", True)]
    results = pm.search("住在 北京 杭州", record_access=False)
    assert [r.memory.id for r in results] == ["moved-by-hand", old.id]
    # idempotent: syncing again (and a rebuild, then a sync) changes no file
    before = snapshot(palace_root)
    pm.sync()
    pm.reindex()
    pm.sync()
    assert snapshot(palace_root) == before


def test_a_fact_added_to_an_existing_files_frontmatter(pm, palace_root):
    old = pm.store("I work at Acme", created_at="2024-02-01")
    note = pm.store("Lunch with the new team", created_at="2025-01-15")
    text = note.path.read_text("utf-8").replace("type: \"fact\"\n",
                                         'type: "fact"\nrelations: [{"subject": "I", "predicate": "works_at", '
                                         '"object": "Globex"}]\n', 1)
    note.path.write_text(text, "utf-8")
    assert pm.sync().updated == [note.id]
    assert pm.get(old.id, record_access=False).extra["supersededBy"] == note.id


def test_an_uncertain_hand_fact_is_queued_once_and_a_rejection_is_remembered(pm, palace_root):
    black = pm.store("I use black", created_at="2024-01-01")
    path = hand_file(palace_root, "ruff-by-hand", "ruff now", ["{subject: I, predicate: uses, object: ruff}"],
                     created="2024-06-01T10:00:00+08:00")
    pm.sync()
    [item] = pm.graph.queue.items()
    assert (item.old_memory, item.new_memory) == (black.id, "ruff-by-hand")
    assert "supersededBy" not in pm.get(black.id, record_access=False).extra   # nothing silent
    pm.sync()
    assert len(pm.graph.queue.items()) == 1
    pm.graph.resolve(item.id, accept=False, now=pm.now())
    path.write_text(path.read_text("utf-8").replace("ruff now", "ruff now, really"), "utf-8")
    assert pm.sync().updated == ["ruff-by-hand"]
    assert pm.graph.queue.items() == []                                         # not asked again
    assert "supersededBy" not in pm.get(black.id, record_access=False).extra


def test_removing_the_new_fact_by_hand_reopens_the_old_one(pm, palace_root):
    old = pm.store("我住在北京", created_at="2024-01-01")
    path = hand_file(palace_root, "moved", "搬家了", ["{subject: 我, predicate: 搬到, object: 杭州}",
                                                    "{subject: 我, predicate: 喜欢, object: 西湖}"],
                     created="2025-03-01T10:00:00+08:00")
    pm.sync()
    assert pm.get(old.id, record_access=False).extra["supersededBy"] == "moved"
    path.write_text(path.read_text("utf-8").replace("  - {subject: 我, predicate: 搬到, object: 杭州}\n", ""),
                    "utf-8")
    pm.sync()
    reopened = pm.get(old.id, record_access=False)
    assert "supersededBy" not in reopened.extra
    assert "validTo" not in front(reopened.path)["relations"][0]
    assert [(r.object, r.valid_to is None) for r in pm.graph.history("我")] == [("北京", True), ("西湖", True)]


def test_deleting_the_new_file_reopens_the_old_fact(pm, palace_root):
    old = pm.store("I live in Berlin", created_at="2024-01-01")
    path = hand_file(palace_root, "paris", "Paris!", ["{subject: I, predicate: moved_to, object: Paris}"],
                     created="2025-01-01T10:00:00+08:00")
    pm.sync()
    assert pm.get(old.id, record_access=False).extra["supersededBy"] == "paris"
    path.unlink()
    assert pm.sync().removed == ["paris"]
    assert "supersededBy" not in pm.get(old.id, record_access=False).extra
    assert [r.valid_to for r in pm.graph.history("I")] == [None]


def test_the_persons_own_frontmatter_wins(pm, palace_root):
    # a hand-written supersededBy on the old memory stays as written
    marked = hand_file(palace_root, "berlin", "Berlin", ["{subject: I, predicate: lives_in, object: Berlin}"],
                       created="2024-01-01T10:00:00+08:00", extra="supersededBy: my-own-note\n")
    pm.sync()
    hand_file(palace_root, "paris", "Paris", ["{subject: I, predicate: moved_to, object: Paris}"],
              created="2025-01-01T10:00:00+08:00")
    pm.sync()
    assert front(marked)["supersededBy"] == "my-own-note"
    assert str(front(marked)["relations"][0]["validTo"]).startswith("2025-01-01")
    # the person reopens the old fact by hand: it stays open, even when the new file changes again
    text = marked.read_text("utf-8")
    data = front(marked)
    data["relations"][0].pop("validTo")
    body = text.split("---", 2)[2]
    marked.write_text("---\n" + yaml.safe_dump(data, allow_unicode=True) + "---" + body, "utf-8")
    pm.sync()
    paris = palace_root / "general" / "paris.md"
    paris.write_text(paris.read_text("utf-8").replace("Paris\n", "Paris, still\n"), "utf-8")
    pm.sync()
    assert "validTo" not in front(marked)["relations"][0]
    # a hand-written validTo on a new fact is kept too: a closed fact retires nothing later
    assert [r.object for r in pm.graph.history("I") if r.valid_to is None] == ["Berlin", "Paris"]


def test_hand_edits_through_the_cli(make_pm, workspace, palace_root):
    pm = make_pm()
    old = pm.store("我住在北京", created_at="2024-01-01")
    pm.store("I use black", created_at="2024-01-01")
    pm.close()
    hand_file(palace_root, "hz", "搬家", ["{subject: 我, predicate: 搬到, object: 杭州}"],
              created="2025-03-01T10:00:00+08:00")
    hand_file(palace_root, "rf", "ruff", ["{subject: I, predicate: uses, object: ruff}"],
              created="2025-03-02T10:00:00+08:00")
    cli = cli_on(workspace)
    assert cli("sync").rc == 0
    facts = json.loads(cli("history", "我", "--json").stdout)   # 我 and I are both the user
    assert [(f["object"], f["current"]) for f in facts] == [
        ("北京", False), ("black", True), ("杭州", True), ("ruff", True)]
    assert json.loads(cli("get", old.id, "--json").stdout)["extra"]["supersededBy"] == "hz"
    items = json.loads(cli("review", "list", "--json").stdout)
    assert [(i["new_memory"], i["new_relation"]["object"]) for i in items] == [("rf", "ruff")]
    assert cli("sync").rc == 0
    assert len(json.loads(cli("review", "list", "--json").stdout)) == 1


def test_hand_edits_over_mcp(workspace, palace_root):
    from mcp_helpers import Client, run_session

    async def scenario(client: Client):
        old = await client.ok("save_memory", content="我住在北京", created_at="2024-01-01T09:00:00+08:00")
        await client.ok("save_memory", content="I use black", created_at="2024-01-01T09:00:00+08:00")
        hand_file(palace_root, "hz", "搬家", ["{subject: 我, predicate: 搬到, object: 杭州}"],
                  created="2025-03-01T10:00:00+08:00")
        hand_file(palace_root, "rf", "ruff", ["{subject: I, predicate: uses, object: ruff}"],
                  created="2025-03-02T10:00:00+08:00")
        import anyio

        await anyio.sleep(2.2)  # the server checks the files at most every 2 s
        history = await client.ok("entity_history", name="杭州")
        assert [(f["object"], f["current"]) for f in history["facts"]] == [("杭州", True)]
        history = await client.ok("entity_history", name="北京")
        assert [(f["object"], f["current"]) for f in history["facts"]] == [("北京", False)]
        assert (await client.ok("get_memory", id=old["id"]))["extra"]["supersededBy"] == "hz"
        queue = await client.ok("review_facts")
        assert [i["new_memory"] for i in queue["items"]] == ["rf"]

    run_session(workspace, scenario)


def test_a_bulk_load_is_taken_as_written(pm, palace_root, monkeypatch):
    old = pm.store("I live in Berlin", created_at="2024-01-01")
    monkeypatch.setattr("palace.manager.entity_graph.HAND_EDITS_AT_MOST", 2)  # a small palace stands in for a big copy
    for i in range(3):
        hand_file(palace_root, f"copied{i}", "copied", [f"{{subject: I, predicate: moved_to, object: City{i}}}"],
                  created=f"2025-0{i + 1}-01T10:00:00+08:00")
    pm.sync()
    assert "supersededBy" not in pm.get(old.id, record_access=False).extra
    assert any("bulk load" in note for note in pm.notes)


def test_a_decision_log_broken_by_hand_is_a_clear_error_and_nothing_is_changed(pm, palace_root):
    from palace.errors import InvalidInputError
    from palace.graph.decisions import DECISIONS_FILE

    old = pm.store("我住在北京", created_at="2024-01-01")
    (palace_root / DECISIONS_FILE).write_text('[{"old_memory": "x", "unexpected": 1}]', "utf-8")
    before = old.path.read_text("utf-8")
    with pytest.raises(InvalidInputError, match="graph-decisions.json.*fix or delete it"):
        pm.store("我搬到杭州了")
    assert old.path.read_text("utf-8") == before
