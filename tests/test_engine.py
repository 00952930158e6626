"""The public engine: mode planning per family, request checks, bad input, voices, sentences, cancel."""

from __future__ import annotations

import io
import itertools
import threading
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

import cosycore.engine.core as engine_module
import cosycore.frontend.text as text_module
from cosycore.engine import Engine, SynthesisRequest
from cosycore.errors import InputError
from cosycore.frontend.prompt import PromptFeatures
from cosycore.frontend.text import iter_sentences
from cosycore.frontend.tokenizer import ENDOFPROMPT
from cosycore.mode_plan import ModePlan, model_inputs, plan_mode
from cosycore.request import validate_request
from cosycore.voices import FORMAT_VERSION, Voice, load_voice, save_voice

pytestmark = pytest.mark.usefixtures("single_thread")

SYSTEM = "You are a helpful assistant.<|endofprompt|>"


# ---- mode planning (pure) ----------------------------------------------------------------

PLANS = [
    ("cosyvoice2", "zero_shot", "the transcript.", True),
    ("cosyvoice3", "zero_shot", SYSTEM + "the transcript.", True),
    ("cosyvoice2", "cross_lingual", "", False),
    ("cosyvoice3", "cross_lingual", SYSTEM, False),
    ("cosyvoice2", "instruct", "Speak slowly.<|endofprompt|>", False),
    ("cosyvoice3", "instruct", "You are a helpful assistant. Speak slowly.<|endofprompt|>", False),
]


@pytest.mark.parametrize(("family", "mode", "prompt_text", "speech"), PLANS)
def test_plan_per_family_and_mode(family, mode, prompt_text, speech) -> None:
    plan = plan_mode(mode, family, transcript="the transcript.", instruction="Speak slowly.")
    assert plan == ModePlan(mode, family, prompt_text, speech)


@pytest.mark.parametrize("family", ["cosyvoice2", "cosyvoice3"])
def test_instruction_marker_is_added_once(family) -> None:
    with_marker = plan_mode("instruct", family, instruction="Speak slowly." + ENDOFPROMPT)
    without = plan_mode("instruct", family, instruction="Speak slowly.")
    assert with_marker == without and without.lm_prompt_text.count(ENDOFPROMPT) == 1
    with pytest.raises(InputError, match="wrong place"):
        plan_mode("instruct", family, instruction="Speak <|endofprompt|> slowly.")


def _features(p: int = 12) -> PromptFeatures:
    return PromptFeatures(
        speech_tokens=torch.arange(p, dtype=torch.int32)[None], embedding=torch.ones(1, 192),
        prompt_mel=torch.zeros(1, 2 * p, 80), audio_24k=np.zeros(24000, np.float32), duration=1.0,
        family="cosyvoice2",
    )


@pytest.mark.parametrize(("family", "mode", "prompt_text", "speech"), PLANS)
def test_model_inputs_route_the_prompt(family, mode, prompt_text, speech) -> None:
    plan = ModePlan(mode, family, prompt_text, speech)
    inputs = model_inputs(plan, _features(), [7, 8], [1, 2, 3])
    assert inputs.text_ids == (1, 2, 3) and inputs.prompt_text_ids == (7, 8)
    assert inputs.llm_prompt_speech.shape == ((1, 12) if speech else (1, 0))
    assert inputs.flow_prompt_speech.tolist() == [list(range(12))]  # the flow always gets the prompt
    assert inputs.prompt_feat.shape == (1, 24, 80) and inputs.embedding.shape == (1, 192)


