"""The eval harness: index the eval knowledge base, ask every task through the one question service, score it.

Why through :class:`retrieval.service.QuestionService` and a real knowledge base: the numbers
must describe what a user of the CLI or the chat page gets, so nothing here answers, routes or
retrieves on its own. Per task it records what the service did (route, scope, retrieved chunk
ids, citations, answer, budget, time) and scores it:

- route correct: the L0 route is one the task accepts;
- evidence recall@5/@10: share of the gold evidence texts found in the top 5/10 chunks the answer
  was built from (``metadata.retrieval.chunk_ids``); a rule or summary-tree answer retrieves no
  chunks, so for it the standalone question is searched (hybrid, unscoped) and the source is
  recorded as "search";
- citation correct: every gold evidence text is inside a cited chunk or a cited quote of the
  same document (citations the model did not reference do not count);
- answer correct: the task's expectation (:func:`eval.answer_metrics.check_expectation`), with
  the outcome exact/refused/wrong for tasks that expect a value;
- tokens (the assembly report, model answers only) and latency (wall time of ``ask``).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval.answer_metrics import check_expectation, holds_evidence, mean, percentile
from eval.kb import KB_DIR
from eval.kinds import by_kind, page_cited
from eval.tasks import Evidence, Task
from officeqa.errors import ConfigurationError, OfficeQAError
from officeqa.settings import Settings

if TYPE_CHECKING:
    from indexing.knowledge_base import KnowledgeBase
    from officeqa.generation import OllamaGenerator

__all__ = ["GENERATORS", "EvalReport", "TaskResult", "git_revision", "index_knowledge_base", "run_eval", "run_tasks"]

GENERATORS = ("extractive", "fake", "ollama")
RECALL_KS = (5, 10)
GATED_METRICS = ("route_accuracy", "recall@5", "recall@10", "citation_accuracy", "answer_accuracy")
_REPO = Path(__file__).resolve().parents[1]


@dataclass(slots=True)
class TaskResult:
    """One task's answer and scores (None where a score does not apply, e.g. recall without evidence)."""

    id: str
    kind: str
    question: str
    expected_routes: list[str]
    route: str | None = None
    route_correct: bool = False
    recall: dict[str, float | None] = field(default_factory=dict)
    retrieval_source: str = "answer"
    citation_correct: bool | None = None
    citation_recall: float | None = None
    answer_correct: bool = False
    outcome: str | None = None
    failures: list[str] = field(default_factory=list)
    mode: str | None = None
    notice: str | None = None
    answer: str = ""
    language: str | None = None
    standalone_question: str = ""
    scope: dict[str, Any] = field(default_factory=dict)
    citations: list[dict[str, Any]] = field(default_factory=list)
    tokens: dict[str, int] | None = None
    latency_s: float = 0.0
    error: str | None = None
    page_cited: bool | None = None  # tasks with gold pages: a citation points at one of them

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind, "question": self.question, "expected_routes": self.expected_routes,
            "route": self.route, "route_correct": self.route_correct,
            "recall": {k: _round(v) for k, v in self.recall.items()}, "retrieval_source": self.retrieval_source,
            "citation_correct": self.citation_correct, "citation_recall": _round(self.citation_recall),
            "answer_correct": self.answer_correct, "outcome": self.outcome, "failures": self.failures,
            "mode": self.mode, "notice": self.notice, "answer": self.answer, "language": self.language,
            "standalone_question": self.standalone_question, "scope": self.scope, "citations": self.citations,
            "tokens": self.tokens, "latency_s": round(self.latency_s, 3), "error": self.error,
            **({} if self.page_cited is None else {"page_cited": self.page_cited}),
        }


@dataclass(slots=True)
class EvalReport:
    """A whole run: what was measured, on what, and the overall metrics."""

    generator: str
    git_revision: str
    settings: dict[str, Any]
    knowledge_base: dict[str, Any]
    tasks: list[TaskResult]
    metrics: dict[str, Any] = field(default_factory=dict)
    comparison: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "generator": self.generator,
            "git_revision": self.git_revision,
            "settings": self.settings,
            "knowledge_base": self.knowledge_base,
            "metrics": self.metrics,
            "comparison": self.comparison,
            "tasks": [t.to_json() for t in self.tasks],
        }


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


