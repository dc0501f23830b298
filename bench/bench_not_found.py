"""Questions nothing answers, and answerable controls, over the shared corpus with no model: is "not found" said
with nothing attached, and are answerable questions still answered?

Why: issue 36 asks that a question nothing in the knowledge base answers get "not found" with no quote and no
citation (>= 95 %), while answerable questions are wrongly "not found" at most 5 % of the time. Without a probe set
nobody knew either rate.

The knowledge base: the files of ../shared/corpus except its three huge ones (the 619-page PDF, the 872-page docx
and the xlsx that declares a million rows: they cost minutes of CPU and hold no control's answer), plus one text
file per gold paragraph of the controls drawn from ../shared/qa (XQuAD-zh, CMRC2018), indexed with the hash
embedder (no model weights) and answered with no model.

* **probes** (``bench/not_found_questions.jsonl``, written before any measurement, never tuned): *clean* when
  the answer is "not found" with no citation and no closest passage; *closest* when it is "not found" but shows
  or cites a passage; *answered* otherwise.
* **controls**: the answerable rows of ``bench/present_answers.jsonl`` (written by others over corpus files)
  and ``--per-set`` seeded questions of each gold set, one per paragraph. A control is kept only when one of
  its answers is in the indexed text of its document. *exact*: answered, quoting an answer; *refused*: "not
  found" (a wrong "not found"); *wrong*: answered without the answer.
* **before / now**: the same index answered twice, first with every closest passage shown under "not found"
  (the behaviour before ``retrieval.extractive.answer._about_else``), then as the code is (``--no-before`` skips
  the first pass).

    python bench/bench_not_found.py [--corpus DIR] [--qa DIR] [--per-set 20] [--out bench/results/not_found.md]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, TypeVar
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import retrieval.extractive.answer as extractive_answer_module
from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.answering import Answer
from retrieval.messages import MESSAGES
from retrieval.service import QuestionService

HERE = Path(__file__).resolve().parent
#: The corpus files left out (minutes of CPU each on two shared cores, no control's answer in them).
EXCLUDED = ("en_DA-619p.pdf", "en_handbook-872p.docx", "EDGE_huge-dimension_xlsx_04_inflated.xlsx")
#: Gold sets: (folder, questions file).
GOLD_SETS = (("xquad_zh", "questions.jsonl"), ("cmrc2018_dev", "questions_slice200.jsonl"))
#: The fixed lines that say "not found" (a template's text before its first placeholder).
NOT_FOUND_KEYS = ("not_found", "no_hits", "yes_no_not_found", "subject_missing", "section_absent",
                  "section_missing")
NOT_FOUND = tuple(MESSAGES[lang][key].split("{")[0] for key in NOT_FOUND_KEYS for lang in ("zh", "en"))
CLOSEST = tuple(MESSAGES[lang][key] for key in ("closest", "yes_no_closest") for lang in ("zh", "en"))


@dataclass(frozen=True, slots=True)
class Control:
    """An answerable question: its answers, the file that holds them, and where it was drawn from."""

    question: str
    answers: tuple[str, ...]
    document: str
    source: str


#: One pass: (probe rows, control rows, controls dropped).
Rows = tuple[list[tuple[str, str, str]], list[tuple[Control, str, str]], int]


def corpus_files(corpus: Path) -> list[Path]:
    return sorted(p for p in corpus.rglob("*") if p.is_file() and p.name not in EXCLUDED)


def gold_controls(qa: Path, per_set: int, seed: int) -> tuple[list[Control], dict[str, str]]:
    """``per_set`` questions of each gold set, one per paragraph, and the paragraphs as {file name: text}."""
    controls: list[Control] = []
    paragraphs: dict[str, str] = {}
    for folder, questions_file in GOLD_SETS:
        corpus = {row["id"]: row for row in _jsonl(qa / folder / "corpus.jsonl")}
        rows = _jsonl(qa / folder / questions_file)
        random.Random(seed).shuffle(rows)
        used: set[str] = set()
        for row in rows:
            doc_id = row["gold_doc_ids"][0]
            text = corpus[doc_id]["text"]
            answers = tuple(a for a in row["answers"] if a and a in text)
            if doc_id in used or not answers:
                continue
            used.add(doc_id)
            name = f"{folder}_{len(used):02d}.txt"
            paragraphs[name] = text
            controls.append(Control(row["question"], answers, name, folder))
            if len(used) == per_set:
                break
    return controls, paragraphs


def corpus_controls(names: set[str]) -> list[Control]:
    rows = _jsonl(HERE / "present_answers.jsonl")
    return [Control(r["q"], tuple(r["expect"]), r["doc"], "present_answers") for r in rows
            if r["expect"] is not None and r["doc"] in names]


def probe_verdict(answer: Answer) -> str:
    """clean / closest / answered (see the module)."""
    if not any(line in answer.text for line in NOT_FOUND):
        return "answered"
    shown = answer.citations or any(line in answer.text for line in CLOSEST)
    return "closest" if shown else "clean"


def control_verdict(answer: Answer, answers: tuple[str, ...]) -> str:
    """exact / refused / wrong; "refused+" is a refusal whose closest passage holds the answer."""
    flat = _flat(answer.text)
    held = any(_flat(a) in flat for a in answers)
    if any(line in answer.text for line in NOT_FOUND):
        return "refused+" if held else "refused"
    return "exact" if held else "wrong"


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def build(work: Path, corpus: Path, qa: Path, per_set: int, seed: int,
          embedder: str = "hash") -> tuple[Settings, list[Control], list[str]]:
    """Copies the files into ``work``/docs and indexes them; returns the settings, controls and failed files."""
    docs = work / "docs"
    docs.mkdir(parents=True)
    files = corpus_files(corpus)
    for path in files:
        shutil.copy(path, docs / path.name)
    controls, paragraphs = gold_controls(qa, per_set, seed)
    for name, text in paragraphs.items():
        (docs / name).write_text(text, encoding="utf-8")
    controls = corpus_controls({p.name for p in files}) + controls
    settings = Settings(data_dir=work / "data", embedding=EmbeddingSettings(backend=embedder))  # type: ignore[arg-type]
    with open_knowledge_base(settings) as kb:
        report = kb.index_paths([docs])
    return settings, controls, [PurePath(f.path).name for f in report.failed]


def built(work: Path, corpus: Path, qa: Path, per_set: int, seed: int,
          embedder: str = "hash") -> tuple[Settings, list[Control], list[str]]:
    """:func:`build`, or the index a previous run left in ``work`` (the controls drawn again, same seed)."""
    marker = work / "failed.json"
    if not marker.is_file():
        settings, controls, failed = build(work, corpus, qa, per_set, seed, embedder)
        marker.write_text(json.dumps(failed), encoding="utf-8")
        return settings, controls, failed
    controls, _ = gold_controls(qa, per_set, seed)
    controls = corpus_controls({p.name for p in corpus_files(corpus)}) + controls
    settings = Settings(data_dir=work / "data", embedding=EmbeddingSettings(backend=embedder))  # type: ignore[arg-type]
    return settings, controls, json.loads(marker.read_text(encoding="utf-8"))


T = TypeVar("T")


def half(rows: list[T], which: str) -> list[T]:
    """Every row, or the even-numbered ones (tuning) or the odd-numbered ones (held out)."""
    if which == "all":
        return rows
    return rows[0 if which == "tuning" else 1 :: 2]


def answer_in_index(service: QuestionService, control: Control) -> bool:
    """True when one of the control's answers is in the stored chunks of its document (as indexed)."""
    by_name = {PurePath(e.path).name: doc_id for doc_id, e in service.catalog().items()}
    doc_id = by_name.get(control.document)
    if doc_id is None:
        return False
    text = _flat("".join(t for _, t, _ in service.knowledge.chunk_texts(doc_id)))
    return any(_flat(a) in text for a in control.answers)


