"""Near misses say "nothing found" (issue 11, round 3: palace/focus.py): a question whose
focus words no single memory holds together (爸爸's birthday when 妈妈's is stored and 爸爸
is mentioned elsewhere), or holds only through a broader word (电费 when only a 水费 bill
is stored), and, for dialogue memories (opt-in), a question about what one speaker said
that another said. Real palaces in tmp_path (real files, real SQLite), the real CLI and
the real MCP server."""

from __future__ import annotations

import json

import pytest

from palace import MemoryPalaceManager, Settings
from palace.focus import FocusGap, find_gap, focus_words, latin_spellings, result_reason, speaker_gap

NOW = "2026-07-20T09:00:00+08:00"
FAMILY = {
    "mum": "妈妈的生日是5月3日，记得提前订蛋糕",
    "dad": "爸爸周末喜欢去水库钓鱼",
    "water": "这个月的水费账单交了 40 元",
    "tools": "监控用 Prometheus，告警走飞书",
    "box": "新买的工具箱放在阳台柜子里",
}
CHAT = ("Caroline: I ran a charity race for mental health last Saturday.\n"
        "Melanie: Wow, that's amazing! How did it go?\n"
        "Caroline: Great, it made me realize self-care really matters.")


def _palace(workspace, **settings) -> MemoryPalaceManager:
    options = dict(workspace_dir=str(workspace), timezone="Asia/Shanghai", vector_enabled=False,
                   decay_enabled=False)
    options.update(settings)
    return MemoryPalaceManager(workspace, settings=Settings.from_env(**options), embedder=None)


def _fill(pm, memories) -> None:
    for number, (memory_id, text) in enumerate(memories.items()):
        pm.store(text, id=memory_id, created_at=f"2026-07-0{number + 1}T10:00:00+08:00")


@pytest.fixture
def family(tmp_path):
    pm = _palace(tmp_path / "family")
    _fill(pm, FAMILY)
    yield pm
    pm.close()


# ------------------------------------------------------------------ the palace


def test_a_near_miss_gets_nothing_and_the_note_says_what_is_missing(family):
    results = family.search("爸爸的生日是哪天", now=NOW)
    assert list(results) == []
    assert any("no memory mentions '爸爸', '生日' together" in note for note in results.notes)
    assert any("weak matches hidden" in note for note in results.notes)


def test_the_answerable_question_next_to_it_keeps_its_answer(family):
    results = family.search("妈妈的生日是哪天", now=NOW)
    assert [r.memory.id for r in results][:1] == ["mum"]
    assert results[0].explanation.confidence == "strong"
    assert not any("together" in note for note in results.notes)


def test_include_weak_shows_the_near_miss_with_its_own_reason(family):
    results = family.search("爸爸的生日是哪天", now=NOW, include_weak=True)
    by_id = {r.memory.id: r for r in results}
    assert {"mum", "dad"} <= set(by_id)
    assert {r.explanation.confidence for r in results} == {"weak"}
    assert "weak: mentions '生日', not '爸爸'" in by_id["mum"].explanation.notes
    assert "weak: mentions '爸爸', not '生日'" in by_id["dad"].explanation.notes


def test_a_near_miss_is_never_journalled_as_accessed(family):
    family.search("爸爸的生日是哪天", now=NOW)
    family.search("爸爸的生日是哪天", now=NOW, include_weak=True)
    journal = family.journal_path
    assert not journal.exists() or journal.read_text().strip() == ""


def test_a_relative_no_memory_mentions_is_a_near_miss(family):
    # zh u12: 爷爷 is in no memory (not even through a synonym or broader word); 生日 is
    results = family.search("爷爷的生日是哪天", now=NOW)
    assert list(results) == []
    assert any("nothing found: no memory mentions '爷爷'" in note for note in results.notes)
    # a relative the palace knows keeps the usual rule
    assert [r.memory.id for r in family.search("妈妈的生日是哪天", now=NOW)][:1] == ["mum"]


def test_a_word_held_only_through_a_broader_concept_is_a_near_miss(family):
    # 电费 → the concept map's "bill" terms (账单): a water bill is not the electricity bill
    results = family.search("电费交了多少", now=NOW)
    assert list(results) == []
    assert any("no memory mentions '电费' itself, only broader words" in n for n in results.notes)
    assert [r.memory.id for r in family.search("水费交了多少", now=NOW)][:1] == ["water"]


