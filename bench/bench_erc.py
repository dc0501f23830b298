"""The Enterprise RAG Challenge round 2 through the question service, scored as the challenge scores it.

What it does, in one run (no model: the extractive path every deployment falls back to):

1. index the challenge's PDFs that the public snapshot holds (62 of 100; incremental, so a second
   run only refreshes the profiles) into ``bench/results/cache/erc/kb`` and fail on any file that
   does not index (a crash reported as "corrupt" is a failure of ours, not of the file);
2. ask every question of ``round2/questions.json`` through :class:`retrieval.service.QuestionService`;
3. turn each answer into a challenge answer: ``boolean`` from the yes/no verdict (``True`` for
   "Yes" with evidence, ``False`` for "No" with evidence or "Not found"; the evidence's pages cited),
   ``number`` only from an exact rule/table/fact answer (else ``N/A``), ``name``/``names`` ``N/A`` (they need
   a model); references are the cited pages (``sha1:page_index``, 0-based) of answers that state something;
4. score with the challenge's ``rank.py`` logic (ported in :func:`value_score` / :func:`ref_score`:
   G = value score, R = reference score, Score = G + R/2), on the full set and on two subsets:
   *available* (questions whose gold pages are all in the snapshot, or whose gold is N/A) and
   *answerable* (gold not N/A, all gold pages present); the same scoring applied to every
   submission of the leaderboard and to a trivial submission answering N/A to everything;
5. check scope: for each question naming a company whose report is present, whether the answer's
   scope holds that report (and only that company's); for each naming an absent one, that no other
   company's report answered it; and that no notice calls reports of different companies versions;
6. write ``bench/results/erc.md``.

The challenge's files are read from a git mirror of trustbit/enterprise-rag-challenge (``--repo``);
nothing of it is committed here.

With ``--generator fake`` the same questions go through the model path with the deterministic fake model
of ``officeqa eval --generator fake`` (:func:`eval.harness.open_generator`), and the run measures what each
prompt held (:mod:`bench.erc_prompts`): its own section of ``erc.md``, the rest of the file kept.

    python bench/bench_erc.py [--repo GIT_DIR] [--no-index | --index-only] [--no-refresh] [--limit N]
                              [--generator extractive|fake]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CACHE = ROOT / "bench" / "results" / "cache" / "erc"
OUT = ROOT / "bench" / "results" / "erc.md"
DEFAULT_REPO = Path("/work/.mirror/trustbit+enterprise-rag-challenge/repo")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
#: The challenge's answer-format instructions ("If there is no mention, return False."): for the scorer, not a
#: question a user would ask; the question is asked without them (the format is applied in to_challenge).
_FORMAT_NOTE = re.compile(r"\s*(?:If (?:there is no mention|data is not available|.{0,40}not available)[^?]*|"
                          r"Give me the title of the position\.?|\(?[Rr]eturn .{0,40}\)?\.?)\s*$")


def user_question(text: str) -> str:
    """The challenge question as a user asks it: its answer-format instructions removed."""
    out = text
    for _ in range(3):
        out = _FORMAT_NOTE.sub("", out).strip()
    return out


# ------------------------------------------------------------------------------------------ scoring (rank.py)
def value_score(kind: str, actual: str, predicted: Any) -> float:
    """rank.py ``compare``: N/A equal -> 1; number within 1 %; boolean/name equal; names Jaccard."""
    if predicted == "N/A" and actual == "N/A":
        return 1.0
    if actual == "N/A" or predicted == "N/A":
        return 0.0
    if kind == "number":
        try:
            a, p = float(actual), float(predicted)
        except (TypeError, ValueError):
            return 0.0
        return 1.0 if abs(p - a) < 0.01 * a else 0.0
    if kind in ("boolean", "name"):
        return 1.0 if str(actual).strip().lower() == str(predicted).strip().lower() else 0.0
    if kind == "names":
        predicted_list = [p.strip() for p in predicted.split(",")] if isinstance(predicted, str) else list(predicted)
        actual_names = set(str(actual).strip().lower().split(","))
        predicted_names = {str(p).strip().lower() for p in predicted_list}
        return len(actual_names & predicted_names) / len(actual_names | predicted_names)
    raise ValueError(f"unknown kind {kind}")


def ref_score(pools: list[list[str]], predicted: list[str]) -> float:
    """rank.py reference score: -0.1 per cited page outside every pool, -0.25 per pool not cited; floor 0."""
    if not pools and not predicted:
        return 1.0
    expected = {r for pool in pools for r in pool}
    score = 1.0 - 0.1 * sum(1 for p in predicted if p not in expected)
    score -= 0.25 * sum(1 for pool in pools if not set(predicted) & set(pool))
    return max(0.0, score)


@dataclass
class Scored:
    g: float = 0.0
    r: float = 0.0
    n: int = 0
    by_kind: dict[str, list[float]] = field(default_factory=dict)

    def add(self, kind: str, g: float, r: float) -> None:
        self.g, self.r, self.n = self.g + g, self.r + r, self.n + 1
        self.by_kind.setdefault(kind, []).append(g)

    def pct(self) -> tuple[float, float]:
        return (100 * self.r / self.n, 100 * self.g / self.n) if self.n else (0.0, 0.0)


def score(answers: dict[str, dict[str, Any]], gold: dict[str, dict[str, Any]], questions: list[str]) -> Scored:
    """G and R of ``answers`` (question -> {"value", "references"}) over ``questions``."""
    out = Scored()
    for q in questions:
        g = gold[q]
        a = answers.get(q, {"value": "N/A", "references": []})
        value = max(value_score(g["kind"], actual, a["value"]) for actual in g["answers"])
        out.add(g["kind"], value, ref_score(g["reference_pools"], a["references"]))
    return out


# ------------------------------------------------------------------------------------------ challenge files
def challenge_file(repo: Path, path: str) -> bytes:
    cached = CACHE / "files" / path.replace("/", "__")
    if not cached.is_file():
        data = subprocess.run(["git", f"--git-dir={repo}", "show", f"HEAD:{path}"], check=True,
                              capture_output=True).stdout
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_bytes(data)
    return cached.read_bytes()


def pdfs(repo: Path) -> list[Path]:
    """The snapshot's PDFs (files it lists but does not hold are empty there and skipped)."""
    folder = CACHE / "pdfs"
    folder.mkdir(parents=True, exist_ok=True)
    listing = subprocess.run(["git", f"--git-dir={repo}", "ls-tree", "-r", "--name-only", "HEAD", "round2/pdfs"],
                             check=True, capture_output=True, text=True).stdout.split()
    out = []
    for path in listing:
        target = folder / Path(path).name
        if not target.exists():
            try:
                data = challenge_file(repo, path)
            except subprocess.CalledProcessError:
                continue  # listed, but the snapshot does not hold its content
            if data[:4] == b"%PDF":
                target.write_bytes(data)
        if target.exists() and target.read_bytes()[:4] == b"%PDF":
            out.append(target)
    return out


