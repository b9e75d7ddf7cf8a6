"""The graph's drawn pieces: one self-painting item per node and per edge.

Items paint themselves instead of carrying child text items: at 10,000 nodes a text child per
node makes a fit-all repaint several times slower, and text too small to read is not drawn at
all (the painter's level of detail decides).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

from engine.tensor_format import format_values

# Node sizes in scene units (pixels at 100 % zoom).
TENSOR_SIZE = (168.0, 58.0)
FUNCTION_SIZE = (150.0, 30.0)
ACCUMULATE_SIZE = (150.0, 26.0)
GROUP_SIZE = (180.0, 40.0)
LOD_TEXT = 0.35  # below this zoom, text would be unreadable: draw shapes only
LOD_DETAIL = 0.6  # below this zoom, only the node's title is drawn (in a big graph)
SMALL_GRAPH = 60  # nodes: a graph this small keeps its values and grad labels down to LOD_TEXT
SMALL_TENSOR = 6  # tensors with at most this many elements show their values
LABEL_POINT_SIZE = 8.0  # an edge's grad label
LABEL_HEIGHT = 18.0


@dataclass(frozen=True)
class GraphColours:
    """The graph's palette for one theme."""

    background: QColor
    text: QColor
    dim_text: QColor
    edge: QColor
    leaf_fill: QColor
    leaf_border: QColor
    nonleaf_fill: QColor
    nonleaf_border: QColor
    nograd_fill: QColor
    nograd_border: QColor
    retains: QColor
    function_fill: QColor
    function_border: QColor
    accumulate_fill: QColor
    accumulate_border: QColor
    group_fill: QColor
    executing: QColor
    executing_fill: QColor
    covered: QColor
    grad_text: QColor
    selection: QColor


# Each colour: (light theme, dark theme).
_COLOURS = {
    "background": ("#fbfbfd", "#1e1f22"),
    "text": ("#1f2328", "#e6edf3"),
    "dim_text": ("#59636e", "#9da7b3"),
    "edge": ("#8c959f", "#6e7681"),
    "leaf_fill": ("#dff5e3", "#1c3a27"),
    "leaf_border": ("#2da44e", "#3fb950"),
    "nonleaf_fill": ("#ddeaff", "#1b2e4b"),
    "nonleaf_border": ("#3c7fd4", "#58a6ff"),
    "nograd_fill": ("#f1f1f1", "#2b2d31"),
    "nograd_border": ("#9a9a9a", "#8b949e"),
    "retains": ("#bf8700", "#e3b341"),
    "function_fill": ("#efe6fb", "#2e2544"),
    "function_border": ("#8250df", "#bc8cff"),
    "accumulate_fill": ("#e2f3f2", "#163436"),
    "accumulate_border": ("#1b7c83", "#39c5cf"),
    "group_fill": ("#fff1e5", "#3a2a1a"),
    "executing": ("#fb8500", "#ffa657"),
    "executing_fill": ("#ffd8a8", "#5a3510"),  # the running node is filled, not just outlined
    "covered": ("#e36209", "#f0883e"),
    "grad_text": ("#b35900", "#ffa657"),
    "selection": ("#0969da", "#58a6ff"),
}
LIGHT = GraphColours(**{k: QColor(light) for k, (light, _) in _COLOURS.items()})
DARK = GraphColours(**{k: QColor(dark) for k, (_, dark) in _COLOURS.items()})


def edge_carried(attrs: dict) -> bool:
    """Whether a gradient crossed the edge: its own, or (a folded box's merged edge, whose
    ``grad`` is None when the members' shapes differ) one of those it stands for."""
    if attrs.get("grad") is not None:
        return True
    return any(g is not None for g in attrs.get("grads") or ())


def detail_lod(node_count: int) -> float:
    """The zoom from which a graph of ``node_count`` boxes draws values and edge labels: a
    small graph fitted into a small window (0.56 at 1280x720) keeps its teaching content, a
    big one draws only titles until zoomed in."""
    return LOD_TEXT if node_count <= SMALL_GRAPH else LOD_DETAIL


def _detail_shown(item: QGraphicsItem, lod: float) -> bool:
    # The view sets its scene's detail_lod for the graph it shows (detail_lod above).
    return lod >= getattr(item.scene(), "detail_lod", LOD_DETAIL)


