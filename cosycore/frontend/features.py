"""Audio input and the feature extractors the frontend feeds to the models.

Responsibilities of this module (the frontend owns the policy of when to call what):

* resampling a waveform and describing it (:func:`resample`, :func:`analyse_audio`; files are read by
  :mod:`cosycore.frontend.audio_file`);
* the 24 kHz prompt mel that conditions the flow model (:func:`prompt_mel`, Matcha-style);
* the Kaldi filterbank the CAM++ speaker model reads (:func:`kaldi_fbank`, :func:`speaker_fbank`);
* the Whisper log-mel the speech tokenizer reads (:func:`whisper_log_mel`);
* the 2:1 mel/token trimming of a zero-shot prompt (:func:`align_prompt`).

Extractors accept a numpy array or a torch tensor, compute in float32 on the tensor's device and
return torch tensors. Shape letters: N samples, T frames, F frequency bins, M mel bins, P tokens.
"""

from __future__ import annotations

import functools
import logging
import math
from dataclasses import dataclass

import numpy as np
import soxr
import torch
import torch.nn.functional as F

from ..config import MelConfig
from ..errors import InputError

logger = logging.getLogger(__name__)

Waveform = np.ndarray | torch.Tensor

# Kaldi's log floor: torch.finfo(torch.float32).eps, as torchaudio uses it.
KALDI_LOG_FLOOR = float(np.finfo(np.float32).eps)
# Whisper front end (speech tokenizer input).
WHISPER_SAMPLE_RATE = 16000
WHISPER_N_FFT = 400
WHISPER_HOP = 160
# analyse_audio thresholds.
CLIP_LEVEL = 0.999  # |x| at or above this counts as a clipped sample
SILENCE_DBFS = -60.0  # RMS below this (dB re full scale) counts as silence


# --------------------------------------------------------------------------------------------
# Small tensor helpers
# --------------------------------------------------------------------------------------------


def _as_float_tensor(wav: Waveform) -> torch.Tensor:
    """Float32 tensor view/copy of ``wav``, on its own device (numpy goes to the CPU)."""
    t = torch.from_numpy(np.ascontiguousarray(wav)) if isinstance(wav, np.ndarray) else wav
    return t.to(torch.float32)


def _as_batch(wav: Waveform) -> torch.Tensor:
    """[N] or [B, N] → [B, N] float32."""
    t = _as_float_tensor(wav)
    if t.dim() == 1:
        return t[None]
    if t.dim() == 2:
        return t
    raise ValueError(f"expected a waveform of shape [N] or [B, N], got {tuple(t.shape)}")


def _as_mono(wav: Waveform) -> torch.Tensor:
    """[N] or [1, N] → [N] float32."""
    t = _as_float_tensor(wav)
    if t.dim() == 2 and t.shape[0] == 1:
        return t[0]
    if t.dim() == 1:
        return t
    raise ValueError(f"expected a mono waveform of shape [N] or [1, N], got {tuple(t.shape)}")


def _require_samples(n: int, minimum: int, what: str, sample_rate: int) -> None:
    if n < minimum:
        raise InputError(
            f"the audio is too short for the {what}: {n} samples ({n / sample_rate * 1000:.1f} ms at "
            f"{sample_rate} Hz), at least {minimum} are needed. Use a longer recording."
        )


def _device_key(device: torch.device) -> str:
    return str(device)


@functools.lru_cache(maxsize=32)
def _hann(size: int, periodic: bool, device: str) -> torch.Tensor:
    return torch.hann_window(size, periodic=periodic, dtype=torch.float32, device=device)


# The Slaney mel scale (Auditory Toolbox): linear below 1 kHz, logarithmic above.
_SLANEY_HZ_PER_MEL = 200.0 / 3
_SLANEY_LOG_HZ = 1000.0  # where the log region begins
_SLANEY_LOG_MEL = _SLANEY_LOG_HZ / _SLANEY_HZ_PER_MEL
_SLANEY_LOG_STEP = float(np.log(6.4)) / 27.0


def _hz_to_slaney_mel(hz: float) -> float:
    if hz >= _SLANEY_LOG_HZ:
        return float(_SLANEY_LOG_MEL + np.log(hz / _SLANEY_LOG_HZ) / _SLANEY_LOG_STEP)
    return hz / _SLANEY_HZ_PER_MEL


