"""Optional vLLM backend for the speech LM's unistream decode on CUDA (the ``vllm`` extra).

Opt-in only (``PerfOptions(llm_backend="vllm")`` or :func:`use_vllm`); the default torch LM is
untouched. ``import vllm`` happens inside functions, so this module imports anywhere, and every
entry point first calls :func:`require_vllm`, which raises :class:`ModelLoadError` naming
``pip install 'cosy-studio[vllm]'`` when vLLM is missing or the device is not a CUDA GPU.

How it works:

* :func:`~cosycore.lm.hf_export.cached_export` writes the LM as a stock ``Qwen2ForCausalLM`` (bfloat16)
  under a cache folder; speech ids are export ids, so vLLM feeds sampled tokens back unchanged.
* The prompt is ``SpeechLM.build_lm_input`` (sos, text, task_id, prompt speech), sent as
  ``prompt_embeds``; the torch LM keeps its embedding tables for that, and stays whole, so
  bistream requests and everything else still run on it.
* :class:`SpeechTokenPicker`, one per request, is vLLM's per-request logits processor: it adds the
  export's logit bias, masks stop ids before ``min_len`` with the request's ``eos_rule``, draws the
  token with the same :class:`~cosycore.lm.sampling.RasSampler` (or greedy) rule and a generator seeded
  from the caller's, and leaves only that token finite, so whatever vLLM samples next is it.
  vLLM's own top-k/top-p/min-tokens are not used.

One request at a time: :class:`VllmRunner` steps the engine from a plain generator and owns no
threads. Token sequences differ from the torch backend (bfloat16 weights, a GPU kernel's sums and a
different RNG stream), so this is a speed option, never an exact mode.

Verified, on the CPU without vLLM (tests/test_hf_export.py): the export loaded by transformers
gives the LM's logits, and :class:`SpeechTokenPicker` driven by that model picks the same tokens as
:meth:`SpeechLM.generate` with the same seed. Not verified: running under vLLM itself (no GPU and
no vLLM where this was written); the calls follow the vLLM >= 0.11 documentation (V1 engine,
``AdapterLogitsProcessor``, ``enable_prompt_embeds``). Newer vLLM releases whose default model runner
uses another logits-processor interface may need ``VLLM_USE_V2_MODEL_RUNNER=0``.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor

from ..errors import InputError, ModelLoadError
from .hf_export import ExportLayout, cached_export, read_export, read_logit_bias, speech_scores
from .kv_cache import KVCache
from .sampling import RasSampler, Sampler, greedy_sampler
from .speech_lm import EosRule, SpeechLM

if TYPE_CHECKING:
    from ..model import CosyModel

logger = logging.getLogger(__name__)

INSTALL_HINT = "pip install 'cosy-studio[vllm]'"
EXTRA_KEY = "cosy"  # SamplingParams.extra_args key that carries a request's picker settings
PROCESSOR_FQN = f"{__name__}:CosyLogitsProcessor"  # resolved through the module __getattr__ below


def require_vllm(device: torch.device | str) -> None:
    """Raise :class:`ModelLoadError` unless ``device`` is a usable CUDA GPU and vLLM is installed."""
    dev = torch.device(device)
    if dev.type != "cuda":
        raise ModelLoadError(
            f"the vLLM backend ({INSTALL_HINT}) runs on CUDA GPUs only, and the model is on {dev}; "
            "load it on a CUDA device or use the default torch backend"
        )
    if not torch.cuda.is_available():
        raise ModelLoadError(f"the vLLM backend ({INSTALL_HINT}) needs a CUDA GPU, and this torch build sees none")
    if importlib.util.find_spec("vllm") is None:
        raise ModelLoadError(f"the vLLM backend needs the vllm package: {INSTALL_HINT} (on the CUDA machine)")


def default_cache_dir() -> Path:
    """Where exports for vLLM are kept: ``vllm/`` in the one cache folder of the app and the CLI
    (:func:`cosycore.paths.user_cache_dir`, ``$COSY_STUDIO_HOME/cache`` in a portable home)."""
    from ..paths import user_cache_dir

    return user_cache_dir() / "vllm"


# --------------------------------------------------------------------------------------------
# Sampling: our rules as a per-request logits processor (pure torch, testable without vLLM)
# --------------------------------------------------------------------------------------------


def picker_args(pick: Sampler, *, seed: int, min_len: int, eos_rule: EosRule) -> dict[str, Any]:
    """Plain (picklable) settings of one request's :class:`SpeechTokenPicker`."""
    if pick is greedy_sampler:
        rule: dict[str, Any] = {"kind": "greedy"}
    elif isinstance(pick, RasSampler):
        rule = {"kind": "ras", "top_p": pick.top_p, "top_k": pick.top_k, "win_size": pick.win_size,
                "tau_r": pick.tau_r}
    else:
        raise InputError(
            f"the vLLM backend samples with RAS or greedily; a custom sampler ({type(pick).__name__}) "
            "needs the torch backend"
        )
    return {"rule": rule, "seed": int(seed), "min_len": int(min_len), "eos_rule": eos_rule}


