"""Rendering a dialogue script as one take, regenerating single lines, stems and subtitle cues.

:class:`ScriptRender` plans the script against the cast (all problems are raised before anything
is synthesised), then :meth:`ScriptRender.chunks` speaks the lines in order through the engine and
yields :class:`ScriptChunk` objects: the engine's streamed chunks, tagged with the segment, the
speech line and the speaker, interleaved with the silences between lines. :meth:`ScriptRender.take`
collects them into a :class:`ScriptTake`.

A take is a list of :class:`Segment` objects: one per speech line, and one per silence (the gap
between two lines, a ``[pause]``, a paragraph pause). Its audio is the segments laid end to end.
:func:`regenerate_line` synthesises one line again (another seed and/or instruction) and puts the
new audio in place of the old: the segments around it shift, and each seam of the new segment is
crossfaded over :attr:`RenderSettings.crossfade` seconds (raised-cosine fades that sum to one).
Cues and stems are computed from the same layout, so they stay aligned with the audio.

Seeds: every line has its own seed, ``base + line index`` (the base is drawn at random when not
given), kept in its segment, so a line can be re-made exactly or with another seed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

import numpy as np

from ..engine import AudioChunk, SynthesisRequest
from ..errors import InputError, SynthesisError
from ..request import Mode
from ..subtitles import Cue
from .cast import Cast, LinePlan, plan_lines, resolve_instruction
from .lexicon import Lexicon, combine, load_many
from .script import Pause, Script, SpeechLine
from .splice import fade

if TYPE_CHECKING:
    from ..engine import Engine  # annotations only: importing Engine loads torch

SEED_LIMIT = 2**31 - 1
SegmentKind = Literal["line", "gap", "pause", "paragraph"]
_KEEP = object()


@dataclass(frozen=True)
class RenderSettings:
    """How a script is spoken and assembled."""

    line_gap: float = 0.3  # seconds of silence between two lines (unless a pause is written)
    paragraph_pause: float = 0.9  # seconds of silence for a blank line
    seed: int | None = None  # base seed; line i gets seed + i. None: drawn at random (and recorded)
    speed: float = 1.0
    stream: bool = True
    crossfade: float = 0.01  # seconds; used at the seams of a regenerated line
    language: str | None = None
    text_frontend: bool = True
    min_tokens: int | None = None  # advanced (as SynthesisRequest): speech tokens per sentence before eos
    max_tokens: int | None = None  # advanced: most speech tokens per sentence

    def __post_init__(self) -> None:
        for name in ("line_gap", "paragraph_pause", "crossfade"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0 <= value <= 60 and math.isfinite(value)):
                raise InputError(f"{name} must be between 0 and 60 seconds, not {value!r}.")


@dataclass(frozen=True, eq=False)
class Segment:
    """A piece of a take: a spoken line or a silence."""

    kind: SegmentKind
    samples: np.ndarray  # float32 [N]
    plan: LinePlan | None = None  # the line's plan (kind "line")
    seed: int | None = None  # the seed the line was spoken with
    spliced: bool = False  # regenerated: its seams are crossfaded

    @property
    def speaker(self) -> str | None:
        return self.plan.member.name if self.plan is not None else None

    @property
    def line_index(self) -> int | None:
        return self.plan.index if self.plan is not None else None


@dataclass(frozen=True, eq=False)
class ScriptChunk:
    """One piece of a script take as it is rendered."""

    samples: np.ndarray  # float32 [N]
    sample_rate: int
    segment: int  # index of the take segment it belongs to
    line_index: int | None  # speech line (0-based among the script's speech lines); None for silence
    speaker: str | None  # the cast name; None for silence
    start_time: float  # seconds into the take
    segment_final: bool  # the segment's last chunk
    is_final: bool  # the take's last chunk
    chunk: AudioChunk | None = None  # the engine's chunk (None for silence)

    @property
    def duration(self) -> float:
        return self.samples.shape[0] / self.sample_rate

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.chunk.warnings if self.chunk is not None else ()


def _silence(seconds: float, sample_rate: int) -> np.ndarray:
    return np.zeros(round(seconds * sample_rate), dtype=np.float32)


def _line_seed(base: int, index: int) -> int:
    return (base + index) % SEED_LIMIT


def _request(plan: LinePlan, settings: RenderSettings, seed: int, *, instruction: str | None = None,
             mode: Mode | None = None) -> SynthesisRequest:
    mode = mode or plan.mode
    return SynthesisRequest(
        text=plan.text, mode=mode, voice=plan.member.voice,
        instruct_text=(instruction if mode == "instruct" else None),
        speed=settings.speed, seed=seed, stream=settings.stream,
        text_frontend=settings.text_frontend, language=settings.language,
        min_tokens=settings.min_tokens, max_tokens=settings.max_tokens,
    )


@dataclass(frozen=True)
class _Planned:
    kind: SegmentKind
    plan: LinePlan | None = None
    seconds: float = 0.0


def _layout_items(script: Script, plans: Sequence[LinePlan], settings: RenderSettings) -> list[_Planned]:
    by_line = {p.line.line: p for p in plans}
    out: list[_Planned] = []
    previous_line = False
    for item in script.items:
        if isinstance(item, Pause):
            seconds = settings.paragraph_pause if item.seconds is None else item.seconds
            out.append(_Planned("paragraph" if item.paragraph else "pause", seconds=seconds))
            previous_line = False
        elif isinstance(item, SpeechLine):
            if previous_line and settings.line_gap > 0:
                out.append(_Planned("gap", seconds=settings.line_gap))
            out.append(_Planned("line", plan=by_line[item.line]))
            previous_line = True
    return out


class ScriptRender:
    """One rendering of a script with a cast on an engine. Raises :class:`ScriptError` at once if the
    script and cast do not fit the engine's model family."""

    def __init__(self, engine: Engine, script: Script, cast: Cast, settings: RenderSettings | None = None,
                 lexicon: Lexicon | None = None, *, app_lexicon: Lexicon | None = None) -> None:
        """``app_lexicon``: the app-wide dictionary; then each speaker's voice's own; then the files
        the script names (``[lexicon FILE]``); then ``lexicon`` (e.g. the command line's)."""
        self.engine = engine
        self.script = script
        self.cast = cast
        self.settings = settings or RenderSettings()
        self.lexicon = combine(load_many(script.lexicon_files), lexicon)
        self.plans = plan_lines(script, cast, engine.family, self.lexicon, app_lexicon=app_lexicon)
        base = self.settings.seed if self.settings.seed is not None else random.randrange(SEED_LIMIT)
        self.base_seed = int(base)
        self.items = _layout_items(script, self.plans, self.settings)
        self.segments: list[Segment] = []  # filled in as chunks() runs

    @property
    def sample_rate(self) -> int:
        return self.engine.sample_rate

    def line_seed(self, index: int) -> int:
        return _line_seed(self.base_seed, index)

    def chunks(self, *, keep_audio: bool = True) -> Iterator[ScriptChunk]:
        """Speak the script: a generator of :class:`ScriptChunk`, in take order. Stops early when
        :meth:`Engine.cancel` is called (the segments so far stay in :attr:`segments`).

        ``keep_audio=False`` keeps nothing (:attr:`segments` stays empty): for writing straight to
        files, so memory holds one line at a time."""
        ticket = self.engine.cancel_count
        sr = self.sample_rate
        position = 0
        self.segments = []
        last = len(self.items) - 1
        for k, item in enumerate(self.items):
            if self.engine.cancel_count != ticket:
                return
            if item.plan is None:
                audio = _silence(item.seconds, sr)
                if keep_audio:
                    self.segments.append(Segment(item.kind, audio))
                yield ScriptChunk(audio, sr, k, None, None, position / sr, True, k == last)
                position += audio.shape[0]
                continue
            plan = item.plan
            seed = self.line_seed(plan.index)
            pieces: list[np.ndarray] = []
            request = _request(plan, self.settings, seed, instruction=plan.instruction)
            finished = False
            for chunk in self.engine.synthesize(request):
                if keep_audio:
                    pieces.append(chunk.samples)
                finished = chunk.is_final
                yield ScriptChunk(chunk.samples, sr, k, plan.index, plan.member.name, position / sr,
                                  chunk.is_final, chunk.is_final and k == last, chunk)
                position += chunk.samples.shape[0]
            if keep_audio:
                audio = np.concatenate(pieces) if pieces else np.zeros(0, np.float32)
                self.segments.append(Segment("line", audio, plan, seed))
            if not finished:
                return  # cancelled in the middle of the line

    def take(self) -> ScriptTake:
        """Render everything and return the take."""
        for _ in self.chunks():
            pass
        return ScriptTake(list(self.segments), self.sample_rate, self.settings, self.base_seed)


