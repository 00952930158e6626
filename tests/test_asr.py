"""Transcripts from speech: the tiny SenseVoice model through the real sherpa-onnx code path.

The tiny model's words are random, so these tests check the plumbing (files, metadata, audio
bounds, languages, the once-only transcript of a voice) and never the words themselves.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cosycore.asr import (
    ASR_SOURCE,
    SenseVoice,
    check_model_folder,
    ensure_transcript,
)
from cosycore.errors import AsrAudioError, AsrModelDamagedError, AsrModelMissingError, CosyError, InputError
from cosycore.testing.tiny_sensevoice import tiny_vocabulary, write_tiny_sensevoice
from cosycore.voices import VoiceLibrary, load_voice
from tests.test_voices import make_voice

RATE = 16000


def speechlike(seconds: float = 2.0, rate: int = RATE, seed: int = 0) -> np.ndarray:
    """A gliding tone with noise: not speech, but enough for the random model to emit tokens."""
    t = np.arange(int(seconds * rate)) / rate
    noise = np.random.default_rng(seed).normal(0.0, 0.05, t.size)
    return (0.3 * np.sin(2 * np.pi * 220 * t * (1 + t)) + noise).astype(np.float32)


@pytest.fixture(scope="module")
def recognizer(tiny_sensevoice: Path) -> SenseVoice:
    return SenseVoice.load(tiny_sensevoice, threads=1)


def copy_model(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


# --------------------------------------------------------------------------------------------
# The tiny model and the folder checks
# --------------------------------------------------------------------------------------------


def test_tiny_model_has_the_release_layout_and_metadata(tiny_sensevoice: Path) -> None:
    import onnx

    assert sorted(p.name for p in tiny_sensevoice.iterdir()) == ["model.int8.onnx", "tokens.txt"]
    model = onnx.load(tiny_sensevoice / "model.int8.onnx")
    meta = {p.key: p.value for p in model.metadata_props}
    assert {"vocab_size", "lfr_window_size", "lfr_window_shift", "normalize_samples", "with_itn", "without_itn",
            "lang_auto", "lang_zh", "lang_en", "lang_ja", "lang_ko", "lang_yue", "neg_mean", "inv_stddev"} <= set(meta)
    assert len(meta["neg_mean"].split(",")) == 80 * int(meta["lfr_window_size"])
    assert [i.name for i in model.graph.input] == ["x", "x_length", "language", "text_norm"]
    assert any(n.op_type in ("MatMulInteger", "DynamicQuantizeLinear") for n in model.graph.node)  # int8, as released
    lines = (tiny_sensevoice / "tokens.txt").read_text(encoding="utf-8").splitlines()
    assert len(lines) == int(meta["vocab_size"]) == len(tiny_vocabulary()) and lines[0] == "<unk> 0"


def test_check_model_folder_accepts_the_tiny_model(tiny_sensevoice: Path) -> None:
    checked = check_model_folder(tiny_sensevoice)
    assert checked.model_path.name == "model.int8.onnx" and checked.quantized
    assert checked.vocab_size == len(tiny_vocabulary())
    assert (checked.window_size, checked.window_shift) == (7, 6)
    assert set(checked.languages) == {"zh", "en", "ja", "ko", "yue"}


def test_float_model_is_used_when_there_is_no_int8_one(tmp_path: Path) -> None:
    folder = write_tiny_sensevoice(tmp_path / "float", int8=False)
    checked = check_model_folder(folder)
    assert checked.model_path.name == "model.onnx" and not checked.quantized
    text = SenseVoice.load(folder, threads=1).transcribe(speechlike(), RATE).text
    assert isinstance(text, str)


def test_missing_model_says_how_to_download_it(tmp_path: Path) -> None:
    with pytest.raises(AsrModelMissingError, match="cosycore models download sensevoice-small"):
        SenseVoice.load(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(AsrModelMissingError, match=r"model\.int8\.onnx"):
        check_model_folder(tmp_path / "empty")


@pytest.mark.parametrize("damage, message", [
    (lambda d: (d / "tokens.txt").unlink(), "tokens.txt is missing"),
    (lambda d: (d / "tokens.txt").write_text("<unk> 0\n<s> 2\n", encoding="utf-8"), "ids are not 0 to 1"),
    (lambda d: (d / "tokens.txt").write_text("<unk> zero\n", encoding="utf-8"), "does not end in a token id"),
    (lambda d: (d / "model.int8.onnx").write_bytes(b"not an onnx file at all"), "not a readable ONNX model"),
    (lambda d: (d / "model.int8.onnx").write_bytes((d / "model.int8.onnx").read_bytes()[:2000]),
     "not a readable ONNX model"),
    (lambda d: (d / "model.int8.onnx").write_bytes(b""), "is empty"),
    (lambda d: (d / "tokens.txt").write_text("".join(f"t{i} {i}\n" for i in range(10)), encoding="utf-8"),
     "vocab_size"),
])
def test_damaged_files_are_typed_errors(tiny_sensevoice: Path, tmp_path: Path, damage, message: str) -> None:
    folder = copy_model(tiny_sensevoice, tmp_path / "model")
    damage(folder)
    with pytest.raises(AsrModelDamagedError, match=message) as info:
        SenseVoice.load(folder)
    assert "Download it again" in str(info.value)


@pytest.mark.parametrize("overrides, message", [
    ({"vocab_size": None}, "vocab_size"),  # sherpa-onnx would end the process here
    ({"lang_ko": None}, "lang_ko"),
    ({"with_itn": "-1"}, "negative 'with_itn'"),
    ({"lfr_window_size": "seven"}, "lfr_window_size"),
    ({"neg_mean": "1,2,3"}, "neg_mean"),
    ({"inv_stddev": None}, "inv_stddev"),
    ({"normalize_samples": "5"}, "normalize_samples"),
    ({"comment": "FunASR Nano"}, "FunASR-Nano"),
])
def test_wrong_metadata_is_caught_before_sherpa_onnx_sees_it(tmp_path: Path, overrides, message: str) -> None:
    folder = write_tiny_sensevoice(tmp_path / "model", int8=False, meta_overrides=overrides)
    with pytest.raises(AsrModelDamagedError, match=message):
        SenseVoice.load(folder)


def test_an_onnx_model_of_something_else_is_refused(tmp_path: Path, tiny_cv2_model: Path) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(tiny_cv2_model / "campplus.onnx", folder / "model.onnx")
    (folder / "tokens.txt").write_text("".join(f"{p} {i}\n" for i, p in enumerate(tiny_vocabulary())), "utf-8")
    with pytest.raises(AsrModelDamagedError, match="inputs"):
        check_model_folder(folder)


# --------------------------------------------------------------------------------------------
# Transcribing
# --------------------------------------------------------------------------------------------


def test_transcribe_returns_text_and_the_language(recognizer: SenseVoice) -> None:
    result = recognizer.transcribe(speechlike(), RATE)
    assert isinstance(result.text, str) and result.text  # random words, but words
    assert "<|" not in result.text  # the tags became the language, not text
    assert result.language == "en"  # the tiny model answers "auto" with <|en|>
    assert result.seconds == pytest.approx(2.0)


def test_other_rates_are_resampled_to_16k(recognizer: SenseVoice) -> None:
    at_16k = recognizer.transcribe(speechlike(rate=16000), 16000)
    at_48k = recognizer.transcribe(speechlike(rate=48000), 48000)
    assert at_48k.seconds == pytest.approx(at_16k.seconds)
    stereo = np.stack([speechlike(rate=24000)] * 2, axis=1)  # [N, 2]
    assert isinstance(recognizer.transcribe(stereo, 24000).text, str)


def test_a_chosen_language_reaches_the_model(tiny_sensevoice: Path) -> None:
    japanese = SenseVoice.load(tiny_sensevoice, language="ja", threads=1)
    assert japanese.transcribe(speechlike(), RATE).language == "ja"
    with pytest.raises(InputError, match="klingon"):
        SenseVoice.load(tiny_sensevoice, language="klingon")


@pytest.mark.parametrize("samples, rate, message", [
    (np.zeros(0, np.float32), RATE, "empty or too short"),
    (np.zeros(800, np.float32), RATE, "empty or too short"),
    (np.zeros(RATE * 2, np.float32), RATE, "silent"),
    (np.full(RATE, np.nan, np.float32), RATE, "NaN"),
    (np.zeros((2, 2, RATE), np.float32), RATE, "shape"),
    (speechlike(), 0, "sample rate"),
])
def test_unusable_audio_is_a_typed_error(recognizer: SenseVoice, samples, rate: int, message: str) -> None:
    with pytest.raises(AsrAudioError, match=message):
        recognizer.transcribe(samples, rate)


def test_clips_longer_than_a_voice_are_refused_not_read_whole(recognizer: SenseVoice, tmp_path: Path) -> None:
    import soundfile as sf

    with pytest.raises(AsrAudioError, match="up to 30 s"):
        recognizer.transcribe(np.zeros(RATE * 40, np.float32) + 0.1, RATE)
    long_file = tmp_path / "long.wav"
    sf.write(long_file, np.tile(speechlike(rate=8000), 20), 8000)  # 40 s
    with pytest.raises(AsrAudioError, match=r"40\.0 s long"):
        recognizer.transcribe_file(long_file)
    short = tmp_path / "short.flac"
    sf.write(short, speechlike(rate=22050), 22050)
    assert recognizer.transcribe_file(short).seconds == pytest.approx(2.0, abs=0.01)
    (tmp_path / "empty.wav").write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        recognizer.transcribe_file(tmp_path / "empty.wav")


def test_errors_are_cosy_errors() -> None:
    assert issubclass(AsrModelMissingError, CosyError) and issubclass(AsrAudioError, InputError)


# --------------------------------------------------------------------------------------------
# A voice's transcript: recognised once, kept in the voice file
# --------------------------------------------------------------------------------------------


class CountingRecognizer:
    """Hands out the real recognizer and counts how often it was asked for and used."""

    def __init__(self, inner: SenseVoice) -> None:
        self.inner = inner
        self.loads = 0
        self.calls = 0

    def __call__(self) -> CountingRecognizer:
        self.loads += 1
        return self

    def transcribe(self, samples, sample_rate, *, what: str = "the clip"):
        self.calls += 1
        return self.inner.transcribe(samples, sample_rate, what=what)


def voice_without_transcript(name: str = "Mia", language: str = ""):
    audio = speechlike(seconds=2.0, rate=24000)
    return replace(make_voice(name), transcript="", language=language, audio_24k=audio)


def test_a_voice_is_transcribed_once_and_the_transcript_is_kept(recognizer: SenseVoice, tmp_path: Path) -> None:
    library = VoiceLibrary(tmp_path / "voices")
    info = library.add(voice_without_transcript())
    counting = CountingRecognizer(recognizer)
    voice, transcript = ensure_transcript(library, info.name, counting)
    assert transcript is not None and voice.transcript == transcript.text != ""
    assert voice.transcript_source == ASR_SOURCE and voice.language == "en"
    stored = load_voice(info.path)
    assert stored.transcript == transcript.text and stored.transcript_source == ASR_SOURCE
    for _take in range(2):  # later takes read the stored transcript: the recognizer is never asked again
        again, new = ensure_transcript(library, info.name, counting)
        assert new is None and again.transcript == transcript.text
    assert (counting.loads, counting.calls) == (1, 1)


def test_a_typed_transcript_is_never_replaced(recognizer: SenseVoice, tmp_path: Path) -> None:
    library = VoiceLibrary(tmp_path / "voices")
    info = library.add(make_voice("Anna"))
    counting = CountingRecognizer(recognizer)
    voice, transcript = ensure_transcript(library, info.name, counting)
    assert transcript is None and voice.transcript.startswith("Hello") and counting.loads == 0


def test_editing_a_recognised_transcript_marks_it_typed(recognizer: SenseVoice, tmp_path: Path) -> None:
    library = VoiceLibrary(tmp_path / "voices")
    info = library.add(voice_without_transcript(language="de"))
    voice, _ = ensure_transcript(library, info.name, CountingRecognizer(recognizer))
    assert voice.language == "de"  # a language the user set is kept
    library.update(info.name, transcript="Corrected words.")
    edited = load_voice(info.path)
    assert (edited.transcript, edited.transcript_source) == ("Corrected words.", "typed")
    library.update(info.name, notes="only the notes")
    assert load_voice(info.path).transcript_source == "typed"


def test_silence_in_a_voice_gives_a_message_not_an_empty_transcript(recognizer: SenseVoice, tmp_path: Path) -> None:
    library = VoiceLibrary(tmp_path / "voices")
    quiet = replace(voice_without_transcript(), audio_24k=np.zeros(48000, np.float32))
    info = library.add(quiet)
    with pytest.raises(AsrAudioError, match="silent"):
        ensure_transcript(library, info.name, CountingRecognizer(recognizer))
    assert load_voice(info.path).transcript == ""  # nothing was written


def test_voice_files_without_a_source_keep_their_bytes(tmp_path: Path) -> None:
    from cosycore.voices import encode_voice

    voice = make_voice()
    assert b"transcript_source" not in encode_voice(voice)
    marked = replace(voice, transcript_source="asr")
    assert b'"transcript_source": "asr"' in encode_voice(marked)