@pytest.mark.parametrize("family", ["cosyvoice2", "cosyvoice3"])
@pytest.mark.parametrize("mode", ["zero_shot", "cross_lingual", "instruct"])
def test_lm_input_layout_matches_the_spec(request, family, mode) -> None:
    """``[sos] prompt-text target-text [task_id] (prompt speech)`` with the spec's prompt text per mode."""
    engine: Engine = request.getfixturevalue("cv2_engine" if family == "cosyvoice2" else "cv3_engine")
    tok, lm = engine.tokenizer, engine.model.llm
    plan = plan_mode(mode, family, transcript="the transcript.", instruction="Speak slowly.")  # type: ignore[arg-type]
    text = tok.encode("Hello world.")
    inputs = model_inputs(plan, _features(), tok.encode(plan.lm_prompt_text), text)
    lm_input = lm.build_lm_input(inputs.text_ids, inputs.prompt_text_ids, inputs.llm_prompt_speech)
    expected_text = {
        ("cosyvoice2", "zero_shot"): "the transcript.Hello world.",
        ("cosyvoice3", "zero_shot"): SYSTEM + "the transcript.Hello world.",
        ("cosyvoice2", "cross_lingual"): "Hello world.",
        ("cosyvoice3", "cross_lingual"): SYSTEM + "Hello world.",
        ("cosyvoice2", "instruct"): "Speak slowly.<|endofprompt|>Hello world.",
        ("cosyvoice3", "instruct"): "You are a helpful assistant. Speak slowly.<|endofprompt|>Hello world.",
    }[(family, mode)]
    with torch.inference_mode():
        parts = [lm.special_embedding("sos"), lm.qwen.embed_tokens(torch.tensor(tok.encode(expected_text))),
                 lm.special_embedding("task_id")]
        if mode == "zero_shot":
            parts.append(lm.speech_embedding(torch.arange(12)))
    assert torch.equal(lm_input[0], torch.cat(parts))
    assert list(inputs.prompt_text_ids) + list(inputs.text_ids) == tok.encode(expected_text)


# ---- request checks (pure) -----------------------------------------------------------------

VOICE_FREE = {"prompt_audio": "x.wav"}


@pytest.mark.parametrize(("fields", "message"), [
    ({"mode": "zero_shot"}, "type exactly what is said in it, or use cross_lingual"),
    ({"mode": "cross_lingual", "prompt_text": "hi"}, "does not use a transcript"),
    ({"mode": "instruct"}, "needs an instruction"),
    ({"mode": "instruct", "instruct_text": "Be happy.", "prompt_text": "hi"}, "does not use the prompt's"),
    ({"mode": "zero_shot", "prompt_text": "hi", "instruct_text": "Be happy."}, "only applies to instruct"),
    ({"mode": "shouting"}, "Unknown mode"),
    ({"mode": "cross_lingual", "speed": 2.5}, "between 0.5 and 2.0"),
    ({"mode": "cross_lingual", "speed": 0.2}, "between 0.5 and 2.0"),
    ({"mode": "cross_lingual", "language": "fr"}, "Unknown language"),
    ({"mode": "cross_lingual", "prompt_audio": None}, "needs a voice to imitate"),
    ({"mode": "cross_lingual", "prompt_audio": np.zeros(16000)}, "without a sample rate"),
    ({"mode": "cross_lingual", "min_tokens": 9, "max_tokens": 3}, "larger than max_tokens"),
    ({"mode": "cross_lingual", "text": b"bytes"}, "must be a string"),
])
def test_request_checks(fields, message) -> None:
    kwargs = {"text": "Hello there.", **VOICE_FREE, **fields}
    with pytest.raises(InputError, match=message):
        validate_request(SynthesisRequest(**kwargs))


# ---- bad input through the engine: a typed error, and the engine keeps working ------------


@pytest.fixture(scope="module")
def clip(espeak_wav: Path) -> tuple[np.ndarray, int]:
    audio, sr = sf.read(str(espeak_wav), dtype="float32")
    return audio, sr


@pytest.fixture(scope="module")
def voice(cv2_engine: Engine, clip) -> Voice:
    audio, sr = clip
    return cv2_engine.create_voice(audio[: int(2.5 * sr)], sr, name="fox", transcript="The quick brown fox")


