"""Issue 12 item 7: text without sentence marks is cut into segments of bounded token length.

Boundedness is shown by construction: every segment the speech LM can receive is measured with the
model's own tokenizer and must hold at most MAX_SEGMENT_TOKENS text ids (the LM then generates at
most 20 speech tokens per text id, so its cache and output are bounded per segment). No timing.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Iterator
from dataclasses import replace

import pytest

from cosycore.engine import Engine, SynthesisRequest
from cosycore.engine.segments import StreamedText
from cosycore.frontend.segment_bound import (
    CUT_PIECE_TOKENS,
    MAX_MARK_RUN,
    MAX_SEGMENT_TOKENS,
    bound_segments,
    shorten_mark_runs,
)

pytestmark = pytest.mark.usefixtures("single_thread")

_RNG = random.Random(0)
HOSTILE = {
    "word_of_100k_letters": "a" * 100_000,
    "exclamation_marks_x100k": "Hi" + "!" * 100_000,
    # 8,000 and 10,000 characters: each is over five times MAX_SEGMENT_TOKENS as one sentence, which is
    # what the bound is about (at 80,000 and 100,000 these two cost 12 s and 29 s through the frontend)
    "base64": base64.b64encode(_RNG.randbytes(6_000)).decode(),
    "5000_combining_marks": "e" + "\u0301" * 5000,
    "cjk_without_marks": "你好世界" * 5000,
    "words_without_marks": "word " * 2_000,
}


@pytest.fixture(scope="module")
def voice(cv2_engine: Engine, espeak_wav):
    import soundfile as sf

    audio, sr = sf.read(str(espeak_wav), dtype="float32")
    return cv2_engine.create_voice(audio[: int(2.5 * sr)], sr, name="fox", transcript="The quick brown fox")


def _request(text, voice, **kw) -> SynthesisRequest:
    return SynthesisRequest(text, mode="zero_shot", voice=voice, seed=0, stream=False, **kw)


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("frontend", [True, False], ids=["frontend", "as_typed"])
def test_segments_are_bounded(cv2_engine: Engine, voice, name: str, frontend: bool) -> None:
    text = HOSTILE[name]
    segments = list(cv2_engine._sentences(_request(text, voice, text_frontend=frontend), text))
    counts = [len(cv2_engine.tokenizer.encode(s)) for s in segments]
    assert counts and max(counts) <= MAX_SEGMENT_TOKENS
    if name in ("base64", "words_without_marks"):  # the shortened cases still cross the bound many times
        assert sum(counts) > 5 * MAX_SEGMENT_TOKENS
    if name in ("word_of_100k_letters", "words_without_marks"):  # nothing is lost, only cut
        assert sum(s.count("a" if name.startswith("word_of") else "word") for s in segments) == \
            text.count("a" if name.startswith("word_of") else "word")


def test_ordinary_sentences_are_not_cut(cv2_engine: Engine) -> None:
    sentences = ["This is an ordinary sentence.", "Another one, a little longer, with a comma in it."]
    assert list(bound_segments(sentences, cv2_engine.tokenizer)) == sentences


def test_cut_prefers_word_boundaries() -> None:
    words = [f"w{i:03d}" for i in range(100)]
    pieces = list(bound_segments([" ".join(words)], None, max_tokens=50))
    assert all(len(p.encode()) <= 50 for p in pieces)
    assert " ".join(pieces).split() == words  # every cut fell between words


def test_combining_marks_stay_with_their_letter_when_possible() -> None:
    text = ("e\u0301" * 40 + " ") * 3
    for piece in bound_segments([text], None, max_tokens=30):
        assert not piece[0].isspace() and piece[0] == "e"  # never starts with a lone combining mark


def test_the_lm_receives_bounded_segments(cv2_engine: Engine, voice, monkeypatch) -> None:
    seen: list[int] = []

    def fake_generate(ids, *args, **kwargs) -> Iterator[int]:
        seen.append(len(ids))
        yield from (1, 2, 3, 4)

    monkeypatch.setattr(cv2_engine.model.llm, "generate", fake_generate)
    text = "x" * 1_000  # one sentence over MAX_SEGMENT_TOKENS: len(seen) >= 2 shows it was cut
    chunks = list(cv2_engine.synthesize(_request(text, voice)))
    assert chunks[-1].is_final and len(seen) >= 2 and max(seen) <= MAX_SEGMENT_TOKENS


def test_bistream_of_endless_text_without_marks(cv2_engine: Engine, voice, monkeypatch) -> None:
    """A streamed reply with no sentence end is decoded in bounded generations, one after another."""
    pulled: list[int] = []

    def fake_bistream(text_ids, *args, **kwargs) -> Iterator[int]:
        pulled.append(sum(1 for _ in text_ids))
        yield from (5, 6, 7, 8)

    monkeypatch.setattr(cv2_engine.model.llm, "generate_bistream", fake_bistream)
    pieces = iter(["blah"] * 650)
    chunks = list(cv2_engine.synthesize(replace(_request(pieces, voice), mode="cross_lingual")))
    assert chunks[-1].is_final and len(pulled) >= 3
    assert max(pulled) <= MAX_SEGMENT_TOKENS and sum(pulled) == len(cv2_engine.tokenizer.encode("blah")) * 650


def test_streamed_text_ends_at_sentence_marks_past_the_soft_bound() -> None:
    pieces = iter([("word. ", [1]) for _ in range(400)])
    text = StreamedText(pieces)
    sizes = []
    while text.has_more():
        sizes.append(sum(1 for _ in text.segment()))
    assert sum(sizes) == 400 and max(sizes) <= MAX_SEGMENT_TOKENS and sizes[0] == MAX_SEGMENT_TOKENS * 4 // 5


def _record_normaliser_input(monkeypatch) -> list[str]:
    """Every text the two readings' normalisers (wetext, the improved rules) are given, in order."""
    from cosycore.frontend import text as text_improved
    from cosycore.frontend import text_original

    seen: list[str] = []
    for module, name in ((text_original, "wetext_normalize"), (text_improved, "normalize_piece")):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda text, *a, _real=real, **k: seen.append(text) or _real(text, *a, **k))
    return seen


