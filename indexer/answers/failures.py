"""What the map says of a file that failed: why, and what brings it back (a retry, or an edit)."""

from __future__ import annotations

import time

from indexer.store.database import DocumentRow
from indexer.tokens import shorten

BRIEF_REASON_TOKENS = 24  # a kept version's failure is cut to this in the map


def retry_note(doc: DocumentRow) -> str | None:
    """When a failure that may pass (a time limit on a busy machine, a killed parser) is parsed
    again by itself; None for one that waits for the file to change."""
    if not doc.transient:
        return None
    if not doc.retries:
        return "this may pass: parsed again when the server is idle, with twice the time"
    when = time.strftime("%H:%M UTC", time.gmtime(doc.retried_at or 0))
    return f"retried {doc.retries}×, last at {when}; parsed again at the next start, or when the file is touched"


def kept_note(doc: DocumentRow) -> str | None:
    """A readable document whose file changed but whose new version failed for a reason that may
    pass: what the host reads is the previous version, and when the new one is tried again."""
    if doc.status != "ready" or not doc.reason:
        return None
    return (
        f"the file changed but its new version failed ({shorten(doc.reason, BRIEF_REASON_TOKENS)}): this is "
        f"the previous version; {retry_note(doc)}"
    )


def failure(doc: DocumentRow) -> str:
    """Why a document failed, and what brings it back."""
    return f"{doc.reason or 'unknown'} ({retry_note(doc) or PERMANENT.lower().rstrip('.')})"


PERMANENT = "Editing or replacing a failed file retries it."
