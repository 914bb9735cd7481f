"""Settings: every MEMORY_* variable is parsed, validated, documented and listed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from palace.decay import DecayParams

from palace.errors import ConfigError
from palace.settings import SETTINGS, Settings

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
ENV_EXAMPLE = REPO / "config" / "palace.env.example"


def _documented_default(spec, shown: str):
    """The value a documented default stands for: ``(unset)``-style words and an empty
    value mean None; anything else is parsed as the variable would be."""
    shown = shown.strip().strip("`")
    if shown == "" or shown.startswith("("):
        return None
    return spec.parse(shown)


def test_every_setting_is_documented_in_the_readme():
    text = README.read_text(encoding="utf-8")
    missing = [spec.env for spec in SETTINGS if f"`{spec.env}`" not in text]
    assert missing == []


def test_the_readme_table_lists_every_setting_with_its_default():
    rows = dict(re.findall(r"^\| `(MEMORY_[A-Z_]+)` \| ([^|]*) \|", README.read_text(encoding="utf-8"),
                           re.MULTILINE))
    assert sorted(rows) == sorted(spec.env for spec in SETTINGS)
    for spec in SETTINGS:
        assert _documented_default(spec, rows[spec.env]) == spec.default, spec.env


def test_the_env_example_lists_every_setting_with_its_default():
    lines = dict(re.findall(r"^(?:# )?(MEMORY_[A-Z_]+)=(.*)$", ENV_EXAMPLE.read_text(encoding="utf-8"),
                            re.MULTILINE))
    assert sorted(lines) == sorted(spec.env for spec in SETTINGS)
    for spec in SETTINGS:
        assert _documented_default(spec, lines[spec.env]) == spec.default, spec.env


def test_the_table_is_the_dataclass():
    """One declaration: every field of Settings (but the bookkeeping ``sources``) is a
    row of the table, with the field's own default."""
    import dataclasses

    names = [f.name for f in dataclasses.fields(Settings) if f.name != "sources"]
    assert names == [spec.attr for spec in SETTINGS]
    assert len({spec.env for spec in SETTINGS}) == len(SETTINGS)


def test_decay_params_come_from_the_decay_settings():
    assert DecayParams.from_settings(Settings()) == DecayParams()
    changed = Settings.from_env({"MEMORY_DECAY_ARCHIVE_THRESHOLD": "0.3",
                                 "MEMORY_DECAY_ACCESS_GROWTH": "0.7", "MEMORY_DECAY_ENABLED": "no"})
    params = DecayParams.from_settings(changed)
    assert (params.archive_threshold, params.access_growth, params.enabled) == (0.3, 0.7, False)


def test_defaults_match_the_dataclass():
    settings = Settings.from_env({})
    for spec in SETTINGS:
        assert getattr(settings, spec.attr) == spec.default, spec.env


def test_environment_values_are_parsed_and_sourced():
    settings = Settings.from_env({"MEMORY_DECAY_ENABLED": "off", "MEMORY_SEARCH_WEIGHTS": "vector=0.3, decay=0",
                                  "MEMORY_TIME_FILTER": "STRICT"})
    assert settings.decay_enabled is False and settings.time_filter == "strict"
    assert (settings.search_weights.vector, settings.search_weights.decay) == (0.3, 0.0)
    assert settings.search_weights.relevance == 0.75  # a weight not named keeps its default
    assert settings.sources["decay_enabled"] == "env" and settings.sources["timezone"] == "default"


def test_search_has_three_settings_and_retired_ones_say_what_replaced_them():
    search = [spec.env for spec in SETTINGS if spec.env in
              ("MEMORY_SEARCH_WEIGHTS", "MEMORY_MIN_RELEVANCE", "MEMORY_TIME_FILTER")]
    assert len(search) == 3
    with pytest.raises(ConfigError) as error:
        Settings.from_env({"MEMORY_WEIGHT_VECTOR": "0.3", "MEMORY_FOCUS": "off"})
    message = str(error.value)
    assert "MEMORY_SEARCH_WEIGHTS='vector=<value>'" in message and "MEMORY_FOCUS" in message
    assert "Unset it" in message
    with pytest.raises(ConfigError, match="MEMORY_SEARCH_WEIGHTS"):
        Settings.from_env({"MEMORY_SEARCH_WEIGHTS": "vectors=0.3"})


@pytest.mark.parametrize("name,value", [("MEMORY_DECAY_ARCHIVE_THRESHOLD", "1.5"),
                                        ("MEMORY_SEARCH_WEIGHTS", "decay=2"),
                                        ("MEMORY_VECTOR_MODE", "gpu"),
                                        ("MEMORY_DECAY_ENABLED", "maybe"),
                                        ("MEMORY_VECTOR_TIMEOUT", "-1")])
def test_bad_values_name_the_variable_and_the_default(name, value):
    with pytest.raises(ConfigError) as error:
        Settings.from_env({name: value})
    assert name in str(error.value) and "default" in str(error.value)


def test_the_token_is_never_shown():
    rows = Settings.from_env({"MEMORY_VECTOR_SERVICE_TOKEN": "s3cret"}).describe()
    assert all("s3cret" not in str(row["value"]) for row in rows)


def test_the_suite_runs_with_time_reasoning_and_concepts_on():
    """tests/conftest.py must never switch a feature off because it fails to import:
    the suite's environment keeps both on, and both really work in it."""
    from datetime import datetime, timezone

    from palace.search.concepts import ConceptExpander
    from palace.time_reasoning import TimeReasoner

    assert TimeReasoner().parse("上周的数据库", now=datetime(2026, 3, 18, tzinfo=timezone.utc))
    assert ConceptExpander.load(None).expand("数据库")