def available_reports(repo: Path, files: list[Path]) -> list[Path]:
    """The reports the *available* questions need, boolean questions' first: their gold pages' PDFs and the
    reports of the companies they name (``--subset available``, for a machine where 62 PDFs take hours)."""
    questions = json.loads(challenge_file(repo, "round2/questions.json"))
    gold = json.loads(challenge_file(repo, "round2/answers.json"))
    company = {s["sha1"]: s["company_name"] for s in json.loads(challenge_file(repo, "round2/subset.json"))}
    by_stem = {p.stem: p for p in files}
    order: dict[str, int] = {}
    for item in questions:
        refs = {r.split(":")[0] for pool in gold[item["text"]]["reference_pools"] for r in pool}
        if not refs <= set(by_stem):
            continue
        named = {s for s, n in company.items() if n in item["text"] and s in by_stem}
        for stem in sorted(refs | named):
            order[stem] = min(order.get(stem, 2), 0 if item["kind"] == "boolean" else 1)
    return [by_stem[s] for s in sorted(order, key=lambda s: (order[s], s))]


def submissions(repo: Path) -> list[dict[str, Any]]:
    listing = subprocess.run(["git", f"--git-dir={repo}", "ls-tree", "-r", "--name-only", "HEAD",
                              "round2/submissions"], check=True, capture_output=True, text=True).stdout.split()
    out = []
    for path in listing:
        data = json.loads(challenge_file(repo, path))
        answers = {a["question_text"]: {"value": a.get("value", "N/A"),
                                        "references": [f"{r['pdf_sha1']}:{r['page_index']}"
                                                       for r in a.get("references") or []]}
                   for a in data.get("answers", [])}
        out.append({"name": data.get("submission_name", path), "answers": answers})
    return out


