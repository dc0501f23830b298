"""The officeqa CLI with the hash embedder logging every text it embeds (used by the ingestion fault test).

    python tests/integration/counting_cli.py LOG RUN officeqa-arguments...

Each embedded text is appended to LOG as ``RUN<TAB>sha1(text)``, so a test can tell which
run embedded which chunk across processes that it SIGKILLs.
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np

from officeqa import embeddings
from officeqa.embeddings import HashEmbedder


class LoggingEmbedder(HashEmbedder):
    """The hash embedder (256 dimensions unless told) appending ``RUN<TAB>sha1(text)`` to LOG for each text."""

    def __init__(self, log: str, run: str, dim: int = 256, ngram_range: tuple[int, int] = (1, 3)) -> None:
        super().__init__(dim=dim, ngram_range=ngram_range)
        self.log = log
        self.run = run

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        vectors = super().embed_batch(texts)
        lines = "".join(f"{self.run}\t{hashlib.sha1(t.encode('utf-8', 'surrogatepass')).hexdigest()}\n" for t in texts)
        with open(self.log, "a", encoding="utf-8") as fh:
            fh.write(lines)
        return vectors


if __name__ == "__main__":
    log, run = sys.argv[1], sys.argv[2]
    embeddings.create_embedder = lambda *_args, **_kwargs: LoggingEmbedder(log, run)
    from server.cli import main

    sys.exit(main(sys.argv[3:]))
