"""Dialogues scored by their best turn (palace/turns.py, MEMORY_DIALOGUE_TURNS)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from palace.index.postings import query_units
from palace.settings import Settings
from palace.turns import turn_scores

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=ZoneInfo("Asia/Shanghai"))

# The answer: one turn says it. The distractor mentions both words often, never together.
ANSWER = ("Caroline: Hey Mel, anything new?\n"
          "Melanie: I signed up for a pottery class, my first one.\n"
          "Caroline: Cool! I started volunteering at the shelter.\n"
          "Melanie: That sounds rewarding.")
SCATTERED = ("Caroline: My class at school went on a trip to the museum.\n"
             "Melanie: The museum had pottery from Greece, and more pottery upstairs.\n"
             "Caroline: The class loved that room, and my class wants to go back.\n"
             "Melanie: My son's class wants to go too.\n"
             "Caroline: Pottery is so old, pottery everywhere.\n"
             "Melanie: Ha, true.")
FILLERS = ["Caroline: How was the weekend?\nMelanie: We went camping.\nCaroline: Nice!\nMelanie: It rained.",
           "The car needs new tyres before the trip.",
           "Dinner with the team on Friday at the noodle place."]


def units(*words: str):
    return query_units([(1.0, list(words))])


def test_the_dialogue_whose_one_turn_holds_the_words_scores_higher():
    scores = turn_scores({1: SCATTERED, 2: ANSWER}, units("pottery", "class"))
    assert scores[2] > scores[1]


def test_only_dialogues_get_a_turn_score_and_no_match_is_zero():
    scores = turn_scores({1: ANSWER, 2: "Signed up for a pottery class on Monday.", 3: FILLERS[0]},
                         units("pottery", "class"))
    assert set(scores) == {1, 3}   # the note is no dialogue
    assert scores[3] == 0.0 and scores[1] > 0


def _keyword_palace(make_pm, tmp_path, name, **overrides):
    pm = make_pm(tmp_path / name, settings=Settings.from_env(workspace_dir=str(tmp_path / name),
                                                             feedback=False, **overrides))
    for number, text in enumerate([SCATTERED, ANSWER, *FILLERS]):
        pm.store(text, id=f"m{number}", created_at=NOW - timedelta(days=number + 1))
    return pm


def test_search_finds_the_answering_turn_first_and_the_setting_turns_it_off(make_pm, tmp_path):
    query = "pottery class"
    turns = _keyword_palace(make_pm, tmp_path, "turns")
    whole = _keyword_palace(make_pm, tmp_path, "whole", dialogue_turns=False)
    by_turn = [r.memory.id for r in turns.search(query, now=NOW, record_access=False, include_weak=True)]
    by_whole = [r.memory.id for r in whole.search(query, now=NOW, record_access=False, include_weak=True)]
    assert by_turn[0] == "m1"
    assert by_whole[0] == "m0"  # as a whole, the long session that repeats both words wins


def test_a_note_keeps_its_keyword_score(make_pm, tmp_path):
    turns = _keyword_palace(make_pm, tmp_path, "turns")
    whole = _keyword_palace(make_pm, tmp_path, "whole", dialogue_turns=False)

    def score(pm):
        found = {r.memory.id: r for r in pm.search("tyres trip", now=NOW, record_access=False, include_weak=True)}
        return found["m3"].explanation.retrievers["bm25"]["score"]

    assert score(turns) == score(whole)


def test_a_dialogue_and_notes_compare_on_one_keyword_scale(make_pm, tmp_path):
    # the answer is one turn of a chat whose speaker, Marco, talks in every other turn;
    # notes name Marco or a sister. Scored on the turns' own collection (seven turns,
    # where "Marco" weighs nothing), the chat fell behind the notes about a sister, which
    # are scored in the whole palace
    chat = ("Marco: Landed in Milan, the layover is thirty hours this time.\n"
            "Gavin: Lucky you. Look for Italian hops if you pass a homebrew shop.\n"
            "Marco: I'll check the shop near Navigli. Do you still need a hydrometer?\n"
            "Gavin: No, I bought a digital one. I need a new airlock though.\n"
            "Marco: Done. By the way, my sister Giulia is getting married in September in Verona.\n"
            "Gavin: Congratulations! Are you taking leave for it?\n"
            "Marco: Ten days. I'll fly my parents in from Bari.")
    notes = ["Marco recommended a homebrew shop in Milan.", "Flying with Marco again on Thursday.",
             "Marco's roster for December is out.", "Su Wan's sister visits us in December.",
             "My sister sent the twins a piano book.",
             *(f"Flight log {n}: routine sector, no defects, fuel as planned." for n in range(25))]
    pm = make_pm(tmp_path / "mixed", settings=Settings.from_env(workspace_dir=str(tmp_path / "mixed"),
                                                                vector_enabled=False))
    pm.store(chat, id="chat", created_at=NOW - timedelta(days=3))
    for number, text in enumerate(notes):
        pm.store(text, id=f"n{number}", created_at=NOW - timedelta(days=number + 4))
    found = [r.memory.id for r in pm.search("When is Marco's sister's wedding?", now=NOW, record_access=False,
                                            include_weak=True)]
    assert found[0] == "chat"
