"""Logging for a server whose stdout may be the protocol: stderr and `deepread.log` in the index dir."""

from __future__ import annotations

import logging
import logging.handlers
import sys

from server.settings import Settings


def setup_logging(settings: Settings, quiet: bool) -> None:
    """Logs go to stderr and to `deepread.log` in the index dir; never to stdout."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()  # the log file's handle, when logging is set up again
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(formatter)
    stderr.setLevel(logging.ERROR if quiet else settings.log_level)
    root.addHandler(stderr)
    index_dir = settings.index_dir()
    index_dir.mkdir(parents=True, exist_ok=True)
    logfile = _LogFile(index_dir / "deepread.log", maxBytes=5_000_000, backupCount=2)
    logfile.setFormatter(formatter)
    logfile.setLevel(settings.log_level)
    root.addHandler(logfile)
    root.setLevel(settings.log_level)
    for noisy in ("httpx", "chromadb", "onnxruntime", "fastembed", "urllib3"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


class _LogFile(logging.handlers.RotatingFileHandler):
    """The log file beside the index. A line it cannot write (a full disk) is dropped: stderr has
    it, and Python's report of each failed line, a traceback, would bury the one line that says why."""

    def handleError(self, record: logging.LogRecord) -> None:
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handleError(record)


def tell(text: str) -> None:
    """A message for the person at the terminal: on stderr, never stdout, which may be the protocol."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
