"""The voice library: a folder of ``.cosyvoice`` files addressed by voice name
(:class:`VoiceLibrary`), safe display and file names, and where the folder is.
"""

from __future__ import annotations

import builtins
import logging
import os
import re
import threading
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path

from ..atomic_write import storage_reason
from ..errors import CosyError, InputError, StorageError
from ..paths import ensure_legacy_moved, user_data_dir
from .voice import MAX_NAME_CHARS, Voice
from .voice_file import VOICE_SUFFIX, damaged_error, load_voice, open_zip, read_header, save_voice

logger = logging.getLogger(__name__)

VOICES_DIR_ENV = "COSY_VOICES_DIR"  # overrides the library folder (CLI, app, tests)

_UNSAFE_NAME_CHARS = re.compile(r'[/\\:*?"<>|]')
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                     *(f"lpt{i}" for i in range(1, 10))}


def sanitize_voice_name(name: str) -> str:
    """A display name safe to show and store: NFC, no control or path characters, ≤ 64 chars.

    Raises :class:`InputError` if nothing is left.
    """
    text = unicodedata.normalize("NFC", str(name))
    text = "".join(" " if unicodedata.category(c).startswith("C") else c for c in text)
    text = _UNSAFE_NAME_CHARS.sub(" ", text)
    text = " ".join(text.split()).strip(" .")
    text = text[:MAX_NAME_CHARS].rstrip(" .")
    if not text:
        raise InputError(f"{name!r} cannot be used as a voice name; use letters or digits.")
    return text


def voice_file_stem(name: str) -> str:
    """A portable file name stem for a (sanitised) voice name."""
    stem = re.sub(r"[^\w\-]+", "_", name.casefold()).strip("_.") or "voice"
    if stem in _WINDOWS_RESERVED:
        stem = "_" + stem
    return stem[:MAX_NAME_CHARS]


