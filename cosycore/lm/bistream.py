"""Bistream decoding: text ids arrive while speech tokens are generated, interleaved 5:15.

Used by :meth:`cosycore.lm.speech_lm.SpeechLM.generate_bistream`.
"""

from __future__ import annotations

import collections
import logging
from collections.abc import Iterator
from typing import Literal, Protocol

import torch
from torch import Tensor, nn

from ..config import LLMConfig
from ..errors import InputError
from .kv_cache import KVCache
from .qwen2 import Qwen2Decoder
from .sampling import Sampler
from .token_ids import ENDOFPROMPT_ID

logger = logging.getLogger(__name__)


class BistreamLM(Protocol):
    """What the decoder uses of the speech LM (:class:`cosycore.lm.speech_lm.SpeechLM`, which imports
    this module: the decoder names only these members, so the two modules form no import circle)."""

    cfg: LLMConfig
    qwen: Qwen2Decoder
    speech_embedding: nn.Embedding

    def special_embedding(self, which: Literal["sos", "task_id"]) -> Tensor: ...

    def check_ids(self, text: Tensor, speech: Tensor) -> None: ...

    def new_cache(self, max_len: int) -> KVCache: ...

    def extend(self, x_embeds: Tensor, cache: KVCache) -> Tensor: ...

    def logits(self, hidden: Tensor) -> Tensor: ...

    def scores(self, logits: Tensor, *, ignore_eos: bool, eos_rule: Literal["upstream", "all_specials"]) -> Tensor: ...


