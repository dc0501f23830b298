"""Tables as data: every sheet or document table stored with typed columns and row provenance, in DuckDB.

Why DuckDB and not SQLite (both embedded, both one file; measured on the same 1,000,000-row
sheet by ``bench/bench_tables.py``): DuckDB has an exact ``DECIMAL(p,s)`` type, so sums of
money come out to the cent without the scaled-integer bookkeeping SQLite needs; its
columnar storage makes the file several times smaller and a GROUP BY with two conditions
several times faster. The cost is a file lock: one process writes at a time (an index run
and a server must not both hold the file open for writing), which this store reports as a
:class:`TableStoreError` naming the file instead of a traceback.

Layout in the file (``settings.data_dir / settings.tables.store_file``):

- ``tq_tables``: one row per stored table: document id and path, sheet/page, table
  number in the document, caption, header rows, row count, where its rows sit in the
  sheet, and its columns (name, header path, type, identifier flag) as JSON;
- ``t<table_id>``: the rows, ``_row`` (1-based data row), ``_sheet_row`` (the spreadsheet's
  row number when known exactly), ``c<i>`` typed columns and, for columns whose cells were
  not all in their typed form ("￥1,200.00", "暂无"), ``r<i>`` with the source text;
- ``tq_values``: the distinct values of text columns (up to ``value_index_limit`` per
  column), normalised, so a question's words can be linked to cell values with one scan.

Identifiers in SQL are generated here (``t12``, ``c3``), never taken from a question or a
header; values always travel as parameters.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from indexing.table_columns import PERCENT_NOTE, ColumnSpec, type_columns
from indexing.table_reads import cached_tables
from indexing.table_totals import totals_rows
from officeqa.domain import Block, BlockType, ParsedDocument
from officeqa.errors import OfficeQAError
from officeqa.normalize import normalize
from officeqa.settings import Settings

__all__ = ["ColumnInfo", "TableInfo", "TableStore", "TableStoreError", "ValueHit", "table_store_path", "value_core"]

DEFAULT_VALUE_INDEX_LIMIT = 20_000
# Trailing words a value may carry or drop: "华东区" and "华东", "北京市" and "北京".
_VALUE_SUFFIXES = ("地区", "大区", "区域", "区", "市", "省", "县", "公司", "分公司", "部", "组", "店", "门店")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS tq_tables (
        table_id BIGINT PRIMARY KEY, doc_id VARCHAR NOT NULL, path VARCHAR NOT NULL, name VARCHAR NOT NULL,
        sheet VARCHAR, page INTEGER, table_no INTEGER NOT NULL, caption VARCHAR, header_rows INTEGER NOT NULL,
        row_count BIGINT NOT NULL, first_sheet_row INTEGER, rows_exact BOOLEAN NOT NULL, columns VARCHAR NOT NULL)""",
    "CREATE SEQUENCE IF NOT EXISTS tq_table_ids START 1",
    # every document put, tables or not: what the store holds for `officeqa check` (indexing/sinks.py)
    "CREATE TABLE IF NOT EXISTS tq_documents (doc_id VARCHAR PRIMARY KEY)",
    """CREATE TABLE IF NOT EXISTS tq_values (
        table_id BIGINT NOT NULL, col INTEGER NOT NULL, value VARCHAR NOT NULL, norm VARCHAR NOT NULL,
        core VARCHAR NOT NULL, n BIGINT NOT NULL)""",
)


class TableStoreError(OfficeQAError):
    """The table store cannot be opened or written (locked by another process, unreadable file)."""


@dataclass(slots=True)
class ColumnInfo:
    """One stored column: what a question can be linked to."""

    index: int
    name: str
    path: list[str]
    kind: str  # decimal | date | timestamp | text
    identifier: str | None = None
    scale: int = 0
    granularity: str | None = None
    has_raw: bool = False
    non_empty: int = 0
    bad_cells: int = 0
    distinct: int | None = None
    indexed: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def sql(self) -> str:
        return f"c{self.index}"

    @property
    def is_percent(self) -> bool:
        """Cells written as percentages ("9.87%"), stored as fractions: shown as percentages again."""
        return PERCENT_NOTE in self.notes

    @property
    def is_measure(self) -> bool:
        """Numeric and not an identifier: may be summed, averaged, ranked."""
        return self.kind == "decimal" and self.identifier is None

    @property
    def is_date(self) -> bool:
        return self.kind in ("date", "timestamp")


