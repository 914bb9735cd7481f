"""ConceptExpander: the shipped map, matching in mixed zh/en text, user files,
weights and the neighbour hook."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from palace.search import concepts
from palace.search.concepts import (
    HYPERNYM_WEIGHT,
    INSTANCE_WEIGHT,
    NEIGHBOUR_MAX_WEIGHT,
    SYNONYM_WEIGHT,
    TRANSLATION_WEIGHT,
    ConceptExpander,
    ConceptGroup,
    Expansion,
    builtin_groups,
    has_cjk,
    term_key,
)
from palace.errors import ConfigError, EmbedderUnavailableError

ALLOWED_SINGLE_CHAR_TERMS = {"钱", "猫", "狗", "药", "茶"}
# Everyday English words that would fire in unrelated text (and did, while the map
# was written); keep them out of the map.
AMBIGUOUS_LATIN = {
    "us", "go", "it", "train", "leave", "map", "due", "raise", "quit", "package", "manager",
    "client", "loss", "margin", "book", "course", "lost", "steps", "print", "draft", "degree",
    "match", "watch", "monitor", "traffic", "community", "streaming", "coverage", "claim",
    "premium", "shares", "spent", "vision", "contacts", "cv", "lb", "lol", "flat", "es",
}


@pytest.fixture(scope="module")
def expander() -> ConceptExpander:
    return ConceptExpander.load()


def terms_of(expansions: list[Expansion]) -> dict[str, Expansion]:
    return {e.term: e for e in expansions}


def all_words(group: ConceptGroup) -> list[str]:
    return [*group.terms, *(alias for aliases in group.instances for alias in aliases)]


def write(tmp_path: Path, text: str, name: str = "concepts.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# --- the shipped map -------------------------------------------------------------

def test_shipped_map_is_large_and_well_formed():
    groups = builtin_groups()
    assert len(groups) >= 300
    names = [g.name for g in groups]
    assert len(names) == len(set(names))
    for group in groups:
        assert group.terms, group.name
        assert group.instances or len(group.terms) >= 2, group.name
        assert all(aliases for aliases in group.instances), group.name


def test_shipped_map_is_bilingual():
    for group in builtin_groups():
        assert any(has_cjk(t) for t in group.terms), f"{group.name}: no Chinese term"
        assert any(not has_cjk(t) for t in group.terms), f"{group.name}: no English term"


def test_shipped_file_has_no_duplicates_within_a_group():
    # The loader drops duplicates silently; the shipped file should not rely on it.
    raw = yaml.load(
        (Path(concepts.__file__).parents[1] / "data" / "concepts.yaml").read_text(encoding="utf-8"),
        Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader),
    )
    for entry in concepts.parse_concept_entries(raw):
        words = [*entry.terms, *(a for aliases in entry.instances for a in aliases)]
        keys = [term_key(w) for w in words]
        assert len(keys) == len(set(keys)), f"{entry.name}: {sorted(k for k in keys if keys.count(k) > 1)}"


def test_a_term_names_one_concept_only():
    # A word may be an *instance* of several concepts (Redis: database and cache),
    # but the `terms` of two groups must not overlap: that would merge them silently.
    owner: dict[str, str] = {}
    for group in builtin_groups():
        for term in group.terms:
            key = term_key(term)
            assert key not in owner, f"{term!r} is a term of {owner.get(key)} and {group.name}"
            owner[key] = group.name


def test_no_single_character_or_ambiguous_terms():
    for group in builtin_groups():
        for word in all_words(group):
            if has_cjk(word) and len(word) == 1:
                assert word in ALLOWED_SINGLE_CHAR_TERMS, f"{group.name}: {word!r}"
            assert term_key(word) not in AMBIGUOUS_LATIN, f"{group.name}: {word!r}"


def test_every_shipped_word_matches_itself(expander):
    # Catches words the matcher can never find (odd punctuation, a longer word
    # that always shadows them...).
    for group in builtin_groups():
        for word in all_words(group):
            found = expander.find_terms(word)
            assert [(m.start, m.end) for m in found] == [(0, len(word))], (group.name, word)


def test_shipped_file_is_package_data():
    # The map is read through importlib.resources, so it works from an installed wheel.
    from importlib import resources

    assert resources.files("palace").joinpath(concepts.BUILTIN_MAP).is_file()


# --- the examples ------------------------------------------------------------------

def test_hypernym_brings_instances(expander):
    found = terms_of(expander.expand("数据库选型"))
    for engine in ["PostgreSQL", "MySQL", "SQLite", "Redis"]:
        assert found[engine].relation == "instance"
        assert found[engine].weight == INSTANCE_WEIGHT
        assert found[engine].source == "数据库"
        assert found[engine].group == "database"


def test_instance_brings_hypernym_and_aliases(expander):
    found = terms_of(expander.expand("决定用 PostgreSQL"))
    assert found["数据库"].relation == "hypernym"
    assert found["数据库"].weight == HYPERNYM_WEIGHT
    assert found["Postgres"].relation == "synonym"
    assert found["Postgres"].weight == SYNONYM_WEIGHT
    assert "MySQL" not in found  # siblings are not linked


@pytest.mark.parametrize("word", ["部署", "上线", "发布", "deploy", "release"])
def test_deploy_words_are_mutual(expander, word):
    found = terms_of(expander.expand(word, max_terms=50))
    others = {"部署", "上线", "发布", "deploy", "release"} - {word}
    assert others <= set(found)
    for other in others:
        expected = "translation" if has_cjk(word) != has_cjk(other) else "synonym"
        assert found[other].relation == expected


def test_frontend_framework_and_longest_match(expander):
    assert [m.text for m in expander.find_terms("前端框架怎么选")] == ["前端框架"]
    found = terms_of(expander.expand("前端框架", max_terms=50))
    assert {"React", "Vue", "Angular"} <= set(found)
    assert "framework" not in found  # 框架 did not fire inside 前端框架
    assert "framework" in terms_of(expander.expand("框架"))


@pytest.mark.parametrize("word", ["生病", "感冒", "发烧", "sick"])
def test_illness_words_reach_each_other(expander, word):
    found = terms_of(expander.expand(word, max_terms=50))
    assert {"生病", "感冒", "发烧", "sick"} - {word} <= set(found)


def test_mixed_text(expander):
    found = expander.expand("上周 deploy 的 PostgreSQL 服务", max_terms=50)
    sources = {e.source for e in found}
    assert sources == {"deploy", "PostgreSQL"}
    assert {"部署", "数据库", "Postgres"} <= set(terms_of(found))


# --- matching ---------------------------------------------------------------------

@pytest.mark.parametrize(
    "text, absent",
    [
        ("thanks for the feedback", "db"),
        ("our relationship is fine", "ship"),
        ("she said to maintain it", "ai"),
        ("the CIA report", "ci"),
        ("dbms internals", "db"),
    ],
)
def test_latin_terms_need_word_boundaries(expander, text, absent):
    assert absent not in {m.key for m in expander.find_terms(text)}


@pytest.mark.parametrize(
    "text, key",
    [
        ("release notes for v2", "release"),
        ("用PostgreSQL做存储", "postgresql"),
        ("POSTGRESQL 16", "postgresql"),
        ("two databases", "database"),
        ("the DB is slow", "db"),
        ("db.", "db"),
        ("k8s集群", "k8s"),
    ],
)
def test_latin_terms_match_on_boundaries_case_insensitively(expander, text, key):
    assert key in {m.key for m in expander.find_terms(text)}


def test_cjk_terms_match_inside_sentences(expander):
    found = [m.text for m in expander.find_terms("我们讨论了数据库的备份方案")]
    assert found == ["讨论", "数据库", "备份", "方案"]
    # 数据库迁移 is a term of its own and wins over 数据库
    assert [m.text for m in expander.find_terms("数据库迁移")] == ["数据库迁移"]


def test_a_longer_word_shields_a_single_character(expander):
    assert [m.text for m in expander.find_terms("看大熊猫")] == ["大熊猫"]
    assert [m.text for m in expander.find_terms("我家的猫")] == ["猫"]


# --- invariants -------------------------------------------------------------------

@pytest.mark.parametrize(
    "text",
    ["数据库选型", "上周 deploy 的 PostgreSQL 服务", "我爸生病了去医院", "budget for the trip", "前端框架 React"],
)
def test_expansions_are_ordered_unique_and_new(expander, text):
    found = expander.expand(text)
    weights = [e.weight for e in found]
    assert weights == sorted(weights, reverse=True)
    keys = [term_key(e.term) for e in found]
    assert len(keys) == len(set(keys))
    for expansion in found:
        assert 0 < expansion.weight < 1
        assert not concepts._occurrences(concepts._fold(text), term_key(expansion.term))
        assert expansion.relation in {"synonym", "translation", "instance", "hypernym"}


def test_term_already_in_text_is_not_added(expander):
    assert "React" not in terms_of(expander.expand("前端框架 React", max_terms=100))
    assert "部署" not in terms_of(expander.expand("deploy 部署", max_terms=100))


def test_weights_are_below_the_users_words():
    for weight in (SYNONYM_WEIGHT, TRANSLATION_WEIGHT, INSTANCE_WEIGHT, HYPERNYM_WEIGHT, NEIGHBOUR_MAX_WEIGHT):
        assert 0 < weight < 1
    assert HYPERNYM_WEIGHT < INSTANCE_WEIGHT < SYNONYM_WEIGHT
    assert NEIGHBOUR_MAX_WEIGHT < SYNONYM_WEIGHT


@pytest.mark.parametrize("limit", [0, 1, 3, 24])
def test_max_terms_is_honoured(expander, limit):
    found = expander.expand("数据库 前端框架 部署 生病", max_terms=limit)
    assert len(found) == limit


def test_concepts_take_turns_within_a_weight(expander):
    # Two concepts with many instances: both get room in a short list.
    found = expander.expand("数据库和前端框架", max_terms=12)
    assert {e.source for e in found if e.relation == "instance"} == {"数据库", "前端框架"}


def test_text_without_concepts(expander):
    assert expander.expand("") == []
    assert expander.expand("   ") == []
    assert expander.expand("zzqx 阿巴阿巴") == []


def test_expansion_is_frozen():
    expansion = Expansion("a", 0.5, "b", "synonym", "g")
    with pytest.raises(AttributeError):
        expansion.weight = 1.0  # type: ignore[misc]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("数据库前端框架部署上线 dbDBfeedackreleas猫熊,.")), max_size=40))
def test_expand_never_breaks_its_promises(text):
    expander = ConceptExpander.load()
    found = expander.expand(text, max_terms=10)
    assert len(found) <= 10
    assert len({term_key(e.term) for e in found}) == len(found)
    assert all(0 < e.weight < 1 for e in found)
    matches = expander.find_terms(text)
    covered = [i for m in matches for i in range(m.start, m.end)]
    assert len(covered) == len(set(covered))  # no overlapping matches


# --- groups given directly ----------------------------------------------------------

def test_groups_can_be_given_as_mappings():
    expander = ConceptExpander([
        {"name": "pet", "terms": "宠物, pet", "instances": ["猫咪, cat", ["狗狗", "dog"]]},
    ])
    found = terms_of(expander.expand("我的宠物"))
    assert found["pet"].relation == "translation"
    assert found["猫咪"].relation == "instance"
    assert found["dog"].relation == "instance"
    assert terms_of(expander.expand("cat"))["猫咪"].relation == "translation"


def test_bad_group_mapping_raises_config_error():
    with pytest.raises(ConfigError, match="needs two or more terms"):
        ConceptExpander([{"name": "lonely", "terms": ["alone"]}])


# --- user files -------------------------------------------------------------------

def test_user_file_adds_overrides_extends_and_disables(tmp_path):
    path = write(tmp_path, """\
        - name: project-phoenix
          terms: 凤凰项目, Phoenix
          instances:
            - 计费重构, billing rewrite
        - name: database
          terms: 数据库, database
          instances:
            - DuckDB
        - name: pets
          extend: true
          instances:
            - 豆豆
        - name: sprint
          disabled: true
        """)
    expander = ConceptExpander.load(path)
    assert terms_of(expander.expand("凤凰项目"))["Phoenix"].relation == "translation"
    assert terms_of(expander.expand("billing rewrite"))["凤凰项目"].relation == "hypernym"
    database = terms_of(expander.expand("数据库", max_terms=50))
    assert "DuckDB" in database and "PostgreSQL" not in database and "DB" not in database
    assert terms_of(expander.expand("豆豆"))["宠物"].relation == "hypernym"
    assert "猫咪" in terms_of(expander.expand("宠物", max_terms=50))  # extended, not replaced
    assert expander.expand("sprint") == []
    # the built-in map itself is untouched
    assert "PostgreSQL" in terms_of(ConceptExpander.load().expand("数据库", max_terms=50))


def test_shipped_example_user_file_loads():
    example = Path(__file__).resolve().parents[2] / "config" / "concepts.example.yaml"
    expander = ConceptExpander.load(example)
    assert expander.expand("sprint") == []
    assert "Phoenix" in terms_of(expander.expand("凤凰项目"))


def test_empty_user_file_is_the_builtin_map(tmp_path):
    expander = ConceptExpander.load(write(tmp_path, "# nothing yet\n"))
    assert len(expander.groups) == len(builtin_groups())


def test_user_file_accepts_yaml_lists_and_chinese_commas(tmp_path):
    path = write(tmp_path, """\
        - name: tea-time
          terms: 下午茶、tea time，afternoon tea
        - name: list-style
          terms: [鼓励, encourage]
        """)
    expander = ConceptExpander.load(path)
    assert {"tea time", "afternoon tea"} <= set(terms_of(expander.expand("下午茶")))
    assert "encourage" in terms_of(expander.expand("鼓励"))


@pytest.mark.parametrize(
    "content, reason",
    [
        ("- name: x\n  terms: [a, b\n", "not valid YAML at line"),
        ("name: x\nterms: a, b\n", "top level must be a list"),
        ("- terms: a, b\n", "missing 'name'"),
        ("- name: x\n  synonyms: a, b\n", "unknown key(s) synonyms"),
        ("- name: x\n  terms: a\n", "needs two or more terms"),
        ("- name: x\n  instances: [a]\n", "needs at least one word in 'terms'"),
        ("- name: x\n  terms: a, b\n- name: x\n  terms: c, d\n", "defined twice"),
        ("- name: x\n  disabled: yes please\n", "'disabled' must be true or false"),
        ("- name: no-such-group\n  extend: true\n  terms: a\n", "'extend' names no existing group"),
        ("- name: x\n  terms: a, b\n  instances: MySQL\n", "one instance per line"),
        ("- name: x\n  terms: [a, {b: c}]\n", "expected a word"),
        ("- just a string\n", "expected a mapping"),
    ],
)
def test_malformed_user_file_raises_config_error(tmp_path, content, reason):
    path = write(tmp_path, content)
    with pytest.raises(ConfigError) as error:
        ConceptExpander.load(path)
    assert str(path) in str(error.value)
    assert reason in str(error.value)


def test_missing_user_file_raises_config_error(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        ConceptExpander.load(tmp_path / "nope.yaml")


# --- the neighbour hook -------------------------------------------------------------

def test_neighbours_are_weighted_by_similarity_and_capped(expander):
    calls: list[str] = []

    def neighbours(term):
        calls.append(term)
        return {"PostgreSQL": [("pgvector", 0.9), ("Supabase", 1.7), ("noise", 0.01), ("bad", -0.5)]}.get(term, [])

    hooked = ConceptExpander(expander.groups, neighbour_fn=neighbours)
    found = terms_of(hooked.expand("迁移到 PostgreSQL 的计划 tonight", max_terms=100))
    assert found["pgvector"].relation == "neighbour"
    assert found["pgvector"].weight == pytest.approx(NEIGHBOUR_MAX_WEIGHT * 0.9)
    assert found["Supabase"].weight == NEIGHBOUR_MAX_WEIGHT < SYNONYM_WEIGHT
    assert "noise" not in found and "bad" not in found
    # asked about the concept words found, and the other words of the text
    assert calls[:3] == ["迁移", "PostgreSQL", "计划"]
    assert "tonight" in calls


def test_neighbour_never_overrides_a_stronger_concept_link(expander):
    hooked = ConceptExpander(expander.groups, neighbour_fn=lambda term: [("部署", 0.99)])
    assert terms_of(hooked.expand("deploy"))["部署"].relation == "translation"


def test_neighbour_already_in_text_is_dropped(expander):
    hooked = ConceptExpander(expander.groups, neighbour_fn=lambda term: [("deploy", 0.9)])
    assert "deploy" not in terms_of(hooked.expand("deploy now"))


def test_unavailable_neighbours_do_not_break_expansion(expander):
    def broken(term):
        raise EmbedderUnavailableError("no embedder")

    hooked = ConceptExpander(expander.groups, neighbour_fn=broken)
    assert "部署" in terms_of(hooked.expand("deploy"))


def test_neighbours_without_concepts(expander):
    hooked = ConceptExpander(expander.groups, neighbour_fn=lambda term: [(term + "-like", 0.8)])
    found = hooked.expand("zzqx 阿巴阿巴")
    assert {e.term for e in found} == {"zzqx-like", "阿巴阿巴-like"}
    assert all(e.group == "" for e in found)


# --- speed --------------------------------------------------------------------------

def test_load_and_first_expand_are_fast_in_a_fresh_process():
    # The budget is 60 ms on a quiet machine; the bound here is loose so a busy CI
    # box does not flake, but a fall back to the pure-Python YAML loader (≈10x
    # slower) or an accidental O(n²) would still fail it.
    script = textwrap.dedent("""\
        import time, palace.search.concepts as c
        start = time.perf_counter()
        c.ConceptExpander.load().expand("上周 deploy 的 PostgreSQL 服务")
        print(time.perf_counter() - start)
        """)
    timings = [
        float(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout)
        for _ in range(3)
    ]
    assert min(timings) < 0.25, timings


def test_builtin_map_is_parsed_once_per_process():
    first = ConceptExpander.load()
    start = time.perf_counter()
    second = ConceptExpander.load()
    assert time.perf_counter() - start < 0.01
    assert first.groups is second.groups
