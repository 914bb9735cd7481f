"""Segmentation: the same terms on the index side and the query side, for Chinese,
English and mixed text."""

from __future__ import annotations

import pytest

from palace.text.tokenize import has_han, index_text, normalize, query_terms, tokenize


def test_chinese_long_word_also_yields_its_two_character_words():
    tokens = tokenize("数据库迁移方案")
    assert "数据库" in tokens
    assert "数据" in tokens
    assert "迁移" in tokens


@pytest.mark.parametrize("text, word", [
    ("我们的部署流程很慢", "部署"),
    ("服务器部署脚本", "部署"),
    ("大数据平台", "数据"),
], ids=["deploy-in-flow", "deploy-in-script", "data-in-bigdata"])
def test_two_character_word_is_a_term_inside_longer_text(text, word):
    assert word in tokenize(text)


def test_query_for_a_short_word_matches_index_terms_of_a_longer_text():
    indexed = set(index_text("上周完成了数据库的部署").split())
    for term in query_terms("数据 部署"):
        assert term in indexed


def test_chinese_stopwords_are_dropped_content_words_kept():
    tokens = tokenize("我们的数据库是在上海的")
    assert "的" not in tokens
    assert "是" not in tokens
    assert "在" not in tokens
    assert "数据库" in tokens
    assert "上海" in tokens


def test_english_stopwords_dropped_and_words_lower_cased():
    tokens = tokenize("The Deploys are running on the Cluster")
    assert tokens == ["deploys", "running", "cluster"]


def test_full_width_letters_and_digits_fold_to_ascii():
    assert tokenize("ＰｏｓｔｇｒｅＳＱＬ　１６") == ["postgresql", "16"]
    assert normalize("ＡＢＣ") == "abc"


def test_mixed_text_with_spaces():
    tokens = tokenize("上周 deploy 的 PostgreSQL 服务")
    assert "deploy" in tokens
    assert "postgresql" in tokens
    assert "服务" in tokens
    assert "的" not in tokens


@pytest.mark.parametrize("text, latin, han", [
    ("我们决定用PostgreSQL作为主数据库", "postgresql", "数据库"),
    ("用Redis做缓存", "redis", "缓存"),
    ("升级到v2版本", "v2", "版本"),
], ids=["postgresql", "redis", "v2"])
def test_mixed_text_without_spaces_splits_latin_from_chinese(text, latin, han):
    # Chinese writers rarely put spaces around English words; the Latin word and
    # the Chinese words around it must each be their own term.
    tokens = tokenize(text)
    assert latin in tokens, tokens
    assert han in tokens, tokens


def test_repeats_kept_for_term_frequency_but_query_terms_distinct():
    assert tokenize("redis redis cache") == ["redis", "redis", "cache"]
    assert query_terms("redis Redis cache REDIS") == ["redis", "cache"]


def test_punctuation_and_underscores_separate_words():
    assert tokenize("snake_case, kebab-case; 数据。") == ["snake", "case", "kebab", "case", "数据"]


def test_text_of_only_stopwords_has_no_terms():
    assert tokenize("the of and 的 了") == []
    assert query_terms("   ") == []


def test_has_han():
    assert has_han("deploy 服务")
    assert not has_han("deploy service 123")


def test_the_c_stemmer_indexes_exactly_as_the_pure_python_porter():
    # PyStemmer (a dependency) speeds stemming ~10x; an index built with either must match
    from snowballstemmer.porter_stemmer import PorterStemmer

    from palace.text.tokenize import stem

    words = ("deploys deployed deployment running generalization caresses ponies relational "
             "conditional rational valenci hesitanci digitizer conformabli radicalli").split()
    assert [stem(w) for w in words] == [PorterStemmer().stemWord(w) for w in words]
