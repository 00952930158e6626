"""The waveform view: incremental peak envelope, per-pixel reduction, timer redraws, seams, seeking."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import speechlike
from PySide6.QtCore import QPoint, Qt

from app.widgets import waveform
from app.widgets.waveform import BLOCK, PeakEnvelope, WaveformView, peak_polyline


def test_envelope_matches_direct_min_max_across_chunk_boundaries() -> None:
    x = speechlike(1.0)
    env = PeakEnvelope()
    for piece in np.array_split(x, [10, 100, 1000, 5001, 5002]):
        env.append(piece)
    mins, maxs = env.pairs()
    n = -(-x.shape[0] // BLOCK)
    padded = np.concatenate([x, np.full(n * BLOCK - x.shape[0], x[-1])]).reshape(n, BLOCK)
    assert np.array_equal(mins, padded.min(axis=1)) and np.array_equal(maxs, padded.max(axis=1))
    assert env.samples == x.shape[0]


def test_polyline_keeps_every_peak_with_one_pair_per_pixel() -> None:
    x = speechlike(60.0, level=0.2)
    x[1_000_003] = 0.99  # a single-sample spike must survive the reduction
    x[700_001] = -0.97
    env = PeakEnvelope()
    env.append(x)
    mins, maxs = env.pairs()
    px, py = peak_polyline(mins, maxs, BLOCK / 24000, 0.0, 60.0, 800)
    assert px.shape[0] <= 2 * 800 + 2
    assert py.max() == pytest.approx(0.99) and py.min() == pytest.approx(-0.97)
    # clip to view: only the visible 10 s are drawn
    vx, _ = peak_polyline(mins, maxs, BLOCK / 24000, 20.0, 30.0, 800)
    assert vx.min() >= 19.9 and vx.max() <= 30.1


def test_view_grows_on_the_timer_not_per_chunk(qtbot) -> None:
    view = WaveformView()
    qtbot.addWidget(view)
    view.resize(600, 200)
    view.show()
    view.begin(24000, expected_seconds=3.0)
    before = view.redraw_count
    x = speechlike(3.0)
    for piece in np.array_split(x, 60):  # 60 chunks in one go: far more than one frame's worth
        view.append(piece)
    assert view.redraw_count == before  # appending never draws
    qtbot.waitUntil(lambda: view.redraw_count > before, timeout=2000)
    assert view.redraw_count - before <= 2
    assert view.duration == pytest.approx(3.0)
    assert len(view.seams) == 59 and view.seams[0] == pytest.approx(x.shape[0] / 60 / 24000, abs=1e-3)
    px, py = view.curve_points()
    assert px.max() == pytest.approx(3.0, abs=0.05)
    assert py.max() == pytest.approx(x.max(), abs=1e-6)


def test_click_seeks_only_on_finished_audio(qtbot) -> None:
    view = WaveformView()
    qtbot.addWidget(view)
    view.resize(800, 200)
    view.show()
    qtbot.waitExposed(view)
    view.begin(24000)
    view.append(speechlike(4.0))
    view.redraw()
    seeks: list[float] = []
    view.seek_requested.connect(seeks.append)
    vp = view.plot.viewport()
    x_mid = vp.width() // 2
    qtbot.mouseClick(vp, Qt.MouseButton.LeftButton, pos=QPoint(x_mid, vp.height() // 2))
    assert seeks == []  # still streaming
    view.finish()
    view.redraw()
    qtbot.mouseClick(vp, Qt.MouseButton.LeftButton, pos=QPoint(x_mid, vp.height() // 2))
    assert len(seeks) == 1
    assert seeks[0] == pytest.approx(view.time_at(x_mid), abs=1e-6)
    assert 1.0 < seeks[0] < 3.0
    count = view.redraw_count
    view.set_playhead(seeks[0])
    qtbot.waitUntil(lambda: view._playhead_line.isVisible(), timeout=2000)
    assert view._playhead_line.value() == pytest.approx(seeks[0])
    assert view.redraw_count == count  # moving the playhead does not rebuild the curve


def test_set_audio_shows_a_finished_take_with_its_seams(qtbot) -> None:
    view = WaveformView()
    qtbot.addWidget(view)
    view.set_audio(speechlike(2.0), 24000, seams=[0.5, 1.2])
    assert view.is_finished and view.seams == [0.5, 1.2]
    view.redraw()
    assert view.seam_marks() == [0.5, 1.2]
    view.clear()
    view.redraw()
    assert view.duration == 0.0 and view.seam_marks() == []


def test_the_plot_is_built_after_the_first_paint_and_shows_what_was_set_before(qtbot, monkeypatch) -> None:
    """Before the window's first frame a view is a placeholder (pyqtgraph is not imported then, issue 25);
    the plot built after that frame draws the audio, seams, playhead and placeholder text set meanwhile."""
    monkeypatch.setattr(waveform, "_pyqtgraph_loaded", lambda: False)  # as in a fresh process
    view = WaveformView()
    qtbot.addWidget(view)
    view.set_placeholder("Takes appear here")
    view.set_audio(speechlike(2.0), 24000, seams=[1.0])
    view.set_playhead(0.5)
    assert not view.is_built and view.curve_points()[0].size == 0 and view.seam_marks() == []
    with qtbot.waitSignal(view.plot_built, timeout=5000):
        view.show()  # the placeholder paints, then the plot replaces it
    qtbot.waitUntil(lambda: view.curve_points()[0].size > 0, timeout=5000)
    assert view.seam_marks() == [1.0]
    assert view._playhead_line.isVisible() and view._playhead_line.value() == pytest.approx(0.5)
    assert view.plot.isVisible() and view.duration == pytest.approx(2.0)


def test_asking_for_the_plot_builds_it_at_once(qtbot, monkeypatch) -> None:
    monkeypatch.setattr(waveform, "_pyqtgraph_loaded", lambda: False)
    view = WaveformView(show_axis=False)
    qtbot.addWidget(view)
    assert not view.is_built
    built: list[bool] = []
    view.plot_built.connect(lambda: built.append(True))
    import pyqtgraph as pg

    view.plot.addItem(pg.InfiniteLine(angle=90))  # as the recorder puts its trim handles on it
    assert view.is_built and built == [True]
    view.build_plot()  # once only
    assert built == [True]
