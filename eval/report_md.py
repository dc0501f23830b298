"""The Markdown form of an eval run: settings and revision, the per-task table, the overall metrics, the failures.

Why failures get their answer text: the report is what a developer reads to decide what to fix,
so each failing task shows what the service said, not only that it was wrong.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from eval.harness import EvalReport, TaskResult

__all__ = ["markdown"]

ANSWER_CHARS = 400


def _mark(value: bool | None) -> str:
    return "—" if value is None else ("✓" if value else "✗")


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _settings_line(settings: dict[str, Any]) -> str:
    embedding = settings.get("embedding", {})
    chunking = settings.get("chunking", {})
    retrieval = settings.get("retrieval", {})
    ollama = settings.get("ollama", {})
    return (f"embedding `{embedding.get('backend')}`, chunks {chunking.get('target_tokens')} tokens, "
            f"fusion `{retrieval.get('fusion')}` (BM25 {retrieval.get('bm25_weight')} / dense "
            f"{retrieval.get('dense_weight')}), top_k {retrieval.get('top_k')}, model `{ollama.get('model')}` "
            f"num_ctx {ollama.get('num_ctx')}")


def _row(t: TaskResult) -> str:
    route = t.route or "—"
    if not t.route_correct:
        route = f"{route} ✗ (want {'/'.join(t.expected_routes)})"
    tokens = str(t.tokens.get("total", "")) if t.tokens else ""
    return (f"| {t.id} | {t.kind} | {route} | {t.mode or '—'} | {_num(t.recall.get('recall@5'))} | "
            f"{_num(t.recall.get('recall@10'))} | {_mark(t.citation_correct)} | {_mark(t.answer_correct)} | "
            f"{t.outcome or ''} | {tokens} | {t.latency_s:.2f} |")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def markdown(report: EvalReport) -> str:
    """The whole report as Markdown."""
    m = report.metrics
    kb = report.knowledge_base
    lines = [
        f"# officeqa eval — generator `{report.generator}`",
        "",
        f"- revision `{report.git_revision}`; knowledge base: {kb.get('documents', '?')} documents, "
        f"{kb.get('chunks', '?')} chunks (indexed in {kb.get('index_s', '?')} s)",
        f"- settings: {_settings_line(report.settings)}",
        "",
        "| task | kind | route | mode | R@5 | R@10 | cite | answer | outcome | tokens | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *(_row(t) for t in report.tasks),
        "",
        "| metric | value |",
        "|---|---|",
    ]
    outcomes = m.get("outcomes", {})
    for name in ("route_accuracy", "recall@5", "recall@10", "citation_accuracy", "citation_recall", "answer_accuracy"):
        lines.append(f"| {name} | {_num(m.get(name), 4)} |")
    lines += [
        f"| outcomes (value tasks) | exact {outcomes.get('exact', 0)}, refused {outcomes.get('refused', 0)}, "
        f"wrong {outcomes.get('wrong', 0)} |",
        f"| model answers | {m.get('model_answers', 0)} of {m.get('tasks', 0)} |",
        f"| prompt tokens (total / mean) | {m.get('prompt_tokens_total', 0)} / "
        f"{_num(m.get('prompt_tokens_mean'), 0)} |",
        f"| latency mean / p50 / p95 (s) | {_num(m.get('latency_mean_s'))} / {_num(m.get('latency_p50_s'))} / "
        f"{_num(m.get('latency_p95_s'))} |",
    ]
    kinds = m.get("by_kind") or {}
    if kinds:  # real-document sets: per kind, and whether a citation points at a gold page
        lines += ["", "| kind | tasks | exact | refused | wrong | gold page cited |", "|---|---|---|---|---|---|"]
        for kind, row in kinds.items():
            cited = f"{row['page_cited']}/{row['with_page']}" if row.get("with_page") else "—"
            lines.append(f"| {kind} | {row['tasks']} | {row['exact']} | {row['refused']} | {row['wrong']} | {cited} |")
    if report.comparison is not None:
        c = report.comparison
        lines += ["", "## Against the baseline", ""]
        if not c.get("found"):
            lines.append(f"No baseline for generator `{report.generator}` in {c.get('baseline')}.")
        else:
            lines.append("PASSED" if c.get("passed") else "FAILED")
            lines += [f"- regression: {r}" for r in c.get("regressions", [])]
            lines += [f"- improvement: {r}" for r in c.get("improvements", [])]
            if c.get("tasks_now_failing"):
                lines.append(f"- tasks now failing: {', '.join(c['tasks_now_failing'])}")
            if c.get("tasks_now_passing"):
                lines.append(f"- tasks now passing: {', '.join(c['tasks_now_passing'])}")
    failing = [t for t in report.tasks if not t.answer_correct or t.citation_correct is False or not t.route_correct]
    if failing:
        lines += ["", "## What went wrong", ""]
        for t in failing:
            answer = _cell(t.answer)
            if len(answer) > ANSWER_CHARS:
                answer = answer[:ANSWER_CHARS] + "…"
            lines += [f"**{t.id}** — {t.question}", "",
                      *(f"- {_cell(f)}" for f in t.failures),
                      f"- answer ({t.mode}): {answer or '(empty)'}", ""]
    return "\n".join(lines).rstrip() + "\n"
