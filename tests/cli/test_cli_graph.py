"""The graph commands: history, review, entity merge, recall, through the real click group,
on both backends (``backend``: conftest_postgres)."""

from __future__ import annotations

import json

from cli_helpers import NOT_FOUND, assert_failed, cli_on

pytest_plugins = ["conftest_postgres"]


def test_history_shows_the_closed_and_the_current_fact(backend, make_pm, workspace):
    pm = make_pm()
    pm.store("我住在北京", created_at="2024-01-01")
    pm.store("我搬到杭州了", created_at="2025-03-01")
    pm.close()
    cli = cli_on(workspace)
    result = cli("history", "我")
    assert result.rc == 0 and "2025-03-01" in result.stdout and "now" in result.stdout
    facts = json.loads(cli("history", "我", "--json").stdout)
    assert [(f["object"], f["current"]) for f in facts] == [("北京", False), ("杭州", True)]


def test_review_accept_through_the_cli(backend, make_pm, workspace):
    pm = make_pm()
    black = pm.store("I use black")
    ruff = pm.store("I use ruff")
    pm.close()
    cli = cli_on(workspace)
    [item] = json.loads(cli("review", "list", "--json").stdout)
    assert "uses black" in cli("review", "list").stdout
    assert cli("review", "accept", item["id"]).rc == 0
    assert cli("review", "list").stdout.strip() == "(nothing to review)"
    shown = json.loads(cli("get", black.id, "--json").stdout)
    assert shown["extra"]["supersededBy"] == ruff.id
    assert_failed(cli("review", "reject", item["id"]), NOT_FOUND, "no open review item", "closed")


def test_review_of_an_id_that_does_not_exist_is_not_found(backend, make_pm, workspace):
    make_pm().close()
    cli = cli_on(workspace)
    for verdict in ("accept", "reject"):
        assert_failed(cli("review", verdict, "NOPE123"), NOT_FOUND, "'NOPE123'", "palace review list")


def test_entity_merge_and_recall(backend, make_pm, workspace):
    pm = make_pm()
    pm.store("分工", extra={"relations": [{"subject": "小张", "predicate": "负责", "object": "星图"}]})
    pm.store("参与", extra={"relations": [{"subject": "用户", "predicate": "参与", "object": "星图"}]})
    pm.close()
    cli = cli_on(workspace)
    merged = json.loads(cli("entity", "merge", "小张", "张伟", "--json").stdout)
    assert len(merged["changed"]) == 1
    names = [e["name"] for e in json.loads(cli("entity", "list", "--json").stdout)]
    assert "张伟" in names and "小张" not in names
    out = cli("recall", "小张", "--depth", "2").stdout
    assert "张伟 —负责→ 星图 ←参与— 用户" in out


def test_tags_tree(backend, make_pm, workspace):
    pm = make_pm()
    pm.store("a", tags=["project/palace/search"])
    pm.store("b", tags=["project/palace"])
    pm.close()
    out = cli_on(workspace)("tags").stdout.splitlines()
    assert out == ["project  2", "  palace  2 (1 here)", "    search  1"]
