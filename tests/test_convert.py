"""Voice conversion (issue 26): Engine.convert on the tiny models, the source's pieces, bad input."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

from cosycore.engine import Engine
from cosycore.engine.convert import iter_pieces, probe_source, source_tokens
from cosycore.engine.convert.source import find_cut, token_grid
from cosycore.errors import InputError, NoLanguageModelError
from cosycore.request import SynthesisRequest

pytestmark = pytest.mark.usefixtures("single_thread")

SR = 22050


def speechlike(seconds: float, sr: int = SR, *, seed: int = 0, pauses: tuple[float, ...] = ()) -> np.ndarray:
    """A gliding, amplitude-modulated tone with silent gaps of 0.3 s at ``pauses`` (seconds)."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * sr)) / sr
    f = 140 + 60 * np.sin(2 * np.pi * 0.7 * t + rng.uniform(0, 6))
    x = 0.3 * np.sin(2 * np.pi * np.cumsum(f) / sr) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
    x += 0.01 * rng.standard_normal(t.shape)
    for p in pauses:
        x[int(p * sr) : int((p + 0.3) * sr)] = 0.0
    return x.astype(np.float32)


@pytest.fixture(scope="module")
def target() -> np.ndarray:
    return speechlike(2.5, seed=1)


@pytest.fixture(scope="module")
def cv2_voice(cv2_engine: Engine, target: np.ndarray):
    return cv2_engine.create_voice(target, SR, name="Target")


def _total(chunks) -> int:
    return sum(c.samples.shape[0] for c in chunks)


@pytest.mark.parametrize("family", ["cosyvoice2", "cosyvoice3"])
@pytest.mark.parametrize("stream", [False, True])
def test_convert_streams_chunks_of_the_source_length(family, stream, cv2_engine, cv3_engine, target) -> None:
    engine = cv2_engine if family == "cosyvoice2" else cv3_engine
    voice = engine.create_voice(target, SR, name="T")
    source = speechlike(2.0)
    n_tokens = source_tokens(source, SR, engine.speech_tokenizer).shape[1]
    chunks = list(engine.convert(source, voice, sample_rate=SR, stream=stream, seed=3))
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert chunks[-1].is_final and not any(c.is_final for c in chunks[:-1])
    assert (len(chunks) > 1) == stream
    assert sum(len(c.tokens) for c in chunks) == n_tokens == chunks[-1].tokens_so_far
    # a saved voice is aligned 2:1: two mel frames per source token, 480 samples per frame
    assert _total(chunks) == n_tokens * 2 * 480
    assert all(c.sample_rate == 24000 and c.sentence_index == 0 and c.sentence_text == "" for c in chunks)
    assert all(np.isfinite(c.samples).all() and c.samples.dtype == np.float32 for c in chunks)
    starts = np.cumsum([0] + [c.samples.shape[0] for c in chunks[:-1]]) / 24000
    assert np.allclose([c.start_time for c in chunks], starts)


def test_convert_is_reproducible_and_follows_the_source(cv2_engine, cv2_voice) -> None:
    a = np.concatenate([c.samples for c in cv2_engine.convert(speechlike(2.0), cv2_voice, sample_rate=SR,
                                                              stream=False, seed=5)])
    b = np.concatenate([c.samples for c in cv2_engine.convert(speechlike(2.0), cv2_voice, sample_rate=SR,
                                                              stream=False, seed=5)])
    c = np.concatenate([c.samples for c in cv2_engine.convert(speechlike(2.0, seed=9), cv2_voice, sample_rate=SR,
                                                              stream=False, seed=5)])
    assert np.array_equal(a, b) and not np.array_equal(a[: c.shape[0]], c[: a.shape[0]])