def test_the_noun_a_question_word_governs_is_the_answers_type_not_its_topic(family):
    # "什么工具": the answer names Prometheus, not the word 工具 (which another memory holds)
    results = family.search("监控用的什么工具", now=NOW)
    assert [r.memory.id for r in results][:1] == ["tools"]


def test_a_question_joining_things_may_be_answered_by_several_memories(family):
    results = family.search("爸爸和妈妈的生日", now=NOW)
    assert "mum" in [r.memory.id for r in results]


def test_a_list_of_keywords_is_not_one_fact(family):
    # "爸爸 生日": the user lists words; memories holding either are what they asked for
    assert {"mum", "dad"} <= {r.memory.id for r in family.search("爸爸 生日", now=NOW)}


def test_the_setting_turns_the_rule_off(tmp_path):
    pm = _palace(tmp_path / "off", focus=False)
    _fill(pm, FAMILY)
    assert [r.memory.id for r in pm.search("爸爸的生日是哪天", now=NOW)][:1] == ["mum"]
    pm.close()


def test_no_floor_means_no_focus_rule_either(tmp_path):
    pm = _palace(tmp_path / "nofloor", min_relevance=0.0)
    _fill(pm, FAMILY)
    assert "mum" in [r.memory.id for r in pm.search("爸爸的生日是哪天", now=NOW)]
    pm.close()


def test_a_time_only_query_still_lists_its_period(family):
    results = family.search("上个月", now="2026-08-10T09:00:00+08:00")
    assert len(results) == len(FAMILY)
    assert {r.explanation.confidence for r in results} == {"strong"}


def test_a_name_written_in_pinyin_holds_the_chinese_name(tmp_path):
    # new_3's x01: the answer is the English memory, which writes 豆豆 as Doudou
    pm = _palace(tmp_path / "pinyin")
    _fill(pm, {"school": "Yue called: Doudou starts kindergarten on September 3, at Maple Leaf Montessori.",
               "toy": "给豆豆买了一套积木当生日礼物",
               "dentist": "牙医说我下个月要补牙"})
    results = pm.search("豆豆的幼儿园叫什么", now=NOW)
    assert "school" in [r.memory.id for r in results]  # ranked by its words, as before
    assert not any("together" in note for note in results.notes)
    # a near miss stays one: no memory, in either script, holds 豆豆 and 牙医 together
    assert list(pm.search("豆豆的牙医叫什么", now=NOW)) == []
    pm.close()


def test_latin_spellings_are_toneless_pinyin_of_chinese_words_only():
    assert latin_spellings("豆豆") == ["doudou"]
    assert set(latin_spellings("长江")) == {"zhangjiang", "changjiang"}  # 长 reads both ways
    assert latin_spellings("Doudou") == [] and latin_spellings("豆") == []


# ------------------------------------------------------------ dialogue memories


def test_a_speaker_swap_in_a_dialogue_is_a_near_miss_when_the_rule_is_on(tmp_path):
    pm = _palace(tmp_path / "chat", focus_dialogue=True)
    pm.store(CHAT, id="chat", created_at="2026-07-12T20:00:00+08:00")
    pm.store("Melanie: I signed up for a pottery class.\nCaroline: Nice!", id="pottery",
             created_at="2026-07-13T20:00:00+08:00")
    swapped = pm.search("What did Melanie realize after the charity race?", now=NOW)
    assert list(swapped) == []
    assert any("Caroline, not Melanie, talks about" in note for note in swapped.notes)
    shown = pm.search("What did Melanie realize after the charity race?", now=NOW, include_weak=True)
    assert shown[0].memory.id == "chat" and shown[0].explanation.confidence == "weak"
    assert any(n.startswith("weak: in the closest memories Caroline") for n in shown[0].explanation.notes)
    right = pm.search("What did Caroline realize after the charity race?", now=NOW)
    assert [r.memory.id for r in right][:1] == ["chat"]
    pm.close()


