"""Token estimates, token-budgeted context, the essence and bootstrap — API and CLI."""

from __future__ import annotations

import io
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palace.features.context import (ESSENCE_ID, SESSION_TAG, bootstrap, fit_memory, get_context, get_essence,
                            is_open_task, set_essence)
from palace.errors import EssenceTooLargeError, InvalidInputError
from palace.models import Memory
from palace.text.tokens import estimate_tokens, heuristic_tokens, truncate_to_tokens

NOW = "2026-11-30T12:00:00+08:00"


@pytest.fixture(autouse=True)
def heuristic_estimates(monkeypatch):
    """Counts here are the heuristic's, even on a machine with tiktoken cached."""
    from palace.text import tokens

    monkeypatch.setenv("PALACE_TIKTOKEN", "0")
    tokens._tiktoken_encoding.cache_clear()
    yield
    tokens._tiktoken_encoding.cache_clear()


# --------------------------------------------------------------------------- tokens

@pytest.mark.parametrize("text, tokens", [
    ("", 0),
    ("Hello, world!", 4),                      # Hello , world !
    ("上周讨论的数据库选型", 10),                 # one per Han character
    ("我们决定用 PostgreSQL。", 8),              # 5 Han + Postgre|SQL + 。
    ("deploy the service at 10:30", 7),       # deploy the service at 10 : 30
    ("internationalization", 3),              # 20 letters: 3 chunks of up to 7
    ("1234567", 3),                           # digits in groups of 3
    ("line one\n\nline two", 5),              # a run of newlines is one token
    ("Привет мир", 3),                        # Cyrillic: a token per 3 letters
    ("ＰｏｓｔｇｒｅＳＱＬ", 2),                   # full-width folds to ASCII
    ("ok 😀", 3),                             # emoji: 2
])
def test_heuristic_matches_hand_counts(text, tokens):
    assert heuristic_tokens(text) == tokens


def test_chinese_costs_far_more_than_chars_over_four():
    text = "我们决定用 PostgreSQL 作为主数据库，因为需要 JSONB。" * 10
    assert heuristic_tokens(text) > 2 * (len(text) // 4)


def test_english_is_about_one_point_three_tokens_a_word():
    text = ("The deployment failed because the database migration locked the users table, "
            "so we rolled back, split the migration into smaller batches and tried again tonight.")
    words = len(text.split())
    assert 1.0 * words <= heuristic_tokens(text) <= 1.6 * words


def test_truncate_fits_budget_and_prefers_sentence_end():
    text = "第一句话很短。第二句话也不长。第三句话会被截断因为预算不够了。"
    cut = truncate_to_tokens(text, 16)
    assert estimate_tokens(cut) <= 16
    assert cut.endswith("。") and text.startswith(cut)
    assert truncate_to_tokens(text, 1000) == text
    assert truncate_to_tokens(text, 0) == ""
    long_text = "word " * 200_000  # a 1 MB memory is cut quickly
    assert estimate_tokens(truncate_to_tokens(long_text, 50)) <= 50


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab 数据库。\n1 internationalization.")), min_size=1, max_size=300),
       st.integers(min_value=1, max_value=40), st.integers(min_value=0, max_value=3000))
def test_an_excerpt_does_not_depend_on_how_long_the_text_runs_on(head, budget, blanks):
    """The excerpt of a long memory is cut from a window at its start (a 1 MB memory is not
    read whole for each excerpt): whatever follows, even a long run of blanks, the cut is
    the one the whole text gives, and it fits."""
    text = head + " " * blanks + "tail " * 2000
    cut = truncate_to_tokens(text, budget)
    assert text.startswith(cut) and estimate_tokens(cut) <= budget
    if estimate_tokens(head) > budget:  # the cut lies inside head, before anything added
        assert cut == truncate_to_tokens(head + " tail", budget)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab 数据库。\nＡ1 internationalization. ")), max_size=400),
       st.integers(min_value=1, max_value=60))
def test_a_cut_is_a_prefix_of_the_text_within_its_budget(text, budget):
    cut = truncate_to_tokens(text, budget)
    assert text.startswith(cut) and estimate_tokens(cut) <= budget
    assert (cut == text) == (estimate_tokens(text) <= budget)


