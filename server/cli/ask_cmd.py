"""``officeqa ask "QUESTION" [--doc PATH] [--stream] [--json]``: answer a question with citations.

A thin shell over :class:`retrieval.service.QuestionService` (the same path the HTTP server and
the eval harness use): it parses arguments, iterates the service's events and prints them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from officeqa.errors import ConfigurationError, RefusalKind, UnreadableDocument
from officeqa.settings import Settings
from server.cli.output import print_json_line, report_unreadable
from server.cli.preflight import FILE


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("ask", help="Answer a question from the knowledge base, with citations.")
    p.add_argument("question", help="The question.")
    p.add_argument("--doc", action="append", default=[], metavar="PATH",
                   help="A document (indexed path, file name or doc id) the question is about (repeatable).")
    p.add_argument("--history", metavar="FILE",
                   help='Earlier turns as JSON: [{"role": "user"|"assistant", "content": "..."}, ...].')
    p.add_argument("--stream", action="store_true", help="Print the model's answer as it is written.")
    p.add_argument("--json", action="store_true", help="One JSON object (with --stream: delta lines, then it).")
    p.add_argument("--mode", choices=["bm25", "dense", "hybrid"], default="hybrid", help="Retriever (default hybrid).")
    p.add_argument("--no-model", action="store_true", help="Never call the model: extractive answer.")
    p.set_defaults(handler=run, must_exist={"history": FILE}, reads_kb=_reads_only)


def _reads_only(args: argparse.Namespace) -> bool:
    """``ask`` only reads, unless ``--doc`` names a file, which it indexes first (creating the knowledge base)."""
    return not any(Path(p).is_file() for p in args.doc)


def run(args: argparse.Namespace, settings: Settings) -> int:
    from retrieval.service import QuestionService

    history = _history(args.history)
    documents = [str(Path(p).expanduser().resolve()) if Path(p).exists() else p for p in args.doc] or None
    with QuestionService.open(settings, generator=None if args.no_model else "ollama") as service:
        failed = _index_given_files(service, [Path(p) for p in documents or [] if Path(p).is_file()])
        if failed is not None:
            return report_unreadable(failed, args.json)
        streamed = False
        for event in service.answer(args.question, documents=documents, history=history, stream=args.stream,
                                    mode=args.mode):
            if event.kind == "delta":
                streamed = True
                if args.json:
                    print_json_line({"delta": event.text})
                else:
                    sys.stdout.write(event.text)
                    sys.stdout.flush()
            elif event.answer is not None:
                if streamed and not args.json:
                    sys.stdout.write("\n")
                _print_answer(event.answer, args.json, text_shown=streamed and event.answer.mode == "model")
    return 0


def _index_given_files(service: Any, files: list[Path]) -> UnreadableDocument | None:
    """``--doc FILE`` not indexed yet (or changed) is indexed first: questions read stored documents only."""
    if not files:
        return None
    report = service.kb.index_paths(files)
    kinds = {k.value: k for k in RefusalKind}
    for failure in report.failed:
        record = service.kb.registry.get(failure.path)
        if record is None or not service.kb.registry.is_indexed(record.doc_id):
            return UnreadableDocument(failure.path, kinds.get(failure.kind, RefusalKind.CORRUPT), failure.message)
    return None


def _history(path: str | None) -> list[dict[str, Any]]:
    if not path:
        return []
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(f"--history {path}: cannot read a JSON list of messages ({exc})") from exc
    if not isinstance(data, list) or not all(isinstance(m, dict) for m in data):
        raise ConfigurationError(f'--history {path}: expected [{{"role": ..., "content": ...}}, ...]')
    return data


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
            note = f"{citation.label_note}：" if citation.label_note else ""
            quote = f"  “{note}{citation.quote}”" if citation.quote else ""
            print(f"{citation.label()}{quote}")
