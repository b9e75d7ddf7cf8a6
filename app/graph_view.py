"""The computational graph: the session's graph model drawn at its layout's positions.

``GraphView`` is a widget holding the canvas (a QGraphicsView), a search box, a legend and an
overview of the whole graph. ``show_graph(graph, layout, executing=...)`` draws a new state: when
the nodes and edges are the same as before (a backward step, a changed value) only the items that
changed are updated; otherwise the scene is rebuilt.
"""

from __future__ import annotations

import math
import re

import numpy as np
from PySide6.QtCore import QEvent, QLineF, QPoint, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen, QPicture, QTransform
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from engine.gc_policy import collector_paused
from engine.graph.labels import BoxSpace

from .graph_items import (
    DARK,
    LIGHT,
    LOD_DETAIL,
    LOD_TEXT,
    TENSOR_SIZE,
    EdgeItem,
    GraphColours,
    NodeItem,
    detail_lod,
    edge_carried,
    far_colour,
    node_half,
)
from .graph_labels import label_font, place_edge_labels
from .graph_table import LazyItems, SceneIndex

MIN_ZOOM, MAX_ZOOM = 0.0005, 4.0
# Below this zoom a node is a few pixels wide: the whole graph is drawn as one recorded picture
# (one C++ replay) instead of asking 20,000 items to paint themselves.
FAR_ZOOM = 0.2
FAR_MIN_NODES = 300  # below this, items painting themselves as plain boxes is fast enough
LAZY_NODES = 3000  # past this many drawn nodes, items are made as they come into sight
OVERVIEW_MIN_NODES = 30  # smaller graphs fit on screen: no overview needed
AUTO_FOLD_NODES = 40  # past this many nodes, module groups and repeated ops start folded
AUTO_FOLD_MIN_MEMBERS = 3  # a group of fewer nodes is not worth a box
MIN_RUN = 4  # this many of one op in a row fold into one "MulBackward0 ×n" box,
RUN_FOLD_NODES = 150  # in a graph of more nodes than this (smaller ones wrap well enough)
LANDMARK_POINT_SIZE = 8.0  # names drawn at a readable size when the boxes' own text is not
MAX_LANDMARKS = 300
# The layout's units become scene units spread by about these factors (see layout_scale):
# the wrap aims at the view's shape in scene units.
_SCENE_X, _SCENE_Y = (TENSOR_SIZE[0] + 24) / 150.0, (TENSOR_SIZE[1] + 36) / 80.0


_QUOTED_KEY = re.compile(r"\[\s*['\"]([^'\"]*)['\"]\s*\]")
_INDEX = re.compile(r"\[\s*(-?\d+)\s*\]")


def drawn_folded(graph) -> bool:
    """Whether the view draws ``graph`` with repeated runs folded (unless the user opens them):
    then the whole graph's own layout is not what is drawn, and the controller asks for it
    lazily (``engine.graph.layout``'s ``drawn_folded``). The runs found are kept for the view."""
    from engine.graph.fold import repeated_runs

    return graph.number_of_nodes() > RUN_FOLD_NODES and bool(repeated_runs(graph, MIN_RUN))


def _dotted(match) -> str:
    # (A function, not the template r".\1": a template makes re import itself on every call,
    # through PySide's import hook, a third of a search over 100,000 nodes.)
    return "." + match.group(1)


def canonical_spelling(text: str) -> str:
    """One spelling for the many the app shows: ``model[4].weight``, ``model.4.weight`` and
    ``Model.4.Weight`` are the same; ``d['w']`` and ``d["w"]`` read ``d.w``."""
    t = text.strip().lower()
    if "[" in t:
        t = _INDEX.sub(_dotted, _QUOTED_KEY.sub(_dotted, t))
    return t.replace(" ", "").lstrip(".")


def innermost_groups(groups) -> set[str]:
    """The groups with no subgroup among ``groups`` (``model.fc1``, not ``model``): each
    group's dotted prefixes are its enclosing groups, so this is one pass, not a pairwise
    comparison (5,000 modules would make 25 million)."""
    groups = set(groups)
    enclosing = set()
    for g in groups:
        parts = g.split(".")
        enclosing.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return groups - enclosing


def layout_scale(layout) -> tuple[float, float]:
    """How much to spread the layout's positions so that no two of our node boxes overlap."""
    positions = getattr(layout, "positions", None) or {}
    if len(positions) < 2:
        return 1.0, 1.0
    xy = np.array(list(positions.values()), dtype=np.float64)
    # Sort by row, then x: neighbours within a row are consecutive.
    order = np.lexsort((xy[:, 0], np.round(xy[:, 1], 6)))
    xs, ys = xy[order, 0], np.round(xy[order, 1], 6)
    same_row = ys[1:] == ys[:-1]
    dx = np.diff(xs)[same_row]
    dx = dx[dx > 1e-9]
    min_dx = float(dx.min()) if dx.size else 1e9
    # ys is sorted: the gaps between distinct rows are its non-zero steps (np.unique would
    # import numpy.ma on first use, 0.15 s of the first graph's paint).
    dy = np.diff(ys)
    dy = dy[dy != 0]
    min_dy = float(dy.min()) if dy.size else 1e9
    sx = max(1.0, (TENSOR_SIZE[0] + 24) / min_dx)
    sy = max(1.0, (TENSOR_SIZE[1] + 36) / min_dy)
    return sx, sy


def scene_positions(layout, graph=None, scale=None) -> dict[str, tuple[float, float]]:
    """The layout's positions, spread so that no two node boxes overlap (``scale``: the
    layout's ``layout_scale`` when already known)."""
    sx, sy = scale or layout_scale(layout)
    positions = getattr(layout, "positions", None) or {}
    return {n: (x * sx, y * sy) for n, (x, y) in positions.items()}


def scene_bends(layout, sx: float, sy: float) -> dict:
    """(source, target) -> the inner points of a long edge's polyline, in scene units."""
    bends = {}
    for key, points in (getattr(layout, "edges", None) or {}).items():
        if len(points) > 2:
            bends[key] = [(x * sx, y * sy) for x, y in points[1:-1]]
    return bends