def tensor_category(attrs: dict) -> str:
    """Which legend entry a tensor node belongs to."""
    if not attrs.get("requires_grad"):
        return "nograd"
    if attrs.get("is_leaf"):
        return "leaf"
    return "retains" if attrs.get("retains_grad") else "nonleaf"


def format_array(array, *, limit: int = SMALL_TENSOR) -> str:
    """A short rendering of an array for a node or an edge: values when small (as PyTorch
    prints them, ``[0.8490, 0.9141]``, on one line), else the norm."""
    if array is None:
        return "None"
    a = np.asarray(array)
    if a.size <= limit:
        if a.size == 0:
            return "[]"
        return " ".join(line.strip() for line in format_values(a, 0).splitlines())
    # The norm summarises a big tensor on one line; the inspector shows the values.
    with np.errstate(all="ignore"):
        norm = float(np.linalg.norm(a.astype(np.float64).ravel()))
    return f"‖·‖={norm:.4g}"


def shape_text(shape) -> str:
    if shape is None:
        return ""
    shape = tuple(shape)
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _box(w: float, h: float) -> tuple:
    rect = QRectF(-w / 2, -h / 2, w, h)
    path = QPainterPath()
    path.addRect(rect)
    return rect, rect.adjusted(-4, -4, 4, 4), path, (w / 2, h / 2)


_BOXES = {
    "tensor": _box(*TENSOR_SIZE),
    "tensor-short": _box(TENSOR_SIZE[0], TENSOR_SIZE[1] - 14),  # no value row
    "accumulate": _box(*ACCUMULATE_SIZE),
    "group": _box(*GROUP_SIZE),
    "function": _box(*FUNCTION_SIZE),
}


def _box_kind(attrs: dict) -> str:
    kind = attrs.get("kind")
    if kind == "tensor":
        value = attrs.get("value")
        return "tensor" if value is not None and np.size(value) <= SMALL_TENSOR else "tensor-short"
    return kind if kind in ("accumulate", "group") else "function"


def node_half(attrs: dict) -> tuple[float, float]:
    """Half the width and height of the box a node of ``attrs`` is drawn as."""
    return _BOXES[_box_kind(attrs)][3]


def fill_and_border(attrs: dict, c: GraphColours) -> tuple[QColor, QColor, bool]:
    """A node's fill, border and whether the border is dashed."""
    kind = attrs.get("kind")
    if kind == "tensor":
        category = tensor_category(attrs)
        if category == "leaf":
            return c.leaf_fill, c.leaf_border, False
        if category == "nograd":
            return c.nograd_fill, c.nograd_border, True
        if category == "retains":
            return c.nonleaf_fill, c.retains, False
        return c.nonleaf_fill, c.nonleaf_border, False
    if kind == "accumulate":
        return c.accumulate_fill, c.accumulate_border, False
    if kind == "group":
        return c.group_fill, c.covered, False
    return c.function_fill, c.function_border, False


def far_colour(attrs: dict, c: GraphColours, executing: bool = False) -> QColor:
    """The one colour that stands for a node when it is a few pixels wide."""
    if executing:
        return c.executing
    if attrs.get("executed"):
        return c.covered
    return fill_and_border(attrs, c)[1]


@dataclass(frozen=True)
class NodeStyle:
    """How a node's box is drawn: ``halo`` rings the running node, so that it stands apart
    from the nodes that already ran (their border has the flowed edges' colour)."""

    fill: QColor
    border: QColor
    width: float
    dashed: bool
    halo: bool


def node_style(attrs: dict, c: GraphColours, *, executing: bool = False,
               selected: bool = False) -> NodeStyle:
    fill, border, dashed = fill_and_border(attrs, c)
    width, halo = 1.4, False
    if executing:
        fill, border, width, halo = c.executing_fill, c.executing, 3.0, True
    elif attrs.get("executed"):
        border, width = c.covered, 2.4
    if selected:
        border, width = c.selection, 3.2
    return NodeStyle(fill, border, width, dashed, halo)


_FONTS: dict = {}


