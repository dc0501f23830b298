"""The BM25 index on disk: a snapshot file plus an append-only log, durable at every commit.

Why a log: the BM25 index lives in memory and rewriting its snapshot costs seconds at
100k chunks, so the old code saved it once, at the end of a run. A run killed after
hours kept the registry and Chroma rows of every document it had committed, but BM25
had none of them, and keyword search stayed blind to them for good. Now each commit
appends its change (chunk ids and their *tokens*, so replaying needs no tokenizer) to
``bm25.log`` and fsyncs it before the registry commit; the snapshot (``bm25``) is
rewritten only when the log has grown (it is then "folded": snapshot with a new epoch,
then a fresh log of that epoch; a log whose epoch is older than the snapshot's is
already inside it and is ignored).

Readers in other processes (``search``, the server) call :meth:`BM25Store.refresh`
when the registry's write generation moved: they read only the log records appended
since their last look, or reload the snapshot after a fold. A torn last line (a writer
killed mid-append) is ignored; a garbled record elsewhere, or a snapshot that does not
load, is reported as :class:`StoreDamaged` naming the file and the command that
rebuilds it (``officeqa check --repair``: from the texts the vector store keeps).

Tokenizer versions: the snapshot's meta records ``tokenizer``
(``officeqa.text_tokens.BM25_TOKENIZER_VERSION``; absent = 1, before English stemming; 3 folds Traditional
Chinese). A snapshot of an older version is re-termed when it is loaded (:meth:`BM25Index.with_terms`: its log
records are replayed first, in the old terms they were written in), and the next writer persists it as a new
snapshot of a new epoch before it appends anything (:meth:`BM25Store.persist_upgrade`, which
``Stores`` also calls on open when no writer is busy). A crash before that write leaves the old
snapshot and log, so the next open re-terms again; nothing indexed is lost and no record of old
terms is ever appended to a new snapshot's log, or the reverse.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from indexing.bm25_index import BM25Index
from officeqa.errors import StoreDamaged
from officeqa.text_tokens import BM25_TOKENIZER_VERSION, bm25_terms, upgrade_term

_LOG_FORMAT = "officeqa-bm25-log/1"
_FOLD_MIN_BYTES = 32 << 20  # fold once the log is above this and above the snapshot's size
log = logging.getLogger(__name__)
BM25_FIX = "run `officeqa check --repair` to rebuild it from the vector store's texts (or `officeqa reindex`)"


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


class BM25Store:
    """``bm25`` (snapshot) + ``bm25.log`` under ``data_dir``; :attr:`index` is the in-memory index."""

    def __init__(self, data_dir: str | Path) -> None:
        self.data_dir = Path(data_dir)
        self.snapshot_path = self.data_dir / "bm25"
        self.log_path = self.data_dir / "bm25.log"
        self.legacy_journal = self.data_dir / "bm25.deleted"  # written by versions before the log
        self._index: BM25Index | None = None
        self._epoch = ""
        self._snapshot_key: tuple[int, int, int] | None = None
        self._log_key: int | None = None  # inode of the log we read
        self._log_offset = 0
        self._log_epoch: str | None = None
        self._log_has_adds = False
        self._upgraded = False  # re-termed in memory from an older tokenizer, not yet written back

    # -- reading ------------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self._index is not None

    @property
    def index(self) -> BM25Index:
        if self._index is None:
            self._load()
        assert self._index is not None
        return self._index

    def _load(self) -> None:
        key = _stat_key(self.snapshot_path)
        if key is None:
            index, epoch = BM25Index(), ""
        else:
            try:
                index = BM25Index.load(self.snapshot_path)
            except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError, UnicodeDecodeError) as exc:
                raise StoreDamaged(f"the BM25 index {self.snapshot_path}", _short(exc), BM25_FIX) from exc
            epoch = str(index.meta.get("epoch", ""))
        self._index, self._epoch, self._snapshot_key = index, epoch, key
        self._log_key, self._log_offset, self._log_has_adds, self._log_epoch = None, 0, False, None
        self._upgraded = False
        if not epoch:
            # A snapshot from before the log: older versions journalled deletions in bm25.deleted.
            legacy = self.legacy_deleted_ids()
            if legacy:
                index.remove(legacy)
        self._replay()
        version = int(str(index.meta.get("tokenizer", 1))) if key is not None else BM25_TOKENIZER_VERSION
        if version < BM25_TOKENIZER_VERSION:
            self._upgrade(version)

    def _upgrade(self, version: int) -> None:
        """Re-term the loaded index (snapshot and log, both in the old terms) to the current tokenizer."""
        assert self._index is not None
        started = time.monotonic()
        log.warning("BM25 index %s: tokenizer version %d -> %d (English words stemmed, Traditional Chinese folded), "
                    "re-terming %d chunks",
                    self.snapshot_path, version, BM25_TOKENIZER_VERSION, len(self._index))
        self._index = self._index.with_terms(upgrade_term)
        self._upgraded = True
        log.warning("BM25 index %s: re-termed in %.1f s", self.snapshot_path, time.monotonic() - started)

    @property
    def upgrade_pending(self) -> bool:
        """The loaded index was re-termed from an older tokenizer and the files still hold the old terms."""
        return self._upgraded

    def persist_upgrade(self) -> bool:
        """Under the write lock: write a re-termed index back (a snapshot of a new epoch, a fresh log)."""
        if not self._upgraded:
            return False
        self._write_snapshot()
        log.warning("BM25 index %s: written with tokenizer version %d", self.snapshot_path, BM25_TOKENIZER_VERSION)
        return True

    def refresh(self) -> None:
        """Catch up with writes made by other processes (no-op when nothing changed on disk)."""
        if self._index is None:
            return
        if _stat_key(self.snapshot_path) != self._snapshot_key:
            self._load()
        else:
            self._replay()

    def _replay(self) -> None:
        """Apply log records appended since the last read (all of them after a reload)."""
        assert self._index is not None
        try:
            fh = open(self.log_path, "rb")  # noqa: SIM115 - closed below; the inode must come from this handle
        except FileNotFoundError:
            self._log_key, self._log_offset = None, 0
            return
        with fh:
            inode = os.fstat(fh.fileno()).st_ino
            if inode != self._log_key:
                self._log_key, self._log_offset = inode, 0
            fh.seek(self._log_offset)
            data = fh.read()
        if not data:
            return
        end = data.rfind(b"\n") + 1  # a torn last line (writer killed mid-append) waits or is ignored
        offset = self._log_offset
        for line in data[:end].splitlines():
            offset += len(line) + 1
            if line.strip():
                self._apply(line, offset)
        self._log_offset = offset

    def _apply(self, line: bytes, offset: int) -> None:
        assert self._index is not None
        try:
            record = json.loads(line)
            op = record["op"]
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreDamaged(
                f"the BM25 log {self.log_path}", f"unreadable record ending at byte {offset}", BM25_FIX
            ) from exc
        if op == "epoch":
            if record.get("format") != _LOG_FORMAT:
                raise StoreDamaged(f"the BM25 log {self.log_path}", "unknown log format", BM25_FIX)
            self._log_epoch = str(record.get("epoch", ""))
            return
        if self._log_epoch != self._epoch:
            return  # a log of an older epoch: already folded into the snapshot
        if op == "add":
            self._index.add_tokenized(record["ids"], record["tokens"])
            self._log_has_adds = True
        elif op == "del":
            self._index.remove(record["ids"])

    def ids(self) -> set[str]:
        return self.index.ids()

    # -- writing (the caller holds the knowledge base's write lock) ------------------------------
    def add(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        """Index chunks (replacing ids already present) and log the change durably."""
        if not ids:
            return
        tokens = [bm25_terms(text) for text in texts]
        self.index.add_tokenized(list(ids), tokens)
        self._append({"op": "add", "ids": list(ids), "tokens": tokens})
        self._log_has_adds = True

    def add_tokenized(self, ids: Sequence[str], token_lists: Sequence[Sequence[str]]) -> None:
        """:meth:`add` with the texts already turned into index terms by ``bm25_terms`` (benchmarks that
        tokenize once); tokens of another tokenizer would not meet the queries' terms."""
        if not ids:
            return
        tokens = [list(t) for t in token_lists]
        self.index.add_tokenized(list(ids), tokens)
        self._append({"op": "add", "ids": list(ids), "tokens": tokens})
        self._log_has_adds = True

    def remove(self, ids: Iterable[str]) -> int:
        """Remove chunk ids that are present; logs the removal. Returns how many were removed."""
        present = [cid for cid in ids if cid in self.index]
        if not present:
            return 0
        self.index.remove(present)
        self._append({"op": "del", "ids": present})
        return len(present)

    def _append(self, record: dict[str, object]) -> None:
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        if self._upgraded:
            # The in-memory index (this change included) is in the new terms, the files in the old ones:
            # write it whole first, so the old log (epoch of the old snapshot) is never appended to.
            self.persist_upgrade()
            return
        if self._log_key is None or self._log_epoch != self._epoch or _stat_key(self.log_path) is None:
            self._start_log()  # the caller refreshed under the write lock: no record of this epoch is lost
        with open(self.log_path, "ab") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        self._log_offset += len(line)

    def _start_log(self) -> None:
        """A fresh log of the current epoch (atomically replacing any older one)."""
        if not self._epoch:
            # A snapshot without an epoch (none yet, or written before the log existed): give it one.
            self._write_snapshot()
            return
        header = json.dumps({"op": "epoch", "format": _LOG_FORMAT, "epoch": self._epoch}) + "\n"
        tmp = self.log_path.with_name(self.log_path.name + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(header.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(self.log_path)
        self._log_key = self.log_path.stat().st_ino
        self._log_offset = len(header.encode("utf-8"))
        self._log_epoch = self._epoch
        self._log_has_adds = False

    def _write_snapshot(self) -> None:
        """Fold: the whole index to a snapshot of a new epoch, then an empty log of that epoch."""
        self._epoch = uuid.uuid4().hex[:12]
        self.index.save(self.snapshot_path, meta={"epoch": self._epoch, "tokenizer": BM25_TOKENIZER_VERSION})
        self._snapshot_key = _stat_key(self.snapshot_path)
        self._upgraded = False
        self._start_log()
        self.legacy_journal.unlink(missing_ok=True)

    def fold(self, force: bool = False) -> bool:
        """Rewrite the snapshot when the log holds added chunks (``force``) or has grown large."""
        if self._index is None:
            return False
        size = self.log_path.stat().st_size if self.log_path.exists() else 0
        snapshot = self._snapshot_key[2] if self._snapshot_key else 0
        big = size > max(_FOLD_MIN_BYTES, snapshot)
        if big or self._upgraded or (force and (self._log_has_adds or self.legacy_journal.exists())):
            self._write_snapshot()
            return True
        return False

    def reset(self) -> None:
        """Empty the index (``reindex``, or a rebuild after damage)."""
        self._index = BM25Index()
        self._write_snapshot()

    def move_aside(self, suffix: str) -> list[Path]:
        """Rename the damaged snapshot and log out of the way (kept for inspection); returns the new names."""
        moved = []
        for path in (self.snapshot_path, self.log_path, self.legacy_journal):
            if path.exists():
                target = path.with_name(f"{path.name}.{suffix}")
                path.replace(target)
                moved.append(target)
        self._index = None
        self._upgraded = False
        self._epoch = ""
        self._snapshot_key = None
        self._log_key, self._log_offset = None, 0
        return moved

    def legacy_deleted_ids(self) -> set[str]:
        """Ids deleted by older versions into ``bm25.deleted`` (folded by the next writer)."""
        if not self.legacy_journal.exists():
            return set()
        return set(self.legacy_journal.read_text(encoding="utf-8", errors="replace").split())

    def verify(self) -> None:
        """Load the files (raising :class:`StoreDamaged` when they cannot be read)."""
        if self._index is None:
            self._load()
        else:
            self.refresh()


def _short(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) < 160 else text[:157] + "..."


__all__ = ["BM25_FIX", "BM25Store"]