# Close port of librosa 0.11 filters.mel(htk=False, norm="slaney") (ISC), which the original's Matcha
# and Whisper front ends call: the same float64 steps in the same order, so the filterbank is
# librosa's bit for bit (tests/test_features.py compares them). See NOTICE. Computed here because
# librosa's filters module compiles numba kernels at import: seconds in every process that speaks.
def slaney_mel_filters(sample_rate: int, n_fft: int, n_mels: int, fmin: float, fmax: float | None) -> np.ndarray:
    """The Slaney-scale, Slaney-normalised mel filterbank [M, n_fft//2 + 1], float32, in NumPy."""
    fmax = float(sample_rate) / 2 if fmax is None else fmax
    fft_hz = np.fft.rfftfreq(n=n_fft, d=1.0 / sample_rate)
    mels = np.linspace(_hz_to_slaney_mel(fmin), _hz_to_slaney_mel(fmax), n_mels + 2)
    mel_hz = _SLANEY_HZ_PER_MEL * mels  # the band edges and centres in Hz
    log_region = mels >= _SLANEY_LOG_MEL
    mel_hz[log_region] = _SLANEY_LOG_HZ * np.exp(_SLANEY_LOG_STEP * (mels[log_region] - _SLANEY_LOG_MEL))
    widths = np.diff(mel_hz)
    ramps = np.subtract.outer(mel_hz, fft_hz)
    weights = np.zeros((n_mels, 1 + n_fft // 2), dtype=np.float32)
    for i in range(n_mels):
        weights[i] = np.maximum(0, np.minimum(-ramps[i] / widths[i], ramps[i + 2] / widths[i + 1]))
    weights *= (2.0 / (mel_hz[2 : n_mels + 2] - mel_hz[:n_mels]))[:, np.newaxis]  # equal area per band
    return weights


@functools.lru_cache(maxsize=32)
def slaney_mel_basis(
    sample_rate: int, n_fft: int, n_mels: int, fmin: float, fmax: float | None, device: str = "cpu"
) -> torch.Tensor:
    """librosa's Slaney-scale, Slaney-normalised mel filterbank [M, n_fft//2 + 1], float32
    (:func:`slaney_mel_filters`).

    ``fmax=None`` means the Nyquist frequency. Cached per (parameters, device); treat as read-only.
    """
    return torch.from_numpy(slaney_mel_filters(sample_rate, n_fft, n_mels, fmin, fmax)).to(device)


# --------------------------------------------------------------------------------------------
# Prompt mel (flow conditioning), Matcha mel_spectrogram
# --------------------------------------------------------------------------------------------


# Close port of Matcha-TTS (MIT) utils/audio.py mel_spectrogram, as CosyVoice calls it; see NOTICE.
def prompt_mel(wav_24k: Waveform, cfg: MelConfig) -> torch.Tensor:
    """Natural-log mel magnitude spectrogram [B, M, T] of a waveform [N] or [B, N] in [-1, 1].

    Reflect padding of (n_fft - hop)/2 per side with ``center=False`` gives T = floor(N / hop).
    The frontend transposes it to ``prompt_feat`` [1, T, M].
    """
    y = _as_batch(wav_24k)  # [B, N]
    peak = float(y.abs().max()) if y.numel() else 0.0
    if peak > 1.0:
        logger.warning("prompt waveform exceeds [-1, 1] (peak %.3f); it is used unclipped", peak)
    pad = (cfg.n_fft - cfg.hop_size) // 2
    _require_samples(y.shape[-1], max(pad + 1, cfg.hop_size), "prompt mel", cfg.sampling_rate)
    y = F.pad(y[:, None], (pad, pad), mode="reflect")[:, 0]  # [B, N + 2 pad]
    dev = _device_key(y.device)
    spec = torch.stft(
        y,
        n_fft=cfg.n_fft,
        hop_length=cfg.hop_size,
        win_length=cfg.win_size,
        window=_hann(cfg.win_size, True, dev),
        center=cfg.center,
        pad_mode="reflect",
        normalized=False,
        onesided=True,
        return_complex=True,
    )  # [B, F, T]
    spec = torch.view_as_real(spec)  # [B, F, T, 2]
    magnitude = torch.sqrt(spec.pow(2).sum(-1) + 1e-9)  # [B, F, T]
    basis = slaney_mel_basis(cfg.sampling_rate, cfg.n_fft, cfg.num_mels, cfg.fmin, cfg.fmax, dev)
    mel = torch.matmul(basis, magnitude)  # [B, M, T]
    return torch.log(torch.clamp(mel, min=1e-5))


# --------------------------------------------------------------------------------------------
# Kaldi fbank (CAM++ speaker embedding input)
# --------------------------------------------------------------------------------------------


def _kaldi_mel(freq: float) -> float:
    return 1127.0 * math.log1p(freq / 700.0)


@functools.lru_cache(maxsize=16)
def kaldi_mel_banks(
    num_bins: int, n_fft: int, sample_frequency: float, low_freq: float, high_freq: float, device: str = "cpu"
) -> torch.Tensor:
    """Kaldi triangular mel filters [num_bins, n_fft//2 + 1], float32, unnormalised.

    Triangles are linear in Kaldi's mel scale (1127 ln(1 + f/700)) with edges equally spaced from
    ``low_freq`` to ``high_freq``; ``high_freq <= 0`` counts back from the Nyquist frequency. The
    Nyquist bin always gets weight 0, as in Kaldi. Evaluated in float32 like torchaudio: near the
    log floor the fbank is sensitive to the last bits of these weights.
    """
    nyquist = 0.5 * sample_frequency
    high = high_freq + nyquist if high_freq <= 0.0 else high_freq
    if not 0.0 <= low_freq < high <= nyquist:
        raise ValueError(f"bad fbank band: low_freq {low_freq}, high_freq {high}, nyquist {nyquist}")
    mel_low = _kaldi_mel(low_freq)
    step = (_kaldi_mel(high) - mel_low) / (num_bins + 1)
    index = torch.arange(num_bins, dtype=torch.float32)[:, None]  # [num_bins, 1]
    left = mel_low + index * step
    centre = mel_low + (index + 1.0) * step
    right = mel_low + (index + 2.0) * step
    bin_freq = (sample_frequency / n_fft) * torch.arange(n_fft // 2, dtype=torch.float32)
    bin_mel = (1127.0 * torch.log(1.0 + bin_freq / 700.0))[None]  # [1, n_fft/2]
    rising = (bin_mel - left) / (centre - left)
    falling = (right - bin_mel) / (right - centre)
    weights = torch.clamp(torch.minimum(rising, falling), min=0.0)  # [num_bins, n_fft/2]
    return F.pad(weights, (0, 1)).to(device)  # Nyquist bin: [num_bins, n_fft/2 + 1]


# Close port of torchaudio (BSD-2-Clause) compliance/kaldi.py fbank; see NOTICE.
def kaldi_fbank(
    wav_16k: Waveform,
    num_mel_bins: int = 80,
    sample_frequency: float = 16000.0,
    *,
    frame_length_ms: float = 25.0,
    frame_shift_ms: float = 10.0,
    preemphasis_coefficient: float = 0.97,
    low_freq: float = 20.0,
    high_freq: float = 0.0,
) -> torch.Tensor:
    """Log mel filterbank energies [T, num_mel_bins], as ``torchaudio.compliance.kaldi.fbank``.

    Equivalent to its defaults with ``dither=0``: snip_edges framing, per-frame DC removal,
    pre-emphasis, Povey window, zero padding to the next power of two, power spectrum, Kaldi mel
    banks, natural log floored at float32 epsilon, no energy term. The input is a float waveform
    in [-1, 1] ([N] or [1, N]), not rescaled to the int16 range.
    """
    x = _as_mono(wav_16k)  # [N]
    win = int(sample_frequency * frame_length_ms * 0.001)
    shift = int(sample_frequency * frame_shift_ms * 0.001)
    n_fft = 1 << (win - 1).bit_length()  # next power of two
    _require_samples(x.shape[0], win, "speaker filterbank", int(sample_frequency))
    frames = x.unfold(0, win, shift)  # [T, win]; T = 1 + (N - win) // shift
    frames = frames - frames.mean(dim=1, keepdim=True)
    previous = torch.cat([frames[:, :1], frames[:, :-1]], dim=1)  # first sample repeats itself
    frames = frames - preemphasis_coefficient * previous
    dev = _device_key(x.device)
    povey = _hann(win, False, dev).pow(0.85)  # [win]
    frames = F.pad(frames * povey, (0, n_fft - win))  # [T, n_fft]
    power = torch.fft.rfft(frames).abs().pow(2.0)  # [T, n_fft/2 + 1]
    banks = kaldi_mel_banks(num_mel_bins, n_fft, float(sample_frequency), low_freq, high_freq, dev)
    mel = torch.matmul(power, banks.T)  # [T, num_mel_bins]
    return torch.log(torch.clamp(mel, min=KALDI_LOG_FLOOR))


def speaker_fbank(wav_16k: Waveform) -> torch.Tensor:
    """CAM++ input [T, 80]: the 80-bin Kaldi fbank minus its per-bin mean over the utterance."""
    feat = kaldi_fbank(wav_16k, num_mel_bins=80, sample_frequency=16000.0)  # [T, 80]
    return feat - feat.mean(dim=0, keepdim=True)


# --------------------------------------------------------------------------------------------
# Whisper log-mel (speech tokenizer input)
# --------------------------------------------------------------------------------------------


# Close port of OpenAI Whisper (MIT) whisper/audio.py log_mel_spectrogram; see NOTICE.
def whisper_log_mel(wav_16k: Waveform, n_mels: int = 128) -> torch.Tensor:
    """Whisper's log10 mel power spectrogram [B, n_mels, T] with T = N // 160, not padded to 30 s.

    The dynamic range is limited to 8 (log10 units) below each utterance's maximum, then mapped by
    (x + 4) / 4. (Whisper takes that maximum over the whole batch; for one utterance it is the same.)
    """
    y = _as_batch(wav_16k)  # [B, N]
    _require_samples(y.shape[-1], WHISPER_N_FFT // 2 + 1, "speech tokenizer features", WHISPER_SAMPLE_RATE)
    dev = _device_key(y.device)
    spec = torch.stft(
        y,
        n_fft=WHISPER_N_FFT,
        hop_length=WHISPER_HOP,
        window=_hann(WHISPER_N_FFT, True, dev),
        center=True,
        pad_mode="reflect",
        return_complex=True,
    )  # [B, F, N // hop + 1]
    power = spec[..., :-1].abs().pow(2)  # [B, F, T]
    basis = slaney_mel_basis(WHISPER_SAMPLE_RATE, WHISPER_N_FFT, n_mels, 0.0, None, dev)
    log_spec = torch.clamp(torch.matmul(basis, power), min=1e-10).log10()  # [B, M, T]
    ceiling = log_spec.amax(dim=(-2, -1), keepdim=True)  # [B, 1, 1]
    log_spec = torch.maximum(log_spec, ceiling - 8.0)
    return (log_spec + 4.0) / 4.0


# --------------------------------------------------------------------------------------------
# Prompt alignment
# --------------------------------------------------------------------------------------------


def align_prompt(
    feat: torch.Tensor, tokens: torch.Tensor, ratio: int = 2
) -> tuple[torch.Tensor, torch.Tensor]:
    """Trim a zero-shot prompt so that mel frames are exactly ``ratio`` × tokens.

    feat: [1, T, M], tokens: [1, P] → (feat[:, :ratio·L], tokens[:, :L]) with L = min(T // ratio, P).
    """
    n = min(feat.shape[1] // ratio, tokens.shape[1])
    return feat[:, : ratio * n], tokens[:, :n]


# --------------------------------------------------------------------------------------------
# Resampling and describing audio (files are read by cosycore.frontend.audio_file)
# --------------------------------------------------------------------------------------------


def resample(wav: np.ndarray, sr_in: int, sr_out: int) -> np.ndarray:
    """High-quality (soxr HQ) resampling of a mono float waveform [N] → [≈ N · sr_out / sr_in].

    General purpose (test signals, tools). Prompt audio is resampled with the original's resampler
    instead (:func:`cosycore.frontend.resample.resample_original`), which soxr differs from by up to 1e-2.
    """
    if sr_in <= 0 or sr_out <= 0:
        raise ValueError(f"sample rates must be positive, got {sr_in} → {sr_out}")
    x = np.asarray(wav, dtype=np.float32)
    if sr_in == sr_out:
        return x
    return soxr.resample(x, sr_in, sr_out, quality="HQ").astype(np.float32, copy=False)


@dataclass(frozen=True)
class AudioStats:
    """Level and length facts about one waveform, for the frontend's prompt checks."""

    duration_s: float  # length in seconds
    peak: float  # max |x|
    rms_dbfs: float  # RMS level in dB re full scale (1.0); -inf for digital silence
    clipped_fraction: float  # share of samples with |x| >= CLIP_LEVEL
    is_silent: bool  # no sound: the RMS about the mean (a constant level is no sound) below SILENCE_DBFS
    dc_offset: float = 0.0  # the mean sample value; a constant level (DC) holds no sound


def analyse_audio(wav: np.ndarray | torch.Tensor, sr: int) -> AudioStats:
    """Measure duration, peak, RMS level, clipping and silence of a mono waveform [N]."""
    x = wav.detach().cpu().numpy() if isinstance(wav, torch.Tensor) else np.asarray(wav)
    x = x.astype(np.float64).reshape(-1)
    if x.size == 0:
        return AudioStats(0.0, 0.0, -math.inf, 0.0, True)
    rms = math.sqrt(float(np.mean(x * x)))
    rms_dbfs = 20.0 * math.log10(rms) if rms > 0.0 else -math.inf
    mean = float(np.mean(x))
    sound = float(np.std(x))  # the RMS about the mean: what is heard of the waveform
    return AudioStats(
        duration_s=x.size / sr,
        peak=float(np.max(np.abs(x))),
        rms_dbfs=rms_dbfs,
        clipped_fraction=float(np.count_nonzero(np.abs(x) >= CLIP_LEVEL)) / x.size,
        is_silent=sound <= 0.0 or 20.0 * math.log10(sound) < SILENCE_DBFS,
        dc_offset=mean,
    )
