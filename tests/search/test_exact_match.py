"""A memory holding a query's own word outranks one that matched only through a
concept expansion of that word, in palaces of 1, 3 and 10 memories, in Chinese and
in English, on SQLite and on Postgres (issue 24, point 4).

BM25's classic idf, log((N − df + 0.5) / (df + 0.5)) floored at zero, gave a word in
more than half the memories no weight: in a new user's 3-memory palace ``palace
search 数据库`` ranked the memory containing 数据库 last (rel 0.00), below a Redis
memory found through the concept map. palace uses Lucene's idf, which stays positive."""

from __future__ import annotations

import math

import pytest

from palace.index.postings import idf

pytest_plugins = ["conftest_postgres"]

CASES = {
    # query word, a memory holding it, one holding only a concept expansion of it
    "zh": ("数据库", "决定了新服务的数据库用哪个，下周再定", "Redis 的内存告警阈值调到百分之八十"),
    "en": ("cache", "We put a cache in front of the pricing API", "Redis memory alerts now fire at 80 percent"),
}
# filler memories that share neither word (so the literal word's df stays small or large)
FILLER = {
    "zh": ["周五下午组里聚餐，定在公司楼下", "周报改成每周一上午交", "新人入职手册更新到第三版",
           "会议室预订系统换成了飞书", "年假申请要提前两周提交", "打印机卡纸找行政", "季度目标评审安排在月底",
           "代码评审至少要两个人通过"],
    "en": ["Team lunch on Friday at the noodle place", "Weekly reports are due Monday morning",
           "The onboarding handbook is at version three", "Meeting rooms are booked in the calendar now",
           "Leave requests need two weeks notice", "The printer on floor two jams often",
           "Quarterly goals are reviewed at month end", "Code review needs two approvals"],
}


def test_lucene_idf_stays_positive_for_a_word_every_memory_holds():
    assert idf(1, 1) > 0 and idf(3, 3) > 0 and idf(10, 10) > 0
    assert idf(1, 10) > idf(5, 10) > idf(10, 10) > 0  # rarer still weighs more
    assert idf(2, 3) == pytest.approx(math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)))


@pytest.mark.parametrize("language", sorted(CASES))
@pytest.mark.parametrize("size", [1, 3, 10])
def test_the_memory_holding_the_word_ranks_first(backend, make_pm, language, size):
    word, literal, concept_only = CASES[language]
    pm = make_pm()
    if size == 1:
        stored = [pm.store(literal)]
    else:
        stored = [pm.store(concept_only), pm.store(literal)]
        # in the 3-memory palace the word is in more than half of them (df 2 of 3): the
        # case classic idf scored zero
        extra = [literal.replace(word, word, 1) + (" 补充" if language == "zh" else " too")] if size == 3 else \
            FILLER[language][:size - 2]
        stored += [pm.store(text) for text in extra]
    results = pm.search(word, record_access=False)
    ids = [r.memory.id for r in results]
    holding = {m.id for m in stored if word.casefold() in m.content.casefold()}
    assert ids and ids[0] in holding, [(r.memory.content, r.score) for r in results]
    # every memory holding the word before any that matched only through the concept map
    last_literal = max(ids.index(i) for i in holding if i in ids)
    if size > 1:
        assert stored[0].id in ids, "the concept-map match is still found"
        assert last_literal < ids.index(stored[0].id)
    for r in results:
        if r.memory.id in holding:
            assert r.explanation.retrievers["bm25"]["score"] > 0 and r.explanation.relevance > 0
            assert r.explanation.confidence == "strong" and word.casefold() in \
                [t.casefold() for t in r.explanation.matched_terms]
