"""bench/bench_playback.py: measured chunk timelines played through the app's own feed on a virtual clock.

Synthetic timelines only (no model, no device, no timing): chunks of the release schedule's growing
lengths (1, 2, 4 s) ready when a steady real-time factor would make them.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from app.audio.playback_feed import DEFAULT_PREROLL, MIN_PREROLL, RING_SECONDS, Feed, PendingQueue, preroll_seconds
from cosycore.errors import CosyError

SR = 24000
BLOCK_S = 1024 / SR  # the simulator's default device block, in seconds


def _load_bench_playback():
    path = Path(__file__).resolve().parents[1] / "bench" / "bench_playback.py"
    spec = importlib.util.spec_from_file_location("bench_playback", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


bp = _load_bench_playback()


def streamed(rtf: float, seconds: list[float], first_ready: float = 0.8) -> list[tuple[float, int]]:
    """Chunks of ``seconds`` each, chunk ``i`` ready ``rtf * (D_i - d_1)`` after the first (``D``: cumulative)."""
    chunks, made = [], 0.0
    for i, d in enumerate(seconds):
        if i:
            made += d
        chunks.append((first_ready + rtf * made, round(d * SR)))
    return chunks


GROWING_18S = [1.0, 2.0, 4.0, 4.0, 4.0, 3.0]
GROWING_14S = [1.0, 2.0, 4.0, 4.0, 3.0]


# Found with this simulator: preroll_seconds() sizes a delay (playback starts P seconds after the first
# chunk), but the feed used to start as soon as P seconds were *buffered*. At RTF 0.9 the 2 s chunk
# lands 1.8 s after the first with 3 s buffered (P = 2.91): playback started then, the first two chunks
# were played out 4.8 s after the first arrived, and the 4 s chunk was ready at 5.4 s (a 0.58 s stall).
# The feed now waits P less the buffered margin of device time before its first start.
@pytest.mark.parametrize("rtf", [0.3, 0.45, 0.6, 0.7, 0.8, 0.9, 0.99])
def test_below_real_time_the_apps_preroll_plays_without_underruns(rtf: float) -> None:
    chunks = streamed(rtf, GROWING_18S)
    preroll = preroll_seconds(rtf, sum(GROWING_18S))
    got = bp.simulate(chunks, SR, preroll)
    assert got.underruns == 0 and got.stall_s == 0.0
    assert got.played_s == pytest.approx(18.0)
    # The first sound comes the pre-roll after the first chunk, less the margin that is buffered by then.
    assert got.first_sound_s == pytest.approx(chunks[0][0] + preroll - min(preroll, MIN_PREROLL), abs=BLOCK_S)


def test_the_first_start_waits_the_preroll_not_for_it_to_be_buffered() -> None:
    # The old rule, in one feed: 3 s buffered at once must not start a 2.91 s pre-roll early.
    feed = Feed.for_stream(SR, 2.91)
    feed.ring.write(np.ones(3 * SR, np.float32))
    out = np.empty(SR // 10, np.float32)
    for _ in range(27):  # 2.7 s of device time: 2.76 s (2.91 less the 0.15 s margin) have not passed yet
        assert feed.fill(out) and feed.frames_played == 0
    for _ in range(2):
        feed.fill(out)
    assert feed.frames_played > 0


def test_below_real_time_a_too_small_preroll_stalls() -> None:
    # At RTF 0.9 the 2 s chunk is ready 1.8 s after the first (which plays 1 s) and the 4 s chunk
    # 5.4 s after it (the first two play 3 s): two stalls of 0.8 and 1.6 s with the minimum pre-roll.
    got = bp.simulate(streamed(0.9, GROWING_18S), SR, MIN_PREROLL)
    assert got.underruns == 2
    assert got.stall_s == pytest.approx(2.4, abs=3 * BLOCK_S)
    assert got.played_s == pytest.approx(18.0)  # late, but every sample plays
    assert got.first_sound_s == pytest.approx(0.8, abs=BLOCK_S)


def test_above_real_time_the_apps_preroll_plays_without_underruns() -> None:
    chunks = streamed(1.5, GROWING_14S)
    preroll = preroll_seconds(1.5, sum(GROWING_14S))
    got = bp.simulate(chunks, SR, preroll)
    assert got.underruns == 0 and got.stall_s == 0.0
    assert got.played_s == pytest.approx(14.0)
    assert got.first_sound_s >= chunks[0][0] + preroll - 1.0  # the first chunk counts toward the pre-roll
    assert bp.simulate(chunks, SR, DEFAULT_PREROLL).underruns > 0


def test_a_take_longer_than_the_ring_waits_in_the_pending_queue() -> None:
    # Everything is ready at once (an offline request): 30 s do not fit the 20 s ring.
    seconds = RING_SECONDS + 10.0
    got = bp.simulate([(2.0, int(seconds * SR))], SR, MIN_PREROLL)
    assert got.underruns == 0 and got.stall_s == 0.0
    assert got.played_s == pytest.approx(seconds)
    assert got.first_sound_s == pytest.approx(2.0)


def test_pending_queue_ends_the_input_only_once_everything_is_in_the_ring() -> None:
    feed = Feed(capacity=100, preroll=10)
    pending = PendingQueue()
    pending.put(np.ones(80, np.float32))
    pending.put(np.zeros(0, np.float32))  # empty chunks are not queued
    pending.put(np.full(50, 2.0, np.float32))
    pending.end()
    pending.top_up(feed)
    assert feed.ring.available == 100 and pending.samples == 30 and not feed.end_of_input
    out = np.empty(64, np.float32)
    assert feed.fill(out) and np.all(out[:64] >= 1)
    pending.top_up(feed)
    assert pending.samples == 0 and not pending and feed.end_of_input
    pending.clear()
    assert pending.samples == 0


class _T:
    def __init__(self, rtf: float, seconds: float = 10.0) -> None:
        self.rtf, self.audio_s = rtf, seconds


def test_preroll_choices_previous_own_none() -> None:
    timelines = [_T(2.0), _T(0.5), _T(0.9)]
    previous = bp.choose_prerolls(timelines, "previous")
    # the app's running average: nothing before the first request, then 2.0, then (2.0 + 0.5) / 2
    assert [r for r, _ in previous] == [None, 2.0, 1.25]
    assert [p for _, p in previous] == [preroll_seconds(None, 10.0), preroll_seconds(2.0, 10.0),
                                        preroll_seconds(1.25, 10.0)]
    own = bp.choose_prerolls(timelines, "own")
    assert [p for _, p in own] == [preroll_seconds(t.rtf, 10.0) for t in timelines]
    assert bp.choose_prerolls(timelines, "none") == [(None, MIN_PREROLL)] * 3
    with pytest.raises(ValueError):
        bp.choose_prerolls(timelines, "best")


def _report(timelines: list[dict] | None) -> dict:
    """A report in the shape bench_perf.py request --json writes."""
    results: dict = {"settings": {"family": "cosyvoice2", "quality": "draft", "quant": "int8"},
                     "first_request": {"rtf": 0.9}, "median_later_requests": {"rtf": 0.9}}
    if timelines is not None:
        results["timelines"] = timelines
    return {"scenario": "request", "device": "cpu", "results": results}


def _timeline(i: int, rtf: float, seconds: list[float]) -> dict:
    chunks = [[t, n] for t, n in streamed(rtf, seconds)]
    return {"request": i, "sample_rate": SR, "rtf": rtf, "audio_s": sum(seconds), "total_s": rtf * sum(seconds),
            "time_to_first_audio_s": chunks[0][0], "chunks": chunks}


def test_report_without_timelines_is_refused_with_a_clear_message(tmp_path: Path, capsys) -> None:
    old = tmp_path / "old.json"
    old.write_text(json.dumps(_report(None)))
    with pytest.raises(bp.ReportError, match="no chunk timelines") as e:
        bp.read_report(old)
    assert isinstance(e.value, CosyError) and "bench_perf.py request" in str(e.value)
    assert bp.main([str(old)]) == 2
    assert "no chunk timelines" in capsys.readouterr().err
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_report([_timeline(0, 0.3, GROWING_14S)])))
    assert bp.main([str(old), str(good)]) == 2  # the readable one is still simulated; the exit says one was not
    captured = capsys.readouterr()
    assert "skipped" in captured.err and str(old) in captured.err and "good.json" in captured.out
    other = tmp_path / "llm.json"
    other.write_text(json.dumps({"scenario": "llm-speed", "results": {}}))
    with pytest.raises(bp.ReportError, match="only request reports"):
        bp.read_report(other)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(_report([{"request": 0, "sample_rate": SR, "rtf": 0.5, "chunks": [[1.0, -5]]}])))
    with pytest.raises(bp.ReportError, match="timelines\\[0\\]"):
        bp.read_report(broken)
    with pytest.raises(bp.ReportError, match="not a JSON report"):
        (tmp_path / "text.json").write_text("request 0: rtf=0.9")
        bp.read_report(tmp_path / "text.json")


def test_report_round_trip_previous_vs_own(tmp_path: Path, capsys) -> None:
    # Request 0 is fast (nothing measured: the default pre-roll suffices); request 1 runs at 0.7 with
    # the pre-roll of request 0's 0.3, too small: the app's way stalls where the own RTF would not
    # (the 2 s chunk comes 0.4 s late, the 4 s one 0.8 s).
    path = tmp_path / "draft.json"
    path.write_text(json.dumps(_report([_timeline(0, 0.3, GROWING_18S), _timeline(1, 0.7, GROWING_18S)])))
    out = tmp_path / "sim.json"
    assert bp.main([str(path), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "request 1: rtf 0.700" in printed and "RTF below 1: 2 requests, 1 with underruns" in printed
    sim = json.loads(out.read_text())
    (report,) = sim["reports"]
    assert report["settings"]["quality"] == "draft" and report["preroll_from"] == "previous"
    first, second = report["requests"]
    assert first["preroll_from_rtf"] is None and first["preroll_s"] == preroll_seconds(None, 18.0)
    assert first["underruns"] == 0
    assert second["preroll_from_rtf"] == 0.3 and second["underruns"] == 2
    assert second["stall_s"] == pytest.approx(1.2, abs=3 * BLOCK_S)
    assert report["summary"]["with_underruns"] == 1 and report["summary"]["rtf_below_1_with_underruns"] == 1
    assert bp.main([str(path), "--preroll-from", "own", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["reports"][0]["summary"]["underruns"] == 0
