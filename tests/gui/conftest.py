"""Fixtures of the desktop-app tests.

Audio: at import time (before any test imports sounddevice) ALSA is pointed at a configuration
whose default device is a null sink that also writes everything played to ``PLAYED.raw``, so the
tests can check what really reached the audio device. Its capture side reads ``MIC.raw`` (float32,
mono, 48 kHz, what the recorder asks for): the null plugin alone hands back uninitialised memory
when recorded from, so the file plugin's ``infile`` gives the "microphone" known content instead.
``no_audio_device`` switches PortAudio to the plain ALSA configuration, which has no device on a
machine without a sound card.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import math
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QObject, QSettings, QTimer, Signal

_ALSA_DIR = Path(tempfile.mkdtemp(prefix="cosy-alsa-"))
atexit.register(shutil.rmtree, _ALSA_DIR, True)
PLAYED = _ALSA_DIR / "PLAYED.raw"
MIC = _ALSA_DIR / "MIC.raw"
MIC_RATE = 48000
NULL_ALSA_CONF = _ALSA_DIR / "asound.conf"
# Self-contained on purpose: including the system's alsa.conf would also load its plugin
# configurations (PulseAudio/PipeWire), which take over the default device on desktop machines.
NULL_ALSA_CONF.write_text(
    'pcm.!default { type plug slave.pcm "tee2file" }\n'
    f'pcm.tee2file {{ type file slave.pcm "nullsink" file "{PLAYED}" infile "{MIC}" format "raw" }}\n'
    "pcm.nullsink { type null }\n",
    encoding="utf-8",
)
PLAIN_ALSA_CONF = "/usr/share/alsa/alsa.conf"
os.environ["ALSA_CONFIG_PATH"] = str(NULL_ALSA_CONF)
MIC.write_bytes(b"")

from app.config.settings import AppPaths, Settings  # noqa: E402
from app.main import keep_singletons_alive  # noqa: E402
from app.worker.engine_thread import SynthesisStats  # noqa: E402
from app.worker.eta import rtf_key  # noqa: E402
from cosycore.config import QUALITY_MODES  # noqa: E402
from cosycore.engine import AudioChunk, EngineInfo, SynthesisRequest  # noqa: E402
from cosycore.perf import resolve_quality  # noqa: E402
from cosycore.voices import Voice  # noqa: E402
from tests.conftest import folder_digest, shared_across_workers  # noqa: E402

SR = 24000
# PySide6 6.12 on Python 3.11 loses a reference to None with every void Qt call; a long test session
# makes enough such calls to abort the interpreter (see app.main.keep_singletons_alive).
keep_singletons_alive()


def _reinit_portaudio(config: str) -> None:
    import sounddevice as sd

    sd._terminate()
    os.environ["ALSA_CONFIG_PATH"] = config
    sd._initialize()


@pytest.fixture
def null_audio() -> Iterator[Path]:
    """The null ALSA device is the default output; yields the file that records what was played.

    Its microphone plays :func:`speechlike` audio (see :func:`mic_input`).
    """
    _reinit_portaudio(str(NULL_ALSA_CONF))
    PLAYED.unlink(missing_ok=True)
    mic_input(speechlike(MAX_MIC_SECONDS, sr=MIC_RATE, seed=11))
    yield PLAYED


MAX_MIC_SECONDS = 35.0


def mic_input(samples: np.ndarray) -> None:
    """What the null device's microphone delivers from the next opened stream on (float32 at MIC_RATE)."""
    np.asarray(samples, dtype=np.float32).tofile(MIC)


@pytest.fixture
def no_audio_device() -> Iterator[None]:
    """PortAudio without any device, as on a machine with no sound card."""
    _reinit_portaudio(PLAIN_ALSA_CONF)
    import sounddevice as sd

    if len(sd.query_devices()) != 0:
        _reinit_portaudio(str(NULL_ALSA_CONF))
        pytest.skip("ALSA's default configuration lists devices here (a sound card, or a PulseAudio/PipeWire "
                    "plugin), so a machine without audio devices cannot be simulated")
    yield
    _reinit_portaudio(str(NULL_ALSA_CONF))


def played_samples(path: Path = PLAYED) -> np.ndarray:
    return np.fromfile(path, dtype=np.float32) if path.exists() else np.zeros(0, np.float32)


def played_offset(played: np.ndarray, audio: np.ndarray) -> int:
    """Where ``audio`` starts in what the device received: after the leading zeros of PortAudio's prefill."""
    lead_played = int(np.flatnonzero(played)[0])
    lead_audio = int(np.flatnonzero(audio)[0])
    return lead_played - lead_audio