# ------------------------------------------------------------------------------------ environment

def git_revision(repo: Path = _REPO) -> str:
    """``git describe``-like revision of the checkout ("<sha>" or "<sha>-dirty"), "unknown" outside git."""
    try:
        sha = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=repo, capture_output=True, text=True,
                             check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo,
                               capture_output=True, text=True, check=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{sha}-dirty" if dirty else sha


def index_knowledge_base(settings: Settings, kb_dir: Path = KB_DIR) -> dict[str, Any]:
    """Index ``kb_dir`` into ``settings.data_dir``; the summary recorded in the report."""
    from indexing.storage import open_knowledge_base

    if not kb_dir.is_dir():
        raise ConfigurationError(f"knowledge-base folder {kb_dir} not found (generate it: python -m eval.kb.generate)")
    with open_knowledge_base(settings) as kb:
        report = kb.index_paths([kb_dir])
        status = kb.status()
        build_summary_trees(kb)
    if report.failed:
        failed = "; ".join(f"{f.path}: {f.kind}: {f.message}" for f in report.failed)
        raise ConfigurationError(f"the eval knowledge base did not index cleanly: {failed}")
    root = kb_dir.resolve()
    strangers = [d.path for d in status.documents
                 if d.status == "indexed" and root not in Path(d.path).resolve().parents]
    if strangers:
        raise ConfigurationError(f"the data folder {settings.data_dir} holds documents outside the eval knowledge base "
                                 f"({strangers[0]}, ...); use an empty folder")
    return {"folder": str(kb_dir), "documents": len(status.documents), "chunks": status.chunks,
            "embedding_model": status.embedding_model, "index_s": round(report.seconds, 2)}


def build_summary_trees(kb: KnowledgeBase) -> None:
    """The extractive summary tree of every indexed document, as a deployment's background summariser builds
    them after indexing (``summary.on_index``): questions read trees, they never build one."""
    from indexing.registry import INDEXED
    from indexing.summary import SummaryBuilder, SummaryStore, document_source, summary_store_path

    with SummaryStore(summary_store_path(kb.settings)) as store, SummaryBuilder(kb.settings, store, None) as builder:
        for record in kb.registry.documents(statuses=[INDEXED]):
            builder.build(document_source(kb, record.doc_id, record.path))


@contextlib.contextmanager
def open_generator(kind: str, settings: Settings) -> Iterator[tuple[OllamaGenerator | None, Settings]]:
    """The generator a run uses, and the settings it runs under (the fake server's host for ``fake``)."""
    if kind not in GENERATORS:
        raise ConfigurationError(f"unknown generator {kind!r}; use one of {', '.join(GENERATORS)}")
    if kind == "extractive":
        yield None, settings
        return
    from officeqa.generation import OllamaGenerator

    if kind == "ollama":
        yield OllamaGenerator(settings.ollama), settings
        return
    from eval.fake_model import grounded_reply
    from eval.fake_ollama import DEFAULT_MODEL, FakeOllama

    with FakeOllama(reply_fn=grounded_reply) as fake:
        ollama = settings.ollama.model_copy(update={"host": fake.url, "model": DEFAULT_MODEL, "retries": 0,
                                                    "connect_timeout_s": 5.0, "read_timeout_s": 60.0})
        yield OllamaGenerator(ollama), settings.model_copy(update={"ollama": ollama})


# ------------------------------------------------------------------------------------ scoring

def _same_document(path: str, document: str, kb_dir: Path) -> bool:
    if not path:
        return False
    try:
        return Path(path).resolve() == (kb_dir / document).resolve()
    except OSError:  # pragma: no cover - a path the OS cannot resolve
        return False


def _found(evidence: Evidence, texts: Sequence[tuple[str, str]], kb_dir: Path) -> bool:
    """Whether one of the (path, text) pairs is the evidence's document and holds its text."""
    return any(_same_document(path, evidence.document, kb_dir) and holds_evidence(text, evidence.text)
               for path, text in texts)


def _recall(evidence: Sequence[Evidence], chunks: Sequence[tuple[str, str]], kb_dir: Path) -> dict[str, float | None]:
    if not evidence:
        return {f"recall@{k}": None for k in RECALL_KS}
    return {f"recall@{k}": sum(_found(e, chunks[:k], kb_dir) for e in evidence) / len(evidence) for k in RECALL_KS}