def test_target_recording_in_exact_mode_keeps_the_original_unaligned_prompt(cv3_engine, target) -> None:
    """The original's frontend_vc does not trim the prompt to 2 mel frames per token: with a target
    recording whose mel has one frame more, the conversion is one frame (480 samples) shorter."""
    prompt = speechlike(2.51, seed=1)  # 125 mel frames, 62 tokens
    source = speechlike(2.0)
    n = source_tokens(source, SR, cv3_engine.speech_tokenizer).shape[1]
    chunks = list(cv3_engine.convert(source, sample_rate=SR, prompt_audio=prompt, prompt_sample_rate=SR,
                                     stream=False))
    assert _total(chunks) == (2 * n - 1) * 480


@pytest.mark.parametrize("stream", [False, True])
def test_speed_changes_the_length(cv3_engine, stream, target) -> None:
    voice = cv3_engine.create_voice(target, SR, name="T")
    source = speechlike(2.0)
    normal = _total(cv3_engine.convert(source, voice, sample_rate=SR, stream=stream))
    fast = _total(cv3_engine.convert(source, voice, sample_rate=SR, stream=stream, speed=1.5))
    assert abs(fast - normal / 1.5) < 0.05 * normal


@pytest.mark.parametrize("quality", ["fast", "draft"])
def test_quality_modes_convert(tiny_cv3_model: Path, cv3_engine, target, quality) -> None:
    """fast: the exact flow, streamed calls from the flow cache (equal up to float rounding); draft: 4 steps
    without CFG (a different, approximate mel)."""
    engine = Engine(tiny_cv3_model, device="cpu", quality=quality, threads=1)
    voice = engine.create_voice(target, SR, name="T")
    for stream in (False, True):
        got = np.concatenate([c.samples for c in engine.convert(speechlike(2.0), voice, sample_rate=SR,
                                                                stream=stream)])
        ref = np.concatenate([c.samples for c in cv3_engine.convert(speechlike(2.0), voice, sample_rate=SR,
                                                                    stream=stream)])
        assert got.shape == ref.shape and np.isfinite(got).all()
        assert np.allclose(got, ref, atol=1e-3) == (quality == "fast")


def test_an_engine_without_the_language_model_converts_alike(tiny_cv2_model: Path, cv2_engine, cv2_voice) -> None:
    """with_llm=False (what `cosycore convert` loads): no "llm" load step, the bar still rises to 1.0, the
    same audio as an engine with it (up to float rounding), no LM in info(), and speaking is a typed error at
    the call."""
    seen: list[tuple[float, str]] = []
    engine = Engine(tiny_cv2_model, device="cpu", with_llm=False, progress=lambda f, s: seen.append((f, s)))
    steps = [s for _, s in seen]
    assert "llm" not in steps and steps[0] == "flow" and steps[-1] == "ready"
    fractions = [f for f, _ in seen]
    assert fractions[0] == 0.0 and fractions == sorted(fractions) and fractions[-1] == 1.0
    assert not engine.model.has_llm and cv2_engine.model.has_llm
    assert [n for n, _ in engine.info().parameters] == ["flow", "hift"]
    got = np.concatenate([c.samples for c in engine.convert(speechlike(2.0), cv2_voice, sample_rate=SR, seed=5)])
    ref = np.concatenate([c.samples for c in cv2_engine.convert(speechlike(2.0), cv2_voice, sample_rate=SR, seed=5)])
    assert got.shape == ref.shape and np.allclose(got, ref, atol=1e-6)  # two loads: float rounding may differ
    with pytest.raises(NoLanguageModelError, match=r"voice conversion only.*with_llm=True"):
        engine.synthesize(SynthesisRequest(text="Hello.", mode="cross_lingual", voice=cv2_voice))


def test_the_convert_command_loads_no_language_model(monkeypatch: pytest.MonkeyPatch) -> None:
    import cosycore.__main__ as cli
    import cosycore.engine

    made: list[dict] = []
    monkeypatch.setattr(cosycore.engine, "Engine", lambda *a, **kw: made.append(kw))
    for argv in (["convert", "src.wav", "--voice", "V", "--out", "o.wav", "--model", "M"],
                 ["synth", "--text", "Hi", "--model", "M", "--prompt-wav", "p.wav", "--out", "o.wav"]):
        cli._load_engine(cli.build_parser().parse_args(argv))
    assert [kw["with_llm"] for kw in made] == [False, True]


