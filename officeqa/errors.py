"""The product's own exceptions; foreign errors are wrapped where they are caught.

    OfficeQAError
    ├── UnreadableDocument(path, kind, message)   a file that cannot be parsed
    ├── ConfigurationError                        bad settings or rule files
    ├── IndexConsistencyError                     stores disagree / mixed embedding models
    │   └── StoreDamaged(file, reason, fix)         a store file cannot be read; says which command rebuilds it
    ├── DocumentNotFound                          remove/lookup of a path or id the registry lacks
    ├── PathNotFound(path)                        a file or folder named on the command line does not exist
    ├── NoKnowledgeBase(data_dir)                 a read-only command on a data folder that holds none
    ├── ApiKeyNotFound                            `officeqa keys revoke` of an id the keys file lacks
    ├── InvalidFilter (also ValueError)           a search filter outside the field/operator whitelist
    ├── ModelUnavailable                          the Ollama server or a model cannot be reached
    │   └── GenerationError(kind, message)        no answer came; kind is a FailureKind
    ├── NotAuthenticated                          a request without a valid API key (HTTP 401)
    ├── PermissionDenied                          a valid key without the right, e.g. a read key uploading (403)
    ├── UnknownKnowledgeBase                      a knowledge base that does not exist or the key may not see (404)
    ├── StoreUnavailable                          the PostgreSQL server of storage.backend=postgres cannot be used
    └── UploadRejected(file, kind, message)       an uploaded file refused before it is stored (4xx)

One translation point per shell: the CLI maps these to exit codes, the HTTP server to
status codes. Nothing else catches ``Exception`` wholesale.
"""

from __future__ import annotations

from enum import StrEnum


class OfficeQAError(Exception):
    """Base of every error this product raises on purpose."""


class RefusalKind(StrEnum):
    """Why a document was refused; the values are a CLI/JSON contract."""

    ENCRYPTED = "encrypted"
    CORRUPT = "corrupt"
    EMPTY = "empty"
    NO_TEXT_LAYER = "no_text_layer"
    UNSUPPORTED = "unsupported"
    TOO_LARGE = "too_large"
    TIMEOUT = "timeout"


class UnreadableDocument(OfficeQAError):
    """A file the parser cannot turn into blocks, with the reason as a kind.

    ``crash`` is set (e.g. "SIGKILL", "exit code 1") when the guarded parse worker died rather than
    refused: the file may be fine, so ingestion retries it.
    """

    def __init__(self, path: str, kind: RefusalKind, message: str, crash: str | None = None) -> None:
        super().__init__(f"{path}: {kind.value}: {message}")
        self.path = str(path)
        self.kind = kind
        self.message = message
        self.crash = crash

    def to_json(self) -> dict[str, dict[str, str]]:
        """The ``{"error": {...}}`` object printed by the CLI with --json."""
        return {"error": {"file": self.path, "kind": self.kind.value, "message": self.message}}


class ConfigurationError(OfficeQAError):
    """Settings, a rule file or a template that cannot be used as given."""


class IndexConsistencyError(OfficeQAError):
    """The stores disagree, or an operation would make them disagree."""


class StoreDamaged(IndexConsistencyError):
    """A knowledge-base file (registry, vector store, BM25 index) is truncated or garbled.

    The message is one line: the file, what is wrong with it, and the command that
    rebuilds it from what survives.
    """

    def __init__(self, file: str, reason: str, fix: str) -> None:
        super().__init__(f"{file} is damaged ({reason}); {fix}")
        self.file = file
        self.reason = reason
        self.fix = fix


class ModelUnavailable(OfficeQAError):
    """A model server or model weights cannot be used right now."""


class DocumentNotFound(OfficeQAError):
    """``remove`` was given a path or id the registry does not know."""


class InvalidFilter(OfficeQAError, ValueError):
    """A filter names a field or operator outside the whitelist, or a value of the wrong type."""


class FailureKind(StrEnum):
    """Why no model answer came; the values appear in answers' metadata."""

    UNREACHABLE = "unreachable"
    MODEL_MISSING = "model_missing"
    TIMEOUT = "timeout"
    DROPPED = "connection_dropped"
    EMPTY_ANSWER = "empty_answer"
    SERVER_ERROR = "server_error"


class GenerationError(ModelUnavailable):
    """The model could not produce an answer; ``kind`` says why."""

    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(f"{kind.value}: {message}")
        self.kind = kind
        self.reason = kind.value
        self.message = message


class ApiKeyNotFound(OfficeQAError):
    """A key id the API keys file does not hold (revoke, show)."""


class NotAuthenticated(OfficeQAError):
    """API keys are configured and the request carries none, or one that is unknown or revoked."""


class PermissionDenied(OfficeQAError):
    """The key is valid but lacks the right for this action (a read key uploading or deleting)."""


class UnknownKnowledgeBase(OfficeQAError):
    """No such knowledge base for this caller: one that does not exist and one the key may not see
    look the same, so a key learns nothing about knowledge bases outside its scope."""


class UploadRejected(OfficeQAError):
    """An uploaded file refused before anything is written; ``kind`` is e.g. ``empty``, ``too_large``,
    ``unsupported``, ``bad_name``, ``too_many_files``."""

    def __init__(self, file: str, kind: str, message: str) -> None:
        super().__init__(f"{file}: {kind}: {message}")
        self.file = file
        self.kind = kind
        self.message = message
        self.problems: list[UploadRejected] = [self]  # every refused file of the request, this one first

    @classmethod
    def of(cls, problems: list[UploadRejected]) -> UploadRejected:
        """One error for a request with several refused files (nothing of it is stored)."""
        first = problems[0]
        kinds = {p.kind for p in problems}
        kind = first.kind if len(kinds) == 1 else "invalid_upload"
        message = first.message if len(problems) == 1 else f"{len(problems)} files refused; nothing was stored"
        error = cls(first.file if len(problems) == 1 else f"{len(problems)} files", kind, message)
        error.problems = list(problems)
        return error

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "kind": self.kind, "message": self.message}


class StoreUnavailable(OfficeQAError):
    """The PostgreSQL server (``storage.backend=postgres``) cannot be reached or refuses the knowledge base."""


class PathNotFound(OfficeQAError):
    """A file or folder given by the user does not exist: "not found", never a parse refusal such as corrupt."""

    def __init__(self, path: str, message: str | None = None) -> None:
        super().__init__(message or f"not found: {path}")
        self.path = path


class NoKnowledgeBase(OfficeQAError):
    """A command that only reads was pointed at a data folder with no knowledge base; it creates none."""

    def __init__(self, data_dir: str) -> None:
        super().__init__(
            f"no knowledge base in {data_dir}: run `officeqa index <folder>` to create one, "
            "or set OFFICEQA_DATA_DIR to the folder that holds it"
        )
        self.data_dir = data_dir
