"""Table questions through the question service with no model: exact / refused / wrong on two held-out sets.

1. ``fresh``: the first issue-23 held-out set (``eval/table_heldout``): ten generated office files in one knowledge
   base and 45 questions as users type them, none naming a document; gold frozen in ``orders_questions.jsonl``.
   ``fresh2``: the second set (``inventory_attendance_kb``, 23 questions), written after the first had been used
   for tuning and never tuned on. ``fresh3`` (``spare_parts_kb``, 34 questions) and ``fresh4`` (15 other
   phrasings over ``spare_parts_kb``): written by a second helper before it changed the table path; set 3
   measured untuned then used to find failures, set 4 measured once at the end. ``fresh5``
   (``warehouse_budget_kb``: an inventory sheet under a title row, an HR roster, a .docx budget table, an English
   sales csv; 30 questions, gold computed with pandas from the written files): written by a third helper before
   it changed the table path, measured before and after, never tuned on.
   ``*-direct``: the same questions to the table layer alone (``answer_table_question`` over every stored table),
   without routing or retrieval.
2. ``acceptance``: the earlier held-out table set (``tests/unit/retrieval/test_tables_acceptance.py``, 83
   cases over nine generated workbooks), asked through ``QuestionService`` with the case's file given as the
   document (as a user who picked the file would), judged by that test's own judge.

The knowledge base is real (SQLite registry, stored parsed documents and tables in DuckDB, Chroma, BM25)
with the deterministic ``hash`` embedder.

    python bench/bench_table_questions.py [--label TEXT] [--sets ...] [--out bench/results/table_questions.md]

One current result file: a rerun overwrites ``--out`` (earlier runs live in git history); ``--label`` only titles it.

3. ``roster`` (``eval/table_heldout/roster_inventory_*``, issue 35): an English HR roster .xlsx, a Chinese inventory
   .csv, a titled English .csv with a totals row; 31 answerable + 6 unanswerable questions, gold with pandas,
   written before the issue-35 changes, measured before and after, never tuned on.
4. ``wtq-tuning`` / ``wtq-heldout``: WikiTableQuestions, split by table (``bench/table_public.py``), read from the
   mirror (``--wtq``; skipped with a line when absent); the held-out half is run once, at the end.
   ``wtq-heldout2``: a second held-out set from WTQ's training file (tables disjoint), made after the first
   held-out half had been read; run once, at the end.

    python bench/bench_table_questions.py --label issue35 --out bench/results/table_questions.md \
        --sets fresh fresh2 fresh3 fresh4 fresh5 acceptance roster roster-direct wtq-tuning wtq-heldout wtq-heldout2
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "unit" / "retrieval"))

from bench.table_public import DEFAULT_WTQ, run_wtq  # noqa: E402
from eval.table_heldout.inventory_attendance_gold import QUESTIONS2  # noqa: E402
from eval.table_heldout.inventory_attendance_kb import write_kb2  # noqa: E402
from eval.table_heldout.judge import judge as judge_fresh  # noqa: E402
from eval.table_heldout.orders_kb import write_kb  # noqa: E402
from indexing.storage import open_knowledge_base  # noqa: E402
from officeqa.settings import EmbeddingSettings, OllamaSettings, Settings  # noqa: E402
from retrieval.handlers.results import HandlerItem, HandlerResult  # noqa: E402
from retrieval.service import QuestionService  # noqa: E402

CACHE = ROOT / "bench" / "results" / "cache" / "table_questions"
QUESTIONS = ROOT / "eval" / "table_heldout" / "orders_questions.jsonl"


def _settings(data: Path) -> Settings:
    return Settings(
        data_dir=data,
        embedding=EmbeddingSettings(backend="hash"),
        ollama=OllamaSettings(host="http://127.0.0.1:9", connect_timeout_s=0.5, retries=0),
    )


def _index(files: Path, data: Path) -> Settings:
    settings = _settings(data)
    with open_knowledge_base(settings) as kb:
        report = kb.index_paths([files])
    if report.failed:
        raise SystemExit(f"indexing failed: {report.failed}")
    return settings


def _short(text: str, width: int = 160) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def _fresh_set(second: bool | int) -> tuple[str, Path, Any]:
    """The set's name, questions file and knowledge-base writer: ``second`` is False/True for sets 1/2, or 3/4."""
    from eval.table_heldout.roster_inventory_gold import ROSTER_INVENTORY_QUESTIONS
    from eval.table_heldout.roster_inventory_kb import write_roster_inventory_kb
    from eval.table_heldout.spare_parts_gold import QUESTIONS3
    from eval.table_heldout.spare_parts_kb import write_kb3
    from eval.table_heldout.warehouse_budget_kb import write_kb5

    number = 2 if second is True else 1 if second is False else int(second)
    return {
        1: ("fresh", QUESTIONS, write_kb),
        2: ("fresh2", QUESTIONS2, write_kb2),
        3: ("fresh3", QUESTIONS3, write_kb3),
        4: ("fresh4", QUESTIONS3.with_name("spare_parts_rephrased_questions.jsonl"), write_kb3),
        5: ("fresh5", QUESTIONS3.with_name("warehouse_budget_questions.jsonl"), write_kb5),
        6: ("roster", ROSTER_INVENTORY_QUESTIONS, write_roster_inventory_kb),
    }[number]


