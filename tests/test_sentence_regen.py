"""Regenerating a sentence of an ordinary take below the GUI: the splice and its crossfades
(cosycore.studio.splice), speaking one sentence again with the real engine on the tiny CosyVoice2 model
(app.worker.sentence_jobs), the take's layout after the splice (app.takes.sentence_splice), and the new
version in the take store: saved, swapped back and forth, and read back by a new store (a restart)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.takes.sentence_splice import SentenceError, regenerable_sentences, sentence_samples, spliced_layout
from app.takes.store import TakeStore
from app.takes.take import SentenceSpan, Take, TakeState
from app.worker.sentence_jobs import SentenceJob, sentence_result
from cosycore.errors import InputError, SynthesisError
from cosycore.request import AudioChunk, SynthesisRequest
from cosycore.studio.splice import fade, speak_whole, splice
from cosycore.studio.take_folder import META_NAME

SR = 24000


def test_fades_sum_to_one() -> None:
    for n in (1, 7, 240):
        assert np.allclose(fade(n, rising=True) + fade(n, rising=False), 1.0, atol=1e-6)


def test_splice_keeps_everything_outside_the_crossfades() -> None:
    rng = np.random.default_rng(0)
    audio = rng.standard_normal(1000).astype(np.float32)
    new = rng.standard_normal(300).astype(np.float32)
    done = splice(audio, 400, 600, new, 10)
    assert done.fade_in == done.fade_out == 10
    assert done.audio.shape[0] == 1000 - 200 + 300 - 20
    assert done.start == 390 and done.end == 390 + 300 - 10 and done.shift == done.end - 600
    assert np.array_equal(done.audio[:390], audio[:390])
    assert np.array_equal(done.audio[done.end + 10:], audio[610:])
    assert np.array_equal(done.audio[400:done.end], new[10:290])
    # at each seam the old and the new audio cross: one fades out while the other fades in
    assert np.allclose(done.audio[390:400], audio[390:400] * fade(10, rising=False) + new[:10] * fade(10, rising=True))
    assert np.allclose(done.audio[done.end:done.end + 10],
                       new[290:] * fade(10, rising=False) + audio[600:610] * fade(10, rising=True))
    assert audio.shape[0] == 1000  # the input is not changed


def test_a_constant_signal_stays_constant_through_the_seams() -> None:
    done = splice(np.ones(500, np.float32), 100, 300, np.ones(150, np.float32), 40)
    assert np.allclose(done.audio, 1.0, atol=1e-6)


def test_no_fade_at_the_take_edges_and_short_pieces_are_not_faded_away() -> None:
    audio = np.ones(100, np.float32)
    first = splice(audio, 0, 50, np.full(20, 2.0, np.float32), 30)
    assert first.fade_in == 0 and first.fade_out == 10 and first.start == 0  # at most half of the new piece
    last = splice(audio, 50, 100, np.full(20, 2.0, np.float32), 30)
    assert last.fade_out == 0 and last.end == last.audio.shape[0] and last.audio[-1] == 2.0


@pytest.mark.parametrize(("start", "end", "new", "fade_samples"),
                         [(50, 50, 10, 5), (-1, 5, 10, 5), (0, 101, 10, 5), (0, 5, 0, 5), (0, 5, 10, -1)])
def test_bad_splices_are_refused(start: int, end: int, new: int, fade_samples: int) -> None:
    with pytest.raises(InputError):
        splice(np.zeros(100, np.float32), start, end, np.ones(new, np.float32), fade_samples)


class _Stopped:
    def synthesize(self, request):
        yield AudioChunk(np.ones(10, np.float32), SR, 0, False, 0.1, (), 0, 0, "x", False, 0.0)


def test_speak_whole_refuses_a_stopped_request() -> None:
    with pytest.raises(SynthesisError, match="stopped"):
        speak_whole(_Stopped(), SynthesisRequest("x"))


def _take(spans: list[tuple[int, str, int, int]], *, seams: list[int] | None = None) -> tuple[Take, np.ndarray]:
    total = spans[-1][3]
    audio = np.sin(np.arange(total, dtype=np.float32) / 7).astype(np.float32)
    take = Take(1, " ".join(t for _, t, _, _ in spans), mode="cross_lingual", voice_name="Tester", sample_rate=SR,
                seed=5)
    take.state = TakeState.DONE
    take.replace_audio(audio, seams if seams is not None else [a for _, _, a, _ in spans[1:]],
                       [SentenceSpan(i, t, a / SR, b / SR) for i, t, a, b in spans])
    return take, audio


def test_the_layout_after_a_splice() -> None:
    take, audio = _take([(0, "One.", 0, 1000), (1, "Two.", 1000, 2500), (2, "Three.", 2500, 4000)],
                        seams=[500, 1000, 1800, 2500, 3000])
    assert sentence_samples(take, 1) == (1000, 2500)
    done = splice(audio, 1000, 2500, np.ones(900, np.float32), 10)
    seams, spans = spliced_layout(take, 1, done)
    assert seams == [500, done.start, done.end, 3000 + done.shift]  # the seam inside the old sentence is gone
    sr = SR
    assert [(s.index, s.text) for s in spans] == [(0, "One."), (1, "Two."), (2, "Three.")]
    assert [(round(s.start * sr), round(s.end * sr)) for s in spans] == [
        (0, done.start), (done.start, done.end), (done.end, done.audio.shape[0])]


def test_which_takes_have_sentences_to_regenerate() -> None:
    take, _ = _take([(0, "One.", 0, 1000), (1, "", 1000, 2000)])
    assert [s.index for s in regenerable_sentences(take)] == [0]
    take.edit = {"start": 0.1}
    with pytest.raises(SentenceError, match="Reset it to its original"):
        regenerable_sentences(take)
    take.edit, take.mode = None, "convert"
    with pytest.raises(SentenceError):
        regenerable_sentences(take)


def _saved(store: TakeStore, take: Take, audio: np.ndarray) -> None:
    """``take`` saved as the app saves a take it makes: created while streaming, its audio, then finished."""
    take.state = TakeState.STREAMING
    store.create(take)
    store.append(take, audio)
    take.state = TakeState.DONE
    store.save_meta(take)


def test_a_new_version_is_saved_swapped_and_read_back_after_a_restart(tmp_path: Path) -> None:
    store = TakeStore(tmp_path / "takes")
    take, audio = _take([(0, "One.", 0, 1000), (1, "Two.", 1000, 2500)])
    _saved(store, take, audio)
    new = np.full(700, 0.25, np.float32)
    done = splice(audio, 1000, 2500, new, 10)
    seams, spans = spliced_layout(take, 1, done)
    store.new_version(take, done.audio, seams, spans, None, {}, {1: {"seed": 9, "mode": "cross_lingual",
                                                                     "instruction": ""}})
    folder = store.folder(take)
    meta = json.loads((folder / META_NAME).read_text(encoding="utf-8"))
    assert meta["audio_file"] == take.audio_file != "audio.f32" and meta["previous"]["audio_file"] == "audio.f32"
    assert meta["sentence_settings"] == {"1": {"seed": 9, "mode": "cross_lingual", "instruction": ""}}
    assert np.array_equal(take.audio(), done.audio)

    again = TakeStore(tmp_path / "takes")  # a restart
    (restored,), problems = again.load()
    assert problems == [] and np.array_equal(restored.audio(), done.audio)
    assert restored.sentence_settings == {1: {"seed": 9, "mode": "cross_lingual", "instruction": ""}}
    assert [round(s.end * SR) for s in restored.sentences()] == [done.start, done.audio.shape[0]]
    assert again.swap_versions(restored)
    assert np.array_equal(restored.audio(), audio) and restored.sentence_settings == {}
    assert [round(s.end * SR) for s in restored.sentences()] == [1000, 2500]
    assert again.swap_versions(restored) and np.array_equal(restored.audio(), done.audio)
    # both versions' files stay while either is named; a third version lets the oldest go
    done2 = splice(done.audio, 0, done.start, np.full(300, -0.5, np.float32), 10)
    seams2, spans2 = spliced_layout(restored, 0, done2)
    again.new_version(restored, done2.audio, seams2, spans2, None, {}, restored.sentence_settings)
    assert not (folder / "audio.f32").exists() and (folder / restored.previous_version["audio_file"]).is_file()


def test_an_edited_take_gets_no_new_version(tmp_path: Path) -> None:
    store = TakeStore(tmp_path / "takes")
    take, audio = _take([(0, "One.", 0, 1000)])
    _saved(store, take, audio)
    take.edit = {"start": 0.01}
    from cosycore.errors import StorageError

    with pytest.raises(StorageError, match="reset it to its original"):
        store.new_version(take, audio[:500], [], [], None, {})
    assert take.previous_version is None and take.audio_file == "audio.f32"


def test_a_sidecar_with_damaged_sentence_settings_is_listed_and_left_alone(tmp_path: Path) -> None:
    store = TakeStore(tmp_path / "takes")
    take, audio = _take([(0, "One.", 0, 1000)])
    _saved(store, take, audio)
    path = store.folder(take) / META_NAME
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["sentence_settings"] = {"0": "seed nine"}
    path.write_text(json.dumps(meta), encoding="utf-8")
    takes, problems = TakeStore(tmp_path / "takes").load()
    assert takes == [] and len(problems) == 1 and path.is_file()


@pytest.mark.usefixtures("single_thread")
def test_a_sentence_spoken_again_by_the_engine_is_spliced_in(cv2_engine, script_voices) -> None:
    anna, _ben = script_voices
    rng = np.random.default_rng(1)
    audio = (0.1 * rng.standard_normal(3 * SR)).astype(np.float32)
    audio.setflags(write=False)
    request = SynthesisRequest("hello there", mode="zero_shot", voice=anna, seed=11, stream=False,
                               text_frontend=False, max_tokens=12)
    job = SentenceJob("uid", 1, request, audio, SR, 2 * SR, SR, 0.01)
    result = sentence_result(cv2_engine, job)
    done = result.splice
    assert result.seed == 11 and result.mode == "zero_shot" and result.index == 1
    assert done.fade_in == done.fade_out == 240
    assert done.audio.shape[0] == 2 * SR + result.new_samples - 480
    assert np.array_equal(done.audio[:SR - 240], audio[:SR - 240])
    assert np.array_equal(done.audio[done.end + 240:], audio[2 * SR + 240:])
    again = sentence_result(cv2_engine, job)  # the same seed speaks it the same way
    assert np.allclose(again.splice.audio, done.audio, atol=1e-5)
    wrong_rate = SentenceJob("uid", 1, request, audio, SR, 2 * SR, 16000, 0.01)
    with pytest.raises(SynthesisError, match="sample rate"):
        sentence_result(cv2_engine, wrong_rate)
