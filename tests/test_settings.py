"""Settings: every MEMORY_* variable is parsed, validated, documented and listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from palace.errors import ConfigError
from palace.settings import SETTINGS, Settings

README = Path(__file__).resolve().parent.parent / "README.md"


def test_every_setting_is_documented_in_the_readme():
    text = README.read_text(encoding="utf-8")
    missing = [spec.env for spec in SETTINGS if f"`{spec.env}`" not in text]
    assert missing == []


def test_defaults_match_the_dataclass():
    settings = Settings.from_env({})
    for spec in SETTINGS:
        assert getattr(settings, spec.attr) == spec.default, spec.env


def test_environment_values_are_parsed_and_sourced():
    settings = Settings.from_env({"MEMORY_DECAY_ENABLED": "off", "MEMORY_WEIGHT_VECTOR": "0.3",
                                  "MEMORY_TIME_FILTER": "STRICT"})
    assert settings.decay_enabled is False and settings.weight_vector == 0.3
    assert settings.time_filter == "strict"
    assert settings.sources["decay_enabled"] == "env" and settings.sources["weight_decay"] == "default"


@pytest.mark.parametrize("name,value", [("MEMORY_DECAY_ARCHIVE_THRESHOLD", "1.5"),
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
