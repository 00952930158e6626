"""Models on disk and on the hubs: the catalogue, downloads with resume, the models folder.

This package's namespace is the public API (``from cosycore import hub``); the modules, in the
order a download goes through them: :mod:`.catalog` (what can be downloaded), :mod:`.hubs`
(Hugging Face and ModelScope listings), :mod:`.plan`, :mod:`.transfer` (HTTP with resume and
retries), :mod:`.staging`, :mod:`.download` (the whole flow, and how it works), :mod:`.listing`
(the models folder), :mod:`.removal` and :mod:`.verification`. Besides the CosyVoice releases the catalogue lists the
speech recognizer that writes voice transcripts (kind "asr", :mod:`cosycore.asr`). :mod:`.progress`
formats what the callbacks get; :mod:`.common` holds shared names and limits (the install manifest's
format is :mod:`cosycore.manifest`, below the hub, since the loader reads it too); :mod:`.models_cli`
is ``cosycore models``.
"""

from ..manifest import MANIFEST_NAME, Manifest, ManifestFile, read_manifest
from .common import (
    HOME_ENV,
    MODELS_ENV,
    STAGING_DIR,
    default_models_dir,
)
from .download import asr_model_folder, download_model, install
from .hubs import Hub, HuggingFaceHub, ModelScopeHub, RemoteFile, RemoteSnapshot, hf_endpoint, make_hub
from .listing import (
    InstalledModel,
    PartialDownload,
    describe_folder,
    folder_kind,
    list_installed,
    list_partial,
)
from .plan import DownloadPlan, PlannedFile, check_disk_space, plan_download, plan_from_snapshot
from .progress import DownloadProgress, Phase, ProgressCallback, format_bytes, format_duration
from .removal import discard_partial, remove
from .verification import (
    SmokeTest,
    VerifyReport,
    smoke_test_for,
    synthesis_smoke_test,
    transcription_smoke_test,
    verify,
)

__all__ = [
    "HOME_ENV",
    "MANIFEST_NAME",
    "MODELS_ENV",
    "STAGING_DIR",
    "DownloadPlan",
    "DownloadProgress",
    "Hub",
    "HuggingFaceHub",
    "InstalledModel",
    "Manifest",
    "ManifestFile",
    "ModelScopeHub",
    "PartialDownload",
    "Phase",
    "PlannedFile",
    "ProgressCallback",
    "RemoteFile",
    "RemoteSnapshot",
    "SmokeTest",
    "VerifyReport",
    "asr_model_folder",
    "check_disk_space",
    "default_models_dir",
    "describe_folder",
    "discard_partial",
    "download_model",
    "folder_kind",
    "format_bytes",
    "format_duration",
    "hf_endpoint",
    "install",
    "list_installed",
    "list_partial",
    "make_hub",
    "plan_download",
    "plan_from_snapshot",
    "read_manifest",
    "remove",
    "smoke_test_for",
    "synthesis_smoke_test",
    "transcription_smoke_test",
    "verify",
]
