"""Long-form renders the app remembers until they are finished, so that they can be resumed after a restart.

Each render the app starts gets a record, ``<data>/renders/<id>.json`` (written atomically): what the
user asked for (:class:`RenderSpec`). A render of the editor's text also keeps a copy of that text beside
it (``<id>.md`` or ``<id>.txt``): the editor may change afterwards, the render must not. The progress
itself is not here but in the engine's state file beside the output (``book.flac.render.json``, see
:mod:`cosycore.studio.longform`), which :func:`render_progress` reads.

A record and its text copy are removed when the render has finished, or when the user discards it;
nothing else is ever deleted here.
"""

from __future__ import annotations

import json
import logging
import math
import uuid
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from cosycore.errors import StorageError
from cosycore.safety import UnsafeFileError, read_json_file
from cosycore.studio.longform import MAX_STATE_BYTES, LongFormSettings, partial_path, state_path
from cosycore.voices import write_atomic

logger = logging.getLogger(__name__)

RECORDS_DIR = "renders"
RECORD_VERSION = 1
CHAPTER_MODES = ("cue", "split", "none")
OUTPUT_SUFFIXES = (".wav", ".flac")


@dataclass(frozen=True)
class RenderSpec:
    """One long-form render as the user asked for it, in plain values."""

    source: Path  # the .txt/.md file; for the editor's text, the copy kept in the data folder
    out: Path  # the .wav or .flac to write
    voice: str  # name of a saved voice
    chapters: str = "cue"  # "cue", "split" or "none" (see cosycore.studio.longform)
    instruction: str = ""  # speak everything with this instruction (instruct mode); "" for none
    speed: float = 1.0
    seed: int | None = None  # base seed; None: drawn when the render starts and kept in its state file
    overwrite: bool = False  # the user agreed to replace existing output files
    from_editor: bool = False  # ``source`` is our own copy of the editor's text
    min_tokens: int | None = None  # advanced caps per segment, as SynthesisRequest (tests)
    max_tokens: int | None = None

    def settings(self, *, resuming: bool) -> LongFormSettings:
        """The engine's settings; a resumed render takes its seed from its state file."""
        return LongFormSettings(instruction=self.instruction or None, speed=self.speed,
                                seed=None if resuming else self.seed, chapters=self.chapters,  # type: ignore[arg-type]
                                min_tokens=self.min_tokens, max_tokens=self.max_tokens)

    @property
    def title(self) -> str:
        """How the render is named to the user: its source file, or its output for the editor's text."""
        return self.out.name if self.from_editor else self.source.name

    def output_files(self, chapters: int | None = None) -> list[Path]:
        """The files the finished render writes; with ``chapters`` unknown, the ones it may write that exist."""
        out = self.out
        if self.chapters == "split":
            if chapters is None:
                pattern = f"{out.stem}-[0-9][0-9]*{out.suffix}"
                return [*sorted(out.parent.glob(pattern)), out.with_suffix(".m3u")]
            return [*(out.with_name(f"{out.stem}-{i + 1:02d}{out.suffix}") for i in range(chapters)),
                    out.with_suffix(".m3u")]
        files = [out]
        if self.chapters == "cue" and (chapters is None or chapters > 1):
            files.append(out.with_suffix(".cue"))
        return files

    def existing_outputs(self) -> list[Path]:
        return [p for p in self.output_files() if p.exists()]


def _spec_to_json(spec: RenderSpec) -> dict[str, Any]:
    data = asdict(spec)
    data["source"] = str(spec.source)
    data["out"] = str(spec.out)
    return data


def _spec_from_json(data: dict[str, Any]) -> RenderSpec:
    known = {f.name for f in fields(RenderSpec)}
    values = {k: v for k, v in data.items() if k in known}
    spec = RenderSpec(**values)
    spec = replace(spec, source=Path(spec.source), out=Path(spec.out), speed=float(spec.speed),
                   seed=None if spec.seed is None else int(spec.seed), overwrite=bool(spec.overwrite),
                   from_editor=bool(spec.from_editor), instruction=str(spec.instruction), voice=str(spec.voice))
    if spec.chapters not in CHAPTER_MODES or spec.out.suffix.lower() not in OUTPUT_SUFFIXES \
            or not math.isfinite(spec.speed) or not spec.voice:
        raise ValueError("a field has a value the app does not write")
    return spec