def _fonts(painter, point_size: float) -> tuple[QFont, QFont]:
    """(normal, bold) at ``point_size``, from the painter's font: made once, not per paint."""
    base = painter.font()
    key = (base.key(), point_size)
    fonts = _FONTS.get(key)
    if fonts is None:
        normal = QFont(base)
        normal.setPointSizeF(point_size)
        normal.setBold(False)
        bold = QFont(normal)
        bold.setBold(True)
        fonts = _FONTS[key] = (normal, bold)
    return fonts


_SELECTABLE = QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
_EXPOSED_RECT = QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption


class NodeItem(QGraphicsItem):
    """One graph node; paints its box and, when zoomed in enough, its text."""

    def __init__(self, node_id: str, attrs: dict, colours: GraphColours,
                 parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        self.node_id = node_id
        self.colours = colours
        self.executing = False
        self.search_hit = False
        self.xy = (0.0, 0.0)  # the position as plain floats (edges read it while building)
        self.setFlags(_SELECTABLE)  # (the only flag: setFlags skips a read-modify-write)
        self.set_attrs(attrs)

    def place(self, x: float, y: float) -> None:
        self.xy = (x, y)
        self.setPos(x, y)

    def set_attrs(self, attrs: dict) -> None:
        self.attrs = attrs
        # Boxes of one kind share their (never mutated) rectangles: nothing is built per node.
        self._rect, self._bounds, self._path, self.half = _BOXES[_box_kind(attrs)]
        # Text rows and the tooltip are formatted when first needed: numpy's array printing
        # costs more than the whole item, and most nodes are never drawn close enough to read.
        self._text = None
        self._elided = None

    @property
    def _lines(self) -> list[tuple[str, str]]:
        if self._text is None:
            self._text = self._text_lines(self.attrs)
        return self._text

    def tooltip_text(self) -> str:
        return self._tooltip(self.attrs)

    def _text_lines(self, attrs: dict) -> list[tuple[str, str]]:
        """(style, text) rows: "title", "detail", "value", "grad"."""
        kind = attrs.get("kind")
        if kind == "tensor":
            title = attrs.get("name") or attrs.get("label") or "tensor"
            rows = [("title", f"{title}  {shape_text(attrs.get('shape'))}")]
            value = attrs.get("value")
            if value is not None and np.size(value) <= SMALL_TENSOR:
                rows.append(("value", format_array(value)))
            if attrs.get("requires_grad") and (attrs.get("is_leaf") or attrs.get("retains_grad")):
                rows.append(("grad", "grad " + format_array(attrs.get("grad"))))
            elif attrs.get("requires_grad"):
                rows.append(("detail", "grad not kept (non-leaf)"))
            else:
                rows.append(("detail", "requires_grad=False"))
            return rows
        if kind == "group":
            size = len(attrs.get("members") or ())
            return [("title", f"▸ {attrs.get('label', 'group')}"),
                    ("detail", f"{size} nodes folded · double-click to open")]
        return [("title", attrs.get("label", "?"))]

    @staticmethod
    def _tooltip(attrs: dict) -> str:
        kind = attrs.get("kind")
        if kind == "tensor":
            return (f"{attrs.get('name') or 'tensor'}: shape {shape_text(attrs.get('shape'))}, "
                    f"{attrs.get('dtype')}, is_leaf={attrs.get('is_leaf')}, "
                    f"requires_grad={attrs.get('requires_grad')}")
        return attrs.get("node_name") or attrs.get("label", "")

    # -- QGraphicsItem -----------------------------------------------------------------------------
    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        return self._path

    def paint(self, painter, option, widget=None) -> None:
        c = self.colours
        attrs = self.attrs
        kind = attrs.get("kind")
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        style = node_style(attrs, c, executing=self.executing, selected=self.isSelected())
        border = style.border
        if style.halo:
            # within the item's bounds (4 units around the box), or repaints would leave trails
            ring = QColor(style.border)
            ring.setAlpha(120)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(ring)
            painter.drawRoundedRect(self._rect.adjusted(-4, -4, 4, 4), 8.0, 8.0)
        pen = QPen(border, style.width)
        if style.dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(style.fill)
        if lod < LOD_TEXT:
            # Far away: a filled box in the border's colour, no pen, no antialiasing.
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.fillRect(self._rect, border)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        radius = 12.0 if kind == "function" else 5.0
        painter.drawRoundedRect(self._rect, radius, radius)
        if kind == "tensor" and attrs.get("retains_grad") and attrs.get("requires_grad"):
            # A gold stripe: this non-leaf keeps its .grad because retain_grad() was called.
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(c.retains)
            painter.drawRect(QRectF(self._rect.left() + 1, self._rect.top() + 1, 6,
                                    self._rect.height() - 2))
        if self.search_hit:
            painter.setPen(QPen(c.selection, 2.0, Qt.PenStyle.DotLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(self._rect.adjusted(-3, -3, 3, 3), radius, radius)
        self._paint_text(painter, lod)

    def rows_at(self, lod: float) -> list[tuple[str, str]]:
        """The (style, text) rows drawn at zoom ``lod``: all, or the title only."""
        lines = self._lines
        return lines if _detail_shown(self, lod) else lines[:1]

    def _paint_text(self, painter, lod: float) -> None:
        c = self.colours
        normal, bold = _fonts(painter, 8.5)
        lines = self._lines
        rect = self._rect.adjusted(10, 3, -6, -3)
        elided = self._elided
        if elided is None:
            # Elided once per text (the box's width never changes), not on every paint.
            elided = []
            for style, text in lines:
                painter.setFont(bold if style == "title" else normal)
                elided.append(painter.fontMetrics().elidedText(
                    text, Qt.TextElideMode.ElideRight, int(rect.width())))
            self._elided = elided
        rows = self.rows_at(lod)
        row_height = rect.height() / max(1, len(rows))
        align = Qt.AlignmentFlag.AlignVCenter | (
            Qt.AlignmentFlag.AlignLeft if self.attrs.get("kind") in ("tensor", "group")
            else Qt.AlignmentFlag.AlignHCenter)
        for i, (style, text) in enumerate(rows):
            painter.setFont(bold if style == "title" else normal)
            painter.setPen(c.grad_text if style == "grad" and "None" not in text
                           else c.dim_text if style in ("detail", "grad") else c.text)
            row = QRectF(rect.left(), rect.top() + i * row_height, rect.width(), row_height)
            painter.drawText(row, align, elided[i])


def _port(x: float, y: float, half: tuple, toward: tuple) -> tuple[float, float]:
    """Where an edge leaves (or enters) the box centred at (x, y) on its way to ``toward``:
    the bottom or the top when that point is below or above (a wrapped layout's bands run
    down and up in turn), else the side facing it."""
    hw, hh = half
    tx, ty = toward
    if ty > y + hh:
        return x, y + hh
    if ty < y - hh:
        return x, y - hh
    return (x + hw, y) if tx >= x else (x - hw, y)


class EdgeItem(QGraphicsItem):
    """A forward edge (input → op → output) and, after backward, the gradient it carried."""

    def __init__(self, source: NodeItem, target: NodeItem, attrs: dict,
                 colours: GraphColours, bends=(), parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        self.source_id = source.node_id
        self.target_id = target.node_id
        self.colours = colours
        # (The edge layer is below the node layer: no z value of its own is needed.)
        self.points = None
        self.label_place = None  # set by the view (engine.graph.labels), once labels show
        self.set_attrs(attrs)
        self.set_geometry(source, target, bends)

    def set_geometry(self, source: NodeItem, target: NodeItem, bends=()) -> None:
        """From the bottom of the source to the top of the target (the layout runs downwards),
        through the layout's bend points where a long edge crosses other layers."""
        if self.points is not None:
            self.prepareGeometryChange()  # (a new item is in no scene yet: nothing to tell)
        ax, ay = source.xy
        bx, by = target.xy
        sx, sy = _port(ax, ay, source.half, bends[0] if bends else (bx, by))
        ex, ey = _port(bx, by, target.half, bends[-1] if bends else (ax, ay))
        # Plain floats: at 10,000 edges, building QPointF lists dominates the scene's build.
        if bends:
            self.points = [(sx, sy), *bends, (ex, ey)]
            # option.exposedRect is then the part to repaint, which paint() uses to skip
            # segments; a straight edge needs no exposed rectangle.
            self.setFlag(_EXPOSED_RECT)
        else:
            self.points = [(sx, sy), (ex, ey)]
        self._line = None  # the last segment (it carries the arrowhead), made when painted
        self._head = None  # the arrowhead's triangle, made when first painted
        self.path = None
        self._update_bounds()

    @property
    def line(self) -> QLineF:
        if self._line is None:
            (px, py), (ex, ey) = self.points[-2], self.points[-1]
            self._line = QLineF(px, py, ex, ey)
        return self._line

    def label_anchor(self) -> tuple[float, float]:
        """The middle of the edge, where its grad label goes until the view places it."""
        points = self.points
        if len(points) > 2:
            return points[len(points) // 2]
        (x0, y0), (x1, y1) = points[0], points[-1]
        return (x0 + x1) / 2, (y0 + y1) / 2

    def set_label_place(self, place) -> None:
        """Where the view put the grad label (``engine.graph.labels.LabelPlace``, or None)."""
        if place != self.label_place:
            if self.scene() is not None:
                self.prepareGeometryChange()
            self.label_place = place
            self._update_bounds()

    def label_rect(self, width: float) -> QRectF:
        """The label's box: the placed one, else ``width`` wide beside the edge's middle, on
        the side it leans to."""
        place = self.label_place
        if place is not None:
            left, top, right, bottom = place.box
            return QRectF(left, top, right - left, bottom - top)
        mx, my = self.label_anchor()
        (x0, _y0), (x1, _y1) = self.points[0], self.points[-1]
        left = x1 < x0 - 1
        return QRectF(mx - 6 - width if left else mx + 6, my - LABEL_HEIGHT / 2, width,
                      LABEL_HEIGHT)

    def _update_bounds(self) -> None:
        points = self.points
        if len(points) == 2:
            (x0, y0), (x1, y1) = points
            left, right = (x0, x1) if x0 < x1 else (x1, x0)
            top, bottom = (y0, y1) if y0 < y1 else (y1, y0)
        else:
            xs, ys = zip(*points)
            left, right, top, bottom = min(xs), max(xs), min(ys), max(ys)
        left, top, right, bottom = left - 10, top - 10, right + 10, bottom + 10
        if self.carried:
            # The grad label: its placed box, else the reach of one beside the middle.
            place = self.label_place
            if place is not None:
                x0, y0, x1, y1 = place.box
            else:
                mx, my = self.label_anchor()
                x0, y0, x1, y1 = mx - 330, my - 11, mx + 330, my + 11
            left, top = min(left, x0 - 2), min(top, y0 - 2)
            right, bottom = max(right, x1 + 2), max(bottom, y1 + 2)
        self._bounds = QRectF(left, top, right - left, bottom - top)

    def _visible_segments(self, exposed: QRectF) -> list[QLineF]:
        """The polyline's segments whose boxes meet ``exposed`` (a long edge through 300 layers
        has 300 segments, and only a few are on screen)."""
        left, top = exposed.left() - 2, exposed.top() - 2
        right, bottom = exposed.right() + 2, exposed.bottom() + 2
        points = self.points
        ys = self.path
        if ys is None:
            ys = [y for _x, y in points]
            # Downward edges (all but odd ones) bend layer by layer: y never decreases, and
            # the segments in a horizontal band are found by bisection.
            monotonic = all(a <= b for a, b in zip(ys, ys[1:]))
            ys = self.path = ys if monotonic else False
        if ys is False:
            first, last = 0, len(points) - 2
        else:
            first = max(0, bisect_left(ys, top) - 1)  # the first segment ending at or below top
            last = min(len(points) - 2, bisect_right(ys, bottom) - 1)  # the last starting above
        lines = []
        for i in range(first, last + 1):
            (x0, y0), (x1, y1) = points[i], points[i + 1]
            if ((x0 if x0 > x1 else x1) >= left and (x0 if x0 < x1 else x1) <= right
                    and (y0 if y0 > y1 else y1) >= top and (y0 if y0 < y1 else y1) <= bottom):
                lines.append(QLineF(x0, y0, x1, y1))
        return lines

    def set_attrs(self, attrs: dict) -> None:
        self.attrs = attrs
        was_carried = getattr(self, "carried", None)
        self.carried = edge_carried(attrs)
        if self.points is not None and was_carried != self.carried:
            self.prepareGeometryChange()
            self._update_bounds()
        self._label = None  # formatted when first read (most labels are never drawn)
        self._label_width = None  # (text, its width), measured when first drawn

    def label_text(self) -> str:
        """What the label reads (its box is measured from this)."""
        return f"◂ grad {self.label}"

    @property
    def label(self) -> str:
        if self._label is None:
            self._label = self._format_label(self.attrs) if self.carried else ""
        return self._label

    @staticmethod
    def _format_label(attrs: dict) -> str:
        count = attrs.get("count") or 1
        parts = [g for g in attrs.get("grads") or () if g is not None]
        if attrs.get("grad") is None:
            # A folded box's edge stands for several edges whose grads have different shapes
            # (no one sum): one reads as itself, several as how many and their joint norm.
            if len(parts) == 1:
                return format_array(parts[0])
            with np.errstate(all="ignore"):
                norm = float(np.sqrt(sum(np.sum(np.square(np.asarray(g, np.float64)))
                                         for g in parts)))
            return f"{len(parts)} grads, ‖·‖={norm:.4g}"
        label = format_array(attrs.get("grad"))
        if count > 1 and len(parts) > 1:
            # t * t: the same tensor was used twice, and its two gradients were summed.
            texts = [format_array(g) for g in parts]
            summed = f" ×{len(texts)}" if len(set(texts)) == 1 else ""
            first = texts[0] if summed else " + ".join(texts)
            label = f"{first}{summed} = {label}"
        return label

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        c = self.colours
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        colour = c.covered if self.carried else c.edge
        if lod < LOD_TEXT:
            # Far away: a hairline without antialiasing is all the eye can tell apart.
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.setPen(QPen(colour, 0))
        else:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setPen(QPen(colour, 2.2 if self.carried else 1.2))
        exposed = None
        if len(self.points) > 2:
            # Only the segments in the exposed part: a long edge crossing a small repaint
            # would otherwise be stroked, antialiased, over its whole length.
            exposed = option.exposedRect
            lines = self._visible_segments(exposed)
            if lines:
                painter.drawLines(lines)
        else:
            painter.drawLine(self.line)
        if lod < LOD_TEXT:
            return
        # Arrowhead at the target: the forward direction (a long edge's head and label are
        # skipped when they are outside the part being repainted: they would be clipped).
        end_x, end_y = self.points[-1]
        if exposed is None or (exposed.left() - 10 <= end_x <= exposed.right() + 10
                               and exposed.top() - 10 <= end_y <= exposed.bottom() + 10):
            head = self._head
            if head is None:
                end = self.line.p2()
                direction = self.line.unitVector()
                dx, dy = direction.dx(), direction.dy()
                head = self._head = QPolygonF([
                    end,
                    QPointF(end.x() - 8 * dx + 4 * dy, end.y() - 8 * dy - 4 * dx),
                    QPointF(end.x() - 8 * dx - 4 * dy, end.y() - 8 * dy + 4 * dx),
                ])
            painter.setBrush(QBrush(colour))
            painter.drawPolygon(head)
        if self.carried and _detail_shown(self, lod):
            painter.setFont(_fonts(painter, LABEL_POINT_SIZE)[0])
            text = self.label_text()
            if self._label_width is None or self._label_width[0] != text:
                self._label_width = (text, painter.fontMetrics().horizontalAdvance(text) + 8)
            box = self.label_rect(self._label_width[1])
            if exposed is not None and not box.adjusted(-2, -2, 2, 2).intersects(exposed):
                return
            place = self.label_place
            if place is not None and not place.beside:
                # Moved away from its edge (no room beside it): a leader joins them.
                pen = QPen(colour, 1.0, Qt.PenStyle.DotLine)
                painter.setPen(pen)
                ax, ay = place.anchor
                nx = min(max(ax, box.left()), box.right())
                ny = min(max(ay, box.top()), box.bottom())
                painter.drawLine(QPointF(ax, ay), QPointF(nx, ny))
            painter.setPen(QPen(colour, 1.0))
            painter.setBrush(c.background)
            painter.drawRoundedRect(box, 4, 4)
            painter.setPen(c.grad_text)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