def _chunk_text(chunk: tuple[str, Mapping[str, Any]]) -> str:
    """A chunk's text under its heading path: a chunk holds the headings its label shows."""
    text, metadata = chunk
    headings = str(metadata.get("heading_path") or "").replace(" > ", "\n")
    return f"{headings}\n{text}" if headings else text


def _cited_texts(citations: Sequence[Mapping[str, Any]], fetched: Mapping[str, tuple[str, dict[str, Any]]]
                 ) -> list[tuple[str, str]]:
    texts = []
    for citation in citations:
        if citation.get("referenced") is False:
            continue
        path = str(citation.get("path", ""))
        texts.append((path, str(citation.get("quote", ""))))
        chunk = fetched.get(str(citation.get("chunk_id", "")))
        if chunk is not None:
            texts.append((str(chunk[1].get("path", path)), _chunk_text(chunk)))
    return texts


def _compact_citation(citation: Mapping[str, Any]) -> dict[str, Any]:
    keep = ("n", "document", "page", "page_end", "sheet", "slide", "row", "heading_path", "quote", "chunk_id",
            "referenced", "label")
    return {k: citation[k] for k in keep if k in citation}


def score_task(task: Task, answer: Mapping[str, Any], kb: KnowledgeBase, kb_dir: Path, latency_s: float) -> TaskResult:
    """Score one answer (``Answer.to_json()``) against its task."""
    from retrieval.search import search

    metadata = answer.get("metadata") or {}
    route = (metadata.get("route") or {}).get("route")
    result = TaskResult(task.id, task.kind, task.question, list(task.expected_routes), route=route,
                        route_correct=route in task.expected_routes, mode=answer.get("mode"),
                        notice=answer.get("notice"), answer=str(answer.get("answer", "")),
                        language=answer.get("language"), standalone_question=str(answer.get("standalone_question", "")),
                        scope=metadata.get("scope") or {}, latency_s=latency_s,
                        citations=[_compact_citation(c) for c in answer.get("citations", [])])
    chunk_ids = list((metadata.get("retrieval") or {}).get("chunk_ids") or [])
    cited_ids = [str(c.get("chunk_id")) for c in answer.get("citations", []) if c.get("chunk_id")]
    fetched = kb.fetch(list(dict.fromkeys([*chunk_ids, *cited_ids]))) if chunk_ids or cited_ids else {}
    chunk_ids = [c for c in chunk_ids if c in fetched]  # summary-tree nodes and rule materials are not chunks
    if not chunk_ids:
        result.retrieval_source = "search"
        query = result.standalone_question or task.question
        chunk_ids = [h.chunk_id for h in search(kb, query, "hybrid", max(RECALL_KS))]
        fetched = {**fetched, **kb.fetch(chunk_ids)} if chunk_ids else fetched
    ranked = [(str(fetched[c][1].get("path", "")), _chunk_text(fetched[c])) for c in chunk_ids if c in fetched]
    result.recall = _recall(task.evidence, ranked, kb_dir)
    if task.evidence:
        cited = _cited_texts(answer.get("citations", []), fetched)
        hits = [_found(e, cited, kb_dir) for e in task.evidence]
        result.citation_recall = sum(hits) / len(hits)
        result.citation_correct = all(hits)
        if not result.citation_correct:
            missing = [e.text for e, hit in zip(task.evidence, hits, strict=True) if not hit]
            result.failures.extend(f"not cited: {text}" for text in missing)
    if task.pages:
        result.page_cited = page_cited(answer.get("citations", []), task.pages)
    verdict = check_expectation(task.expect, result.answer, result.language)
    result.answer_correct, result.outcome = verdict.correct, verdict.outcome
    result.failures = [*verdict.failures, *result.failures]
    if not result.route_correct:
        result.failures.insert(0, f"route {route}, expected {' / '.join(task.expected_routes)}")
    assembly = metadata.get("assembly") or {}
    if assembly.get("tokens"):
        result.tokens = {k: int(v) for k, v in assembly["tokens"].items() if isinstance(v, int | float)}
    return result


