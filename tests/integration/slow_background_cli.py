"""The officeqa CLI with a slow, logging background test model (used by the ``officeqa embed`` kill test).

    python tests/integration/slow_background_cli.py LOG RUN officeqa-arguments...

The background model is the ``hash`` one (``background_backend = "hash"``: 128 dimensions, 2-3 grams), slowed to
0.3 s a batch so a test can SIGKILL the process mid-run; each embedded text is appended to LOG as
``RUN<TAB>sha1(text)``, so the test can tell what each run embedded.
"""

from __future__ import annotations

import hashlib
import sys
import time

import numpy as np

from officeqa import embeddings
from officeqa.embeddings import HashEmbedder


class SlowLoggingEmbedder(HashEmbedder):
    def __init__(self, log: str, run: str) -> None:
        super().__init__(dim=128, ngram_range=(2, 3))
        self.log = log
        self.run = run

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        time.sleep(0.3)
        vectors = super().embed_batch(texts)
        lines = "".join(f"{self.run}\t{hashlib.sha1(t.encode('utf-8', 'surrogatepass')).hexdigest()}\n" for t in texts)
        with open(self.log, "a", encoding="utf-8") as fh:
            fh.write(lines)
        return vectors


if __name__ == "__main__":
    log, run = sys.argv[1], sys.argv[2]
    embeddings.create_background_embedder = lambda *_args, **_kwargs: SlowLoggingEmbedder(log, run)
    from server.cli import main

    sys.exit(main(sys.argv[3:]))
