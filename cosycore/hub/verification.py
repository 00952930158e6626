"""Re-checking an installed model: sizes and hashes against its manifest, optionally a smoke test.

The smoke test of a CosyVoice release synthesises a few speech tokens
(:func:`synthesis_smoke_test`); that of the speech recognizer transcribes a short clip
(:func:`transcription_smoke_test`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..config import load_model_config
from ..errors import (
    CosyError,
    IntegrityError,
    ModelLoadError,
    ModelNotFoundError,
)
from ..manifest import Manifest, read_manifest
from .catalog import ModelFamily, ModelKind, required_files_for
from .common import sha256_file
from .listing import folder_kind
from .progress import ProgressCallback, Reporter, format_bytes

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


def synthesis_smoke_test(folder: Path, *, device: str = "cpu", tokens: int = 6) -> float:
    """Load ``folder`` with :class:`~cosycore.model.CosyModel` and synthesise a few speech tokens.

    Uses fixed text ids and a random speaker embedding (no prompt audio is needed). Returns the
    seconds of audio made; raises when loading fails or the audio is empty or not finite.
    """
    import numpy as np
    import torch

    from ..lm.token_ids import ENDOFPROMPT_ID
    from ..model import CosyModel, SynthesisKnobs

    model = CosyModel.load(folder, device=device)
    generator = torch.Generator().manual_seed(0)
    embedding = torch.randn(model.cfg.flow.spk_embed_dim, generator=generator)
    knobs = SynthesisKnobs(stream=False, seed=0, min_len=tokens, max_len=tokens)
    text_ids = [9707, 11, 1879, 13]  # a few ordinary Qwen2 text ids
    # Fun-CosyVoice3 requires <|endofprompt|> in front of what it speaks
    prompt_ids = [ENDOFPROMPT_ID] if model.cfg.family == "cosyvoice3" else None
    pieces = list(model.tts(text_ids, prompt_text_ids=prompt_ids, embedding=embedding, knobs=knobs))
    audio = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)
    if audio.size == 0 or not np.isfinite(audio).all():
        raise ModelLoadError(f"{folder} loaded but produced no usable audio ({audio.size} samples).")
    return float(audio.size / model.sample_rate)


def transcription_smoke_test(folder: Path, *, seconds: float = 1.0) -> float:
    """Load ``folder`` with :class:`~cosycore.asr.SenseVoice` and transcribe a synthetic clip.

    The clip is a tone glide with noise, not speech: the test shows that the model loads and runs
    end to end (features, graph, decoding), not what it hears. Returns the seconds of audio.
    """
    import numpy as np

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