class SpeechTokenPicker:
    """Chooses one request's next speech token from export logits and forces it.

    Created per request (by vLLM through :class:`CosyLogitsProcessor`, or by a test driving the
    export directly) and owned by that request. ``output_ids`` are the tokens generated so far
    (the RAS window and the ``min_len`` count); the row ``logits`` [Vx] is overwritten with 0 at
    the chosen id and -inf elsewhere.
    """

    def __init__(self, layout: ExportLayout, bias: Tensor, args: dict[str, Any]) -> None:
        rule = args["rule"]
        self.layout = layout
        self.bias = bias  # [Vx] float32
        self.min_len = int(args["min_len"])
        self.eos_rule: EosRule = args["eos_rule"]
        self.seed = int(args["seed"])
        self.pick: Sampler = greedy_sampler if rule["kind"] == "greedy" else RasSampler(
            top_p=float(rule["top_p"]), top_k=int(rule["top_k"]), win_size=int(rule["win_size"]),
            tau_r=float(rule["tau_r"]))
        self._gen: torch.Generator | None = None

    def choose(self, output_ids: Sequence[int], logits: Tensor) -> int:
        """The next token id for this request, given its export logits row [Vx]."""
        if self._gen is None or self._gen.device != logits.device:
            self._gen = torch.Generator(device=logits.device).manual_seed(self.seed)
        if self.bias.device != logits.device:
            self.bias = self.bias.to(logits.device)
        scores = speech_scores(logits, self.bias, self.layout, ignore_eos=len(output_ids) < self.min_len,
                               eos_rule=self.eos_rule)  # [Vs]
        return self.pick(scores, output_ids, self._gen)

    def __call__(self, output_ids: list[int], logits: Tensor) -> Tensor:
        tok = self.choose(output_ids, logits)
        logits.fill_(-float("inf"))
        logits[tok] = 0.0
        return logits


@functools.cache
def _logits_processor_class() -> type:
    """vLLM's batch-level wrapper around :class:`SpeechTokenPicker` (defined on first use: it imports vLLM)."""
    from vllm.v1.sample.logits_processor import AdapterLogitsProcessor

    class CosyLogitsProcessor(AdapterLogitsProcessor):
        """Applies a :class:`SpeechTokenPicker` to every request that carries ``extra_args["cosy"]``."""

        def __init__(self, vllm_config: Any, device: torch.device, is_pin_memory: bool) -> None:
            super().__init__(vllm_config, device, is_pin_memory)
            export_dir = Path(vllm_config.model_config.model)
            self.layout = read_export(export_dir)
            self.bias = read_logit_bias(export_dir, self.layout).to(device)

        def is_argmax_invariant(self) -> bool:
            return False

        def new_req_logits_processor(self, params: Any) -> SpeechTokenPicker | None:
            args = (params.extra_args or {}).get(EXTRA_KEY)
            return None if args is None else SpeechTokenPicker(self.layout, self.bias, args)

    CosyLogitsProcessor.__module__ = __name__
    return CosyLogitsProcessor


def __getattr__(name: str) -> Any:
    # vLLM loads the processor by its qualified name, possibly in its engine process; building the
    # class here keeps ``import vllm`` out of importing this module.
    if name == "CosyLogitsProcessor":
        return _logits_processor_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------


