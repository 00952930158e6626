"""Script takes of the command line: what it takes to regenerate one line of a take in a later process.

``synth --script`` saves a take folder beside the audio file it writes, named after it (``play.wav`` →
``play.wav.take``), in the one take format (:mod:`cosycore.studio.take_folder`), the format the app
keeps its takes in::

    play.wav.take/
        take.json             the manifest: the take, its script, cast, lines and segments
        audio.f32             the take's samples (raw float32), written as the script is rendered
        audio-<v>.f32, line-<v>.f32
                              after a regeneration: the new version of the audio and the regenerated
                              line's own samples (the previous version stays for one step of undo)
        voices/00.cosyvoice   each cast member's voice, a copy of its voice file

Besides what the app records, the script part of ``take.json`` holds what a later command needs with
nothing but the folder: each voice copy's sha256, each line as spoken (pronunciation dictionary
applied) and its written instruction, the model family, release folder and text reading, the script
file's name, the sha256 of the files written from the take (audio, its previous version, subtitles,
stems: a later command rewrites its own files and no others) and a count of regenerations.

Folders of the first format (``cosy-studio-script-take``: ``script.txt`` and a ``.npy`` file per
line, :mod:`cosycore.studio.take_file_v1`) keep opening; the first change to one (a regeneration, an
undo) writes the take anew in the one format, as a new folder renamed into place, and removes of the
old folder only the files that format names (anything else someone put there is kept, under a hidden
name beside it).

Loading (:func:`load_take`) checks everything before it is used and raises :class:`TakeFileError`
(an :class:`~cosycore.errors.InputError`) saying what to do. The audio is memory-mapped, so a long
take is not read into memory; writing goes segment by segment (:meth:`ScriptTake.blocks`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from ..config.choices import FAMILY_TITLES, QUALITY_CHOICES, TEXT_READINGS
from ..errors import InputError
from ..presets import FAMILIES
from ..safety import UnsafeFileError, loads_strict_json, read_regular_file
from ..voices import encode_voice, write_atomic
from .cast import Cast, LinePlan
from .render import SEED_LIMIT, RenderSettings, ScriptChunk, ScriptRender, ScriptTake, Segment
from .script import SpeechLine
from .script_take import CastEntry, LineInfo, RenderValues, ScriptInfo, SegmentMark
from .take import AUDIO_NAME, Take, TakeState
from .take_file_v1 import inside_file, load_v1, read_cast
from .take_folder import (
    FORMAT_NAME,
    UNREADABLE,
    VOICE_FILE_RE,
    VOICES_DIR,
    clean_versions,
    file_name,
    read_take,
    take_meta,
    version_of,
    write_samples,
)
from .take_manifest import FORMAT_NAME as FIRST_FORMAT_NAME
from .take_manifest import (
    MANIFEST,
    MAX_MANIFEST_BYTES,
    MODES,
    PREVIOUS_MANIFEST,
    OwnedFile,
    TakeFileError,
    TakeModel,
    TakeOutputs,
    TakeRecord,
    damaged,
    outputs_json,
    parse_outputs,
)
from .take_storage import (
    AUDIO_SUFFIXES,
    BLOCK,
    TAKE_SUFFIX,
    NewFolder,
    check_new_take_folder,
    file_sha256,
    inherited_previous,
    is_take_folder,
    place_copy,
    previous_path,
    storage_error,
    take_audio_path,
    take_folder,
    write_new,
)

__all__ = [
    "TAKE_SUFFIX", "OwnedFile", "TakeFileError", "TakeModel", "TakeOutputs", "TakeRecord", "TakeWriter",
    "check_new_take_folder", "file_sha256", "find_take", "inherited_previous",
    "is_take_folder", "load_take", "owned_path", "previous_path", "save_take", "take_audio_path", "take_folder",
    "undo_take", "update_take",
]

MAX_SEGMENTS = 200_000


def find_take(spec: Path | str) -> Path:
    """The take folder for ``spec``: the folder itself, or the audio file it sits beside."""
    spec = Path(spec)
    if spec.name.endswith(TAKE_SUFFIX):
        folder = spec
    elif spec.suffix.lower() in AUDIO_SUFFIXES:
        folder = take_folder(spec)
    else:
        raise TakeFileError(f"'{spec}' is neither the audio 'synth --script' wrote (NAME.wav or NAME.flac) nor its "
                            "take folder (NAME.wav.take).")
    take_audio_path(folder)
    if not folder.is_dir():
        raise TakeFileError(f"there is no take folder '{folder}'. 'cosycore synth --script … --out {spec.name}' "
                            "saves one beside the audio; render the script again to make one.")
    return folder


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


def _read_manifest(folder: Path, name: str, *, previous: bool) -> Any:
    try:
        raw = read_regular_file(folder / name, MAX_MANIFEST_BYTES)
    except FileNotFoundError:
        if previous:
            raise TakeFileError(f"'{folder.name}' has no earlier state to go back to.") from None
        raise TakeFileError(f"'{folder}' has no {MANIFEST}; it is not a take, or it was not saved to the end. "
                            "Render the script again with 'cosycore synth --script'.") from None
    except (OSError, UnsafeFileError) as e:
        raise damaged(folder, f"{name} cannot be read ({e})") from e
    try:
        return loads_strict_json(raw)
    except (ValueError, UnicodeDecodeError) as e:
        raise damaged(folder, f"{name} is not valid JSON ({e})") from e


def _format(data: Any) -> str | None:
    return data.get("format") if isinstance(data, dict) else None


def load_take(folder: Path | str, *, previous: bool = False) -> TakeRecord:
    """Read and check a take folder (``previous``: its state before the last regeneration)."""
    folder = Path(folder)
    take_audio_path(folder)
    if folder.is_symlink() or not folder.is_dir():
        raise TakeFileError(f"'{folder}' is not a take folder; give the audio file 'synth --script' wrote "
                            "(its take folder sits beside it) or the NAME.wav.take folder.")
    data = _read_manifest(folder, MANIFEST, previous=False)
    if _format(data) == FIRST_FORMAT_NAME:
        return load_v1(folder, _read_manifest(folder, PREVIOUS_MANIFEST, previous=True) if previous else data)
    if _format(data) != FORMAT_NAME:
        raise TakeFileError(f"'{folder.name}' is not a Cosy Studio script take (its {MANIFEST} is of another "
                            "format); give the audio file 'synth --script' wrote, or its NAME.wav.take folder.")
    try:
        take = read_take(folder)
    except UNREADABLE as e:
        raise damaged(folder, f"{MANIFEST}: {str(e) or type(e).__name__}") from e
    if take is None or take.state is not TakeState.DONE or take.recovered:
        raise damaged(folder, "the take was not rendered to the end")
    if previous:
        version = take.previous_version
        if version is None:
            raise TakeFileError(f"'{folder.name}' has no earlier state to go back to.")
        try:
            script = ScriptInfo.from_json(version["script"]) if version.get("script") is not None else None
            return _record(folder, take, script, file_name(version["audio_file"]), int(version["samples"]))
        except UNREADABLE as e:
            raise damaged(folder, f"its previous version: {str(e) or type(e).__name__}") from e
    return _record(folder, take, take.script, take.audio_file, take.samples)


def _model(folder: Path, take: Take, script: ScriptInfo) -> TakeModel:
    if not script.family:
        raise TakeFileError(f"'{folder.name}' holds a take made in the app, without copies of its voices; open it "
                            "in Cosy Studio, or render the script with 'cosycore synth --script'.")
    if script.family not in FAMILIES or script.text_reading not in TEXT_READINGS \
            or take.quality not in (*QUALITY_CHOICES, "custom"):
        raise damaged(folder, "its model family, quality or text reading is not one this version knows")
    return TakeModel(script.family, script.model_name, take.quality, script.text_reading)


def _cast(folder: Path, script: ScriptInfo, family: str, stored: list[tuple[object, Path, str]]) -> Cast:
    return read_cast(folder, ((e.name, e.file, e.sha256, e.instruction or None) for e in script.cast),
                     VOICE_FILE_RE, family, stored)


def _is_audio_name(name: str) -> bool:
    try:
        file_name(name)
    except ValueError:
        return False
    return True


def _samples(folder: Path, name: str, count: int) -> np.ndarray:
    """A raw float32 file of the take, memory-mapped, checked to hold ``count`` finite samples."""
    if not _is_audio_name(name):
        raise damaged(folder, f"the audio file {name!r} is not a name this format uses")
    path = inside_file(folder, name, re.compile(re.escape(name)), "audio")
    if path.stat().st_size < 4 * count:
        raise damaged(folder, f"{name} holds fewer samples than the take records ({count:,})")
    if count == 0:
        return np.zeros(0, dtype=np.float32)
    audio = np.memmap(path, dtype="<f4", mode="r", shape=(count,))
    for start in range(0, count, BLOCK):
        if not np.isfinite(audio[start:start + BLOCK]).all():
            raise damaged(folder, f"{name} holds NaN or infinite samples")
    return audio


def _record(folder: Path, take: Take, script: ScriptInfo | None, audio_file: str, samples: int) -> TakeRecord:
    if script is None:
        raise TakeFileError(f"'{folder.name}' holds a take that is not a script's; 'regenerate' and 'take' work on "
                            "the take folder 'synth --script' saves.")
    model = _model(folder, take, script)
    stored: list[tuple[object, Path, str]] = []
    cast = _cast(folder, script, model.family, stored)
    audio = _samples(folder, audio_file, samples)
    sr = take.sample_rate
    segments: list[Segment] = []
    raw_files: list[tuple[np.ndarray, Path]] = []
    if not 0 < len(script.segments) <= MAX_SEGMENTS:
        raise damaged(folder, "its number of segments is out of range")
    try:
        for seg in script.segments:
            if not 0 <= seg.start <= seg.end <= samples:
                raise ValueError(f"a segment lies outside the audio ({seg.start:,} to {seg.end:,})")
            if seg.kind != "line":
                segments.append(Segment(seg.kind, np.broadcast_to(np.zeros(1, dtype=np.float32), (seg.length,))))  # type: ignore[arg-type]
                continue
            info = script.line(seg.line_index if seg.line_index is not None else -1)
            if info.mode not in MODES or (info.mode == "instruct") != bool(info.instruction) \
                    or not 0 <= info.seed < SEED_LIMIT:
                raise ValueError(f"line {info.line}: its mode, instruction or seed is not one a take can hold (an "
                                 "instruction goes with instruct mode, and instruct mode needs one)")
            member = cast.get(info.speaker)
            if member is None:
                raise ValueError(f"line {info.line} names {info.speaker!r}, who is not in the cast")
            if seg.raw_file:
                own = _samples(folder, seg.raw_file, seg.length)
                raw_files.append((own, folder / seg.raw_file))
            else:
                own = audio[seg.start:seg.end]
            line = SpeechLine(info.line, info.speaker, info.text, info.written_instruction or None)
            plan = LinePlan(info.index, line, member, info.mode, info.instruction or None,  # type: ignore[arg-type]
                            info.spoken or info.text)
            segments.append(Segment("line", own, plan, info.seed, seg.spliced))
        r = script.render
        settings = RenderSettings(line_gap=r.line_gap, paragraph_pause=r.paragraph_pause, seed=script.base_seed,
                                  speed=r.speed, stream=r.stream, crossfade=r.crossfade, language=r.language,
                                  text_frontend=r.text_frontend, min_tokens=r.min_tokens, max_tokens=r.max_tokens)
    except (KeyError, ValueError, InputError) as e:
        raise damaged(folder, str(e)) from e
    scripted = ScriptTake(segments, sr, settings, script.base_seed)
    if scripted.num_samples != samples:
        raise damaged(folder, f"its segments add up to {scripted.num_samples:,} samples, its audio holds {samples:,}")
    created = datetime.fromtimestamp(take.created, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    record = TakeRecord(scripted, cast, model, script.text, script.script_name, parse_outputs(script.outputs, folder),
                        created, script.revision, folder)
    for obj, path, sha in stored:
        record.remember(obj, path, sha)
    for own, path in raw_files:
        record.remember(own, path, "")
    return record


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def _voice_files(folder: Path, record: TakeRecord) -> list[tuple[str, str]]:
    """Write (or link) the cast's voices into a new take folder."""
    voices = []
    for i, member in enumerate(record.cast):
        rel = f"{VOICES_DIR}/{i:02d}.cosyvoice"
        stored = record.stored(member.voice)
        if stored is not None:
            place_copy(stored.path, folder / rel)
            voices.append((rel, stored.sha256))
        else:
            voices.append((rel, write_new(folder / rel, encode_voice(member.voice))))
    return voices


