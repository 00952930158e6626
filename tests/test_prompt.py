"""Prompt-audio frontend on real (espeak-ng) speech and on the recordings users get wrong."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

from cosycore.config import ModelConfig, load_model_config
from cosycore.errors import InputError
from cosycore.frontend.features import prompt_mel, resample, whisper_log_mel
from cosycore.frontend.onnx_models import SpeakerEncoderONNX, SpeechTokenizerONNX
from cosycore.frontend.prompt import (
    MAX_SECONDS,
    PromptFeatures,
    extract_prompt,
    prompt_from_voice,
    prompt_waveforms,
    refresh_voice,
    voice_from_prompt,
)
from cosycore.voices import load_voice, save_voice

ESPEAK_RATE = 22050
SENTENCE = "The quick brown fox jumps over the lazy dog. Speech synthesis turns text into audio."


@dataclass(frozen=True)
class Frontend:
    cfg: ModelConfig
    tokenizer: SpeechTokenizerONNX
    encoder: SpeakerEncoderONNX

    def extract(self, audio, sr: int | None = None) -> PromptFeatures:
        return extract_prompt(audio, sr, self.cfg, self.tokenizer, self.encoder)


def _frontend(model_dir: Path) -> Frontend:
    cfg = load_model_config(model_dir)
    return Frontend(cfg, SpeechTokenizerONNX(model_dir / cfg.speech_tokenizer_file),
                    SpeakerEncoderONNX(model_dir / "campplus.onnx"))


@pytest.fixture(scope="module")
def cv2(tiny_cv2_model: Path) -> Frontend:
    return _frontend(tiny_cv2_model)


@pytest.fixture(scope="module")
def cv3(tiny_cv3_model: Path) -> Frontend:
    return _frontend(tiny_cv3_model)


@pytest.fixture(scope="module")
def speech_wav(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 5 s of real synthetic speech from espeak-ng, 22.05 kHz 16-bit mono."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        pytest.skip("espeak-ng is not installed (bash installer/setup.sh --dev installs it)")
    path = tmp_path_factory.mktemp("speech") / "speech.wav"
    subprocess.run([exe, "-v", "en-us", "-s", "160", "-w", str(path), SENTENCE], check=True, timeout=60)
    info = sf.info(str(path))
    assert info.samplerate == ESPEAK_RATE and info.channels == 1
    return path


@pytest.fixture(scope="module")
def speech(speech_wav: Path) -> np.ndarray:
    data, _ = sf.read(str(speech_wav), dtype="float32")
    return data


def _write(path: Path, data: np.ndarray, sr: int, subtype: str = "PCM_16") -> Path:
    sf.write(str(path), data, sr, subtype=subtype)
    return path


# --------------------------------------------------------------------------------------------
# Real speech
# --------------------------------------------------------------------------------------------


def test_real_speech(cv2: Frontend, speech_wav: Path, speech: np.ndarray) -> None:
    p = cv2.extract(speech_wav)
    seconds = speech.shape[0] / ESPEAK_RATE
    assert p.duration == pytest.approx(seconds)
    assert p.warnings == ()
    n = p.num_tokens
    assert abs(n - seconds * 25) <= 2
    assert p.speech_tokens.dtype == torch.int32 and p.speech_tokens.shape == (1, n)
    assert p.prompt_mel.shape == (1, 2 * n, 80) and p.prompt_mel.dtype == torch.float32
    assert p.embedding.shape == (1, 192) and torch.isfinite(p.embedding).all()
    assert p.family == "cosyvoice2" and p.sample_rate == 24000
    assert p.audio_24k.shape[0] == pytest.approx(seconds * 24000, abs=2)
    assert len(set(p.speech_tokens[0].tolist())) > 10  # speech, not a constant
    assert p.speech_tokenizer_sha256 == cv2.tokenizer.sha256

    # The same pipeline by hand: 16 kHz tokens, 24 kHz mel (both resampled from the file with the
    # original's resampler), then the 2:1 trim.
    wav_16k, wav_24k = prompt_waveforms(speech, ESPEAK_RATE)
    tokens = cv2.tokenizer.tokenize(whisper_log_mel(wav_16k))
    mel = prompt_mel(wav_24k, cv2.cfg.mel).transpose(1, 2)
    assert n == min(tokens.shape[1], mel.shape[1] // 2)
    assert torch.equal(p.speech_tokens, tokens[:, :n])
    assert torch.allclose(p.prompt_mel, mel[:, : 2 * n])


def test_array_input_matches_file(cv2: Frontend, speech_wav: Path, speech: np.ndarray) -> None:
    from_file = cv2.extract(speech_wav)
    from_array = cv2.extract(speech, ESPEAK_RATE)
    assert torch.equal(from_file.speech_tokens, from_array.speech_tokens)
    assert torch.allclose(from_file.embedding, from_array.embedding)
    with pytest.raises(ValueError, match=r"sample rate"):
        cv2.extract(speech)


def test_cv3_mel_uses_its_own_fmax(cv2: Frontend, cv3: Frontend, speech_wav: Path) -> None:
    a, b = cv2.extract(speech_wav), cv3.extract(speech_wav)
    assert b.family == "cosyvoice3"
    assert a.prompt_mel.shape == b.prompt_mel.shape
    assert not torch.allclose(a.prompt_mel, b.prompt_mel)  # fmax 8000 vs Nyquist
    assert not torch.equal(a.speech_tokens, b.speech_tokens)  # a different tokenizer file


def test_stereo_48k_works(cv2: Frontend, tmp_path: Path, speech: np.ndarray) -> None:
    mono_48k = resample(speech, ESPEAK_RATE, 48000)
    stereo = np.stack([mono_48k, 0.8 * mono_48k], axis=1)
    p = cv2.extract(_write(tmp_path / "stereo.wav", stereo, 48000))
    assert p.duration == pytest.approx(speech.shape[0] / ESPEAK_RATE, abs=1e-3)
    assert p.warnings == () and p.num_tokens > 100


def test_clipped_clip_warns(cv2: Frontend, tmp_path: Path, speech: np.ndarray) -> None:
    loud = np.clip(speech * 30.0, -1.0, 1.0)
    p = cv2.extract(_write(tmp_path / "loud.wav", loud, ESPEAK_RATE, "FLOAT"))
    assert len(p.warnings) == 1 and "clipped" in p.warnings[0]


def test_five_minutes_are_trimmed(cv2: Frontend, tmp_path: Path, speech: np.ndarray) -> None:
    repeats = int(np.ceil(300 * ESPEAK_RATE / speech.shape[0]))
    long = np.tile(speech, repeats)[: 300 * ESPEAK_RATE]
    p = cv2.extract(_write(tmp_path / "long.wav", long, ESPEAK_RATE))
    assert p.duration == pytest.approx(MAX_SECONDS)
    assert len(p.warnings) == 1 and "only its first 30 s" in p.warnings[0]
    assert p.num_tokens == pytest.approx(750, abs=2)


# --------------------------------------------------------------------------------------------
# Unusable recordings
# --------------------------------------------------------------------------------------------


def test_silent_clip(cv2: Frontend, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"silent"):
        cv2.extract(_write(tmp_path / "silence.wav", np.zeros(3 * 16000, np.float32), 16000))
    hiss = (1e-5 * np.random.default_rng(0).standard_normal(3 * 16000)).astype(np.float32)
    with pytest.raises(InputError, match=r"silent"):
        cv2.extract(hiss, 16000)


@pytest.mark.parametrize("level", [0.5, -0.25])
def test_three_seconds_of_dc(cv2: Frontend, tmp_path: Path, level: float) -> None:
    """Issue 27: a constant level holds no sound: refused as silence is, and the message says what it is."""
    dc = np.full(3 * 16000, level, np.float32)
    for audio in (_write(tmp_path / "dc.wav", dc, 16000), dc):
        with pytest.raises(InputError, match=re.escape(f"silent (a constant level of {level:+.2f}, a DC offset "
                                                       "with no sound in it); record or choose a clip with speech")):
            cv2.extract(audio, 16000)


def test_speech_with_a_dc_offset_warns(cv2: Frontend, speech: np.ndarray) -> None:
    p = cv2.extract(speech * 0.5 + 0.2, ESPEAK_RATE)
    assert len(p.warnings) == 1 and "DC offset of +0.20" in p.warnings[0]
    assert "Remove the offset in an audio editor" in p.warnings[0]


def test_too_short(cv2: Frontend, tmp_path: Path, speech: np.ndarray) -> None:
    clip = speech[int(0.5 * ESPEAK_RATE) : int(0.8 * ESPEAK_RATE)]
    with pytest.raises(InputError, match=r"0\.30 s long.*at least 1 s"):
        cv2.extract(_write(tmp_path / "short.wav", clip, ESPEAK_RATE))


def test_8khz_is_refused(cv2: Frontend, tmp_path: Path, speech: np.ndarray) -> None:
    phone = resample(speech, ESPEAK_RATE, 8000)
    with pytest.raises(InputError, match=r"8000 Hz.*at least 16 kHz"):
        cv2.extract(_write(tmp_path / "phone.wav", phone, 8000))


def test_nan_samples(cv2: Frontend, tmp_path: Path, speech: np.ndarray) -> None:
    bad = speech.copy()
    bad[1000:1010] = np.nan
    with pytest.raises(InputError, match=r"NaN"):
        cv2.extract(bad, ESPEAK_RATE)
    with pytest.raises(InputError, match=r"NaN"):
        cv2.extract(_write(tmp_path / "nan.wav", bad, ESPEAK_RATE, "FLOAT"))


def test_not_audio(cv2: Frontend, tmp_path: Path) -> None:
    fake = tmp_path / "notes.wav"
    fake.write_text("These are my notes, not a recording.\n" * 50)
    with pytest.raises(InputError, match=r"notes.wav"):
        cv2.extract(fake)


def test_truncated_wav(cv2: Frontend, tmp_path: Path, speech_wav: Path) -> None:
    data = speech_wav.read_bytes()
    cut = tmp_path / "cut.wav"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match=r"truncated"):
        cv2.extract(cut)


# --------------------------------------------------------------------------------------------
# Saved voices
# --------------------------------------------------------------------------------------------


def test_voice_round_trip(cv2: Frontend, tmp_path: Path, speech_wav: Path) -> None:
    p = cv2.extract(speech_wav)
    voice = voice_from_prompt(p, name="Robot", transcript=SENTENCE, language="en")
    loaded = load_voice(save_voice(tmp_path / "robot.cosyvoice", voice))
    assert loaded == voice and loaded.family == "cosyvoice2"
    back = prompt_from_voice(loaded, cv2.cfg, speech_tokenizer_sha256=cv2.tokenizer.sha256)
    assert torch.equal(back.speech_tokens, p.speech_tokens)
    assert torch.equal(back.embedding, p.embedding)
    assert torch.equal(back.prompt_mel, p.prompt_mel)
    assert np.array_equal(back.audio_24k, p.audio_24k)
    assert back.duration == pytest.approx(p.duration, abs=1e-3)


def test_voice_family_must_match(cv2: Frontend, cv3: Frontend, speech_wav: Path) -> None:
    voice = voice_from_prompt(cv2.extract(speech_wav), name="Robot", transcript=SENTENCE)
    with pytest.raises(InputError, match=r"made for CosyVoice2.*loaded model is Fun-CosyVoice3"):
        prompt_from_voice(voice, cv3.cfg)
    with pytest.raises(InputError, match=r"different speech tokenizer"):
        prompt_from_voice(voice, cv2.cfg, speech_tokenizer_sha256="0" * 64)
    moved = refresh_voice(voice, cv3.cfg, cv3.tokenizer, cv3.encoder)
    assert moved.family == "cosyvoice3" and moved.name == "Robot" and moved.created_at == voice.created_at
    assert prompt_from_voice(moved, cv3.cfg).num_tokens == pytest.approx(voice.speech_tokens.size, abs=1)


@pytest.mark.parametrize("dtype", ["int16", "int32", "uint8"])
def test_prompt_waveform_as(dtype: str) -> None:
    """int16 prompt audio (as a WAV reader or a microphone gives it) is scaled to [-1, 1], not used as
    it is (which read as 78 % clipped)."""
    from cosycore.frontend.prompt import mono_array

    t = np.arange(24000) / 24000
    x = 0.5 * np.sin(2 * np.pi * 220 * t)
    info = np.iinfo(dtype)
    if info.min < 0:
        raw = np.round(x * -float(info.min)).astype(dtype)
    else:
        raw = np.round(x * 128 + 128).clip(0, 255).astype(dtype)
    got = mono_array(raw)
    assert got.dtype == np.float32 and np.abs(got - x).max() < 0.01
    assert np.abs(mono_array(np.stack([raw, raw])) - x).max() < 0.01  # channels too
