"""Typed errors raised by cosycore.

Every message names the file or value at fault and says what to do about it, so that the CLI and
the app can show it to a person as it is.
"""

from __future__ import annotations


class CosyError(Exception):
    """Base class of every error cosycore raises on purpose."""


class ModelLoadError(CosyError):
    """A release folder could not be loaded."""


class ModelNotFoundError(ModelLoadError):
    """The model folder, or a file it must contain, does not exist."""


class WrongModelFamilyError(ModelLoadError):
    """The folder holds a model family cosycore does not run (or not the one asked for)."""


class AsrModelError(ModelLoadError):
    """The speech-recognition model (SenseVoice) cannot be used: missing, incomplete or damaged."""


class AsrModelMissingError(AsrModelError, ModelNotFoundError):
    """The speech-recognition model is not installed (its folder or model file does not exist)."""


class AsrModelDamagedError(AsrModelError):
    """The speech-recognition model's files are there but unusable (bad ONNX, tokens.txt, metadata)."""


class ConfigError(ModelLoadError):
    """The release yaml or config.json is malformed or names something unknown."""


class UnknownClassError(ConfigError):
    """The yaml names a class that is not part of a known CosyVoice release."""


class ConfigMismatchError(ConfigError):
    """Two files of the release disagree (for example config.json and llm.pt)."""


class CheckpointError(ModelLoadError):
    """A ``.pt`` checkpoint is missing, truncated, unsafe or does not fit the model."""


class UnsafeCheckpointError(CheckpointError):
    """A checkpoint holds pickled objects other than tensors; it is refused, never executed."""


class StateDictMismatchError(CheckpointError):
    """A checkpoint's keys or shapes do not match the architecture given by the yaml."""


class ConformanceError(CosyError):
    """A conformance folder is malformed (not a failed comparison: that is a report)."""


class SynthesisError(CosyError):
    """A synthesis request could not be carried out."""


class InputError(SynthesisError):
    """The text, audio or request given by the user is not usable as it is."""


class AsrAudioError(InputError):
    """Audio given to the speech recognizer is empty, silent, unreadable or longer than it accepts."""


class FlowSettingsError(SynthesisError):
    """A flow call asks for steps other than the one setting the model was loaded for (a model loaded
    in draft computes its flow's time conditioning once at load and keeps no weights for others)."""


class NoLanguageModelError(SynthesisError):
    """The model was loaded without its language model (``with_llm=False``: voice conversion only, which
    never runs it), so it cannot turn text into speech tokens. Load it with the language model to speak."""


class EngineError(SynthesisError):
    """Synthesis failed while running: the model made unusable output (NaN), memory ran out, or an
    internal step failed. The message says what to try (``models verify``, Draft quality, shorter text)."""


class StorageError(CosyError):
    """A file could not be written (disk full, no permission, read-only folder); nothing was replaced."""


class DownloadError(CosyError):
    """A model could not be downloaded, installed, verified or removed."""


class HubUnreachableError(DownloadError):
    """The model hub (or mirror) could not be reached: no network, a wrong endpoint, a proxy or TLS problem."""


class RepoNotFoundError(DownloadError):
    """The hub answered, but it has no such repository, revision or file (or it needs a login)."""


class SourceUnavailableError(DownloadError):
    """The chosen download source needs a package that is not installed (ModelScope)."""


class InsufficientSpaceError(DownloadError):
    """There is not enough free disk space for the download, or the disk filled up while writing."""


class IntegrityError(DownloadError):
    """A file's size or hash differs from what the hub published (or what the manifest recorded)."""


class DownloadCancelledError(DownloadError):
    """The download was cancelled on request; what was downloaded so far is kept for resuming."""


class DownloadBusyError(DownloadError):
    """Another download of the same model into the same folder is running."""


class ServerError(CosyError):
    """The speech server cannot start as asked (a port in use, a non-loopback address without an API key)."""
