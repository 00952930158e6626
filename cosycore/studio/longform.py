"""Long-form rendering: a .txt or .md file to one audio file, streamed to disk, resumable.

The document is cut into segments: paragraphs (blank-line separated; long ones cut at sentence
ends into pieces of about :data:`SEGMENT_CHARS` characters) and, in Markdown, headings. Each
segment is one engine request; its audio is appended to a partial WAV file beside the output
(``.NAME.partial.wav``), so memory holds one segment at a time, never the whole book.

After every segment the audio is flushed and a small state file (``NAME.render.json``, written
atomically) records how many segments are done and how many samples each one has. A render that
is stopped (Ctrl-C, :meth:`LongFormJob.stop`, a crash, a reboot) resumes from the last finished
segment: the partial file is cut back to the recorded length and the next segment is spoken. The
state also records the text's hash, the voice and the settings; resuming with a different text or
settings is refused with :class:`CannotResumeError` (``restart=True`` starts over, discarding only our own
partial file).

Markdown headings start chapters. With ``chapters="cue"`` a cue sheet (``NAME.cue``, one track per
chapter) is written beside the WAV or FLAC; with ``chapters="split"`` every chapter becomes its own
file (``NAME-01.wav``, …) plus an M3U playlist (``NAME.m3u``). Markdown markup (emphasis, links,
code, list bullets, block quotes, rules, fenced code blocks) is removed before speaking.

Nothing that exists is overwritten unless ``overwrite=True``: not the output, the cue sheet, the
playlist or a chapter file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..engine import SynthesisRequest
from ..errors import InputError, StorageError
from ..frontend.chunking import iter_chunks
from ..frontend.text_checks import is_speakable
from ..request import Mode
from ..safety import UnsafeFileError, read_json_file
from ..subtitles import Chapter, cue_sheet, m3u_playlist
from ..voices import Voice, write_atomic
from .lexicon import Lexicon
from .output import AtomicAudioWriter, audio_format

if TYPE_CHECKING:
    from ..engine import Engine  # annotations only: importing Engine loads torch

logger = logging.getLogger(__name__)

STATE_VERSION = 1
SEGMENT_CHARS = 600
HEADING_PAUSE = 0.8  # seconds after a heading
PARAGRAPH_PAUSE = 0.6  # seconds after a paragraph
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024
MAX_STATE_BYTES = 256 * 1024 * 1024  # a render state lists one number per segment
SEED_LIMIT = 2**31 - 1
ChapterMode = Literal["cue", "split", "none"]

_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_RULE_RE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
_BULLET_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_QUOTE_RE = re.compile(r"^\s*>+\s?")
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK_RE = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_CODE_RE = re.compile(r"`([^`]*)`")
_EMPH_RE = re.compile(r"(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1")
_HTML_RE = re.compile(r"</?[A-Za-z][^>]*>")


class CannotResumeError(InputError):
    """An unfinished render exists but cannot be continued as it is: its text, voice, dictionary or
    settings differ, or its state or partial audio is damaged or missing. ``restart=True`` starts over
    (discarding only that unfinished render)."""


@dataclass(frozen=True)
class DocSegment:
    """One request's worth of a document."""

    index: int
    text: str
    chapter: int  # 0-based chapter the segment belongs to
    pause_after: float  # seconds of silence after it
    heading: bool = False


@dataclass(frozen=True)
class Document:
    segments: tuple[DocSegment, ...]
    chapter_titles: tuple[str, ...]  # one per chapter; "" for text before the first heading

    @property
    def total_chars(self) -> int:
        return sum(len(s.text) for s in self.segments)


