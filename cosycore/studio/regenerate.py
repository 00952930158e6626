"""Regenerating one line of a saved take, and the files written from it (``cosycore regenerate``, ``take undo``).

The files a take folder describes: its audio (``play.wav`` beside ``play.wav.take``) and, when they
were asked for, SubRip and WebVTT subtitles and one stem per speaker. Each is recorded in the take
with its sha256, and that is how a later command tells the files it wrote from files someone
changed or made: it replaces its own files, and refuses to replace any other file unless told to
(``overwrite``). Recorded files are found relative to the folder of the audio and never outside it.

Regenerating in place (the default) keeps the previous audio as ``play.prev.wav`` (a hard link
where possible) and the previous state of the take as ``take.prev.json``, so :func:`undo` can swap
them back (and a second undo redoes). Subtitles and stems written from the take before are
rewritten too, so that they match the new audio. Regenerating to another file (``out``) leaves the
take and its files as they are and writes a new take folder beside the new file.

:func:`plan_targets` runs every check before the model is loaded; :func:`write_outputs` writes a
take's files one segment at a time (:meth:`ScriptTake.blocks`), each atomically.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from .. import subtitles
from ..errors import InputError, StorageError
from .output import AtomicAudioWriter, audio_format, stem_file_name, write_text_atomic
from .render import ScriptTake
from .take_manifest import OwnedFile, TakeOutputs, TakeRecord
from .take_storage import check_new_take_folder, file_sha256, previous_path, take_audio_path, take_folder

Warn = Callable[[str], object]


def _matches(path: Path, sha256: str | None) -> bool:
    return sha256 is not None and path.is_file() and not path.is_symlink() and file_sha256(path) == sha256


def _check_target(path: Path, recorded: str | None, overwrite: bool, what: str) -> None:
    """Refuse to replace a file the take did not write (or that changed since), unless ``overwrite``."""
    if not os.path.lexists(path):
        return
    if path.is_dir() and not path.is_symlink():
        raise InputError(f"'{path}' is a folder; give the {what} a file name.")
    if overwrite or _matches(path, recorded):
        return
    raise InputError(f"'{path}' exists and is not the {what} this take wrote (it was changed since, or made by "
                     "something else); choose another name, move it away, or pass --overwrite to replace it.")


def _recorded(base: Path, owned: OwnedFile | None) -> Path | None:
    """A recorded file's path, when it is inside ``base`` (the folder of the take's audio)."""
    if owned is None:
        return None
    path = base / owned.path
    try:
        inside = path.resolve().is_relative_to(base.resolve())
    except OSError:
        return None
    return path if inside else None


def _relative(base: Path, path: Path) -> str | None:
    """``path`` relative to ``base`` when it lies inside it (then it can be recorded), else None."""
    try:
        rel = path.resolve().relative_to(base.resolve())
    except (OSError, ValueError):
        return None
    return rel.as_posix()


@dataclass(frozen=True)
class Targets:
    """Where a take's files go, checked before anything is synthesised."""

    audio: Path
    take_folder: Path
    in_place: bool  # the take's own audio and folder are replaced (previous version kept)
    keep_previous: bool  # in place, and there is an audio file to keep as NAME.prev.wav
    srt: Path | None = None
    vtt: Path | None = None
    stems: tuple[tuple[str, Path], ...] = ()  # (speaker, file)
    overwrite: bool = False


def _stem_paths(take: ScriptTake, folder: Path, suffix: str) -> tuple[tuple[str, Path], ...]:
    taken: set[str] = set()
    return tuple((name, folder / stem_file_name(name, suffix, taken)) for name in take.speakers())


