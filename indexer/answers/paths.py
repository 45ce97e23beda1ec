"""How a document's path is shown: relative to its served folder, after the folder's label when
several folders are served ("notes/…", or "work/notes/…" beside "home/notes/…"); and the
documents under a folder a host names as the map writes it."""

from __future__ import annotations

from pathlib import Path

from indexer.answers.folders import in_folder
from indexer.store.database import DocumentRow, Store


def root_labels(roots: list[Path]) -> dict[str, str]:
    """Per root, the shortest tail of its path that no other root shares ("notes", or
    "work/notes" beside "home/notes")."""
    labels: dict[str, str] = {}
    for root in roots:
        for n in range(1, len(root.parts) + 1):
            tail = Path(*root.parts[-n:]).as_posix()
            if not any(other != root and Path(*other.parts[-n:]).as_posix() == tail for other in roots):
                break
        labels[str(root)] = tail.lstrip("/") or str(root)
    return labels


class ShownPaths:
    """The paths of the documents of these served folders, as the tools show them."""

    def __init__(self, roots: list[Path]):
        self.roots = roots
        self.labels = root_labels(roots)

    def of(self, doc: DocumentRow) -> str:
        """The relpath; with several roots, after the root's label (its name, or as much of its
        path as tells it from the others)."""
        return self.shown(doc.root, doc.relpath)

    def shown(self, root: str, relpath: str) -> str:
        if len(self.roots) == 1:
            return relpath
        return f"{self.labels.get(root, Path(root).name)}/{relpath}"

    def documents_under(self, store: Store, folder: str) -> list[DocumentRow]:
        """The documents whose shown path, or a copy's, is `folder` or lies under it, found by root
        and relative path in the store rather than by listing every document."""
        if len(self.roots) == 1:
            found = store.documents_under(str(self.roots[0]), folder)
        else:
            labelled = [
                (r, label) for r, label in self.labels.items() if folder == label or folder.startswith(label + "/")
            ]
            if labelled:
                root, label = labelled[0]
                found = store.documents_under(root, folder[len(label) + 1 :])
            else:  # a part of a label ("work" of "work/notes")
                found = in_folder(store.documents(), self.of, folder)
        originals = {d.copy_of for d in found if d.is_copy and d.copy_of is not None} - {d.doc_id for d in found}
        copied = [d for d in map(store.document, sorted(originals)) if d is not None]
        return [d for d in found if not d.is_copy] + copied
