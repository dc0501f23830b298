"""Real annual reports, end to end with no model: per kind exact / refused / wrong and gold page cited, on the
frozen tuning and held-out halves (``eval/annual/``), before and after report facts, and what facts cost to
index.

One run indexes the same PDFs twice, into fresh data folders with the same embedder: ``chunking.report_facts``
on, then off. Every task is asked through ``QuestionService`` (what ``officeqa eval --tasks`` runs) over each:
with facts off no document has facts and the report-facts answerer declines, which is the question path as it
was before facts; with facts on it is the path as it is now. The indexing cost is the on/off ratio of the two
index times, with the extraction's own seconds beside it (a busy shared machine makes wall times noisy).

    python bench/bench_annual.py [--kb DIR] [--out bench/results/annual.md] [--skip-before]
    python bench/bench_annual.py --rescore bench/results/annual.json   # stored answers, current task files
    python bench/bench_annual.py --data DIR   # answer over a data folder already indexed (facts on), no indexing
    python bench/bench_annual.py --data DIR --sets fresh_summary fresh_notfound   # other task files of eval/annual
    python bench/bench_annual.py --reports [--generator fake] [--no-index]   # the report-level set, see below

``--kb`` is a folder holding the reports the tasks name (default: the PDFs of ../shared/annual-dev, copied
to bench/results/cache/annual-kb so the question file beside them is never indexed). Results are written
after each step (``annual.md`` and ``annual.json``), so a long run leaves what it measured.

``--reports`` runs the report-level set (issue 34: split by REPORT, ``eval/annual/reports_*.jsonl``, built by
``eval/annual/build_reports.py``): the reports of ``eval/annual/reports_manifest.json`` are extracted from their git
mirrors (``bench/annual_reports_fetch.py``; a missing mirror is skipped with a line saying so) into ONE knowledge
base, indexed (facts on, incrementally) into ``bench/results/cache/annual-reports-data``, and both halves are
answered with no model; with ``--generator fake`` they are asked again through the stand-in model and the run
reports whether the gold figure or key phrase reached its prompt (``bench/annual_prompts.py``). Results:
``bench/results/annual_reports.md``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.harness import TaskResult, index_knowledge_base, score_task, summarize
from eval.tasks import Task, load_tasks
from officeqa.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]
HALVES = ("tuning", "heldout")
#: Sets written after the halves, each before the change it measures (fresh questions nobody tuned on).
FRESH = ("fresh_summary", "fresh_notfound", "fresh_sections")
#: The report-level halves (whole reports split, never questions).
REPORT_SETS = ("reports_tuning", "reports_heldout")
REPORTS_OUT = ROOT / "bench" / "results" / "annual_reports.md"
REPORTS_DATA = ROOT / "bench" / "results" / "cache" / "annual-reports-data"
KINDS = ("figure", "computed", "not_in_report", "named_fact", "summary")
DEFAULT_SOURCE = ROOT.parent / "shared" / "annual-dev"


def _kb_folder(source: Path) -> Path:
    folder = ROOT / "bench" / "results" / "cache" / "annual-kb"
    folder.mkdir(parents=True, exist_ok=True)
    for pdf in sorted(source.glob("*.pdf")):
        target = folder / pdf.name
        if not target.exists() or target.stat().st_size != pdf.stat().st_size:
            shutil.copyfile(pdf, target)
    return folder


def _index_seconds(settings: Settings, kb_dir: Path, data: Path, facts: bool) -> float:
    run = settings.model_copy(update={
        "data_dir": data,
        "chunking": settings.chunking.model_copy(update={"report_facts": facts}),
    })
    started = time.perf_counter()
    index_knowledge_base(run, kb_dir)
    return time.perf_counter() - started


def _extraction_seconds(settings: Settings) -> tuple[float, int, int]:
    """Seconds to extract the facts of every stored document again (the part facts add), pages, facts."""
    from indexing.registry import INDEXED
    from indexing.reports import extract_report
    from indexing.storage import open_knowledge_base

    seconds, pages, facts = 0.0, 0, 0
    with open_knowledge_base(settings) as kb:
        for record in kb.registry.documents(statuses=[INDEXED]):
            parsed = kb.documents.get(record.doc_id)
            if parsed is None:
                continue
            started = time.perf_counter()
            report = extract_report(parsed)
            seconds += time.perf_counter() - started
            pages += parsed.page_count or 0
            facts += len(report["facts"]) if report else 0
    return seconds, pages, facts


def _run(settings: Settings, tasks: list[Task], kb_dir: Path) -> list[TaskResult]:
    from retrieval.service import QuestionService

    results = []
    with QuestionService.open(settings) as service:
        for task in tasks:
            started = time.perf_counter()
            answer = service.ask(task.question)
            results.append(score_task(task, answer.to_json(), service.kb, kb_dir, time.perf_counter() - started))
    return results


def _table(title: str, by_kind: dict[str, dict[str, int]]) -> list[str]:
    head = "| kind | tasks | exact | refused | wrong | gold page cited |"
    lines = [f"**{title}**", "", head, "|---|---|---|---|---|---|"]
    for kind in KINDS:
        row = by_kind.get(kind)
        if not row:
            continue
        cited = f"{row['page_cited']}/{row['with_page']}" if row["with_page"] else "—"
        lines.append(f"| {kind} | {row['tasks']} | {row['exact']} | {row['refused']} | {row['wrong']} | {cited} |")
    return [*lines, ""]


def _write(out: Path, lines: list[str], report: dict[str, Any]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


def _answer_all(run: Settings, kb_dir: Path, label: str, lines: list[str], report: dict[str, Any],
                out: Path, sets: tuple[str, ...] = HALVES) -> None:
    for half in sets:
        tasks = load_tasks(ROOT / "eval" / "annual" / f"{half}.jsonl")
        results = _run(run, tasks, kb_dir)
        kinds = summarize(results).get("by_kind", {})
        stored = [{k: v for k, v in r.to_json().items() if k != "scope"} for r in results]  # scope holds paths
        report["halves"].setdefault(half, {})[label] = {"by_kind": kinds, "tasks": stored}
        lines += _table(f"{half} ({len(tasks)} tasks) — {label}", kinds)
        _write(out, lines, report)


def _rescore(path: Path, out: Path) -> None:
    """Score the answers a run stored against the current task files (an expectation fixed after the run)."""
    from eval.answer_metrics import check_expectation
    from eval.kinds import by_kind

    report = json.loads(path.read_text(encoding="utf-8"))
    lines = ["# Annual reports, no model (bench/bench_annual.py)", ""]
    index = report.get("index", {})
    if index:
        line = (f"Indexing {index.get('pages')} pages ({index.get('facts')} facts): facts on "
                f"{index.get('facts_on_s')} s, of which extracting facts {index.get('extract_s')} s")
        if "ratio" in index:
            line += f"; facts off {index['facts_off_s']} s; ratio on/off **{index['ratio']}** (target <= 1.3)"
        lines += [line + ".", ""]
    for half, runs in report["halves"].items():
        tasks = {t.id: t for t in load_tasks(ROOT / "eval" / "annual" / f"{half}.jsonl")}
        for label, run in runs.items():
            results = []
            for raw in run["tasks"]:
                task = tasks[raw["id"]]
                verdict = check_expectation(task.expect, raw["answer"], raw.get("language"))
                result = TaskResult(raw["id"], raw["kind"], raw["question"], raw["expected_routes"],
                                    answer=raw["answer"], answer_correct=verdict.correct,
                                    page_cited=raw.get("page_cited"))
                raw["answer_correct"], raw["failures"] = verdict.correct, verdict.failures
                results.append(result)
            run["by_kind"] = by_kind(results)
            lines += _table(f"{half} ({len(results)} tasks) — {label}", run["by_kind"])
    lines += ["Scored against the task files of this revision (`--rescore`).", ""]
    _write(out, lines, report)
    print("\n".join(lines))


def _answer_only(data: Path, kb_dir: Path, out: Path, sets: tuple[str, ...]) -> None:
    """Answer both halves over ``data`` (indexed before); the index times stay those ``out`` already records."""
    import subprocess

    settings = load_settings()
    stored = out.with_suffix(".json")
    previous = json.loads(stored.read_text(encoding="utf-8")) if stored.exists() else {}
    index = previous.get("index", {})
    revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT,
                              check=False).stdout.strip()
    report: dict[str, Any] = {"kb": kb_dir.name, "halves": {}, "index": index, "answered_at": revision}
    lines = ["# Annual reports, no model (bench/bench_annual.py)", ""]
    if index:
        lines += [f"Index times of the last full run (this run answered over an index built before, `--data`): "
                  f"{index.get('pages')} pages, facts on {index.get('facts_on_s')} s, facts off "
                  f"{index.get('facts_off_s')} s, ratio {index.get('ratio')}.", ""]
    _answer_all(settings.model_copy(update={"data_dir": data}), kb_dir, f"answers at {revision}", lines, report, out,
                sets)
    print("\n".join(lines))


def _revision() -> str:
    import subprocess

    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT,
                          check=False).stdout.strip()


def _by_market(report: dict[str, Any]) -> list[str]:
    """Exact answers per market and half (the reports' markets from the manifest): where the answerers hold."""
    from eval.kinds import outcome_of

    manifest = json.loads((ROOT / "eval" / "annual" / "reports_manifest.json").read_text(encoding="utf-8"))
    market = {Path(e["file"]).stem: f"{e['market']} ({e['script']})" for e in manifest}
    lines = ["**Exact answers by market** (no model; all kinds)", "", "| half | market | exact | refused | wrong |",
             "|---|---|---|---|---|"]
    for half in REPORT_SETS:
        counts: dict[str, dict[str, int]] = {}
        for task in report["halves"].get(half, {}).get("no model", {}).get("tasks", []):
            row = counts.setdefault(market.get(task["id"].rsplit("-", 1)[0], "?"), {"exact": 0, "refused": 0,
                                                                                   "wrong": 0, "tasks": 0})
            row["tasks"] += 1
            row[outcome_of(task["answer_correct"], task["answer"])] += 1
        for name, row in sorted(counts.items()):
            lines.append(f"| {half} | {name} | {row['exact']}/{row['tasks']} | {row['refused']} | {row['wrong']} |")
    return [*lines, ""]


def _index_reports(settings: Settings, report: dict[str, Any]) -> list[str]:
    """Index the extracted reports (incrementally); a report that fails is named and the others are still answered."""
    from bench.annual_reports_fetch import DEFAULT_OUT
    from officeqa.errors import ConfigurationError

    started = time.perf_counter()
    try:
        summary = index_knowledge_base(settings, DEFAULT_OUT)
    except ConfigurationError as exc:  # one report that does not index must not hide the others' answers
        report["index"] = {"error": str(exc)}
        return [f"Indexing did not finish cleanly: {exc}", ""]
    report["index"] = {**summary, "wall_s": round(time.perf_counter() - started, 1)}
    return [f"Indexed {summary['documents']} documents, {summary['chunks']} chunks in {report['index']['wall_s']} s "
            "(incremental: unchanged reports are skipped).", ""]


def _reports_run(out: Path, generator: str, index: bool, data: Path | None) -> None:
    """The report-level set: extract, index once into one knowledge base, answer both halves (see the docstring)."""
    from bench.annual_prompts import SECTION, ask_all, section
    from bench.annual_reports_fetch import DEFAULT_OUT, fetch_all

    fetched = fetch_all(DEFAULT_OUT)
    print("\n".join(fetched))
    present = [line for line in fetched if not line.startswith("skipped")]
    if not present:
        print("no report could be extracted: fetch the mirrors the lines above name, then run again")
        return
    settings = load_settings()
    settings = settings.model_copy(update={
        "data_dir": data or REPORTS_DATA,
        "parsing": settings.parsing.model_copy(update={"timeout_s": 3600.0}),
        "chunking": settings.chunking.model_copy(update={"report_facts": True}),
    })
    revision = _revision()
    lines = ["# Annual reports by report (bench/bench_annual.py --reports)", "",
             f"{len(present)} of {len(fetched)} reports of `eval/annual/reports_manifest.json` in one knowledge base; "
             f"tuning and held-out halves split by whole report (`eval/annual/reports_sources.md`). "
             f"Answers at {revision}.", ""]
    report: dict[str, Any] = {"kb": DEFAULT_OUT.name, "halves": {}, "answered_at": revision}
    if index:
        lines += _index_reports(settings, report)
    _answer_all(settings, DEFAULT_OUT, "no model", lines, report, out, REPORT_SETS)
    lines += _by_market(report)
    _write(out, lines, report)
    if generator == "fake":
        lines += [SECTION, ""]
        for name in REPORT_SETS:
            records = ask_all(settings, load_tasks(ROOT / "eval" / "annual" / f"{name}.jsonl"), DEFAULT_OUT)
            report["halves"].setdefault(name, {})["fake"] = records
            lines += section(name, records)
            _write(out, lines, report)
    lines += READING
    _write(out, lines, report)
    print("\n".join(lines))


#: How to read the report-level results (written under them).
READING = [
    "Reading: *no model* asks through `QuestionService` with no generator reachable (the extractive fallback); "
    "*exact* is the task's expectation met (every gold figure, in units or as the table prints it; every name; "
    "the ratio with its inputs; 60% of a summary's points; \"not in this report\" with no figure), *refused* says "
    "the documents do not hold it, *wrong* is anything else (quoted passages without the figure included). "
    "*Gold page cited*: a citation on the gold page. The stand-in model quotes the material sentence covering most "
    "of the question's terms, so its own answers say little; what its prompt held is the measure.",
    "",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kb", type=Path, help="folder of the reports the tasks name")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "annual.md")
    parser.add_argument("--skip-before", action="store_true", help="index once (facts on) and answer once")
    parser.add_argument("--before-only", action="store_true", help="index once (facts off) and answer once")
    parser.add_argument("--rescore", type=Path, help="score a stored annual.json against the current task files")
    parser.add_argument("--data", type=Path, help="a data folder that already holds the reports, indexed with facts "
                        "on (answering changed, indexing did not): answer once, keep the index times of --out")
    parser.add_argument("--sets", nargs="+", choices=(*HALVES, *FRESH, *REPORT_SETS), default=list(HALVES),
                        help="task files of eval/annual/ to answer with --data (default: the two halves)")
    parser.add_argument("--reports", action="store_true", help="the report-level set (reports_tuning/heldout)")
    parser.add_argument("--generator", choices=("extractive", "fake"), default="extractive",
                        help="with --reports: also ask through the stand-in model and check its prompts")
    parser.add_argument("--no-index", action="store_true", help="with --reports: answer over the index as it is")
    args = parser.parse_args()
    if args.reports:
        out = args.out if args.out != parser.get_default("out") else REPORTS_OUT
        _reports_run(out, args.generator, not args.no_index, args.data)
        return
    if args.rescore:
        _rescore(args.rescore, args.out)
        return
    if args.data:
        _answer_only(args.data, args.kb or _kb_folder(DEFAULT_SOURCE), args.out, tuple(args.sets))
        return
    kb_dir = args.kb or _kb_folder(DEFAULT_SOURCE)
    settings = load_settings()
    # a 200-page report on a busy 2-core machine can take minutes to parse: the bench measures, it does not time out
    settings = settings.model_copy(update={"parsing": settings.parsing.model_copy(update={"timeout_s": 3600.0})})
    report: dict[str, Any] = {"kb": kb_dir.name, "halves": {}}
    lines = ["# Annual reports, no model (bench/bench_annual.py)", ""]
    if args.before_only:
        with tempfile.TemporaryDirectory(prefix="officeqa-annual-") as data:
            off = _index_seconds(settings, kb_dir, Path(data), facts=False)
            report["index"] = {"facts_off_s": round(off, 1)}
            lines += [f"Indexing with facts off: {off:.1f} s.", ""]
            _answer_all(settings.model_copy(update={"data_dir": Path(data)}), kb_dir, "before (facts off)", lines,
                        report, args.out)
        print("\n".join(lines))
        return
    with tempfile.TemporaryDirectory(prefix="officeqa-annual-") as data:
        on_dir, off_dir = Path(data) / "on", Path(data) / "off"
        on = _index_seconds(settings, kb_dir, on_dir, facts=True)
        run = settings.model_copy(update={"data_dir": on_dir})
        extract, pages, facts = _extraction_seconds(run)
        timing = {"facts_on_s": round(on, 1), "extract_s": round(extract, 2), "pages": pages, "facts": facts}
        report["index"] = timing
        pdfs = len(list(kb_dir.glob("*.pdf")))
        head = (f"Indexing {pdfs} PDFs ({pages} pages, {facts} facts): facts on {on:.1f} s, of which extracting "
                f"facts {extract:.2f} s ({extract / max(on - extract, 1e-9):.1%} of the rest)")
        lines += [head + ".", ""]
        _write(args.out, lines, report)
        _answer_all(run, kb_dir, "after (facts on)", lines, report, args.out)
        if not args.skip_before:
            off = _index_seconds(settings, kb_dir, off_dir, facts=False)
            timing.update({"facts_off_s": round(off, 1), "ratio": round(on / off, 3)})
            lines[2] = head + f"; facts off {off:.1f} s; ratio on/off **{on / off:.3f}** (target <= 1.3)."
            _answer_all(settings.model_copy(update={"data_dir": off_dir}), kb_dir, "before (facts off)", lines,
                        report, args.out)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