class GraphCanvas(QGraphicsView):
    """Pan (drag), zoom (wheel, around the cursor), and the zoom level for the overview."""

    viewport_changed = Signal()
    zoom_changed = Signal(float)
    node_double_clicked = Signal(str)
    context_menu_requested = Signal(str, QPoint)  # node id ("" on the background), global pos

    def __init__(self, scene: QGraphicsScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.far_picture = None  # set by GraphView while zoomed far out
        self._painted_zoom = 1.0  # the zoom the last paint (or zoom_changed) was for
        # Until the user pans or zooms, the view keeps the whole graph fitted as it grows.
        self.user_moved = False
        self._fitted_size = None
        self._refit_timer = QTimer(self)
        self._refit_timer.setSingleShot(True)
        self._refit_timer.setInterval(30)
        self._refit_timer.timeout.connect(self._refit_after_resize)
        self.setObjectName("graphCanvas")
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setOptimizationFlags(QGraphicsView.OptimizationFlag.DontSavePainterState
                                  | QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setFrameShape(QFrame.Shape.NoFrame)
        # Panning is by dragging (and the overview): scroll bars would only steal room and
        # make a fitted view jitter as they come and go.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.horizontalScrollBar().valueChanged.connect(self.viewport_changed)
        self.verticalScrollBar().valueChanged.connect(self.viewport_changed)

    def zoom(self) -> float:
        return self.transform().m11()

    def zoom_by(self, factor: float) -> None:
        target = min(MAX_ZOOM, max(MIN_ZOOM, self.zoom() * factor))
        factor = target / self.zoom()
        self.scale(factor, factor)
        self._painted_zoom = self.zoom()
        self.zoom_changed.emit(self.zoom())
        self.viewport_changed.emit()

    def drawBackground(self, painter, rect) -> None:
        super().drawBackground(painter, rect)
        picture = self.far_picture
        if picture is not None:
            painter.drawPicture(0, 0, picture)

    def drawForeground(self, painter, rect) -> None:
        super().drawForeground(painter, rect)
        owner = self.parent()
        labels = owner.landmark_labels() if hasattr(owner, "landmark_labels") else ()
        if not labels:
            return
        colours = getattr(owner, "colours", LIGHT)
        painter.save()
        painter.resetTransform()
        painter.setFont(owner.landmark_font())
        back = QColor(colours.background)
        back.setAlpha(215)
        for text, box in labels:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(back)
            painter.drawRoundedRect(box, 3, 3)
            painter.setPen(colours.text)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()

    def fit_all(self) -> None:
        """Show the whole graph, never blown up past 100 %."""
        owner = self.parent()
        bounds = getattr(owner, "bounds", None)
        rect = bounds if bounds is not None else self.scene().itemsBoundingRect()
        if rect.isEmpty():
            return
        view = self.viewport().rect()
        vw, vh = float(view.width()), float(view.height())
        w, h = max(rect.width(), 1.0), max(rect.height(), 1.0)
        # The overview sits in the bottom-right corner: the graph goes left of it or above
        # it, whichever leaves it bigger, so the overview never covers a node.
        overview = getattr(owner, "overview", None)
        areas = [QRectF(0, 0, vw, vh)]
        if overview is not None and getattr(owner, "overview_wanted", False):
            ow, oh = overview.width() + 16.0, overview.height() + 16.0
            areas = [QRectF(0, 0, max(40.0, vw - ow), vh), QRectF(0, 0, vw, max(40.0, vh - oh))]
        best = None
        for area in areas:
            s = max(MIN_ZOOM, min(1.0, (area.width() - 20) / w, (area.height() - 20) / h))
            if best is None or s > best[0] + 1e-12:
                best = (s, area)
        scale, area = best
        self.user_moved = False
        self._fitted_size = self.viewport().size()
        self.setTransform(QTransform.fromScale(scale, scale))
        # rect's centre goes to the area's centre: the view centre is that far off in scene units.
        shift = QPointF((vw / 2 - area.center().x()) / scale, (vh / 2 - area.center().y()) / scale)
        target = rect.center() + shift
        margin = QRectF(target.x() - vw / scale, target.y() - vh / scale,
                        2 * vw / scale, 2 * vh / scale)
        scene = self.scene()
        if not scene.sceneRect().contains(margin):
            scene.setSceneRect(scene.sceneRect().united(margin))
        self.centerOn(target)
        self._painted_zoom = self.zoom()
        self.zoom_changed.emit(self.zoom())
        self.viewport_changed.emit()

    def wheelEvent(self, event) -> None:
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.user_moved = True
            self.zoom_by(1.15 ** steps)
        event.accept()

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            zoom = self.zoom()
            if zoom != self._painted_zoom:
                # setTransform/resetTransform/scale from outside (tests, centerOn helpers) tell
                # nobody: the far-zoom picture and the items' visibility follow before painting.
                self._painted_zoom = zoom
                self.zoom_changed.emit(zoom)
            return super().viewportEvent(event)
        # Node tooltips are formatted on hover, not stored on 10,000 items while building.
        if event.type() == QEvent.Type.ToolTip:
            item = self.itemAt(event.pos())
            text = item.tooltip_text() if hasattr(item, "tooltip_text") else ""
            if text:
                QToolTip.showText(event.globalPos(), text, self.viewport())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().viewportEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        item = self.itemAt(event.position().toPoint())
        node_id = getattr(item, "node_id", None)
        if node_id is not None:
            self.node_double_clicked.emit(node_id)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event) -> None:
        item = self.itemAt(event.pos())
        node_id = getattr(item, "node_id", None) or ""
        if item is not None and node_id and not item.isSelected():
            # Right-clicking a node acts on it: it becomes the selection (Ctrl keeps the rest,
            # so a binary op can be picked for two tensors from the menu).
            if not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                self.scene().clearSelection()
            item.setSelected(True)
        self.context_menu_requested.emit(node_id, event.globalPos())
        event.accept()

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self.user_moved = True  # a drag pans
        super().mouseMoveEvent(event)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if not self.user_moved:
            # Later and once: refitting inside a resize can toggle the scroll bars, which
            # resizes the viewport again, forever.
            self._refit_timer.start()
        self.viewport_changed.emit()

    def _refit_after_resize(self) -> None:
        size = self.viewport().size()
        if not self.user_moved and size != self._fitted_size:
            self.fit_all()


class GraphOverview(QWidget):
    """A small picture of the whole graph with the visible part framed; click or drag to move."""

    def __init__(self, canvas: GraphCanvas, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphOverview")
        self.canvas = canvas
        self.image = QImage()
        self.scene_rect = QRectF()
        self.setFixedSize(QSize(200, 140))
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Overview: click or drag to move the view")
        canvas.viewport_changed.connect(self.update)

    def refresh(self) -> None:
        """Draw the graph once into an image (again only when the graph changes), from the
        same boxes-and-lines picture the canvas uses when zoomed far out."""
        owner = self.canvas.parent()
        self.scene_rect = QRectF(owner.bounds)
        image = QImage(self.size() * self.devicePixelRatioF(), QImage.Format.Format_ARGB32)
        image.setDevicePixelRatio(self.devicePixelRatioF())
        image.fill(Qt.GlobalColor.transparent)
        if not self.scene_rect.isEmpty() and owner.nodes:
            target = self._target()
            sx = target.width() / self.scene_rect.width()
            sy = target.height() / self.scene_rect.height()
            painter = QPainter(image)
            painter.translate(target.left(), target.top())
            painter.scale(sx, sy)
            painter.translate(-self.scene_rect.left(), -self.scene_rect.top())
            painter.drawPicture(0, 0, owner._far_picture())
            painter.end()
        self.image = image
        self.update()

    def _target(self) -> QRectF:
        if self.scene_rect.isEmpty():
            return QRectF(self.rect())
        w, h = self.width() - 8, self.height() - 8
        s = min(w / self.scene_rect.width(), h / self.scene_rect.height())
        tw, th = self.scene_rect.width() * s, self.scene_rect.height() * s
        return QRectF(4 + (w - tw) / 2, 4 + (h - th) / 2, tw, th)

    def _to_scene(self, point: QPointF) -> QPointF:
        t = self._target()
        fx = (point.x() - t.left()) / max(1.0, t.width())
        fy = (point.y() - t.top()) / max(1.0, t.height())
        return QPointF(self.scene_rect.left() + fx * self.scene_rect.width(),
                       self.scene_rect.top() + fy * self.scene_rect.height())

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        colours = getattr(self.canvas.parent(), "colours", LIGHT)
        painter.fillRect(self.rect(), colours.background)
        painter.setPen(QPen(colours.edge, 1))
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        painter.drawImage(QPointF(0, 0), self.image)
        if self.scene_rect.isEmpty():
            return
        visible = self.canvas.mapToScene(self.canvas.viewport().rect()).boundingRect()
        t = self._target()
        sx = t.width() / self.scene_rect.width()
        sy = t.height() / self.scene_rect.height()
        frame = QRectF(t.left() + (visible.left() - self.scene_rect.left()) * sx,
                       t.top() + (visible.top() - self.scene_rect.top()) * sy,
                       visible.width() * sx, visible.height() * sy).intersected(QRectF(self.rect()))
        painter.setPen(QPen(colours.selection, 1.5))
        fill = QColor(colours.selection)
        fill.setAlpha(40)
        painter.setBrush(fill)
        painter.drawRect(frame)

    def mousePressEvent(self, event) -> None:
        self.canvas.user_moved = True
        self.canvas.centerOn(self._to_scene(event.position()))

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self.canvas.centerOn(self._to_scene(event.position()))


LEGEND = (  # (key, label, what it means)
    ("leaf", "leaf", "a leaf tensor that requires grad: backward() writes its .grad"),
    ("nonleaf", "non-leaf", "computed by an op: its .grad is not kept"),
    ("retains", "retain_grad()", "a non-leaf whose .grad is kept because retain_grad() was called"),
    ("nograd", "requires_grad=False", "not tracked by autograd"),
    ("function", "grad_fn node", "a backward node, e.g. MulBackward0"),
    ("accumulate", "AccumulateGrad", "adds the incoming gradient into a leaf's .grad"),
    ("executing", "running now", "the backward node that just ran: filled and ringed"),
    ("covered", "gradient flowed ◂", "edges that carried a gradient in the last backward (values "
                                    "on the edges), and the nodes that already ran (their border)"),
)


class GraphLegend(QWidget):
    """What the colours and borders mean: a strip under the graph that never covers it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphLegend")
        self.colours = LIGHT
        self.setToolTip("\n".join(f"{label}: {meaning}" for _k, label, meaning in LEGEND))
        font = self.font()
        font.setPointSizeF(max(7.5, font.pointSizeF() - 1.0))
        self.setFont(font)
        self.row = self.fontMetrics().height() + 4
        self._places: list[tuple[float, float]] = []
        self._flow(600)

    def _flow(self, width: int) -> None:
        """Lay the entries out left to right, wrapping; sets the strip's height."""
        x, y, places = 8.0, 3.0, []
        for _key, label, _meaning in LEGEND:
            entry = 30 + self.fontMetrics().horizontalAdvance(label) + 14
            if x + entry > width and x > 8:
                x, y = 8.0, y + self.row
            places.append((x, y))
            x += entry
        self._places = places
        self.setFixedHeight(int(y + self.row + 3))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._flow(self.width())

    def paintEvent(self, event) -> None:
        c = self.colours
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), c.background)
        painter.setPen(QPen(c.edge, 1))
        painter.drawLine(0, 0, self.width(), 0)
        styles = {
            "leaf": (c.leaf_fill, c.leaf_border, Qt.PenStyle.SolidLine),
            "nonleaf": (c.nonleaf_fill, c.nonleaf_border, Qt.PenStyle.SolidLine),
            "retains": (c.nonleaf_fill, c.retains, Qt.PenStyle.SolidLine),
            "nograd": (c.nograd_fill, c.nograd_border, Qt.PenStyle.DashLine),
            "function": (c.function_fill, c.function_border, Qt.PenStyle.SolidLine),
            "accumulate": (c.accumulate_fill, c.accumulate_border, Qt.PenStyle.SolidLine),
            "executing": (c.executing_fill, c.executing, Qt.PenStyle.SolidLine),
            "covered": (None, c.covered, Qt.PenStyle.SolidLine),
        }
        row = self.row
        for (key, label, _meaning), (x, y) in zip(LEGEND, self._places):
            fill, border, style = styles[key]
            swatch = QRectF(x, y + (row - 10) / 2, 22, 10)
            if fill is None:
                painter.setPen(QPen(border, 2.4))
                painter.drawLine(QPointF(swatch.left(), swatch.center().y()),
                                 QPointF(swatch.right(), swatch.center().y()))
            else:
                pen = QPen(border, 3.0 if key == "executing" else 1.6)
                pen.setStyle(style)
                painter.setPen(pen)
                painter.setBrush(fill)
                painter.drawRoundedRect(swatch, 5 if key == "function" else 2, 3)
                if key == "retains":
                    painter.setPen(Qt.PenStyle.NoPen)
                    painter.setBrush(c.retains)
                    painter.drawRect(QRectF(swatch.left(), swatch.top(), 4, swatch.height()))
            painter.setPen(c.text)
            painter.drawText(QRectF(x + 28, y, 400, row),
                             Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, label)
        painter.end()