def test_the_dialogue_rule_is_off_by_default(tmp_path):
    pm = _palace(tmp_path / "chat-off")
    pm.store(CHAT, id="chat", created_at="2026-07-12T20:00:00+08:00")
    assert [r.memory.id for r in pm.search("What did Melanie realize after the charity race?", now=NOW)] == ["chat"]
    pm.close()


# LoCoMo's tuning half: the two answerable questions the first dialogue rule emptied
TRIP = ("John: I've been to a lot of countries for work, it gets tiring.\n"
        "Maria: I loved Spain and England last year, the food in Spain!\n"
        "Maria: I'd receive guests every weekend if I could.\n"
        "John: I finally got my degree, feels great.")


def test_one_shared_word_is_no_speaker_swap(tmp_path):
    # "receive": Maria says it, John does not; one word in common is a coincidence (often a verb)
    pm = _palace(tmp_path / "one-word", focus_dialogue=True)
    pm.store(TRIP, id="trip", created_at="2026-07-12T20:00:00+08:00")
    results = pm.search("What did John receive a certificate for?", now=NOW, include_weak=True)
    assert [r.memory.id for r in results] == ["trip"]
    assert results[0].explanation.confidence == "strong"
    assert not any("talks about" in note for note in results.notes)
    pm.close()


def test_the_words_after_what_name_the_answers_type_not_who_said_it(tmp_path):
    # John says "countries", Maria names Spain and England: she is the one who answers
    pm = _palace(tmp_path / "type", focus_dialogue=True)
    pm.store(TRIP, id="trip", created_at="2026-07-12T20:00:00+08:00")
    results = pm.search("What European countries has Maria been to?", now=NOW)
    assert [r.memory.id for r in results] == ["trip"]
    pm.close()


# ------------------------------------------------------------- CLI and MCP


def test_cli_json_keeps_its_shape_and_carries_the_reason(tmp_path):
    from cli_helpers import cli_on

    cli = cli_on(tmp_path / "cli")
    for memory_id, text in FAMILY.items():
        assert cli("add", text, "--id", memory_id).rc == 0
    answered = json.loads(cli("search", "妈妈的生日是哪天", "--json").stdout)
    missed = json.loads(cli("search", "爸爸的生日是哪天", "--json").stdout)
    assert set(missed) == set(answered) and missed["count"] == 0 and answered["count"] >= 1
    assert any("'爸爸', '生日' together" in note for note in missed["notes"])
    weak = json.loads(cli("search", "爸爸的生日是哪天", "--json", "--include-weak").stdout)
    # a weak result is marked as before the rule; its one-line "why" now says why
    assert set(weak["results"][0]) == set(answered["results"][0]) | {"confidence"}
    by_id = {r["id"]: r for r in weak["results"]}
    assert by_id["mum"]["confidence"] == "weak"
    assert by_id["mum"]["why"].endswith("weak: mentions '生日', not '爸爸'")
    explained = json.loads(cli("search", "爸爸的生日是哪天", "--json", "--explain", "--include-weak").stdout)
    normal = json.loads(cli("search", "妈妈的生日是哪天", "--json", "--explain").stdout)
    assert set(explained["results"][0]["explanation"]) == set(normal["results"][0]["explanation"])
    human = cli("search", "爸爸的生日是哪天")
    assert human.rc == 0 and "'爸爸', '生日' together" in human.stderr + human.stdout


def test_mcp_search_says_why_nothing_was_found(tmp_path):
    from test_mcp import run_session

    workspace = tmp_path / "mcp"

    async def scenario(client):
        for text in FAMILY.values():
            await client.ok("save_memory", content=text)
        answered = await client.ok("search_memory", query="妈妈的生日是哪天")
        missed = await client.ok("search_memory", query="爸爸的生日是哪天")
        return answered, missed

    answered, missed = run_session(workspace, scenario)
    assert set(missed) == set(answered) and missed["count"] == 0 and answered["count"] >= 1
    assert any("together" in note for note in missed["notes"])


# ------------------------------------------------------------- pure functions