@dataclass(slots=True)
class TableInfo:
    """One stored table: where it came from, its columns, how many rows."""

    table_id: int
    doc_id: str
    path: str
    name: str
    sheet: str | None
    page: int | None
    table_no: int
    caption: str | None
    header_rows: int
    row_count: int
    first_sheet_row: int | None
    rows_exact: bool
    columns: list[ColumnInfo]

    @property
    def sql(self) -> str:
        return f"t{self.table_id}"

    def to_json(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("table_id", "doc_id", "path", "name", "sheet", "page", "table_no",
                                              "caption", "row_count")}
        out["columns"] = [{"name": c.name, "kind": c.kind, **({"identifier": c.identifier} if c.identifier else {})}
                          for c in self.columns]
        return out


@dataclass(frozen=True, slots=True)
class ValueHit:
    """A distinct cell value of a text column whose normalised form occurs in a question."""

    table_id: int
    column: int
    value: str
    norm: str
    core: str
    rows: int


def table_store_path(settings: Settings) -> Path:
    """Where the table store lives: ``data_dir / tables.store_file``."""
    return Path(settings.data_dir) / settings.tables.store_file


def value_core(norm: str) -> str:
    """A normalised value without a trailing place/unit word, when what is left is still a word."""
    for suffix in _VALUE_SUFFIXES:
        if norm.endswith(suffix) and len(norm) - len(suffix) >= 2:
            return norm[: -len(suffix)]
    return norm


def _table_shape(block: Block) -> tuple[list[list[str]], list[list[str]]]:
    rows = block.rows or []
    if block.header_rows:
        return block.header_rows, rows
    return (rows[:1], rows[1:]) if rows else ([], [])


def _column_info(spec: ColumnSpec) -> ColumnInfo:
    return ColumnInfo(index=spec.index, name=spec.name, path=spec.path, kind=spec.kind, identifier=spec.identifier,
                      scale=spec.scale, granularity=spec.granularity, has_raw=spec.raw is not None,
                      non_empty=spec.non_empty, bad_cells=spec.bad_cells, notes=list(spec.notes))


