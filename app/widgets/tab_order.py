"""Tab order that follows the layout: pane by pane (left to right), and in each pane row by row, top to
bottom, left to right. Qt's default is the order the widgets were made in, which is not what is seen."""

from __future__ import annotations

import itertools

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QWidget

ROW_PIXELS = 14  # widgets whose vertical centres are this close sit on one row


def _tab_stop(widget: QWidget) -> bool:
    return bool(widget.focusPolicy() & Qt.FocusPolicy.TabFocus)


def _inside_a_tab_stop(widget: QWidget, pane: QWidget) -> bool:
    """Part of a composite widget (a spin box's line edit, a combo box's) that is a tab stop itself."""
    parent = widget.parentWidget()
    while parent is not None and parent is not pane:
        if _tab_stop(parent) or parent.focusProxy() is widget:
            return True
        parent = parent.parentWidget()
    return False


def layout_order(pane: QWidget) -> list[QWidget]:
    """The visible tab stops of ``pane``, row by row, top to bottom, left to right."""
    stops = [w for w in pane.findChildren(QWidget) if _tab_stop(w) and w.isVisibleTo(pane)
             and w.focusProxy() is None and not _inside_a_tab_stop(w, pane)]

    def key(w: QWidget) -> tuple[int, int]:
        centre = w.mapTo(pane, QPoint(0, w.height() // 2))
        return centre.y() // ROW_PIXELS, centre.x()

    return sorted(stops, key=key)


def order_tabs_by_layout(panes: list[QWidget]) -> list[QWidget]:
    """Chain the tab stops of ``panes`` in the order they are seen; returns the chain."""
    chain = [w for pane in panes for w in layout_order(pane)]
    for first, second in itertools.pairwise(chain):
        QWidget.setTabOrder(first, second)
    return chain