def default_voices_dir() -> Path:
    """The voice library folder: ``$COSY_VOICES_DIR`` if set, else ``voices/`` in the user data folder
    the app and the command line share (:func:`cosycore.paths.user_data_dir`: ``$COSY_STUDIO_HOME/data``
    or the platform's ``Cosy Studio`` folder).

    The first call in a process moves voices left in the command line's old folder into it
    (:func:`cosycore.paths.ensure_legacy_moved`); otherwise nothing is created here.
    """
    override = os.environ.get(VOICES_DIR_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    ensure_legacy_moved()
    return user_data_dir() / "voices"


@dataclass(frozen=True)
class VoiceInfo:
    """A voice as listed by :class:`VoiceLibrary` (read from the header only)."""

    name: str
    path: Path
    family: str
    language: str
    transcript: str
    created_at: str
    duration: float  # seconds


@dataclass(frozen=True)
class BrokenVoice:
    """A file in the voices folder that cannot be used, and why (shown, never deleted)."""

    path: Path
    reason: str  # the InputError's message: what is wrong and what to do


@dataclass(frozen=True)
class VoiceScan:
    """What :meth:`VoiceLibrary.scan` found: the usable voices (by name) and the broken files."""

    voices: tuple[VoiceInfo, ...]
    broken: tuple[BrokenVoice, ...]


def _read_info(path: Path) -> VoiceInfo:
    try:
        with open_zip(path) as zf:
            header = read_header(zf, path)  # types, finite values and sizes checked
    except CosyError:
        raise
    except (MemoryError, RecursionError, OverflowError, ValueError, TypeError, KeyError, OSError) as e:
        raise damaged_error(path, f"{type(e).__name__}: {e}") from e
    samples = header["arrays"]["audio_24k"]["shape"][0]
    return VoiceInfo(
        name=header["name"], path=path, family=header["family"],
        language=header.get("language", ""), transcript=header.get("transcript", ""),
        created_at=header.get("created_at", ""),
        duration=samples / header.get("sample_rate", 24000),
    )


def _one_per_name(infos: builtins.list[VoiceInfo], broken: builtins.list[BrokenVoice]) -> builtins.list[VoiceInfo]:
    """Each name once: of several files carrying one name (copied in by hand), the first that loads
    is the voice; the others are added to ``broken`` with the reason, never listed as a second voice
    of that name. Only such twins are loaded here (the usual scan reads headers only); when none of
    them loads, the first stays listed and says why when it is used."""
    groups: dict[str, builtins.list[VoiceInfo]] = {}
    for info in infos:
        groups.setdefault(info.name.casefold(), []).append(info)
    kept: builtins.list[VoiceInfo] = []
    for group in groups.values():
        if len(group) == 1:
            kept.append(group[0])
            continue
        errors: dict[Path, str] = {}
        chosen: VoiceInfo | None = None
        for info in group:
            try:
                load_voice(info.path)
            except InputError as e:
                errors[info.path] = str(e)
                continue
            chosen = info
            break
        chosen = chosen or group[0]
        kept.append(chosen)
        for info in group:
            if info is chosen:
                continue
            why = errors.get(info.path, "it is usable, but the name resolves to the other file.")
            broken.append(BrokenVoice(info.path, f"a second file for the voice {info.name!r} ({chosen.path.name} "
                                                 f"is the one used): {why} Rename or remove this file."))
    return kept


class VoiceLibrary:
    """A folder of ``.cosyvoice`` files, addressed by voice name (unique, case-insensitive).

    A file that cannot be read never stops the library: :meth:`scan` reports it as broken, with
    the reason, and :meth:`list` leaves it out. Two files with the same name resolve to the first
    one that loads; the other is reported as broken (listed once, never twice).
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self._lock = threading.RLock()

    def _files(self) -> builtins.list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.glob(f"*{VOICE_SUFFIX}") if not p.is_dir())

    def scan(self) -> VoiceScan:
        """Every voice file: the readable ones sorted by name, the broken ones with their reason."""
        infos: builtins.list[VoiceInfo] = []
        broken: builtins.list[BrokenVoice] = []
        try:
            files = self._files()
        except OSError as e:  # an unreadable folder is reported like a broken file; nothing stops
            reason = f"the voices folder {self.root} cannot be read: {storage_reason(e)}."
            logger.warning("%s", reason)
            return VoiceScan((), (BrokenVoice(self.root, reason),))
        for path in files:
            try:
                infos.append(_read_info(path))
            except InputError as e:
                logger.warning("skipping %s: %s", path, e)
                broken.append(BrokenVoice(path, str(e)))
        infos.sort(key=lambda i: (i.name.casefold(), i.name, str(i.path)))
        infos = _one_per_name(infos, broken)
        return VoiceScan(tuple(infos), tuple(broken))

    def list(self) -> builtins.list[VoiceInfo]:
        """Every readable voice, sorted by name. Unreadable files are skipped with a warning."""
        return builtins.list(self.scan().voices)

    def broken(self) -> builtins.list[BrokenVoice]:
        """The files in the folder that are not usable voices, with the reason for each."""
        return builtins.list(self.scan().broken)

    def names(self) -> builtins.list[str]:
        return [info.name for info in self.list()]

    def _matches(self, name: str) -> builtins.list[VoiceInfo]:
        key = sanitize_voice_name(name).casefold()
        return [i for i in self.list() if i.name.casefold() == key]

    def _find(self, name: str) -> VoiceInfo | None:
        matches = self._matches(name)
        return matches[0] if matches else None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._find(name) is not None

    def get(self, name: str) -> Voice:
        """Load and verify the voice called ``name``.

        When several files carry the name (copied in by hand), the first that loads is used; only
        when none does is the first one's error raised.
        """
        matches = self._matches(name)
        if not matches:
            raise InputError(f"there is no saved voice called {name!r}.")
        first: InputError | None = None
        for info in matches:
            try:
                return load_voice(info.path)
            except InputError as e:
                logger.warning("voice %r in %s cannot be used: %s", info.name, info.path, e)
                first = first or e
        assert first is not None
        raise first

    def _unique_name(self, wanted: str, taken: set[str]) -> str:
        if wanted.casefold() not in taken:
            return wanted
        for i in range(2, 10_000):
            suffix = f" ({i})"
            candidate = wanted[: MAX_NAME_CHARS - len(suffix)].rstrip(" .") + suffix
            if candidate.casefold() not in taken:
                return candidate
        raise InputError(f"too many voices are called {wanted!r}; choose another name.")

    def _free_path(self, name: str, keep: Path | None = None) -> Path:
        stem = voice_file_stem(name)
        for i in range(1, 10_000):
            path = self.root / f"{stem}{'' if i == 1 else f'-{i}'}{VOICE_SUFFIX}"
            if path == keep or not path.exists():
                return path
        raise StorageError(f"no free file name for the voice {name!r} in {self.root}")

    def add(self, voice: Voice) -> VoiceInfo:
        """Store ``voice``; its name is sanitised and, if taken, suffixed " (2)", " (3)", …"""
        with self._lock:
            taken = {n.casefold() for n in self.names()}
            name = self._unique_name(sanitize_voice_name(voice.name), taken)
            stored = voice if name == voice.name else voice.renamed(name)
            path = save_voice(self._free_path(name), stored)
            return _read_info(path)

    def rename(self, old: str, new: str) -> VoiceInfo:
        """Give the voice ``old`` the name ``new`` (which must not belong to another voice)."""
        with self._lock:
            info = self._find(old)
            if info is None:
                raise InputError(f"there is no saved voice called {old!r}.")
            name = sanitize_voice_name(new)
            clash = self._find(name)
            if clash is not None and clash.path != info.path:
                raise InputError(f"a voice called {clash.name!r} already exists; choose another name.")
            voice = load_voice(info.path).renamed(name)
            target = self._free_path(name, keep=info.path)
            save_voice(target, voice)
            if target != info.path:
                try:
                    info.path.unlink()
                except OSError as e:
                    target.unlink(missing_ok=True)
                    raise StorageError(f"could not rename {info.path}: {storage_reason(e)}") from e
            return _read_info(target)

    def update(self, name: str, *, transcript: str | None = None, language: str | None = None,
               notes: str | None = None, transcript_source: str = "typed") -> VoiceInfo:
        """Change the transcript, language or notes of the voice ``name`` (None keeps a field), in place.

        A changed transcript is marked with ``transcript_source`` ("typed" unless speech recognition made it).
        """
        with self._lock:
            info = self._find(name)
            if info is None:
                raise InputError(f"there is no saved voice called {name!r}.")
            voice = load_voice(info.path)
            new_transcript = voice.transcript if transcript is None else transcript.strip()
            edited = replace(
                voice,
                transcript=new_transcript,
                transcript_source=(voice.transcript_source if new_transcript == voice.transcript
                                   else transcript_source if new_transcript else ""),
                language=voice.language if language is None else language.strip(),
                notes=voice.notes if notes is None else notes.strip(),
            )
            if edited == voice:
                return info
            save_voice(info.path, edited)
            return _read_info(info.path)

    def replace(self, voice: Voice) -> VoiceInfo:
        """Save ``voice`` over the library's voice of the same name (e.g. refreshed for another model)."""
        with self._lock:
            info = self._find(voice.name)
            if info is None:
                raise InputError(f"there is no saved voice called {voice.name!r}.")
            save_voice(info.path, voice)
            return _read_info(info.path)

    def remove(self, name: str) -> None:
        """Delete the voice called ``name``."""
        with self._lock:
            info = self._find(name)
            if info is None:
                raise InputError(f"there is no saved voice called {name!r}.")
            try:
                info.path.unlink()
            except OSError as e:
                raise StorageError(f"could not delete {info.path}: {storage_reason(e)}") from e
            logger.info("removed voice %r (%s)", info.name, info.path)
