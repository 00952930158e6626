"""Bistream decoding (text arriving while speech is generated) on the tiny models of both families."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import torch

from cosycore.engine import Engine, SynthesisRequest
from cosycore.errors import InputError
from cosycore.lm.sampling import greedy_sampler
from cosycore.lm.speech_lm import SpeechLM
from cosycore.lm.token_ids import ENDOFPROMPT_ID
from cosycore.voices import Voice

pytestmark = pytest.mark.usefixtures("single_thread")

TEXT_IDS = list(range(1000, 1037))  # 37 target-text ids: 7 full groups of 5 and 2 left over


@pytest.fixture(scope="module", params=["cv2", "cv3"])
def engine(request, cv2_engine: Engine, cv3_engine: Engine) -> Engine:
    return cv2_engine if request.param == "cv2" else cv3_engine


def _prompt_text(lm: SpeechLM) -> list[int]:
    system = [300, 301, ENDOFPROMPT_ID] if lm.cfg.family == "cosyvoice3" else []
    return [*system, 500, 501, 502]  # 3 transcript ids after the system part


def _groups(trace: list[tuple[str, int]]) -> list[tuple[int, int]]:
    """(text, speech) counts of each interleaved group, up to task_id."""
    groups: list[tuple[int, int]] = []
    for kind, n in trace:
        if kind == "task_id":
            break
        if kind == "text":
            groups.append((n, 0))
        elif kind in ("speech", "prompt_speech") and groups:
            groups[-1] = (groups[-1][0], groups[-1][1] + n)
    return groups


@pytest.mark.parametrize("prompt_speech", [0, 20, 30, 50])
def test_fill_schedule_is_followed(engine: Engine, prompt_speech: int) -> None:
    lm = engine.model.llm
    trace: list[tuple[str, int]] = []
    speech = list(range(7, 7 + prompt_speech))
    tokens = list(lm.generate_bistream(iter(TEXT_IDS), _prompt_text(lm), speech, seed=3, trace=trace,
                                       min_len=150, max_len=150))
    assert len(tokens) == 150
    assert all(0 <= t < lm.cfg.speech_token_size for t in tokens)  # no fill, no other special
    head = [k for k, _ in trace[:2]]
    assert head == (["sos", "system"] if lm.cfg.family == "cosyvoice3" else ["sos", "text"])
    groups = _groups(trace)
    # 3 transcript + 37 target ids: 8 groups of exactly 5 text then 15 speech tokens
    assert groups == [(5, 15)] * 8
    fills = [i for i, (kind, _) in enumerate(trace) if kind == "fill"]
    assert len(fills) == 8 - prompt_speech // 15  # one per group holding generated speech
    assert all(trace[i - 1][0] == "speech" for i in fills)  # a fill only ever closes generated speech
    # all 40 text ids were used in groups, so the text ends on a fill: task_id, then speech to the end
    assert trace[-3:] == [("fill", 1), ("task_id", 1), ("speech", 150 - (8 * 15 - prompt_speech))]


def test_leftover_prompt_speech_is_placed_after_task_id(engine: Engine) -> None:
    lm = engine.model.llm
    trace: list[tuple[str, int]] = []
    list(lm.generate_bistream(iter(TEXT_IDS[:7]), _prompt_text(lm), list(range(40)), seed=1, trace=trace,
                              max_len=10))
    # 3 + 7 text ids: two groups take 30 prompt tokens; the 10 left are not dropped
    assert ("prompt_speech", 10) in trace[trace.index(("task_id", 1)) :]
    assert sum(n for k, n in trace if k == "prompt_speech") == 40


def test_short_text_is_the_unistream_layout(engine: Engine) -> None:
    """Under 5 text tokens nothing is interleaved: bistream must equal unistream token for token."""
    lm = engine.model.llm
    ptext, text, speech = _prompt_text(lm)[:-2], [1000], list(range(11, 41))
    uni = list(lm.generate(text, ptext, speech, sampler=greedy_sampler, min_len=40, max_len=40))
    bi = list(lm.generate_bistream(iter(text), ptext, speech, sampler=greedy_sampler, min_len=40, max_len=40))
    assert uni == bi and len(bi) == 40


def test_kv_cache_decoding_equals_one_full_forward(engine: Engine) -> None:
    """Every greedy token is the argmax of a plain causal pass over the whole fed sequence."""
    lm = engine.model.llm
    ptext, speech = _prompt_text(lm), list(range(100, 120))
    trace: list[tuple[str, int]] = []
    out = list(lm.generate_bistream(iter(TEXT_IDS), ptext, speech, sampler=greedy_sampler, trace=trace,
                                    min_len=80, max_len=80))
    system_end = ptext.index(ENDOFPROMPT_ID) + 1 if ENDOFPROMPT_ID in ptext else 0
    queues = {"system": iter(ptext[:system_end]), "text": iter(ptext[system_end:] + TEXT_IDS),
              "prompt_speech": iter(speech), "speech": iter(out)}
    rows: list[torch.Tensor] = []
    positions: list[int] = []  # the position whose hidden state produced each generated token
    for kind, n in trace:
        if kind == "fill":
            continue
        if kind in ("sos", "task_id"):
            rows.append(lm.special_embedding(kind))
            continue
        ids = [next(queues[kind]) for _ in range(n)]
        table = lm.qwen.embed_tokens if kind in ("system", "text") else lm.speech_embedding
        for i in ids:
            if kind == "speech":
                positions.append(len(rows) - 1)
            rows.append(table(torch.tensor([i])))
    with torch.inference_mode():
        hidden = lm(torch.cat(rows).unsqueeze(0))[0]  # [T, D]
        logp = torch.log_softmax(lm.logits(hidden[positions]).float(), dim=-1)  # [N, V]
        logp[:, lm.cfg.speech_token_size :] = -float("inf")
    assert logp.argmax(dim=-1).tolist() == out


def test_cv3_needs_the_endofprompt_marker(cv3_engine: Engine) -> None:
    with pytest.raises(InputError, match="endofprompt"):
        list(cv3_engine.model.llm.generate_bistream(iter(TEXT_IDS), [500, 501], []))


def test_empty_text_stream_is_an_input_error(engine: Engine) -> None:
    lm = engine.model.llm
    with pytest.raises(InputError, match="without any text"):
        list(lm.generate_bistream(iter([]), _prompt_text(lm), []))


# ---- through the engine ------------------------------------------------------------------


def _pieces() -> Iterator[str]:
    """Text as an LLM writes it: words and half-words arriving one by one."""
    yield from ["Hello", " wor", "ld, this", " is streamed", " text from", " a language", " model."]


@pytest.fixture(scope="module")
def short_voice(engine: Engine, espeak_wav) -> Voice:
    import soundfile as sf

    audio, sr = sf.read(str(espeak_wav), dtype="float32")
    return engine.create_voice(audio[: int(2.2 * sr)], sr, name="fox", transcript="The quick brown fox")


@pytest.mark.parametrize("mode", ["zero_shot", "cross_lingual"])
def test_engine_bistream_yields_audio(engine: Engine, short_voice: Voice, mode: str) -> None:
    request = SynthesisRequest(_pieces(), mode=mode, voice=short_voice, seed=2,  # type: ignore[arg-type]
                               stream=True, min_tokens=90, max_tokens=90)
    chunks = list(engine.synthesize(request))
    tokens = [t for c in chunks for t in c.tokens]
    assert len(tokens) == chunks[-1].tokens_so_far == 90
    assert all(0 <= t < engine.cfg.llm.speech_token_size for t in tokens)
    assert chunks[-1].is_final and len(chunks) >= 2
    audio = np.concatenate([c.samples for c in chunks])
    assert audio.dtype == np.float32 and np.isfinite(audio).all() and np.abs(audio).max() > 1e-4
    # two mel frames per token reached the flow, 480 samples per frame (CV3 may drop silent runs)
    assert audio.size <= 90 * 960 and audio.size >= 45 * 960


def test_engine_bistream_refuses_a_marker_split_across_pieces(engine: Engine, short_voice: Voice) -> None:
    pieces = iter(["Say this <|endof", "prompt|> please", " and more words here."])
    request = SynthesisRequest(pieces, mode="cross_lingual", voice=short_voice, seed=1)
    with pytest.raises(InputError, match="control marker"):
        list(engine.synthesize(request))
    again = list(engine.synthesize(SynthesisRequest(iter(["Fine now."]), mode="cross_lingual",
                                                    voice=short_voice, seed=1, max_tokens=20)))
    assert again[-1].is_final