def test_a_long_source_is_converted_in_pieces(cv3_engine, target, tmp_path: Path) -> None:
    voice = cv3_engine.create_voice(target, SR, name="T")
    path = tmp_path / "long.wav"
    sf.write(path, speechlike(34.0, pauses=(27.0,)), SR)
    chunks = list(cv3_engine.convert(path, voice, stream=False))
    assert [c.sentence_index for c in chunks] == [0, 1] and chunks[-1].is_final
    assert chunks[0].sentence_final and chunks[1].sentence_final
    # the cut is in the pause at 27.0-27.3 s, on the 40 ms token grid
    assert 27.0 <= chunks[0].samples.shape[0] / 24000 <= 27.3
    assert abs(_total(chunks) / 24000 - 34.0) < 0.1


def test_later_silent_pieces_become_silence(cv3_engine, target) -> None:
    voice = cv3_engine.create_voice(target, SR, name="T")
    source = np.concatenate([speechlike(20.0), np.zeros(int(15 * SR), np.float32)])
    chunks = list(cv3_engine.convert(source, voice, sample_rate=SR, stream=False))
    assert len(chunks) == 2 and not chunks[1].samples.any() and chunks[1].tokens == ()


def test_cancel_stops_a_conversion(cv3_engine, target) -> None:
    voice = cv3_engine.create_voice(target, SR, name="T")
    got = []
    for chunk in cv3_engine.convert(speechlike(6.0), voice, sample_rate=SR, stream=True):
        got.append(chunk)
        cv3_engine.cancel()
    assert len(got) == 1 and not got[0].is_final
    assert list(cv3_engine.convert(speechlike(1.0), voice, sample_rate=SR))[-1].is_final  # usable after


def test_warnings_of_a_quiet_source(cv2_engine, cv2_voice) -> None:
    chunks = list(cv2_engine.convert(speechlike(1.0) * 0.01, cv2_voice, sample_rate=SR, stream=False))
    assert any("very quiet" in w for w in chunks[0].warnings) and cv2_engine.last_warnings == chunks[0].warnings


# ---- bad input --------------------------------------------------------------------------------


def _error(engine: Engine, *args, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        list(engine.convert(*args, **kwargs))
    return str(info.value)


def test_silence_is_refused(cv2_engine, cv2_voice) -> None:
    assert "silent" in _error(cv2_engine, np.zeros(SR * 2, np.float32), cv2_voice, sample_rate=SR)
    assert "silent for its first 30 s" in _error(cv2_engine, np.concatenate(
        [np.zeros(SR * 31, np.float32), speechlike(2.0)]), cv2_voice, sample_rate=SR)


def test_too_long_or_too_short_sources_are_refused(cv2_engine, cv2_voice, tmp_path: Path) -> None:
    path = tmp_path / "long.wav"
    sf.write(path, speechlike(12.0), SR)
    msg = _error(cv2_engine, path, cv2_voice, max_source_seconds=10)
    assert "at most" in msg and "Cut the recording" in msg
    assert "at least 0.5 s" in _error(cv2_engine, speechlike(0.3), cv2_voice, sample_rate=SR)


def test_unsupported_rates_are_refused(cv2_engine, cv2_voice, tmp_path: Path) -> None:
    assert "16 kHz" in _error(cv2_engine, speechlike(2.0, 8000), cv2_voice, sample_rate=8000)
    path = tmp_path / "phone.wav"
    sf.write(path, speechlike(2.0, 8000), 8000)
    assert "8000 Hz" in _error(cv2_engine, path, cv2_voice)
    assert "without a sample rate" in _error(cv2_engine, speechlike(2.0), cv2_voice)


def test_a_voice_of_the_other_family_is_refused(cv2_engine, cv3_engine, target) -> None:
    cv3_voice = cv3_engine.create_voice(target, SR, name="Three")
    msg = _error(cv2_engine, speechlike(2.0), cv3_voice, sample_rate=SR)
    assert "Fun-CosyVoice3" in msg and "Re-create the voice" in msg


def test_corrupt_files_are_refused(cv2_engine, cv2_voice, tmp_path: Path) -> None:
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"RIFF" + bytes(range(256)) * 8)
    assert "junk.wav" in _error(cv2_engine, junk, cv2_voice)
    buf = io.BytesIO()
    sf.write(buf, speechlike(3.0), SR, format="WAV", subtype="PCM_16")
    truncated = tmp_path / "cut.wav"
    truncated.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    assert "truncated" in _error(cv2_engine, truncated, cv2_voice)
    assert "does not exist" in _error(cv2_engine, tmp_path / "missing.wav", cv2_voice)
    nan = speechlike(2.0)
    nan[100] = np.nan
    assert "NaN" in _error(cv2_engine, nan, cv2_voice, sample_rate=SR)


