"""Models and stores a process loads once, whatever the number of threads and handles (issue 38).

Why: each answer thread of the server opens its own knowledge-base handle, and the router's second stage has an
embedder of its own; each loaded the USE weights again (~0.5 CPU-second each), and threads starting together
raced on the lazy slots (nine loads in one 50-client burst) and on Chroma's client cache (an error). The tests
count loads and errors; they time nothing.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from indexing.vector_store import VectorStore
from officeqa.embeddings import use
from officeqa.embeddings.use import USEEmbedder


def _together(n: int, work) -> list[BaseException]:
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        barrier.wait()
        try:
            work(i)
        except BaseException as exc:  # noqa: BLE001 - collected: the test asserts there are none
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_use_weights_load_once_for_every_embedder_and_thread() -> None:
    before = use.loads
    embedders = [USEEmbedder(threads=1 + i % 2) for i in range(8)]
    vectors: dict[int, np.ndarray] = {}
    assert _together(8, lambda i: vectors.__setitem__(i, embedders[i].embed_query("营业收入 revenue"))) == []
    assert use.loads - before <= 1  # none when an earlier test of this process loaded them
    tables = {id(e._load()._model.table) for e in embedders}
    assert len(tables) == 1  # one copy of the weights behind both thread counts
    assert all(np.array_equal(vectors[0], v) for v in vectors.values())


def test_chroma_opens_from_many_threads_at_once(tmp_path: Path) -> None:
    stores: list[VectorStore] = []
    assert _together(8, lambda _: stores.append(VectorStore(tmp_path / "chroma"))) == []
    assert len(stores) == 8 and all(s.count() == 0 for s in stores)
