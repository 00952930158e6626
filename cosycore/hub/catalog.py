"""The catalogue of downloadable models, read from package data (``cosycore/data/models.json``).

The catalogue is data, not code: which releases exist, where each hub keeps them, which of their
files Cosy Studio needs and roughly how big they are. :mod:`cosycore.hub` turns an entry into
a download plan by matching these file names against the hub's own listing, whose sizes and hashes
are the ones that count; the sizes here are only shown before the hub has been asked.

A *variant* shares its base entry's repositories and files but takes some files from other names
in the repository. ``Fun-CosyVoice3-0.5B-2512 (RL)`` downloads ``llm.rl.pt`` and installs it as
``llm.pt``, because a release folder's loader always reads ``llm.pt``. The variant installs into a
folder of its own, so both language models can be kept side by side.

Entries have a *kind*: ``tts`` (a CosyVoice release, the default) or ``asr`` (the speech
recognizer that writes voice transcripts, :mod:`cosycore.asr`). An entry may pin the hub
``revision`` it was checked against and the ``sha256`` of its files: when a download comes from
that commit, every file must have that hash, also those the hub publishes only a git blob id for.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal, get_args

from ..config import Family
from ..errors import ConfigError

logger = logging.getLogger(__name__)

Source = Literal["huggingface", "modelscope"]
SOURCES: tuple[Source, ...] = get_args(Source)
SOURCE_TITLES: dict[str, str] = {"huggingface": "Hugging Face", "modelscope": "ModelScope"}
ModelKind = Literal["tts", "asr"]
AsrFamily = Literal["sensevoice"]
ModelFamily = Family | AsrFamily
KIND_FAMILIES: dict[str, tuple[str, ...]] = {"tts": get_args(Family), "asr": get_args(AsrFamily)}
ASR_MODEL_ID = "sensevoice-small"  # the recognizer the app and the CLI use (cosycore.asr.CATALOG_ID)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
CATALOG_RESOURCE = "data/models.json"
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class CatalogFile:
    """One file of a release as it is installed."""

    path: str  # path inside the installed folder, "/"-separated
    source_path: str  # path inside the hub repository (differs from ``path`` for variants)
    approx_bytes: int  # rough size, for display before the hub reports the real one
    optional: bool = False  # installed when the repository has it; its absence is not an error
    sha256: str | None = None  # content hash at the entry's pinned revision (checked only for that commit)


@dataclass(frozen=True)
class CatalogEntry:
    """One downloadable model."""

    id: str  # stable key, e.g. "cosyvoice2-0.5b"
    name: str  # as shown to people, e.g. "CosyVoice2-0.5B"
    family: ModelFamily  # the release family the folder must turn out to be
    folder: str  # name of the installed folder under the models folder
    description: str  # one sentence for the user interface
    repos: tuple[tuple[Source, str], ...]  # (source, repository id) pairs
    files: tuple[CatalogFile, ...]  # what to download, in download order
    variant_of: str | None = None  # id of the entry this one is derived from
    kind: ModelKind = "tts"  # "tts": a CosyVoice release; "asr": the speech recognizer for transcripts
    revision: str | None = None  # the hub commit the files' sha256 pins belong to (Hugging Face)

    @property
    def approx_bytes(self) -> int:
        return sum(f.approx_bytes for f in self.files)

    @property
    def sources(self) -> tuple[Source, ...]:
        return tuple(s for s, _ in self.repos)

    def repo_id(self, source: Source) -> str:
        """The repository id on ``source``; raises :class:`ConfigError` when the model is not there."""
        for s, repo in self.repos:
            if s == source:
                return repo
        raise ConfigError(
            f"{self.name} is not published on {SOURCE_TITLES.get(source, source)}; "
            f"choose one of: {', '.join(SOURCE_TITLES[s] for s in self.sources)}."
        )

    @property
    def required_files(self) -> tuple[CatalogFile, ...]:
        return tuple(f for f in self.files if not f.optional)


def _need(entry: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in entry:
        raise ConfigError(f"{where}: model {entry.get('id', '?')!r} lacks the field {key!r}")
    return entry[key]


def _parse_files(raw: Any, where: str, model_id: str) -> tuple[CatalogFile, ...]:
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where}: model {model_id!r} needs a non-empty 'files' list")
    files: list[CatalogFile] = []
    for item in raw:
        if not isinstance(item, Mapping) or not isinstance(item.get("path"), str):
            raise ConfigError(f"{where}: model {model_id!r} has a file entry without a 'path': {item!r}")
        path = item["path"]
        if path.startswith("/") or ".." in path.split("/") or "\\" in path:
            raise ConfigError(f"{where}: model {model_id!r} lists the unsafe path {path!r}")
        sha = item.get("sha256")
        if sha is not None and not (isinstance(sha, str) and _SHA256.match(sha)):
            raise ConfigError(f"{where}: model {model_id!r} gives {path} the malformed sha256 {sha!r}")
        files.append(CatalogFile(path=path, source_path=str(item.get("source", path)),
                                 approx_bytes=int(item.get("approx_bytes", 0)),
                                 optional=bool(item.get("optional", False)), sha256=sha))
    names = [f.path for f in files]
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}: model {model_id!r} lists a file twice")
    return tuple(files)


def _parse_repos(raw: Any, where: str, model_id: str) -> tuple[tuple[Source, str], ...]:
    if not isinstance(raw, Mapping) or not raw:
        raise ConfigError(f"{where}: model {model_id!r} needs a 'repos' mapping")
    unknown = [s for s in raw if s not in SOURCES]
    if unknown:
        raise ConfigError(f"{where}: model {model_id!r} names unknown sources {unknown}; known: {list(SOURCES)}")
    return tuple((s, str(raw[s])) for s in SOURCES if s in raw)


def _apply_variant(base: CatalogEntry, entry: Mapping[str, Any], where: str) -> CatalogEntry:
    model_id = str(entry["id"])
    sources = entry.get("file_sources", {})
    if not isinstance(sources, Mapping):
        raise ConfigError(f"{where}: 'file_sources' of {model_id!r} must map installed names to repository names")
    known = {f.path for f in base.files}
    missing = [p for p in sources if p not in known]
    if missing:
        raise ConfigError(f"{where}: variant {model_id!r} renames {missing}, which {base.id!r} does not install")
    files = tuple(
        CatalogFile(f.path, str(sources[f.path]), f.approx_bytes, f.optional) if f.path in sources else f
        for f in base.files
    )
    return CatalogEntry(
        id=model_id,
        name=str(_need(entry, "name", where)),
        family=base.family,
        folder=str(_need(entry, "folder", where)),
        description=str(entry.get("description", base.description)),
        repos=_parse_repos(entry["repos"], where, model_id) if "repos" in entry else base.repos,
        files=files,
        variant_of=base.id,
        kind=base.kind,
    )


def parse_catalog(data: Any, where: str = CATALOG_RESOURCE) -> tuple[CatalogEntry, ...]:
    """Check and convert the catalogue document; anything malformed is a :class:`ConfigError`."""
    if not isinstance(data, Mapping) or not isinstance(data.get("models"), list):
        raise ConfigError(f"{where} must be a JSON object with a 'models' list")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ConfigError(f"{where} has schema_version {version!r}; this Cosy Studio reads version {SCHEMA_VERSION}")
    by_id: dict[str, CatalogEntry] = {}
    for raw in data["models"]:
        if not isinstance(raw, Mapping):
            raise ConfigError(f"{where}: every model must be a JSON object, got {raw!r}")
        model_id = str(_need(raw, "id", where))
        if model_id in by_id:
            raise ConfigError(f"{where}: the model id {model_id!r} appears twice")
        base_id = raw.get("variant_of")
        if base_id is not None:
            if base_id not in by_id:
                raise ConfigError(f"{where}: {model_id!r} is a variant of {base_id!r}, which must be listed before it")
            entry = _apply_variant(by_id[base_id], raw, where)
        else:
            kind = raw.get("kind", "tts")
            if kind not in KIND_FAMILIES:
                raise ConfigError(f"{where}: model {model_id!r} has unknown kind {kind!r}; "
                                  f"known: {list(KIND_FAMILIES)}")
            family = _need(raw, "family", where)
            families = KIND_FAMILIES[kind]
            if family not in families:
                raise ConfigError(f"{where}: model {model_id!r} has unknown family {family!r}; known: {families}")
            revision = raw.get("revision")
            if revision is not None and not (isinstance(revision, str) and re.match(r"^[0-9a-f]{40}$", revision)):
                raise ConfigError(f"{where}: model {model_id!r} pins the malformed revision {revision!r}")
            entry = CatalogEntry(
                id=model_id,
                name=str(_need(raw, "name", where)),
                family=family,
                folder=str(_need(raw, "folder", where)),
                description=str(raw.get("description", "")),
                repos=_parse_repos(_need(raw, "repos", where), where, model_id),
                files=_parse_files(_need(raw, "files", where), where, model_id),
                kind=kind,
                revision=revision,
            )
        if "/" in entry.folder or "\\" in entry.folder or entry.folder.startswith("."):
            raise ConfigError(f"{where}: model {model_id!r} has the unusable folder name {entry.folder!r}")
        by_id[model_id] = entry
    folders = [e.folder for e in by_id.values()]
    if len(set(folders)) != len(folders):
        raise ConfigError(f"{where}: two models install into the same folder")
    return tuple(by_id.values())


@functools.lru_cache(maxsize=1)
def load_catalog() -> tuple[CatalogEntry, ...]:
    """The models Cosy Studio can download, in the order the catalogue lists them."""
    text = resources.files("cosycore").joinpath(CATALOG_RESOURCE).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{CATALOG_RESOURCE} is not valid JSON: {e}") from e
    return parse_catalog(data)


def get_entry(model_id: str) -> CatalogEntry:
    """The catalogue entry ``model_id``; an unknown id is a :class:`ConfigError` listing the known ones."""
    for entry in load_catalog():
        if entry.id == model_id:
            return entry
    known = ", ".join(e.id for e in load_catalog())
    raise ConfigError(f"there is no model {model_id!r} in the catalogue; choose one of: {known}")


def entries_of_kind(kind: ModelKind) -> tuple[CatalogEntry, ...]:
    """The catalogue's entries of one kind ("tts" releases or "asr" recognizers), in catalogue order."""
    return tuple(e for e in load_catalog() if e.kind == kind)


def required_files_for(family: str) -> tuple[str, ...]:
    """Files every release folder of ``family`` must hold (the union over its catalogue entries)."""
    paths: dict[str, None] = {}
    for entry in load_catalog():
        if entry.family == family:
            paths.update((f.path, None) for f in entry.required_files)
    return tuple(paths)