def test_request_fields_are_checked(cv2_engine, cv2_voice, target) -> None:
    src = speechlike(2.0)
    assert "not both" in _error(cv2_engine, src, cv2_voice, sample_rate=SR, prompt_audio=target,
                                prompt_sample_rate=SR)
    assert "needs a target voice" in _error(cv2_engine, src, sample_rate=SR)
    assert "speed" in _error(cv2_engine, src, cv2_voice, sample_rate=SR, speed=3.0)
    assert "seed" in _error(cv2_engine, src, cv2_voice, sample_rate=SR, seed=1.5)


# ---- the source's pieces (no model) -------------------------------------------------------------


def test_pieces_are_cut_at_pauses_on_the_token_grid(tmp_path: Path) -> None:
    wav = speechlike(75.0, 44100, pauses=(22.0, 50.0))
    path = tmp_path / "long.flac"
    sf.write(path, np.stack([wav, wav], axis=1), 44100)  # stereo: mixed to mono block by block
    info = probe_source(path, None)
    pieces = list(iter_pieces(path, info))
    assert [p.index for p in pieces] == [0, 1, 2] and [p.is_last for p in pieces] == [False, False, True]
    assert all(p.duration <= 30.0 for p in pieces)
    assert 22.0 <= pieces[1].start <= 22.3 and 50.0 <= pieces[2].start <= 50.3
    grid = token_grid(44100)
    assert grid == 1764 and all(round(p.start * 44100) % grid == 0 for p in pieces)
    joined = np.concatenate([p.samples for p in pieces])
    assert np.allclose(joined, wav, atol=1e-4)  # nothing lost, nothing doubled (FLAC is 16 bit)


def test_a_source_of_at_most_30_s_is_one_piece_read_whole(tmp_path: Path) -> None:
    wav = speechlike(30.0, 16000)
    pieces = list(iter_pieces(wav, probe_source(wav, 16000)))
    assert len(pieces) == 1 and pieces[0].is_last and np.array_equal(pieces[0].samples, wav)


def test_a_cut_without_a_pause_takes_the_quietest_place() -> None:
    wav = speechlike(30.0, 16000)
    wav[int(25.0 * 16000) : int(25.2 * 16000)] *= 0.05
    cut = find_cut(wav, 16000)
    assert 25.0 <= cut / 16000 <= 25.2 and cut % 640 == 0


def test_source_tokens_match_the_prompt_frontend(cv2_engine) -> None:
    wav = speechlike(2.0)
    feats = cv2_engine.extract_prompt(wav, SR)
    tokens = source_tokens(wav, SR, cv2_engine.speech_tokenizer)
    assert torch.equal(tokens[:, : feats.num_tokens], feats.speech_tokens)

