"""``officeqa ask "QUESTION" [--doc PATH] [--stream] [--json]``: answer a question with citations.

L0 routing runs first: a confident deterministic rule (extract phones, sum a column,
list an outline, ...) answers from the parsed documents with no model. Otherwise the
question goes through retrieval and the model, or — when no model can answer — an
extractive answer with a notice. Documents in scope: the ``--doc`` files, else the
files of the top retrieved chunks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from officeqa.settings import Settings
from server.cli.output import print_json_line, report_unreadable

SCOPE_DOCUMENTS = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("ask", help="Answer a question from the knowledge base, with citations.")
    p.add_argument("question", help="The question.")
    p.add_argument("--doc", action="append", default=[], metavar="PATH",
                   help="A document the question is about (repeatable); rule handlers read it directly.")
    p.add_argument("--stream", action="store_true", help="Print the model's answer as it is written.")
    p.add_argument("--json", action="store_true", help="One JSON object (with --stream: delta lines, then it).")
    p.add_argument("--mode", choices=["bm25", "dense", "hybrid"], default="hybrid", help="Retriever (default hybrid).")
    p.add_argument("--no-model", action="store_true", help="Never call the model: extractive answer.")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from indexing.knowledge_base import KnowledgeBase
    from officeqa.errors import UnreadableDocument
    from officeqa.generation import OllamaGenerator
    from retrieval.answering import AnswerPipeline, handler_material, notice_for, rule_answer
    from retrieval.search import search

    with KnowledgeBase.open(settings) as kb:
        def retrieve(query: str, k: int):
            return search(kb, query, args.mode, k)

        try:
            decision, documents = _route(args, settings, retrieve)
        except UnreadableDocument as exc:
            return report_unreadable(exc, args.json)
        extra, rule_fallback = [], None
        if decision.mode in ("answer", "handler_then_model") and documents:
            from retrieval.l0 import run_handler

            result = run_handler(decision, documents)
            rule_fallback = rule_answer(args.question, decision, result)
            if decision.mode == "answer":
                _print_answer(rule_fallback, args.json)
                return 0
            extra.append(handler_material(decision, result))

        generator = None if args.no_model else OllamaGenerator(settings.ollama)
        try:
            pipeline = AnswerPipeline(settings, retrieve, generator)
            scope = ", ".join(Path(p).name for p in args.doc)
            streamed = False
            for event in pipeline.stream(args.question, scope=scope, extra=extra, streaming=args.stream):
                if event.kind == "delta":
                    streamed = True
                    if args.json:
                        print_json_line({"delta": event.text})
                    else:
                        sys.stdout.write(event.text)
                        sys.stdout.flush()
                elif event.answer is not None:
                    answer = event.answer
                    if rule_fallback is not None and answer.mode == "extractive":
                        # no model to weigh a low-confidence rule result: show it as it is, not quoted piecemeal
                        failure = answer.metadata.get("failure") or {"kind": "no_model"}
                        rule_fallback.notice = notice_for(failure["kind"], answer.language, suffix="rule_suffix")
                        rule_fallback.metadata["failure"] = failure
                        answer = rule_fallback
                    if streamed and not args.json:
                        sys.stdout.write("\n")
                    _print_answer(answer, args.json, text_shown=streamed and answer.mode == "model")
        finally:
            if generator is not None:
                generator.close()
    return 0


def _route(args: argparse.Namespace, settings: Settings, retrieve):
    """The L0 decision and the parsed documents in scope (parsed only when a handler route needs them)."""
    from indexing.parsing import parse_file
    from retrieval.l0 import route

    paths = [Path(p) for p in args.doc]
    file_type = paths[0].suffix.lstrip(".").lower() if len(paths) == 1 else None
    documents = [parse_file(p, settings=settings.parsing) for p in paths]
    columns = [c for d in documents for b in d.blocks if b.type.value == "table" for c in b.header] or None
    decision = route(args.question, file_type=file_type, context={"columns": columns}, settings=settings)
    if decision.mode == "retrieve" or documents:
        return decision, documents
    scope_paths = list(dict.fromkeys(str(h.metadata.get("path", "")) for h in retrieve(args.question, 10)))
    documents = [parse_file(Path(p), settings=settings.parsing) for p in scope_paths[:SCOPE_DOCUMENTS] if p]
    return decision, documents


def _print_answer(answer, as_json: bool, text_shown: bool = False) -> None:
    if as_json:
        print_json_line(answer.to_json())
        return
    if answer.notice:
        print(f"[{answer.mode}] {answer.notice}")
    if not text_shown:
        print(answer.text)
    if answer.citations:
        print()
        for citation in answer.citations:
            quote = f"  “{citation.quote}”" if citation.quote else ""
            print(f"{citation.label()}{quote}")