def run_fresh(second: bool | int = False) -> tuple[Counter[str], list[str]]:
    name, questions_file, write = _fresh_set(second)
    base = CACHE / name
    shutil.rmtree(base, ignore_errors=True)
    files = base / "kb"
    write(files)
    settings = _index(files, base / "data")
    counts: Counter[str] = Counter()
    lines = []
    questions = [json.loads(line) for line in questions_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    with QuestionService.open(settings, generator=None) as service:
        for q in questions:
            answer = service.ask(q["question"])
            outcome = judge_fresh(q, answer)
            counts[outcome] += 1
            absolute = str(files) in answer.text
            lines.append(
                f"| {q['id']} | {q['category']} | {q['question']} | {outcome}"
                f"{' (absolute path shown)' if absolute else ''} | {_short(answer.text).replace('|', '/')} |"
            )
    return counts, lines


def run_fresh_direct(second: bool | int = False) -> tuple[Counter[str], list[str]]:
    """The table layer alone: ``answer_table_question`` over every stored table of the fresh knowledge base (no
    routing, no retrieval); an answer is judged like a table answer of the service."""
    from types import SimpleNamespace

    from indexing.table_store import TableStore
    from retrieval.tables import answer_table_question

    name, questions_file, _ = _fresh_set(second)
    base = CACHE / name
    if not (base / "data").is_dir():
        run_fresh(second)
    store = TableStore.from_settings(_settings(base / "data"), read_only=True)
    counts: Counter[str] = Counter()
    lines = []
    questions = [json.loads(line) for line in questions_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    for q in questions:
        result = answer_table_question(q["question"], store, None)
        answer = SimpleNamespace(text=result.answer_text, mode="rule", metadata={"handler": result.to_json()})
        outcome = judge_fresh(q, answer)
        counts[outcome] += 1
        lines.append(f"| {q['id']} | {q['category']} | {q['question']} | {outcome} | "
                     f"{_short(result.answer_text).replace('|', '/')} |")
    store.close()
    return counts, lines


def _as_result(handler: dict[str, Any]) -> HandlerResult:
    items = [HandlerItem(i.get("value", ""), i.get("normalized"), i.get("kind")) for i in handler.get("items", [])]
    return HandlerResult(
        handler.get("route", ""),
        handler.get("answer", ""),
        items,
        data=handler.get("data") or {},
        outcome=handler.get("outcome"),
    )


def run_acceptance() -> tuple[Counter[str], list[str]]:
    import table_books as books
    import test_tables_acceptance as acceptance

    from indexing.parsing import parse_file  # noqa: F401  (the test module's imports need the product)

    base = CACHE / "acceptance"
    shutil.rmtree(base, ignore_errors=True)
    root = base / "kb"
    root.mkdir(parents=True)
    orders = books.make_orders()
    custs = books.customers()
    files = {"orders": books.write_orders_xlsx(root / "orders.xlsx", orders, custs)}
    files["staff"], staff = books.write_staff_xlsx(root / "staff.xlsx")
    files["years"], years = books.write_two_years_xlsx(root / "years.xlsx")
    files["targets"], pivot = books.write_targets_xlsx(root / "targets.xlsx")
    files["serial"], serial = books.write_serial_dates_xlsx(root / "serial.xlsx")
    files["multi"], multi = books.write_multi_year_xlsx(root / "multi.xlsx")
    files["csv"], csv_rows = books.write_sales_csv(root / "sales.csv")
    files["docx"], budget = books.write_budget_docx(root / "budget.docx")
    files["english"] = books.write_orders_en_xlsx(root / "orders_en.xlsx", orders)
    world = {
        "orders": orders,
        "custs": custs,
        "staff": staff,
        "years": years,
        "pivot": pivot,
        "serial": serial,
        "multi": multi,
        "csv": csv_rows,
        "budget": budget,
    }
    settings = _index(root, base / "data")
    counts: Counter[str] = Counter()
    lines = []
    with QuestionService.open(settings, generator=None) as service:
        for case in acceptance.all_cases(world):
            answer = service.ask(case.question, documents=[str(files[case.doc])])
            handler = answer.metadata.get("handler")
            if handler is None or handler.get("outcome") is None:
                outcome = "refused"  # no table answer: the service quoted passages instead (claims no value)
                how = "no table answer"
            else:
                outcome = acceptance.judge(_as_result(handler), case.expected)
                how = handler.get("outcome", "")
            expected_refusal = case.expected == acceptance.REFUSE
            counts[outcome] += 1
            if outcome == "refused":
                counts["refused (should refuse)" if expected_refusal else "refused (answerable)"] += 1
            lines.append(
                f"| {case.doc} | {case.question} | {'REFUSE' if expected_refusal else 'value'} | "
                f"{outcome} ({how}) | {_short(answer.text).replace('|', '/')} |"
            )
    return counts, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--label", default="current", help="a title for the run (e.g. the commit measured)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "table_questions.md")
    parser.add_argument("--sets", nargs="+", default=["fresh", "fresh-direct", "fresh2", "fresh2-direct", "acceptance"])
    parser.add_argument("--wtq", type=Path, default=DEFAULT_WTQ, help="the WikiTableQuestions git mirror")
    parser.add_argument("--wtq-limit", type=int, default=200, help="questions sampled per WTQ half")
    args = parser.parse_args()
    out = [
        f"# Table questions through QuestionService, no model ({args.label})",
        "",
        f"`python bench/bench_table_questions.py --sets {' '.join(args.sets)}`; hash embedder; judge: "
        "eval/table_heldout/judge.py (fresh), the acceptance test's judge (83 cases).",
        "",
    ]
    for name in args.sets:
        runs = {"fresh": run_fresh, "fresh-direct": run_fresh_direct, "acceptance": run_acceptance,
                "fresh2": lambda: run_fresh(True), "fresh2-direct": lambda: run_fresh_direct(True),
                "fresh3": lambda: run_fresh(3), "fresh3-direct": lambda: run_fresh_direct(3),
                "fresh4": lambda: run_fresh(4), "fresh4-direct": lambda: run_fresh_direct(4),
                "fresh5": lambda: run_fresh(5), "fresh5-direct": lambda: run_fresh_direct(5),
                "roster": lambda: run_fresh(6), "roster-direct": lambda: run_fresh_direct(6)}
        if name.startswith("wtq-"):
            if not (args.wtq / "HEAD").exists():
                print(f"{name}: skipped, no WikiTableQuestions mirror at {args.wtq} (--wtq)", flush=True)
                continue
            counts, lines = run_wtq(args.wtq, name[4:], args.wtq_limit, CACHE / "wtq")
            out += [f"## {name}: {counts['exact']} exact / {counts['refused']} refused / {counts['wrong']} wrong "
                    f"(of {sum(counts.values())}; split by table, see bench/table_public.py)", "",
                    "| id | question | gold | outcome | answer |", "|---|---|---|---|---|", *lines, ""]
            print(f"{name}: {dict(counts)}", flush=True)
            continue
        counts, lines = runs[name]()
        total = counts["exact"] + counts["refused"] + counts["wrong"]
        out += [
            f"## {name}: {counts['exact']} exact / {counts['refused']} refused / {counts['wrong']} wrong (of {total})",
            "",
        ]
        if name == "acceptance":
            out += [
                f"Refused: {counts['refused (should refuse)']} whose expectation is REFUSE (ambiguous or "
                f"unanswerable: refusing is right), {counts['refused (answerable)']} answerable.",
                "",
            ]
            out += ["| doc | question | expected | outcome | answer |", "|---|---|---|---|---|"]
        else:
            out += ["| id | category | question | outcome | answer |", "|---|---|---|---|---|"]
        out += [*lines, ""]
        print(f"{name}: {dict(counts)}", flush=True)
    path = args.out
    path.write_text("\n".join(out), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
