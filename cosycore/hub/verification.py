"""Re-checking an installed model: sizes and hashes against its manifest, optionally a smoke test.

The smoke test of a CosyVoice release loads it with the engine and speaks a few speech tokens through
the request path the app and the CLI use (:func:`synthesis_smoke_test`, :func:`smoke_speech`); that of
the speech recognizer transcribes a short clip (:func:`transcription_smoke_test`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..config import load_model_config
from ..errors import (
    CosyError,
    IntegrityError,
    ModelLoadError,
    ModelNotFoundError,
    SynthesisError,
)
from ..manifest import Manifest, read_manifest
from .catalog import ModelFamily, ModelKind, required_files_for
from .common import sha256_file
from .listing import folder_kind
from .progress import ProgressCallback, Reporter, format_bytes

if TYPE_CHECKING:
    from ..engine import Engine

logger = logging.getLogger(__name__)


SmokeTest = Callable[[Path], object]


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of :func:`verify`."""

    folder: Path
    family: ModelFamily | None  # None when the folder's yaml (or SenseVoice model) could not be read
    managed: bool  # a manifest was found, so sizes (and hashes) were compared with install time
    files_checked: int
    bytes_checked: int
    hashed: bool  # sha256 was recomputed (not just sizes)
    problems: tuple[str, ...]  # one readable sentence each; empty when all is well
    smoke_seconds: float | None = None  # seconds the test synthesis took; None when not run
    unverified: tuple[str, ...] = ()  # files that had no published hash when they were downloaded
    kind: ModelKind = "tts"  # what the smoke test did: "tts" synthesised, "asr" transcribed

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.problems:
            return f"{len(self.problems)} problem(s) in {self.folder}: " + " ".join(self.problems)
        how = "sizes and sha256" if self.hashed else "sizes"
        what = (f"{self.files_checked} files ({format_bytes(self.bytes_checked)}) match the install manifest "
                f"({how})" if self.managed else "the folder has every file the model needs (no install manifest, "
                "so hashes could not be compared)")
        test = "transcription" if self.kind == "asr" else "synthesis"
        smoke = f"; a test {test} ran in {self.smoke_seconds:.1f} s" if self.smoke_seconds is not None else ""
        unverified = ""
        if self.unverified:
            names = ", ".join(self.unverified[:4]) + (" …" if len(self.unverified) > 4 else "")
            unverified = (f" {len(self.unverified)} file(s) are unverified: the hub published no hash for them when "
                          f"they were downloaded ({names}), so only their size and install-time sha256 are known.")
        return f"OK: {what}{smoke}.{unverified}"


SMOKE_TOKENS = 6  # speech tokens a model check speaks: enough for every network to run, quick on a CPU
SMOKE_TEXT = "Hello."
SMOKE_PROMPT_RATE = 16_000


def smoke_prompt(seconds: float = 2.0) -> np.ndarray:
    """A voiced, vowel-like test signal at :data:`SMOKE_PROMPT_RATE` (harmonics of a gliding 140 Hz tone
    with a syllable envelope): the prompt of a test synthesis, so no recording is needed."""
    t = np.arange(int(seconds * SMOKE_PROMPT_RATE)) / SMOKE_PROMPT_RATE
    f0 = 140.0 + 20.0 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(f0) / SMOKE_PROMPT_RATE
    voice = sum(np.sin(k * phase) / k for k in range(1, 8))
    envelope = 0.5 * (1 - np.cos(2 * np.pi * 3.0 * t))
    rng = np.random.default_rng(0)
    audio = 0.3 * envelope * voice / 2.6 + 0.003 * rng.standard_normal(t.size)
    return audio.astype(np.float32)


def smoke_speech(engine: Engine, *, text: str = SMOKE_TEXT, min_tokens: int | None = SMOKE_TOKENS,
                 max_tokens: int = SMOKE_TOKENS, stream: bool = False) -> tuple[np.ndarray, int]:
    """A test synthesis through :meth:`~cosycore.engine.Engine.synthesize`, the path every request of the
    app and the CLI takes (text frontend, prompt extraction with the ONNX models, the speech LM, token2wav,
    the vocoder): ``text`` in the voice of :func:`smoke_prompt`, cross-lingual, seed 0. Returns the
    samples and the chunk count; raises :class:`~cosycore.errors.SynthesisError` when the audio is empty
    or not finite."""
    from ..engine import SynthesisRequest

    request = SynthesisRequest(text, mode="cross_lingual", prompt_audio=smoke_prompt(),
                               prompt_sample_rate=SMOKE_PROMPT_RATE, seed=0, stream=stream,
                               min_tokens=min_tokens, max_tokens=max_tokens)
    chunks = [np.asarray(c.samples) for c in engine.synthesize(request)]
    audio = np.concatenate(chunks) if chunks else np.zeros(0, np.float32)
    bad = int(audio.size - np.isfinite(audio).sum())
    if audio.size == 0 or bad:
        raise SynthesisError(f"{engine.cfg.model_dir} loaded but produced no usable audio ({audio.size} samples, "
                             f"{bad} not finite). Run 'cosycore models verify' on it and download it again.")
    return audio, len(chunks)


def synthesis_smoke_test(folder: Path, *, device: str = "cpu", tokens: int = SMOKE_TOKENS) -> float:
    """Load ``folder`` with :class:`~cosycore.engine.Engine` and speak a few speech tokens of
    :func:`smoke_speech` (the app's own request path). Returns the seconds of audio made; raises when
    loading fails or the audio is empty or not finite."""
    from ..engine import Engine

    engine = Engine(folder, device=device)
    audio, _chunks = smoke_speech(engine, min_tokens=tokens, max_tokens=tokens)
    return float(audio.size / engine.sample_rate)