class GraphView(QWidget):
    """The graph panel. Signals: ``node_selected(node_id)`` ("" when the selection is cleared),
    ``fold_toggled(group, folded)``."""

    node_selected = Signal(str)
    selection_changed = Signal(list)  # every selected node id, in the order they were picked
    fold_toggled = Signal(str, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphView")
        self.colours: GraphColours = LIGHT
        self.scene = QGraphicsScene(self)
        # The picture is static between states: a linear scan in C++ beats building a BSP tree
        # over 20,000 items on every new graph.
        self.scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.scene.detail_lod = LOD_DETAIL  # the items read it: detail_lod(the shown graph)
        self.canvas = GraphCanvas(self.scene, self)
        self.canvas.zoom_changed.connect(self._zoom_changed)
        self.canvas.node_double_clicked.connect(self._double_clicked)
        self._far = False
        self._far_shapes = None
        self._far_recorded = None  # the far picture of the state shown, once recorded
        self._node_layer = None
        self._edge_layer = None
        self.canvas.setBackgroundBrush(self.colours.background)
        # Every drawn node and edge by id; a big graph's items are made as they come into
        # sight (app/graph_table.py): loops over what exists read ``.made``.
        self.nodes: LazyItems = LazyItems(self._make_node)
        self.edges: LazyItems = LazyItems(self._make_edge)
        self._index: SceneIndex | None = None
        self._positions: dict = {}  # node id -> scene position, of the drawing
        self._bends: dict = {}  # edge -> inner points of its polyline, in scene units
        self.graph = None  # the session's graph
        self.shown_graph = None  # what is drawn: the graph with folded groups as boxes
        self.executing: str | None = None
        self.folded_groups: set[str] = set()
        self.bounds = QRectF()  # where the nodes are (scene units)
        self._layout = None  # the layout the items were placed by
        self._search_hits: list[str] = []
        self._hit_boxes: set[str] = set()  # the drawn boxes that show a search hit
        self._search_index = -1
        self._search_cache = None  # (graph, [(node id, canonical spellings)])
        # Folding by default (issue 16): groups already decided for this document (the user's
        # unfolding sticks), runs of one op the user opened, the wrap of the last layout.
        self._decided_groups: set[str] = set()
        self._opened_runs: set[str] = set()
        self._wrap_cache = None
        self._fold_cache = None  # (structure, groups, runs opened) -> the fold and its layout
        self._auto_folded = None  # the structure whose groups _auto_fold last looked at
        self._member_box: dict[str, str] = {}  # node inside a folded box -> the box's id
        self._landmarks = None  # (position, text, width) of the names drawn at far zoom
        self._landmark_font = None
        self._landmark_cache = None  # (the view's transform and size, the labels drawn)
        self._labels_fresh = False  # every grad label is to be placed again (a rebuild)
        self._labels_stale = False  # some grad labels changed: those are to be placed
        self._drawing = False
        self.overview_wanted = False
        self._picked: list[str] = []  # selected node ids in the order the user picked them
        # What the user picked last, kept while those nodes are gone (a restart or a re-run shows
        # an empty graph first): they are selected again when a graph has them.
        self._wanted: list[str] = []

        self.search = QLineEdit(self)
        self.search.setObjectName("graphSearch")
        self.search.setPlaceholderText("Find a tensor or node by name…  (Enter: next match)")
        self.search.setClearButtonEnabled(True)
        self.search.returnPressed.connect(self.find_next)
        self.search.textChanged.connect(self._search_changed)
        self.search_status = QLabel("", self)
        self.legend_button = QToolButton(self)
        self.legend_button.setText("Legend")
        self.legend_button.setCheckable(True)
        self.legend_button.setChecked(True)
        self.fold_button = QToolButton(self)
        self.fold_button.setText("Fold groups")
        self.fold_button.setCheckable(True)
        self.fold_button.setToolTip("Fold each nn.Module's nodes into one box")
        self.fold_button.toggled.connect(self._fold_all_toggled)
        self.fold_button.setVisible(False)

        bar = QHBoxLayout()
        bar.setContentsMargins(4, 4, 4, 2)
        bar.addWidget(self.search, 1)
        bar.addWidget(self.search_status)
        bar.addWidget(self.fold_button)
        bar.addWidget(self.legend_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(bar)
        layout.addWidget(self.canvas, 1)

        self.legend = GraphLegend(self)
        layout.addWidget(self.legend)
        self.legend_button.toggled.connect(self.legend.setVisible)
        self.overview = GraphOverview(self.canvas, self)
        self.overview.setParent(self.canvas)
        self.overview.hide()
        self.empty_hint = QLabel(self.canvas)
        self.empty_hint.setObjectName("graphEmptyHint")
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setText("No tensors yet.\nPress F10 to run the script one statement at a "
                                "time, or F5 to run it to the next breakpoint.")
        self.scene.selectionChanged.connect(self._selection_changed)
        self.canvas.viewport_changed.connect(self._place_overlays)
        self.canvas.viewport_changed.connect(self._make_visible)
        self._overview_timer = QTimer(self)
        self._overview_timer.setSingleShot(True)
        self._overview_timer.setInterval(120)
        self._overview_timer.timeout.connect(self.overview.refresh)

    # ------------------------------------------------------------------------------ themes
    def set_dark(self, dark: bool) -> None:
        self.colours = DARK if dark else LIGHT
        self.legend.colours = self.colours
        self.canvas.setBackgroundBrush(self.colours.background)
        for item in self.nodes.made.values():
            item.colours = self.colours
        for item in self.edges.made.values():
            item.colours = self.colours
        self._far_recorded = None
        self._refresh_far()
        self.scene.update()
        self.legend.update()
        self._overview_timer.start()

    # ------------------------------------------------------------------------------ drawing
    def show_graph(self, graph, layout, *, executing: str | None = None) -> None:
        """Draw ``graph`` (engine.graph model) at ``layout``; ``executing``: the running node."""
        # A new graph means tens of thousands of new tuples, wrappers, rectangles and no
        # reference cycles: the cyclic collector would otherwise walk the session's whole heap
        # (graph, snapshots, timeline) again and again while they are made.
        self._drawing = True  # labels are placed at the end, at the zoom the graph is shown at
        try:
            with collector_paused():
                self._show_graph(graph, layout, executing)
        finally:
            self._drawing = False
        self._make_visible()
        self._place_labels()

    def _show_graph(self, graph, layout, executing) -> None:
        self._far_recorded = None  # colours, grads or the shapes may change
        self.graph = graph
        self.shown_graph = graph
        self._source_layout = layout
        self._executing_request = executing
        if graph is None or graph.number_of_nodes() == 0:
            self._clear()
            self.empty_hint.show()
            self._place_overlays()
            return
        self.empty_hint.hide()
        view_graph, view_layout = self._folded(graph, layout)
        self.shown_graph = view_graph
        self.scene.detail_lod = detail_lod(view_graph.number_of_nodes())
        # layout(graph, previous) returns the previous layout itself when the structure is
        # unchanged: then nothing moved, and the groups and positions need no second look.
        same_shape = view_layout is self._layout and bool(self.nodes)
        if not same_shape:
            groups = {a.get("group") for _, a in graph.nodes(data=True) if a.get("group")}
            self.fold_button.setVisible(bool(groups))
            scale = layout_scale(view_layout)
            positions = scene_positions(view_layout, view_graph, scale)
            same_shape = (set(self.nodes) == set(view_graph.nodes)
                          and set(self.edges) == set(view_graph.edges)
                          and all(self._positions.get(n) == positions.get(n, (0.0, 0.0))
                                  for n in view_graph.nodes))
        if same_shape:
            self._update_items(view_graph)
        else:
            self._rebuild(view_graph, positions, scene_bends(view_layout, *scale))
        self._layout = view_layout
        self._set_executing(self._visible_node(executing))
        if same_shape:
            self._refresh_far()
        else:
            self._zoom_changed(self.canvas.zoom())
        if not same_shape:
            self.overview_wanted = len(self.nodes) >= OVERVIEW_MIN_NODES
            self.overview.setVisible(self.overview_wanted)
            self._place_overlays()
            if not self.canvas.user_moved:
                self.canvas.fit_all()
            self._overview_timer.start()
            if self.search.text().strip():
                self._search_changed(self.search.text())
        self._place_overlays()

    def _folded(self, graph, layout):
        """What is drawn: ``graph`` with its folded groups and runs as boxes, and its layout
        wrapped to the view's shape."""
        from engine.graph import fold
        from engine.graph import layout as compute_layout
        from engine.graph.fold import fold_runs, refold, repeated_runs, run_id, side_by_side
        from engine.graph.layout import STRUCTURE

        big = graph.number_of_nodes() > AUTO_FOLD_NODES
        token = graph.graph.get(STRUCTURE)
        if big and (token is None or token is not self._auto_folded):
            self._auto_fold(graph)  # (the groups are the structure's: once per structure)
            self._auto_folded = token
        key = (token, graph.number_of_nodes(), frozenset(self.folded_groups),
               frozenset(self._opened_runs))
        cached = self._fold_cache
        if token is not None and cached is not None and cached[0] == key:
            # A replay's next step: the same structure folds into the same boxes and layout.
            view_graph = refold(graph, cached[1])
            return view_graph, self._wrapped(view_graph, cached[2])
        view_graph, view_layout = graph, layout
        folded = None
        if self.folded_groups:
            view_graph, view_layout = fold(graph, self.folded_groups), None
            folded = view_graph
        if graph.number_of_nodes() > RUN_FOLD_NODES:
            runs = [r for r in repeated_runs(view_graph, MIN_RUN)
                    if run_id(r[0]) not in self._opened_runs]
            if runs:
                view_graph, view_layout = fold_runs(view_graph, runs), None
        if graph.number_of_nodes() > AUTO_FOLD_NODES:
            # then what repeats across a layer (a loop's outputs, stacked): else one layer of
            # thirty boxes makes the graph so wide that at fit no name can be read
            sets = [r for r in side_by_side(view_graph, MIN_RUN)
                    if run_id(r[0]) not in self._opened_runs]
            if sets:
                view_graph, view_layout = fold_runs(view_graph, sets), None
        if view_layout is None:
            view_layout = compute_layout(view_graph)
        # Only a plain group fold is kept (runs folded after it merge its edges again).
        self._fold_cache = (key, folded, view_layout) \
            if folded is not None and view_graph is folded else None
        return view_graph, self._wrapped(view_graph, view_layout)

    def _auto_fold(self, graph) -> None:
        """A big graph opens with its module groups folded (innermost, of a few nodes or more),
        each once per document: a group the user opened stays open."""
        sizes: dict[str, int] = {}
        for _, group in graph.nodes(data="group"):
            if group:
                sizes[group] = sizes.get(group, 0) + 1
        new = [g for g in sizes if g not in self._decided_groups]
        if not new:
            return
        innermost = innermost_groups(sizes)
        for g in new:
            if g in innermost and sizes[g] >= AUTO_FOLD_MIN_MEMBERS:
                self.folded_groups.add(g)
        self._decided_groups.update(new)

    def _wrapped(self, graph, layout):
        """``layout`` wrapped into bands (a snake) that fill the canvas's shape (cached)."""
        from engine.graph.wrap import wrap_layout

        view = self.canvas.viewport().size()
        if view.width() < 50 or view.height() < 50:
            aspect = 1.3
        else:
            aspect = view.width() / view.height()
        key = round(math.log(aspect * _SCENE_Y / _SCENE_X) * 4)  # steps of about 28 %
        cache = self._wrap_cache
        if cache is not None and cache[0] is layout and cache[1] == key:
            return cache[2]
        wrapped = wrap_layout(layout, math.exp(key / 4), graph)
        self._wrap_cache = (layout, key, wrapped)
        return wrapped

    def _clear(self) -> None:
        had = self._picked
        self._picked = []
        self.scene.blockSignals(True)  # the user did not unpick anything: _wanted stays
        self.scene.clearSelection()
        self.scene.blockSignals(False)
        if had:
            self.node_selected.emit("")
            self.selection_changed.emit([])
        self.scene.clear()
        self.nodes.clear()
        self.edges.clear()
        self._index = None
        self._positions, self._bends = {}, {}
        self._node_layer = self._edge_layer = None
        self._far_shapes = None
        self._layout = None
        self._member_box = {}
        self._landmarks = None
        self.canvas.far_picture = None
        self.overview.hide()
        self.overview_wanted = False

    @staticmethod
    def _new_layer(z: float) -> QGraphicsRectItem:
        # A parent without contents: hiding it hides every child in one call (far zoom).
        # It joins the scene once filled: one addItem then adds its children in C++, instead
        # of the scene noting each new child while the layer grows.
        layer = QGraphicsRectItem()
        layer.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents)
        layer.setZValue(z)
        return layer

    # ---------------------------------------------------------------------------- far zoom
    def _zoom_changed(self, zoom: float) -> None:
        far = zoom < FAR_ZOOM and len(self.nodes) >= FAR_MIN_NODES
        if far != self._far:
            self._far = far
            self.canvas.far_picture = self._far_picture() if far else None
            if self._node_layer is not None:
                self._node_layer.setVisible(not far)
                self._edge_layer.setVisible(not far)
            self.canvas.viewport().update()
        self._make_visible()
        self._place_labels()

    def _place_labels(self) -> None:
        """Place the grad labels that need it, once they are drawn (zoomed in enough to read
        them): a 10,000-node graph opened at fit places none."""
        if (self._drawing or not (self._labels_fresh or self._labels_stale)
                or self.canvas.zoom() < self.scene.detail_lod):
            return
        edges = list(self.edges.made.values())
        if self._index is not None and edges:
            # The nodes near the labels to place: those of the drawn part and around it.
            xs = [x for e in edges for x, _ in e.points]
            ys = [y for e in edges for _, y in e.points]
            nodes = self._index.node_boxes_in(min(xs) - 600, min(ys) - 300, max(xs) + 600,
                                              max(ys) + 300)
            place_edge_labels(nodes, edges, label_font(self.canvas.viewport().font()),
                              fresh=self._labels_fresh)
        self._labels_fresh = self._labels_stale = False

    def _far_picture(self) -> QPicture:
        """The whole graph as boxes and hairlines, recorded once per state shown (the canvas
        and the overview replay the same one)."""
        if self._far_recorded is None:
            with collector_paused():
                self._far_recorded = self._record_far_picture()
        return self._far_recorded

    def _record_far_picture(self) -> QPicture:
        picture = QPicture()
        painter = QPainter(picture)
        c = self.colours
        index, graph = self._index, self.shown_graph
        if index is None or graph is None:
            painter.end()
            return picture
        if self._far_shapes is None:
            # Built once per scene, from the index (most nodes of a big graph have no item);
            # a backward step only regroups them by colour. Edges run straight from centre to
            # centre: at this zoom a long edge's bends are not worth 50,000 more segments.
            xy, half = index.xy, index.half
            ends = index.edge_ends
            lines = [QLineF(x0, y0, x1, y1) for x0, y0, x1, y1 in
                     np.concatenate([xy[ends[0]], xy[ends[1]]], axis=1).reshape(-1, 4).tolist()]
            corners = np.concatenate([xy - half, 2 * half], axis=1).tolist()
            rects = [QRectF(x, y, w, h) for x, y, w, h in corners]
            self._far_shapes = (lines, rects)
        edge_shapes, node_shapes = self._far_shapes
        plain, carried = [], []
        edge_attrs = graph.edges
        for line, key in zip(edge_shapes, index.edge_keys):
            (carried if edge_carried(edge_attrs[key]) else plain).append(line)
        for lines, colour in ((plain, c.edge), (carried, c.covered)):
            if lines:
                # (A list of QLineF: PySide turns a QPolygonF of point pairs back into Python
                # points one by one, four times slower.)
                painter.setPen(QPen(colour, 0))
                painter.drawLines(lines)
        painter.setPen(Qt.PenStyle.NoPen)
        by_colour: dict[str, list] = {}
        executing = self.executing
        node_attrs = graph.nodes
        for rect, node_id in zip(node_shapes, index.node_ids):
            colour = far_colour(node_attrs[node_id], c, node_id == executing)
            entry = by_colour.get(id(colour))
            if entry is None:
                # Palette colours are shared objects: one key per colour without naming it.
                entry = by_colour[id(colour)] = (colour, [])
            entry[1].append(rect)
        merged: dict[str, list] = {}
        for colour, rects in by_colour.values():
            merged.setdefault(colour.name(), []).extend(rects)
        for name, rects in merged.items():
            painter.setBrush(QColor(name))
            painter.drawRects(rects)
        painter.end()
        return picture

    def _refresh_far(self) -> None:
        if self._far:
            self.canvas.far_picture = self._far_picture()
            self.canvas.viewport().update()

    def _rebuild(self, graph, positions, bends) -> None:
        picked = self.selected_ids()
        wanted = self._wanted
        self.scene.blockSignals(True)
        self._clear()
        self._edge_layer = edge_layer = self._new_layer(-1)
        self._node_layer = node_layer = self._new_layer(0)
        origin = (0.0, 0.0)
        member_box = self._member_box = {}
        halves = {}
        for node_id, attrs in graph.nodes(data=True):
            halves[node_id] = node_half(attrs)
            members = attrs.get("members")
            if members:
                for member in members:
                    member_box[member] = node_id
        self._positions = {n: positions.get(n, origin) for n in graph.nodes}
        self._bends = bends
        self._index = SceneIndex.build(self._positions, halves, graph.edges, bends)
        self.nodes.reset(graph.nodes)
        self.edges.reset(graph.edges)
        self._landmarks = None
        if graph.number_of_nodes() <= LAZY_NODES:
            # Made now, before their layers join the scene (one addItem adds them in C++);
            # a bigger graph's items are made as they come into sight (_make_visible).
            for node_id in graph.nodes:
                self.nodes[node_id]
            for key in graph.edges:
                self.edges[key]
        self._labels_fresh = True  # placed when first readable (_place_labels)
        self.scene.addItem(edge_layer)
        self.scene.addItem(node_layer)
        self._far = False
        if positions:
            xy = np.array(list(positions.values()), dtype=np.float64)
            left, top = xy.min(axis=0)
            right, bottom = xy.max(axis=0)
            self.bounds = QRectF(left - 100, top - 50, right - left + 200, bottom - top + 100)
        else:
            self.bounds = QRectF()
        # The selection outlives a rebuild, a restart or a re-run after the builder wrote a
        # line: the ids the user picked, in the same order, minus those not drawn now.
        kept = [node_id for node_id in wanted if node_id in self.nodes]
        for node_id in kept:
            self.nodes[node_id].setSelected(True)
        self.scene.blockSignals(False)
        # After unblocking: the view learns the new extent from sceneRectChanged (set while
        # blocked, its scroll range stayed the old one and fit/centerOn could not move).
        self.scene.setSceneRect(self.bounds.adjusted(-400, -300, 400, 300))
        self._picked = kept
        if kept != picked:
            self.node_selected.emit(self.selected_id())
            self.selection_changed.emit(list(kept))

    def _make_node(self, node_id: str) -> NodeItem:
        item = NodeItem(node_id, self.shown_graph.nodes[node_id], self.colours, self._node_layer)
        item.place(*self._positions[node_id])
        item.search_hit = node_id in self._hit_boxes
        item.executing = node_id == self.executing
        return item

    def _make_edge(self, key: tuple) -> EdgeItem:
        source, target = key
        edge = EdgeItem(self.nodes[source], self.nodes[target], self.shown_graph.edges[key],
                        self.colours, self._bends.get(key, ()), self._edge_layer)
        if edge.carried:
            self._labels_stale = True
        return edge

    def _make_visible(self) -> None:
        """Make the items of what is in sight, and around it (a big graph's items are made
        when first needed; zoomed far out none are: the far picture stands for them)."""
        if (self._drawing or self._index is None or self._far
                or len(self.edges.made) == len(self.edges)
                and len(self.nodes.made) == len(self.nodes)):
            return
        canvas = self.canvas
        seen = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
        w, h = seen.width() / 2, seen.height() / 2
        area = (seen.left() - w, seen.top() - h, seen.right() + w, seen.bottom() + h)
        before = len(self.nodes.made), len(self.edges.made)
        with collector_paused():
            for node_id in self._index.nodes_in(*area):
                self.nodes[node_id]
            for key in self._index.edges_in(*area):
                self.edges[key]
            if (len(self.nodes.made), len(self.edges.made)) != before:
                self._place_labels()

    def _update_items(self, graph) -> None:
        changed = graph.graph.get("changed")
        ids = changed if changed is not None else list(graph.nodes)
        made = self.nodes.made
        for node_id in ids:
            item = made.get(node_id)
            if item is not None:
                item.set_attrs(graph.nodes[node_id])
                item.update()
        for node_id, item in made.items():
            attrs = graph.nodes[node_id]
            if item.attrs is not attrs and changed is not None and node_id not in changed:
                # Unchanged data, but keep the new snapshot's attrs (executed flags may differ).
                if attrs.get("executed") != item.attrs.get("executed"):
                    item.set_attrs(attrs)
                    item.update()
                else:
                    item.attrs = attrs
        # Every edge is checked against the new graph: a new backward pass writes new gradients
        # on edges whose two ends "changed" nothing (TBackward0 → AccumulateGrad runs at the same
        # place in every iteration), so the nodes' change list cannot say which edges to redo.
        # Only an edge whose gradient really differs has its label formatted again.
        for key, edge in self.edges.made.items():
            attrs = graph.edges[key]
            if attrs is edge.attrs:
                continue
            if _same_edge_grads(edge.attrs, attrs):
                edge.attrs = attrs  # same numbers: the label stands
                continue
            before = edge.carried, edge.label
            edge.set_attrs(attrs)
            if (edge.carried, edge.label) != before:
                self._labels_stale = True
                edge.update()

    def _visible_node(self, node_id: str | None) -> str | None:
        """``node_id``, or the folded group box that stands for it."""
        if node_id is None or node_id in self.nodes:
            return node_id
        box = self._member_box.get(node_id)
        while box is not None and box not in self.nodes:  # a run inside a folded group
            box = self._member_box.get(box)
        return box

    def group_of(self, node_id: str) -> str | None:
        """The module group a double-click on ``node_id`` folds or unfolds."""
        item = self.nodes.get(node_id)
        if item is None:
            return None
        if item.attrs.get("kind") == "group":
            return item.attrs.get("fold_key") or item.attrs.get("label")
        return item.attrs.get("group")

    def _set_executing(self, node_id: str | None) -> None:
        if node_id == self.executing:
            return
        old = self.nodes.get(self.executing) if self.executing else None
        if old is not None:
            old.executing = False
            old.update()
        self.executing = node_id
        item = self.nodes.get(node_id) if node_id else None
        if item is not None:
            item.executing = True
            item.update()
            # Keep the running node in sight while stepping (a fitted view already shows it).
            visible = self.canvas.mapToScene(self.canvas.viewport().rect()).boundingRect()
            if self.canvas.user_moved and not visible.contains(item.sceneBoundingRect()):
                self.canvas.centerOn(item)

    # ---------------------------------------------------------------------------- selection
    def selected_id(self) -> str:
        picked = self.selected_ids()
        return picked[0] if picked else ""

    def selected_ids(self) -> list[str]:
        """The selected nodes in the order they were picked (a @ b: a first)."""
        return list(self._picked)

    def select_many(self, node_ids, *, center: bool = False) -> list[str]:
        """Select exactly ``node_ids`` (those drawn), in that order; returns the ones selected."""
        items = [self.nodes[i] for i in node_ids if i in self.nodes]
        self.scene.blockSignals(True)
        self.scene.clearSelection()
        for item in items:
            item.setSelected(True)
        self.scene.blockSignals(False)
        self._selection_changed()
        if center and items:
            self.canvas.centerOn(items[0])
        return [item.node_id for item in items]

    def select(self, node_id: str, *, center: bool = True) -> bool:
        if node_id not in self.nodes and node_id in self._member_box:
            self.reveal(node_id)  # a node folded into a box: the box opens
        item = self.nodes.get(node_id)
        if item is None:
            return False
        self.scene.clearSelection()
        item.setSelected(True)
        if center:
            self.canvas.centerOn(item)
        return True

    def _selection_changed(self) -> None:
        now = {i.node_id for i in self.scene.selectedItems() if isinstance(i, NodeItem)}
        order = [node_id for node_id in self._picked if node_id in now]
        order += sorted(now.difference(order), key=lambda n: self.nodes[n].zValue()
                        if n in self.nodes else 0)
        changed = order != self._picked
        self._picked = order
        self._wanted = list(order)
        self.node_selected.emit(self.selected_id())
        if changed:
            self.selection_changed.emit(list(order))

    # ------------------------------------------------------------------------------- search
    def _search_changed(self, text: str) -> None:
        for node_id in self._hit_boxes:
            item = self.nodes.made.get(node_id)
            if item is not None:
                item.search_hit = False
                item.update()
        self._hit_boxes = set()
        query = canonical_spelling(text)
        self._search_hits = []
        self._search_index = -1
        if query:
            # Every node of the graph, folded ones too (found, they are unfolded to be shown);
            # each by any spelling the app shows: its name, aliases, PyTorch's node name, id.
            for node_id, spellings in self._search_entries():
                # (An op's id spells its whole path from a named root: by id, exactly.)
                if query == spellings[0] or any(query in s for s in spellings[1:]):
                    self._search_hits.append(node_id)
            # The boxes that show a hit: flagged now if made, else when made.
            self._hit_boxes = {self._visible_node(n) for n in self._search_hits} - {None}
            for node_id in self._hit_boxes:
                item = self.nodes.made.get(node_id)
                if item is not None and not item.search_hit:
                    item.search_hit = True
                    item.update()
        self.search_status.setText(f"{len(self._search_hits)} found" if query else "")

    def _search_entries(self) -> list:
        graph = self.graph
        if graph is None:
            return []
        cache = self._search_cache
        if cache is not None and cache[0] is graph:
            return cache[1]
        entries = []
        for node_id, attrs in graph.nodes(data=True):
            names = {attrs.get("name") or "", attrs.get("label") or "",
                     attrs.get("node_name") or "", *(attrs.get("aliases") or ())}
            entries.append((node_id, [canonical_spelling(node_id)]
                            + [canonical_spelling(n) for n in names if n]))
        self._search_cache = (graph, entries)
        return entries

    def reveal(self, node_id: str) -> bool:
        """Unfold whatever box ``node_id`` is folded into (its module groups, its run), so it
        is drawn; True if it is."""
        from engine.graph.fold import in_group

        for _ in range(4):  # a run inside a group inside a group
            if node_id in self.nodes or self.graph is None:
                break
            box = self._member_box.get(node_id)
            while box is not None and box not in self.nodes:
                box = self._member_box.get(box)
            if box is None:
                return False
            key = self.nodes[box].attrs.get("fold_key") or ""
            if key.startswith("run:"):
                self._opened_runs.add(key)
            attrs = self.graph.nodes[node_id] if node_id in self.graph else {}
            group = attrs.get("group")
            opened = {g for g in self.folded_groups if in_group(group, g)}
            if key and not key.startswith("run:"):
                opened.add(key)
            self.folded_groups -= opened
            for g in sorted(opened):
                self.fold_toggled.emit(g, False)
            self._redraw_after_fold()
        return node_id in self.nodes

    def find_next(self) -> str:
        if not self._search_hits:
            return ""
        self._search_index = (self._search_index + 1) % len(self._search_hits)
        node_id = self._search_hits[self._search_index]
        self.reveal(node_id)
        self.select(node_id)
        self.search_status.setText(f"{self._search_index + 1} of {len(self._search_hits)}")
        return node_id

    # ---------------------------------------------------------------------------------- fold
    def _fold_all_toggled(self, folded: bool) -> None:
        self.set_all_folded(folded)

    def set_all_folded(self, folded: bool) -> None:
        """Fold every innermost module group (a model then reads as its layers), or unfold all."""
        graph = self.graph
        if graph is None:
            return
        groups = {a.get("group") for _, a in graph.nodes(data=True) if a.get("group")}
        innermost = innermost_groups(groups)
        self.folded_groups = set(innermost) if folded else set()
        self._decided_groups.update(groups)
        if folded:
            self._opened_runs.clear()
        else:
            shown = self.shown_graph
            self._opened_runs.update(a.get("fold_key") for _, a in
                                     (shown.nodes(data=True) if shown is not None else ())
                                     if a.get("run"))
        self.fold_button.blockSignals(True)
        self.fold_button.setChecked(folded and bool(groups))
        self.fold_button.blockSignals(False)
        for group in sorted(innermost):
            self.fold_toggled.emit(group, folded)
        self._redraw_after_fold()

    def toggle_group(self, group: str) -> None:
        if group.startswith("run:"):  # a run of one op: opens (the Fold button folds it again)
            self._opened_runs.add(group)
            self._redraw_after_fold()
            return
        self._decided_groups.add(group)
        folded = group not in self.folded_groups
        if folded:
            self.folded_groups.add(group)
        else:
            self.folded_groups.discard(group)
        self.fold_toggled.emit(group, folded)
        self._redraw_after_fold()

    def _double_clicked(self, node_id: str) -> None:
        # A folded box opens; a node inside a module folds its module.
        group = self.group_of(node_id)
        if group:
            self.toggle_group(group)

    def _redraw_after_fold(self) -> None:
        self.show_graph(self.graph, self._source_layout, executing=self._executing_request)

    # ------------------------------------------------------------------------ document state
    def reset_view_state(self, folded=()) -> None:
        """Forget what belonged to the last document: zoom and pan (the next graph is fitted),
        the search text, folds (``folded``: a file's saved ones), and the drawing itself, so
        nothing of the old graph is left behind the "No tensors yet" hint. Called where a new
        script or file replaces the document."""
        self.search.blockSignals(True)
        self.search.clear()
        self.search.blockSignals(False)
        self._search_hits = []
        self._search_index = -1
        self._search_cache = None
        self.search_status.setText("")
        self.folded_groups = set(folded or ())
        self._decided_groups = set(self.folded_groups)
        self._opened_runs = set()
        self._wrap_cache = None
        self._fold_cache = self._auto_folded = None
        self.fold_button.blockSignals(True)
        self.fold_button.setChecked(False)
        self.fold_button.blockSignals(False)
        self._wanted = []
        self.canvas.user_moved = False
        self.canvas.resetTransform()
        self.show_graph(None, None)

    # ---------------------------------------------------------------------------- landmarks
    def landmark_font(self) -> QFont:
        if self._landmark_font is None:
            font = QFont(self.font())
            font.setPointSizeF(LANDMARK_POINT_SIZE)
            font.setBold(True)
            self._landmark_font = font
        return self._landmark_font

    def landmark_labels(self) -> list:
        """(text, viewport rectangle) of the names drawn over the graph when its boxes are too
        small for their own text (fit on a big graph): named tensors and folded boxes, where
        they do not overlap one another. Empty when zoomed in enough to read the boxes."""
        if not self.nodes or self.canvas.zoom() >= LOD_TEXT:
            return []
        metrics = QFontMetricsF(self.landmark_font())
        if self._landmarks is None:
            marks = []
            for node_id, attrs in self.shown_graph.nodes(data=True):
                kind = attrs.get("kind")
                if kind == "group":
                    marks.append((0, node_id, f"▸ {attrs.get('label')}"))
                elif kind == "tensor" and attrs.get("name"):
                    marks.append((1, node_id, attrs["name"]))
            marks.sort(key=lambda m: m[0])
            positions = self._positions
            # [position, text, width]: elided and measured when first drawn, then kept (a fit
            # of 100,000 nodes has 25,000 names, and 300 are drawn).
            self._landmarks = [[positions[node_id], text, None] for _, node_id, text in marks]
            self._landmark_cache = None
        canvas = self.canvas
        to_view = canvas.viewportTransform()
        size = canvas.viewport().size()
        key = (to_view.m11(), to_view.m22(), to_view.dx(), to_view.dy(), size.width(),
               size.height())
        if self._landmark_cache is not None and self._landmark_cache[0] == key:
            return self._landmark_cache[1]
        sx, sy, dx, dy, vw, vh = key  # (the view neither rotates nor shears)
        height = metrics.height() + 2
        taken = BoxSpace()
        out = []
        for mark in self._landmarks:
            (x, y), text, width = mark
            px, py = x * sx + dx, y * sy + dy
            if not (0 <= px <= vw and 0 <= py <= vh):
                continue
            if not taken.is_free((px - 4, py - height / 2, px + 4, py + height / 2)):
                continue  # (its middle is taken: no need to measure it)
            if width is None:
                text = mark[1] = metrics.elidedText(text, Qt.TextElideMode.ElideRight, 180)
                width = mark[2] = metrics.horizontalAdvance(text) + 8
            box = (px - width / 2, py - height / 2, px + width / 2, py + height / 2)
            if not taken.is_free(box):
                continue
            taken.add(box)
            out.append((text, QRectF(box[0], box[1], width, height)))
            if len(out) >= MAX_LANDMARKS:
                break
        self._landmark_cache = (key, out)
        return out

    # ------------------------------------------------------------------------------ overlays
    def _place_overlays(self) -> None:
        vp = self.canvas.viewport().geometry()
        self.overview.move(vp.right() - self.overview.width() - 8,
                           vp.bottom() - self.overview.height() - 8)
        self.empty_hint.setGeometry(vp.adjusted(40, 40, -40, -40))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_overlays()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._place_overlays()


def _same_edge_grads(old: dict, new: dict) -> bool:
    """The two attrs of an edge carry the same gradients (so the same label)."""
    import numpy as np

    def same(a, b) -> bool:
        if a is b:
            return True
        if a is None or b is None:
            return False
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)

    if old.get("count") != new.get("count") or not same(old.get("grad"), new.get("grad")):
        return False
    olds, news = old.get("grads") or (), new.get("grads") or ()
    return len(olds) == len(news) and all(same(a, b) for a, b in zip(olds, news))
