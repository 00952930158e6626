"""Conformance of voice conversion: cosycore against the original's ``inference_vc`` (a ``vc`` set).

The set (made by ``tools/vc_reference.py``, kept in the repository as ``tests/data/conformance-vc``)
holds a source and a target recording, the tiny ONNX frontend models the original ran with, ``vc.npz``
and ``manifest.json``. The model folders are the shared tiny ones (``cosyvoice2-tiny``,
``cosyvoice3-tiny``), found under ``COSY_CONFORMANCE_DIR`` (default ``../shared/conformance`` beside
the checkout) by the sha256 of the files the manifest lists, so a folder of the same format with other
weights or sizes is never compared against it (:func:`find_model_folder`). Per family:

* ``frontend``: the source's speech tokens (exact), the target's prompt tokens (exact), prompt mel and
  speaker embedding, from the files, as :func:`cosycore.engine.convert.run.run_conversion` computes them;
* ``flow``: a token2wav stream on the original's own frontend output, per run (not streamed, streamed,
  speed 1.5): the calls must be the original's (token_end, token_offset, streaming, finalize) and the
  mel kept from each must equal its flow output from ``token_offset`` on;
* ``engine``: the whole conversion through ``run_conversion`` (the path ``Engine.convert`` takes): the
  chunk lengths must be the original's, and for Fun-CosyVoice3 the speech too (its vocoder noise is
  fixed; CosyVoice2's is drawn from a random generator, so only its lengths are comparable).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..checksums import file_sha256
from ..config import ModelConfig
from ..devices import resolve_device
from ..engine.convert import ConversionRequest, probe_source, run_conversion, source_tokens
from ..engine.convert.run import piece_stream
from ..engine.convert.source import iter_pieces
from ..engine.segments import RequestState
from ..errors import ConformanceError
from ..flow.cache import FlowCache
from ..frontend.onnx_models import SpeakerEncoderONNX, SpeechTokenizerONNX
from ..frontend.prompt import PromptFeatures, extract_prompt
from ..model import CosyModel, SynthesisKnobs
from ..perf import PerfOptions
from ..token2wav import Token2WavStream, token_audio
from .checks import CheckResult, compare
from .device import strict_float32, tensor

_FEATURE_TOL = (1e-3, 1e-4)  # log-domain features (conformance README)
_EMBED_TOL = (1e-4, 1e-4)
_MEL_TOL = (1e-3, 1e-3)  # 10 Euler steps
_SPEECH_TOL = (2e-4, 0.0)  # end to end (measured: 4e-5)


_CHECKOUT = Path(__file__).resolve().parents[2]
REPO_VC_SET = _CHECKOUT / "tests" / "data" / "conformance-vc"  # present in a checkout, not in a wheel


def shared_conformance_dir() -> Path:
    """``COSY_CONFORMANCE_DIR``, else ``../shared/conformance`` beside the checkout (as the tests read it)."""
    env = os.environ.get("COSY_CONFORMANCE_DIR")
    return Path(env) if env else _CHECKOUT.parent / "shared" / "conformance"


def is_vc_folder(d: Path) -> bool:
    return (d / "vc.npz").is_file() and (d / "manifest.json").is_file()


def _mismatch(d: Path, want: dict[str, str]) -> str | None:
    """The first listed file of ``d`` that is missing or whose sha256 differs (None: ``d`` is the model)."""
    for name, sha in want.items():  # the manifest lists the yaml first, so most folders cost one small read
        if not (d / name).is_file():
            return f"no {name}"
        if file_sha256(d / name) != sha:
            return f"{name} differs"
    return None


def find_model_folder(manifest: dict[str, Any], family: str, roots: Sequence[Path]) -> Path:
    """The folder (a root's subfolder) whose files have the sha256 values the manifest lists for ``family``.

    The folder it was made from (``models.FAMILY.folder``) is tried first, then every other subfolder
    that holds the family's yaml, whatever its name.
    """
    spec = manifest.get("models", {}).get(family)
    if not isinstance(spec, dict) or not isinstance(spec.get("sha256"), dict) or not spec["sha256"]:
        raise ConformanceError(f"the vc manifest lists no model files for {family} (made by an older "
                               "tools/vc_reference.py?): regenerate the set with it")
    want: dict[str, str] = spec["sha256"]
    first = next(iter(want))
    tried: list[str] = []
    for root in dict.fromkeys(Path(r) for r in roots):
        if not root.is_dir():
            tried.append(f"{root} (not a folder)")
            continue
        named = root / str(spec.get("folder", ""))
        others = sorted(d for d in root.iterdir() if d.is_dir() and d != named and (d / first).is_file())
        for d in ([named] if named.is_dir() else []) + others:
            why = _mismatch(d, want)
            if why is None:
                return d
            tried.append(f"{d} ({why})")
    raise ConformanceError(
        f"no folder holds the {family} model this vc set was made with ({', '.join(want)} with the sha256 "
        f"values in its manifest); looked at: {'; '.join(tried) or 'nothing'}. Point COSY_CONFORMANCE_DIR "
        "(or --models) at the conformance folder it was made from, or regenerate the set for yours with "
        "tools/vc_reference.py")


@dataclass
class _Converter:
    """The part of an engine a conversion uses (:class:`cosycore.engine.convert.run.ConverterEngine`), in exact mode."""

    cfg: ModelConfig
    model: CosyModel
    speech_tokenizer: SpeechTokenizerONNX
    speaker_encoder: SpeakerEncoderONNX
    perf: PerfOptions = field(default_factory=PerfOptions)
    threads: int = field(default_factory=torch.get_num_threads)
    last_warnings: tuple[str, ...] = ()
    cancel_count: int = 0

    def _prompt_flow_cache(self, t2w: Token2WavStream) -> FlowCache | None:
        return None  # exact mode has no flow cache


def _load(folder: Path, manifest: dict[str, Any], family: str, device: torch.device,
          models: Sequence[Path]) -> _Converter:
    onnx = manifest.get("onnx", {}).get(family)
    if not onnx:
        raise ConformanceError(f"{folder}/manifest.json names no ONNX files for {family}")
    model = CosyModel.load(find_model_folder(manifest, family, models), device=device, with_llm=False)
    return _Converter(model.cfg, model, SpeechTokenizerONNX(folder / onnx["speech_tokenizer"], device="cpu"),
                      SpeakerEncoderONNX(folder / onnx["campplus"], device="cpu"))


def _check_frontend(conv: _Converter, folder: Path, inputs: dict[str, Any], ref: Any, f: str) -> list[CheckResult]:
    source = folder / inputs["source"]["file"]
    pieces = list(iter_pieces(source, probe_source(source, None)))
    got_tokens = source_tokens(pieces[0].samples, pieces[0].sample_rate, conv.speech_tokenizer)
    prompt = extract_prompt(folder / inputs["prompt"]["file"], None, conv.cfg, conv.speech_tokenizer,
                            conv.speaker_encoder, with_checksum=False, align=False)
    return [
        compare(f"{f}.pieces", np.array([len(pieces)]), np.array([1])),
        compare(f"{f}.source_speech_token", got_tokens.numpy(), ref[f"{f}.source_speech_token"]),
        compare(f"{f}.flow_prompt_speech_token", prompt.speech_tokens.numpy(), ref[f"{f}.flow_prompt_speech_token"]),
        compare(f"{f}.prompt_speech_feat", prompt.prompt_mel.numpy(), ref[f"{f}.prompt_speech_feat"], *_FEATURE_TOL),
        compare(f"{f}.flow_embedding", prompt.embedding.numpy(), ref[f"{f}.flow_embedding"], *_EMBED_TOL),
    ]


def _reference_prompt(conv: _Converter, ref: Any, f: str, dev: torch.device) -> PromptFeatures:
    return PromptFeatures(
        speech_tokens=tensor(ref[f"{f}.flow_prompt_speech_token"], dev).to(torch.int32),  # [1, P]
        embedding=tensor(ref[f"{f}.flow_embedding"], dev),  # [1, 192]
        prompt_mel=tensor(ref[f"{f}.prompt_speech_feat"], dev),  # [1, T_p, 80], unaligned as the original's
        audio_24k=np.zeros(0, np.float32), duration=0.0, family=conv.cfg.family,
    )


def _check_flow(conv: _Converter, info: dict[str, Any], ref: Any, f: str, dev: torch.device) -> list[CheckResult]:
    """Each run's token2wav calls on the original's frontend output."""
    prompt = _reference_prompt(conv, ref, f, dev)
    tokens = [int(t) for t in ref[f"{f}.source_speech_token"].reshape(-1)]
    results = []
    for run, rec in info["runs"].items():
        knobs = SynthesisKnobs(stream=rec["stream"], seed=0, speed=rec["speed"])
        _, g_voc = conv.model.generators(0)
        t2w = piece_stream(conv, prompt, knobs, g_voc)
        t2w.record_calls = True
        for _audio, _end in token_audio(tokens, t2w):
            pass
        got = [(c.token_end, c.token_offset, c.streaming, c.finalize) for c in t2w.calls]
        want = [(c["token_end"], c["token_offset"], c["stream"], c["finalize"]) for c in rec["token2wav_calls"]]
        results.append(CheckResult(f"{f}.{run}.calls", 0.0 if got == want else 1.0, 0.0, 0.0, 0.0, got == want,
                                   note="" if got == want else f"calls {got} != the original's {want}"))
        for call, want_call in zip(t2w.calls, rec["token2wav_calls"]):
            assert call.mel is not None
            kept = ref[f"{want_call['name']}.mel"][:, :, want_call["token_offset"] * conv.cfg.token_mel_ratio :]
            results.append(compare(f"{want_call['name']}.kept_mel", call.mel.float().cpu().numpy(), kept, *_MEL_TOL))
    return results


def _check_engine(conv: _Converter, folder: Path, manifest: dict[str, Any], info: dict[str, Any], ref: Any,
                  f: str) -> list[CheckResult]:
    """The whole conversion, as Engine.convert runs it, from the two files."""
    inputs = manifest["inputs"]
    results = []
    for run, rec in info["runs"].items():
        source = folder / inputs["source"]["file"]
        req = ConversionRequest(source, prompt_audio=folder / inputs["prompt"]["file"], speed=rec["speed"],
                                stream=rec["stream"], seed=0)
        state = RequestState(conv, 0, time.perf_counter(), conv.model.sample_rate)
        chunks = [c.samples for c in run_conversion(conv, req, probe_source(source, None), state)]
        chunks = [c for c in chunks if c.size]
        results.append(compare(f"{f}.{run}.chunk_samples", np.array([c.shape[0] for c in chunks]),
                               np.array(rec["chunk_samples"])))
        if f == "cosyvoice3":
            speech = np.concatenate(chunks)[None] if chunks else np.zeros((1, 0), np.float32)
            results.append(compare(f"{f}.{run}.speech", speech, ref[f"{f}.{run}.speech"], *_SPEECH_TOL))
    return results


def _memoized_flow(conv: _Converter) -> None:
    """Give ``conv``'s flow a memory of the calls it ran. A set's runs repeat calls with the very same
    inputs (the speed run's are the full run's: speed changes the mel after the flow, as in the original;
    the whole conversion's calls are the flow check's when the frontends agree), and one call of a
    conformance folder's flow costs up to a second. The flow is deterministic, so an answer from
    memory is the number a second run would give."""
    flow = conv.model.flow
    run: Callable[..., torch.Tensor] = flow.inference
    memory: dict[str, torch.Tensor] = {}

    def inference(*args: Any, **kwargs: Any) -> torch.Tensor:
        h = hashlib.sha256(repr(sorted((k, v) for k, v in kwargs.items() if not torch.is_tensor(v))).encode())
        for value in (*args, *(v for _, v in sorted(kwargs.items()) if torch.is_tensor(v))):
            if torch.is_tensor(value):
                t = value.detach().cpu().contiguous()
                h.update(f"{t.dtype}{tuple(t.shape)}".encode() + t.numpy().tobytes())
            else:
                h.update(repr(value).encode())
        key = h.hexdigest()
        if key not in memory:
            memory[key] = run(*args, **kwargs)
        return memory[key].clone()

    setattr(flow, "inference", inference)  # noqa: B010 - an instance's method, for this check only


@torch.inference_mode()
def check_vc_reference(folder: Path, *, device: str | torch.device = "cpu",
                       models: Sequence[Path] | None = None) -> list[CheckResult]:
    """Every check of a vc set, for each family its manifest lists.

    ``models``: the folders that hold the model folders (default: :func:`shared_conformance_dir`, then
    the set's parent, where an older layout kept it as ``vc/``).
    """
    dev = resolve_device(device)
    roots = list(models) if models else [shared_conformance_dir(), folder.parent]
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    families = manifest.get("families")
    if not isinstance(families, dict) or not families:
        raise ConformanceError(f"{folder}/manifest.json lists no families")
    results: list[CheckResult] = []
    with np.load(folder / "vc.npz") as npz:
        ref = dict(npz)
    for f, info in families.items():
        conv = _load(folder, manifest, f, dev, roots)
        _memoized_flow(conv)
        with strict_float32(dev):
            results += _check_frontend(conv, folder, manifest["inputs"], ref, f)
            results += _check_flow(conv, info, ref, f, dev)
            results += _check_engine(conv, folder, manifest, info, ref, f)
    return results