class TableStore:
    """The stored tables of every indexed document; ``put`` / ``delete`` at index time, queries at question time."""

    @classmethod
    def from_settings(cls, settings: Settings, *, read_only: bool = False) -> TableStore:
        """The store under ``settings.data_dir`` (``settings.tables.store_file``)."""
        return cls(table_store_path(settings), read_only=read_only,
                   value_index_limit=settings.tables.value_index_limit)

    def __init__(self, path: str | Path, *, read_only: bool = False,
                 value_index_limit: int = DEFAULT_VALUE_INDEX_LIMIT, lock_timeout_s: float = 10.0) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.lock_timeout_s = lock_timeout_s
        self.value_index_limit = value_index_limit
        self._con: Any = None
        self._lock = threading.RLock()
        self._tables_read: dict[tuple[str, ...] | None, list[TableInfo]] = {}
        self._catalog_seen: Any = None

    # ------------------------------------------------------------ connection

    def _connect(self) -> Any:
        """The connection, opened on first use. DuckDB lets one process write a file (or several read it):
        a writer in another process (an ``index`` run beside the server) holds it for one commit, so a
        lock conflict is retried for ``lock_timeout_s`` before it becomes a one-line error."""
        if self._con is None:
            import duckdb

            if not self.read_only:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            deadline = time.monotonic() + self.lock_timeout_s
            delay = 0.05
            while True:
                try:
                    self._con = duckdb.connect(str(self.path), read_only=self.read_only)
                    break
                except duckdb.Error as exc:
                    if "lock" not in str(exc).lower() or time.monotonic() >= deadline:
                        raise TableStoreError(f"table store {self.path}: cannot be opened: {exc}") from exc
                    time.sleep(delay)
                    delay = min(delay * 2, 0.5)
            if not self.read_only:
                for statement in _SCHEMA:
                    self._con.execute(statement)
        return self._con

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None

    def __enter__(self) -> TableStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _has_catalog(self, con: Any) -> bool:
        if not self.read_only or self._catalog_seen is con:
            return True
        found = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'tq_tables'")
        if found.fetchone()[0]:
            self._catalog_seen = con  # a read-only connection's catalogue does not go away: asked once
            return True
        return False

    # ------------------------------------------------------------ writing

    def put(self, doc_id: str, path: str, document: ParsedDocument) -> list[TableInfo]:
        """Store every table of ``document`` under ``doc_id`` (replacing what the id had); returns what was stored."""
        import duckdb

        with self._lock:
            con = self._connect()
            try:
                con.execute("BEGIN TRANSACTION")
                self._delete(con, doc_id)
                stored = [info for info in self._put_tables(con, doc_id, str(path), document) if info is not None]
                con.execute("INSERT INTO tq_documents VALUES (?)", [doc_id])
                con.execute("COMMIT")
            except duckdb.Error as exc:
                con.execute("ROLLBACK")
                raise TableStoreError(f"table store {self.path}: cannot store tables of {path}: {exc}") from exc
            return stored

    def _put_tables(self, con: Any, doc_id: str, path: str, document: ParsedDocument) -> Iterable[TableInfo | None]:
        blocks = [b for b in document.blocks if b.type is BlockType.TABLE]
        per_sheet: dict[str | None, int] = {}
        for block in blocks:
            per_sheet[block.sheet] = per_sheet.get(block.sheet, 0) + 1
        seen: dict[str | None, int] = {}
        for table_no, block in enumerate(blocks, start=1):
            seen[block.sheet] = seen.get(block.sheet, 0) + 1
            name = _table_name(block, table_no, seen[block.sheet], per_sheet[block.sheet])
            yield self._put_table(con, doc_id, path, block, table_no, name)

    def _put_table(self, con: Any, doc_id: str, path: str, block: Block, table_no: int, name: str) -> TableInfo | None:
        header_rows, rows = _table_shape(block)
        dropped = totals_rows(rows)
        kept = np.array([i for i in range(len(rows)) if i not in dropped], dtype=np.int32)
        rows, totals = [rows[i] for i in kept], len(dropped)
        if not rows:
            return None
        specs = type_columns(header_rows, rows)
        n = len(rows)
        first = block.meta.get("first_row") if isinstance(block.meta.get("first_row"), int) else None
        last = block.meta.get("last_row") if isinstance(block.meta.get("last_row"), int) else None
        rows_exact = first is not None and last is not None and last - first + 1 == len(header_rows) + n + totals
        first_data = first + len(header_rows) if rows_exact and first is not None else None
        table_id = int(con.execute("SELECT nextval('tq_table_ids')").fetchone()[0])
        physical = f"t{table_id}"
        ddl = ["_row INTEGER", "_sheet_row INTEGER"]
        ddl += [f"c{s.index} {s.sql_type}" for s in specs]
        ddl += [f"r{s.index} VARCHAR" for s in specs if s.raw is not None]
        con.execute(f"CREATE TABLE {physical} ({', '.join(ddl)})")
        source: dict[str, np.ndarray] = {
            "_row": kept + 1,  # a dropped totals row keeps its place: rows are cited as the file numbers them
            "_sheet_row": (kept + first_data if first_data is not None
                           else np.full(n, None, dtype=object)),
        }
        select = ["_row", "CAST(_sheet_row AS INTEGER)"]
        for s in specs:
            source[f"c{s.index}"] = np.array(s.texts, dtype=object)
            select.append(f"CAST(c{s.index} AS {s.sql_type})")
        for s in specs:
            if s.raw is not None:
                source[f"r{s.index}"] = np.array([c or None for c in s.raw], dtype=object)
                select.append(f"r{s.index}")
        view = f"tq_load_{table_id}"
        con.register(view, source)
        try:
            con.execute(f"INSERT INTO {physical} SELECT {', '.join(select)} FROM {view}")
        finally:
            con.unregister(view)
        columns = [_column_info(s) for s in specs]
        for column in columns:
            if column.kind == "text" and column.non_empty:
                self._index_values(con, table_id, column)
        info = TableInfo(table_id=table_id, doc_id=doc_id, path=path, name=name, sheet=block.sheet, page=block.page,
                         table_no=table_no, caption=block.caption, header_rows=len(header_rows), row_count=n,
                         first_sheet_row=first_data, rows_exact=rows_exact, columns=columns)
        con.execute(
            "INSERT INTO tq_tables VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [table_id, doc_id, path, name, block.sheet, block.page, table_no, block.caption, len(header_rows), n,
             first_data, rows_exact, json.dumps([asdict(c) for c in columns], ensure_ascii=False)],
        )
        return info

    def _index_values(self, con: Any, table_id: int, column: ColumnInfo) -> None:
        col = f"c{column.index}"
        distinct = int(con.execute(f"SELECT count(DISTINCT {col}) FROM t{table_id}").fetchone()[0])
        column.distinct = distinct
        if distinct > self.value_index_limit:
            return
        rows = con.execute(f"SELECT {col}, count(*) FROM t{table_id} WHERE {col} IS NOT NULL GROUP BY {col}").fetchall()
        values = [str(v) for v, _ in rows]
        norms = [normalize(v) for v in values]
        keep = [i for i, n in enumerate(norms) if n]
        if keep:
            source = {"value": np.array([values[i] for i in keep], dtype=object),
                      "norm": np.array([norms[i] for i in keep], dtype=object),
                      "core": np.array([value_core(norms[i]) for i in keep], dtype=object),
                      "n": np.array([int(rows[i][1]) for i in keep], dtype=np.int64)}
            view = f"tq_values_load_{table_id}_{column.index}"
            con.register(view, source)  # one bulk insert: executemany costs milliseconds per row in DuckDB
            try:
                con.execute(f"INSERT INTO tq_values SELECT {table_id}, {column.index}, value, norm, core, n "
                            f"FROM {view}")
            finally:
                con.unregister(view)
        column.indexed = True

    def delete(self, doc_id: str) -> int:
        """Remove every table of ``doc_id``; returns how many were removed."""
        import duckdb

        with self._lock:
            con = self._connect()
            try:
                con.execute("BEGIN TRANSACTION")
                removed = self._delete(con, doc_id)
                con.execute("COMMIT")
            except duckdb.Error as exc:
                con.execute("ROLLBACK")
                raise TableStoreError(f"table store {self.path}: cannot delete tables of {doc_id}: {exc}") from exc
            return removed

    def _delete(self, con: Any, doc_id: str) -> int:
        ids = [int(r[0]) for r in con.execute("SELECT table_id FROM tq_tables WHERE doc_id = ?", [doc_id]).fetchall()]
        for table_id in ids:
            con.execute(f"DROP TABLE IF EXISTS t{table_id}")
            con.execute("DELETE FROM tq_values WHERE table_id = ?", [table_id])
        con.execute("DELETE FROM tq_tables WHERE doc_id = ?", [doc_id])
        con.execute("DELETE FROM tq_documents WHERE doc_id = ?", [doc_id])
        return len(ids)

    def doc_ids(self) -> set[str]:
        """Every document put (with or without tables)."""
        with self._lock:
            con = self._connect()
            found = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'tq_documents'")
            if not found.fetchone()[0]:
                return set()
            return {str(r[0]) for r in con.execute("SELECT doc_id FROM tq_documents").fetchall()}

    # ------------------------------------------------------------ reading

    def tables(self, doc_ids: Sequence[str] | None = None) -> list[TableInfo]:
        """The stored tables of these documents (all documents when None), in document and table order.

        A read-only handle (one question's) remembers each answer: a table question asks for the same documents'
        tables several times (scope, column names, the plan), and each read parsed every table's column JSON."""
        key = None if doc_ids is None else tuple(doc_ids)
        if not self.read_only:
            return self._read_tables(doc_ids)
        if key not in self._tables_read:  # and once per process and file version (indexing.table_reads)
            self._tables_read[key] = cached_tables(self.path, key, lambda: self._read_tables(doc_ids))
        return list(self._tables_read[key])

    def _read_tables(self, doc_ids: Sequence[str] | None) -> list[TableInfo]:
        with self._lock:
            con = self._connect()
            if not self._has_catalog(con):
                return []
            sql = "SELECT * FROM tq_tables"
            params: list[Any] = []
            if doc_ids is not None:
                if not doc_ids:
                    return []
                sql += f" WHERE doc_id IN ({', '.join('?' for _ in doc_ids)})"
                params = list(doc_ids)
            rows = con.execute(sql + " ORDER BY path, table_no", params).fetchall()
            names = [d[0] for d in con.description]
        return [_table_info(dict(zip(names, row, strict=True))) for row in rows]

    def values_in(self, table_ids: Sequence[int], text: str) -> list[ValueHit]:
        """Indexed cell values (or their cores) that occur in the normalised ``text``."""
        if not table_ids:
            return []
        marks = ", ".join("?" for _ in table_ids)
        sql = (f"SELECT table_id, col, value, norm, core, n FROM tq_values WHERE table_id IN ({marks}) "
               "AND (contains(?, norm) OR (length(core) >= 2 AND contains(?, core)))")
        with self._lock:
            con = self._connect()
            if not self._has_catalog(con):
                return []
            rows = con.execute(sql, [*table_ids, text, text]).fetchall()
        return [ValueHit(int(t), int(c), v, nm, core, int(n)) for t, c, v, nm, core, n in rows]

    def column_values(self, table_id: int, column: int, limit: int = 200) -> list[tuple[str, int]]:
        """The most frequent indexed values of a text column (for suggestions in a refusal)."""
        with self._lock:
            con = self._connect()
            rows = con.execute("SELECT value, n FROM tq_values WHERE table_id = ? AND col = ? ORDER BY n DESC, value "
                               "LIMIT ?", [table_id, column, limit]).fetchall()
        return [(str(v), int(n)) for v, n in rows]

    def query(self, sql: str, params: Sequence[Any] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run one read query built by ``retrieval.tables`` (generated identifiers, values as parameters)."""
        import duckdb

        with self._lock:
            con = self._connect()
            try:
                rows = con.execute(sql, list(params)).fetchall()
            except duckdb.Error as exc:
                raise TableStoreError(f"table store {self.path}: query failed: {exc}") from exc
            return [d[0] for d in con.description], rows

    def size_bytes(self) -> int:
        """Bytes on disk (the database file and its write-ahead log)."""
        wal = self.path.with_name(self.path.name + ".wal")
        return sum(p.stat().st_size for p in (self.path, wal) if p.exists())

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the file (sizes are then comparable)."""
        with self._lock:
            self._connect().execute("CHECKPOINT")


class TableSink:
    """The table store as a per-document store of the knowledge base (``indexing.sinks.DocumentSink``).

    Each call opens the DuckDB file, works and closes it again: DuckDB lets one process hold a file
    for writing, and the server, ``officeqa index`` and ``officeqa ask`` may all run at once.
    """

    name = "tables"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def put(self, doc_id: str, path: str, document: ParsedDocument) -> None:
        with TableStore.from_settings(self.settings) as store:
            store.put(doc_id, path, document)

    def delete(self, doc_id: str) -> None:
        if table_store_path(self.settings).exists():
            with TableStore.from_settings(self.settings) as store:
                store.delete(doc_id)

    def doc_ids(self) -> set[str]:
        if not table_store_path(self.settings).exists():
            return set()
        with TableStore.from_settings(self.settings, read_only=True) as store:
            return store.doc_ids()


def _table_name(block: Block, table_no: int, nth_in_sheet: int, in_sheet: int) -> str:
    if block.sheet is not None:
        return block.sheet if in_sheet == 1 else f"{block.sheet} · {block.caption or f'表{nth_in_sheet}'}"
    return block.caption or f"表{table_no}"


def _table_info(row: dict[str, Any]) -> TableInfo:
    columns = [ColumnInfo(**c) for c in json.loads(row["columns"])]
    return TableInfo(table_id=int(row["table_id"]), doc_id=row["doc_id"], path=row["path"], name=row["name"],
                     sheet=row["sheet"], page=row["page"], table_no=int(row["table_no"]), caption=row["caption"],
                     header_rows=int(row["header_rows"]), row_count=int(row["row_count"]),
                     first_sheet_row=row["first_sheet_row"], rows_exact=bool(row["rows_exact"]), columns=columns)
