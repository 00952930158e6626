"""A loaded release folder: the three networks and the streamed text-ids -> audio path.

:class:`CosyModel` owns weights only. Everything that belongs to one request (the KV cache, the
token buffer and hop, the vocoder caches, the random generators) is created per call, so requests
never leak state into each other and a new request always starts from the first hop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from .config import ModelConfig, load_model_config
from .devices import resolve_device
from .errors import NoLanguageModelError
from .flow import FlowSettings, load_flow
from .flow.base import FlowModel
from .lm.load import load_llm
from .lm.speech_lm import EosRule, SpeechLM
from .token2wav import FlowCacheMode, StreamSchedule, Token2WavStream, VocoderStream, token_audio
from .vocoder.hift import CausalHiFTGenerator, HiFTGenerator
from .vocoder.load import load_hift
from .vocoder.stream import CausalHiftReferenceStream, CausalHiftStream, HiftStreamV2

if TYPE_CHECKING:
    from .flow.ort_build import EstimatorGraphJob
    from .lm.ort_build import DecodeGraphJob
    from .vocoder.ort_build import BodyGraphJob

logger = logging.getLogger(__name__)

TokenIds = Sequence[int] | torch.Tensor


@dataclass(frozen=True)
class SynthesisKnobs:
    """Model-level options of one synthesis (the engine maps user requests onto these)."""

    stream: bool = True  # emit audio per hop instead of once at the end
    seed: int | None = None  # makes sampling and vocoder noise reproducible
    speed: float = 1.0  # mel time-stretch: offline as the original, streaming via cosycore.speed
    eos_rule: EosRule = "all_specials"  # see SpeechLM.generate
    n_steps: int | None = None  # flow Euler steps; None = the release's 10
    cfg_rate: float | None = None  # flow CFG; None = the release's 0.7, 0 = no unconditional pass
    exact_vocoder: bool = False  # CV3: re-vocode all mel every chunk as the original does
    flow_cache: FlowCacheMode = "off"  # streamed flow calls compute only their new frames (cosycore.flow.cache)
    flow_autocast: torch.dtype | None = None  # e.g. torch.bfloat16 for the flow estimator
    min_len: int | None = None  # override the 2 x text-token minimum (benchmarks, tests)
    max_len: int | None = None  # override the 20 x text-token maximum


def _as_row(ids: TokenIds | None, device: torch.device) -> torch.Tensor:
    if ids is None:
        return torch.zeros(1, 0, dtype=torch.int32, device=device)
    t = ids if isinstance(ids, torch.Tensor) else torch.tensor(list(ids), dtype=torch.int32)
    return t.reshape(1, -1).to(device=device, dtype=torch.int32)  # [1, L]


class CosyModel:
    """The LLM, flow and vocoder of one release, on one device. Holds no per-request state."""

    def __init__(self, cfg: ModelConfig, llm: SpeechLM | None, flow: FlowModel,
                 hift: HiFTGenerator | CausalHiFTGenerator, device: torch.device) -> None:
        self.cfg = cfg
        self._llm = llm  # None: loaded for voice conversion only (with_llm=False)
        self.flow = flow
        self.hift = hift
        self.device = device
        self.decode_graph: DecodeGraphJob | None = None  # the LM's ONNX Runtime decode graph (perf.apply_load_options)
        self.flow_graph: EstimatorGraphJob | None = None  # the flow estimator's ONNX Runtime graph (idem)
        self.vocoder_graph: BodyGraphJob | None = None  # the vocoder body's ONNX Runtime graph (idem)

    @classmethod
    def load(cls, model_dir: Path | str, device: str | torch.device = "auto",
             dtype: torch.dtype = torch.float32, *, llm_quant: str | None = None,
             fixed_flow: FlowSettings | None = None, on_step: Callable[[str], None] | None = None,
             with_llm: bool = True) -> CosyModel:
        """Load a release folder. Raises a :class:`~cosycore.errors.ModelLoadError` subclass.

        ``llm_quant`` (``"int8"`` …, CPU only; see :func:`~cosycore.lm.load.load_llm`) packs the LM to
        int8 while it loads, so its float weights never exist in memory all at once. ``fixed_flow``
        (draft mode) loads a flow that runs only these flow settings and, for the Fun-CosyVoice3 DiT,
        keeps its time conditioning as a small table instead of 0.57 GB of weights
        (:func:`~cosycore.flow.load_flow`). ``on_step`` is told "llm", "flow" and "vocoder" as each
        network begins to load (:mod:`cosycore.engine.load_steps`). ``with_llm`` False leaves the language
        model out (and "llm" untold): voice conversion runs only the flow and the vocoder, and
        :attr:`llm` then raises :class:`~cosycore.errors.NoLanguageModelError`.
        """
        step = on_step or (lambda _name: None)
        cfg = load_model_config(model_dir)
        dev = resolve_device(device)
        llm = None
        if with_llm:
            step("llm")
            llm = load_llm(cfg, device=dev, dtype=dtype, quantize=llm_quant)
        step("flow")
        flow = load_flow(cfg, device=dev, dtype=dtype, fixed=fixed_flow)
        step("vocoder")
        hift = load_hift(cfg, device=dev)
        logger.info("loaded %s from %s on %s", cfg.family, cfg.model_dir, dev)
        return cls(cfg, llm, flow, hift, dev)

    @property
    def sample_rate(self) -> int:
        return self.cfg.sample_rate

    @property
    def has_llm(self) -> bool:
        return self._llm is not None

    @property
    def llm(self) -> SpeechLM:
        """The language model; :class:`~cosycore.errors.NoLanguageModelError` if it was not loaded."""
        return self.require_llm()

    @llm.setter
    def llm(self, value: SpeechLM) -> None:  # a backend may wrap it (cosycore.lm.vllm_backend.use_vllm)
        self._llm = value

    def require_llm(self) -> SpeechLM:
        """The language model, or :class:`~cosycore.errors.NoLanguageModelError` (loaded with ``with_llm=False``)."""
        if self._llm is None:
            raise NoLanguageModelError(
                f"the {self.cfg.family} model in {self.cfg.model_dir} was loaded for voice conversion only, without "
                "its language model, so it cannot speak text: load it again with the language model "
                "(Engine(..., with_llm=True), the default)")
        return self._llm

    # -- per-request objects ------------------------------------------------------------------
    def vocoder_stream(self, generator: torch.Generator | None, *, exact: bool = False) -> VocoderStream:
        if isinstance(self.hift, CausalHiFTGenerator):
            return CausalHiftReferenceStream(self.hift) if exact else CausalHiftStream(self.hift)
        return HiftStreamV2(self.hift, generator)

    def token2wav_stream(self, prompt_token: TokenIds | None, prompt_feat: torch.Tensor | None,
                         embedding: torch.Tensor, *, knobs: SynthesisKnobs = SynthesisKnobs(),
                         generator: torch.Generator | None = None) -> Token2WavStream:
        dev = self.device
        ptok = _as_row(prompt_token, dev)
        feat = (torch.zeros(1, 0, self.cfg.flow.output_size) if prompt_feat is None else prompt_feat)
        return Token2WavStream(
            flow=self.flow,
            vocoder=self.vocoder_stream(generator, exact=knobs.exact_vocoder),
            prompt_token=ptok,
            prompt_feat=feat.to(dev, torch.float32),
            embedding=embedding.reshape(1, -1).to(dev, torch.float32),
            token_mel_ratio=self.cfg.token_mel_ratio,
            schedule=StreamSchedule(chunk=self.cfg.chunk_size, lookahead=self.cfg.flow.pre_lookahead_len),
            drop_silent_runs=self.cfg.family == "cosyvoice3",
            n_steps=knobs.n_steps,
            cfg_rate=knobs.cfg_rate,
            flow_cache=knobs.flow_cache,
            flow_autocast=knobs.flow_autocast,
            speed=knobs.speed,
            streaming=knobs.stream,
        )

    def generators(self, seed: int | None) -> tuple[torch.Generator, torch.Generator]:
        """Independent generators for LLM sampling and vocoder noise, seeded from one number.

        ``None`` draws a fresh seed from torch's global generator.
        """
        base = int(torch.randint(0, 2**62, (1,)).item()) if seed is None else int(seed)
        g_llm = torch.Generator(device=self.device).manual_seed(base)
        g_voc = torch.Generator(device=self.device).manual_seed(base ^ 0x5EED_C0DE)
        return g_llm, g_voc

    # -- synthesis ----------------------------------------------------------------------------
    @torch.inference_mode()
    def tts(
        self,
        text_ids: TokenIds,
        *,
        prompt_text_ids: TokenIds | None = None,
        llm_prompt_speech: TokenIds | None = None,
        flow_prompt_speech: TokenIds | None = None,
        prompt_feat: torch.Tensor | None = None,
        embedding: torch.Tensor,
        knobs: SynthesisKnobs = SynthesisKnobs(),
        on_token: Callable[[int], None] | None = None,
    ) -> Iterator[np.ndarray]:
        """Text ids -> speech tokens -> mel -> audio, yielded as float32 chunks at ``sample_rate``.

        With ``knobs.stream`` audio comes per hop (25+pad, 50, 100, 100… tokens); otherwise once.
        The LLM and token2wav run interleaved in this one generator: no threads, no polling.
        ``knobs.speed`` stretches the mel: offline exactly as the original, while streaming with a
        :class:`~cosycore.speed.MelStretchStream`. The decorator enters inference mode around each
        step of the generator only, so the mode never leaks into the caller between chunks.
        """
        g_llm, g_voc = self.generators(knobs.seed)
        stream = self.token2wav_stream(flow_prompt_speech, prompt_feat, embedding, knobs=knobs, generator=g_voc)
        tokens = self.llm.generate(
            text_ids,
            prompt_text_ids,
            llm_prompt_speech,
            seed=None,
            generator=g_llm,
            eos_rule=knobs.eos_rule,
            min_len=knobs.min_len,
            max_len=knobs.max_len,
        )
        if on_token is not None:
            tokens = _reporting(tokens, on_token)
        for audio, is_end in token_audio(tokens, stream):
            if audio.size or not is_end:
                yield audio


def _reporting(tokens: Iterator[int], on_token: Callable[[int], None]) -> Iterator[int]:
    for tok in tokens:
        on_token(tok)
        yield tok
