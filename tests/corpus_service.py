"""Shared by the end-to-end answer tests over real files of ../shared/corpus: the files copied into a folder, really
indexed (hash embedder: no model weights), and a question service with no model over them."""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from indexing.storage import open_knowledge_base
from officeqa.settings import EmbeddingSettings, Settings
from retrieval.service import QuestionService


@contextmanager
def corpus_question_service(root: Path, corpus_dir: Path, files: Sequence[str]) -> Iterator[tuple[QuestionService,
                                                                                                   list[str]]]:
    """A no-model question service over ``files`` (paths under ``corpus_dir``) copied to ``root``/docs, and the
    names of the files that failed to index (the caller asserts which may)."""
    docs = root / "docs"
    docs.mkdir()
    for name in files:
        shutil.copy(corpus_dir / name, docs / Path(name).name)
    settings = Settings(data_dir=root / "data", embedding=EmbeddingSettings(backend="hash"))
    with open_knowledge_base(settings) as kb:
        report = kb.index_paths([docs])
    with QuestionService.open(settings, generator=None) as service:
        yield service, [Path(f.path).name for f in report.failed]
