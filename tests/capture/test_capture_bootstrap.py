"""The open tasks capture leaves behind are in the bootstrap until they are done,
through the API (palace.features.context.bootstrap) and the command line (`palace bootstrap`)."""

import json

from cli_helpers import invoke

from capture_helpers import CLAUDE_SESSION
from palace import MemoryPalaceManager
from palace.capture.tasks import open_tasks, set_task_state
from palace.features.context import bootstrap, is_open_task

BACKFILL = "Backfill the currency column in staging"
ADD_TEST = "Add a test for orders without a currency"


def test_captured_tasks_are_in_the_bootstrap_until_done(tmp_path):
    ws = tmp_path / "ws"
    assert invoke("-w", str(ws), "ingest", str(CLAUDE_SESSION)).rc == 0
    with MemoryPalaceManager(ws) as pm:
        assert {t.summary for t in open_tasks(pm)} == {ADD_TEST}   # the 'Next steps' narration is none
        pm.store(BACKFILL, type="task", tags=["task"])               # a task saved by hand beside it
        by_text = {t.summary or t.content: t for t in open_tasks(pm)}
        assert set(by_text) == {BACKFILL, ADD_TEST}
        result = bootstrap(pm, None, 2000)
        tasks = [p.id for p in result.pieces if p.section == "task"]
        assert set(tasks) == {by_text[BACKFILL].id, by_text[ADD_TEST].id}
        assert "# Open tasks" in result.text and BACKFILL in result.text
        assert f"[{by_text[BACKFILL].id}]" in result.text and "task (todo)" in result.text
        set_task_state(pm, by_text[ADD_TEST].id, "doing")
        doing = bootstrap(pm, None, 2000)
        assert [p.id for p in doing.pieces if p.section == "task"][0] == by_text[ADD_TEST].id
        assert "task (doing)" in doing.text
    done = invoke("-w", str(ws), "tasks", "set", by_text[BACKFILL].id, "done")
    assert done.rc == 0, done
    cli = invoke("-w", str(ws), "--json", "bootstrap")
    assert cli.rc == 0, cli
    tasks = [p for p in json.loads(cli.stdout)["pieces"] if p["section"] == "task"]
    # done: no longer among the open tasks (the session summary still mentions it)
    assert [p["id"] for p in tasks] == [by_text[ADD_TEST].id]
    human = invoke("-w", str(ws), "bootstrap").stdout
    open_part = human.split("# Open tasks")[1]
    assert ADD_TEST in open_part and BACKFILL not in open_part
    with MemoryPalaceManager(ws) as pm:
        assert not is_open_task(pm.get(by_text[BACKFILL].id, record_access=False))


def test_a_hand_saved_task_closes_by_tag_or_by_palace_tasks_set(tmp_path):
    ws = tmp_path / "ws"
    with MemoryPalaceManager(ws) as pm:
        runbook = pm.store("Write the restore runbook", type="task").id
        keys = pm.store("Rotate the keys", type="task").id
        pm.update(keys, tags=["已完成"])
        assert [t.id for t in open_tasks(pm)] == [runbook]
    before = json.loads(invoke("-w", str(ws), "--json", "bootstrap").stdout)
    assert [p["id"] for p in before["pieces"] if p["section"] == "task"] == [runbook]
    assert invoke("-w", str(ws), "tasks", "set", runbook, "done").rc == 0
    after = json.loads(invoke("-w", str(ws), "--json", "bootstrap").stdout)
    assert "restore runbook" not in after["text"] and "Rotate the keys" not in after["text"]