def summarize(results: Sequence[TaskResult]) -> dict[str, Any]:
    """Overall metrics of a run."""
    latencies = [r.latency_s for r in results]
    outcomes = {"exact": 0, "refused": 0, "wrong": 0}
    for r in results:
        if r.outcome in outcomes:
            outcomes[r.outcome] += 1
    prompt_tokens = [r.tokens.get("total", 0) for r in results if r.tokens]
    metrics: dict[str, Any] = {
        "tasks": len(results),
        "route_accuracy": mean(float(r.route_correct) for r in results),
        **{f"recall@{k}": mean(r.recall.get(f"recall@{k}") for r in results) for k in RECALL_KS},
        "citation_accuracy": mean(None if r.citation_correct is None else float(r.citation_correct) for r in results),
        "citation_recall": mean(r.citation_recall for r in results),
        "answer_accuracy": mean(float(r.answer_correct) for r in results),
        "outcomes": outcomes,
        "errors": sum(r.error is not None for r in results),
        "model_answers": sum(r.mode == "model" for r in results),
        "prompt_tokens_total": sum(prompt_tokens),
        "prompt_tokens_mean": (sum(prompt_tokens) / len(prompt_tokens)) if prompt_tokens else None,
        "latency_mean_s": mean(latencies),
        "latency_p50_s": percentile(latencies, 50),
        "latency_p95_s": percentile(latencies, 95),
    }
    kinds = by_kind(results)
    if kinds:  # real-document sets (tasks with gold pages); the generated set's metrics stay as they were
        metrics["by_kind"] = kinds
    return {k: _round(v) if isinstance(v, float) else v for k, v in metrics.items()}


# ------------------------------------------------------------------------------------ running

Progress = Callable[[int, int, TaskResult], None]


def run_tasks(
    settings: Settings,
    tasks: Sequence[Task],
    generator: str = "extractive",
    *,
    kb_dir: Path = KB_DIR,
    knowledge_base: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> EvalReport:
    """Ask every task over the knowledge base already indexed in ``settings.data_dir``."""
    from retrieval.service import QuestionService

    results: list[TaskResult] = []
    with open_generator(generator, settings) as (client, run_settings), \
            QuestionService.open(run_settings, generator=client) as service:
        for index, task in enumerate(tasks, 1):
            documents = [str(kb_dir / d) for d in task.documents] if task.documents else None
            started = time.perf_counter()
            try:
                answer = service.ask(task.question, documents=documents, history=list(task.history)).to_json()
            except OfficeQAError as exc:  # one task's failure is a result, not the end of the run
                result = TaskResult(task.id, task.kind, task.question, list(task.expected_routes),
                                    latency_s=time.perf_counter() - started, error=f"{type(exc).__name__}: {exc}",
                                    failures=[f"error: {exc}"])
            else:
                result = score_task(task, answer, service.kb, kb_dir, time.perf_counter() - started)
            results.append(result)
            if progress is not None:
                progress(index, len(tasks), result)
        settings_json = run_settings.model_dump(mode="json")
    return EvalReport(generator=generator, git_revision=git_revision(), settings=settings_json,
                      knowledge_base=dict(knowledge_base or {"folder": str(kb_dir)}), tasks=results,
                      metrics=summarize(results))


def run_eval(
    settings: Settings,
    tasks: Sequence[Task],
    generator: str = "extractive",
    *,
    kb_dir: Path = KB_DIR,
    data_dir: Path | None = None,
    progress: Progress | None = None,
) -> EvalReport:
    """Index the knowledge base into a fresh data folder (a temporary one unless given), then run the tasks."""
    with contextlib.ExitStack() as stack:
        if data_dir is None:
            data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="officeqa-eval-")))
        run_settings = settings.model_copy(update={"data_dir": data_dir})
        info = index_knowledge_base(run_settings, kb_dir)
        return run_tasks(run_settings, tasks, generator, kb_dir=kb_dir, knowledge_base=info, progress=progress)


def print_progress(index: int, total: int, result: TaskResult) -> None:
    """One stderr line per task, for a person watching a long run."""
    mark = "ok " if result.answer_correct else "BAD"
    print(f"[{index:>2}/{total}] {mark} {result.id} ({result.route}, {result.mode}, {result.latency_s:.1f}s)",
          file=sys.stderr, flush=True)