@contextlib.contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run torch with ``n`` intra-op threads: on two shared cores, one thread avoids OpenMP stalls."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# Save / Don't save / Cancel questions a test is about to answer itself (tests/gui/test_gui_projects.py)
ARMED_QUESTIONS: list[int] = []


@pytest.fixture(autouse=True)
def _no_question_at_teardown(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """pytest-qt closes the windows before the fixtures end: a window whose project has unsaved work (a
    take made in a test marks it) must not leave that close waiting on the modal Save / Don't save
    question, so a question no test armed is answered Don't save (the takes stay either way)."""
    from PySide6.QtWidgets import QMessageBox

    from app.controllers.projects import ProjectsController

    real = ProjectsController.ask_unsaved

    def ask(self: ProjectsController) -> QMessageBox.StandardButton:
        if ARMED_QUESTIONS:
            ARMED_QUESTIONS.pop()
            return real(self)
        return QMessageBox.StandardButton.Discard

    monkeypatch.setattr(ProjectsController, "ask_unsaved", ask)
    ARMED_QUESTIONS.clear()
    yield
    ARMED_QUESTIONS.clear()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings in a temporary INI file, with data folders under tmp_path."""
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    paths = AppPaths(data=tmp_path / "data", cache=tmp_path / "cache", logs=tmp_path / "logs")
    return Settings(store, paths)


def speechlike(seconds: float, sr: int = SR, level: float = 0.3, seed: int = 0) -> np.ndarray:
    """A voiced, syllable-modulated harmonic signal: loud enough, not clipped, not silent (a fresh copy;
    made once per process for each set of arguments: every null_audio test's 35 s microphone signal took
    a third of a second)."""
    return _speechlike(seconds, sr, level, seed).copy()


@functools.lru_cache(maxsize=16)
def _speechlike(seconds: float, sr: int, level: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * sr)) / sr
    f0 = 120 + 20 * np.sin(2 * math.pi * 0.7 * t)
    phase = 2 * math.pi * np.cumsum(f0) / sr
    x = sum(np.sin(k * phase) / k for k in range(1, 12))
    envelope = 0.5 * (1 + np.sin(2 * math.pi * 4 * t)) ** 2
    x = x * envelope + 0.01 * rng.standard_normal(t.shape)
    return (level * x / np.max(np.abs(x))).astype(np.float32)


@pytest.fixture(scope="session")
def tiny_engine_voice(tiny_cv2_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Voice:
    """A saved voice made by the real engine on the tiny CosyVoice2 model (once per run, across workers)."""

    def make() -> Voice:
        from cosycore.engine import Engine

        with torch_threads(1):
            engine = Engine(tiny_cv2_model, device="cpu")
            return engine.create_voice(speechlike(4.0), SR, transcript="Hello, this is my test voice.",
                                       name="Tester")

    return shared_across_workers(tmp_path_factory, f"engine-voice-{folder_digest(tiny_cv2_model)}", make)


@pytest.fixture(scope="session")
def recorded_chunks(tiny_cv2_model: Path, tiny_engine_voice: Voice,
                    tmp_path_factory: pytest.TempPathFactory) -> list[AudioChunk]:
    """Chunks of one real streamed take of the tiny model, for replay by :class:`FakeEngine` (made once per
    run). At least 60 speech tokens a segment: several chunks, so that a test can stop the take midway."""

    def make() -> list[AudioChunk]:
        from app.worker.engine_messages import detached_chunk
        from cosycore.engine import Engine

        request = SynthesisRequest("Hello there. How are you today?", mode="cross_lingual",
                                   voice=tiny_engine_voice, seed=3, stream=True, min_tokens=60)
        with torch_threads(1):
            engine = Engine(tiny_cv2_model, device="cpu")
            return [detached_chunk(c, 0.1 * (i + 1)) for i, c in enumerate(engine.synthesize(request))]

    return shared_across_workers(tmp_path_factory, f"recorded-chunks-{folder_digest(tiny_cv2_model)}", make)


def engine_info(model_dir: str | Path, family: str = "cosyvoice2", *, quality: str = "exact",
                requested_quality: str = "", load_seconds: float = 0.01) -> EngineInfo:
    """The facts of a loaded model as the engine reports them, for a test double."""
    title = "Fun-CosyVoice3" if family == "cosyvoice3" else "CosyVoice2"
    return EngineInfo(family, title, Path(model_dir), "cpu", "float32", SR, 25, (), (), 0, quality=quality,
                      requested_quality=requested_quality or quality, load_seconds=load_seconds)


class FakeEngine(QObject):
    """Test double of :class:`app.worker.engine_thread.EngineThread` that replays recorded chunks on a timer.

    Same signals and methods; no thread, no model. ``interval_ms`` spaces the chunks.
    """

    load_started = Signal(str)
    load_progress = Signal(int, str)
    model_loaded = Signal(object)
    load_failed = Signal(str)
    synthesis_started = Signal(int)
    chunk_ready = Signal(int, object)
    synthesis_finished = Signal(object)
    synthesis_cancelled = Signal(object)
    synthesis_failed = Signal(int, str)
    voice_created = Signal(int, object, object)
    voice_failed = Signal(int, str)
    voice_refreshed = Signal(int, object)
    script_started = Signal(int, object)  # the fake speaks no scripts (tests of scripts use the real engine)
    line_regenerated = Signal(int, object)
    regen_failed = Signal(int, str)

    def __init__(self, chunks: list[AudioChunk], *, interval_ms: int = 20, family: str = "cosyvoice2",
                 voice_factory=None) -> None:
        super().__init__()
        self.chunks = chunks
        self.interval_ms = interval_ms
        self.family = family
        self.requests: list[SynthesisRequest] = []
        self.voice_factory = voice_factory
        self._next = 0
        self._running: int | None = None
        self._pos = 0
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._emit_next)
        self.model_info: EngineInfo | None = None
        self.loads: list[tuple[str, str, str]] = []  # (model folder, device, quality) of each load_model call
        self.torch_threads: int | None = None
        self.rtf_lookup = None  # set by the Performance menu, as on the real engine thread
        self.shut_down = False
        self.refreshed: list[str] = []  # names of voices refresh_voice was asked for

    @property
    def busy(self) -> bool:
        return self._running is not None

    def load_model(self, model_dir, device: str = "auto", quality: str = "exact") -> int:
        self.stop()  # as the engine thread: a running take is cancelled before the load
        self._next += 1
        self.loads.append((str(model_dir), device, quality))
        self.load_started.emit(str(model_dir))
        self.load_progress.emit(50, "Loading weights")
        chosen = resolve_quality(quality, "cpu", {q: self.rtf_lookup(rtf_key(model_dir, "cpu", q))
                                                  for q in QUALITY_MODES} if self.rtf_lookup else None)
        self.model_info = engine_info(model_dir, self.family, quality=chosen, requested_quality=quality)
        QTimer.singleShot(0, lambda: self.model_loaded.emit(self.model_info))
        return self._next

    def set_threads(self, threads: int | None) -> None:
        self.torch_threads = threads

    def speak(self, request: SynthesisRequest) -> int:
        self._next += 1
        if self._running is not None:
            self._cancel()
        self.requests.append(request)
        self._running = self._next
        self._pos = 0
        self.synthesis_started.emit(self._next)
        self._timer.start(self.interval_ms)
        return self._next

    def _cancel(self) -> None:
        rid, self._running = self._running, None
        self._timer.stop()
        audio = sum(c.samples.shape[0] for c in self.chunks[: self._pos]) / SR
        self.synthesis_cancelled.emit(SynthesisStats(rid, audio, 0.1, 0.1 if self._pos else None, self._pos, True))

    def stop(self) -> None:
        if self._running is not None:
            self._cancel()

    def _emit_next(self) -> None:
        rid = self._running
        if rid is None:
            return
        chunk = self.chunks[self._pos]
        self._pos += 1
        self.chunk_ready.emit(rid, chunk)
        if self._pos == len(self.chunks):
            self._timer.stop()
            self._running = None
            audio = sum(c.samples.shape[0] for c in self.chunks) / SR
            self.synthesis_finished.emit(SynthesisStats(rid, audio, audio * 0.5, self.chunks[0].timing,
                                                        len(self.chunks), False))

    def create_voice(self, audio, sample_rate, name, transcript, language="") -> int:
        self._next += 1
        job = self._next
        voice = self.voice_factory(name, transcript)
        QTimer.singleShot(0, lambda: self.voice_created.emit(job, voice, ()))
        return job

    def refresh_voice(self, voice) -> int:
        """Re-made for the loaded family (features unchanged: the test double has no model)."""
        from dataclasses import replace

        self._next += 1
        job = self._next
        fresh = replace(voice, family=self.family)
        self.refreshed.append(voice.name)
        QTimer.singleShot(0, lambda: self.voice_refreshed.emit(job, fresh))
        return job

    def run_on_engine(self, fn) -> None:
        """Like EngineThread.run_on_engine: ``fn(None)`` off the GUI thread (no model is loaded here)."""
        import threading

        self.engine_calls = getattr(self, "engine_calls", 0) + 1
        threading.Thread(target=fn, args=(None,), name="fake-engine-call", daemon=True).start()

    def shutdown(self, timeout_ms: int = 0) -> bool:
        self.stop()
        self.shut_down = True
        return True


@pytest.fixture
def fake_engine(recorded_chunks: list[AudioChunk], tiny_engine_voice: Voice) -> FakeEngine:
    def make_voice(name: str, transcript: str) -> Voice:
        return Voice(name=name, transcript=transcript, language="en", family="cosyvoice2",
                     speech_tokenizer_sha256=tiny_engine_voice.speech_tokenizer_sha256,
                     audio_24k=tiny_engine_voice.audio_24k, speech_tokens=tiny_engine_voice.speech_tokens,
                     embedding=tiny_engine_voice.embedding, prompt_mel=tiny_engine_voice.prompt_mel)

    return FakeEngine(recorded_chunks, voice_factory=make_voice)


@pytest.fixture
def library_with_voice(settings: Settings, tiny_engine_voice: Voice):
    from cosycore.voices import VoiceLibrary

    lib = VoiceLibrary(settings.paths.voices)
    lib.add(tiny_engine_voice)
    return lib


@pytest.fixture(scope="module")
def engine_per_module() -> Iterator[None]:
    """One loaded :class:`cosycore.engine.Engine` per test module and model: every EngineThread of the
    module's tests gets the engine that the first one loaded for the same folder, device, quality and
    threads. The app never changes an engine it was given (it only asks it for speech and voices), so
    the tests stay independent of their order; what they pay once is the loading. The module's tests
    run on one xdist worker (tests/conftest.py groups tests that use a module-scoped fixture)."""
    from app.worker import engine_thread
    from cosycore.engine import core

    engines: dict[tuple[str, ...], object] = {}

    class Shared:
        def __getattr__(self, name: str):  # everything else the thread takes from the engine module
            return getattr(core, name)

        @staticmethod
        def Engine(model_dir, **kwargs):  # noqa: N802 - stands in for the class
            key = (str(Path(model_dir).resolve()), *(f"{k}={kwargs[k]!r}" for k in sorted(kwargs)))
            if key not in engines:
                engines[key] = core.Engine(model_dir, **kwargs)
            return engines[key]

    shared = Shared()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine_thread, "_engine_module", lambda: shared)
        yield


def open_window(qtbot, settings: Settings, engine, model: Path, *, size: tuple[int, int] | None = (1200, 800),
                timeout: int = 30_000):
    """A shown main window on ``model`` with ``engine`` (a test double or an EngineThread), once the model
    is loaded; ``size`` None keeps the window's own size. Handed to qtbot, which closes it after the test."""
    from app.main_window import MainWindow

    w = MainWindow(settings, model_dir=model, engine=engine)
    qtbot.addWidget(w)
    if size is not None:
        w.resize(*size)
    w.show()
    qtbot.waitUntil(lambda: w.session.model_info is not None, timeout=timeout)
    return w


def open_engine_window(qtbot, settings: Settings, model: Path):
    """:func:`open_window` with the real engine thread (one torch thread) loading ``model``."""
    from app.worker.engine_thread import EngineThread

    return open_window(qtbot, settings, EngineThread(torch_threads=1), model, timeout=120_000)


@pytest.fixture
def engine_window(qtbot, settings: Settings, library_with_voice, tiny_cv2_model: Path):
    """The main window (1200x800) on the tiny model with the real engine thread and one saved voice; closed
    after the test, which must end the engine thread: at once, or (a step of a take or a render still
    running past the window's wait on close) soon after."""
    w = open_engine_window(qtbot, settings, tiny_cv2_model)
    yield w
    w.close()
    qtbot.waitUntil(w.session.engine.isFinished, timeout=60_000)


@pytest.fixture
def window(request: pytest.FixtureRequest, qtbot, settings: Settings, library_with_voice, tiny_cv2_model: Path):
    """The main window (1200x800) on the tiny model with one saved voice: with the engine's test double, or in
    a module marked ``real_engine`` the :func:`engine_window` (a module may add its own setup on top)."""
    if request.node.get_closest_marker("real_engine") is not None:
        return request.getfixturevalue("engine_window")
    return open_window(qtbot, settings, request.getfixturevalue("fake_engine"), tiny_cv2_model)
