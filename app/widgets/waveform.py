"""Waveform view of a take: grows while chunks arrive, shows a playhead and chunk seams.

Chunks only update a min/max envelope (:class:`PeakEnvelope`, one pair per :data:`BLOCK` samples),
which costs O(chunk). Drawing happens on a ~30 Hz timer and only when something changed: the
envelope is reduced once more to about one min/max pair per horizontal pixel of the visible range,
so a redraw costs O(width) however long the take is. A click on a finished take asks to seek there.

Marks (:class:`Mark`) are coloured regions with a label, e.g. each line of a dialogue script with its
speaker's name; they are drawn with the rest, on the timer. A right-click asks for a context menu at
that time (:attr:`WaveformView.context_menu_requested`).

pyqtgraph takes about a third of a second to import on a 2-core machine, so it is not imported before the
window's first frame (issue 25): a view first shows a plain placeholder that paints its text, and builds
its plot right after that placeholder is first painted (a zero-timer), or at once when something asks for
:attr:`WaveformView.plot` (:meth:`WaveformView.build_plot`). Everything set before then (audio, seams,
marks, playhead, placeholder text) is kept and drawn by the plot's first redraw.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QContextMenuEvent, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

if TYPE_CHECKING:  # imported by WaveformView.build_plot, after the first frame
    import pyqtgraph as pg

logger = logging.getLogger(__name__)

BLOCK = 64  # samples per envelope pair (2.7 ms at 24 kHz)
REDRAW_MS = 33  # ~30 Hz
MIN_VIEW_SECONDS = 2.0  # the x range never shows less than this while a take grows


@dataclass(frozen=True)
class Mark:
    """A stretch of the audio shown as a coloured region with a label."""

    start: float  # seconds
    end: float  # seconds
    label: str
    color: str  # "#rrggbb"
    tooltip: str = ""


class PeakEnvelope:
    """Running min/max of a growing signal, one pair per ``block`` samples. Not thread-safe."""

    def __init__(self, block: int = BLOCK) -> None:
        self.block = block
        self.clear()

    def clear(self) -> None:
        self._mins = np.zeros(0, np.float32)
        self._maxs = np.zeros(0, np.float32)
        self._count = 0  # number of complete blocks in _mins/_maxs
        self._tail = np.zeros(0, np.float32)  # samples of the incomplete last block
        self.samples = 0

    def append(self, samples: np.ndarray) -> None:
        x = np.asarray(samples, dtype=np.float32).reshape(-1)
        if not x.size:
            return
        self.samples += x.size
        x = np.concatenate([self._tail, x]) if self._tail.size else x
        whole = (x.size // self.block) * self.block
        if whole:
            blocks = x[:whole].reshape(-1, self.block)
            self._grow(blocks.shape[0])
            self._mins[self._count:self._count + blocks.shape[0]] = blocks.min(axis=1)
            self._maxs[self._count:self._count + blocks.shape[0]] = blocks.max(axis=1)
            self._count += blocks.shape[0]
        self._tail = x[whole:].copy()

    def _grow(self, extra: int) -> None:
        need = self._count + extra
        if need > self._mins.shape[0]:
            size = max(need, 2 * self._mins.shape[0], 1024)
            self._mins = np.resize(self._mins, size)
            self._maxs = np.resize(self._maxs, size)

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """(mins, maxs) of every block, the incomplete last block included."""
        mins, maxs = self._mins[: self._count], self._maxs[: self._count]
        if self._tail.size:
            mins = np.append(mins, self._tail.min())
            maxs = np.append(maxs, self._tail.max())
        return mins, maxs


def peak_polyline(mins: np.ndarray, maxs: np.ndarray, block_seconds: float, x0: float, x1: float,
                  width_px: int) -> tuple[np.ndarray, np.ndarray]:
    """Points of a zig-zag line through min and max of each pixel column between ``x0`` and ``x1`` seconds.

    Only blocks inside the view are used (clip to view); when there are more blocks than pixels,
    groups of blocks are reduced to their min and max, so no peak is lost at any zoom.
    """
    n = mins.shape[0]
    if n == 0 or x1 <= x0:
        return np.zeros(0), np.zeros(0)
    first = max(0, int(np.floor(x0 / block_seconds)))
    last = min(n, int(np.ceil(x1 / block_seconds)) + 1)
    if last <= first:
        return np.zeros(0), np.zeros(0)
    lo, hi = mins[first:last], maxs[first:last]
    group = max(1, int(np.ceil(lo.shape[0] / max(1, width_px))))
    if group > 1:
        pad = (-lo.shape[0]) % group
        if pad:
            lo = np.concatenate([lo, np.full(pad, lo[-1], lo.dtype)])
            hi = np.concatenate([hi, np.full(pad, hi[-1], hi.dtype)])
        lo = lo.reshape(-1, group).min(axis=1)
        hi = hi.reshape(-1, group).max(axis=1)
    t = (first + (np.arange(lo.shape[0]) + 0.5) * group) * block_seconds
    x = np.repeat(t, 2)
    y = np.empty(2 * lo.shape[0], dtype=np.float32)
    y[0::2] = lo
    y[1::2] = hi
    return x, y


def _pyqtgraph_loaded() -> bool:
    return "pyqtgraph" in sys.modules


class _Unbuilt(QWidget):
    """What a view shows until its plot is built: the placeholder text, grey on the window's colour. It sizes
    like pyqtgraph's PlotWidget (measured: hint 600x480, at least 68x68, expanding), so nothing moves when the
    plot takes its place."""

    painted = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.text = ""
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(600, 480)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(68, 68)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        super().paintEvent(event)
        if self.text:
            painter = QPainter(self)
            painter.setPen(QColor(140, 140, 140))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.text)
            painter.end()
        self.painted.emit()


class WaveformView(QWidget):
    """Plot of one take (or one voice prompt). Owned by the panel that shows it; GUI thread only."""

    seek_requested = Signal(float)  # seconds; only for finished audio
    context_menu_requested = Signal(float, QPoint)  # seconds under the pointer, global position
    plot_built = Signal()  # the pyqtgraph plot now stands in for the placeholder (see the module's text)

    # Made by build_plot:
    _plot: pg.PlotWidget
    _curve: pg.PlotDataItem
    _seam_marks: pg.PlotDataItem
    _playhead_line: pg.InfiniteLine
    _placeholder: pg.TextItem

    def __init__(self, parent: QWidget | None = None, *, show_axis: bool = True) -> None:
        super().__init__(parent)
        self._env = PeakEnvelope()
        self._rate = 24000
        self._expected = 0.0
        self._finished = False
        self._seams: list[float] = []
        self._playhead: float | None = None
        self._dirty = False  # the audio, seams or range changed: the curve must be rebuilt
        self._playhead_dirty = False  # only the playhead moved
        self.redraw_count = 0  # how many times the curve was redrawn (tests check the timer works)
        self._marks: list[Mark] = []
        self._mark_items: list[tuple[pg.LinearRegionItem, pg.TextItem, Mark]] = []
        self._show_axis = show_axis
        self._placeholder_text = ""
        self._built = False

        self._unbuilt = _Unbuilt(self)
        self._unbuilt.setMinimumHeight(60)
        self._unbuilt.painted.connect(self._build_after_paint, Qt.ConnectionType.SingleShotConnection)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self._unbuilt)
        self._timer = QTimer(self)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._on_timer_tick)
        if _pyqtgraph_loaded():  # already paid for: no placeholder step
            self.build_plot()

    @property
    def is_built(self) -> bool:
        """Whether the pyqtgraph plot has been built (:attr:`plot_built`)."""
        return self._built

    @property
    def plot(self) -> pg.PlotWidget:
        """The pyqtgraph plot, built now if it was not yet."""
        self.build_plot()
        return self._plot

    def _build_after_paint(self) -> None:
        QTimer.singleShot(0, self, self.build_plot)  # once the frame with the placeholder is on screen

    def build_plot(self) -> None:
        """Import pyqtgraph and put the plot in the placeholder's place; does nothing once built."""
        if self._built:
            return
        import pyqtgraph as pg

        self._built = True
        self._plot = plot = pg.PlotWidget(self, background=None)
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.hideButtons()
        plot.setYRange(-1.0, 1.0, padding=0.02)
        plot.getPlotItem().hideAxis("left")
        if not self._show_axis:
            plot.getPlotItem().hideAxis("bottom")
        else:
            plot.getPlotItem().getAxis("bottom").setLabel(self.tr("seconds"))
        plot.setMinimumHeight(60)
        self._curve = plot.plot(pen=pg.mkPen(QColor("#2f7dd1"), width=1))
        # All seams in one item (vertical segments drawn pairwise) rather than one item per seam.
        self._seam_marks = plot.plot(pen=pg.mkPen(QColor(128, 128, 128, 150), width=1,
                                                  style=Qt.PenStyle.DashLine), connect="pairs")
        self._playhead_line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(QColor("#d1462f"), width=2))
        self._playhead_line.setVisible(False)
        plot.addItem(self._playhead_line)
        self._placeholder = pg.TextItem(self._placeholder_text, color=QColor(140, 140, 140), anchor=(0.5, 0.5))
        self._placeholder.setVisible(False)
        plot.addItem(self._placeholder, ignoreBounds=True)
        plot.viewport().installEventFilter(self)
        plot.viewport().setCursor(Qt.CursorShape.ArrowCursor)
        self._layout.replaceWidget(self._unbuilt, plot)
        plot.lower()  # under what the view's owner put over it (the live HUD), as when the plot came first
        plot.show()  # a child made after its parent was shown stays hidden until told
        self._unbuilt.hide()
        self._unbuilt.deleteLater()
        self._set_x_range()
        self._dirty = True
        self._playhead_dirty = True
        self._timer.start()
        if self.isVisible():
            self.redraw()
        self.plot_built.emit()

    # -- content ---------------------------------------------------------------------------
    @property
    def sample_rate(self) -> int:
        return self._rate

    @property
    def duration(self) -> float:
        return self._env.samples / self._rate

    @property
    def seams(self) -> list[float]:
        """Times (s) where one chunk ended and the next began."""
        return list(self._seams)

    @property
    def is_finished(self) -> bool:
        return self._finished

    @property
    def playhead(self) -> float | None:
        return self._playhead

    def clear(self) -> None:
        self.begin(self._rate)
        self._finished = False

    def begin(self, sample_rate: int, expected_seconds: float = 0.0) -> None:
        """Start an empty take that will grow with :meth:`append`."""
        self._env.clear()
        self._rate = int(sample_rate)
        self._expected = max(0.0, float(expected_seconds))
        self._finished = False
        self._seams = []
        self._playhead = None
        self._marks = []
        self._dirty = True

    def append(self, samples: np.ndarray, *, seam: bool = True) -> None:
        """Add one chunk; a seam marker goes where it starts (except for the first, or ``seam`` False: a recording
        growing block by block)."""
        if self._env.samples and seam:
            self._seams.append(self.duration)
        self._env.append(samples)
        self._dirty = True

    def finish(self) -> None:
        self._finished = True
        self._dirty = True

    def set_audio(self, samples: np.ndarray, sample_rate: int, seams: list[float] | tuple[float, ...] = (),
                  *, finished: bool = True) -> None:
        """Show audio at once (a replayed take or a voice prompt); ``finished=False`` lets it keep growing."""
        self.begin(sample_rate)
        self._env.append(samples)
        self._seams = [float(s) for s in seams]
        self._finished = finished

    def set_marks(self, marks: list[Mark]) -> None:
        """Show these marks (replacing any); drawn at the next redraw."""
        if marks != self._marks:
            self._marks = list(marks)
            self._dirty = True

    @property
    def marks(self) -> list[Mark]:
        return list(self._marks)

    def drawn_marks(self) -> list[Mark]:
        """The marks as last drawn (tests check that what is shown is what was set)."""
        return [m for _region, _label, m in self._mark_items]

    def set_placeholder(self, text: str) -> None:
        """Text shown in the middle of the view while there is no audio."""
        self._placeholder_text = text
        if self._built:
            self._placeholder.setText(text)
        else:
            self._unbuilt.text = text
            self._unbuilt.update()
        self._dirty = True

    def set_playhead(self, seconds: float | None) -> None:
        self._playhead = seconds
        self._playhead_dirty = True

    # -- drawing ---------------------------------------------------------------------------
    def _set_x_range(self) -> None:
        span = max(MIN_VIEW_SECONDS, self.duration if self._finished else max(self._expected, self.duration * 1.25))
        self.plot.setXRange(0.0, span, padding=0.0)

    def _on_timer_tick(self) -> None:  # runs once the plot is built
        if not self.isVisible():
            return
        if self._dirty:
            self.redraw()
        elif self._playhead_dirty:
            self._place_playhead()

    def _place_playhead(self) -> None:
        self.build_plot()
        self._playhead_dirty = False
        if self._playhead is None:
            self._playhead_line.setVisible(False)
        else:
            self._playhead_line.setValue(self._playhead)
            self._playhead_line.setVisible(True)

    def redraw(self) -> None:
        """Redraw now (the timer calls this at most ~30 times a second, and only after a change)."""
        self.build_plot()
        self._dirty = False
        self.redraw_count += 1
        self._set_x_range()
        (x0, x1), _ = self.plot.getPlotItem().viewRange()
        mins, maxs = self._env.pairs()
        x, y = peak_polyline(mins, maxs, self._env.block / self._rate, x0, x1, max(1, self.plot.width()))
        self._curve.setData(x, y)
        self._placeholder.setVisible(self._env.samples == 0 and bool(self._placeholder.toPlainText()))
        self._placeholder.setPos((x0 + x1) / 2, 0.0)
        seams = np.repeat(np.asarray(self._seams, dtype=float), 2)
        self._seam_marks.setData(seams, np.tile([-1.0, 1.0], len(self._seams)))
        self._draw_marks()
        self._place_playhead()

    def _draw_marks(self) -> None:
        """Reuse the items of marks that did not change (while a script streams only the last one grows)."""
        import pyqtgraph as pg  # imported already: the plot is built

        for k, mark in enumerate(self._marks):
            if k < len(self._mark_items):
                region, label, shown = self._mark_items[k]
                if shown == mark:
                    continue
            else:
                region = pg.LinearRegionItem(movable=False)
                region.setZValue(-10)  # under the curve
                for line in region.lines:
                    line.setPen(pg.mkPen(None))
                label = pg.TextItem("", anchor=(0.0, 1.0))  # at the band's foot: the live HUD sits at the top
                self.plot.addItem(region, ignoreBounds=True)
                self.plot.addItem(label, ignoreBounds=True)
            color = QColor(mark.color)
            fill = QColor(color)
            fill.setAlpha(45)
            region.setBrush(pg.mkBrush(fill))
            region.setRegion((mark.start, mark.end))
            region.setToolTip(mark.tooltip)
            label.setText(mark.label)
            label.setColor(color)
            label.setPos(mark.start, -1.0)
            item = (region, label, mark)
            if k < len(self._mark_items):
                self._mark_items[k] = item
            else:
                self._mark_items.append(item)
        for region, label, _mark in self._mark_items[len(self._marks):]:
            self.plot.removeItem(region)
            self.plot.removeItem(label)
        del self._mark_items[len(self._marks):]

    def seam_marks(self) -> list[float]:
        """Where seam marks are drawn (s)."""
        if not self._built:
            return []
        x, _ = self._seam_marks.getData()
        return [] if x is None else [float(v) for v in x[::2]]

    def curve_points(self) -> tuple[np.ndarray, np.ndarray]:
        """The points last drawn (x in seconds, y in [-1, 1])."""
        if not self._built:
            return np.zeros(0), np.zeros(0)
        x, y = self._curve.getData()
        return (np.zeros(0), np.zeros(0)) if x is None else (np.asarray(x), np.asarray(y))

    # -- seeking ---------------------------------------------------------------------------
    def time_at(self, x_px: float) -> float:
        """Seconds under the viewport x coordinate ``x_px``."""
        scene = self.plot.mapToScene(int(x_px), 0)
        return float(self.plot.getPlotItem().vb.mapSceneToView(QPointF(scene)).x())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        if not self._built:
            return super().eventFilter(watched, event)
        if (watched is self.plot.viewport() and event.type() == QEvent.Type.ContextMenu
                and isinstance(event, QContextMenuEvent) and self.duration > 0):
            t = min(max(0.0, self.time_at(event.pos().x())), self.duration)
            self.context_menu_requested.emit(t, event.globalPos())
            return True
        if (
            watched is self.plot.viewport()
            and event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.LeftButton
            and self._finished
            and self.duration > 0
        ):
            t = min(max(0.0, self.time_at(event.position().x())), self.duration)
            self.seek_requested.emit(t)
            return True
        return super().eventFilter(watched, event)