def test_a_cut_of_a_huge_memory_is_fast_and_counted_once(monkeypatch):
    import palace.text.tokens as tokens

    calls = []
    monkeypatch.setattr(tokens, "_count", lambda text: calls.append(len(text)) or tokens.heuristic_tokens(text))
    cut = truncate_to_tokens("我们决定用 PostgreSQL。" * 100_000, 200)
    assert 0 < estimate_tokens(cut) <= 200
    assert len(calls) <= 5  # the sampled estimate of the whole, not a binary search over prefixes


def test_fit_memory_prefers_full_then_summary_then_excerpt():
    created = datetime.fromisoformat("2026-11-20T09:00:00+08:00")
    memory = Memory(id="m1", content="很长的内容。" * 200, summary="简短摘要", location="ops",
                    type="fact", created_at=created)
    full = fit_memory(memory, 10_000)
    assert full.form == "full" and full.text.startswith("[m1] ops · 2026-11-20 · fact\n")
    summary = fit_memory(memory, 60)
    assert summary.form == "summary" and "简短摘要" in summary.text
    assert "get_memory m1" in summary.text
    no_summary = Memory(id="m2", content="很长的内容。" * 200, created_at=created)
    excerpt = fit_memory(no_summary, 80)
    assert excerpt.form == "excerpt" and excerpt.text.endswith("…") and "excerpt" in excerpt.text
    assert excerpt.tokens <= 80
    assert fit_memory(no_summary, 20) is None  # too little room for a useful excerpt


# --------------------------------------------------------------------------- get_context

@pytest.fixture
def filled(pm):
    # fixed ids: an id is part of each piece's label, and a random one would make
    # the token arithmetic (what fits the budget) differ from run to run
    ids = {}
    ids["decision"] = pm.store("我们决定用 PostgreSQL 作为主数据库，因为需要 JSONB 和成熟的复制。",
                               type="decision", location="projects/palace", tags=["数据库"],
                               created_at="2026-11-24T10:00:00+08:00", id="pg-decision").id
    ids["long_summary"] = pm.store("PostgreSQL 部署笔记：" + "连接池用 pgbouncer，最大连接数 200。" * 60,
                                   summary="PostgreSQL 部署要点：pgbouncer，200 连接", location="ops",
                                   created_at="2026-11-25T10:00:00+08:00", id="pg-deploy-notes").id
    ids["long_plain"] = pm.store("PostgreSQL replication notes. " * 150, location="ops",
                                 created_at="2026-11-26T10:00:00+08:00", id="pg-replication").id
    ids["unrelated"] = pm.store("周末去爬山，天气很好。", location="life",
                                created_at="2026-11-28T10:00:00+08:00", id="hiking").id
    return ids


def test_context_stays_within_budget_and_labels_pieces(pm, filled):
    result = get_context(pm, "PostgreSQL", 300, now=NOW)
    assert 0 < result.tokens_used <= 300
    assert result.tokens_used == estimate_tokens(result.text)
    forms = {piece.id: piece.form for piece in result.pieces}
    assert forms[filled["decision"]] == "full"
    assert forms[filled["long_summary"]] == "summary"
    assert filled["unrelated"] not in forms
    for piece in result.pieces:
        assert piece.text.startswith(f"[{piece.id}] {piece.location} · {piece.date} · ")
        assert piece.text in result.text
    assert result.pieces[0].id == filled["decision"]  # most relevant first
    data = result.to_dict()
    assert data["tokens_used"] == result.tokens_used and len(data["pieces"]) == len(result.pieces)


def test_context_marks_excerpts_when_there_is_no_summary(pm, filled):
    result = get_context(pm, "replication", 150, now=NOW)
    (piece,) = result.pieces
    assert piece.id == filled["long_plain"] and piece.form == "excerpt"
    assert f"get_memory {piece.id}" in piece.text and piece.text.endswith("…")
    assert result.tokens_used <= 150


def test_context_understands_time_words(pm, filled):
    result = get_context(pm, "上周的 PostgreSQL", 2000, now=NOW)  # week of 2026-11-23
    assert set(result.ids) == {filled["decision"], filled["long_summary"], filled["long_plain"]}
    assert result.time_range["text"] == "上周"
    # nothing from yesterday: search says so and falls back to any time; the note travels along
    yesterday = get_context(pm, "昨天的 PostgreSQL", 2000, now=NOW)
    assert any("昨天" in note for note in yesterday.notes)


def test_a_context_with_nothing_relevant_says_why(pm, filled):
    result = get_context(pm, "quantum entanglement of penguins", 2000, now=NOW)
    assert [p for p in result.pieces if p.section == "relevant"] == []
    assert any("no memory matches" in note for note in result.notes)


