"""A question asking for an amount or a number is answered only by a memory stating one
(issue 11, round 5: palace/answer_types.py). The pure functions here; the search over
real palaces in tests/test_search_floor.py."""

from __future__ import annotations

import pytest

from palace.answer_types import AMOUNT, COLOUR, NUMBER, asked_kind, states_kind, type_terms
from palace.tokenize import query_terms


@pytest.mark.parametrize("question, kind", [
    ("磨豆机修了多少钱", AMOUNT), ("赛里木湖的门票多少钱", AMOUNT), ("押金是多少", AMOUNT),
    ("How much was Qi's flight?", AMOUNT), ("What did the headset cost?", AMOUNT),
    ("What's the deposit on our flat?", AMOUNT),
    ("高乐的钢琴考了几级", NUMBER), ("WiFi 密码是多少", NUMBER), ("What score did Leo get?", NUMBER),
])
def test_amount_and_number_questions_are_recognised(question, kind):
    asked = asked_kind(question)
    assert asked is not None and asked.kind == kind


@pytest.mark.parametrize("question", [
    # counts: each memory may be one of the things counted (LongMemEval's multi-session questions)
    "How many doctors did I visit?", "阿蔓滑雪摔了几次",
    # durations and ages: a date answers them
    "合唱团每次排练多久", "How long have I lived in Harajuku?", "How much time did I spend?",
    # dates and times are asked otherwise
    "星期几开会", "几号回来", "What is my wife's birthday?",
])
def test_counts_durations_and_dates_ask_no_stated_number(question):
    assert asked_kind(question) is None


def test_a_date_a_year_or_a_clock_time_is_no_amount():
    assert not states_kind("Qi lands in Xiamen on December 16 at 11:40.", AMOUNT)
    assert not states_kind("我们 12 月 20 号回哈尔滨，2027 年再去。", AMOUNT)
    assert not states_kind("Passed the A320 check on Tuesday.", NUMBER)  # a model name
    assert states_kind("维修师傅换了密封圈，收了 260 元。", AMOUNT)
    assert states_kind("rent 5,200 a month", AMOUNT)


def test_a_number_is_digits_a_chinese_numeral_with_a_measure_word_or_an_english_number_word():
    assert states_kind("高欣的钢琴考了八级", NUMBER) and not states_kind("高欣的钢琴考了八级", AMOUNT)
    assert states_kind("I fell about twenty times", NUMBER)
    assert not states_kind("我们一起去了海边", NUMBER)  # 一起 is no number


def test_an_amount_told_against_another_or_free_is_an_amount():
    assert states_kind("it's worth triple what I paid for it", AMOUNT)
    assert states_kind("还在保修期内，没收钱。", AMOUNT)


def test_the_words_asking_for_the_amount_are_not_the_topic():
    question = "How much did the Lightspeed headset cost?"
    assert type_terms(asked_kind(question), query_terms(question)) == {"much", "cost"}
    question = "磨豆机修了多少钱"
    assert type_terms(asked_kind(question), query_terms(question)) == {"多少", "钱"}


def test_the_note_and_the_reason_say_what_was_asked():
    asked = asked_kind("How much was Qi's flight?")
    assert asked.note() == ("nothing found: the question asks for an amount ('How much'); "
                            "no matching memory states one")
    assert asked.reason() == "weak: the question asks for an amount; this memory states none"


@pytest.mark.parametrize("run", ["a", "1", "一", " 1"])
def test_a_memory_of_one_long_run_is_read_in_one_pass(run):
    """A base64 blob or a column of digits in a memory: each run is tried from its start
    only. Tried at every character, a 1 MB run took minutes per search (quadratic);
    300,000 characters now take a fraction of a second on this machine."""
    import time

    content = run * (300_000 // len(run))
    started = time.perf_counter()
    states_kind(content, AMOUNT), states_kind(content, NUMBER)
    assert time.perf_counter() - started < 10  # quadratic: hours


@pytest.mark.parametrize("question", ["伊犁租的车是什么颜色", "车漆颜色是什么", "What colour is the Volvo?",
                                      "Which color did we pick for the logo?"])
def test_a_colour_question_is_answered_only_by_a_memory_naming_a_colour(question):
    asked = asked_kind(question)
    assert asked is not None and asked.kind == COLOUR
    assert not states_kind("车是 2022 款沃尔沃 XC60，在南山 4S 店做了四万公里保养。", COLOUR)
    assert not states_kind("Bought the Volvo XC60 from the Nanshan dealer.", COLOUR)
    assert states_kind("租的是一辆白色的汉兰达。", COLOUR) and states_kind("The logo is navy on cream.", COLOUR)
    # "颜色好看吗" asks an opinion, not which colour
    assert asked_kind("颜色好看吗") is None