def measure(settings: Settings, probes: list[dict[str, Any]],
            controls: list[Control]) -> Rows:
    """(probe rows, control rows, controls dropped because their answer is not in the indexed text)."""
    probe_rows: list[tuple[str, str, str]] = []
    control_rows: list[tuple[Control, str, str]] = []
    dropped = 0
    with QuestionService.open(settings, generator=None) as service:
        for row in probes:
            answer = service.ask(str(row["q"]))
            probe_rows.append((str(row["q"]), probe_verdict(answer), _first_line(answer)))
        for control in controls:
            if not answer_in_index(service, control):
                dropped += 1
                continue
            answer = service.ask(control.question)
            control_rows.append((control, control_verdict(answer, control.answers), _first_line(answer)))
    return probe_rows, control_rows, dropped


def _first_line(answer: Answer) -> str:
    lines = [line for line in answer.text.splitlines() if line.strip()]
    shown = " / ".join(lines[:3])[:240].replace("|", "\\|")
    return f"{shown} [{len(answer.citations)} cited]"


def summary(label: str, rows: Rows) -> list[str]:
    """The rates of one pass: probes clean / closest / answered, controls exact / refused / wrong."""
    probe_rows, control_rows, dropped = rows
    probes = Counter(v for _, v, _ in probe_rows)
    controls = Counter(v.rstrip("+") for _, v, _ in control_rows)
    by_source = Counter((c.source, v.rstrip("+")) for c, v, _ in control_rows)
    held = sum(v == "refused+" for _, v, _ in control_rows)
    n_p, n_c = len(probe_rows), len(control_rows)
    return [
        f"**{label}**", "",
        f"* probes ({n_p}): clean \"not found\" (no quote, no citation) {probes['clean']} "
        f"(**{_pct(probes['clean'], n_p)}**), \"not found\" with a passage shown {probes['closest']}, "
        f"answered {probes['answered']}",
        f"* controls ({n_c}; {dropped} dropped: answer not in the indexed text): exact {controls['exact']}, "
        f"refused {controls['refused']} (wrongly \"not found\" **{_pct(controls['refused'], n_c)}**; "
        f"{held} of them show the answer as the closest passage, verdict refused+), wrong {controls['wrong']}",
        "* controls by source (exact / refused / wrong): " + "; ".join(
            f"{s} {by_source[(s, 'exact')]} / {by_source[(s, 'refused')]} / {by_source[(s, 'wrong')]}"
            for s in ("present_answers", *(f for f, _ in GOLD_SETS))),
        "",
    ]


