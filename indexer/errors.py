"""Domain errors. Their messages are written for the agent: they say what is valid.

The MCP layer turns `DeepreadError` into a tool error carrying the message;
the CLI prints it. Anything else is a bug.
"""


class DeepreadError(Exception):
    """Base class for errors whose message is meant for the caller."""


class NotFound(DeepreadError):
    """An unknown doc_id or sec_id."""


class InvalidArgument(DeepreadError):
    """An argument outside what the tool accepts (empty query, bad range)."""


class NotReady(DeepreadError):
    """The document exists but is not indexed yet, or failed."""


class ParseError(DeepreadError):
    """A file cannot be indexed; the message is the reason shown in get_toc.

    `transient`: the failure says nothing about the file (a time limit or memory ceiling hit on
    a busy machine, a parser killed, an I/O error, a file still being written), so the same bytes
    are parsed again by themselves; otherwise only a change to the file retries it."""

    def __init__(self, message: str, transient: bool = False):
        super().__init__(message)
        self.transient = transient


class ModelUnavailable(DeepreadError):
    """The embedding model cannot be loaded (missing or corrupt files, no network)."""


class IndexDamaged(DeepreadError):
    """A file of the index is damaged (`indexer.store.health`): it is set aside and rebuilt from the
    folder, since everything in the index can be made again. `name`: which one (`index.sqlite3`,
    `vectors.sqlite3`, `chroma`); `reason`: what SQLite or Chroma said."""

    def __init__(self, message: str, name: str, reason: str):
        super().__init__(message)
        self.name = name
        self.reason = reason


class CannotWrite(DeepreadError):
    """The index could not be written: a full disk, a quota, a read-only or forbidden data dir
    (`indexer.store.space`). Nothing is lost; what is indexed stays readable, and writing resumes
    once it can. `fact`: what could not be written, where, and the space free there; `remedy`:
    what lets it finish."""

    def __init__(self, fact: str, remedy: str, path: str, free: int | None, kind: str):
        super().__init__(f"{fact}; {remedy} and run the command again (what is indexed is kept)")
        self.fact = fact
        self.remedy = remedy
        self.path = path
        self.free = free
        self.kind = kind  # "full", "quota", "read-only", "denied" or "io"


# The limits and choices a person can change, as messages name them. The indexer knows
# nothing of how they are set; the server names its setting after each phrase
# (`server.settings.explain`).
FILE_SIZE_LIMIT = "the file size limit"
PARSE_TIME_LIMIT = "the parse time limit"
PARSE_MEMORY_LIMIT = "the parser's memory ceiling"
EMBEDDING_MODEL_CHOICE = "another embedding model"
RERANKER_FOLDER = "a local reranker folder"
EXCLUDE_PATTERNS = "the exclude patterns"
INCLUDE_PATTERNS = "the include patterns"

# What a process that ran out of address space says, wherever it ran out: Python, C++, the
# loader mapping a library, a BLAS or a font allocation, an import whose allocation failed before
# Python could raise (a SystemError "… without setting an exception" / "… without exception set").
OUT_OF_MEMORY_SIGNS = (
    "MemoryError",
    "without setting an exception",
    "without exception set",
    "bad_alloc",
    "Cannot allocate memory",
    "failed to map segment",
    "Memory allocation",
    "out of memory",
    "Unable to load bundled",
)
