"""What the engine thread does to regenerate one sentence of an ordinary take: speak the sentence again
(another seed and/or instruction) and splice it into the take's audio with short crossfades
(:func:`cosycore.studio.splice.splice`). Plain values in, plain values out: the GUI thread builds the
:class:`SentenceJob` and saves the :class:`SentenceResult` as a new version of the take
(:mod:`app.controllers.sentence_regen`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from cosycore.errors import CosyError, SynthesisError
from cosycore.request import SynthesisRequest
from cosycore.studio.splice import Splice, speak_whole, splice

from .engine_messages import readable_error

if TYPE_CHECKING:
    from cosycore.engine import Engine

logger = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class SentenceJob:
    """Sentence ``index`` of take ``take_uid`` lies at ``[start, end)`` of ``audio``; ``request`` speaks it again."""

    take_uid: str
    index: int
    request: SynthesisRequest
    audio: np.ndarray  # the take's current audio (read-only)
    start: int
    end: int
    sample_rate: int
    crossfade: float  # seconds at each seam


@dataclass(frozen=True, eq=False)
class SentenceResult:
    """The take's new audio (``splice.audio``) and where the new sentence lies in it."""

    take_uid: str
    index: int
    splice: Splice
    new_samples: int  # the new sentence's own length
    seed: int
    mode: str
    instruction: str


def sentence_result(engine: Engine, job: SentenceJob) -> SentenceResult:
    """Speak the job's sentence again and splice it in (on the engine thread); raises CosyError."""
    if job.sample_rate != engine.sample_rate:
        raise SynthesisError("the take was made with a model of another sample rate; load that model to "
                             "regenerate its sentences.")
    new = speak_whole(engine, job.request)
    done = splice(job.audio, job.start, job.end, new, round(job.crossfade * job.sample_rate))
    request = job.request
    assert request.seed is not None  # the controller always picks one, so that the version says which
    return SentenceResult(job.take_uid, job.index, done, new.shape[0], int(request.seed), request.mode,
                          request.instruct_text or "")


def run_sentence_regen(engine: Engine | None, request_id: int, job: SentenceJob, *,
                       done: Callable[[int, SentenceResult], None], failed: Callable[[int, str], None]) -> None:
    """Regenerate the sentence and report the result to ``done`` or a message to ``failed`` (the engine
    thread's ``line_regenerated.emit`` and ``regen_failed.emit``)."""
    if engine is None:
        failed(request_id, "No model is loaded yet; choose a model folder first.")
        return
    try:
        result = sentence_result(engine, job)
    except Exception as e:
        if isinstance(e, CosyError):
            logger.warning("regenerating sentence %d failed: %s", job.index + 1, e)
        else:
            logger.exception("regenerating sentence %d failed", job.index + 1)
        failed(request_id, readable_error(e))
        return
    done(request_id, result)