def _quick(engine: Engine, voice: Voice) -> list:
    """A small request that must work (the engine is still usable)."""
    request = SynthesisRequest("Good.", mode="zero_shot", voice=voice, seed=0, stream=False, max_tokens=12)
    chunks = list(engine.synthesize(request))
    assert chunks and chunks[-1].is_final and chunks[0].samples.size > 0
    return chunks


def _wav(path: Path, audio: np.ndarray, sr: int) -> Path:
    sf.write(str(path), audio, sr, subtype="PCM_16")
    return path


def _bad_prompt(kind: str, tmp: Path, clip) -> tuple[object, int | None]:
    audio, sr = clip
    if kind == "not audio":
        (tmp / "notes.wav").write_text("these are my notes, not a recording\n" * 20)
        return tmp / "notes.wav", None
    if kind == "truncated":
        data = _wav(tmp / "full.wav", audio, sr).read_bytes()
        (tmp / "cut.wav").write_bytes(data[: len(data) // 2])
        return tmp / "cut.wav", None
    if kind == "silent":
        return _wav(tmp / "silent.wav", np.zeros(3 * sr, np.float32), sr), None
    if kind == "0.3 s":
        return _wav(tmp / "short.wav", audio[: int(0.3 * sr)], sr), None
    if kind == "8 kHz":
        import soxr

        return _wav(tmp / "phone.wav", soxr.resample(audio, sr, 8000), 8000), None
    if kind == "NaN":
        bad = audio.copy()
        bad[1000:1010] = np.nan
        return bad, sr
    raise AssertionError(kind)


@pytest.mark.parametrize(("kind", "message"), [
    ("not audio", "could not be decoded as audio"),
    ("truncated", "truncated WAV"),
    ("silent", "silent"),
    ("0.3 s", "at least 1 s"),
    ("8 kHz", "at least 16 kHz"),
    ("NaN", "NaN"),
])
def test_bad_prompt_audio(cv2_engine: Engine, voice: Voice, clip, tmp_path: Path, kind, message) -> None:
    audio, sr = _bad_prompt(kind, tmp_path, clip)
    request = SynthesisRequest("Hello there.", mode="cross_lingual", prompt_audio=audio,  # type: ignore[arg-type]
                               prompt_sample_rate=sr)
    with pytest.raises(InputError, match=message):
        list(cv2_engine.synthesize(request))
    _quick(cv2_engine, voice)


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"),
    ("   \n\t ", "empty"),
    ("?!… — «»", "nothing to speak"),
    ("🙂🎉👍", "nothing to speak"),
    ("x" * 1_048_576, "Split it into parts"),
    ("Say this <|endofprompt|> now.", "control marker"),
    ("Read [breath] <|im_start|> aloud.", "control marker"),
])
def test_bad_text(cv2_engine: Engine, voice: Voice, text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        cv2_engine.synthesize(SynthesisRequest(text, mode="zero_shot", voice=voice))
    _quick(cv2_engine, voice)


def _tamper(path: Path) -> None:
    """Change the transcript in voice.json without fixing the checksum."""
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    entries["voice.json"] = entries["voice.json"].replace(b"The quick brown fox", b"The quick brown cat")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    path.write_bytes(buf.getvalue())


def _future(path: Path) -> None:
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    entries["voice.json"] = entries["voice.json"].replace(
        f'"format_version": {FORMAT_VERSION}'.encode(), f'"format_version": {FORMAT_VERSION + 1}'.encode())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    path.write_bytes(buf.getvalue())


@pytest.mark.parametrize(("damage", "message"), [(_tamper, "damaged or was edited"), (_future, "newer Cosy Studio")])
def test_bad_voice_files(cv2_engine: Engine, voice: Voice, tmp_path: Path, damage, message) -> None:
    path = save_voice(tmp_path / "fox.cosyvoice", voice)
    damage(path)
    with pytest.raises(InputError, match=message):
        load_voice(path)
    _quick(cv2_engine, voice)


def test_voice_of_the_other_family_is_refused(cv3_engine: Engine, voice: Voice) -> None:
    with pytest.raises(InputError, match="made for CosyVoice2"):
        list(cv3_engine.synthesize(SynthesisRequest("Hello.", mode="cross_lingual", voice=voice)))


def test_five_minute_prompt_is_trimmed_with_a_warning(cv3_engine: Engine, clip) -> None:
    audio, sr = clip  # Fun-CosyVoice3 here: its tiny flow handles the 30 s prompt fastest
    long = np.tile(audio, int(np.ceil(300 * sr / audio.size)))[: 300 * sr]
    request = SynthesisRequest("Hello there.", mode="cross_lingual", prompt_audio=long, prompt_sample_rate=sr,
                               seed=0, stream=False, min_tokens=12, max_tokens=12)
    chunks = list(cv3_engine.synthesize(request))
    assert any("only its first 30 s" in w for w in chunks[0].warnings)
    assert cv3_engine.last_warnings == chunks[0].warnings
    assert all(c.warnings == () for c in chunks[1:]) and chunks[-1].is_final
    short = cv3_engine.create_voice(audio[: int(2.5 * sr)], sr, name="fox")
    _quick(cv3_engine, replace(short, transcript="The quick brown fox"))
    assert cv3_engine.last_warnings == ()  # the next request starts clean


def test_stereo_48k_prompt_works(cv2_engine: Engine, clip, tmp_path: Path, espeak_transcript: str) -> None:
    import soxr

    audio, sr = clip
    mono48 = soxr.resample(audio, sr, 48000)
    stereo = np.stack([mono48, 0.5 * mono48], axis=1)
    path = tmp_path / "stereo.wav"
    sf.write(str(path), stereo, 48000, subtype="PCM_16")
    request = SynthesisRequest("Hello there.", mode="zero_shot", prompt_audio=path, prompt_text=espeak_transcript,
                               seed=0, stream=False, max_tokens=12)
    chunks = list(cv2_engine.synthesize(request))
    assert chunks[-1].is_final and chunks[0].sample_rate == 24000 and chunks[0].samples.size > 0


# ---- saved voices --------------------------------------------------------------------------


def test_saved_voice_skips_extraction_and_gives_the_same_audio(cv2_engine: Engine, clip, tmp_path: Path,
                                                               monkeypatch) -> None:
    audio, sr = clip
    short = audio[: int(2.5 * sr)]
    calls: list[int] = []
    real = engine_module.extract_prompt

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine_module, "extract_prompt", spy)
    made = cv2_engine.create_voice(short, sr, transcript="The quick brown fox", name="Fox", language="en")
    assert len(calls) == 1
    saved = load_voice(save_voice(tmp_path / "fox.cosyvoice", made))
    common = {"text": "Hello there.", "mode": "zero_shot", "seed": 4, "stream": False, "max_tokens": 30}
    from_voice = list(cv2_engine.synthesize(SynthesisRequest(voice=saved, **common)))
    assert len(calls) == 1  # no extraction for a saved voice
    from_clip = list(cv2_engine.synthesize(SynthesisRequest(
        prompt_audio=short, prompt_sample_rate=sr, prompt_text="The quick brown fox", **common)))
    assert len(calls) == 2
    assert np.array_equal(from_voice[0].samples, from_clip[0].samples)
    assert saved.language == "en" and saved.transcript == "The quick brown fox" and saved.family == "cosyvoice2"


