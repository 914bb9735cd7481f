"""Tasks: states, recorded transitions, open tasks in bootstrap, the CLI."""

from __future__ import annotations

import json

import pytest

from cli_helpers import BAD_INPUT, assert_failed, cli_on
from palace.features.context import bootstrap
from palace.errors import InvalidInputError
from palace.features.tasks import add_task, list_tasks, move_task, next_state


def test_transitions_follow_the_rules():
    assert next_state("todo", "doing") == "doing"
    assert next_state("blocked", "done") == "done"
    with pytest.raises(InvalidInputError, match="cannot become"):
        next_state("done", "doing")
    with pytest.raises(InvalidInputError, match="already"):
        next_state("todo", "todo")
    with pytest.raises(InvalidInputError, match="unknown task state"):
        next_state("todo", "finished")


def test_a_task_moves_and_keeps_its_history_and_bootstrap_shows_open_ones(pm):
    task = add_task(pm, "写 graph 文档", now="2026-03-01T09:00:00")
    move_task(pm, task.id, "doing", now="2026-03-01T10:00:00")
    blocked = move_task(pm, task.id, "blocked", note="等评审", now="2026-03-02T10:00:00")
    assert blocked.extra["taskState"] == "blocked"
    assert [s["state"] for s in blocked.extra["taskHistory"]] == ["todo", "doing", "blocked"]
    assert blocked.extra["taskHistory"][-1]["note"] == "等评审"
    assert task.id in bootstrap(pm).ids
    move_task(pm, task.id, "done")
    assert task.id not in bootstrap(pm).ids
    assert [m.id for m in list_tasks(pm, states=["done"])] == [task.id]


def test_task_cli(workspace, make_pm):
    make_pm().close()
    cli = cli_on(workspace)
    added = json.loads(cli("task", "add", "ship it", "--json").stdout)
    assert cli("task", "start", added["id"]).rc == 0
    listed = json.loads(cli("task", "list", "--json").stdout)["tasks"]
    assert [(t["id"], t["state"], t["task"]) for t in listed] == [(added["id"], "doing", "ship it")]
    assert cli("task", "done", added["id"]).rc == 0
    assert cli("task", "list").stdout.strip() == "(no tasks)"
    assert_failed(cli("task", "block", added["id"]), BAD_INPUT, "cannot become")


def test_one_group_one_vocabulary_and_the_old_spelling(workspace, make_pm):
    """`palace task` with no sub-command lists the open tasks; `set` moves by the same
    rules and records history; `palace tasks …` is the same group."""
    pm = make_pm()
    captured = pm.store("Restart the garden-bot service", type="task", extra={"taskState": "todo",
                                                                             "project": "garden"})
    pm.close()
    cli = cli_on(workspace)
    mine = json.loads(cli("task", "add", "写发布说明", "--project", "palace", "--json").stdout)
    for spelling in ("task", "tasks"):
        shown = json.loads(cli(spelling, "--json").stdout)["tasks"]
        assert {t["id"] for t in shown} == {captured.id, mine["id"]}
        only = json.loads(cli(spelling, "--project", "garden", "--json").stdout)["tasks"]
        assert [t["id"] for t in only] == [captured.id]
    assert cli("tasks", "set", captured.id, "doing", "--note", "on it").rc == 0
    assert cli("task", "set", mine["id"], "blocked").rc == 0
    listed = json.loads(cli("task", "list", "--json").stdout)["tasks"]
    assert [(t["id"], t["state"]) for t in listed] == [(captured.id, "doing"), (mine["id"], "blocked")]
    history = json.loads(cli("get", captured.id, "--json").stdout)["extra"]["taskHistory"]
    assert [(h["state"], h.get("note")) for h in history] == [("doing", "on it")]
    assert cli("tasks", "set", captured.id, "done").rc == 0
    assert_failed(cli("task", "set", captured.id, "todo"), BAD_INPUT, "cannot become")
    assert "garden-bot" not in cli("task").stdout and "写发布说明" in cli("tasks").stdout


def test_one_rule_for_open_tasks_whoever_made_them(pm):
    """A task captured from a session and one added with `palace task add` are open or done
    by the same rule, so bootstrap, `palace tasks` and `palace task list` agree."""
    from palace.capture.tasks import open_tasks
    from palace.features.tasks import add_task, list_tasks, move_task

    added = add_task(pm, "写发布说明")
    captured = pm.store("Restart the garden-bot service", type="task", extra={"taskState": "doing"})
    tagged_done = pm.store("old chore", type="task", tags=["已完成"])
    assert {m.id for m in open_tasks(pm)} == {m.id for m in list_tasks(pm)} == {added.id, captured.id}
    move_task(pm, captured.id, "done")
    assert [m.id for m in open_tasks(pm)] == [m.id for m in list_tasks(pm)] == [added.id]
    assert tagged_done.id in {m.id for m in list_tasks(pm, states=["done"])}
