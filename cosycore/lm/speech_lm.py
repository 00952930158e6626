"""Speech language model of CosyVoice2 (``Qwen2LM``) and Fun-CosyVoice3 (``CosyVoice3LM``).

:class:`SpeechLM` owns the weights: a Qwen2 decoder written out in :mod:`.qwen2` (RMSNorm, grouped-query
attention with rotate-half RoPE, SwiGLU), the speech-token embedding and the ``llm_decoder`` head.
It owns no per-request state. Each stream creates its own preallocated :class:`KVCache` (:mod:`.kv_cache`) with
:meth:`SpeechLM.new_cache` and hands it to :meth:`SpeechLM.prefill` and
:meth:`SpeechLM.decode_one_token`, gpt-fast style: positions ``0..n`` are contiguous, keys and
values are written in place, and nothing is reallocated or concatenated while decoding.

Two decoding entry points: :meth:`SpeechLM.generate` (unistream: the whole text is known) and
:meth:`SpeechLM.generate_bistream` (text ids arrive while speech is generated, interleaved 5:15 by
a :class:`BistreamDecoder` in :mod:`.bistream`; its KV cache grows with :meth:`KVCache.reserve`).
Sampling rules are in :mod:`.sampling`, loading in :mod:`.load`.

Shape legend:
    B   batch (1 for synthesis)
    T   positions fed in this call (the whole prompt at prefill, 1 while decoding)
    S   KV-cache capacity (positions preallocated for one stream)
    P   key positions attended to (S for a static cache, filled length otherwise)
    D   model width (Qwen ``hidden_size``)
    H   query heads; K key/value heads; G = H // K query heads sharing one key/value head
    Dh  head dim
    L   decoder layers
    I   SwiGLU width
    V   speech vocabulary (6564 CosyVoice2, 6761 Fun-CosyVoice3)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import torch
from torch import Tensor, nn

from ..config import LLMConfig
from ..errors import InputError
from ..weights import embedding
from .bistream import BistreamDecoder
from .kv_cache import KVCache
from .layout import use_linear_layout
from .quant import Int8Embedding, QuantScheme, int8_linear, parse_llm_quant, replace_linears
from .qwen2 import AttnContext, DecoderLayer, Qwen2Decoder, sliced_context, static_context
from .sampling import RasSampler, Sampler, greedy_sampler
from .token_ids import ENDOFPROMPT_ID, TokenIds, as_ids

logger = logging.getLogger(__name__)

EosRule = Literal["upstream", "all_specials"]


@dataclass(frozen=True)
class TeacherForced:
    """Per-step outputs of a teacher-forced run (step 0 is the prefill)."""

    step_inputs: Tensor  # [N, D] embeddings fed at steps 1..N
    hidden: Tensor  # [N+1, D] final-norm hidden state at the last position
    logits: Tensor  # [N+1, V] llm_decoder output
    scores: Tensor  # [N+1, V] log-softmax, stop ids masked on steps < min_len


class DecodeStep(Protocol):
    """One-position steps run outside torch (:class:`cosycore.lm.ort_decode.OrtDecodeStep`)."""

    def __call__(self, x: Tensor, cos: Tensor, sin: Tensor, cache: KVCache) -> Tensor: ...

    def logits_of(self, hidden: Tensor) -> Tensor | None: ...


class SpeechLM(nn.Module):
    """The speech-token language model of one release (CosyVoice2 or Fun-CosyVoice3).

    Holds the weights only; per-stream state lives in a :class:`KVCache` owned by the caller.
    Parameter names follow ``llm.pt`` after :func:`cosycore.weights.normalize_keys`
    (``llm.model.model.*`` -> ``qwen.*``).
    """

    def __init__(self, cfg: LLMConfig) -> None:
        super().__init__()
        self.cfg = cfg
        d = cfg.qwen.hidden_size
        self.qwen = Qwen2Decoder(cfg.qwen)
        if cfg.family == "cosyvoice2":
            self.llm_embedding = embedding(2, d)  # row 0 = sos, row 1 = task_id
        self.speech_embedding = embedding(cfg.speech_vocab_size, d)
        self.llm_decoder = nn.Linear(d, cfg.speech_vocab_size, bias=cfg.decoder_bias)
        self._stop_ids = frozenset(cfg.stop_token_ids)
        self._compiled_step: Callable[[Tensor, AttnContext, KVCache], Tensor] | None = None
        self.quantization: str | None = None  # None = the exact float weights; see quantize_int8
        # One-position steps through ONNX Runtime's 4-bit graph (cosycore.lm.ort_build; fast, draft on a CPU)
        self.decode_step: DecodeStep | None = None

    # ---- input assembly ----------------------------------------------------------------

    def special_embedding(self, which: Literal["sos", "task_id"]) -> Tensor:
        row = self.cfg.sos_index if which == "sos" else self.cfg.task_id_index
        table = self.llm_embedding if self.cfg.family == "cosyvoice2" else self.speech_embedding
        return table.weight[row : row + 1]  # [1, D]

    def check_ids(self, text: Tensor, speech: Tensor) -> None:
        vocab = self.cfg.qwen.vocab_size
        if text.numel() and (int(text.min()) < 0 or int(text.max()) >= vocab):
            raise InputError(
                f"text token ids must lie in [0, {vocab}); got {int(text.min())}..{int(text.max())}"
            )
        n = self.cfg.speech_token_size
        if speech.numel() and (int(speech.min()) < 0 or int(speech.max()) >= n):
            raise InputError(
                f"prompt speech tokens must lie in [0, {n}); got {int(speech.min())}..{int(speech.max())}"
            )
        if self.cfg.family == "cosyvoice3" and not bool((text == ENDOFPROMPT_ID).any()):
            raise InputError(
                "Fun-CosyVoice3 needs the <|endofprompt|> token (id 151646) in the prompt text or the "
                "text, e.g. 'You are a helpful assistant.<|endofprompt|>' before the transcript."
            )

    @torch.inference_mode()
    def build_lm_input(self, text_ids: TokenIds, prompt_text_ids: TokenIds | None = None,
                       prompt_speech_ids: TokenIds | None = None) -> Tensor:
        """``[sos] ++ embed(prompt_text ++ text) ++ [task_id] ++ speech_embedding(prompt_speech)``.

        Returns the prefill embeddings [1, T0, D].
        """
        text = torch.cat((as_ids(prompt_text_ids, "prompt_text_ids"), as_ids(text_ids, "text_ids")))
        speech = as_ids(prompt_speech_ids, "prompt_speech_ids")
        self.check_ids(text, speech)
        device = self.speech_embedding.weight.device
        parts = [
            self.special_embedding("sos"),
            self.qwen.embed_tokens(text.to(device)),  # [Lp+Lt, D]
            self.special_embedding("task_id"),
            self.speech_embedding(speech.to(device)),  # [P, D]
        ]
        return torch.cat(parts, dim=0).unsqueeze(0)  # [1, T0, D]

    def length_limits(self, num_text_tokens: int) -> tuple[int, int]:
        """``(min_len, max_len)`` of the decode loop, from the target text only (prompt excluded)."""
        return (int(num_text_tokens * self.cfg.min_token_text_ratio),
                int(num_text_tokens * self.cfg.max_token_text_ratio))

    # ---- forward passes ----------------------------------------------------------------

    def new_cache(self, max_len: int, device: torch.device | str | None = None,
                  dtype: torch.dtype = torch.float32, *, static: bool = False) -> KVCache:
        """A KV cache for one stream with room for ``max_len`` positions (prompt included)."""
        dev = torch.device(device) if device is not None else self.speech_embedding.weight.device
        q = self.cfg.qwen
        cache = KVCache(q.num_layers, q.num_kv_heads, q.head_dim, max_len,
                        device=dev, dtype=dtype, static=static)
        self.qwen.rope.get(max_len, cache.k.device)  # build the RoPE table now, not mid-stream
        return cache

    def _cached_context(self, t: int, cache: KVCache, device: torch.device) -> AttnContext:
        start = cache.length
        if start + t > cache.capacity:
            raise InputError(
                f"the KV cache holds {cache.capacity} positions and {start} are used; {t} more do not fit"
            )
        cos, sin = self.qwen.rope.get(cache.capacity, device)
        input_pos = torch.arange(start, start + t, device=device)  # [T]
        if cache.static:
            return static_context(input_pos, cos, sin, cache.capacity)
        return sliced_context(input_pos, cos, sin, start)

    def _forward_cached(self, x: Tensor, cache: KVCache) -> Tensor:
        ctx = self._cached_context(x.shape[1], cache, x.device)
        return self.qwen.run(x, ctx, cache)

    def _run_layers(self, x: Tensor, ctx: AttnContext, cache: KVCache) -> Tensor:
        """The part of a cached pass that :meth:`compile_decode` compiles: tensors in, tensors out."""
        return self.qwen.run(x, ctx, cache)

    def forward(self, x_embeds: Tensor) -> Tensor:
        """Plain causal pass without a cache: [B, T, D] embeddings -> [B, T, D] hidden states."""
        t = x_embeds.shape[1]
        cos, sin = self.qwen.rope.get(t, x_embeds.device)
        pos = torch.arange(t, device=x_embeds.device)  # [T]
        ctx = AttnContext(pos, cos[:t], sin[:t], None, None, t > 1)
        return self.qwen.run(x_embeds, ctx, None)

    @torch.inference_mode()
    def extend(self, x_embeds: Tensor, cache: KVCache) -> Tensor:
        """Append ``x_embeds`` [B, T, D] at the cache's next positions; hidden states [B, T, D]."""
        step = self.decode_step
        if step is not None and x_embeds.shape[:2] == (1, 1) and not cache.static and x_embeds.device.type == "cpu":
            pos = cache.length  # the step checks the cache's room
            cos, sin = self.qwen.rope.get(cache.capacity, x_embeds.device)
            h = step(x_embeds, cos[pos : pos + 1], sin[pos : pos + 1], cache)
        elif self._compiled_step is not None and cache.static:
            # The context (Python checks, positions as a tensor) is built outside the compiled
            # region, so one graph serves every position of a static cache.
            ctx = self._cached_context(x_embeds.shape[1], cache, x_embeds.device)
            h = self._compiled_step(x_embeds, ctx, cache)
        else:
            h = self._forward_cached(x_embeds, cache)
        cache.length += x_embeds.shape[1]
        return h

    def prefill(self, x_embeds: Tensor, cache: KVCache) -> Tensor:
        """Feed the prompt [B, T0, D]; returns the last position's hidden state [B, D]."""
        return self.extend(x_embeds, cache)[:, -1]

    def decode_one_token(self, x_embed: Tensor, cache: KVCache) -> Tensor:
        """Feed one embedding ([B, D] or [B, 1, D]); returns its hidden state [B, D]."""
        if x_embed.dim() == 2:
            x_embed = x_embed.unsqueeze(1)  # [B, D] -> [B, 1, D]
        return self.extend(x_embed, cache)[:, -1]

    def compile_decode(self, **compile_kwargs: Any) -> None:
        """Route passes over a static cache (``new_cache(..., static=True)``) through ``torch.compile``.

        Opt-in; compiling takes a while, once per input length (prefill lengths vary, each decode
        step has length 1). On CUDA, ``mode="reduce-overhead"`` also captures CUDA graphs. Passes
        over ordinary caches stay eager.
        """
        self._compiled_step = torch.compile(self._run_layers, **compile_kwargs)

    def quantize_int8(self, mode: str = "int8", *, embeddings: bool = True) -> None:
        """Swap the Qwen2 linear layers and ``llm_decoder`` for int8 versions, in place (CPU only).

        A speed option, off by default: the outputs are no longer the exact ones (see
        :mod:`cosycore.lm.quant` for the kernels and README "Performance" for the measured error).
        ``mode`` is ``"int8"`` (the dynamic kernel, fastest), ``"int8-dynamic"`` or
        ``"int8-weight-only"``. ``embeddings`` also stores the 151936-row text-token table as int8
        rows (about 400 MB less memory). The speech-token table and the sos/task_id rows stay
        float32. Cannot be undone; load the model again for exact outputs.
        """
        scheme = self.check_quantizable(mode)
        use_linear_layout(self)  # int8 packing starts from nn.Linear layers
        n = sum(quantize_decoder_layer(layer, scheme) for layer in self.qwen.layers)
        self.quantize_int8_heads(mode, n, embeddings=embeddings)

    def check_quantizable(self, mode: str) -> QuantScheme:
        """The kernel of ``mode``; raises ``ValueError`` for an unknown mode or an LM already quantized."""
        if self.quantization is not None:
            raise ValueError(f"this LM is already quantized ({self.quantization})")
        return parse_llm_quant(mode)

    def quantize_int8_heads(self, mode: str, layers_done: int, *, embeddings: bool = True) -> None:
        """The last step of :meth:`quantize_int8`, once every decoder layer is int8
        (:func:`quantize_decoder_layer`): ``llm_decoder`` and, with ``embeddings``, the text-token table."""
        scheme = self.check_quantizable(mode)
        # setattr: the attributes are declared as nn.Linear / nn.Embedding; the int8 modules are drop-ins.
        setattr(self, "llm_decoder", int8_linear(self.llm_decoder, scheme))  # noqa: B010
        if embeddings:
            setattr(self.qwen, "embed_tokens", Int8Embedding(self.qwen.embed_tokens))  # noqa: B010
        self.quantization = mode
        logger.info("LM quantized: %d linear layers + llm_decoder as int8 (%s)%s", layers_done, scheme,
                    ", text embeddings as int8 rows" if embeddings else "")

    # ---- scores ------------------------------------------------------------------------

    def logits(self, hidden: Tensor) -> Tensor:
        """Speech-token logits [.., V] from final hidden states [.., D]."""
        if self.decode_step is not None:
            done = self.decode_step.logits_of(hidden)  # a graph step computed them with the hidden state
            if done is not None:
                return done
        return self.llm_decoder(hidden)

    def scores(self, logits: Tensor, *, ignore_eos: bool, eos_rule: EosRule) -> Tensor:
        """Log-probabilities (float32), with stop ids masked to -inf while ``ignore_eos``.

        ``eos_rule="upstream"`` masks only id ``speech_token_size`` (6561), as the original does
        today: that is eos for CosyVoice2 but *sos* for Fun-CosyVoice3, whose real eos (6562)
        stays sampleable. ``"all_specials"`` masks every id >= 6561, the intended rule.
        """
        logp = torch.log_softmax(logits.float(), dim=-1)
        if ignore_eos:
            n = self.cfg.speech_token_size
            if eos_rule == "upstream":
                logp[..., n] = -float("inf")
            else:
                logp[..., n:] = -float("inf")
        return logp

    @torch.inference_mode()
    def teacher_force(self, lm_input: Tensor, forced_tokens: TokenIds, *, min_len: int,
                      eos_rule: EosRule = "upstream") -> TeacherForced:
        """Prefill ``lm_input`` [1, T0, D], then feed ``forced_tokens`` one per step."""
        forced = as_ids(forced_tokens, "forced_tokens").tolist()
        cache = self.new_cache(lm_input.shape[1] + len(forced))
        hidden = [self.prefill(lm_input, cache)]  # each [1, D]
        inputs = []
        for tok in forced:
            x = self.speech_embedding.weight[tok : tok + 1]  # [1, D]
            inputs.append(x)
            hidden.append(self.decode_one_token(x, cache))
        h = torch.cat(hidden, dim=0)  # [N+1, D]
        logits = self.logits(h)  # [N+1, V]
        ignore = torch.arange(len(hidden)) < min_len
        scores = torch.stack([self.scores(logits[i], ignore_eos=bool(ignore[i]), eos_rule=eos_rule)
                              for i in range(len(hidden))])  # [N+1, V]
        step_inputs = torch.cat(inputs, dim=0) if inputs else lm_input.new_zeros(0, lm_input.shape[-1])
        return TeacherForced(step_inputs, h, logits, scores)

    # ---- generation --------------------------------------------------------------------

    @torch.inference_mode()
    def generate(self, text_ids: TokenIds, prompt_text_ids: TokenIds | None = None,
                 prompt_speech_ids: TokenIds | None = None, *, sampler: Sampler | None = None,
                 greedy: bool = False, seed: int | None = None, generator: torch.Generator | None = None,
                 min_len: int | None = None, max_len: int | None = None,
                 eos_rule: EosRule = "all_specials", cache: KVCache | None = None) -> Iterator[int]:
        """Yield speech tokens one at a time (unistream zero-shot / cross-lingual / instruct2).

        ``sampler`` defaults to :class:`RasSampler` from the config (``greedy=True`` uses argmax).
        ``seed`` seeds a private generator, so a run is reproducible without touching the global
        RNG. ``min_len``/``max_len`` default to 2x / 20x the target text length. Decoding stops at
        any stop id (not yielded) or silently after ``max_len`` tokens.

        ``eos_rule`` defaults to ``"all_specials"``: while ``i < min_len`` every id >= 6561 is
        masked, because those are eos/fill/unused ids in both families and none may end or
        interrupt a unistream run early. ``"upstream"`` reproduces the original, which masks only
        id 6561; that is the sos id for Fun-CosyVoice3, so its eos could still end a run before
        ``min_len``. Use ``"upstream"`` only to reproduce reference outputs.

        A ``cache`` passed in (for example one reused across the sentences of a request) is reset
        and grown when this request needs more positions.
        """
        text = as_ids(text_ids, "text_ids")
        if text.numel() == 0:
            raise InputError("the text to synthesise produced no tokens")
        lo, hi = self.length_limits(int(text.numel()))
        min_len = lo if min_len is None else min_len
        max_len = hi if max_len is None else max_len
        lm_input = self.build_lm_input(text, prompt_text_ids, prompt_speech_ids)
        need = lm_input.shape[1] + max(max_len, 1)
        if cache is None:
            cache = self.new_cache(need)
        else:
            cache.reset()
            cache.reserve(need)
            self.qwen.rope.get(cache.capacity, cache.k.device)
        pick = greedy_sampler if greedy else (sampler or RasSampler.from_config(self.cfg))
        gen = generator or self._generator(seed, lm_input.device)
        yield from self._decode_loop(lm_input, cache, pick, gen, min_len, max_len, eos_rule)

    def _generator(self, seed: int | None, device: torch.device) -> torch.Generator:
        gen = torch.Generator(device=device)
        if seed is None:
            gen.seed()
        else:
            gen.manual_seed(seed)
        return gen

    def _decode_loop(self, lm_input: Tensor, cache: KVCache, pick: Sampler, gen: torch.Generator,
                     min_len: int, max_len: int, eos_rule: EosRule) -> Iterator[int]:
        h = self.prefill(lm_input, cache)  # [1, D]
        decoded: list[int] = []
        for i in range(max_len):
            scores = self.scores(self.logits(h[0]), ignore_eos=i < min_len, eos_rule=eos_rule)  # [V]
            tok = pick(scores, decoded, gen)
            if tok in self._stop_ids:
                logger.debug("stop token %d after %d speech tokens", tok, len(decoded))
                return
            decoded.append(tok)
            yield tok
            if i + 1 < max_len:
                h = self.decode_one_token(self.speech_embedding.weight[tok : tok + 1], cache)
        logger.debug("max_len %d reached", max_len)

    @torch.inference_mode()
    def generate_bistream(self, text_ids: Iterable[int], prompt_text_ids: TokenIds | None = None,
                          prompt_speech_ids: TokenIds | None = None, *, sampler: Sampler | None = None,
                          greedy: bool = False, seed: int | None = None,
                          generator: torch.Generator | None = None, min_len: int = 0,
                          max_len: int | None = None, trace: list[tuple[str, int]] | None = None,
                          ) -> Iterator[int]:
        """Yield speech tokens while text ids are still arriving (the release's bistream mode).

        ``text_ids`` is any iterable of target-text ids, pulled lazily (for example the tokens of
        an LLM's reply as it is written). Text and speech are interleaved with the release's
        ``mix_ratio`` (5 text : 15 speech): a group of 5 text tokens, then 15 speech tokens (the
        prompt's first, then generated ones); after each generated group the model is told
        ``fill`` and waits for the next 5 text tokens. When the text ends, the rest of the text,
        ``task_id`` and any prompt speech not yet placed are appended and decoding runs until eos.
        See :class:`BistreamDecoder` for the deliberate differences from the original.

        ``min_len`` holds eos back until that many tokens were yielded; ``max_len`` bounds the
        total (default: 20x the target text tokens, applied once the text has ended). ``trace``,
        when given, receives the layout as ``(kind, count)`` runs: sos, system, text,
        prompt_speech, speech, fill (not fed, only marked), task_id.
        """
        pick = greedy_sampler if greedy else (sampler or RasSampler.from_config(self.cfg))
        device = self.speech_embedding.weight.device
        gen = generator or self._generator(seed, device)
        decoder = BistreamDecoder(self, as_ids(prompt_text_ids, "prompt_text_ids"),
                                  as_ids(prompt_speech_ids, "prompt_speech_ids"), pick, gen, trace,
                                  max_len=max_len)
        for tok in text_ids:
            yield from decoder.push_text(int(tok))
            if decoder.at_limit:
                logger.debug("bistream max_len %d reached while text was still arriving", max_len)
                return
        yield from decoder.finish(min_len=min_len)


def quantize_decoder_layer(layer: nn.Module, scheme: QuantScheme) -> int:
    """Fuse q/k/v and gate/up of one decoder layer (fewer, larger int8 products) and swap its linear
    layers for int8 ones, in place; returns how many were swapped. Each int8 layer depends on its own
    weights only, so packing the layers one at a time gives the numbers of packing them all at once."""
    assert isinstance(layer, DecoderLayer)
    layer.self_attn.fuse()
    layer.mlp.fuse()
    return replace_linears(layer, scheme)
