"""Mode planning (spec §5.8, §5.9): what the speech LM sees around every sentence of a request
(:func:`plan_mode`), the model-level inputs of one sentence (:func:`model_inputs`), and the text
path that cuts a request's text into the segments the engine speaks (:func:`spoken_sentences`). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import torch

from .config import Family, TextReading
from .errors import InputError
from .frontend import text_reading as readings
from .frontend.chunking import iter_chunks
from .frontend.instruct_prompts import cv2_instruct_prompt, cv3_instruct_prompt, cv3_system_prefix
from .frontend.prompt import PromptFeatures
from .frontend.segment_bound import bound_segments, shorten_mark_runs
from .frontend.text import normalize_text
from .frontend.text_checks import check_spoken_text, is_speakable
from .frontend.tokenizer import TextTokenizer
from .request import MODES, Mode

RAW_CHUNK_CHARS = 300  # text_frontend=False: cut only at sentence ends past this many characters


@dataclass(frozen=True)
class ModePlan:
    """What a request puts around each sentence in the speech LM's input (spec §5.8, §5.9).

    The LM input is ``[sos] lm_prompt_text target-text [task_id] (prompt speech tokens)``; the flow
    always gets the prompt's speech tokens, mel and speaker embedding.
    """

    mode: Mode  # the request's mode
    family: Family  # model family the plan is for
    lm_prompt_text: str  # text before the target text: transcript, instruction or CV3 system prefix
    lm_prompt_speech: bool  # whether the prompt's speech tokens follow task_id (zero_shot only)


@dataclass(frozen=True, eq=False)
class ModelInputs:
    """Model-level inputs of one sentence, in the form :class:`~cosycore.lm.speech_lm.SpeechLM` and the flow take."""

    text_ids: tuple[int, ...]  # target text ids
    prompt_text_ids: tuple[int, ...]  # ids of ModePlan.lm_prompt_text
    llm_prompt_speech: torch.Tensor  # int32 [1, P] in zero_shot, [1, 0] otherwise
    flow_prompt_speech: torch.Tensor  # int32 [1, P]
    prompt_feat: torch.Tensor  # float32 [1, ratio * P, 80]
    embedding: torch.Tensor  # float32 [1, 192]



def prepare_transcript(transcript: str, *, text_frontend: bool = True, reading: TextReading = "improved",
                       family: Family = "cosyvoice2") -> str:
    """Check a prompt transcript (no markers, something to say) and normalise it (``split=False``)
    in the given text reading."""
    text = check_spoken_text(transcript)
    if not text_frontend:
        return text.strip()
    text = shorten_mark_runs(text)
    if reading == "improved":
        return normalize_text(text)
    return readings.transcript(reading, text, family=family)


def plan_mode(mode: Mode, family: Family, *, transcript: str = "", instruction: str = "") -> ModePlan:
    """The LM-side layout of a request (``transcript`` already prepared, ``instruction`` raw).

    * zero_shot: prompt text = transcript (CosyVoice3: system prefix + transcript), prompt speech on;
    * cross_lingual: no transcript and no prompt speech; CosyVoice3 puts its system prefix before
      the target text;
    * instruct: prompt text = the instruction ending in ``<|endofprompt|>`` (added when missing;
      CosyVoice3 also gets the system sentence), no prompt speech.
    """
    cv3 = family == "cosyvoice3"
    if mode == "zero_shot":
        text = (cv3_system_prefix() + transcript) if cv3 else transcript
        return ModePlan(mode, family, text, True)
    if mode == "cross_lingual":
        return ModePlan(mode, family, cv3_system_prefix() if cv3 else "", False)
    if mode == "instruct":
        text = cv3_instruct_prompt(instruction) if cv3 else cv2_instruct_prompt(instruction)
        return ModePlan(mode, family, text, False)
    raise InputError(f"Unknown mode {mode!r}; use one of {', '.join(MODES)}.")


def model_inputs(plan: ModePlan, prompt: PromptFeatures, prompt_text_ids: Iterable[int],
                 text_ids: Iterable[int]) -> ModelInputs:
    """The model-level inputs of one sentence under ``plan``.

    CosyVoice3's cross-lingual system prefix travels in ``prompt_text_ids``: the LM sees exactly
    the original's ``[sos] prefix text [task_id]``, but its 2x/20x length limits count the target
    text only (the original also counts the prefix, which forces about a second of audio even for "Hi.").
    """
    tokens = prompt.speech_tokens.reshape(1, -1).to(torch.int32)  # [1, P]
    return ModelInputs(
        text_ids=tuple(int(i) for i in text_ids),
        prompt_text_ids=tuple(int(i) for i in prompt_text_ids),
        llm_prompt_speech=tokens if plan.lm_prompt_speech else tokens[:, :0],
        flow_prompt_speech=tokens,
        prompt_feat=prompt.prompt_mel,
        embedding=prompt.embedding.reshape(1, -1),
    )


def spoken_sentences(text: str, *, reading: TextReading, family: Family, mode: str = "zero_shot",
                     language: str | None = None, text_frontend: bool = True,
                     tokenizer: TextTokenizer | None = None) -> Iterator[str]:
    """The segments :meth:`Engine.synthesize` speaks for ``text``, one LM call each, in order.

    This is the engine's own text path (``cosycore text`` prints it): with the text frontend the
    text is normalised and split in ``reading`` (:func:`cosycore.frontend.text_reading.sentences`,
    lengths measured with the model's ``tokenizer``; without one English lengths are estimated from
    the word count); without it the text is cut only at sentence ends past :data:`RAW_CHUNK_CHARS`
    characters. With the text frontend, runs of more than
    :data:`~cosycore.frontend.segment_bound.MAX_MARK_RUN` marks are first cut to that length.
    """
    if text_frontend:  # in the given text reading (cosycore.frontend.text_reading), as a request of ``mode``
        text = shorten_mark_runs(text)  # bounded cost for "!" * 100_000 (issue 27)
        sentences = readings.sentences(reading, text, language=language, tokenizer=tokenizer, family=family, mode=mode)
    else:
        sentences = (c.strip() for c in iter_chunks(text, RAW_CHUNK_CHARS) if is_speakable(c))
    bound = readings.segment_token_bound(reading, family, mode, text_frontend=text_frontend)
    return bound_segments(sentences, tokenizer, max_tokens=bound)  # bounded text tokens each (issue 12)
