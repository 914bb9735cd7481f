import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palace.text import chunking
from palace.text.chunking import chunk_spans, chunk_text, dialogue_turns


def test_short_text_is_one_stripped_chunk():
    assert chunk_text("  记得买牛奶。 \n", 100) == ["记得买牛奶。"]


def test_blank_text_gives_no_chunks():
    assert chunk_text("", 50) == []
    assert chunk_text(" \n\t ", 50) == []


def test_rejects_nonsense_budgets():
    with pytest.raises(ValueError):
        chunk_text("abc", 0)
    with pytest.raises(ValueError):
        chunk_text("abc", 10, overlap_chars=-1)


def test_paragraphs_are_kept_whole_when_they_fit():
    first = "First paragraph about the garden. It has roses."
    second = "Second paragraph about the car. It is red."
    chunks = chunk_text(f"{first}\n\n{second}", max_chars=60, overlap_chars=0)
    assert chunks == [first, second]


def test_chinese_sentences_split_on_full_width_punctuation():
    sentences = ["我们下周一去上海出差。", "会议改到了周三下午！", "记得带上笔记本电脑吗？",
                 "还有充电器；", "别忘了护照。"]
    text = "".join(sentences)
    chunks = chunk_text(text, max_chars=24, overlap_chars=0)
    assert "".join(chunks) == text
    for chunk in chunks:
        assert len(chunk) <= 24
        assert chunk[-1] in "。！？；"  # every cut is at a sentence end


def test_english_sentences_split_after_terminal_punctuation_only():
    text = "Pi is 3.14 roughly. The version is v2.5 now! Is it stable? Yes, mostly."
    chunks = chunk_text(text, max_chars=30, overlap_chars=0)
    assert chunks == ["Pi is 3.14 roughly.", "The version is v2.5 now!", "Is it stable? Yes, mostly."]


def test_end_of_a_long_note_gets_its_own_chunk():
    filler = "今天的会议讨论了很多无关紧要的细节。" * 60 + "The weather was fine. " * 40
    text = filler + "\n\n最后：服务器的root密码存放在保险柜第三格。"
    chunks = chunk_text(text, max_chars=200)
    assert len(chunks) > 5
    assert "保险柜第三格" in chunks[-1]
    assert all(len(chunk) <= 200 for chunk in chunks)


def test_consecutive_chunks_share_whole_sentences():
    text = " ".join(f"Sentence number {i} is here." for i in range(30))
    chunks = chunk_text(text, max_chars=100, overlap_chars=40)
    for previous, current in zip(chunks, chunks[1:]):
        first_sentence = current.split(".")[0] + "."
        assert first_sentence in previous  # the new chunk opens with the old one's tail
        assert current.startswith("Sentence number")


def test_a_run_without_any_boundary_is_cut_hard():
    text = "x" * 250
    chunks = chunk_text(text, max_chars=100, overlap_chars=0)
    assert chunks == ["x" * 100, "x" * 100, "x" * 50]


def test_spans_point_into_the_text():
    text = "第一段。\n\n第二段比较长，有好几个分句，需要切开。"
    for start, end in chunk_spans(text, 10):
        assert text[start:end] == text[start:end].strip()
        assert 0 < end - start <= 10


_texty = st.lists(
    st.sampled_from(list("abc xyz。！？；，.!?,:\n\t中文记忆") + ["\n\n", ". ", "word "]),
    max_size=300,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=_texty, max_chars=st.integers(1, 80), overlap=st.integers(0, 40))
def test_chunks_fit_stay_in_order_and_cover_every_character(text, max_chars, overlap):
    spans = chunk_spans(text, max_chars, overlap)
    assert [text[s:e] for s, e in spans] == chunk_text(text, max_chars, overlap)
    covered = set()
    for start, end in spans:
        chunk = text[start:end]
        assert 0 < len(chunk) <= max_chars
        assert chunk == chunk.strip()
        covered.update(range(start, end))
    assert [s for s, _ in spans] == sorted(s for s, _ in spans)
    assert all(a[1] <= b[1] for a, b in zip(spans, spans[1:]))
    missing = [i for i, ch in enumerate(text) if not ch.isspace() and i not in covered]
    assert missing == []


DIALOGUE = ("Caroline: Hey Mel! How have you been?\n"
            "Melanie: Busy! I signed up for a pottery class last week.\n"
            "Caroline: Nice, what did you make?\n"
            "Melanie: A bowl with a sunset glaze, my kids loved it.\n"
            "Caroline: I went to a support group meeting yesterday.\n"
            "Melanie: How was it?")


def test_a_dialogue_is_cut_at_its_turns_each_led_by_the_turn_before():
    chunks = chunk_text(DIALOGUE, max_chars=120)
    turns = DIALOGUE.split("\n")
    assert chunks[0] == turns[0]
    for number, chunk in enumerate(chunks[1:], 1):
        assert chunk == f"{turns[number - 1]}\n{turns[number]}"  # the answer with its question


def test_a_turn_too_long_for_two_is_its_own_chunk_and_a_longer_one_is_cut():
    long_turn = "Melanie: " + "We hiked up the ridge and camped by the lake. " * 6
    text = DIALOGUE.replace("Melanie: How was it?", long_turn.strip())
    chunks = chunk_text(text, max_chars=100, overlap_chars=0)
    assert all(len(chunk) <= 100 for chunk in chunks)
    assert chunks[-1].endswith("camped by the lake.") and not chunks[-1].startswith("Caroline")
    assert "Caroline: I went to a support group meeting yesterday." in chunks  # too long with its neighbour


def test_what_is_not_a_dialogue_is_chunked_as_before(monkeypatch):
    form = ("Date: 2026-03-01, the spring concert of the choir\nPlace: Qingdao, the old theatre\n"
            "Cost: 120 yuan for two tickets\nNote: bring the tickets and the umbrella")
    assert dialogue_turns(form) == []   # labels, but no speaker comes back
    assert dialogue_turns("Yue: hi\nQin: hello\nYue: bye") == []  # three turns: a short note
    assert dialogue_turns(DIALOGUE) != []
    packed = chunk_text(form, 80, 0)
    monkeypatch.setattr(chunking, "DIALOGUE_TURNS", False)
    assert chunk_text(form, 80, 0) == packed


def test_chinese_speaker_labels_count_as_turns():
    text = "秦悦：爸，豆豆最近迷上恐龙了。\n老秦：那我给他买本恐龙百科。\n秦悦：好呀，要中英双语的。\n老秦：周末就寄。"
    assert [text[s:e].split("：")[0] for s, e in dialogue_turns(text)] == ["秦悦", "老秦", "秦悦", "老秦"]
    assert chunk_text(text, 30)[1] == "秦悦：爸，豆豆最近迷上恐龙了。\n老秦：那我给他买本恐龙百科。"
