"""The persona: the user's current facts, kept current by supersession, hand lines kept."""

from __future__ import annotations

from cli_helpers import cli_on
from palace.context import bootstrap
from palace.persona import PERSONA_ID, refresh_persona


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
    assert "- works at Acme" in cli_on(workspace)("persona").stdout