def _line_files(folder: Path, record: TakeRecord, take: ScriptTake) -> dict[int, str]:
    """The own file of every regenerated line (segment index → name): kept where ``folder`` holds it
    already, else written under a new name."""
    files = {}
    for k, seg in enumerate(take.segments):
        if seg.plan is None or not seg.spliced:
            continue
        stored = record.stored(seg.samples)
        if stored is not None and stored.path.parent == folder and _is_audio_name(stored.path.name):
            files[k] = stored.path.name
        else:
            name = f"line-{secrets.token_hex(4)}.f32"
            write_samples(folder / name, [np.asarray(seg.samples, dtype=np.float32)])
            files[k] = name
    return files


def _script_info(record: TakeRecord, take: ScriptTake, voices: list[tuple[str, str]], line_files: dict[int, str],
                 outputs: TakeOutputs, revision: int) -> ScriptInfo:
    cast = [CastEntry(m.name, m.voice.name, m.instruction or "", rel, sha)
            for m, (rel, sha) in zip(record.cast, voices, strict=True)]
    s = take.settings
    lines, marks = [], []
    for k, ((start, length), seg) in enumerate(zip(take.layout(), take.segments, strict=True)):
        plan = seg.plan
        marks.append(SegmentMark(seg.kind, start, length, plan.index if plan is not None else None, seg.spliced,
                                 line_files.get(k, "")))
        if plan is not None:
            lines.append(LineInfo(plan.index, plan.line.line, plan.member.name, plan.member.voice.name, plan.line.text,
                                  plan.mode, plan.instruction or "", int(seg.seed or 0), plan.text,
                                  plan.line.instruction or ""))
    render = RenderValues(s.line_gap, s.paragraph_pause, s.speed, s.stream, s.crossfade, s.max_tokens, s.min_tokens,
                          s.language, s.text_frontend)
    m = record.model
    return ScriptInfo(record.script_text, "", cast, render, take.base_seed, lines, marks, m.family, m.name,
                      m.text_reading, record.script_name, outputs_json(outputs), revision)


