"""The prompt-audio frontend: a recording → the features a zero-shot request conditions on.

:func:`extract_prompt` checks the recording (sample rate, length, silence, clipping, NaNs), then
computes, as the original frontend does (spec: llm-frontend-orchestration.md §5.2-5.6):

* speech tokens: 16 kHz audio → Whisper log-mel → speech-tokenizer ONNX → int32 [1, P];
* speaker embedding: 16 kHz audio → mean-normalised Kaldi fbank → CAM++ ONNX → [1, 192];
* prompt mel: 24 kHz audio → the release's ``feat_extractor`` → [1, T, 80];
* the 2:1 alignment that trims mel and tokens to ``token_mel_ratio`` × L frames and L tokens.

Unlike the original, which asserts, recordings longer than 30 s are cut to 30 s and the result
says so in ``warnings`` (as it does for clipping and very quiet recordings), so the UI can tell
the user. The file is read as float32 and mixed to mono with the mean over its channels, then
resampled from its own rate to 16 kHz and, separately, to 24 kHz with the original's resampler
(:func:`cosycore.frontend.resample.resample_original`, torchaudio's default sinc/Hann ``Resample``), so the
features equal the original's for the same file. Every quality mode uses it: soxr was no faster
for a prompt (README "Prompt audio").

:func:`voice_from_prompt` / :func:`prompt_from_voice` convert to and from saved voices.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
import torch

from ..config import FAMILY_TITLES, Family, ModelConfig
from ..errors import InputError
from ..voices import Voice
from .audio_file import AudioSource, read_audio
from .features import (
    align_prompt,
    analyse_audio,
    prompt_mel,
    speaker_fbank,
    whisper_log_mel,
)
from .resample import resample_original

logger = logging.getLogger(__name__)

TOKENIZER_SAMPLE_RATE = 16000  # speech tokens and speaker embedding
MIN_SAMPLE_RATE = 16000  # as the original's load_wav
MIN_SECONDS = 1.0
MAX_SECONDS = 30.0  # the speech tokenizer's limit
CLIPPED_WARN_FRACTION = 1e-3  # warn when at least 0.1 % of the samples are clipped
QUIET_WARN_DBFS = -40.0  # warn when the RMS level is below this (but above silence)
DC_WARN_OFFSET = 0.05  # warn when the mean sample value is this far from zero (-26 dBFS of DC)



class SpeechTokenizer(Protocol):
    """What :func:`extract_prompt` needs from the speech tokenizer (e.g. ``SpeechTokenizerONNX``)."""

    def tokenize(self, feats: torch.Tensor) -> torch.Tensor:
        """Whisper log-mel [1, 128, T] → int32 tokens [1, P]."""
        ...


class SpeakerEncoder(Protocol):
    """What :func:`extract_prompt` needs from the speaker encoder (e.g. ``SpeakerEncoderONNX``)."""

    def embed(self, fbank: torch.Tensor) -> torch.Tensor:
        """Mean-normalised fbank [T, 80] → embedding [1, 192]."""
        ...


@dataclass(frozen=True, eq=False)
class PromptFeatures:
    """Everything a zero-shot request needs from its prompt recording (already aligned 2:1)."""

    speech_tokens: torch.Tensor  # int32 [1, P]
    embedding: torch.Tensor  # float32 [1, 192]
    prompt_mel: torch.Tensor  # float32 [1, ratio * P, 80]
    audio_24k: np.ndarray  # float32 [N], the (trimmed) recording at 24 kHz
    duration: float  # seconds of audio used
    family: Family  # model family the features were made for
    warnings: tuple[str, ...] = ()  # things the user should know (trimmed, clipped, quiet)
    speech_tokenizer_sha256: str = ""  # of the tokenizer file, when known
    sample_rate: int = 24000  # of audio_24k

    @property
    def num_tokens(self) -> int:
        return int(self.speech_tokens.shape[1])


# --------------------------------------------------------------------------------------------
# Reading and checking the recording
# --------------------------------------------------------------------------------------------


def mono_array(audio: np.ndarray | torch.Tensor, what: str = "prompt audio") -> np.ndarray:
    """[N], [C, N] or [N, C] (C ≤ 8 channels) → float32 [N], channels averaged, integer PCM scaled to
    full scale 1.0; ``what`` names the recording in the errors (the prompt, or a conversion's source)."""
    x = audio.detach().cpu().numpy() if isinstance(audio, torch.Tensor) else np.asarray(audio)
    if np.issubdtype(x.dtype, np.integer) and not np.issubdtype(x.dtype, np.bool_):
        # PCM integers (int16 from a WAV or a microphone): scaled so that full scale is 1.0, not 32767
        info = np.iinfo(x.dtype)
        middle = 0 if info.min < 0 else (int(info.max) + 1) // 2  # unsigned PCM (uint8) is centred
        x = (x.astype(np.float32) - np.float32(middle)) / np.float32(-float(info.min) if info.min < 0 else middle)
    if x.ndim == 2 and min(x.shape) <= 8:
        x = x.mean(axis=0 if x.shape[0] <= x.shape[1] else 1)
    if x.ndim != 1:
        raise InputError(f"{what} must be a mono or multi-channel waveform, got shape {x.shape}")
    if not np.issubdtype(x.dtype, np.number) or np.iscomplexobj(x):
        raise InputError(f"{what} must hold real numbers, got dtype {x.dtype}")
    return np.array(x, dtype=np.float32, order="C")  # a private, writable copy


def _read_prompt(audio: AudioSource | np.ndarray | torch.Tensor,
                 sr: int | None) -> tuple[np.ndarray, int, str, float | None]:
    """(mono samples, rate, name for messages, length of the whole recording in seconds if known)."""
    if isinstance(audio, (np.ndarray, torch.Tensor)):
        if sr is None:
            raise ValueError("extract_prompt needs the sample rate when given an array")
        wav = mono_array(audio)
        bad = int(np.count_nonzero(~np.isfinite(wav)))
        if bad:
            raise InputError(f"the prompt audio has {bad} NaN or infinite samples; re-record or re-export it.")
        return wav, int(sr), "the prompt audio", None
    # only the first 30 s are ever decoded (bounded memory); raises InputError for unusable files
    wav, file_sr, total = read_audio(audio, MAX_SECONDS)
    if sr is not None and int(sr) != file_sr:
        logger.debug("ignoring sr=%s for %s: the file says %d Hz", sr, audio, file_sr)
    return wav, file_sr, f"'{getattr(audio, 'name', audio)}'", total


def _check_rate(sr: int, name: str) -> None:
    if sr < MIN_SAMPLE_RATE:
        raise InputError(
            f"{name} is sampled at {sr} Hz, but a voice prompt needs at least {MIN_SAMPLE_RATE // 1000} kHz "
            "(telephone-quality audio cannot be used). Record or export it at 16 kHz or higher."
        )


def _fit_length(wav: np.ndarray, sr: int, name: str, notes: list[str], total: float | None = None) -> np.ndarray:
    seconds = max(wav.shape[0] / sr, total or 0.0)  # a file is read only up to 30 s; total is its length
    if seconds < MIN_SECONDS:
        raise InputError(
            f"{name} is only {seconds:.2f} s long; a voice prompt needs at least {MIN_SECONDS:g} s "
            "of speech (3-10 s works best)."
        )
    if wav.shape[0] > int(MAX_SECONDS * sr):
        note = (f"The recording is {seconds:.1f} s long; only its first {MAX_SECONDS:g} s are used "
                "(3-10 s of clear speech works best).")
        logger.warning("%s: %s", name, note)
        notes.append(note)
        return wav[: int(MAX_SECONDS * sr)]
    return wav


def _check_level(wav: np.ndarray, sr: int, name: str, notes: list[str]) -> None:
    stats = analyse_audio(wav, sr)
    if stats.is_silent:
        if abs(stats.dc_offset) >= DC_WARN_OFFSET:
            level = f"a constant level of {stats.dc_offset:+.2f}, a DC offset with no sound in it"
        else:
            level = "digital silence" if math.isinf(stats.rms_dbfs) else f"{stats.rms_dbfs:.0f} dBFS"
        raise InputError(f"{name} is silent ({level}); record or choose a clip with speech in it.")
    note = None
    if abs(stats.dc_offset) >= DC_WARN_OFFSET:
        note = (f"The recording has a DC offset of {stats.dc_offset:+.2f} (its waveform sits off zero); "
                "the cloned voice may suffer. Remove the offset in an audio editor (DC offset removal "
                "or a high-pass filter) and load it again.")
    elif stats.clipped_fraction >= CLIPPED_WARN_FRACTION:
        note = (f"The recording is clipped ({stats.clipped_fraction:.1%} of the samples are at full scale); "
                "the cloned voice may sound distorted. Record it a little quieter if you can.")
    elif stats.rms_dbfs < QUIET_WARN_DBFS:
        note = f"The recording is very quiet ({stats.rms_dbfs:.0f} dBFS); background noise may be cloned too."
    if note:
        logger.warning("%s: %s", name, note)
        notes.append(note)


# --------------------------------------------------------------------------------------------
# Features
# --------------------------------------------------------------------------------------------


def prompt_waveforms(wav: np.ndarray, sr: int, mel_rate: int = 24000) -> tuple[np.ndarray, np.ndarray]:
    """The mono recording at 16 kHz (speech tokens, speaker embedding) and at ``mel_rate`` (prompt mel).

    As the original's ``load_wav``: both are resampled from the recording itself (never the mel
    rate from 16 kHz), with the original's resampler; a rate equal to the recording's is the
    recording itself.
    """
    return resample_original(wav, sr, TOKENIZER_SAMPLE_RATE), resample_original(wav, sr, mel_rate)


def _features(
    wav: np.ndarray, sr: int, cfg: ModelConfig, tokenizer: SpeechTokenizer, encoder: SpeakerEncoder,
    align: bool = True,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, np.ndarray]:
    """(tokens [1, P], embedding [1, 192], mel [1, ratio·P, 80], audio at the mel rate) after alignment
    (``align`` False: as extracted, as the original's voice conversion uses them)."""
    wav_16k, wav_24k = prompt_waveforms(wav, sr, cfg.mel.sampling_rate)
    with torch.inference_mode():
        tokens = tokenizer.tokenize(whisper_log_mel(wav_16k, n_mels=128)).to(torch.int32)  # [1, P]
        embedding = encoder.embed(speaker_fbank(wav_16k)).to(torch.float32).reshape(1, -1)  # [1, 192]
        mel = prompt_mel(wav_24k, cfg.mel).transpose(1, 2).contiguous()  # [1, T, 80]
    if align:
        mel, tokens = align_prompt(mel, tokens.reshape(1, -1), cfg.token_mel_ratio)
    return tokens.reshape(1, -1).contiguous(), embedding, mel.contiguous(), wav_24k


def extract_prompt(
    audio: AudioSource | np.ndarray | torch.Tensor,
    sr: int | None,
    cfg: ModelConfig,
    speech_tokenizer: SpeechTokenizer,
    speaker_encoder: SpeakerEncoder,
    *,
    with_checksum: bool = True,
    align: bool = True,
) -> PromptFeatures:
    """Check a prompt recording and compute its aligned zero-shot features.

    ``audio`` is a file path / binary file object (``sr`` may be None: the file's rate is used) or
    a waveform array in [-1, 1] at ``sr`` Hz. Raises :class:`InputError` for unusable audio: below
    16 kHz, shorter than 1 s, silent (a constant level, DC, is silent too), NaN/inf samples, files
    that are not audio, unreadable or truncated files. Longer than 30 s is cut to 30 s; that, a DC
    offset, clipping and very low level are reported in ``warnings``.

    ``with_checksum`` records the speech tokenizer's ``sha256`` in the features, for a voice made
    from them (:func:`voice_from_prompt`); that may hash the tokenizer file once where its install
    manifest does not record it. A prompt used for one request and never saved does without.

    ``align`` False keeps the mel and the tokens as extracted (the mel may then hold one frame more
    than ``ratio`` × tokens): the original's voice conversion (``frontend_vc``) does not align them,
    its zero-shot frontend does. Such features are for one conversion only, never for a voice.
    """
    wav, rate, name, total = _read_prompt(audio, sr)
    _check_rate(rate, name)
    notes: list[str] = []
    wav = _fit_length(wav, rate, name, notes, total)
    _check_level(wav, rate, name, notes)
    tokens, embedding, mel, wav_24k = _features(wav, rate, cfg, speech_tokenizer, speaker_encoder, align)
    if tokens.shape[1] == 0:
        raise InputError(f"{name} produced no speech tokens; use a longer recording with clear speech.")
    logger.info("prompt %s: %.2f s, %d tokens, %d mel frames", name, wav.shape[0] / rate,
                tokens.shape[1], mel.shape[1])
    return PromptFeatures(
        speech_tokens=tokens,
        embedding=embedding,
        prompt_mel=mel,
        audio_24k=wav_24k,
        duration=wav.shape[0] / rate,
        family=cfg.family,
        warnings=tuple(notes),
        speech_tokenizer_sha256=str(getattr(speech_tokenizer, "sha256", "") or "") if with_checksum else "",
        sample_rate=cfg.mel.sampling_rate,
    )


# --------------------------------------------------------------------------------------------
# Saved voices
# --------------------------------------------------------------------------------------------


def voice_from_prompt(features: PromptFeatures, *, name: str, transcript: str, language: str = "") -> Voice:
    """A :class:`Voice` holding ``features`` and the prompt's transcript (ready for ``save_voice``)."""
    return Voice(
        name=name,
        transcript=transcript,
        language=language,
        family=features.family,
        speech_tokenizer_sha256=features.speech_tokenizer_sha256,
        audio_24k=features.audio_24k,
        speech_tokens=features.speech_tokens.reshape(-1).cpu().numpy(),
        embedding=features.embedding.reshape(-1).cpu().numpy(),
        prompt_mel=features.prompt_mel[0].cpu().numpy(),
        sample_rate=features.sample_rate,
    )


def check_voice_fits(voice: Voice, cfg: ModelConfig, speech_tokenizer_sha256: str | None = None) -> None:
    """Raise :class:`InputError` if ``voice``'s cached features were not made for this model.

    The tokenizer check needs both hashes; a voice that records none is checked by family only, so
    a caller may skip working out the loaded tokenizer's hash for it (the engine does).
    """
    if voice.family != cfg.family:
        raise InputError(
            f"the voice '{voice.name}' was made for {FAMILY_TITLES[voice.family]}, but the loaded model is "
            f"{FAMILY_TITLES[cfg.family]}. Re-create the voice from its recording with this model "
            "(its audio is kept in the voice file)."
        )
    if speech_tokenizer_sha256 and voice.speech_tokenizer_sha256 and (
        voice.speech_tokenizer_sha256 != speech_tokenizer_sha256
    ):
        raise InputError(
            f"the voice '{voice.name}' was made with a different speech tokenizer "
            f"({voice.speech_tokenizer_sha256[:12]}…) than the loaded model's ({speech_tokenizer_sha256[:12]}…). "
            "Re-create the voice from its recording with this model."
        )


def prompt_from_voice(
    voice: Voice, cfg: ModelConfig, *, speech_tokenizer_sha256: str | None = None
) -> PromptFeatures:
    """The cached features of a saved voice, after checking they fit the loaded model."""
    check_voice_fits(voice, cfg, speech_tokenizer_sha256)
    tokens = torch.from_numpy(voice.speech_tokens.copy())[None]  # [1, P]
    mel = torch.from_numpy(voice.prompt_mel.copy())[None]  # [1, T, 80]
    mel, tokens = align_prompt(mel, tokens, cfg.token_mel_ratio)
    if tokens.shape[1] == 0:
        raise InputError(f"the voice '{voice.name}' holds no speech tokens; re-create it from its recording.")
    return PromptFeatures(
        speech_tokens=tokens.contiguous(),
        embedding=torch.from_numpy(voice.embedding.copy())[None],
        prompt_mel=mel.contiguous(),
        audio_24k=voice.audio_24k.copy(),
        duration=voice.duration,
        family=voice.family,
        speech_tokenizer_sha256=voice.speech_tokenizer_sha256,
        sample_rate=voice.sample_rate,
    )


def refresh_voice(
    voice: Voice, cfg: ModelConfig, speech_tokenizer: SpeechTokenizer, speaker_encoder: SpeakerEncoder
) -> Voice:
    """Recompute a voice's features from its stored audio for the loaded model (e.g. another family)."""
    features = extract_prompt(voice.audio_24k, voice.sample_rate, cfg, speech_tokenizer, speaker_encoder)
    fresh = voice_from_prompt(features, name=voice.name, transcript=voice.transcript, language=voice.language)
    # what the user added to the voice stays with it
    return replace(fresh, created_at=voice.created_at, instruct_presets=voice.instruct_presets, notes=voice.notes,
                   lexicon=voice.lexicon)
