#!/usr/bin/env python3
"""Make the ``vc/`` conformance set: the ORIGINAL CosyVoice's ``inference_vc`` on the tiny folders.

This file contains no upstream code. ``generate`` imports the original (FunAudioLLM/CosyVoice at
ace7c47f41bbd303aa6bf1ea80e6f9fbd595cd40 with Matcha-TTS at dd9105b3, see
``../shared/upstream-bench/README.md`` for its venv), builds ``CosyVoice2`` / ``CosyVoice3`` from the
tiny release folders with their own constructors, and calls their own ``inference_vc`` on a source and
a target recording, not streamed, streamed, and not streamed at speed 1.5. It records what the
original computes, without changing it:

* ``frontend.frontend_vc``'s return value (source tokens, the target's prompt tokens, prompt mel and
  speaker embedding), by wrapping the bound method;
* every ``model.token2wav`` call's arguments (token count, token_offset, stream, finalize, speed) and
  every ``flow.inference`` output mel, by wrapping the bound methods;
* the speech ``inference_vc`` yields.

Interventions: where ``modelscope`` is not installed, a stand-in module whose ``snapshot_download``
refuses (the constructors import it and call it only for a model id that is not a folder);
``torchaudio.load`` as its soundfile backend read files before torchaudio 2.9 (float32 ``[C, T]``; 2.9
and later load only through torchcodec, which has no build for this torch);
``model.token_hop_len`` is set back to 25 before every call (the original doubles it per
streamed chunk and never resets it); ``torch.manual_seed(0)`` before every call (CosyVoice2's vocoder
draws its noise from the global generator, so its speech is reproducible but not comparable with another
implementation's; Fun-CosyVoice3's vocoder noise is fixed at construction).

The tiny folders of the shared set lack what ``inference_vc`` needs besides the weights: the two ONNX
frontend models and the Qwen tokenizer files (the constructors load a tokenizer; conversion never uses
it). ``prepare`` (run with the project's venv, it imports ``cosycore.testing``) writes the two
recordings and tiny ONNX models (seed 0) into the output folder, where the checker finds them too, and
a work folder per family that links the shared weights and adds those files. ``generate`` writes
``vc.npz`` and ``manifest.json``; the manifest names each family's model folder and the sha256 of the
files the conversion reads (yaml, ``flow.pt``, ``hift.pt``), so the checker finds that folder under
``COSY_CONFORMANCE_DIR`` by its contents, whatever it is called, and refuses a folder of the same
format with other weights.

The set lives in the repository (``tests/data/conformance-vc``, about 4 MB), the model folders in the
shared conformance folder. Regenerate it, from the repository root, with exactly::

    PYTHONPATH=. .venv/bin/python tools/vc_reference.py prepare \\
        --conformance ../shared/conformance --work /tmp/vc-work
    COSYVOICE_SRC=UPSTREAM UPVENV/bin/python tools/vc_reference.py generate \\
        --conformance ../shared/conformance --work /tmp/vc-work

``.venv`` is the project's venv, ``UPVENV`` the original's and ``UPSTREAM`` its source tree (with
``third_party/Matcha-TTS``): ``../shared/upstream-bench/README.md`` says how to make them (on the
project's machines: ``/work/main/.venv``, ``/work/upstream/venv``, ``/work/upstream/cosyvoice``).
``--out DIR`` writes the set elsewhere (default ``tests/data/conformance-vc``). The
recordings and ONNX models are seeded, so ``prepare`` writes the same bytes every time; ``generate``
runs with one torch thread and the seeds above, so ``vc.npz`` is the same on the same CPU, and within
the checker's tolerances on another.

``python -m cosycore.conformance`` (no folder: the shared folder and this set) checks cosycore against
it; ``python -m cosycore.conformance tests/data/conformance-vc --models ../shared/conformance`` checks
only this set.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

FAMILIES = {"cosyvoice2": ("CosyVoice2", "speech_tokenizer_v2.onnx"),
            "cosyvoice3": ("CosyVoice3", "speech_tokenizer_v3.onnx")}
SOURCE = ("source.wav", 22050, 2, 4.2)  # file, rate, channels, seconds: a resampled stereo source
PROMPT = ("prompt.wav", 48000, 1, 2.51)  # 125 mel frames for 62 tokens: the original does not align them
RUNS = (("full", False, 1.0), ("stream", True, 1.0), ("speed", False, 1.5))  # name, stream, speed
QWEN_FILES = ("config.json", "generation_config.json", "model.safetensors")
REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "tests" / "data" / "conformance-vc"


def _sha256(path: Path) -> str:  # not cosycore.checksums: ``generate`` runs in the original's venv, without cosycore
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _signal(rate: int, channels: int, seconds: float, seed: int) -> np.ndarray:
    """A gliding, modulated tone with a little noise per channel: float32 [N, C]."""
    rng = np.random.default_rng(seed)
    t = np.arange(round(seconds * rate)) / rate
    out = []
    for c in range(channels):
        f = 130 + 70 * np.sin(2 * np.pi * (0.6 + 0.2 * c) * t + rng.uniform(0, 6))
        x = 0.3 * np.sin(2 * np.pi * np.cumsum(f) / rate) * (0.6 + 0.4 * np.sin(2 * np.pi * 3.1 * t))
        out.append(x + 0.02 * rng.standard_normal(t.shape))
    return np.stack(out, axis=1).astype(np.float32)


# --------------------------------------------------------------------------------------------
# prepare (project venv)
# --------------------------------------------------------------------------------------------


def prepare(conformance: Path, work: Path, out: Path) -> None:
    import soundfile as sf

    from cosycore.testing.tiny_onnx import campplus_graph, save_onnx, speech_tokenizer_graph
    from cosycore.testing.tiny_tokenizer import write_tiny_qwen_tokenizer

    out.mkdir(parents=True, exist_ok=True)
    for seed, (name, rate, channels, seconds) in enumerate((SOURCE, PROMPT)):
        sf.write(out / name, _signal(rate, channels, seconds, seed), rate, subtype="PCM_16")  # no PEAK chunk (it has a time)
    for family, (_, tokenizer_file) in FAMILIES.items():
        onnx_dir = out / family
        onnx_dir.mkdir(exist_ok=True)
        save_onnx(speech_tokenizer_graph(0, family), onnx_dir / tokenizer_file, "cosycore-tiny-speech-tokenizer")
        save_onnx(campplus_graph(0, family), onnx_dir / "campplus.onnx", "cosycore-tiny-campplus")
        src = conformance / f"{family}-tiny"
        dst = work / f"{family}-tiny"
        if dst.exists():
            shutil.rmtree(dst)
        (dst / "CosyVoice-BlankEN").mkdir(parents=True)
        for item in (f"{family}.yaml", "llm.pt", "flow.pt", "hift.pt"):
            (dst / item).symlink_to((src / item).resolve())
        for item in QWEN_FILES:
            (dst / "CosyVoice-BlankEN" / item).symlink_to((src / "CosyVoice-BlankEN" / item).resolve())
        write_tiny_qwen_tokenizer(dst / "CosyVoice-BlankEN")
        for item in (tokenizer_file, "campplus.onnx"):
            (dst / item).symlink_to((onnx_dir / item).resolve())
    print(f"prepared {work} and the inputs in {out}")


# --------------------------------------------------------------------------------------------
# generate (the original's venv)
# --------------------------------------------------------------------------------------------


def _import_upstream() -> str:
    src = os.environ.get("COSYVOICE_SRC")
    if not src:
        sys.exit("set COSYVOICE_SRC to the upstream CosyVoice work tree (with third_party/Matcha-TTS)")
    sys.path.insert(0, src)
    sys.path.insert(0, os.path.join(src, "third_party", "Matcha-TTS"))
    try:
        import modelscope  # noqa: F401
    except ImportError:  # only its snapshot_download is imported, for model ids that are not folders
        import types

        stub = types.ModuleType("modelscope")

        def snapshot_download(model_id: str, *args: object, **kwargs: object) -> str:
            raise RuntimeError(f"{model_id} is not a folder and this harness downloads nothing")

        stub.snapshot_download = snapshot_download  # type: ignore[attr-defined]
        sys.modules["modelscope"] = stub
    import soundfile as sf
    import torch
    import torchaudio

    def load_with_soundfile(path: str, *args: object, backend: str | None = None, **kwargs: object):
        """torchaudio.load(path, backend='soundfile') of torchaudio < 2.9: float32 [C, T] and the rate."""
        data, rate = sf.read(path, dtype="float32", always_2d=True)  # [T, C]
        return torch.from_numpy(np.ascontiguousarray(data.T)), int(rate)

    torchaudio.load = load_with_soundfile  # 2.9+ loads through torchcodec only (and it has no build here)
    return src


def _record(obj, name: str, log: list) -> None:
    """Replace the bound method ``obj.name`` by one that calls it unchanged and appends (kwargs, result)."""
    original = getattr(obj, name)

    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        log.append((args, kwargs, result))
        return result

    setattr(obj, name, wrapper)


def _run_family(family: str, work: Path, out: Path, arrays: dict, manifest: dict) -> None:
    import torch
    from cosyvoice.cli import cosyvoice as cli

    cls = getattr(cli, FAMILIES[family][0])
    model = cls(str(work / f"{family}-tiny"))
    fronts: list = []
    t2w: list = []
    flows: list = []
    _record(model.frontend, "frontend_vc", fronts)
    _record(model.model, "token2wav", t2w)
    _record(model.model.flow, "inference", flows)
    info: dict = {"sample_rate": model.sample_rate, "runs": {}}
    for run, stream, speed in RUNS:
        fronts.clear(), t2w.clear(), flows.clear()
        model.model.token_hop_len = 25
        torch.manual_seed(0)
        with torch.inference_mode():
            speech = [o["tts_speech"].numpy() for o in model.inference_vc(str(out / SOURCE[0]), str(out / PROMPT[0]),
                                                                           stream=stream, speed=speed)]
        p = f"{family}.{run}"
        if run == "full":
            model_input = fronts[0][2]
            for key in ("source_speech_token", "flow_prompt_speech_token", "prompt_speech_feat", "flow_embedding"):
                arrays[f"{family}.{key}"] = model_input[key].cpu().numpy()
        arrays[f"{p}.speech"] = np.concatenate(speech, axis=1)  # [1, N]
        calls = []
        for i, ((_args, kw, _), (_fargs, _fkw, (mel, _cache))) in enumerate(zip(t2w, flows)):
            arrays[f"{p}.call{i}.mel"] = mel.float().cpu().numpy()  # the flow's output [1, 80, T]
            calls.append({"name": f"{p}.call{i}", "token_end": int(kw["token"].shape[1]),
                          "token_offset": int(kw.get("token_offset", 0)), "stream": bool(kw.get("stream", False)),
                          "finalize": bool(kw.get("finalize", False)), "speed": float(kw.get("speed", 1.0))})
        info["runs"][run] = {"stream": stream, "speed": speed, "chunk_samples": [int(s.shape[1]) for s in speech],
                             "token2wav_calls": calls}
        print(f"{family} {run}: {len(speech)} chunks, {arrays[f'{p}.speech'].shape[1]} samples, {len(calls)} calls")
    manifest["families"][family] = info


def generate(conformance: Path, work: Path, out: Path) -> None:
    src = _import_upstream()
    import torch

    torch.set_num_threads(1)
    arrays: dict = {}
    commit = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    manifest: dict = {
        "what": "voice conversion: the original's CosyVoice2/CosyVoice3.inference_vc(source, prompt, stream, speed)",
        "generator": "tools/vc_reference.py (cosycore); it imports the original and records its calls",
        "upstream": {"cosyvoice": commit or "ace7c47f41bbd303aa6bf1ea80e6f9fbd595cd40",
                     "matcha_tts": "dd9105b34bf2be2230f4aa1e4769fb586a3c824e",
                     "commit_from": "git rev-parse HEAD" if commit else
                     "the source tree is not a git work tree: the commit ../shared/upstream-bench/README.md names"},
        "torch": torch.__version__, "python": platform.python_version(), "threads": 1, "seed": 0,
        "models": {f: {"folder": f"{f}-tiny", "sha256": {
            name: _sha256(conformance / f"{f}-tiny" / name) for name in (f"{f}.yaml", "flow.pt", "hift.pt")}}
            for f in FAMILIES},
        "onnx": {f: {"speech_tokenizer": f"{f}/{FAMILIES[f][1]}", "campplus": f"{f}/campplus.onnx"} for f in FAMILIES},
        "inputs": {"source": {"file": SOURCE[0], "rate": SOURCE[1], "channels": SOURCE[2], "seconds": SOURCE[3]},
                   "prompt": {"file": PROMPT[0], "rate": PROMPT[1], "channels": PROMPT[2], "seconds": PROMPT[3]}},
        "runs": [{"name": n, "stream": s, "speed": v} for n, s, v in RUNS],
        "interventions": ["model.token_hop_len = 25 before every call", "torch.manual_seed(0) before every call"],
        "notes": [
            "{family}.{run}.call{i}.mel is flow.inference's output; token2wav keeps mel[:, :, token_offset * 2:]",
            "CosyVoice2's speech depends on the vocoder's random draws (global generator): compare its lengths",
            "the prompt is not aligned to 2 mel frames per token (frontend_vc does not align): "
            "prompt_speech_feat has one frame more than 2 x flow_prompt_speech_token",
        ],
        "families": {},
    }
    for family in FAMILIES:
        _run_family(family, work, out, arrays, manifest)
    manifest["arrays"] = {k: {"shape": list(v.shape), "dtype": str(v.dtype)} for k, v in sorted(arrays.items())}
    np.savez(out / "vc.npz", **arrays)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out / 'vc.npz'} ({len(arrays)} arrays) and manifest.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("prepare", "generate"))
    parser.add_argument("--conformance", type=Path, required=True,
                        help="folder with cosyvoice2-tiny/, cosyvoice3-tiny/")
    parser.add_argument("--work", type=Path, required=True, help="scratch folder for the runnable model folders")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="the vc set's folder (default: tests/data/conformance-vc in this repository)")
    args = parser.parse_args()
    out = args.out
    if args.step == "prepare":
        prepare(args.conformance, args.work, out)
    else:
        generate(args.conformance, args.work, out)


if __name__ == "__main__":
    main()
