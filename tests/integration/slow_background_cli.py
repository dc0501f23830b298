"""The officeqa CLI with a slow, logging background test model (used by the ``officeqa embed`` kill test).

    python tests/integration/slow_background_cli.py LOG RUN officeqa-arguments...

The background model is the ``hash`` one (``background_backend = "hash"``: 128 dimensions, 2-3 grams), slowed to
0.3 s a batch so a test can SIGKILL the process mid-run; each embedded text is appended to LOG as
``RUN<TAB>sha1(text)``, so the test can tell what each run embedded.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from counting_cli import LoggingEmbedder  # this script's folder is first on sys.path when run as a script

from officeqa import embeddings


class SlowLoggingEmbedder(LoggingEmbedder):
    """The logging hash embedder of the background model's shape, 0.3 s a batch."""

    def __init__(self, log: str, run: str) -> None:
        super().__init__(log, run, dim=128, ngram_range=(2, 3))

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        time.sleep(0.3)
        return super().embed_batch(texts)


if __name__ == "__main__":
    log, run = sys.argv[1], sys.argv[2]
    embeddings.create_background_embedder = lambda *_args, **_kwargs: SlowLoggingEmbedder(log, run)
    from server.cli import main

    sys.exit(main(sys.argv[3:]))
