"""The models folder: install manifests, installed and partial downloads, removal."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..config import detect_family
from ..errors import (
    IntegrityError,
    ModelLoadError,
)
from ..manifest import read_manifest
from .catalog import ModelFamily, ModelKind
from .common import STAGING_DIR, default_models_dir, folder_bytes

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class InstalledModel:
    """A model folder on disk: one Cosy Studio installed, or one the user brought."""

    folder: Path
    name: str  # catalogue name, or the folder name
    family: ModelFamily  # "cosyvoice2" / "cosyvoice3", or "sensevoice" for the speech recognizer
    size_bytes: int  # everything in the folder
    model_id: str | None = None  # catalogue id, when installed by Cosy Studio
    source: str | None = None  # "huggingface" or "modelscope", when installed by Cosy Studio
    revision: str | None = None  # hub commit it was installed from
    managed: bool = False  # has a manifest (installed by Cosy Studio), so verify can check hashes
    unverified: tuple[str, ...] = ()  # files the hub published no hash for: installed, never verified
    kind: ModelKind = "tts"  # "tts": a CosyVoice release; "asr": a SenseVoice recognizer (cosycore.asr)
    problem: str | None = None  # why its manifest could not be read (then it is listed as the user's folder)


@dataclass(frozen=True)
class PartialDownload:
    """A download that stopped before it finished; :func:`download_model` continues it."""

    model_id: str
    staging_dir: Path
    bytes_staged: int


def folder_kind(folder: Path | str) -> tuple[ModelKind, ModelFamily]:
    """What a model folder holds, from its file names: a CosyVoice release (its yaml) or a SenseVoice
    model (``model.int8.onnx``/``model.onnx``); raises the release's :class:`ModelLoadError` when neither.

    Cheap (no file is parsed beyond the yaml's name); :func:`cosycore.asr.check_model_folder` and
    :func:`cosycore.config.load_model_config` check the contents.
    """
    folder = Path(folder)
    try:
        family, _yaml = detect_family(folder)
    except ModelLoadError as tts_problem:
        from ..asr.folder import MODEL_FILES

        if folder.is_dir() and any((folder / name).is_file() for name in MODEL_FILES):
            return "asr", "sensevoice"
        raise tts_problem
    return "tts", family


def describe_folder(folder: Path | str) -> InstalledModel:
    """What a model folder is; raises a :class:`ModelLoadError` subclass when it is not one."""
    folder = Path(folder)
    kind, family = folder_kind(folder)
    problem = None
    try:
        manifest = read_manifest(folder)
    except IntegrityError as e:
        logger.warning("%s", e)
        manifest, problem = None, str(e)
    if manifest is None:
        return InstalledModel(folder, folder.name, family, folder_bytes(folder), kind=kind, problem=problem)
    return InstalledModel(folder, manifest.name, family, folder_bytes(folder), model_id=manifest.model_id,
                          source=manifest.source, revision=manifest.revision, managed=True,
                          unverified=tuple(f.path for f in manifest.files if not f.verified), kind=kind)


def list_installed(models_dir: Path | str | None = None, extra_folders: Iterable[Path | str] = (), *,
                   kind: ModelKind | None = "tts") -> tuple[InstalledModel, ...]:
    """Model folders directly inside ``models_dir`` (default :func:`default_models_dir`), then ``extra_folders``.

    Only models of ``kind`` are listed: CosyVoice releases ("tts", the default, which every model
    picker wants), speech recognizers ("asr"), or both (None). Staging, hidden and non-model
    folders are skipped; so are extra folders that no longer hold a model.
    """
    root = Path(models_dir) if models_dir is not None else default_models_dir()
    found: list[InstalledModel] = []
    seen: set[Path] = set()
    children = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    for folder in [*(c for c in children if not c.name.startswith(".")), *(Path(p) for p in extra_folders)]:
        key = folder.resolve()
        if key in seen:
            continue
        seen.add(key)
        try:
            model = describe_folder(folder)
        except ModelLoadError as e:
            logger.debug("not a model folder: %s (%s)", folder, e)
            continue
        if kind is None or model.kind == kind:
            found.append(model)
    return tuple(found)


def list_partial(models_dir: Path | str | None = None) -> tuple[PartialDownload, ...]:
    """Downloads that stopped before they finished (their staged bytes are kept for resuming)."""
    root = (Path(models_dir) if models_dir is not None else default_models_dir()) / STAGING_DIR
    if not root.is_dir():
        return ()
    return tuple(PartialDownload(d.name, d, folder_bytes(d)) for d in sorted(root.iterdir()) if d.is_dir())