# ------------------------------------------------------------------------------------------ our answers
def to_challenge(answer: Any, kind: str) -> dict[str, Any]:
    """An officeqa answer as a challenge answer (module docstring, step 3)."""
    meta = answer.metadata
    refs = sorted({f"{Path(c.file).stem}:{c.page - 1}" for c in answer.citations if c.page})
    if kind == "boolean":
        verdict = meta.get("yes_no", {}).get("answer")
        if verdict in ("yes", "no"):  # "No" is said with its evidence sentence too: the page that states it
            return {"value": verdict == "yes", "references": refs}
        return {"value": False, "references": []}
    if kind == "number":
        facts = meta.get("report_facts") or {}
        if facts.get("kind") == "figure" and facts.get("value") is not None:
            return {"value": figure_value(str(facts["value"]), facts.get("unit")), "references": refs}
        if facts:
            return {"value": "N/A", "references": []}  # the report's facts say it is not there (or not so)
        exact = mode_exact(answer)
        numbers = _NUMBER.findall(answer.text) if exact else []
        if numbers:
            return {"value": float(numbers[0].replace(",", "")), "references": refs}
    return {"value": "N/A", "references": []}


def figure_value(value: str, unit: str | None) -> float:
    """A report-fact figure in base units ("19,970" in thousands -> 19970000.0); percentages stay as printed."""
    from indexing.reports.units import scale_of

    scale = scale_of(unit)
    return float(Decimal(value) * scale) if scale is not None else float(value)


def mode_exact(answer: Any) -> bool:
    """A rule, table or fact answer that states its value as exact (not quoted sentences)."""
    handler = answer.metadata.get("handler") or {}
    return answer.mode != "extractive" and (handler.get("outcome") == "exact" or answer.metadata.get("exact") is True)


def scope_docs(answer: Any) -> list[str]:
    docs = (answer.metadata.get("scope") or {}).get("documents") or []
    return [Path(d.get("path", "")).stem for d in docs]