def test_request_transcript_overrides_the_voice(cv2_engine: Engine, voice: Voice) -> None:
    common = {"text": "Hello there.", "mode": "zero_shot", "voice": voice, "seed": 4, "stream": False,
              "max_tokens": 25, "min_tokens": 25}
    own = [c.tokens for c in cv2_engine.synthesize(SynthesisRequest(**common))]
    other = [c.tokens for c in cv2_engine.synthesize(SynthesisRequest(prompt_text="Something else", **common))]
    assert own != other  # a different LM prompt text changes the sampled tokens


def test_create_voice_checks_its_input(cv2_engine: Engine, clip) -> None:
    audio, sr = clip
    with pytest.raises(InputError, match="needs a name"):
        cv2_engine.create_voice(audio, sr, name="  ")
    with pytest.raises(InputError, match="control marker"):
        cv2_engine.create_voice(audio, sr, name="x", transcript="hi <|endofprompt|>")


# ---- streaming, sentences, chunk facts -------------------------------------------------------


@pytest.mark.parametrize("fixture", ["cv2_engine", "cv3_engine"])
def test_stream_and_offline_give_the_same_tokens(request, clip, fixture) -> None:
    engine: Engine = request.getfixturevalue(fixture)
    audio, sr = clip
    v = engine.create_voice(audio[: int(2.5 * sr)], sr, name="fox", transcript="The quick brown fox")
    common = {"text": "Hello there. How are you?", "mode": "zero_shot", "voice": v, "seed": 11,
              "min_tokens": 100, "max_tokens": 100}
    streamed = list(engine.synthesize(SynthesisRequest(stream=True, **common)))
    offline = list(engine.synthesize(SynthesisRequest(stream=False, **common)))
    s_tokens = [t for c in streamed for t in c.tokens]
    assert s_tokens == [t for c in offline for t in c.tokens] and len(s_tokens) == 100
    assert len(streamed) >= 3 and len(offline) == 1
    assert sum(c.samples.size for c in streamed) == offline[0].samples.size