@dataclass(eq=False)
class ScriptTake:
    """A rendered script: segments laid end to end (crossfaded at regenerated lines' seams)."""

    segments: list[Segment]
    sample_rate: int
    settings: RenderSettings = field(default_factory=RenderSettings)
    base_seed: int = 0

    def _overlaps(self) -> list[int]:
        """Samples shared by segment k-1 and k (index k; 0 for the first)."""
        fade = round(self.settings.crossfade * self.sample_rate)
        out = [0]
        for a, b in zip(self.segments, self.segments[1:]):
            if fade and (a.spliced or b.spliced):
                out.append(min(fade, a.samples.shape[0] // 2, b.samples.shape[0] // 2))
            else:
                out.append(0)
        return out

    def layout(self) -> list[tuple[int, int]]:
        """``(start sample, length)`` of every segment in the take's audio."""
        overlaps = self._overlaps()
        spans = []
        start = 0
        for k, seg in enumerate(self.segments):
            start -= overlaps[k]
            spans.append((start, seg.samples.shape[0]))
            start += seg.samples.shape[0]
        return spans

    @property
    def num_samples(self) -> int:
        spans = self.layout()
        return spans[-1][0] + spans[-1][1] if spans else 0

    @property
    def duration(self) -> float:
        return self.num_samples / self.sample_rate

    def _placed(self, keep: set[int] | None = None) -> np.ndarray:
        overlaps = [*self._overlaps(), 0]
        out = np.zeros(self.num_samples, dtype=np.float32)
        for k, ((start, length), seg) in enumerate(zip(self.layout(), self.segments)):
            if keep is not None and k not in keep:
                continue
            audio = seg.samples.astype(np.float32, copy=True)
            fade_in, fade_out = overlaps[k], overlaps[k + 1]
            if fade_in:
                audio[:fade_in] *= fade(fade_in, rising=True)
            if fade_out:
                audio[length - fade_out:] *= fade(fade_out, rising=False)
            out[start:start + length] += audio
        return out

    def audio(self) -> np.ndarray:
        """The whole take, float32 mono."""
        return self._placed()

    def blocks(self, keep: set[int] | None = None) -> Iterator[np.ndarray]:
        """What :meth:`audio` returns (or, with ``keep``, what one stem holds: only those segments),
        as consecutive float32 pieces made one segment at a time, so that writing a long take to a
        file never holds all of it (segments loaded from a take folder are memory-mapped)."""
        overlaps = [*self._overlaps(), 0]
        pending = np.zeros(0, dtype=np.float32)  # the previous segment's fade-out, shared with this one
        for k, seg in enumerate(self.segments):
            length = seg.samples.shape[0]
            fade_in, fade_out = overlaps[k], overlaps[k + 1]
            if keep is None or k in keep:
                audio = np.array(seg.samples, dtype=np.float32)  # a copy: the stored segment stays as it is
                if fade_in:
                    audio[:fade_in] *= fade(fade_in, rising=True)
                if fade_out:
                    audio[length - fade_out:] *= fade(fade_out, rising=False)
            else:
                audio = np.zeros(length, dtype=np.float32)
            audio[:fade_in] += pending
            yield audio[:length - fade_out]
            pending = audio[length - fade_out:]
        if pending.shape[0]:
            yield pending

    def speakers(self) -> list[str]:
        seen: dict[str, None] = {}
        for seg in self.segments:
            if seg.speaker is not None:
                seen.setdefault(seg.speaker, None)
        return list(seen)

    def stems(self) -> dict[str, np.ndarray]:
        """One track per speaker, each as long as the take, silent where others speak (they sum to :meth:`audio`)."""
        return {name: self._placed({k for k, s in enumerate(self.segments) if s.speaker == name})
                for name in self.speakers()}

    def cues(self) -> list[Cue]:
        """One subtitle cue per spoken line: its span in the take, the speaker and the line as written."""
        sr = self.sample_rate
        return [Cue(start / sr, (start + length) / sr, seg.plan.line.text, seg.plan.member.name)
                for (start, length), seg in zip(self.layout(), self.segments) if seg.plan is not None]

    def line_segment(self, line_index: int) -> int:
        for k, seg in enumerate(self.segments):
            if seg.line_index == line_index:
                return k
        raise InputError(f"the take has no line {line_index + 1}; it has "
                         f"{sum(s.plan is not None for s in self.segments)} spoken lines.")


def regenerate_line(engine: Engine, take: ScriptTake, line_index: int, *, seed: int | None = None,
                    instruction: object = _KEEP) -> ScriptTake:
    """A new take in which speech line ``line_index`` (0-based) is spoken again and spliced in.

    ``seed``: the new seed (default: the line's seed + 1, i.e. another seed). ``instruction``: a new
    instruction (free text or preset ids), ``None`` to speak it without one; left out, the line's
    instruction stays. The other segments are kept sample for sample; the take given is not changed.
    """
    k = take.line_segment(line_index)
    old = take.segments[k]
    assert old.plan is not None
    plan = old.plan
    if old.plan.member.voice.family != engine.family:
        raise InputError("the take was made with another model family; load that model to regenerate its lines.")
    new_seed = ((old.seed or 0) + 1) % SEED_LIMIT if seed is None else int(seed)
    if instruction is _KEEP:
        new_instruction = plan.instruction
    elif instruction is None or (isinstance(instruction, str) and not instruction.strip()):
        new_instruction = None
    elif isinstance(instruction, str):
        new_instruction = resolve_instruction(instruction, engine.family)
    else:
        raise InputError(f"an instruction must be text, not {type(instruction).__name__}.")
    mode: Mode
    if new_instruction is not None:
        mode = "instruct"
    elif plan.member.voice.transcript.strip():
        mode = "zero_shot"
    else:
        mode = "cross_lingual"
    new_plan = replace(plan, mode=mode, instruction=new_instruction)
    request = _request(new_plan, take.settings, new_seed, instruction=new_instruction, mode=mode)
    pieces: list[np.ndarray] = []
    finished = False
    for chunk in engine.synthesize(request):
        pieces.append(chunk.samples)
        finished = chunk.is_final
    if not finished:
        raise SynthesisError(f"regenerating line {line_index + 1} was stopped; the take is unchanged.")
    audio = np.concatenate(pieces)
    segments = list(take.segments)
    segments[k] = Segment("line", audio, new_plan, new_seed, spliced=True)
    return ScriptTake(segments, take.sample_rate, take.settings, take.base_seed)
