"""Folding a document's sections to a token budget: which branches the map opens, and which it
keeps folded with the size of what they hide.

The tree is opened breadth first, shallow levels before deep ones and, at one depth, small
sibling groups before large ones: small branches are shown whole, a branch of 300 exhibit
sub-sections stays folded, and the structure that matters (parts, items, statements, notes)
survives in one answer. Back matter (signatures, appendices, a filing's exhibits) opens last.
`indexer.answers.toc` renders the result and names the call that opens each folded branch.

The map of a folder is brief (`Tree.load(..., brief=True)`): a section is its id and its title cut
short, a folded one its count; sizes and pages are in the document's own map. Every document's
top-level sections come before any document's deeper ones, and when they do not all fit, each
document gets an even share and lists its largest (`list_tops`).
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass, field

from indexer.models import SectionInfo
from indexer.store.database import DocumentRow, SectionRow, Store
from indexer.tokens import count_tokens, shorten

# Rendered cost of a section line and its marks, beyond the tokens of its title.
SECTION_LINE = 14  # [id] title | N tokens | p.A–B
HIDDEN_MARK = 22  # | +N sections: get_toc(doc_id=D, sec_id=S)
MORE_LINE = 40  # … N more sub-sections of [S] …
BRIEF_TITLE = 10  # a section's title in the map of a folder is cut to this

# Headings after which a document's back matter begins (a filing's exhibits follow its signatures).
_BACK_MATTER = re.compile(
    r"^(signatures?|exhibit index|index to exhibits|appendix|appendices|references|bibliography)\b", re.I
)


@dataclass(eq=False)
class Tree:
    """One document's sections with what the folding needs."""

    doc: DocumentRow
    sections: list[SectionInfo]
    by_id: dict[int, SectionInfo]
    size: dict[int, int]  # sections in each subtree, the section itself excluded
    cost: dict[int, int] = field(default_factory=dict)  # rendered line, without a hidden mark
    back_from: int | None = None  # the first back-matter section (Signatures, Appendix, …): opened last
    total: int = 0  # what the whole tree costs open: how large the document's map is
    mark: dict[int, int] = field(default_factory=dict)  # what each section's +N mark costs when folded
    weight: dict[int, int] = field(default_factory=dict)  # tokens of each subtree, the section's own included

    @classmethod
    def load(cls, store: Store, doc: DocumentRow, brief: bool = False) -> Tree:
        """`brief`: as the map of a folder shows it (titles cut to BRIEF_TITLE, no sizes)."""
        sections = [section_info(r, brief) for r in store.sections(doc.doc_id)]
        by_id = {s.sec_id: s for s in sections}
        for s in sections:
            if s.parent is not None and s.parent in by_id:
                by_id[s.parent].children.append(s.sec_id)
        size = {s.sec_id: 0 for s in sections}
        weight = {s.sec_id: s.n_tokens for s in sections}
        for s in reversed(sections):  # children come after their parents
            if s.parent is not None and s.parent in size:
                size[s.parent] += 1 + size[s.sec_id]
                weight[s.parent] += weight[s.sec_id]
        if brief:  # `[sec_id] title +N`, counted as rendered
            cost = {s.sec_id: count_tokens(f"[{s.sec_id}] {s.title}") for s in sections}
            mark = {s.sec_id: count_tokens(f"+{size[s.sec_id]:,}") for s in sections}
        else:
            cost = {s.sec_id: SECTION_LINE + max(count_tokens(s.title), 6) for s in sections}  # root: "(opening text)"
            mark = dict.fromkeys(size, HIDDEN_MARK)
        back = [s.sec_id for s in sections if 1 <= s.level <= 2 and _BACK_MATTER.match(s.title)]
        return cls(doc, sections, by_id, size, cost, back[0] if back else None, sum(cost.values()), mark, weight)

    def listed(self, sec_id: int) -> int:
        """What listing a section costs: its line, and its mark when it has sub-sections."""
        return self.cost[sec_id] + (self.mark[sec_id] if self.by_id[sec_id].children else 0)


@dataclass
class Unfolded:
    shown: dict[int, dict[int, int]]  # per tree (by id): shown section → descendants it hides
    cut: tuple[int, int, int] | None = None  # (section, last child listed, children left) of a partly listed top


