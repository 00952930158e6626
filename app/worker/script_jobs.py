"""The engine thread's work for dialogue scripts: speaking a script as one streamed take, and
regenerating one line of a script take.

Both run on :class:`app.worker.engine_thread.EngineThread` (the one owner of torch), as jobs queued like a
Speak, so Stop and a new Speak cancel them the same way. The requests and results are plain values:
the parsed script, the cast (saved voices loaded on the GUI thread), numpy arrays.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from cosycore.errors import CosyError, SynthesisError
from cosycore.request import Mode
from cosycore.studio.cast import Cast, plan_lines
from cosycore.studio.lexicon import Lexicon, combine, load_many
from cosycore.studio.render import RenderSettings, ScriptRender, ScriptTake, Segment, regenerate_line
from cosycore.studio.script import Script
from cosycore.studio.script_take import LineInfo, RenderValues, ScriptChunk, ScriptMark

from .engine_messages import readable_error

if TYPE_CHECKING:
    from cosycore.engine import Engine

logger = logging.getLogger(__name__)


def render_settings(values: RenderValues, seed: int | None = None) -> RenderSettings:
    return RenderSettings(line_gap=values.line_gap, paragraph_pause=values.paragraph_pause, seed=seed,
                          speed=values.speed, stream=values.stream, crossfade=values.crossfade,
                          max_tokens=values.max_tokens)


@dataclass(frozen=True, eq=False)
class ScriptJob:
    """Speak ``script`` with ``cast`` as one take."""

    script: Script
    cast: Cast
    render: RenderValues
    seed: int | None = None  # base seed; line i gets seed + i (None: drawn at random, and reported)
    app_lexicon: Lexicon | None = None


@dataclass(frozen=True)
class ScriptStart:
    """Sent before the first chunk of a script take: the seeds and the plan of every line."""

    base_seed: int
    lines: tuple[LineInfo, ...]


@dataclass(frozen=True, eq=False)
class RegenSegment:
    """One segment of the take to regenerate a line of: its kind, own samples and, for a line, how it
    was last spoken."""

    kind: str
    samples: np.ndarray  # float32 [N]
    line_index: int | None = None
    seed: int | None = None
    mode: str = ""
    instruction: str = ""
    spliced: bool = False


@dataclass(frozen=True, eq=False)
class RegenJob:
    """Speak line ``line_index`` of a script take again and splice it in."""

    take_uid: str
    script: Script
    cast: Cast
    segments: tuple[RegenSegment, ...]
    render: RenderValues
    base_seed: int
    sample_rate: int
    line_index: int
    seed: int | None = None  # None: the line's seed + 1
    keep_instruction: bool = True
    instruction: str | None = None  # when not kept: the new instruction (None: none)
    app_lexicon: Lexicon | None = None


@dataclass(frozen=True, eq=False)
class RegenResult:
    """The take with the line spoken again: its new audio and layout, and how the line was spoken."""

    take_uid: str
    line_index: int
    audio: np.ndarray  # float32 [N], the whole take
    layout: tuple[tuple[int, int], ...]  # (start, length) of every segment
    spliced: tuple[bool, ...]  # per segment
    line_samples: np.ndarray  # the new line's own samples
    seed: int
    mode: str
    instruction: str


def script_chunks(engine: Engine, request_id: int, job: ScriptJob, start: float, *,
                  started: Callable[[int, ScriptStart], None]) -> Generator[ScriptChunk, None, None]:
    """The take's chunks as the GUI sees them; reports the plan (:class:`ScriptStart`) to ``started``
    (the engine thread's ``script_started.emit``) before the first."""
    render = ScriptRender(engine, job.script, job.cast, render_settings(job.render, job.seed),
                          app_lexicon=job.app_lexicon)
    lines = tuple(LineInfo(p.index, p.line.line, p.member.name, p.member.voice.name, p.line.text, p.mode,
                           p.instruction or "", render.line_seed(p.index)) for p in render.plans)
    started(request_id, ScriptStart(render.base_seed, lines))
    texts = {p.index: p.line.text for p in render.plans}
    tokens = 0
    for index, piece in enumerate(render.chunks(keep_audio=False)):
        samples = np.array(piece.samples, dtype=np.float32, copy=True).reshape(-1)
        samples.setflags(write=False)
        raw = piece.chunk
        if raw is not None:
            tokens = int(raw.tokens_so_far)
        kind = render.items[piece.segment].kind
        yield ScriptChunk(samples=samples, sample_rate=int(piece.sample_rate), index=index, is_final=piece.is_final,
                          timing=time.perf_counter() - start, tokens=tuple(raw.tokens) if raw is not None else (),
                          tokens_so_far=tokens, sentence_index=piece.segment,
                          sentence_text=texts.get(piece.line_index, "") if piece.line_index is not None else "",
                          sentence_final=piece.segment_final, start_time=piece.start_time,
                          warnings=tuple(str(w) for w in piece.warnings),
                          script=ScriptMark(piece.segment, kind, piece.line_index, piece.speaker, piece.segment_final))


def run_regen(engine: Engine | None, request_id: int, job: RegenJob, *, done: Callable[[int, RegenResult], None],
              failed: Callable[[int, str], None]) -> None:
    """Regenerate the line and report :class:`RegenResult` to ``done`` or a message to ``failed`` (the engine
    thread's ``line_regenerated.emit`` and ``regen_failed.emit``)."""
    if engine is None:
        failed(request_id, "No model is loaded yet; choose a model folder first.")
        return
    try:
        if job.sample_rate != engine.sample_rate:
            raise SynthesisError("the take was made with a model of another sample rate; load that model to "
                                 "regenerate its lines.")
        lexicon = combine(load_many(job.script.lexicon_files))
        plans = {p.index: p for p in plan_lines(job.script, job.cast, engine.family, lexicon,
                                                app_lexicon=job.app_lexicon)}
        segments = []
        for seg in job.segments:
            plan = None
            if seg.kind == "line":
                if seg.line_index not in plans:
                    raise SynthesisError(f"line {(seg.line_index or 0) + 1} of the take is not in its script any more.")
                mode = cast(Mode, seg.mode)  # a LinePlan's mode, kept in the take when the line was spoken
                plan = replace(plans[seg.line_index], mode=mode, instruction=seg.instruction or None)
            segments.append(Segment(seg.kind, seg.samples, plan, seg.seed, seg.spliced))  # type: ignore[arg-type]
        take = ScriptTake(segments, job.sample_rate, render_settings(job.render), job.base_seed)
        options: dict[str, Any] = {} if job.keep_instruction else {"instruction": job.instruction}
        new = regenerate_line(engine, take, job.line_index, seed=job.seed, **options)
        k = new.line_segment(job.line_index)
        line = new.segments[k]
        assert line.plan is not None and line.seed is not None
        result = RegenResult(job.take_uid, job.line_index, new.audio(), tuple(new.layout()),
                             tuple(s.spliced for s in new.segments), line.samples, line.seed, line.plan.mode,
                             line.plan.instruction or "")
    except Exception as e:
        if isinstance(e, CosyError):
            logger.warning("regenerating line %d failed: %s", job.line_index + 1, e)
        else:
            logger.exception("regenerating line %d failed", job.line_index + 1)
        failed(request_id, readable_error(e))
        return
    done(request_id, result)