def plan_targets(record: TakeRecord, *, out: Path | None = None, srt: Path | bool | None = None,
                 vtt: Path | bool | None = None, stems: Path | bool | None = None, overwrite: bool = False,
                 warn: Warn = lambda _: None) -> Targets:
    """Decide (and check) where the regenerated take's files go.

    ``out``: another audio file (None: the take's own, in place). ``srt``/``vtt``/``stems``: a path, True
    for the default (the recorded file, else the audio's name with .srt/.vtt), or None. In place, the
    subtitles and stems the take wrote before are rewritten without being asked, when they are still
    as it wrote them (else ``warn`` says they were left alone)."""
    assert record.folder is not None
    own_audio = take_audio_path(record.folder)
    base = own_audio.parent
    outputs = record.outputs
    in_place = out is None or Path(out).resolve() == own_audio.resolve()
    audio = own_audio if in_place else Path(out)  # type: ignore[arg-type]
    audio_format(audio)
    if in_place:
        _check_target(audio, outputs.audio_sha256, overwrite, "audio")
        keep = audio.is_file()
        if keep:
            _check_target(previous_path(audio), outputs.previous_sha256, overwrite, "previous version of the audio")
        folder = record.folder
    else:
        _check_target(audio, None, overwrite, "audio")
        folder = take_folder(audio)
        check_new_take_folder(folder, replace_existing=overwrite)
        keep = False

    def subtitle(asked: Path | bool | None, owned: OwnedFile | None, suffix: str) -> Path | None:
        known = _recorded(base, owned) if in_place else None
        if asked is None or asked is False:
            if known is None:
                return None
            if _matches(known, owned.sha256 if owned else None):
                return known
            warn(f"{known} was changed since the take wrote it; it is left as it is (pass --{suffix[1:]} "
                 f"{known.name} --overwrite to rewrite it).")
            return None
        path = (known or audio.with_suffix(suffix)) if asked is True else Path(asked)
        _check_target(path, owned.sha256 if owned and path == known else None, overwrite, f"{suffix[1:]} file")
        return path

    srt_path = subtitle(srt, outputs.srt, ".srt")
    vtt_path = subtitle(vtt, outputs.vtt, ".vtt")
    stem_paths: tuple[tuple[str, Path], ...] = ()
    recorded_stems = {name: _recorded(base, f) for name, f in outputs.stems} if in_place else {}
    sha_of = {name: f.sha256 for name, f in outputs.stems}
    if stems is None or stems is False:
        kept = []
        for name, path in recorded_stems.items():
            if path is None:
                continue
            if _matches(path, sha_of[name]):
                kept.append((name, path))
            else:
                warn(f"{path} was changed since the take wrote it; it is left as it is.")
        stem_paths = tuple(kept)
    else:
        if stems is True:
            dirs = {p.parent for p in recorded_stems.values() if p is not None}
            if len(dirs) != 1:
                raise InputError("the take has no stems to rewrite; give a folder: --stems DIR.")
            stems = dirs.pop()
        stem_paths = _stem_paths(record.take, Path(stems), audio.suffix)
        for name, path in stem_paths:
            same = recorded_stems.get(name)
            _check_target(path, sha_of.get(name) if same is not None and same == path else None, overwrite,
                          f"stem of {name}")
    return Targets(audio, folder, in_place, keep, srt_path, vtt_path, stem_paths, overwrite)


def _keep_previous(audio: Path, previous: Path) -> None:
    """``previous`` becomes a copy of ``audio`` (a hard link where possible), replaced atomically."""
    fd, tmp = tempfile.mkstemp(prefix=f".{previous.name}.", suffix=".part", dir=previous.parent)
    os.close(fd)
    os.unlink(tmp)
    try:
        try:
            os.link(audio, tmp)
        except OSError:
            shutil.copyfile(audio, tmp)
        os.replace(tmp, previous)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise StorageError(f"could not keep the previous audio as {previous}: {e.strerror or e}. Nothing was "
                           "replaced.") from e


_Job = tuple[AtomicAudioWriter, ScriptTake, "set[int] | None"]


def _write_audio(writers: Sequence[_Job]) -> None:
    try:
        for writer, take, keep in writers:
            for block in take.blocks(keep):
                writer.write(block)
    except BaseException:
        for writer, _, _ in writers:
            writer.abort()
        raise


