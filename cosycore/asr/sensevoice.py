"""Speech to text with SenseVoice-Small through sherpa-onnx: one recognizer, one clip at a time.

:class:`SenseVoice` owns a ``sherpa_onnx.OfflineRecognizer`` built from a folder that
:func:`~cosycore.asr.folder.check_model_folder` accepted. :meth:`SenseVoice.transcribe` takes mono
float samples at any rate, resamples them to 16 kHz (soxr, the project's resampler) and returns a
:class:`Transcript`. sherpa-onnx computes the fbank features, stacks and normalises them (LFR and
CMVN from the model's metadata), runs the ONNX graph with onnxruntime and decodes greedily (CTC);
its result names the language the model heard (``<|en|>``) before the text.

Memory is bounded by refusing clips longer than :data:`MAX_SECONDS` (voice recordings are at most
30 s); nothing is chunked, so a word is never cut in two. The recognizer is not thread-safe: the
app calls it on its engine thread only.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import AsrAudioError, AsrModelDamagedError, AsrModelError, InputError
from .folder import LANGUAGES, SenseVoiceFolder, check_model_folder

logger = logging.getLogger(__name__)

SAMPLE_RATE = 16000  # what SenseVoice was trained on
MAX_SECONDS = 31.0  # voice clips are at most 30 s; one second of rounding margin
MIN_SECONDS = 0.1  # shorter than one LFR frame plus the fbank window: nothing to recognise
SILENCE_PEAK = 1e-4  # a clip whose loudest sample is below this (-80 dBFS) holds no speech
MAX_THREADS = 4  # SenseVoice-Small gains little beyond four CPU threads on a 30 s clip
_TAG = re.compile(r"^<\|([^|]*)\|>$")


@dataclass(frozen=True)
class Transcript:
    """What was said in one clip."""

    text: str  # the recognised words, with punctuation (inverse text normalisation on); "" when none
    language: str  # "zh", "en", "ja", "ko" or "yue" as the model heard it; "" when it heard no speech
    seconds: float  # length of the clip


def _tag(value: str) -> str:
    """``<|en|>`` → ``en``; anything else → ``""``."""
    match = _TAG.match(value.strip())
    return match.group(1) if match else ""


def check_audio(samples: Any, sample_rate: int, what: str = "the clip") -> np.ndarray:
    """``samples`` as mono float32 [N], checked for what :meth:`SenseVoice.transcribe` accepts."""
    x = np.asarray(samples, dtype=np.float32)
    if x.ndim == 2:  # [N, C]: mix down
        x = x.mean(axis=1, dtype=np.float32)
    if x.ndim != 1:
        raise AsrAudioError(f"{what} has the shape {x.shape}; mono samples [N] (or [N, channels]) are expected.")
    rate_ok = isinstance(sample_rate, (int, np.integer)) and not isinstance(sample_rate, bool)
    if not rate_ok or not 0 < sample_rate <= 768_000:
        raise AsrAudioError(f"{what} has the sample rate {sample_rate!r}; a whole number of Hz is expected.")
    seconds = x.shape[0] / sample_rate
    if seconds < MIN_SECONDS:
        raise AsrAudioError(f"{what} is empty or too short to hold speech ({seconds:.2f} s). Record at least a "
                            "second of speech.")
    if seconds > MAX_SECONDS:
        raise AsrAudioError(f"{what} is {seconds:.1f} s long; transcription takes voice clips of up to "
                            f"{MAX_SECONDS - 1:g} s. Trim it (a voice uses at most 30 s) and try again.")
    if not np.isfinite(x).all():
        raise AsrAudioError(f"{what} holds NaN or infinite samples; re-export it.")
    if float(np.max(np.abs(x))) < SILENCE_PEAK:
        raise AsrAudioError(f"{what} is silent: there is no speech to transcribe. Check the microphone or file.")
    return x


class SenseVoice:
    """The SenseVoice recognizer of one model folder. Built by :meth:`load`; used on one thread at a time."""

    def __init__(self, folder: SenseVoiceFolder, recognizer: Any, *, language: str = "auto") -> None:
        self.folder = folder
        self.language = language
        self._recognizer = recognizer
        self._lock = threading.Lock()  # sherpa-onnx streams of one recognizer are decoded one at a time

    @classmethod
    def load(cls, folder: Path | str, *, language: str = "auto", threads: int | None = None) -> SenseVoice:
        """Check ``folder`` and build the recognizer (no network). ``language``: auto or zh/en/ja/ko/yue."""
        if language not in ("auto", *LANGUAGES):
            raise InputError(f"SenseVoice does not know the language {language!r}; choose auto or one of "
                                f"{', '.join(LANGUAGES)}.")
        checked = check_model_folder(folder)
        try:
            import sherpa_onnx
        except ImportError as e:
            raise AsrModelError("Transcription needs the sherpa-onnx package: pip install 'sherpa-onnx>=2.0.1,<2.1' "
                                "(installer/setup.sh installs it).") from e
        from ..threads import default_threads

        n = max(1, min(MAX_THREADS, threads or default_threads()))
        try:
            recognizer = sherpa_onnx.OfflineRecognizer.from_sense_voice(
                model=str(checked.model_path), tokens=str(checked.tokens_path), num_threads=n,
                sample_rate=SAMPLE_RATE, feature_dim=80, decoding_method="greedy_search",
                language="" if language == "auto" else language, use_itn=True, provider="cpu",
            )
        except (RuntimeError, ValueError) as e:
            raise AsrModelDamagedError(f"sherpa-onnx could not load {checked.model_path}: {e}. Download the model "
                                       "again.") from e
        logger.info("SenseVoice loaded from %s (%s, %d threads)", checked.folder, checked.model_path.name, n)
        return cls(checked, recognizer, language=language)

    def transcribe(self, samples: Any, sample_rate: int, *, what: str = "the clip") -> Transcript:
        """Recognise the speech in ``samples`` (mono float in [-1, 1] at ``sample_rate``)."""
        from ..frontend.features import resample

        x = check_audio(samples, sample_rate, what)
        seconds = x.shape[0] / sample_rate
        x16 = np.ascontiguousarray(resample(x, int(sample_rate), SAMPLE_RATE), dtype=np.float32)  # [N16]
        with self._lock:
            stream = self._recognizer.create_stream()
            stream.accept_waveform(SAMPLE_RATE, x16)
            self._recognizer.decode_stream(stream)
            result = stream.result
        text = " ".join(str(result.text).split())
        language = _tag(str(getattr(result, "lang", "")))
        if language not in LANGUAGES:
            language = ""
        logger.debug("transcribed %.1f s: %d characters, language %r", seconds, len(text), language)
        return Transcript(text=text, language=language, seconds=seconds)

    def transcribe_file(self, path: Path | str) -> Transcript:
        """Transcribe an audio file (WAV, FLAC, OGG, MP3); at most :data:`MAX_SECONDS` are ever decoded."""
        from ..frontend.audio_file import read_audio

        name = Path(path).name
        samples, rate, total = read_audio(path, MAX_SECONDS)
        if (total is not None and total > MAX_SECONDS) or samples.shape[0] > MAX_SECONDS * rate:
            length = f"{total:.1f} s" if total is not None else f"over {MAX_SECONDS:g} s"
            raise AsrAudioError(f"'{name}' is {length} long; transcription takes voice clips of up to "
                                f"{MAX_SECONDS - 1:g} s. Trim it and try again.")
        return self.transcribe(samples, rate, what=f"'{name}'")