@dataclass(frozen=True)
class RenderRecord:
    """A render the app started and has not finished: its id (the record file's name) and what was asked."""

    id: str
    spec: RenderSpec


@dataclass(frozen=True)
class RenderProgress:
    """How far an unfinished render got, from its state file."""

    done: int  # segments finished
    total: int  # segments in the document (0 when the state file does not say)


def render_progress(spec: RenderSpec) -> RenderProgress | None:
    """The progress recorded beside the output, or None when there is no unfinished render there."""
    try:
        data = read_json_file(state_path(spec.out), MAX_STATE_BYTES)
        return RenderProgress(len(data["segment_samples"]), int(data.get("segments_total", 0)))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ArithmeticError, UnsafeFileError) as e:
        logger.warning("cannot read the render state of %s: %s", spec.out, e)
        return RenderProgress(0, 0)  # there is one; resuming says what is wrong with it


class RenderRecords:
    """The records in ``<data>/renders``. Owned by the long-form controller; GUI thread only."""

    def __init__(self, data_dir: Path) -> None:
        self.root = Path(data_dir) / RECORDS_DIR

    def _path(self, record_id: str) -> Path:
        return self.root / f"{record_id}.json"

    def new_id(self) -> str:
        return uuid.uuid4().hex[:12]

    def keep_text(self, record_id: str, text: str, *, markdown: bool) -> Path:
        """Keep a copy of the editor's text for the render ``record_id`` (raises StorageError)."""
        path = self.root / f"{record_id}{'.md' if markdown else '.txt'}"
        write_atomic(path, text.encode("utf-8"), within=self.root)
        return path

    def save(self, record: RenderRecord) -> None:
        data = {"version": RECORD_VERSION, "spec": _spec_to_json(record.spec)}
        write_atomic(self._path(record.id), json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"),
                     within=self.root)

    def load(self) -> list[RenderRecord]:
        """The records whose render can still be resumed, oldest first; the others are cleaned up."""
        if not self.root.is_dir():
            return []
        found: list[tuple[float, RenderRecord]] = []
        for path in self.root.glob("*.json"):
            try:
                data = read_json_file(path, 16 << 20)
                if not isinstance(data, dict) or data.get("version") != RECORD_VERSION:
                    raise ValueError("not a render record of this version")
                record = RenderRecord(path.stem, _spec_from_json(data["spec"]))
            except (OSError, ValueError, KeyError, TypeError, AttributeError, ArithmeticError, UnsafeFileError) as e:
                logger.warning("the render record %s cannot be read (%s); left as it is", path, e)
                continue
            spec = record.spec
            if not state_path(spec.out).exists() and not partial_path(spec.out).exists() \
                    and spec.out.parent.is_dir():
                # Finished elsewhere (the CLI) or discarded by hand: there is nothing left to resume.
                logger.info("the render of %s has no unfinished state any more; forgetting it", spec.out)
                self.remove(record)
                continue
            found.append((path.stat().st_mtime, record))
        found.sort(key=lambda item: item[0])
        return [record for _, record in found]

    def remove(self, record: RenderRecord) -> None:
        """Forget ``record``: its file and the copy of the editor's text it owns (never the user's files)."""
        paths = [self._path(record.id)]
        if record.spec.from_editor and record.spec.source.parent == self.root:
            paths.append(record.spec.source)
        for path in paths:
            try:
                path.unlink(missing_ok=True)
            except OSError as e:
                logger.warning("cannot remove %s: %s", path, e)

    def discard(self, record: RenderRecord) -> None:
        """Delete the unfinished render's own files (partial audio and state; the user agreed) and the record."""
        for path in (partial_path(record.spec.out), state_path(record.spec.out)):
            try:
                path.unlink(missing_ok=True)
            except OSError as e:
                raise StorageError(f"could not delete {path}: {e.strerror or e}.") from e
        self.remove(record)