def test_focus_words_are_nouns_and_names_not_verbs_or_question_words():
    assert focus_words("陈静的生日是哪天", ["陈静", "生日", "哪天"]) == ["陈静", "生日"]
    assert focus_words("监控用的什么工具", ["监控", "用", "工具"]) == ["监控"]
    assert focus_words("爸爸和妈妈的生日", ["爸爸", "妈妈", "生日"]) == []
    # Latin words count only when asked for (palace.floor.FOCUS_LATIN: measured, none by default)
    assert focus_words("When is the vaccination for Biscuit?", ["vaccination", "biscuit"]) == []
    assert focus_words("When is the vaccination for Biscuit?", ["vaccination", "biscuit"], latin="names") == ["biscuit"]
    assert focus_words("When is the vaccination for Biscuit?", ["vaccination", "biscuit"], latin="words") == [
        "vaccination", "biscuit"]
    with pytest.raises(ValueError):
        focus_words("x", ["x"], latin="everything")


def test_find_gap_asks_for_one_memory_holding_every_known_focus_word():
    strict = {"爸爸": {2}, "生日": {1}}
    gap = find_gap(["爸爸", "生日"], strict, strict)
    assert gap == FocusGap(("爸爸", "生日"), ("爸爸",), ())
    assert gap.missing == ("生日",)
    assert find_gap(["妈妈", "生日"], {"妈妈": {1}, "生日": {1}}, {}) is None
    # a word no memory holds at all is not the rule's business (a paraphrase, or absent_names)
    assert find_gap(["口粮", "生日"], {"生日": {1}}, {}) is None
    # ... except a relative: a person nobody mentions (focus.KIN_WORDS)
    assert find_gap(["爷爷", "生日"], {"生日": {1}}, {}) == FocusGap(("爷爷",), (), (), ("爷爷",))
    broader = find_gap(["电费"], {}, {"电费": {3}})
    assert broader is not None and broader.broader == ("电费",)
    assert result_reason(gap, ["生日"]) == "weak: mentions '生日', not '爸爸'"
    assert result_reason(gap, []) == "weak: mentions none of '爸爸', '生日'"


def test_speaker_gap_reads_who_said_the_questions_words():
    gap = speaker_gap("What did Melanie realize after the charity race?", [CHAT])
    assert gap is not None and (gap.named, gap.other) == ("Melanie", "Caroline")
    assert set(gap.words) == {"charity", "race"}  # the words of her best line
    assert speaker_gap("What did Caroline realize after the charity race?", [CHAT]) is None
    assert speaker_gap("What did Melanie realize?", ["plain text, no dialogue"]) is None
    assert speaker_gap("老秦钓的黑鲷有几斤", ["老韩：我钓了条三斤的黑鲷。\n老秦：我只钓到小黄鱼。"]) is not None
    # one word in common ("tell") is no evidence that the other speaker said it
    assert speaker_gap("What did Yue tell me two weeks ago?", [
        "Yue: Mark got tickets for the game.\nQin: Tell him to take photos for me."]) is None
    # ... unless the question asks what was said about that one word: then who said it is the question
    visit = "Yue: He wants you to visit next summer.\nQin: Tell him to take photos for me."
    assert speaker_gap("What did Qin say about visiting?", [visit]) is not None
    assert speaker_gap("What did Yue say about visiting?", [visit]) is None
    # "What European countries has…": the answer's type, not a word the answer holds
    assert speaker_gap("What European countries has Maria been to for work?", [TRIP]) is None
    assert speaker_gap("What countries has Maria been to for work, tiring?", [TRIP]) is not None


def test_a_time_word_is_never_a_focus_word_even_with_time_reasoning_off(tmp_path):
    pm = _palace(tmp_path / "notime", time_reasoning_enabled=False)
    _fill(pm, {"meeting": "周会，决定下个版本四月发布", "note": "上周把阳台的花浇了"})
    # 上周 is in a memory, but it names a period, not what the question is about
    results = pm.search("上周的周会", now=NOW)
    assert "meeting" in [r.memory.id for r in results]
    assert not any("together" in note for note in results.notes)
    pm.close()


# ------------------------------------------------ held together, but in one sentence? (round 5)

TWINS = {
    "chat": "苏婉：高乐说想去冰雪大世界，高欣想去东北虎林园。\n"
            "高远：两个都去，冰雪大世界晚上去。\n"
            "苏婉：高欣的钢琴不能断，哈尔滨那边有琴吗？\n"
            "高远：楼下邻居家有一台，可以借着练。",
    "exam": "高欣的钢琴考了八级，考官说踏板用得好。",
    "swim": "高乐报了周六上午的游泳队训练，教练姓覃。",
}


