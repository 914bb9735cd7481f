"""The persona: the user's current facts, kept current by supersession, hand lines kept."""

from __future__ import annotations

import json

from cli_helpers import cli_on
from palace.features.context import bootstrap, persona_context
from palace.features.persona import PERSONA_ID, refresh_persona


def test_persona_follows_supersession_and_keeps_hand_lines(pm):
    assert refresh_persona(pm) is None            # nothing known yet: no empty persona
    pm.store("我住在北京", created_at="2024-01-01")
    pm.store("I like jazz", created_at="2024-01-02")
    persona = refresh_persona(pm)
    assert "- lives in 北京" in persona.content and "- likes jazz" in persona.content
    pm.update(PERSONA_ID, content=persona.content + "\n\n我自己写的：早睡早起")
    pm.store("我搬到杭州了", created_at="2025-03-01")
    persona = refresh_persona(pm)
    assert "- lives in 杭州" in persona.content and "北京" not in persona.content
    assert "我自己写的：早睡早起" in persona.content
    assert PERSONA_ID in bootstrap(pm).ids


def test_persona_cli(make_pm, workspace):
    pm = make_pm()
    pm.store("I work at Acme")
    pm.close()
    cli = cli_on(workspace)
    assert cli("persona", "--no-refresh").stdout.strip() == "(no facts about the user yet)"
    shown = cli("persona").stdout
    assert shown.startswith("# Persona") and "- works at Acme" in shown
    data = json.loads(cli("persona", "--json", "--no-refresh").stdout)
    assert [p["id"] for p in data["pieces"]] == [PERSONA_ID]


def test_the_persona_context_is_what_bootstrap_shows(pm):
    pm.store("I like tea", created_at="2024-01-01")
    assert persona_context(pm).text == ""                      # not refreshed yet: none
    shown = persona_context(pm, refresh=True)
    [piece] = [p for p in bootstrap(pm, max_tokens=2000).pieces if p.section == "persona"]
    assert shown.text == f"# Persona\n\n{piece.text}" and "- likes tea" in piece.text
    pm.store("I don't like tea anymore", created_at="2025-01-01")
    assert "- dislikes tea" in persona_context(pm, refresh=True).text


def test_persona_over_mcp(workspace):
    from mcp_helpers import Client, run_session

    async def scenario(client: Client):
        await client.ok("save_memory", content="我住在北京", created_at="2024-01-01T09:00:00+08:00")
        empty = await client.call("get_persona")
        assert not empty.is_error and "no persona yet" in empty.content[0].text
        shown = await client.ok("get_persona", refresh=True)
        assert "- lives in 北京" in shown["text"]
        await client.ok("save_memory", content="我搬到杭州了", created_at="2025-03-01T09:00:00+08:00")
        moved = await client.ok("get_persona", refresh=True)
        assert "- lives in 杭州" in moved["text"] and "北京" not in moved["text"]
        boot = await client.ok("bootstrap", max_tokens=2000)
        assert [p["text"] for p in boot["pieces"] if p["section"] == "persona"] == [
            p["text"] for p in moved["pieces"]]

    run_session(workspace, scenario)


def _shown_once_and_clean(text: str) -> None:
    assert text.count("# Persona") == 1, text
    assert "<!--" not in text and "persona:begin" not in text, text


def test_the_persona_is_shown_once_and_clean_in_bootstrap_and_session_start(make_pm, workspace, tmp_path):
    from hook_helpers import payload, run_hook
    from hook_helpers import additional_context

    pm = make_pm()
    pm.store("I like jazz", created_at="2024-01-01")
    persona = refresh_persona(pm)
    pm.update(PERSONA_ID, content=persona.content + "\n\n我自己写的：早睡早起")
    for text in (bootstrap(pm).text, persona_context(pm).text):
        _shown_once_and_clean(text)
        assert "- likes jazz" in text and "我自己写的：早睡早起" in text
    assert "<!-- persona:begin -->" in pm.get(PERSONA_ID).content  # the file keeps its markers
    pm.close()
    done = run_hook("session-start", workspace, payload("SessionStart", tmp_path, source="startup"),
                    "--no-capture")
    context = additional_context(done, "SessionStart")
    _shown_once_and_clean(context)
    assert "- likes jazz" in context


def test_the_persona_over_mcp_is_shown_once_and_clean(workspace):
    from mcp_helpers import Client, run_session

    async def scenario(client: Client):
        await client.ok("save_memory", content="I work at Acme", created_at="2024-01-01T09:00:00+08:00")
        shown = await client.ok("get_persona", refresh=True)
        _shown_once_and_clean(shown["text"])
        boot = await client.ok("bootstrap", max_tokens=2000)
        _shown_once_and_clean(boot["text"])
        assert "- works at Acme" in shown["text"] and "- works at Acme" in boot["text"]

    run_session(workspace, scenario)