def _strip_inline(text: str) -> str:
    text = _IMAGE_RE.sub(lambda m: m.group(1), text)
    text = _LINK_RE.sub(lambda m: m.group(1), text)
    text = _CODE_RE.sub(lambda m: m.group(1), text)
    keep = {"<strong>", "</strong>", "<laughter>", "</laughter>"}  # CosyVoice tags stay
    text = _HTML_RE.sub(lambda m: m.group(0) if m.group(0) in keep else "", text)
    for _ in range(3):
        text = _EMPH_RE.sub(lambda m: m.group(2), text)
    return text


def _paragraph_segments(paragraph: str) -> Iterator[str]:
    text = " ".join(paragraph.split())
    if len(text) <= SEGMENT_CHARS:
        yield text
    else:
        yield from (c.strip() for c in iter_chunks(text, SEGMENT_CHARS) if c.strip())


def parse_document(text: str, *, markdown: bool) -> Document:
    """Cut ``text`` into segments; in Markdown, headings start chapters and markup is removed."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    pieces: list[tuple[str, int, bool]] = []  # (text, chapter, heading)
    titles: list[str] = [""]
    paragraph: list[str] = []
    in_fence = False

    def flush() -> None:
        if paragraph:
            joined = _strip_inline(" ".join(paragraph)) if markdown else " ".join(paragraph)
            for piece in _paragraph_segments(joined):
                pieces.append((piece, len(titles) - 1, False))
            paragraph.clear()

    for line in text.split("\n"):
        if markdown and _FENCE_RE.match(line):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not line.strip():
            flush()
            continue
        if markdown:
            heading = _HEADING_RE.match(line)
            if heading:
                flush()
                title = _strip_inline(heading.group(2)).strip()
                if pieces or titles[-1]:
                    titles.append(title)
                else:
                    titles[-1] = title  # a heading before any text names the first chapter
                if title:
                    pieces.append((title, len(titles) - 1, True))
                continue
            if _RULE_RE.match(line):
                flush()
                continue
            line = _QUOTE_RE.sub("", line)
            if _BULLET_RE.match(line):
                flush()  # every list item is its own paragraph
                line = _BULLET_RE.sub("", line)
        paragraph.append(line.strip())
    flush()
    segments: list[DocSegment] = []
    for piece, chapter, is_heading in pieces:
        if not is_speakable(piece):
            continue
        segments.append(DocSegment(len(segments), piece, chapter,
                                   HEADING_PAUSE if is_heading else PARAGRAPH_PAUSE, is_heading))
    if not segments:
        raise InputError("The document has nothing to speak.")
    used = sorted({s.chapter for s in segments})
    remap = {old: new for new, old in enumerate(used)}
    segments = [DocSegment(s.index, s.text, remap[s.chapter], s.pause_after, s.heading) for s in segments]
    return Document(tuple(segments), tuple(titles[c] for c in used))


def load_document(path: Path | str) -> Document:
    path = Path(path)
    if not path.is_file():
        raise InputError(f"The file '{path}' does not exist.")
    if path.suffix.lower() not in (".txt", ".md", ".markdown"):
        raise InputError(f"'{path.name}' is not a .txt or .md file.")
    if path.stat().st_size > MAX_DOCUMENT_BYTES:
        raise InputError(f"'{path.name}' is larger than {MAX_DOCUMENT_BYTES // 2**20} MiB.")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"'{path.name}' is not UTF-8 text ({e.reason}); save it as UTF-8.") from None
    return parse_document(text, markdown=path.suffix.lower() != ".txt")


# --------------------------------------------------------------------------------------------
# The job
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LongFormSettings:
    instruction: str | None = None
    speed: float = 1.0
    seed: int | None = None  # base seed; segment i gets base + i (None: drawn and recorded)
    language: str | None = None
    chapters: ChapterMode = "cue"
    min_tokens: int | None = None  # advanced, as SynthesisRequest
    max_tokens: int | None = None


@dataclass(frozen=True)
class LongFormProgress:
    done: int  # segments finished
    total: int
    chars_done: int
    chars_total: int
    audio_seconds: float  # of output so far
    elapsed: float  # seconds spent in this run
    eta: float | None  # seconds left, from this run's speed (None until a segment finished)
    resumed_from: int  # segments already done when this run started


@dataclass
class _State:
    version: int
    fingerprint: str
    base_seed: int
    sample_rate: int
    segment_samples: list[int] = field(default_factory=list)

    @property
    def done(self) -> int:
        return len(self.segment_samples)


def state_path(out: Path) -> Path:
    return out.with_name(out.name + ".render.json")


def partial_path(out: Path) -> Path:
    return out.with_name(f".{out.stem}.partial.wav")


def _fingerprint(document: Document, voice: Voice, settings: LongFormSettings, lexicon: Lexicon | None,
                 family: str) -> str:
    h = hashlib.sha256()
    for seg in document.segments:
        h.update(seg.text.encode("utf-8") + b"\0")
    h.update(voice.name.encode() + voice.speech_tokens.tobytes() + voice.transcript.encode())
    recorded = {k: v for k, v in asdict(settings).items() if k not in ("seed", "chapters")}
    h.update(json.dumps([recorded, family], sort_keys=True).encode())
    for e in lexicon or ():
        h.update(f"{e.term}\0{e.replacement}\0{e.whole_word}\0{e.case_sensitive}\n".encode())
    return h.hexdigest()


class LongFormJob:
    """Render ``document`` with ``voice`` to ``out``; :meth:`run` resumes where a previous run stopped."""

    def __init__(self, engine: Engine, document: Document, voice: Voice, out: Path | str,
                 settings: LongFormSettings | None = None, lexicon: Lexicon | None = None, *,
                 restart: bool = False, overwrite: bool = False) -> None:
        self.engine = engine
        self.document = document
        self.voice = voice
        self.out = Path(out)
        self.settings = settings or LongFormSettings()
        self.lexicon = lexicon
        self.overwrite = overwrite
        audio_format(self.out)
        if self.settings.chapters not in ("cue", "split", "none"):
            raise InputError(f"chapters must be cue, split or none, not {self.settings.chapters!r}.")
        if voice.family != engine.family:
            raise InputError(f"the voice {voice.name!r} was made for {voice.family}, but the model is "
                             f"{engine.family}; re-create the voice with this model.")
        if lexicon is not None:
            lexicon.check(engine.family)
        self._mode: Mode = ("instruct" if self.settings.instruction
                            else "zero_shot" if voice.transcript.strip() else "cross_lingual")
        self.fingerprint = _fingerprint(document, voice, self.settings, lexicon, engine.family)
        self._stop = False
        self.state = self._open_state(restart)

    # -- state --------------------------------------------------------------------------------
    def _read_state(self) -> _State | None:
        path = state_path(self.out)
        if not os.path.lexists(path):
            return None
        try:
            data = read_json_file(path, MAX_STATE_BYTES)  # a regular file, capped in size and depth
            state = _State(int(data["version"]), str(data["fingerprint"]), int(data["base_seed"]),
                           int(data["sample_rate"]), [int(n) for n in data["segment_samples"]])
        except (OSError, ValueError, KeyError, TypeError, AttributeError, ArithmeticError, UnsafeFileError) as e:
            raise CannotResumeError(f"the render state {path.name} is damaged ({e}); start over with --restart "
                             "(only the unfinished render is discarded).") from None
        return state

    def _open_state(self, restart: bool) -> _State:
        old = self._read_state()
        if old is not None and not restart:
            if old.version != STATE_VERSION or old.fingerprint != self.fingerprint \
                    or old.sample_rate != self.engine.sample_rate:
                raise CannotResumeError(
                    f"{self.out.name} has an unfinished render of another text, voice or settings "
                    f"({state_path(self.out).name}). Run it with the same file and options to resume, or "
                    "start over with --restart (this discards only that unfinished render).")
            if self.settings.seed is not None and self.settings.seed != old.base_seed:
                raise InputError(f"the unfinished render of {self.out.name} uses seed {old.base_seed}, not "
                                 f"{self.settings.seed}; resume with --seed {old.base_seed} (or without --seed), "
                                 "or start over with --restart.")
            if not partial_path(self.out).exists():
                raise CannotResumeError(f"the partial audio of the unfinished render of {self.out.name} is missing; "
                                 "start over with --restart.")
            return old
        if old is None and self.out.exists() and not self.overwrite:
            raise InputError(f"{self.out} exists already; choose another name or pass --overwrite.")
        if old is not None:  # restart: drop our own unfinished render
            partial_path(self.out).unlink(missing_ok=True)
            state_path(self.out).unlink(missing_ok=True)
        base = self.settings.seed if self.settings.seed is not None else random.randrange(SEED_LIMIT)
        return _State(STATE_VERSION, self.fingerprint, int(base), self.engine.sample_rate, [])

    def _save_state(self) -> None:
        data = asdict(self.state)
        data["output"] = self.out.name
        data["segments_total"] = len(self.document.segments)
        write_atomic(state_path(self.out), json.dumps(data, indent=1).encode("utf-8"))

    @property
    def done(self) -> bool:
        return self.state.done >= len(self.document.segments)

    def stop(self) -> None:
        """Stop after the current segment (thread-safe: a flag; the engine is cancelled too)."""
        self._stop = True
        self.engine.cancel()

    # -- running --------------------------------------------------------------------------------
    def _open_partial(self) -> Any:
        import soundfile as sf

        path = partial_path(self.out)
        keep = sum(self.state.segment_samples)
        if self.state.done == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
            return sf.SoundFile(str(path), "w", samplerate=self.state.sample_rate, channels=1,
                                format="WAV", subtype="PCM_16")
        f = sf.SoundFile(str(path), "r+")
        if f.frames < keep:
            f.close()
            raise StorageError(f"the partial audio {path.name} is shorter than its state says ({keep} samples); "
                               "start over with --restart.")
        f.seek(keep)
        f.truncate(keep)  # drop a segment that was cut off midway
        f.seek(keep)
        return f

    def _request(self, seg: DocSegment) -> SynthesisRequest:
        text = self.lexicon.apply(seg.text) if self.lexicon is not None else seg.text
        return SynthesisRequest(
            text=text, mode=self._mode, voice=self.voice,
            instruct_text=self.settings.instruction if self._mode == "instruct" else None,
            speed=self.settings.speed, seed=(self.state.base_seed + seg.index) % SEED_LIMIT, stream=False,
            language=self.settings.language, min_tokens=self.settings.min_tokens,
            max_tokens=self.settings.max_tokens,
        )

    def run(self, progress: Callable[[LongFormProgress], None] | None = None) -> bool:
        """Render the remaining segments. Returns True when the output is complete, False when stopped
        (the state is saved; run again to resume)."""
        self._stop = False
        ticket = self.engine.cancel_count
        segments = self.document.segments
        started = time.perf_counter()
        resumed_from = self.state.done
        chars_before = sum(len(s.text) for s in segments[:resumed_from])
        chars_total = self.document.total_chars
        chars_run = 0
        sr = self.state.sample_rate
        f = self._open_partial()
        try:
            self._save_state()
            for seg in segments[self.state.done:]:
                if self._stop or self.engine.cancel_count != ticket:
                    return False
                pieces = []
                finished = False
                for chunk in self.engine.synthesize(self._request(seg)):
                    pieces.append(chunk.samples)
                    finished = chunk.is_final
                if not finished:
                    return False  # cancelled midway: this segment is redone on resume
                audio = np.concatenate([*pieces, np.zeros(round(seg.pause_after * sr), np.float32)])
                f.write(audio)
                f.flush()  # header and data on disk before the state says the segment is done
                self.state.segment_samples.append(int(audio.shape[0]))
                self._save_state()
                chars_run += len(seg.text)
                if progress is not None:
                    elapsed = time.perf_counter() - started
                    left = chars_total - chars_before - chars_run
                    progress(LongFormProgress(
                        self.state.done, len(segments), chars_before + chars_run, chars_total,
                        sum(self.state.segment_samples) / sr, elapsed,
                        elapsed / chars_run * left if chars_run else None, resumed_from))
        finally:
            f.close()
        self._finish()
        return True

    # -- finishing ------------------------------------------------------------------------------
    def chapters(self) -> list[Chapter]:
        """Chapter starts in the output, from the recorded segment lengths."""
        sr = self.state.sample_rate
        out: list[Chapter] = []
        position = 0
        seen = -1
        for seg, n in zip(self.document.segments, self.state.segment_samples):
            if seg.chapter != seen:
                out.append(Chapter(self.document.chapter_titles[seg.chapter], position / sr))
                seen = seg.chapter
            position += n
        return out

    def _targets(self) -> list[Path]:
        mode = self.settings.chapters
        if mode == "split":
            n = len(self.document.chapter_titles)
            return [self._chapter_path(i) for i in range(n)] + [self.out.with_suffix(".m3u")]
        targets = [self.out]
        if mode == "cue" and len(self.document.chapter_titles) > 1:
            targets.append(self.out.with_suffix(".cue"))
        return targets

    def _chapter_path(self, i: int) -> Path:
        return self.out.with_name(f"{self.out.stem}-{i + 1:02d}{self.out.suffix}")

    def _finish(self) -> None:
        if not self.overwrite:
            clash = [p for p in self._targets() if p.exists()]
            if clash:
                raise InputError(f"{clash[0]} exists already; the render is complete in {partial_path(self.out)} "
                                 "(kept): move that file away and run the same command again to finish.")
        partial = partial_path(self.out)
        chapters = self.chapters()
        if self.settings.chapters == "split":
            self._split(partial, chapters)
        elif audio_format(self.out) == "WAV":
            try:
                os.replace(partial, self.out)  # the partial file is the finished WAV: rename it into place
            except OSError as e:
                raise StorageError(f"could not save {self.out}: {e.strerror or e}; the audio is kept in "
                                   f"{partial}.") from e
        else:
            self._copy_range(partial, self.out, 0, None)
        if self.settings.chapters != "split" and self.settings.chapters == "cue" and len(chapters) > 1:
            write_atomic(self.out.with_suffix(".cue"), cue_sheet(self.out.name, chapters).encode("utf-8"))
        partial.unlink(missing_ok=True)
        state_path(self.out).unlink(missing_ok=True)

    def _copy_range(self, src: Path, dst: Path, start: int, stop: int | None) -> None:
        import soundfile as sf

        writer = AtomicAudioWriter(dst, self.state.sample_rate)
        try:
            with sf.SoundFile(str(src)) as f:
                f.seek(start)
                left = (f.frames if stop is None else stop) - start
                while left > 0:
                    block = f.read(min(left, 1 << 16), dtype="float32")
                    if not len(block):
                        break
                    writer.write(block)
                    left -= len(block)
            writer.commit()
        except BaseException:
            writer.abort()
            raise

    def _split(self, partial: Path, chapters: Sequence[Chapter]) -> None:
        sr = self.state.sample_rate
        total = sum(self.state.segment_samples)
        bounds = [round(c.start * sr) for c in chapters] + [total]
        rows = []
        for i, chapter in enumerate(chapters):
            path = self._chapter_path(i)
            self._copy_range(partial, path, bounds[i], bounds[i + 1])
            rows.append((path.name, chapter.title or f"{self.out.stem} {i + 1}", (bounds[i + 1] - bounds[i]) / sr))
        write_atomic(self.out.with_suffix(".m3u"), m3u_playlist(rows).encode("utf-8"))
