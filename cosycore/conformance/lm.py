"""Conformance of the speech LM: compare with the original implementation's ``reference/llm.npz``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from ..config import load_model_config
from ..devices import resolve_device
from ..errors import ConformanceError
from ..lm.load import load_llm
from ..lm.sampling import greedy_sampler
from ..lm.speech_lm import SpeechLM
from .checks import CheckResult, compare
from .device import module_device, strict_float32

LLM_ATOL = 1e-4  # lm_input, hidden states, logits, finite log-probs (conformance README)
LLM_RTOL = 1e-4
_REFERENCE_ARRAYS = ("text", "prompt_text", "prompt_speech_token", "forced_tokens", "lm_input",
                     "tf_step_input", "tf_hidden_last", "tf_logits", "tf_scores", "tf_logp_of_forced",
                     "min_len_max_len", "greedy_tokens", "greedy_last_argmax")


class _RecordingGreedy:
    """Argmax sampler that remembers its last pick (the stop id, when a run ends on one)."""

    def __init__(self) -> None:
        self.last = -1

    def __call__(self, scores: Tensor, decoded: Sequence[int], generator: torch.Generator) -> int:
        self.last = greedy_sampler(scores, decoded, generator)
        return self.last


def _load_llm_reference(ref_npz: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(ref_npz) as z:
            ref = {k: z[k] for k in z.files}
    except FileNotFoundError as e:
        raise ConformanceError(f"{ref_npz} does not exist") from e
    missing = [k for k in _REFERENCE_ARRAYS if k not in ref]
    if missing:
        raise ConformanceError(f"{ref_npz} lacks the arrays {', '.join(missing)}")
    return ref


def _teacher_forced_checks(model: SpeechLM, ref: dict[str, np.ndarray], lm_input: Tensor,
                           min_len: int) -> list[CheckResult]:
    forced = ref["forced_tokens"].astype(np.int64)
    tf = model.teacher_force(lm_input, forced, min_len=min_len, eos_rule="upstream")
    rows, cols = torch.arange(len(forced)), torch.as_tensor(forced)
    logp_forced = tf.scores[rows.to(tf.scores.device), cols.to(tf.scores.device)]  # [N]
    return [
        compare("tf_step_input", tf.step_inputs, ref["tf_step_input"], LLM_ATOL, LLM_RTOL),
        compare("tf_hidden_last", tf.hidden, ref["tf_hidden_last"], LLM_ATOL, LLM_RTOL),
        compare("tf_logits", tf.logits, ref["tf_logits"], LLM_ATOL, LLM_RTOL),
        compare("tf_scores", tf.scores, ref["tf_scores"], LLM_ATOL, LLM_RTOL),
        compare("tf_logp_of_forced", logp_forced, ref["tf_logp_of_forced"], LLM_ATOL, LLM_RTOL),
    ]


def _greedy_checks(model: SpeechLM, ref: dict[str, np.ndarray]) -> list[CheckResult]:
    recorder = _RecordingGreedy()
    tokens = list(model.generate(ref["text"], ref["prompt_text"], ref["prompt_speech_token"],
                                 sampler=recorder, eos_rule="upstream"))
    return [
        compare("greedy_tokens", np.asarray(tokens, dtype=np.int64), ref["greedy_tokens"].astype(np.int64)),
        compare("greedy_last_argmax", np.asarray([recorder.last], dtype=np.int64),
                ref["greedy_last_argmax"].astype(np.int64)),
    ]


def check_llm_reference(model_dir: Path | str, ref_npz: Path | str | None = None, *,
                        model: SpeechLM | None = None, device: str | torch.device = "cpu") -> list[CheckResult]:
    """Compare every array of ``llm.npz`` with this module's output (float32, on ``device``).

    Rebuilds the LM input, runs the teacher-forced steps and the greedy decode with the
    ``"upstream"`` min-length rule (the one the reference was made with), and returns one
    :class:`~cosycore.conformance.checks.CheckResult` per array. ``ref_npz`` defaults to
    ``<model_dir>/reference/llm.npz``; pass ``model`` to reuse a loaded LM (it then runs where it
    is, whatever ``device`` says). The reference ids go to the LM's device inside the model; the
    outputs come back to the CPU in ``compare``. Greedy decoding draws nothing from a generator.
    """
    model_dir = Path(model_dir)
    ref = _load_llm_reference(Path(ref_npz) if ref_npz is not None else model_dir / "reference" / "llm.npz")
    if model is None:
        model = load_llm(load_model_config(model_dir), device=resolve_device(device))
    with strict_float32(module_device(model.speech_embedding)):
        lm_input = model.build_lm_input(ref["text"], ref["prompt_text"], ref["prompt_speech_token"])  # [1, T0, D]
        min_len, max_len = model.length_limits(int(np.asarray(ref["text"]).size))
        results = [
            compare("lm_input", lm_input[0], ref["lm_input"], LLM_ATOL, LLM_RTOL),
            compare("min_len_max_len", np.asarray([min_len, max_len], dtype=np.int64),
                    ref["min_len_max_len"].astype(np.int64)),
        ]
        results += _teacher_forced_checks(model, ref, lm_input, min_len)
        results += _greedy_checks(model, ref)
    return results
