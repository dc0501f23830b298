"""Retrieval over many real annual reports in one knowledge base: gold page ±1 in the top 10, and the right report
first — our BM25 and default hybrid (with and without the scope by the company the question names) against a plain
LlamaIndex stack built in the same run.

Why: a question names its company ("航天电器2019年的营业收入", "KP Tissue's net sales"); pages that match every
question (profit tables, share-capital tables of every report) crowd the named report's page out of an unscoped
top 10. Scope by company (``retrieval.subjects``: names, short names, stock codes, English names, folded
Traditional/Simplified) restricts retrieval to that company's reports before ranking, as the question path does.

The peer: each PDF page's text (pypdfium2) as a LlamaIndex ``Document`` with its page, ``SentenceSplitter(1024,
200)``, BM25 (``bm25s``) over jieba tokens — what a user assembles from the LlamaIndex docs — and no vectors.

The reports: the four of ``../shared/annual-dev`` (``--dev``), the A-share PDFs of the DB-GPT examples that are no
copy of them, and the ``--erc N`` smallest annual reports of the Enterprise RAG Challenge round 2, read from git
mirrors (``--dbgpt-repo``, ``--erc-repo``; fetched data, never committed: a missing mirror is skipped with a line).
Questions: ``questions.jsonl`` of the dev folder (file, question, page), plus ``--questions`` files of the same
shape (the annualset tuning half when it exists).

    nice -n 5 python bench/bench_report_retrieval.py [--data DIR] [--erc 5] [--out bench/results/report_retrieval.md]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from indexing.storage import open_knowledge_base  # noqa: E402
from officeqa.settings import Settings, load_settings  # noqa: E402
from retrieval.answer_texts import shared_naming_words  # noqa: E402
from retrieval.placing import scope_of  # noqa: E402
from retrieval.scope import Scope  # noqa: E402
from retrieval.search import without_naming_words  # noqa: E402
from retrieval.service import QuestionService  # noqa: E402

DEV = ROOT.parent / "shared" / "annual-dev"
DBGPT = Path("/work/.mirror/eosphoros-ai+DB-GPT/repo")
DBGPT_DIR = "docker/examples/fin_report/pdf/"
ERC = Path("/work/.mirror/trustbit+enterprise-rag-challenge/repo")
K = 10


@dataclass(frozen=True, slots=True)
class Question:
    file: str
    question: str
    pages: tuple[int, ...]
    half: str = "dev"
    """``tune`` / ``heldout`` for the annualset questions (``eval/annual/reports_tuning.jsonl`` /
    ``reports_heldout.jsonl``: the halves are split by REPORT), ``dev`` for ``../shared/annual-dev``."""


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True).stdout


def collect(folder: Path, dev: Path, dbgpt: Path, erc: Path, erc_n: int, dbgpt_n: int = 2) -> list[str]:
    """Copy the reports into ``folder`` (the first ``dbgpt_n`` DB-GPT reports that are no dev report, the ``erc_n``
    smallest challenge reports); the lines say what was skipped and why."""
    notes: list[str] = []
    folder.mkdir(parents=True, exist_ok=True)
    dev_codes = set()
    for pdf in sorted(dev.glob("*.pdf")):
        shutil.copy2(pdf, folder / pdf.name)
    for name in ("002025", "200570", "002099"):  # the dev reports' own codes: the DB-GPT copies are the same PDFs
        dev_codes.add(name)
    if (dbgpt / "HEAD").exists() or (dbgpt / ".git").exists() or dbgpt.is_dir():
        paths = _git(dbgpt, "ls-tree", "-r", "--name-only", "-z", "HEAD", DBGPT_DIR).decode().split("\0")
        fresh = [p for p in paths if p.endswith(".pdf") and not any(f"__{c}__" in p for c in dev_codes)]
        for path in fresh[:dbgpt_n]:
            target = folder / f"dbgpt_{path.split('__')[2]}.pdf"
            if not target.exists():
                target.write_bytes(_git(dbgpt, "show", f"HEAD:{path}"))
    else:
        notes.append(f"skipped the DB-GPT reports: no mirror at {dbgpt}")
    if erc.is_dir():
        rows = _git(erc, "ls-tree", "-r", "-l", "HEAD", "round2/pdfs/").decode().splitlines()
        sized = sorted((int(r.split()[3]), r.split("\t")[1]) for r in rows if r.split()[3].isdigit())
        for _, path in sized[:erc_n]:
            target = folder / f"erc_{Path(path).stem[:10]}.pdf"
            if not target.exists():
                target.write_bytes(_git(erc, "show", f"HEAD:{path}"))
    else:
        notes.append(f"skipped the Enterprise RAG Challenge reports: no mirror at {erc}")
    return notes


def load_questions(paths: Sequence[Path]) -> list[Question]:
    """Questions with a gold page: the dev shape (``file``, ``page``) or the annualset's (``pages``: one report's
    pages); a file named ``*tuning*`` / ``*heldout*`` gives its questions that half."""
    out: list[Question] = []
    for path in paths:
        half = "tune" if "tuning" in path.name else "heldout" if "heldout" in path.name else "dev"
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else None
            if row and row.get("page"):
                out.append(Question(row["file"], row["question"], (int(row["page"]),), half))
            elif row and len(row.get("pages") or {}) == 1:
                (file, pages), = row["pages"].items()
                out.append(Question(file, row["question"], tuple(int(p) for p in pages), half))
    return out


Ranked = list[tuple[str, int | None]]  # (file name, page) best first


def _score(questions: Sequence[Question], ranked: Sequence[Ranked]) -> tuple[int, int]:
    """(gold page ±1 in the top 10, the right report first)."""
    gold = sum(any(f == q.file and p is not None and any(abs(p - g) <= 1 for g in q.pages) for f, p in r[:K])
               for q, r in zip(questions, ranked, strict=True))
    first = sum(bool(r) and r[0][0] == q.file for q, r in zip(questions, ranked, strict=True))
    return gold, first


def ours(settings: Settings, questions: Sequence[Question], mode: str, scoped: bool) -> list[Ranked]:
    with QuestionService.open(settings) as service:
        knowledge = service.knowledge
        catalog = knowledge.catalog()
        out: list[Ranked] = []
        for q in questions:
            scope = scope_of(q.question, None, catalog) if scoped else Scope("retrieved")
            if scope.method not in ("named", "explicit"):
                scope = Scope("retrieved")
            # as the question path searches (``Knowledge.retrieve``): the words that named the scope's reports left out
            query = without_naming_words(q.question, shared_naming_words(scope, catalog)) if scoped else q.question
            hits = knowledge.scoped_search(query, mode, K, scope)
            out.append([(Path(catalog[h.doc_id].path).name if h.doc_id in catalog else "", _page(h.metadata))
                        for h in hits])
        return out


def _page(meta: dict[str, Any]) -> int | None:
    page = meta.get("page") or meta.get("page_start")
    return int(page) if page not in (None, "") else None


def peer(folder: Path, questions: Sequence[Question]) -> tuple[list[Ranked], float]:
    """LlamaIndex SentenceSplitter(1024, 200) over page texts, bm25s over jieba tokens; (rankings, build seconds)."""
    import bm25s  # type: ignore[import-untyped]
    import jieba
    import pypdfium2
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceSplitter

    started = time.monotonic()
    documents = []
    for pdf in sorted(folder.glob("*.pdf")):
        reader = pypdfium2.PdfDocument(str(pdf))
        for number, page in enumerate(reader, start=1):
            text = page.get_textpage().get_text_range()
            if text.strip():
                documents.append(Document(text=text, metadata={"file": pdf.name, "page": number}))
        reader.close()
    nodes = SentenceSplitter(chunk_size=1024, chunk_overlap=200).get_nodes_from_documents(documents)

    def tokens(text: str) -> list[str]:
        return [t for t in jieba.lcut_for_search(text.lower()) if t.strip()]

    retriever = bm25s.BM25()
    retriever.index([tokens(n.get_content()) for n in nodes], show_progress=False)
    built = time.monotonic() - started
    out: list[Ranked] = []
    for q in questions:
        ids, _ = retriever.retrieve([tokens(q.question)], k=K, show_progress=False)
        out.append([(nodes[i].metadata["file"], nodes[i].metadata["page"]) for i in ids[0]])
    return out, built


def index(settings: Settings, folder: Path) -> float:
    started = time.monotonic()
    with open_knowledge_base(settings) as kb:
        report = kb.index_paths([folder])
    if report.failed:
        print(f"indexing failed for: {report.failed}", file=sys.stderr)
    return time.monotonic() - started


def report_lines(questions: Sequence[Question], rows: Sequence[tuple[str, list[Ranked]]], notes: list[str],
                 reports: int, index_s: float | None, peer_s: float) -> list[str]:
    """The table: per retriever, gold page ±1 @10 and right report first, per half of the questions (``all`` too
    when there is more than one)."""
    halves = [h for h in ("tune", "heldout", "dev") if any(q.half == h for q in questions)]
    halves += ["all"] if len(halves) > 1 else []
    lines = ["# Retrieval over many annual reports in one knowledge base (bench/bench_report_retrieval.py)", "",
             f"{reports} reports in one knowledge base, {len(questions)} questions with a gold page "
             f"(`{', '.join(sorted({q.file for q in questions}))}`); default settings, right after `index` "
             "(the background model has not covered it). Cells: gold page ±1 @10; right report first.", "",
             "| retriever | " + " | ".join(f"{h} ({sum(h in ('all', q.half) for q in questions)} q)"
                                         for h in halves) + " |", "|---|" + "---|" * len(halves)]
    for label, ranked in rows:
        cells = []
        for half in halves:
            keep = [i for i, q in enumerate(questions) if half in ("all", q.half)]
            gold, first = _score([questions[i] for i in keep], [ranked[i] for i in keep])
            cells.append(f"{gold}; {first}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    timing = f"indexing {index_s:.0f} s" if index_s is not None else "index built before (`--data`)"
    lines += ["", f"Build: {timing}; the peer's pages, splitter and BM25 {peer_s:.0f} s.", *notes, ""]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dev", type=Path, default=DEV)
    parser.add_argument("--dbgpt-repo", type=Path, default=DBGPT)
    parser.add_argument("--erc-repo", type=Path, default=ERC)
    parser.add_argument("--erc", type=int, default=5, help="the N smallest round-2 reports")
    parser.add_argument("--dbgpt", type=int, default=1, help="the first N DB-GPT reports that are no dev report")
    parser.add_argument("--questions", type=Path, nargs="*", default=[])
    parser.add_argument("--reports", type=Path, help="index this folder of reports as it is (no dev set, no "
                        "mirrors), e.g. bench/results/cache/annual-reports with --questions "
                        "eval/annual/reports_tuning.jsonl eval/annual/reports_heldout.jsonl")
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench_report_retrieval"))
    parser.add_argument("--data", type=Path, help="a data folder already holding the reports of --work/kb")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "report_retrieval.md")
    args = parser.parse_args()
    if args.reports is None and not (args.dev / "questions.jsonl").exists():
        print(f"skipped: no annual-dev set at {args.dev} (questions.jsonl and its PDFs)")
        return
    folder = args.reports or args.work / "kb"
    notes = [] if args.reports else collect(folder, args.dev, args.dbgpt_repo, args.erc_repo, args.erc, args.dbgpt)
    questions = load_questions(([] if args.reports else [args.dev / "questions.jsonl"]) + list(args.questions))
    settings = load_settings().model_copy(update={"data_dir": args.data or args.work / "data"})
    index_s = None if args.data else index(settings, folder)
    runs: list[tuple[str, Callable[[], list[Ranked]]]] = [
        ("ours BM25, no company scope", lambda: ours(settings, questions, "bm25", False)),
        ("ours BM25, scoped by the company named", lambda: ours(settings, questions, "bm25", True)),
        ("ours hybrid (default), no company scope", lambda: ours(settings, questions, "hybrid", False)),
        ("ours hybrid (default), scoped by the company named", lambda: ours(settings, questions, "hybrid", True)),
    ]
    rows = [(label, run()) for label, run in runs]
    peer_ranked, peer_s = peer(folder, questions)
    rows.append(("LlamaIndex SentenceSplitter 1024/200 + bm25s over jieba (peer)", peer_ranked))
    lines = report_lines(questions, rows, notes, len(list(folder.glob("*.pdf"))), index_s, peer_s)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
