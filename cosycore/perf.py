"""Speed options of the engine and the load-time warm-up, in one place.

Everything here is opt-in; the defaults are the exact modes that match the original:

* ``llm_quant="int8"``: int8 linear layers in the speech LM (:mod:`cosycore.lm.quant`, CPU only);
* ``flow=DRAFT_FLOW``: fewer Euler steps and no classifier-free guidance (mel differs from exact);
  :func:`fast_flow` adds bfloat16 autocast of the estimator where the hardware does bfloat16
  natively;
* ``flow_cache="chunks"`` / ``"full"``: streamed flow calls compute only their new frames
  (:mod:`cosycore.flow.cache`; ``"chunks"`` keeps the exact final call);
* ``llm_backend="vllm"``: the LM's unistream decoding in vLLM on a CUDA GPU
  (:mod:`cosycore.lm.vllm_backend`, the ``vllm`` extra; sampling as the torch LM, tokens not identical);
* :func:`warm_up` / :func:`warm_up_frontend`: one short dummy request at load, so the first real
  request does not pay for first-use costs (paging in memory-mapped weights, building kernels,
  tables and buffers, importing and loading the text normaliser and the mel filterbanks).

The engine maps user-facing choices onto :class:`PerfOptions`; :class:`~cosycore.model.CosyModel`
and :class:`~cosycore.token2wav.Token2WavStream` take the individual knobs.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import torch

from .allocator import release_free_memory
from .config import AUTO_QUALITY, QUALITY_CHOICES, QUALITY_MODES, MelConfig
from .flow.cfm import FlowSettings
from .token2wav import FlowCacheMode, StreamSchedule, Token2WavStream, token_audio

if TYPE_CHECKING:
    from .model import CosyModel

logger = logging.getLogger(__name__)

LLMBackend = Literal["torch", "vllm"]


EXACT_FLOW = FlowSettings()
# Draft: 4 Euler steps without the unconditional pass, 5x fewer estimator evaluations than exact
# (README "Performance" has the measured speed and mel difference of 2, 3 and 4 steps).
DRAFT_FLOW = FlowSettings(n_steps=4, cfg_rate=0.0)


def bf16_is_fast(device: torch.device | str) -> bool:
    """Whether bfloat16 matrix products run natively: a CUDA GPU that supports them, or a CPU
    with AVX512-BF16 or AMX. Elsewhere bfloat16 is emulated and slower than float32."""
    dev = torch.device(device)
    if dev.type == "cuda":
        return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
    if dev.type != "cpu":
        return False
    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(bool(getattr(torch.cpu, name, lambda: False)()) for name in checks)


def fast_flow(device: torch.device | str) -> FlowSettings:
    """The draft flow, with bfloat16 estimator autocast where :func:`bf16_is_fast`."""
    return FlowSettings(DRAFT_FLOW.n_steps, DRAFT_FLOW.cfg_rate, torch.bfloat16 if bf16_is_fast(device) else None)


@dataclass(frozen=True)
class PerfOptions:
    """Engine speed options; the default is exact everywhere."""

    llm_quant: str | None = None  # None (float weights) or "int8" / "int8-dynamic" / "int8-weight-only"
    # "ort-int4": one-position decode steps through ONNX Runtime's 4-bit graph once it is built
    # (cosycore.lm.ort_build; CPU; prefill stays in torch with ``llm_quant``)
    llm_decode: str | None = None
    # CPU: the flow estimator's calls (U-Net or DiT) through ONNX Runtime (float32, the same numbers up to
    # float rounding) once its graph is built (cosycore.flow.ort_build); not with bfloat16 autocast. Draft only: with
    # fast's and exact's CFG pair and uncached final call it gained 1.06x for 1 GiB more (docs/performance.md)
    flow_graph: bool = False
    flow: FlowSettings = field(default_factory=FlowSettings)
    flow_cache: FlowCacheMode = "off"
    warm_up: bool = False  # run warm_up() after loading
    llm_backend: LLMBackend = "torch"  # "vllm": unistream LM decoding in vLLM (CUDA, the vllm extra)
    overlap: bool = True  # CPU: the LM decodes on its own thread while token2wav runs (same numbers)
    tail_threads: bool = False  # with overlap: token2wav takes every thread once the LM has finished
    # bound of one stream's flow cache (cosycore.token2wav: frozen past it); default_flow_cache_mb()
    flow_cache_mb: float = field(default_factory=lambda: default_flow_cache_mb())
    prompt_cache: bool = True  # with a flow cache: the prompt frames' states computed once per voice and setting
    # The model runs only ``flow``: the DiT's time conditioning is computed once at load and its
    # weights are dropped (cosycore.flow.time_table; the same numbers, 0.57 GB less for Fun-CosyVoice3)
    fixed_flow: bool = False

    @property
    def exact(self) -> bool:
        """The original's numbers within the conformance tolerances: float32 LM, the release's flow, and
        the flow cache at most for the streamed calls (``"chunks"``: the same frames up to float rounding,
        about 1e-6, and the exact final call)."""
        return (self.llm_quant is None and self.llm_decode is None and self.flow.exact
                and self.flow_cache in ("off", "chunks") and self.llm_backend == "torch")


FLOW_CACHE_MIN_MB = 512.0
FLOW_CACHE_MAX_MB = 8192.0


def default_flow_cache_mb(total_bytes: int | None = None) -> float:
    """The default bound of one stream's flow cache: a quarter of the machine's memory, between
    :data:`FLOW_CACHE_MIN_MB` and :data:`FLOW_CACHE_MAX_MB`.

    The cache needs about 4.6 MB per mel frame in the release's flow settings (10 steps with CFG) and
    a fifth of that in draft's, so on a 16 GB machine (4 GB) it holds about 17 s of fast or exact
    frames (prompt included) and the whole of a 30 s draft segment. Past the bound it stops growing
    and stays on (:meth:`cosycore.flow.cache.FlowCache.freeze`).
    """
    if total_bytes is None:
        try:
            total_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (AttributeError, ValueError, OSError):  # no sysconf (Windows): the floor
            total_bytes = 0
    return min(FLOW_CACHE_MAX_MB, max(FLOW_CACHE_MIN_MB, total_bytes / 4 / 1e6))




LIVE_RTF = 0.9  # a mode counts as live when its measured real-time factor is at most this (10 % margin)


def resolve_quality(quality: str, device: torch.device | str = "cpu",
                    measured: Mapping[str, float | None] | None = None) -> str:
    """The quality mode behind a choice: ``"auto"`` becomes a mode, the others stay as they are.

    Auto: ``exact`` on a GPU; on a CPU the best of exact, fast and draft whose real-time factor
    ``measured`` on this device (seconds of work per audio second, e.g. the app's running average
    per model, device and mode) is at most :data:`LIVE_RTF`, and ``draft`` when none is measured as
    live yet (README "Performance": only draft is live on an ordinary 2-core CPU).
    """
    if quality != AUTO_QUALITY:
        if quality not in QUALITY_MODES:
            raise ValueError(f"unknown quality {quality!r}; choose one of {', '.join(QUALITY_CHOICES)}")
        return quality
    if torch.device(device).type != "cpu":
        return "exact"
    for mode in QUALITY_MODES:  # best first
        rtf = (measured or {}).get(mode)
        if rtf is not None and math.isfinite(rtf) and 0 < rtf <= LIVE_RTF:
            return mode
    return "draft"


def quality_options(quality: str, device: torch.device | str = "cpu") -> PerfOptions:
    """The engine options behind each user-facing quality choice (``"auto"``: see :func:`resolve_quality`).

    * ``exact``: the original's numbers (conformance), no warm-up; the streamed flow calls reuse the
      cached states of earlier frames (``"chunks"``, float rounding only) and the exact final call;
    * ``fast``: on CPU, the int8 (dynamic) LM, whose one-position decode steps run through ONNX
      Runtime with 4-bit weights once that graph is built (:mod:`cosycore.lm.ort_build`): its logits
      differ slightly from float32, so the sampled tokens can differ; the streamed flow calls compute
      only their new frames (``"chunks"``: equal to the uncached calls up to float rounding, the final call is exact);
      a warm-up pass at load on GPUs;
    * ``draft``: ``fast`` plus the draft flow (4 Euler steps, no CFG, bfloat16 where native) with
      the cached final call too; the flow is fixed to that setting at load (``fixed_flow``: the
      Fun-CosyVoice3 DiT keeps its time conditioning as a table, 0.57 GB less memory, same numbers);
      on a CPU without native bfloat16 the estimator (the CosyVoice2 U-Net or the Fun-CosyVoice3 DiT)
      runs through ONNX Runtime's float32 graph once it is built (``flow_graph``, :mod:`cosycore.flow.ort_build`).

    The warm-up pass is left out on CPUs: it costs 8-10 s at load there and measurably saved
    nothing on the first request (README "Performance"); callers still warm the text frontend
    (:func:`warm_up_frontend`), which does pay. README "Performance" has the measured speed and
    differences of each mode.
    """
    quality = resolve_quality(quality, device)
    on_cpu = torch.device(device).type == "cpu"
    if quality == "exact":
        # the streamed flow calls from the cache (and the voice's cached prompt frames): the same frames
        # up to float rounding, the exact final call; docs/performance.md
        return PerfOptions(flow_cache="chunks")
    int8 = "int8" if on_cpu else None
    # the 4-bit decode graph where ONNX Runtime runs it: the LM's decode steps, the bound of both modes
    graph = "ort-int4" if on_cpu else None
    if quality == "fast":
        return PerfOptions(llm_quant=int8, llm_decode=graph, flow_cache="chunks", warm_up=not on_cpu)
    return PerfOptions(llm_quant=int8, llm_decode=graph, flow=fast_flow(device), flow_cache="full",
                       warm_up=not on_cpu, fixed_flow=True, flow_graph=on_cpu)


def apply_load_options(model: CosyModel, options: PerfOptions, *, frontend: bool = True) -> None:
    """Apply the load-time options to a freshly loaded model (quantize or move the LM to vLLM, then warm up).

    An LM already loaded in ``options.llm_quant`` (``CosyModel.load(..., llm_quant=...)``, which packs it
    layer by layer and so needs less memory) is kept as it is, and so is a flow loaded fixed to
    ``options.flow`` (``CosyModel.load(..., fixed_flow=...)``, which never maps those weights in).
    ``frontend`` False leaves the text and prompt-feature warm-up (:func:`warm_up_frontend`) to the
    caller, who may run it in the background (the desktop app does).
    """
    if options.llm_quant is not None and model.has_llm and model.llm.quantization != options.llm_quant:
        model.llm.quantize_int8(options.llm_quant)
    if options.fixed_flow:
        if model.flow.fixed_settings is None:
            model.flow.fix_time_steps(options.flow)
        elif model.flow.fixed_settings != options.flow:
            raise ValueError(f"the flow was loaded for {model.flow.fixed_settings}, not for {options.flow}")
    if options.llm_decode == "ort-int4" and model.device.type == "cpu" and model.has_llm:
        from .lm.ort_build import attach_decode_graph  # onnx and ONNX Runtime only when asked for

        model.decode_graph = attach_decode_graph(model.llm, model.cfg.model_dir, torch.get_num_threads())
    if options.flow_graph and model.device.type == "cpu" and options.flow.autocast is None:
        from .flow.ort_build import attach_estimator_graph  # onnx and ONNX Runtime only when asked for

        model.flow_graph = attach_estimator_graph(model.flow, model.cfg.model_dir, torch.get_num_threads())
    if options.llm_backend == "vllm" and model.has_llm:
        from .lm.vllm_backend import use_vllm  # imports vllm only when asked for

        use_vllm(model)
    if options.warm_up:
        if frontend:
            warm_up_frontend(model.cfg.mel)
        warm_up(model, flow=options.flow, flow_cache=options.flow_cache)
    release_free_memory()  # loading's temporaries (float layers before packing, weights a graph replaced)


def warm_up_frontend(mel: MelConfig | None = None) -> float:
    """Normalise a short English and Chinese sentence and, given the release's mel settings, run the
    prompt feature extractors on a little silence; returns the seconds taken.

    First uses that are slow (measured on the 2-core development machine under load): the first
    English normalisation imports the number-to-words library, whose type-checking instrumentation
    takes 10-20 s once per process; the first prompt mel builds its filterbank through librosa
    (about 2.6 s). The Chinese grammars of wetext load in well under a second.
    """
    from .frontend.features import prompt_mel, speaker_fbank, whisper_log_mel
    from .frontend.text import normalize_text
    from .frontend.text_original import warm_up as original_warm_up

    t0 = time.perf_counter()
    normalize_text("It is 10:30, and it costs $3.50.", "en")
    normalize_text("今天是2024年3月5日，温度是-3.5度。", "zh")
    original_warm_up()  # the original reading's wetext normalisers (its grammars are loaded by now)
    if mel is not None:
        prompt_mel(torch.zeros(4 * mel.win_size), mel)
        speaker_fbank(torch.zeros(16000))
        whisper_log_mel(torch.zeros(16000))
    seconds = time.perf_counter() - t0
    logger.info("frontend warm-up took %.2f s", seconds)
    return seconds


@torch.inference_mode()
def warm_up(model: CosyModel, *, flow: FlowSettings = EXACT_FLOW, flow_cache: FlowCacheMode = "off",
            tokens: int = 40) -> float:
    """Run one short dummy request through the LM (if loaded), the flow and the vocoder; returns its seconds.

    Uses made-up inputs (no prompt audio): a 16-position LM prompt and a few decode steps, then
    ``tokens`` speech tokens through a streamed token2wav pass with one streamed chunk and the
    final call, in the given flow settings. Nothing is kept: the model holds no request state.
    """
    t0 = time.perf_counter()
    dev = model.device
    cfg = model.cfg
    gen = torch.Generator(device="cpu").manual_seed(0)
    if model.has_llm:
        lm = model.llm
        d = cfg.llm.qwen.hidden_size
        cache = lm.new_cache(32, device=dev)
        h = lm.prefill((torch.randn(1, 16, d, generator=gen) * 0.02).to(dev, lm.speech_embedding.weight.dtype), cache)
        for _ in range(4):
            tok = int(lm.logits(h[0]).argmax()) % cfg.llm.speech_token_size
            h = lm.decode_one_token(lm.speech_embedding.weight[tok : tok + 1], cache)
    speech = torch.randint(0, cfg.flow.vocab_size, (tokens,), generator=gen).tolist()
    stream = Token2WavStream(
        flow=model.flow,
        vocoder=model.vocoder_stream(torch.Generator(device=dev).manual_seed(0)),
        prompt_token=torch.zeros(1, 0, dtype=torch.int32, device=dev),
        prompt_feat=torch.zeros(1, 0, cfg.flow.output_size, device=dev),
        embedding=torch.randn(1, cfg.flow.spk_embed_dim, generator=gen).to(dev),
        token_mel_ratio=cfg.token_mel_ratio,
        schedule=StreamSchedule(chunk=cfg.chunk_size, lookahead=cfg.flow.pre_lookahead_len),
        n_steps=flow.n_steps,
        cfg_rate=flow.cfg_rate,
        flow_cache=flow_cache,
        flow_autocast=flow.autocast,
    )
    for _audio, _end in token_audio(speech, stream):
        pass
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    seconds = time.perf_counter() - t0
    logger.info("warm-up pass took %.2f s", seconds)
    return seconds