@pytest.fixture
def twins(tmp_path):
    pm = _palace(tmp_path / "twins")
    _fill(pm, TWINS)
    yield pm
    pm.close()


def test_focus_words_a_memory_holds_only_in_different_sentences_are_a_near_miss(twins):
    """The chat holds 高乐 and 钢琴, in different lines about different children: no memory
    says anything about 高乐's piano."""
    results = twins.search("高乐的钢琴考了几级", now=NOW)
    assert list(results) == []
    assert any("no memory mentions '高乐', '钢琴' in one sentence" in note for note in results.notes), results.notes
    shown = {r.memory.id: r.explanation.notes for r in twins.search("高乐的钢琴考了几级", now=NOW, include_weak=True)}
    assert "weak: mentions '高乐', '钢琴' in different sentences" in shown["chat"]


def test_focus_words_in_one_sentence_keep_their_answer(twins):
    assert [r.memory.id for r in twins.search("高欣的钢琴考了几级", now=NOW)][:1] == ["exam"]
    assert "swim" in {r.memory.id for r in twins.search("高乐游泳的教练", now=NOW)}
    # the chat's own line about 高欣's piano is one sentence
    assert "chat" in {r.memory.id for r in twins.search("高欣的钢琴去哈尔滨怎么练", now=NOW)}


def test_sentences_end_at_full_stops_and_lines_not_at_commas():
    from palace.focus import held_in_one_sentence, sentences

    assert sentences("苏婉：高乐说想去，高欣想去。\n高远：好") == ["苏婉：高乐说想去，高欣想去", "高远：好"]
    surfaces = {"高乐": [(("高乐",), False)], "钢琴": [(("钢琴",), False)]}
    assert not held_in_one_sentence("高乐去滑雪。高欣练钢琴。", surfaces)
    assert held_in_one_sentence("高乐周末练钢琴，练了两小时。", surfaces)
    # a word the memory holds some other way (an expansion, a pinyin spelling): cannot tell
    assert held_in_one_sentence("Doudou 去滑雪。高欣练钢琴。", {"豆豆": [(("豆豆",), False)], **surfaces})


CAKE = {
    "chat": "郑浩：妹，妈六十大寿，我在酒楼订了三桌。\n郑颖：好，寿宴那天我早点到。",
    "cake": "妈妈喜欢芒果，生日蛋糕做芒果奶油的。",
    "bread": "店里新上了碱水面包，周末卖得最好。",
}


def test_a_name_jieba_joins_with_its_verb_is_still_the_name(tmp_path):
    """jieba reads "郑浩要给妈妈…" as 郑浩要 (no memory holds it) + 妈妈: the focus rule saw
    only 妈妈, which the cake memory holds. 郑浩 is mentioned, never with 妈妈."""
    pm = _palace(tmp_path / "cake")
    _fill(pm, CAKE)
    results = pm.search("郑浩要给妈妈做什么蛋糕", now=NOW)
    assert list(results) == []
    assert any("'郑浩', '妈妈' together" in note for note in results.notes), results.notes
    assert [r.memory.id for r in pm.search("妈妈喜欢什么蛋糕", now=NOW)][:1] == ["cake"]
    assert "chat" in {r.memory.id for r in pm.search("郑浩要订几桌酒楼", now=NOW)}
    pm.close()


def test_a_memory_too_long_to_read_on_every_search_is_not_split_into_sentences(twins, monkeypatch):
    """The sentence check tokenizes the memories holding the focus words on each search;
    one longer than SENTENCE_READ_CHARS is not read (it may say it in one sentence), so a
    long log keeps its answer and no search pays for reading it."""
    import palace.floor

    monkeypatch.setattr(palace.floor, "SENTENCE_READ_CHARS", len(TWINS["chat"]) - 1)
    results = twins.search("高乐的钢琴考了几级", now=NOW)
    assert "chat" in {r.memory.id for r in results}
    assert not any("in one sentence" in note for note in results.notes)