def test_tiny_budget_returns_nothing_but_names_what_did_not_fit(pm, filled):
    result = get_context(pm, "PostgreSQL", 20, now=NOW)
    assert result.pieces == () and result.text == "" and result.tokens_used == 0
    assert filled["decision"] in result.omitted_ids


def test_context_counts_only_returned_memories_as_accessed(pm, filled):
    result = get_context(pm, "PostgreSQL 数据库", 120, now=NOW)
    shown = set(result.ids)
    left_out = set(filled.values()) - shown
    assert filled["decision"] in shown and left_out  # the budget shows some, not all
    for memory_id in filled.values():
        expected = 1 if memory_id in shown else 0
        assert pm.get(memory_id, record_access=False).access_count == expected, memory_id


@pytest.mark.parametrize("budget", [0, -5, 10**9, 1.5, True, "100"])
def test_context_rejects_bad_budgets(pm, budget):
    with pytest.raises(InvalidInputError, match="max_tokens"):
        get_context(pm, "x", budget)


# --------------------------------------------------------------------------- essence

def test_essence_set_get_replace(pm):
    assert get_essence(pm) is None
    first = set_essence(pm, "用户：王小明，后端工程师。回答用中文，简洁。")
    assert (first.id, first.location, first.type, first.pinned) == (ESSENCE_ID, "essence", "essence", True)
    assert first.importance == 1.0
    second = set_essence(pm, "User: Wang Xiaoming. Never push to main.")
    assert second.id == ESSENCE_ID and get_essence(pm).content == "User: Wang Xiaoming. Never push to main."
    assert len(pm.list(type="essence")) == 1