def transcription_smoke_test(folder: Path, *, seconds: float = 1.0) -> float:
    """Load ``folder`` with :class:`~cosycore.asr.SenseVoice` and transcribe a synthetic clip.

    The clip is a tone glide with noise, not speech: the test shows that the model loads and runs
    end to end (features, graph, decoding), not what it hears. Returns the seconds of audio.
    """
    from ..asr import SAMPLE_RATE, SenseVoice

    recognizer = SenseVoice.load(folder, threads=1)
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    noise = np.random.default_rng(0).normal(0.0, 0.02, t.size)
    clip = (0.3 * np.sin(2 * np.pi * 200 * t * (1 + t)) + noise).astype(np.float32)
    result = recognizer.transcribe(clip, SAMPLE_RATE, what="the test clip")
    if not isinstance(result.text, str):
        raise ModelLoadError(f"{folder} loaded but returned no transcript.")
    return result.seconds


def smoke_test_for(folder: Path | str, *, device: str = "cpu") -> SmokeTest:
    """The smoke test that fits ``folder``: a transcription for a recognizer, else a synthesis."""
    try:
        kind, _family = folder_kind(folder)
    except ModelLoadError:
        kind = "tts"  # verify reports the folder's problem; the smoke test is not run then
    if kind == "asr":
        return transcription_smoke_test
    return lambda path: synthesis_smoke_test(path, device=device)


def _asr_problems(folder: Path) -> list[str]:
    from ..asr import check_model_folder

    try:
        check_model_folder(folder)
    except CosyError as e:
        return [str(e)]
    return []


def verify(folder: Path | str, *, hashes: bool = True, smoke_test: SmokeTest | None = None,
           progress: ProgressCallback | None = None, cancel: threading.Event | None = None) -> VerifyReport:
    """Re-check a model folder against its install manifest (sizes, and sha256 when ``hashes``).

    A folder without a manifest (one the user brought) is checked for the files its family needs.
    ``smoke_test`` (for example :func:`synthesis_smoke_test`, or a function that builds the engine)
    is called with the folder when every file checks out; whatever it raises becomes a problem.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelNotFoundError(f"{folder} does not exist; choose an existing model folder.")
    problems: list[str] = []
    family: ModelFamily | None = None
    kind: ModelKind = "tts"
    try:
        kind, _guess = folder_kind(folder)
        if kind == "asr":
            problems.extend(_asr_problems(folder))
            family = "sensevoice"
        else:
            family = load_model_config(folder).family
    except CosyError as e:
        problems.append(str(e))
    manifest: Manifest | None = None
    try:
        manifest = read_manifest(folder)
    except IntegrityError as e:
        problems.append(str(e))
    files_checked = bytes_checked = 0
    if manifest is not None:
        if family is not None and manifest.family != family:
            problems.append(f"The manifest says {manifest.family} but the folder holds a {family} model.")
        reporter = Reporter(folder.name, progress, manifest.total_bytes, len(manifest.files), phase="verifying")
        from .removal import safe_member

        for index, mf in enumerate(manifest.files):
            reporter.start_file(index, mf.path, mf.size)
            member = safe_member(folder, mf.path)
            if member is None:  # never hash (or even stat) what lies outside the folder
                problems.append(f"The manifest lists {mf.path!r}, a path outside the model folder; it was not checked.")
                continue
            path = member
            if path.is_symlink() or not path.is_file():
                problems.append(f"{mf.path} is missing.")
                continue
            size = path.stat().st_size
            if size != mf.size:
                problems.append(f"{mf.path} has {size} bytes; it had {mf.size} when installed.")
                continue
            if hashes:
                digest = sha256_file(path, on_bytes=reporter.moved_bytes, cancel=cancel)
                if digest != mf.sha256:
                    problems.append(f"{mf.path} has changed since it was installed (sha256 {digest[:12]}…, "
                                    f"expected {mf.sha256[:12]}…).")
            else:
                reporter.resumed(size)
            files_checked += 1
            bytes_checked += size
        reporter.set_phase("done")
    elif family is not None and kind == "tts":  # a recognizer's files were checked by _asr_problems
        for rel in required_files_for(family):
            path = folder / rel
            if not path.is_file() or path.stat().st_size == 0:
                problems.append(f"{rel} is missing or empty.")
            else:
                files_checked += 1
                bytes_checked += path.stat().st_size
    if problems:
        problems.append("Download the model again (or replace the damaged files) before using it.")
    smoke_seconds: float | None = None
    if smoke_test is not None and not problems:
        start = time.perf_counter()
        try:
            smoke_test(folder)
        except Exception as e:  # any failure of the caller's test is a finding to report, not a crash
            logger.exception("smoke test failed for %s", folder)
            test = "transcription" if kind == "asr" else "synthesis"
            problems.append(f"The model files are intact but a test {test} failed: {e}")
        else:
            smoke_seconds = time.perf_counter() - start
    unverified = tuple(f.path for f in manifest.files if not f.verified) if manifest is not None else ()
    return VerifyReport(folder, family, manifest is not None, files_checked, bytes_checked,
                        hashes and manifest is not None, tuple(problems), smoke_seconds, unverified, kind)