class VllmRunner:
    """One vLLM engine over one export folder; streams the speech tokens of one request at a time.

    Owned by :class:`VllmSpeechLM`. ``gpu_memory_utilization`` is the share of GPU memory vLLM may
    take (weights plus its KV cache); the torch LM, flow and vocoder share the same GPU.
    """

    def __init__(self, export_dir: Path | str, *, gpu_memory_utilization: float = 0.3,
                 max_model_len: int = 4096) -> None:
        from vllm import EngineArgs, LLMEngine

        self.export_dir = Path(export_dir)
        self.layout = read_export(self.export_dir)
        args = EngineArgs(
            model=str(self.export_dir),
            skip_tokenizer_init=True,
            enable_prompt_embeds=True,
            dtype=self.layout.dtype,
            gpu_memory_utilization=gpu_memory_utilization,
            max_model_len=max_model_len,
            generation_config="vllm",  # ignore generation_config.json: sampling is ours
            logits_processors=[PROCESSOR_FQN],
        )
        self.engine = LLMEngine.from_engine_args(args)
        self._ids = itertools.count()
        self._busy = False
        logger.info("vLLM engine ready on %s", self.export_dir)

    def stream(self, prompt_embeds: Tensor, args: dict[str, Any], *, max_len: int) -> Iterator[int]:
        """Speech tokens for one prompt [T0, D]; stops at a stop id (not yielded) or after ``max_len``."""
        from vllm import SamplingParams

        if self._busy:
            raise InputError("the vLLM backend runs one request at a time; finish or close the previous one")
        if max_len <= 0:
            return
        params = SamplingParams(max_tokens=max_len, stop_token_ids=list(self.layout.stop_token_ids),
                                detokenize=False, extra_args={EXTRA_KEY: args})
        rid = f"cosy-{next(self._ids)}"
        self._busy = True
        self.engine.add_request(rid, {"prompt_embeds": prompt_embeds}, params)
        stops = set(self.layout.stop_token_ids)
        sent = 0
        done = False
        try:
            while not done:
                for out in self.engine.step():
                    if out.request_id != rid:
                        continue
                    ids = list(out.outputs[0].token_ids)
                    for tok in ids[sent:]:
                        if tok in stops:
                            done = True
                            break
                        yield int(tok)
                    sent = len(ids)
                    done = done or out.finished
        finally:
            if not done:
                self.engine.abort_request([rid])  # the caller stopped early (cancel)
            self._busy = False


class VllmSpeechLM(SpeechLM):
    """A :class:`SpeechLM` whose unistream decode loop runs in vLLM.

    Shares every weight tensor with the torch LM it was made from (no copy), so prompt assembly,
    bistream and the conformance helpers behave as before; only :meth:`generate` goes through
    :class:`VllmRunner`. Owned by the :class:`~cosycore.model.CosyModel` it replaces the LM of.
    """

    runner: VllmRunner

    @classmethod
    def wrap(cls, lm: SpeechLM, runner: VllmRunner) -> VllmSpeechLM:
        if lm.quantization is not None:
            raise ModelLoadError("the vLLM backend needs the float LM; it cannot be combined with int8 weights")
        with torch.device("meta"):
            new = cls(lm.cfg)
        new.load_state_dict(lm.state_dict(), strict=True, assign=True)
        new.eval().requires_grad_(False)
        new.runner = runner
        return new

    def _decode_loop(self, lm_input: Tensor, cache: KVCache, pick: Sampler, gen: torch.Generator,
                     min_len: int, max_len: int, eos_rule: EosRule) -> Iterator[int]:
        del cache  # vLLM keeps its own
        seed = int(torch.randint(0, 2**62, (1,), generator=gen, device=gen.device))
        args = picker_args(pick, seed=seed, min_len=min_len, eos_rule=eos_rule)
        embeds = lm_input[0].to(device="cpu", dtype=self.runner.layout.torch_dtype)  # [T0, D]
        yield from self.runner.stream(embeds, args, max_len=max_len)


def use_vllm(model: CosyModel, *, cache_dir: Path | str | None = None, gpu_memory_utilization: float = 0.3,
             dtype: torch.dtype = torch.bfloat16) -> VllmSpeechLM:
    """Export ``model``'s LM (cached) and route its unistream decoding through vLLM; returns the new LM."""
    require_vllm(model.device)
    if isinstance(model.llm, VllmSpeechLM):
        return model.llm
    export_dir = cached_export(model.cfg.model_dir, cache_dir or default_cache_dir(), dtype=dtype)
    runner = VllmRunner(export_dir, gpu_memory_utilization=gpu_memory_utilization)
    model.llm = VllmSpeechLM.wrap(model.llm, runner)
    return model.llm