def test_essence_too_large_is_refused_with_advice(pm):
    cap = pm.settings.essence_max_bytes
    with pytest.raises(EssenceTooLargeError, match="MEMORY_ESSENCE_MAX_BYTES") as info:
        set_essence(pm, "字" * (cap // 3 + 1))  # 3 bytes each in UTF-8
    assert "ordinary memories" in str(info.value)
    set_essence(pm, "字" * (cap // 3))  # exactly at the cap is fine


def test_essence_comes_back_from_the_trash(pm):
    set_essence(pm, "old essence")
    pm.delete(ESSENCE_ID)
    assert get_essence(pm) is None
    set_essence(pm, "new essence")
    assert get_essence(pm).content == "new essence"


# --------------------------------------------------------------------------- bootstrap

def test_open_task_convention():
    def task(**kw):
        return Memory(id="t", content="x", type="task", **kw)

    assert is_open_task(task())
    assert not is_open_task(task(tags=("done",)))
    assert not is_open_task(task(extra={"taskStatus": "Done"}))
    assert not is_open_task(task(status="archived"))
    assert not is_open_task(Memory(id="f", content="x", type="fact"))


@pytest.fixture
def session_palace(pm):
    set_essence(pm, "User: 王小明. Prefers concise answers in Chinese.")
    base = datetime.fromisoformat(NOW)
    ids = {
        "old_session": pm.store("Session 1: set up the repo.", type="session",
                                created_at=base - timedelta(days=5)).id,
        "tagged_session": pm.store("Worked on backups; next: test restore.", tags=[SESSION_TAG],
                                   created_at=base - timedelta(days=1)).id,
        "open_task": pm.store("Write the restore runbook", type="task", importance=0.8,
                              created_at=base - timedelta(days=1)).id,
        "done_task": pm.store("Rotate the keys", type="task", tags=["done"],
                              created_at=base - timedelta(days=2)).id,
        "closed_task": pm.store("Old migration", type="task", extra={"taskStatus": "closed"},
                                created_at=base - timedelta(days=3)).id,
        # created before NOW: an access "before" a memory existed is not one
        "relevant": pm.store("备份用 pg_dump 每天凌晨 3 点执行。", tags=["backup"],
                             created_at=base - timedelta(days=2)).id,
    }
    return ids


def test_bootstrap_sections_in_order(pm, session_palace):
    result = bootstrap(pm, "pg_dump 备份", 1000, now=NOW)
    text = result.text
    positions = [text.index(h) for h in ("# Essence", "# Recent sessions", "# Open tasks",
                                          "# Relevant to: pg_dump 备份")]
    assert positions == sorted(positions)
    sections = [(p.section, p.id) for p in result.pieces]
    assert sections[0] == ("essence", ESSENCE_ID)
    sessions = [i for s, i in sections if s == "session"]
    assert sessions == [session_palace["tagged_session"], session_palace["old_session"]]  # newest first
    tasks = [i for s, i in sections if s == "task"]
    assert tasks == [session_palace["open_task"]]
    assert ("relevant", session_palace["relevant"]) in sections
    assert result.tokens_used <= 1000 and result.tokens_used == estimate_tokens(text)
    assert pm.get(session_palace["relevant"], record_access=False).access_count == 1


def test_bootstrap_without_query_and_with_small_budget(pm, session_palace):
    result = bootstrap(pm, None, 4000, now=NOW)
    assert "# Relevant" not in result.text and {p.section for p in result.pieces} == {
        "essence", "session", "task"}
    small = bootstrap(pm, "pg_dump", 60, now=NOW)
    assert small.tokens_used <= 60 and small.pieces[0].id == ESSENCE_ID


def test_bootstrap_on_an_empty_palace(pm):
    result = bootstrap(pm, "anything")
    assert result.pieces == () and result.text == ""


# --------------------------------------------------------------------------- CLI

@pytest.fixture
def palace_cli(capsys, monkeypatch, workspace):
    """``palace ARGS --workspace WS`` in this process (``palace.cli.main``, as the
    console script runs it), returning rc, stdout and stderr."""
    from conftest import CliResult

    from palace.cli import main

    def run(*args: str, input: str | None = None) -> CliResult:
        if input is not None:
            monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(input.encode("utf-8"))))
        capsys.readouterr()
        rc = main([*args, "--workspace", str(workspace)])
        out, err = capsys.readouterr()
        return CliResult(rc, out, err, args)

    return run


def test_cli_context_bootstrap_essence(palace_cli, make_pm, tmp_path):
    pm = make_pm()
    pm.store("我们决定用 PostgreSQL 作为主数据库。", type="decision", tags=["数据库"])
    pm.close()

    data = palace_cli("context", "PostgreSQL", "--max-tokens", "200", "--json").json()
    assert data["tokens_used"] <= 200 and data["pieces"][0]["form"] == "full"
    plain = palace_cli("context", "PostgreSQL")
    assert plain.rc == 0 and "PostgreSQL" in plain.stdout and "tokens" in plain.stderr
    too_small = palace_cli("context", "PostgreSQL", "--max-tokens", "0")  # must be >= 1
    assert too_small.rc == 2 and "--max-tokens" in too_small.stderr

    assert "no essence yet" in palace_cli("essence").stdout
    assert palace_cli("essence", "--set", "User: 王小明").rc == 0
    assert palace_cli("essence").stdout.strip() == "User: 王小明"
    essence_file = tmp_path / "essence.md"
    essence_file.write_text("Rules: answer in Chinese.\n", encoding="utf-8")
    saved = palace_cli("essence", "--file", str(essence_file), "--json").json()
    assert saved["content"] == "Rules: answer in Chinese."
    too_big = palace_cli("essence", "--file", "-", input="x" * 20_000)
    assert too_big.rc == 2 and "MEMORY_ESSENCE_MAX_BYTES" in too_big.stderr

    boot = palace_cli("bootstrap", "PostgreSQL", "--json").json()
    assert [p["section"] for p in boot["pieces"]] == ["essence", "relevant"]
    assert "# Essence" in palace_cli("bootstrap").stdout


def test_cli_registers_the_commands():
    from palace.cli import cli

    assert {"context", "bootstrap", "essence", "summary", "mcp"} <= set(cli.commands)


@pytest.mark.parametrize("count", [1, 2, 3])
def test_a_new_users_first_memories_are_injected_for_a_direct_question(pm, count):
    # in a palace of a few memories every held word is in most of them; the question's
    # absent words ("how long", "keep") must not outweigh them, or nothing is ever injected
    others = ["Session 2026-11-27: wired the backup cron job (pg_dump at 03:00).",
              "周末去爬山，天气很好。"][:count - 1]
    for text in others:
        pm.store(text, created_at="2026-11-27T18:30:00+08:00")
    answer = pm.store("Postgres backups are kept for 14 days in /srv/backups.", type="decision").id
    asked = get_context(pm, "How long do we keep the postgres backups?", 500, now=NOW)
    assert answer in {piece.id for piece in asked.pieces}
    assert not get_context(pm, "Write a haiku about autumn leaves", 500, now=NOW).pieces