def _take(folder: Path, record: TakeRecord, info: ScriptInfo, audio_file: str, samples: int,
          previous: dict[str, Any] | None) -> Take:
    """The take as the one format records it (its uid is the folder's name)."""
    voices = ", ".join(dict.fromkeys(m.voice.name for m in record.cast))
    created = time.time()
    with contextlib.suppress(ValueError):
        created = datetime.strptime(record.created_at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()
    take = Take.restored(uid=folder.name, number=1, text=record.script_text, mode="script", voice_name=voices,
                         sample_rate=record.take.sample_rate, state=TakeState.DONE, samples=samples,
                         seams=[mark.start for mark in info.segments[1:]], spans=[],
                         load=lambda: np.fromfile(folder / audio_file, dtype="<f4", count=samples),
                         seed=record.take.base_seed, speed=record.take.settings.speed, quality=record.model.quality,
                         model=f"{FAMILY_TITLES.get(record.model.family, record.model.family)} · {record.model.name}",
                         created=created, script=info, audio_file=audio_file, previous_version=previous)
    return take


def _write_manifest(folder: Path, take: Take) -> None:
    write_atomic(folder / MANIFEST, json.dumps(take_meta(take), ensure_ascii=False, indent=1).encode("utf-8"))


def _new_folder(record: TakeRecord, folder: Path, *, replace_existing: bool,
                previous: TakeRecord | None = None) -> None:
    """Write ``record`` as a new take folder at ``folder`` (built aside, renamed into place), with
    ``previous`` as its version before (for undo)."""
    target = NewFolder(folder, replace_existing=replace_existing)
    try:
        voices = _voice_files(target.tmp, record)
        version = None
        if previous is not None:
            name = f"audio-{secrets.token_hex(4)}.f32"
            count = write_samples(target.tmp / name, previous.take.blocks())
            info = _script_info(previous, previous.take, voices, _line_files(target.tmp, previous, previous.take),
                                previous.outputs, previous.revision)
            version = version_of(_take(folder, previous, info, name, count, None))
        count = write_samples(target.tmp / AUDIO_NAME, record.take.blocks())
        info = _script_info(record, record.take, voices, _line_files(target.tmp, record, record.take),
                            record.outputs, record.revision)
        _write_manifest(target.tmp, _take(folder, record, info, AUDIO_NAME, count, version))
    except OSError as e:
        target.abort()
        raise storage_error(folder, e) from e
    except BaseException:
        target.abort()
        raise
    target.commit()


def save_take(record: TakeRecord, folder: Path | str, *, replace_existing: bool = False) -> TakeRecord:
    """Write ``record`` as a new take folder (atomically: built aside, renamed into place). An existing
    take folder there is replaced only with ``replace_existing``; anything else there is refused.
    Returns the record as loaded from the new folder."""
    folder = Path(folder)
    _new_folder(record, folder, replace_existing=replace_existing)
    return load_take(folder)


def first_format(folder: Path) -> bool:
    """Whether ``folder`` is a take folder of the first format (``cosy-studio-script-take``)."""
    try:
        return _format(_read_manifest(folder, MANIFEST, previous=False)) == FIRST_FORMAT_NAME
    except TakeFileError:
        return False


def _current_revision(folder: Path) -> int:
    try:
        take = read_take(folder)
    except UNREADABLE:
        return -1
    return take.script.revision if take is not None and take.script is not None else -1


def update_take(record: TakeRecord, take: ScriptTake, outputs: TakeOutputs) -> TakeRecord:
    """Replace the take in ``record``'s own folder by ``take`` (a regeneration of it): the new audio and
    the regenerated line are written under new names, then ``take.json`` names them, with the state
    before kept as the previous version. Returns the record as loaded again."""
    folder = record.folder
    if folder is None:
        raise InputError("the take was not loaded from a take folder; save it with save_take first.")
    new = TakeRecord(take, record.cast, record.model, record.script_text, record.script_name, outputs,
                     record.created_at, record.revision + 1, folder, dict(record._stored))
    if first_format(folder):  # written anew in the one format, the old state as its previous version
        _new_folder(new, folder, replace_existing=True, previous=record)
        return load_take(folder)
    if _current_revision(folder) != record.revision:
        raise TakeFileError(f"'{folder}' was changed by another command since it was read; run the command again.")
    current = read_take(folder)
    assert current is not None
    voices = [(e.file, e.sha256) for e in current.script.cast] if current.script is not None else []
    name = f"audio-{secrets.token_hex(4)}.f32"
    try:
        count = write_samples(folder / name, take.blocks())
        info = _script_info(new, take, voices, _line_files(folder, new, take), outputs, new.revision)
        done = _take(folder, new, info, name, count, version_of(current))
        _write_manifest(folder, done)
    except OSError as e:
        raise storage_error(folder, e) from e
    clean_versions(folder, done)
    return load_take(folder)


def undo_take(folder: Path | str, outputs: TakeOutputs | None = None) -> TakeRecord:
    """Go back to the state before the last regeneration; the current state becomes the previous one,
    so a second undo redoes. ``outputs``: the files written for the restored state (default: as the
    previous state recorded them). Returns the restored record."""
    folder = Path(folder)
    restored = load_take(folder, previous=True)  # checked before anything changes
    current = load_take(folder)
    restored.outputs = outputs if outputs is not None else restored.outputs
    restored.revision = max(restored.revision, current.revision) + 1
    if first_format(folder):
        _new_folder(restored, folder, replace_existing=True, previous=current)
        return load_take(folder)
    now = read_take(folder)
    assert now is not None and now.previous_version is not None
    version = now.previous_version
    voices = [(e.file, e.sha256) for e in now.script.cast] if now.script is not None else []
    info = _script_info(restored, restored.take, voices, _line_files(folder, restored, restored.take),
                        restored.outputs, restored.revision)
    try:
        _write_manifest(folder, _take(folder, restored, info, file_name(version["audio_file"]),
                                      int(version["samples"]), version_of(now)))
    except OSError as e:
        raise storage_error(folder, e) from e
    return load_take(folder)


class TakeWriter:
    """The take folder of a script as it is rendered (``synth --script``): each chunk's samples are
    appended to the take's audio as it comes, so memory holds one chunk; :meth:`commit` writes the
    manifest and renames the folder into place (replacing an earlier take folder of the same audio
    file). Feed it the render's chunks with :meth:`add`."""

    def __init__(self, folder: Path | str, render: ScriptRender, model: TakeModel, script_text: str,
                 script_name: str = "") -> None:
        self.folder = Path(folder)
        self.render = render
        take = ScriptTake([], render.sample_rate, render.settings, render.base_seed)
        self.record = TakeRecord(take, render.cast, model, script_text, script_name)
        self._target = NewFolder(self.folder, replace_existing=True)
        self._segments: list[Segment] = []
        self._length = 0  # samples of the segment being written
        self._samples = 0
        try:
            self._voices = _voice_files(self._target.tmp, self.record)
            self._audio = open(self._target.tmp / AUDIO_NAME, "xb")  # noqa: SIM115 (closed in commit/abort)
        except OSError as e:
            self.abort()
            raise storage_error(self.folder, e) from e

    def add(self, chunk: ScriptChunk) -> None:
        """Take one chunk of the render (in order); a segment is recorded at its last chunk."""
        k = chunk.segment
        if k != len(self._segments):
            raise ValueError(f"segment {k} came out of order (expected {len(self._segments)})")
        try:
            self._audio.write(np.ascontiguousarray(chunk.samples, dtype="<f4").tobytes())
        except OSError as e:
            self.abort()
            raise storage_error(self.folder, e) from e
        self._length += chunk.samples.shape[0]
        if not chunk.segment_final:
            return
        item = self.render.items[k]
        plan = item.plan
        # The samples are in the audio file; the segment only needs its length here.
        length = np.broadcast_to(np.zeros(1, dtype=np.float32), (self._length,))
        seed = self.render.line_seed(plan.index) if plan is not None else None
        self._segments.append(Segment(item.kind, length, plan, seed))
        self._samples += self._length
        self._length = 0

    @property
    def complete(self) -> bool:
        return len(self._segments) == len(self.render.items)

    def commit(self, outputs: TakeOutputs) -> Path:
        """Write the manifest and put the folder in place (only once every segment was added)."""
        if not self.complete:
            self.abort()
            raise InputError("the script was not rendered to the end; no take folder was saved.")
        self.record.outputs = outputs
        self.record.take = ScriptTake(self._segments, self.render.sample_rate, self.render.settings,
                                      self.render.base_seed)
        try:
            self._audio.flush()
            os.fsync(self._audio.fileno())
            self._audio.close()
            info = _script_info(self.record, self.record.take, self._voices, {}, outputs, 0)
            _write_manifest(self._target.tmp, _take(self.folder, self.record, info, AUDIO_NAME, self._samples, None))
        except OSError as e:
            self.abort()
            raise storage_error(self.folder, e) from e
        except BaseException:
            self.abort()
            raise
        self._target.commit()
        return self.folder

    def abort(self) -> None:
        audio = getattr(self, "_audio", None)
        if audio is not None:
            audio.close()
        self._target.abort()


def owned_path(folder: Path | str, owned: OwnedFile) -> Path:
    """Where a recorded output file is (its path is relative to the folder holding the take folder)."""
    return Path(folder).parent / owned.path
