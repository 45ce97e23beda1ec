"""Where a point of a PDF page's text layer is on the page as shown, and back.

MinerU's boxes (an item's `bbox`) are 0–1000 of the page as it is shown: turned by the page's
/Rotate and cut to its crop box. PDFium's text layer is in the page's own points (its user space,
y upward), before any turn. The two agree only on an upright page whose crop box starts at
(0, 0); a landscape page stored turned, a crop box that starts elsewhere (a journal's page cut
from a larger sheet) or a media box drawn upside down (height negative) put every look-up of type
size or text in the wrong place, so the page's headings read as body text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

UNITS = 1000  # an item's box spans 0–UNITS of the shown page's width and height


@dataclass(frozen=True)
class PageFrame:
    """A page's shown area in its own points (its bounding box: the crop box within the media
    box, set right way up) and its turn clockwise (0, 90, 180 or 270)."""

    left: float
    bottom: float
    right: float
    top: float
    rotation: int

    @classmethod
    def of(cls, page: object) -> PageFrame:
        """The frame of an open pypdfium2 page."""
        left, bottom, right, top = page.get_bbox()  # type: ignore[attr-defined]
        rotation = int(page.get_rotation()) % 360  # type: ignore[attr-defined]
        return cls(min(left, right), min(bottom, top), max(left, right), max(bottom, top), rotation)

    @property
    def _turned(self) -> bool:
        return self.rotation in (90, 270)

    def to_display(self, x: float, y: float) -> tuple[float, float]:
        """A point in the page's own points → 0–UNITS across and down the page as shown."""
        width, height = self.right - self.left, self.top - self.bottom
        across, down = {
            0: (x - self.left, self.top - y),
            90: (y - self.bottom, x - self.left),
            180: (self.right - x, y - self.bottom),
            270: (self.top - y, self.right - x),
        }[self.rotation]
        shown_w, shown_h = (height, width) if self._turned else (width, height)
        return UNITS * across / (shown_w or 1), UNITS * down / (shown_h or 1)

    def to_page(self, across: float, down: float) -> tuple[float, float]:
        """0–UNITS across and down the page as shown → a point in the page's own points."""
        width, height = self.right - self.left, self.top - self.bottom
        shown_w, shown_h = (height, width) if self._turned else (width, height)
        a, d = across * shown_w / UNITS, down * shown_h / UNITS
        return {
            0: (self.left + a, self.top - d),
            90: (self.left + d, self.bottom + a),
            180: (self.right - a, self.bottom + d),
            270: (self.right - d, self.top - a),
        }[self.rotation]

    def box_to_page(self, box: Sequence[float]) -> tuple[float, float, float, float]:
        """An item's box (0–UNITS: left, top, right, bottom as shown) → (left, bottom, right, top) in
        the page's own points."""
        (x0, y0), (x1, y1) = self.to_page(box[0], box[1]), self.to_page(box[2], box[3])
        return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)

    def box_to_display(self, box: Sequence[float]) -> tuple[float, float, float, float]:
        """(left, bottom, right, top) in the page's own points → (left, top, right, bottom), 0–UNITS
        as shown."""
        (x0, y0), (x1, y1) = self.to_display(box[0], box[1]), self.to_display(box[2], box[3])
        return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)