def report(before: Rows | None, after: Rows, failed: list[str], per_set: int, embedder: str = "hash") -> str:
    earlier = {q: v for q, v, _ in before[0]} if before else {}
    earlier_controls = {c.question: v for c, v, _ in before[1]} if before else {}
    lines = [
        "# Not found with nothing attached: probes nothing answers, and answerable controls (no model)",
        "",
        "`python bench/bench_not_found.py --out bench/results/not_found.md` (see its docstring). Knowledge base: "
        f"../shared/corpus without {', '.join(EXCLUDED)}, plus {per_set} gold paragraphs each of XQuAD-zh and "
        f"the CMRC2018 slice as text files; {embedder} embedder, no model; one index, both passes. Files refused at "
        f"indexing (as the corpus intends): {', '.join(failed) or 'none'}. The probes "
        "(`bench/not_found_questions.jsonl`) were written before the first measurement and not changed since.",
        "",
        *(summary("before (a closest passage shown under \"not found\" whatever it is about)", before)
          if before else []),
        *summary("now (\"not found\" said with nothing attached)", after),
        "## Probes (now; before in brackets where it differed)", "",
        "| verdict | question | answer (first lines) |", "|---|---|---|",
        *(f"| {v}{_was(earlier.get(q), v)} | {q} | {a} |" for q, v, a in after[0]),
        "", "## Controls (now)", "", "| verdict | source | question | answer (first lines) |", "|---|---|---|---|",
        *(f"| {v}{_was(earlier_controls.get(c.question), v)} | {c.source} | {c.question} | {a} |"
          for c, v, a in after[1]),
    ]
    return "\n".join(lines) + "\n"


def _was(before: str | None, now: str) -> str:
    return f" (was {before})" if before is not None and before != now else ""


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=HERE.parents[1] / "shared" / "corpus")
    parser.add_argument("--qa", type=Path, default=HERE.parents[1] / "shared" / "qa")
    parser.add_argument("--probes", type=Path, default=HERE / "not_found_questions.jsonl")
    parser.add_argument("--per-set", type=int, default=20)
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--no-before", action="store_true", help="skip the pass with the previous behaviour")
    parser.add_argument("--work", type=Path, default=None,
                        help="keep the index in this folder and reuse it when it is there (tuning runs)")
    parser.add_argument("--embedder", choices=("hash", "use"), default="hash",
                        help="the index's embedder (hash: no weights; use: the product's offline default)")
    parser.add_argument("--half", choices=("all", "tuning", "heldout"), default="all",
                        help="ask every probe and control, or the even-numbered (tuning) or odd-numbered half")
    args = parser.parse_args()
    if not args.corpus.is_dir() or not args.qa.is_dir():
        print(f"skipped: no shared corpus at {args.corpus} or gold sets at {args.qa} (pass --corpus / --qa)")
        return 0
    with tempfile.TemporaryDirectory(prefix="officeqa-notfound-") as tmp:
        settings, controls, failed = built(args.work or Path(tmp), args.corpus, args.qa, args.per_set, args.seed,
                                         args.embedder)
        probes = half(_jsonl(args.probes), args.half)
        controls = half(controls, args.half)
        before = None
        # the previous behaviour over the same index (every closest passage shown), while the code still has the
        # switch: "not found" no longer shows passages at all, so without it there is nothing to compare
        if not args.no_before and hasattr(extractive_answer_module, "_about_else"):
            with mock.patch.object(extractive_answer_module, "_about_else", lambda *_: False):
                before = measure(settings, probes, controls)
        after = measure(settings, probes, controls)
    text = report(before, after, failed, args.per_set, args.embedder)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