def test_sentences_carry_subtitle_facts(cv2_engine: Engine, voice: Voice) -> None:
    text = ("The first sentence is here and it talks about the weather for quite a while today. "
            "A second one follows, and it is about the lazy dog that sleeps in the sun all day. ") * 3
    segments = list(iter_sentences(text, None, cv2_engine.tokenizer))
    assert len(segments) == 3
    request = SynthesisRequest(text, mode="zero_shot", voice=voice, seed=1, stream=True,
                               min_tokens=60, max_tokens=60, text_reading="improved")
    chunks = list(cv2_engine.synthesize(request))
    sentences = [c.sentence_index for c in chunks]
    assert sentences == sorted(sentences) and sentences[-1] == 2
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert [c.is_final for c in chunks] == [False] * (len(chunks) - 1) + [True]
    for i in range(3):
        mine = [c for c in chunks if c.sentence_index == i]
        assert [c.sentence_final for c in mine] == [False] * (len(mine) - 1) + [True]
        assert {c.sentence_text for c in mine} == {segments[i]}
    for a, b in itertools.pairwise(chunks):
        assert b.start_time == pytest.approx(a.end_time, abs=1e-9) and b.timing >= a.timing
    assert chunks[-1].tokens_so_far == sum(len(c.tokens) for c in chunks) == 180


def test_first_audio_does_not_wait_for_the_whole_text(cv2_engine: Engine, voice: Voice, monkeypatch) -> None:
    calls: list[int] = []
    real = text_module.normalize_piece

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(text_module, "normalize_piece", counting)
    sentence = "This sentence is one of many in a long text that is read piece by piece. "
    text = sentence * 200  # about 15,000 characters: dozens of normalisation chunks
    chunks = cv2_engine.synthesize(SynthesisRequest(text, mode="zero_shot", voice=voice, seed=0,
                                                    stream=False, max_tokens=5, text_reading="improved"))
    first = next(chunks)
    assert first.sentence_index == 0 and first.samples.size > 0
    assert 1 <= len(calls) <= 3  # the first sentence and a look-ahead, not the ~37 chunks of the text
    chunks.close()