# Close port of CosyVoice (Apache-2.0) llm/llm.py (Qwen2LM.inference_bistream); see NOTICE.
class BistreamDecoder:
    """State of one bistream decode: what is fed, what waits, and the interleaving schedule.

    Created and owned by :meth:`SpeechLM.generate_bistream` for one request. ``pending`` holds
    embeddings not yet in the KV cache; everything in the cache is fed exactly once. The schedule
    is kept as the number of speech tokens placed since the last text group (``group_speech``).

    Deliberate differences from the original ``inference_bistream`` (spec §3.6):

    * the last speech token is never fed twice: the original re-feeds it when the text ends
      (quirk i); here it waits in ``pending`` and is fed once, together with what follows it;
    * prompt speech tokens left over when the text ends before they were all interleaved are
      placed after ``task_id`` (the unistream layout) instead of being dropped (quirk ii);
    * CosyVoice3 without prompt speech (cross-lingual, instruct) waits for 5 text tokens before
      decoding, as CosyVoice2 does; the original starts decoding with no target text because its
      test counts the system prompt as input (quirk iii);
    * fill is never sampled, only forced after each group of 15; other special ids are masked
      while interleaving and, after the text ends, every special except eos is masked, so no
      stray special can raise an error mid-stream (quirk iv);
    * when the prompt speech fills its last group exactly (P a multiple of 15), the next group
      waits for new text; the original's ``next_fill_index`` formula generates a whole group
      there without any text of its own;
    * the final phase is bounded by ``max_len`` (default 20x the target text); the original has
      no limit, so a model that never emits eos would never stop;
    * the forced fill costs no forward pass: the last speech token of a group is fed together
      with the next text group (the same attention, one call fewer).
    """

    def __init__(self, lm: BistreamLM, prompt_text: Tensor, prompt_speech: Tensor, pick: Sampler,
                 gen: torch.Generator, trace: list[tuple[str, int]] | None, *, max_len: int | None = None) -> None:
        self.lm = lm
        self.max_len = max_len  # explicit cap on yielded tokens; None = 20x the target text at the end
        self.cfg = lm.cfg
        self.n_text, self.n_speech = lm.cfg.mix_ratio
        self.pick = pick
        self.gen = gen
        self.trace = trace
        self.pending: list[Tensor] = []  # each [k, D], not yet in the cache
        self.text: collections.deque[int] = collections.deque()  # text ids waiting for their group
        self.prompt_speech: collections.deque[int] = collections.deque(prompt_speech.tolist())
        self.group_speech: int | None = None  # speech placed since the last text group; None before one
        self.decoded: list[int] = []  # outputs incl. forced fills (RAS window and schedule, as the original)
        self.yielded = 0
        self.target_tokens = 0
        self.cache = lm.new_cache(256)
        lm.check_ids(prompt_text, prompt_speech)
        self._place("sos", lm.special_embedding("sos"))
        self.text.extend(self._split_system(prompt_text).tolist())

    # -- feeding --------------------------------------------------------------------------
    def _mark(self, kind: str, count: int) -> None:
        if self.trace is None or count == 0:
            return
        if self.trace and self.trace[-1][0] == kind:
            self.trace[-1] = (kind, self.trace[-1][1] + count)
        else:
            self.trace.append((kind, count))

    def _place(self, kind: str, emb: Tensor) -> None:
        """Queue embeddings [k, D] to be fed at the next forward pass."""
        if emb.shape[0]:
            self.pending.append(emb)
            self._mark(kind, int(emb.shape[0]))

    def _text_emb(self, ids: list[int]) -> Tensor:
        t = torch.tensor(ids, dtype=torch.long, device=self.lm.speech_embedding.weight.device)
        return self.lm.qwen.embed_tokens(t)  # [k, D]

    def _speech_emb(self, ids: list[int]) -> Tensor:
        t = torch.tensor(ids, dtype=torch.long, device=self.lm.speech_embedding.weight.device)
        return self.lm.speech_embedding(t)  # [k, D]

    def _split_system(self, prompt_text: Tensor) -> Tensor:
        """CosyVoice3: feed the prompt text up to its first ``<|endofprompt|>`` at once; return the rest."""
        if self.cfg.family != "cosyvoice3":
            return prompt_text
        hits = (prompt_text == ENDOFPROMPT_ID).nonzero()
        if hits.numel() == 0:
            raise InputError(
                "Fun-CosyVoice3 bistream needs <|endofprompt|> (id 151646) in the prompt text, e.g. "
                "'You are a helpful assistant.<|endofprompt|>'."
            )
        end = int(hits[0, 0]) + 1
        self._place("system", self._text_emb(prompt_text[:end].tolist()))
        return prompt_text[end:]

    def _forward(self) -> Tensor:
        """Feed everything pending; the last position's hidden state [D]."""
        x = torch.cat(self.pending, dim=0).unsqueeze(0)  # [1, T, D]
        self.pending = []
        need = self.cache.length + x.shape[1]
        if need > self.cache.capacity:
            self.cache.reserve(max(need, 2 * self.cache.capacity))
            self.lm.qwen.rope.get(self.cache.capacity, self.cache.k.device)
        return self.lm.extend(x, self.cache)[0, -1]

    @property
    def at_limit(self) -> bool:
        return self.max_len is not None and self.yielded >= self.max_len

    # -- the interleaved phase ------------------------------------------------------------
    def _check_text_id(self, tok: int) -> None:
        vocab = self.cfg.qwen.vocab_size
        if not 0 <= tok < vocab:
            raise InputError(f"text token ids must lie in [0, {vocab}); got {tok}")

    def push_text(self, tok: int) -> Iterator[int]:
        """One more target-text id; yields the speech tokens that became due."""
        self._check_text_id(tok)
        self.text.append(tok)
        self.target_tokens += 1
        while len(self.text) >= self.n_text and self.group_speech in (None, self.n_speech):
            if self._start_group() < self.n_speech and not self.prompt_speech:
                yield from self._decode_group()

    def _start_group(self) -> int:
        """Place the next 5 text tokens and as much prompt speech as fits; speech placed in the group."""
        ids = [self.text.popleft() for _ in range(self.n_text)]
        self._place("text", self._text_emb(ids))
        take = min(self.n_speech, len(self.prompt_speech))
        speech = [self.prompt_speech.popleft() for _ in range(take)]
        if speech:
            self._place("prompt_speech", self._speech_emb(speech))
        self.group_speech = take
        return take

    def _interleaved_scores(self, h: Tensor) -> Tensor:
        return self.lm.scores(self.lm.logits(h), ignore_eos=True, eos_rule="all_specials")  # [V]

    def _decode_group(self) -> Iterator[int]:
        """Generate speech until the group holds 15, then mark fill (not fed, not yielded)."""
        assert self.group_speech is not None
        while self.group_speech < self.n_speech:
            if self.at_limit:
                return
            tok = self.pick(self._interleaved_scores(self._forward()), self.decoded, self.gen)
            self.decoded.append(tok)
            self.yielded += 1
            self.group_speech += 1
            self._place("speech", self._speech_emb([tok]))
            yield tok
        self.decoded.append(self.cfg.fill_token)
        self._mark("fill", 1)

    # -- after the text ends --------------------------------------------------------------
    def _final_scores(self, h: Tensor, allow_eos: bool) -> Tensor:
        logp = torch.log_softmax(self.lm.logits(h).float(), dim=-1)  # [V]
        eos = self.cfg.eos_token
        keep = logp[eos].clone()
        logp[self.cfg.speech_token_size :] = -float("inf")
        if allow_eos:
            logp[eos] = keep
        return logp

    def finish(self, *, min_len: int = 0) -> Iterator[int]:
        """The text has ended: place its rest, task_id and leftover prompt speech; decode to eos."""
        if self.target_tokens == 0:
            raise InputError("the text stream ended without any text to speak")
        limit = self.max_len if self.max_len is not None else int(self.target_tokens * self.cfg.max_token_text_ratio)
        rest = list(self.text)
        self.text.clear()
        if rest:
            self._place("text", self._text_emb(rest))
        self._place("task_id", self.lm.special_embedding("task_id"))
        if self.prompt_speech:
            self._place("prompt_speech", self._speech_emb(list(self.prompt_speech)))
            self.prompt_speech.clear()
        while self.yielded < limit:
            scores = self._final_scores(self._forward(), allow_eos=self.yielded >= min_len)
            tok = self.pick(scores, self.decoded, self.gen)
            if tok == self.cfg.eos_token:
                logger.debug("bistream eos after %d speech tokens", self.yielded)
                return
            self.decoded.append(tok)
            self.yielded += 1
            self._place("speech", self._speech_emb([tok]))
            yield tok
        logger.debug("bistream max_len %d reached", limit)