# ------------------------------------------------------------------------------------------ main
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=DEFAULT_REPO, help="git dir of trustbit/enterprise-rag-challenge")
    parser.add_argument("--no-index", action="store_true", help="use the cached index as it is")
    parser.add_argument("--parse-timeout", type=float, default=1800.0, help="seconds one file may take to parse")
    parser.add_argument("--workers", type=int, default=0, help="parse worker processes (0: one per core minus one)")
    parser.add_argument("--no-refresh", action="store_true", help="keep the stored profiles and facts as they are")
    parser.add_argument("--index-only", action="store_true", help="index (and refresh profiles), ask nothing")
    parser.add_argument("--limit", type=int, default=0, help="ask only the first N questions")
    parser.add_argument("--subset", choices=("all", "available"), default="all",
                        help="index every PDF, or only the reports the available questions need (boolean first)")
    parser.add_argument("--data-dir", type=Path, default=CACHE / "kb", help="the knowledge base folder")
    parser.add_argument("--generator", choices=("extractive", "fake"), default="extractive",
                        help="no model (default), or the deterministic fake model: measures what the prompt holds")
    args = parser.parse_args()

    from bench import erc_prompts
    from eval.harness import open_generator
    from indexing.registry import FAILED
    from indexing.storage import open_knowledge_base
    from officeqa.settings import JobsSettings, ParsingSettings, Settings
    from retrieval.service import QuestionService

    # a generous parse timeout: the benchmark runs on a shared machine, where a 300-page report can take
    # longer than the 120 s a deployment allows; a timeout here is the machine's load, not a parsing failure
    settings = Settings(
        data_dir=args.data_dir,
        parsing=ParsingSettings(timeout_s=args.parse_timeout),
        jobs=JobsSettings(workers=args.workers),
    )
    files = pdfs(args.repo)
    to_index = available_reports(args.repo, files) if args.subset == "available" else files
    failed: list[str] = []
    with open_knowledge_base(settings) as kb:
        if not args.no_index:
            mark = time.monotonic()
            report = kb.index_paths(to_index)
            print(f"indexed in {time.monotonic() - mark:.0f} s: {report}", file=sys.stderr)
        status = kb.status()
        failed = [f"{Path(d.path).name}: {d.error_kind} {d.error_message}" for d in status.documents
                  if d.status == FAILED]
        if not args.no_refresh:  # facts read again by this revision's code, from the stored documents
            refreshed = kb.documents.refresh_profiles(report_facts=settings.chunking.report_facts)
            print(f"profiles refreshed: {refreshed}", file=sys.stderr)
    if args.index_only:
        print(f"failed: {failed}", file=sys.stderr)
        return 1 if failed else 0

    questions = json.loads(challenge_file(args.repo, "round2/questions.json"))
    gold = json.loads(challenge_file(args.repo, "round2/answers.json"))
    subset = json.loads(challenge_file(args.repo, "round2/subset.json"))
    company = {s["sha1"]: s["company_name"] for s in subset}
    present = {p.stem for p in files}
    if args.limit:
        questions = questions[: args.limit]

    ours: dict[str, dict[str, Any]] = {}
    rows: list[dict[str, Any]] = []
    version_notices_across = 0
    with (open_generator(args.generator, settings) as (generator, run_settings),
          QuestionService.open(run_settings, generator=generator) as service):
        indexed = {Path(e.path).stem for e in service.catalog().values()}
        for item in questions:
            text, kind = item["text"], item["kind"]
            mark = time.monotonic()
            answer = service.ask(user_question(text))
            ours[text] = to_challenge(answer, kind)
            named = [s for s, n in company.items() if n in text]
            scoped = scope_docs(answer)
            superseded = (answer.metadata.get("scope") or {}).get("superseded") or []
            subjects = {company.get(Path(s.get("path", "")).stem) for s in superseded}
            subjects |= {company.get(d) for d in scoped}
            if superseded and len({c for c in subjects if c}) > 1:
                version_notices_across += 1
            rows.append({"question": text, "kind": kind, "named": named, "scope": scoped, "answer": answer.text[:300],
                         "source": "report facts" if answer.metadata.get("report_facts") else answer.mode,
                         "value": ours[text]["value"], "gold": gold[text]["answers"],
                         "seconds": round(time.monotonic() - mark, 2), **erc_prompts.record(answer, service.kb)})

    all_q = [q["text"] for q in questions]
    refs = {q: {r.split(":")[0] for pool in gold[q]["reference_pools"] for r in pool} for q in all_q}
    # a partial index (a run stopped early) is scored on what it holds: a question about a report not indexed
    # yet is not one the system could answer
    present &= indexed
    available = [q for q in all_q if refs[q] <= present]  # N/A gold has no reference pools
    answerable = [q for q in available if gold[q]["answers"] != ["N/A"] and refs[q]]
    na_answers = {q: {"value": "N/A", "references": []} for q in all_q}
    if args.generator == "fake":
        return fake_section(rows, gold, all_q, set(answerable), {q for q in available if gold[q]["answers"] == ["N/A"]},
                            indexed, len(files))
    subs = submissions(args.repo)

    def table(qs: list[str]) -> list[str]:
        mine, na = score(ours, gold, qs), score(na_answers, gold, qs)
        others = [score(s["answers"], gold, qs).pct() for s in subs]
        med_r, med_g = statistics.median(r for r, _ in others), statistics.median(g for _, g in others)
        best = max(others, key=lambda rg: rg[1] + rg[0] / 2)
        lines = ["| submission | R | G |", "|---|---|---|"]
        for name, (r, g) in (("officeqa, no model", mine.pct()), ("trivial: N/A to everything", na.pct()),
                             (f"median of {len(subs)} submissions", (med_r, med_g)), ("best submission (R/2+G)", best)):
            lines.append(f"| {name} | {r:.1f} | {g:.1f} |")
        by_kind = ", ".join(f"{k} {sum(v):.0f}/{len(v)}" for k, v in sorted(mine.by_kind.items()))
        return [*lines, "", f"officeqa G by kind (right/asked): {by_kind}"]

    # scope: named company present -> its report in scope and no other; absent -> no other company's report
    named_present = [r for r in rows if any(s in indexed for s in r["named"])]
    scope_right = sum(1 for r in named_present
                      if set(r["scope"]) & set(r["named"]) and set(r["scope"]) <= set(r["named"]))
    named_absent = [r for r in rows if r["named"] and not any(s in indexed for s in r["named"])]
    absent_clean = sum(1 for r in named_absent if not r["scope"])
    number_na = [r for r in rows if r["kind"] == "number" and r["gold"] == ["N/A"] and r["question"] in available]
    number_na_ok = sum(1 for r in number_na if r["value"] == "N/A")
    numbers = [r for r in rows if r["kind"] == "number" and r["question"] in answerable]
    numbers_exact = [r for r in numbers if value_score("number", r["gold"][0], r["value"])]
    numbers_cited = [r for r in numbers_exact
                     if ref_score(gold[r["question"]]["reference_pools"], ours[r["question"]]["references"]) == 1.0]
    wrong_figures = [r for r in rows if r["kind"] == "number" and r["value"] != "N/A"
                     and not any(value_score("number", g, r["value"]) for g in r["gold"])]
    # issue 36: yes/no questions whose evidence pages are indexed, and whether what is cited holds the answer
    booleans = [r for r in rows if r["kind"] == "boolean" and r["question"] in answerable]
    booleans_right = [r for r in booleans if any(value_score("boolean", g, r["value"]) for g in r["gold"])]
    stated = [q for q in answerable if ours[q]["references"]]
    gold_cited = [q for q in stated if set(ours[q]["references"]) & {p for pool in gold[q]["reference_pools"]
                                                                         for p in pool}]
    by_source: dict[str, int] = {}
    for r in rows:
        if r["kind"] == "number" and r["value"] != "N/A":
            by_source[r["source"]] = by_source.get(r["source"], 0) + 1

    lines = [
        "# Enterprise RAG Challenge round 2, no model",
        "",
        f"`python bench/bench_erc.py` ({time.strftime('%Y-%m-%d')}): {len(indexed)} of the snapshot's {len(files)} "
        f"PDFs indexed (failed: {len(failed)}), {len(all_q)} questions through QuestionService with no model, "
        "scored with the challenge's rank.py logic (ported; R = reference score, G = value score). The leaderboard "
        "rows are the round's own submissions scored the same way on the same questions.",
        "",
        f"## All questions ({len(all_q)})",
        *table(all_q),
        "",
        f"## Available ({len(available)}: gold pages indexed, or gold N/A)",
        *table(available),
        "",
        f"## Answerable ({len(answerable)}: gold not N/A, gold pages indexed)",
        *table(answerable),
        "",
        "## Scope and versions",
        f"- questions naming a company whose report is indexed: the answer's scope is that report: "
        f"{scope_right}/{len(named_present)}",
        f"- questions naming a company with no report indexed: answered from no other company's report: "
        f"{absent_clean}/{len(named_absent)}",
        f"- answers whose version notice spans different companies: {version_notices_across}",
        f"- number questions with gold N/A (available): N/A given for {number_na_ok}/{len(number_na)}",
        f"- number questions (answerable): exact {len(numbers_exact)}/{len(numbers)}, exact with a gold page cited "
        f"{len(numbers_cited)}/{len(numbers)}",
        f"- yes/no questions with their evidence pages indexed: right {len(booleans_right)}/{len(booleans)}",
        f"- answerable questions answered with citations: a gold page among them {len(gold_cited)}/{len(stated)}",
        f"- a figure stated that is not the gold value (all number questions): {len(wrong_figures)}"
        + "".join(f"\n  - {r['question'][:90]}…: {r['value']} (gold {r['gold'][0]})" for r in wrong_figures),
        f"- figures stated, by source: {by_source or 'none'}",
        f"- indexing failures: {len(failed)} {failed[:5] if failed else ''}",
        "",
        "Number questions (answerable), one by one:",
        "",
        "| question | gold | officeqa | gold page cited |",
        "|---|---|---|---|",
        *[f"| {r['question'][:110]}… | {r['gold'][0]} | {r['value']} | "
          f"{'yes' if r in numbers_cited else ('no' if r in numbers_exact else '—')} |" for r in numbers],
        "",
        "Number questions are answered only from a report-fact figure (the printed value, scaled by the unit its "
        "statement prints, in the currency the question asks; or a count or dividend per share printed in a "
        "sentence, under the strict rules of retrieval/reports/prose.py) or an exact rule/table answer; a "
        "report-fact refusal (not in this report, another currency, no printed unit) is N/A. Boolean ones from "
        "the yes/no verdict.",
        "",
        "What needs a model: name and names questions (who the CEO is, which positions changed, which products "
        "launched) need one to pick a name out of quoted sentences, so they are N/A here; boolean questions need one "
        "to judge whether a passage says what is asked (without one, a passage on the topic counts as yes); number "
        "questions whose figure is a sum the report does not print (3 + 109 patents; interest income + other "
        "income as \"total revenue\"), or whose sentence does not carry the question's restricting words "
        "(\"R&D spending on advanced programs\" against \"Company-funded research expenses totaled $31.4 "
        "million\"), need one to add or to judge it.",
        *erc_prompts.keep_section(OUT),
    ]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (CACHE / "answers.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                                         encoding="utf-8")
    print("\n".join(lines))
    return 1 if failed else 0


def fake_section(rows: list[dict[str, Any]], gold: dict[str, dict[str, Any]], all_q: list[str], answerable: set[str],
                 na_questions: set[str], indexed: set[str], pdf_count: int) -> int:
    """Write the fake-model section of ``erc.md`` (what each prompt held) and the run's answers."""
    from bench import erc_prompts

    gold_pages = {q: {r for pool in gold[q]["reference_pools"] for r in pool} for q in all_q}
    how = (f"`python bench/bench_erc.py --generator fake --no-index --no-refresh` ({time.strftime('%Y-%m-%d')}): "
           f"the {len(all_q)} questions through QuestionService with the fake model of `officeqa eval --generator "
           f"fake` (eval/fake_model.py behind eval/fake_ollama.py), over the same {len(indexed)} of {pdf_count} "
           "indexed PDFs. For each answer the prompt's materials are read from its metadata (`assembly.included` "
           "chunk ids) and each chunk from the knowledge base for its document and pages. Per question: "
           "bench/results/cache/erc/answers_fake.jsonl.")
    lines = erc_prompts.section(rows, gold_pages, answerable, na_questions, indexed, how)
    erc_prompts.write_section(OUT, lines)
    (CACHE / "answers_fake.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                                              encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