def write_outputs(take: ScriptTake, targets: Targets) -> TakeOutputs:
    """Write ``take``'s audio, subtitles and stems where ``targets`` says (the previous audio kept when
    in place) and return what to record in the take."""
    sr = take.sample_rate
    writers: list[_Job] = [(AtomicAudioWriter(targets.audio, sr), take, None)]
    for name, path in targets.stems:
        keep = {k for k, s in enumerate(take.segments) if s.speaker == name}
        writers.append((AtomicAudioWriter(path, sr), take, keep))
    _write_audio(writers)
    previous_sha = None
    if targets.keep_previous and targets.audio.is_file():
        previous = previous_path(targets.audio)
        try:
            _keep_previous(targets.audio, previous)
        except BaseException:
            for writer, _, _ in writers:
                writer.abort()
            raise
        previous_sha = file_sha256(previous)
    for writer, _, _ in writers:
        writer.commit()
    cues = take.cues()
    if targets.srt is not None:
        write_text_atomic(targets.srt, subtitles.srt(cues))
    if targets.vtt is not None:
        write_text_atomic(targets.vtt, subtitles.vtt(cues))
    return recorded_outputs(targets, previous_sha)


def recorded_outputs(targets: Targets, previous_sha: str | None) -> TakeOutputs:
    """What a take records of the files in ``targets`` (as they are now on disk)."""
    base = targets.audio.parent

    def owned(path: Path | None) -> OwnedFile | None:
        if path is None or not path.is_file():
            return None
        rel = _relative(base, path)
        return OwnedFile(rel, file_sha256(path)) if rel is not None else None

    stems = tuple((name, f) for name, path in targets.stems if (f := owned(path)) is not None)
    return TakeOutputs(file_sha256(targets.audio), previous_sha, owned(targets.srt), owned(targets.vtt), stems)


def undo(record: TakeRecord, previous: TakeRecord, *, overwrite: bool = False,
         warn: Warn = lambda _: None) -> TakeOutputs:
    """Swap a take's audio with its previous version (``NAME.prev.wav``) and rewrite its subtitles and
    stems from ``previous`` (the take's state before the last regeneration). Returns what the restored
    take records. The take folder itself is switched by :func:`~cosycore.studio.take_file.undo_take`."""
    assert record.folder is not None
    audio = take_audio_path(record.folder)
    prev = previous_path(audio)
    outputs = record.outputs
    if not _matches(prev, outputs.previous_sha256):
        raise InputError(f"{prev.name} is missing or was changed since the take kept it; the audio of the earlier "
                         "state is gone, so it cannot be restored.")
    _check_target(audio, outputs.audio_sha256, overwrite, "audio")
    targets = plan_targets(replace(record, take=previous.take), overwrite=overwrite, warn=warn)
    fd, tmp = tempfile.mkstemp(prefix=f".{audio.name}.", suffix=".part", dir=audio.parent)
    os.close(fd)
    try:
        if audio.is_file():
            os.replace(audio, tmp)  # the current audio, kept aside
            os.replace(prev, audio)
            os.replace(tmp, prev)
            previous_sha = file_sha256(prev)
        else:
            os.unlink(tmp)
            os.replace(prev, audio)
            previous_sha = None
    except OSError as e:
        raise StorageError(f"could not swap {audio.name} and {prev.name}: {e.strerror or e}.") from e
    rewrite = replace(targets, keep_previous=False)
    cues = previous.take.cues()
    if rewrite.srt is not None:
        write_text_atomic(rewrite.srt, subtitles.srt(cues))
    if rewrite.vtt is not None:
        write_text_atomic(rewrite.vtt, subtitles.vtt(cues))
    if rewrite.stems:
        sr = previous.take.sample_rate
        writers = [(AtomicAudioWriter(path, sr), previous.take,
                    {k for k, s in enumerate(previous.take.segments) if s.speaker == name})
                   for name, path in rewrite.stems]
        _write_audio(writers)
        for writer, _, _ in writers:
            writer.commit()
    return recorded_outputs(rewrite, previous_sha)
