"""The two ONNX models of a release folder: the speech tokenizer and the CAM++ speaker encoder.

Both are run with onnxruntime. Inputs are passed by position, as the original frontend does, but
the graph's interface (number of inputs and outputs, their ranks, element types and any fixed
sizes) is checked when the file is opened, so that a wrong or damaged file fails at load time with
a message naming it instead of failing later inside onnxruntime.

Interfaces of the released files (the names are informative only; third-party ports that address
them by name use these):

* ``speech_tokenizer_v2.onnx`` / ``speech_tokenizer_v3.onnx``: ``feats`` float32 [B, 128, T] (Whisper
  log-mel, 100 frames/s) and ``feats_length`` int32 [B] → ``indices`` (integer speech-token ids,
  25 per second, ≈ T / 4).
* ``campplus.onnx``: ``input`` float32 [B, T, 80] (mean-normalised Kaldi fbank) → ``output``
  float32 [B, 192].

Shape letters: T frames, P speech tokens.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .. import checksums
from ..errors import CheckpointError, ModelLoadError, ModelNotFoundError, SynthesisError

logger = logging.getLogger(__name__)

WHISPER_MELS = 128  # speech tokenizer input bins
FBANK_BINS = 80  # CAM++ input bins
SPEAKER_DIM = 192  # CAM++ embedding width
TOKENIZER_DOWNSAMPLE = 4  # Whisper frames (100/s) per speech token (25/s)

CPU_PROVIDER = "CPUExecutionProvider"
CUDA_PROVIDER = "CUDAExecutionProvider"

_FLOAT = "tensor(float)"
_INTEGER_TYPES = ("tensor(int32)", "tensor(int64)")

FeatureArray = np.ndarray | torch.Tensor


# --------------------------------------------------------------------------------------------
# Interface description and checks
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TensorSpec:
    """What one graph input or output must look like. ``None`` in ``dims`` means any size."""

    role: str  # what it is, for messages ("Whisper log-mel features")
    rank: int | tuple[int, ...]  # allowed rank(s)
    types: tuple[str, ...]  # allowed onnxruntime type strings, e.g. "tensor(float)"
    dims: tuple[int | None, ...] = ()  # fixed sizes to check where the graph fixes them


@dataclass(frozen=True)
class TensorInfo:
    """One input or output as onnxruntime reports it."""

    name: str
    type: str
    shape: tuple[int | str | None, ...]  # ints are fixed sizes, strings symbolic dimensions


def _info(arg: object) -> TensorInfo:
    shape = tuple(getattr(arg, "shape", None) or ())
    return TensorInfo(name=str(getattr(arg, "name", "")), type=str(getattr(arg, "type", "")), shape=shape)


def _spec_problems(kind: str, index: int, info: TensorInfo, spec: TensorSpec) -> list[str]:
    where = f"{kind} {index} ({info.name!r}, the {spec.role})"
    ranks = spec.rank if isinstance(spec.rank, tuple) else (spec.rank,)
    problems: list[str] = []
    if info.type not in spec.types:
        problems.append(f"{where} has type {info.type}, expected {' or '.join(spec.types)}")
    if len(info.shape) not in ranks:
        problems.append(f"{where} has rank {len(info.shape)}, expected {' or '.join(map(str, ranks))}")
        return problems
    for axis, want in enumerate(spec.dims):
        got = info.shape[axis] if axis < len(info.shape) else None
        if want is not None and isinstance(got, int) and got > 0 and got != want:
            problems.append(f"{where} has size {got} on axis {axis}, expected {want}")
    return problems


def check_interface(
    path: Path,
    inputs: Sequence[TensorInfo],
    outputs: Sequence[TensorInfo],
    input_specs: Sequence[TensorSpec],
    output_specs: Sequence[TensorSpec],
    what: str,
) -> None:
    """Raise :class:`ModelLoadError` naming ``path`` if the graph does not have the expected interface.

    Exactly ``len(input_specs)`` inputs are required; at least ``len(output_specs)`` outputs (only
    the leading ones are read).
    """
    problems: list[str] = []
    if len(inputs) != len(input_specs):
        problems.append(f"it has {len(inputs)} inputs, expected {len(input_specs)}")
    if len(outputs) < len(output_specs):
        problems.append(f"it has {len(outputs)} outputs, expected at least {len(output_specs)}")
    if not problems:
        for i, (info, spec) in enumerate(zip(inputs, input_specs)):
            problems += _spec_problems("input", i, info, spec)
        for i, (info, spec) in enumerate(zip(outputs, output_specs)):
            problems += _spec_problems("output", i, info, spec)
    if problems:
        raise ModelLoadError(
            f"{path} is not a {what}: " + "; ".join(problems)
            + f". Use the {path.name} file that came with the release folder."
        )


# --------------------------------------------------------------------------------------------
# Sessions
# --------------------------------------------------------------------------------------------


def choose_providers(device: str, available: Sequence[str]) -> list[str]:
    """Execution providers for ``device`` ("cpu", "cuda" or "cuda:N"), CPU last as fallback."""
    if device.startswith("cuda"):
        if CUDA_PROVIDER in available:
            return [CUDA_PROVIDER, CPU_PROVIDER]
        logger.warning("onnxruntime has no CUDA provider here (has %s); running on the CPU",
                       ", ".join(available))
    elif device != "cpu":
        logger.warning("onnxruntime cannot run on %r; running on the CPU", device)
    return [CPU_PROVIDER]


def _provider_options(providers: Sequence[str], device: str) -> list[dict[str, str]]:
    index = device.split(":", 1)[1] if device.startswith("cuda:") else "0"
    return [{"device_id": index} if p == CUDA_PROVIDER else {} for p in providers]


def open_session(path: Path, *, intra_op_threads: int, device: str):  # -> onnxruntime.InferenceSession
    """Open ``path`` with graph optimisation ORT_ENABLE_ALL; typed errors for missing or bad files."""
    import onnxruntime as ort

    if not path.exists():
        raise ModelNotFoundError(
            f"{path.name} is missing from {path.parent}. The release folder is incomplete: "
            "download the model again or copy the missing file in."
        )
    if not path.is_file():
        raise ModelNotFoundError(f"{path} is not a file; expected the {path.name} model of the release.")
    if path.stat().st_size == 0:
        raise CheckpointError(f"{path} is empty (0 bytes); the download was interrupted. Download it again.")
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = max(0, int(intra_op_threads))
    options.log_severity_level = 3  # errors only; ORT's warnings are not for end users
    providers = choose_providers(device, ort.get_available_providers())
    try:
        return ort.InferenceSession(
            str(path), sess_options=options, providers=providers,
            provider_options=_provider_options(providers, device),
        )
    except Exception as e:  # onnxruntime's error classes derive from Exception directly
        raise CheckpointError(
            f"{path} is truncated, corrupt or not an ONNX model, so onnxruntime cannot open it ({e}). "
            "Download it again."
        ) from e


class _OnnxModel:
    """An onnxruntime session plus its checked interface."""

    what = "ONNX model"
    input_specs: tuple[TensorSpec, ...] = ()
    output_specs: tuple[TensorSpec, ...] = ()

    def __init__(
        self, path: Path | str, *, intra_op_threads: int = 1, device: str | torch.device = "cpu"
    ) -> None:
        self.path = Path(path)
        self._session = open_session(self.path, intra_op_threads=intra_op_threads, device=str(device))
        self.inputs = tuple(_info(a) for a in self._session.get_inputs())
        self.outputs = tuple(_info(a) for a in self._session.get_outputs())
        check_interface(self.path, self.inputs, self.outputs, self.input_specs, self.output_specs, self.what)
        self._hash_lock = threading.Lock()
        # From the install manifest (or the checksum cache) when they know it: no read of the file.
        self._sha256: str | None = checksums.known_sha256(self.path)
        logger.info("opened %s (%s) on %s", self.path, self.what, ", ".join(self.providers))

    @property
    def providers(self) -> list[str]:
        return list(self._session.get_providers())

    @property
    def sha256_known(self) -> bool:
        """Whether :attr:`sha256` answers without reading the file."""
        return self._sha256 is not None

    @property
    def sha256(self) -> str:
        """sha256 of the model file.

        Known at load time from the install manifest or the checksum cache (see
        :mod:`cosycore.checksums`); otherwise the file is hashed here, once, on first use.
        """
        with self._hash_lock:
            if self._sha256 is None:
                self._sha256 = checksums.compute_sha256(self.path)
            return self._sha256

    def _run(self, feeds: Sequence[np.ndarray]) -> list[np.ndarray]:
        names = {info.name: array for info, array in zip(self.inputs, feeds)}
        try:
            return list(self._session.run([self.outputs[0].name], names))
        except Exception as e:  # onnxruntime's error classes derive from Exception directly
            shapes = ", ".join(str(tuple(a.shape)) for a in feeds)
            raise SynthesisError(f"{self.path.name} failed on inputs of shape {shapes}: {e}") from e

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r}, providers={self.providers})"


def _as_float32(x: FeatureArray) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        x = x.detach().to("cpu", torch.float32).numpy()
    return np.ascontiguousarray(x, dtype=np.float32)


class SpeechTokenizerONNX(_OnnxModel):
    """``speech_tokenizer_v2.onnx`` / ``speech_tokenizer_v3.onnx``: Whisper log-mel → 25 Hz speech tokens."""

    what = "speech tokenizer (Whisper log-mel [1, 128, T] and its length → speech token ids)"
    input_specs = (
        TensorSpec("Whisper log-mel features", 3, (_FLOAT,), (None, WHISPER_MELS, None)),
        TensorSpec("feature length", 1, ("tensor(int32)",)),
    )
    output_specs = (TensorSpec("speech token ids", (1, 2, 3), _INTEGER_TYPES),)

    def tokenize(self, feats: FeatureArray) -> torch.Tensor:
        """feats: Whisper log-mel [1, 128, T] → speech tokens int32 [1, P] (P ≈ T / 4)."""
        x = _as_float32(feats)
        if x.ndim != 3 or x.shape[0] != 1 or x.shape[1] != WHISPER_MELS:
            raise ValueError(f"speech tokenizer input must be [1, {WHISPER_MELS}, T], got {tuple(x.shape)}")
        length = np.array([x.shape[2]], dtype=np.int32)
        (ids,) = self._run([x, length])
        tokens = np.asarray(ids).reshape(-1).astype(np.int32)
        return torch.from_numpy(tokens)[None]  # [1, P]

    __call__ = tokenize


class SpeakerEncoderONNX(_OnnxModel):
    """``campplus.onnx``: mean-normalised Kaldi fbank → 192-dim speaker embedding."""

    what = "CAM++ speaker encoder (fbank [1, T, 80] → embedding [1, 192])"
    input_specs = (TensorSpec("mean-normalised fbank", 3, (_FLOAT,), (None, None, FBANK_BINS)),)
    output_specs = (TensorSpec("speaker embedding", (1, 2), (_FLOAT,)),)

    def __init__(
        self, path: Path | str, *, intra_op_threads: int = 1, device: str | torch.device = "cpu"
    ) -> None:
        super().__init__(path, intra_op_threads=intra_op_threads, device=device)
        last = self.outputs[0].shape[-1] if self.outputs[0].shape else None
        if isinstance(last, int) and last > 0 and last != SPEAKER_DIM:
            raise ModelLoadError(
                f"{self.path} produces embeddings of size {last}, but the flow model needs {SPEAKER_DIM}. "
                f"Use the {self.path.name} file that came with the release folder."
            )

    def embed(self, fbank: FeatureArray) -> torch.Tensor:
        """fbank: [T, 80] or [1, T, 80] (mean-normalised) → embedding float32 [1, 192]."""
        x = _as_float32(fbank)
        if x.ndim == 2:
            x = x[None]
        if x.ndim != 3 or x.shape[0] != 1 or x.shape[2] != FBANK_BINS:
            raise ValueError(f"speaker encoder input must be [1, T, {FBANK_BINS}], got {tuple(x.shape)}")
        (out,) = self._run([x])
        flat = np.asarray(out, dtype=np.float32).reshape(-1)
        if flat.size != SPEAKER_DIM:
            raise SynthesisError(
                f"{self.path.name} returned {flat.size} values instead of a {SPEAKER_DIM}-dim embedding"
            )
        return torch.from_numpy(flat.copy())[None]  # [1, 192]

    __call__ = embed