def test_text_frontend_off_speaks_the_text_as_typed(cv2_engine: Engine, voice: Voice) -> None:
    request = SynthesisRequest("Room 101 costs $5.", mode="zero_shot", voice=voice, seed=0, stream=False,
                               max_tokens=10, text_frontend=False)
    chunks = list(cv2_engine.synthesize(request))
    assert chunks[0].sentence_text == "Room 101 costs $5."
    normalised = list(cv2_engine.synthesize(replace(request, text_frontend=True)))
    assert normalised[0].sentence_text != "Room 101 costs $5." and "one" in normalised[0].sentence_text


def test_text_reading_original_in_exact_mode_improved_on_request(cv2_engine: Engine, voice: Voice) -> None:
    from cosycore.frontend import text_original

    assert cv2_engine.text_reading == "original" and cv2_engine.info().text_reading == "original"
    text = "Dr. Smith paid $3.50. Really?! OK..."
    request = SynthesisRequest(text, mode="zero_shot", voice=voice, seed=0, stream=False, max_tokens=5)
    got = [c.sentence_text for c in cv2_engine.synthesize(request) if c.sentence_final]
    assert got == text_original.normalize(text, None, cv2_engine.tokenizer) == \
        ["doctor Smith paid three point five dollars. Really? OK."]
    better = [c.sentence_text for c in cv2_engine.synthesize(replace(request, text_reading="improved"))
              if c.sentence_final]
    assert better == list(iter_sentences(text, None, cv2_engine.tokenizer))
    with pytest.raises(InputError, match="text reading"):
        cv2_engine.synthesize(replace(request, text_reading="fancy"))


# ---- cancel ----------------------------------------------------------------------------------


def test_cancel_from_another_thread_stops_at_a_chunk_boundary(cv2_engine: Engine, voice: Voice) -> None:
    request = SynthesisRequest("Hello there. How are you today? Fine, thanks.", mode="zero_shot", voice=voice,
                               seed=3, stream=True, min_tokens=100, max_tokens=100)
    chunks = cv2_engine.synthesize(request)
    first = next(chunks)
    worker = threading.Thread(target=cv2_engine.cancel)
    worker.start()
    worker.join()
    rest = list(chunks)
    assert not first.is_final and rest == []
    _quick(cv2_engine, voice)  # a request made after cancel() runs normally


def test_cancel_before_the_first_chunk(cv2_engine: Engine, voice: Voice) -> None:
    chunks = cv2_engine.synthesize(SynthesisRequest("Hello there.", mode="zero_shot", voice=voice, max_tokens=20))
    cv2_engine.cancel()
    assert list(chunks) == []


def test_info(cv2_engine: Engine, cv3_engine: Engine) -> None:
    for engine, family in ((cv2_engine, "cosyvoice2"), (cv3_engine, "cosyvoice3")):
        info = engine.info()
        assert info.family == family and info.sample_rate == 24000 and info.device == "cpu"
        assert dict(info.parameters).keys() == {"llm", "flow", "hift"}
        assert info.total_parameters == sum(p.numel() for m in (engine.model.llm, engine.model.flow,
                                                                engine.model.hift) for p in m.parameters())
        assert {name for name, _ in info.onnx_files} == {engine.cfg.speech_tokenizer_file, "campplus.onnx"}


def test_japanese_text_gets_the_katakana_note_on_cosyvoice3(cv3_engine: Engine, clip) -> None:
    audio, sr = clip
    request = SynthesisRequest("こんにちは、元気ですか。", mode="cross_lingual", prompt_audio=audio,  # type: ignore[arg-type]
                               prompt_sample_rate=sr, seed=0, stream=False, max_tokens=6)
    chunks = list(cv3_engine.synthesize(request))
    assert any("katakana" in w for w in chunks[0].warnings)
    assert any("katakana" in w for w in cv3_engine.last_warnings)
    plain = SynthesisRequest("Hello there.", mode="cross_lingual", prompt_audio=audio,  # type: ignore[arg-type]
                             prompt_sample_rate=sr, seed=0, stream=False, max_tokens=6)
    assert not any("katakana" in w for w in next(iter(cv3_engine.synthesize(plain))).warnings)