def unfold(tops: list[tuple[Tree, int]], budget: int, max_level: int | None, after: int | None = None) -> Unfolded:
    """Open the trees breadth first within `budget` tokens.

    A section's children are shown all together or not at all (a folded section says
    `+N`), except under a single requested top section, whose children (those after
    `after`, when paging on) are listed as far as they fit.
    """
    result = Unfolded({id(t): {} for t, _ in tops})
    # (back matter?, level, document size, cost of the children, order, sec_id, tree): the body
    # before what follows its signatures or appendices (a filing's exhibits), then shallow before
    # deep, smaller documents first, small groups first. Once a group does not fit, no larger
    # document opens further: a small document is never folded while a larger one is open.
    heap: list[tuple[bool, int, int, int, int, int, Tree]] = []
    blocked: int | None = None  # the size of the smallest document a group of which did not fit
    order = 0
    single = tops[0] if len(tops) == 1 else None

    def children_of(tree: Tree, sec_id: int) -> list[int]:
        children = tree.by_id[sec_id].children
        if after is not None and single is not None and tree is single[0] and sec_id == single[1]:
            return [c for c in children if c > after]
        return children

    def offer(tree: Tree, sec_id: int) -> None:
        nonlocal order
        s = tree.by_id[sec_id]
        children = children_of(tree, sec_id)
        result.shown[id(tree)][sec_id] = sum(1 + tree.size[c] for c in children)
        if children and (max_level is None or s.level + 1 <= max_level):
            cost = sum(tree.cost[c] for c in children)
            back = tree.back_from is not None and sec_id >= tree.back_from
            heapq.heappush(heap, (back, s.level, tree.total, cost, order, sec_id, tree))
            order += 1

    for tree, top in tops:  # the callers paid for the top sections' lines
        offer(tree, top)
    while heap:
        _, _, total, cost, _, sec_id, tree = heapq.heappop(heap)
        if blocked is not None and total > blocked:
            continue
        children = children_of(tree, sec_id)
        # Opening a section drops its +N mark and adds its children, each possibly marked.
        extra = cost + sum(tree.mark[c] for c in children if tree.by_id[c].children) - tree.mark[sec_id]
        if extra <= budget:
            budget -= extra
            for c in children:
                offer(tree, c)
            result.shown[id(tree)][sec_id] = 0
        elif single is not None and tree is single[0] and sec_id == single[1]:
            listed = 0
            for c in children:  # the requested section: list its children as far as they fit (one at least)
                line = tree.listed(c)
                if listed and line > budget - MORE_LINE:
                    break
                budget -= line
                offer(tree, c)
                listed += 1
            if listed:
                result.shown[id(tree)][sec_id] = 0
                result.cut = (sec_id, children[listed - 1], len(children) - listed)
        elif len(tops) > 1:
            blocked = total if blocked is None else min(blocked, total)
    return result


def fold_folder(trees: list[Tree], budget: int, max_level: int | None) -> Unfolded:
    """The sections the map of a folder lists: breadth first (`unfold`) while every document's
    top-level sections fit, else as many of each document's as its share allows (`list_tops`)."""
    roots = [(t, 0) for t in trees if 0 in t.by_id]
    opened = unfold(roots, budget, max_level)
    if max_level == 0 or all(opened.shown[id(t)][0] == 0 for t, _ in roots):
        return opened
    return Unfolded(list_tops(trees, budget))


def list_tops(trees: list[Tree], budget: int) -> dict[int, dict[int, int]]:
    """Each document's top-level sections within `budget` tokens, in the shape `unfold` gives
    (per tree: shown section → descendants it hides). In rounds, every document lists its next
    section: its body's largest first (the most text beneath them), its back matter last. A
    document whose next section does not fit lists no more (a smaller one further down would be
    listed for its short title, not its size); the others are counted on its root (the
    document's line pays for that count)."""
    rooted = [t for t in trees if 0 in t.by_id]
    queues = {}
    for tree in rooted:
        back = tree.back_from if tree.back_from is not None else len(tree.sections)
        queues[id(tree)] = sorted(tree.by_id[0].children, key=lambda c: (c >= back, -tree.weight[c], c))
    chosen: dict[int, set[int]] = {id(t): set() for t in rooted}
    open_ = list(rooted)
    while open_:
        for tree in list(open_):
            queue = queues[id(tree)]
            if not queue or tree.listed(queue[0]) > budget:
                open_.remove(tree)
                continue
            budget -= tree.listed(queue[0])
            chosen[id(tree)].add(queue.pop(0))
    shown: dict[int, dict[int, int]] = {id(t): {} for t in trees}
    for tree in rooted:
        tops, listed = tree.by_id[0].children, chosen[id(tree)]
        shown[id(tree)][0] = sum(1 + tree.size[c] for c in tops if c not in listed)
        shown[id(tree)].update({c: tree.size[c] for c in tops if c in listed})
    return shown


def more_note(doc_id: int, sec_id: int, last: int, left: int) -> str:
    return (
        f"Section [{sec_id}] has {left:,} more sub-section(s) after [{last}] that did not fit: "
        f"get_toc(doc_id={doc_id}, sec_id={sec_id}, after={last}) lists the next ones."
    )


def ancestors(tree: Tree, sec_id: int) -> list[int]:
    path = []
    parent = tree.by_id[sec_id].parent
    while parent is not None and parent in tree.by_id:
        path.append(parent)
        parent = tree.by_id[parent].parent
    return path[::-1]


def section_info(row: SectionRow, brief: bool = False) -> SectionInfo:
    return SectionInfo(
        sec_id=row.sec_id,
        title=shorten(row.title, BRIEF_TITLE) if brief else row.title,
        level=row.level,
        parent=row.parent,
        children=[],
        n_paras=row.n_paras,
        n_tokens=row.n_tokens,
        page_start=row.page_start,
        page_end=row.page_end,
    )
