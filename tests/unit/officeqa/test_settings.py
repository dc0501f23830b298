"""Settings come from one place: defaults < TOML file < environment variables."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from officeqa.settings import Settings, load_settings

README = Path(__file__).resolve().parents[3] / "README.md"


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


def test_bad_value_is_refused_with_the_field_name() -> None:
    with pytest.raises(ValidationError, match="target_tokens"):
        load_settings(environ={"OFFICEQA_CHUNKING__TARGET_TOKENS": "many"})


def _env_names(model: type, prefix: str) -> list[str]:
    names = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
            names += _env_names(annotation, f"{prefix}{name.upper()}__")
        else:
            names.append(f"{prefix}{name.upper()}")
    return names


def test_every_setting_is_documented_in_the_readme() -> None:
    readme = README.read_text(encoding="utf-8")
    missing = [name for name in _env_names(Settings, "OFFICEQA_") if name not in readme]
    assert not missing, f"README lacks these settings: {missing}"