@pytest.mark.parametrize("reading", ["original", "improved"])
def test_exclamation_marks_x100k(cv2_engine: Engine, monkeypatch, reading: str) -> None:
    """Issue 27: a run of marks is cut to MAX_MARK_RUN before any rule or wetext reads it, so its cost
    is that of the short run: the normaliser never sees more than MAX_MARK_RUN marks in a row."""
    seen = _record_normaliser_input(monkeypatch)
    text = "Hi" + "!" * 100_000
    segments = list(cv2_engine.spoken_sentences(text, reading=reading))
    assert seen and max(len(t) for t in seen) <= 2 + MAX_MARK_RUN
    assert segments == list(cv2_engine.spoken_sentences("Hi" + "!" * MAX_MARK_RUN, reading=reading))
    assert shorten_mark_runs("Wait?!" + "?!" * 50_000 + " what") == "Wait?!" + "?!" * 14 + " what"


def test_mark_runs_of_thirty_are_read_as_written() -> None:
    for text in ("Really?!", "Wait... what?", "a " + "-" * 30 + " b", "e" + "\u0301" * 30, "[laughter] Ha!!!"):
        assert shorten_mark_runs(text) == text
    assert shorten_mark_runs("e" + "\u0301" * 5000) == "e" + "\u0301" * MAX_MARK_RUN  # UAX #15's stream-safe bound


@pytest.mark.parametrize("reading", ["original", "improved"])
def test_text_of_200000_characters_is_read_one_segment_at_a_time(cv2_engine: Engine, monkeypatch, reading: str) -> None:
    """Issue 27: a text's segments are not capped in number; they are made one at a time as the LM
    asks for them, so the first is ready after one piece of the text was read, whatever its length
    (memory holds a piece, not the text's segments). The text cap bounds the total."""
    seen = _record_normaliser_input(monkeypatch)
    text = "This is one sentence of a long book, read aloud. " * 4000  # 200,000 characters
    segments = cv2_engine.spoken_sentences(text, reading=reading)
    first = next(segments)
    assert first.strip().startswith("This is one sentence") and 1 <= len(seen) <= 2
    assert sum(map(len, seen)) <= 4_000
    for _ in range(5):
        next(segments)
    assert sum(map(len, seen)) <= 8_000  # five segments later, still only the first pieces were read


def _zalgo(n_bytes: int) -> str:
    """Words whose every letter carries 2-8 combining marks (U+0300-036F); no sentence marks."""
    rng = random.Random(1)
    words: list[str] = []
    while sum(len(w.encode()) + 1 for w in words) < n_bytes:
        words.append("".join(rng.choice("abcdefghij") + "".join(chr(rng.randint(0x300, 0x36F))
                                                               for _ in range(rng.randint(2, 8)))
                             for _ in range(rng.randint(2, 7))))
    return " ".join(words)


@pytest.mark.parametrize("reading", ["original", "improved"])
def test_zalgo_of_10_kb_without_sentence_marks(cv2_engine: Engine, reading: str) -> None:
    """Issue 27: its pieces were cut at 200 text tokens, and on random weights each ran to 4,000 speech
    tokens (one final flow call over 160 s: 2.4-3.1 GB on the tiny model). Now every piece holds at
    most CUT_PIECE_TOKENS (80) tokens, as an ordinary sentence does, so at most 1,600 speech tokens."""
    text = _zalgo(10_000)
    assert len(text.encode()) >= 10_000 and not any(c in text for c in ".!?;:")
    counts = [len(cv2_engine.tokenizer.encode(s)) for s in cv2_engine.spoken_sentences(text, reading=reading)]
    assert len(counts) > 10 and max(counts) <= CUT_PIECE_TOKENS
    assert max(cv2_engine.model.llm.length_limits(n)[1] for n in counts) <= 20 * CUT_PIECE_TOKENS
