"""The engine: one :class:`Engine` per loaded model, ``synthesize(request) -> chunks`` (face: :mod:`cosycore.engine`).

The desktop app and the command line use :mod:`cosycore.engine` (its face) for the engine:

    engine = Engine("CosyVoice2-0.5B")
    request = SynthesisRequest("Hello there.", mode="zero_shot", prompt_audio="me.wav",
                               prompt_text="What I say in me.wav.")
    for chunk in engine.synthesize(request):
        play(chunk.samples, chunk.sample_rate)

A request goes through these steps, each a small function:

1. :func:`~cosycore.request.validate_request` checks the fields against the mode (pure; raises :class:`InputError`);
2. the prompt's features come from a saved :class:`~cosycore.voices.Voice` (no extraction) or are
   extracted from the recording (:func:`cosycore.frontend.prompt.extract_prompt`);
3. :func:`~cosycore.mode_plan.plan_mode` decides what the speech LM sees around every sentence (spec §5.8/§5.9) and
   :func:`~cosycore.mode_plan.model_inputs` turns a plan, the prompt and one sentence's ids into model-level inputs;
4. the text is normalised and split lazily in the request's text reading (:mod:`cosycore.frontend.text_reading`:
   the original's ``text_normalize``, or :func:`cosycore.frontend.text.iter_sentences`), so the first
   sentence is spoken before the rest of a long text is read; an iterable of text pieces instead of
   a string selects bistream decoding (:meth:`cosycore.lm.speech_lm.SpeechLM.generate_bistream`);
5. per sentence the LM's tokens go through a :class:`~cosycore.token2wav.Token2WavStream` and come
   out as :class:`AudioChunk` objects.

The parts live in modules of their own: :mod:`cosycore.request` (the request, its chunks and its
checks), :mod:`cosycore.mode_plan` (mode planning and the text path), :mod:`.segments` (the state of
one running request) and :mod:`cosycore.failures` (the error boundary's messages).

The engine owns the model weights and nothing per request except the cancel counter; every request
builds its own KV cache, token buffers and vocoder state. ``synthesize`` is meant to run on one
thread at a time (the app's engine thread); :meth:`Engine.cancel` may be called from any thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..allocator import release_free_memory
from ..cancel import cancel_scope, scoped
from ..config import FAMILY_TITLES, Family, TextReading, load_model_config
from ..config.folder import check_model_folder
from ..devices import resolve_device
from ..errors import CosyError, InputError, ModelLoadError
from ..failures import OOM_ADVICE, as_engine_error, is_out_of_memory
from ..flow.cache import FlowCache
from ..frontend import text_reading as readings
from ..frontend.onnx_models import SpeakerEncoderONNX, SpeechTokenizerONNX
from ..frontend.prompt import PromptFeatures, extract_prompt, prompt_from_voice, voice_from_prompt
from ..frontend.text_checks import DEFAULT_MAX_CHARS, check_spoken_text, find_control_markers, japanese_note
from ..frontend.tokenizer import ENDOFPROMPT, TextTokenizer, get_text_tokenizer
from ..lm.kv_cache import KVCache
from ..mode_plan import (
    ModelInputs,
    ModePlan,
    model_inputs,
    plan_mode,
    prepare_transcript,
    spoken_sentences,
)
from ..model import CosyModel, SynthesisKnobs
from ..perf import PerfOptions, apply_load_options, quality_options, resolve_quality
from ..request import (
    AudioChunk,
    AudioInput,
    Mode,
    SynthesisRequest,
    check_utf8,
    request_transcript,
    too_long,
    validate_request,
)
from ..threads import OVERLAP_MIN_THREADS, CoreGovernor, governor_enabled, run_ahead, set_torch_threads, stage_threads
from ..token2wav import Token2WavStream, prompt_flow_cache, token_audio
from ..voices import Voice
from .convert import MAX_SOURCE_SECONDS, ConversionRequest, probe_source, run_conversion, validate_conversion
from .info import EngineInfo
from .load_steps import LoadProgress, LoadSteps, step_bytes
from .segments import (
    RequestState,
    Segment,
    StreamedText,
    then_mark_last,
    with_last,
)

logger = logging.getLogger(__name__)

LM_AHEAD_TOKENS = 1024  # speech tokens the LM may decode ahead of token2wav (about 40 s of speech)
_MARKER_TAIL = 32  # characters of the previous bistream piece kept to catch a marker split across pieces


def _tensor_digest(*tensors: torch.Tensor) -> str:
    """A content hash of a few tensors (a prompt: its speech tokens, mel and speaker embedding)."""
    h = hashlib.sha256()
    for t in tensors:
        h.update(str((tuple(t.shape), t.dtype)).encode())
        h.update(t.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()


# --------------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------------


class Engine:
    """A loaded model plus its text and prompt frontends; turns requests into audio chunks.

    Owns the networks (:class:`~cosycore.model.CosyModel`), the text tokenizer and the two ONNX
    frontend models. Created once per model by the app's engine thread or by the CLI. Raises
    :class:`~cosycore.errors.ModelLoadError` subclasses when the folder cannot be loaded.
    """

    def __init__(self, model_dir: Path | str, device: str | torch.device = "auto",
                 dtype: torch.dtype = torch.float32, *, max_text_chars: int = DEFAULT_MAX_CHARS,
                 quality: str = "exact", perf: PerfOptions | None = None,
                 text_reading: str | None = None, threads: int | None = None,
                 measured_rtfs: Mapping[str, float | None] | None = None, progress: LoadProgress | None = None,
                 warm_text: bool = True, with_llm: bool = True) -> None:
        """Load a release folder. ``quality`` ("exact", "fast", "draft": see
        :func:`cosycore.perf.quality_options`; "auto": :func:`cosycore.perf.resolve_quality` with the
        real-time factors per mode in ``measured_rtfs``) picks the speed options; ``perf`` sets them one by one.
        ``text_reading`` ("original" or "improved", :mod:`cosycore.frontend.text_reading`) is the default of
        requests that name none; by default "original" in exact mode, "improved" otherwise.
        ``threads``: torch threads for synthesis on a CPU (None: torch's current setting). From
        :data:`~cosycore.threads.OVERLAP_MIN_THREADS` on, unless ``perf.overlap`` is off, the LM and
        token2wav run on two threads with half of them each (:mod:`cosycore.threads`).
        ``progress(fraction, step)`` is called as each load step begins (:mod:`.load_steps`).
        ``warm_text`` False leaves the text warm-up of the modes that warm up to the caller
        (:func:`cosycore.perf.warm_up_frontend`; the first request pays it otherwise).
        ``with_llm`` False loads no language model (its "llm" step is not reported): enough for
        :meth:`convert`, which never runs it, in about a third of the memory at full size;
        :meth:`synthesize` then raises :class:`~cosycore.errors.NoLanguageModelError`.

        Every failure is a :class:`~cosycore.errors.CosyError` (a bad device name an
        :class:`InputError`, everything else a :class:`ModelLoadError`)."""
        try:
            self._load(model_dir, device, dtype, max_text_chars, quality, perf, text_reading, threads, measured_rtfs,
                       progress, warm_text, with_llm)
        except CosyError:
            raise
        except Exception as e:  # the boundary: nothing untyped leaves the engine
            logger.debug("loading %s failed", model_dir, exc_info=True)
            if is_out_of_memory(e):
                raise ModelLoadError(f"{model_dir} could not be loaded: {OOM_ADVICE}.") from e
            raise ModelLoadError(
                f"{model_dir} could not be loaded ({type(e).__name__}: {e}). Run 'cosycore models verify "
                f"{model_dir}' and download the model again if it reports a problem."
            ) from e

    def _load(self, model_dir: Path | str, device: str | torch.device, dtype: torch.dtype, max_text_chars: int,
              quality: str, perf: PerfOptions | None, text_reading: str | None, threads: int | None,
              measured_rtfs: Mapping[str, float | None] | None, progress: LoadProgress | None,
              warm_text: bool, with_llm: bool) -> None:
        load_start = time.perf_counter()
        check_model_folder(model_dir)  # every missing or empty file named at once, before loading anything
        release = load_model_config(model_dir)
        if threads is not None:
            set_torch_threads(threads)  # loading (int8 packing, weight init) uses them too
        self.threads = int(threads) if threads is not None else torch.get_num_threads()
        self._governor_allowed = governor_enabled()  # read once: the wait policy was fixed when torch loaded
        dev = resolve_device(device)
        self.requested_quality = quality if perf is None else "custom"
        self.quality = resolve_quality(quality, dev, measured_rtfs) if perf is None else "custom"
        self.perf = quality_options(self.quality, dev) if perf is None else perf
        if quality != self.quality and perf is None:
            logger.info("quality %s chose %s on %s", quality, self.quality, dev)
        steps = LoadSteps(progress, step_bytes(release.model_dir, release.speech_tokenizer_file, release.qwen_dir),
                          skip=(() if self.perf.warm_up else ("warm_up",)) + (() if with_llm else ("llm",)))
        # The int8 LM is packed while it loads: its float weights never all exist at once (peak memory);
        # a flow fixed to draft's setting never keeps its time-conditioning weights.
        self.model = CosyModel.load(model_dir, device=dev, dtype=dtype, llm_quant=self.perf.llm_quant,
                                    fixed_flow=self.perf.flow if self.perf.fixed_flow else None, on_step=steps.begin,
                                    with_llm=with_llm)
        self.cfg = self.model.cfg
        steps.begin("warm_up")
        apply_load_options(self.model, self.perf, frontend=warm_text)
        self.text_reading: TextReading = (readings.default_text_reading(self.perf.exact) if text_reading is None
                                          else readings.check_text_reading(text_reading))
        self.dtype = dtype
        self.max_text_chars = int(max_text_chars)
        steps.begin("text_tokenizer")
        self.tokenizer: TextTokenizer = get_text_tokenizer(self.cfg.qwen_dir, self.cfg.family)
        onnx_device = self.model.device.type
        model_path = Path(self.cfg.model_dir)
        steps.begin("speech_tokenizer")
        self.speech_tokenizer = SpeechTokenizerONNX(model_path / self.cfg.speech_tokenizer_file, device=onnx_device)
        steps.begin("speaker_encoder")
        self.speaker_encoder = SpeakerEncoderONNX(model_path / "campplus.onnx", device=onnx_device)
        self._cancel_lock = threading.Lock()
        self._cancel_count = 0
        self._prompt_cache_entry: tuple[tuple[Any, ...], FlowCache] | None = None  # (key, states): one voice
        self.last_warnings: tuple[str, ...] = ()
        self.load_seconds = time.perf_counter() - load_start
        steps.ready()
        logger.info("engine ready: %s on %s in %.1f s", self.cfg.family, self.model.device, self.load_seconds)

    # -- facts ----------------------------------------------------------------------------
    @property
    def family(self) -> Family:
        return self.cfg.family

    @property
    def sample_rate(self) -> int:
        return self.model.sample_rate

    @property
    def device(self) -> torch.device:
        return self.model.device

    @property
    def cancel_count(self) -> int:
        """How often :meth:`cancel` was called; a request stops when it changes."""
        return self._cancel_count

    def info(self) -> EngineInfo:
        def count(module: torch.nn.Module) -> int:
            return sum(p.numel() for p in module.parameters())

        onnx = (self.speech_tokenizer.path, self.speaker_encoder.path)
        return EngineInfo(
            family=self.cfg.family,
            title=FAMILY_TITLES[self.cfg.family],
            model_dir=Path(self.cfg.model_dir),
            device=str(self.model.device),
            dtype=str(self.dtype).replace("torch.", ""),
            sample_rate=self.sample_rate,
            token_rate=self.cfg.token_frame_rate,
            parameters=((("llm", count(self.model.llm)),) if self.model.has_llm else ())
            + (("flow", count(self.model.flow)), ("hift", count(self.model.hift))),
            onnx_files=tuple((p.name, p.stat().st_size) for p in onnx),
            text_vocab=self.tokenizer.vocab_size,
            quality=self.quality,
            text_reading=self.text_reading,
            requested_quality=self.requested_quality,
            load_seconds=self.load_seconds,
        )

    # -- prompts and voices -----------------------------------------------------------------
    def extract_prompt(self, audio: AudioInput, sr: int | None = None, *,
                       with_checksum: bool = True) -> PromptFeatures:
        """Check a recording and compute its prompt features (seconds on the real models).

        ``with_checksum``: record the speech tokenizer's sha256 in them, as a voice made from them
        needs (see :func:`cosycore.frontend.prompt.extract_prompt`).
        """
        if isinstance(audio, (np.ndarray, torch.Tensor)) and not sr:
            raise InputError("The recording is a waveform without a sample rate; pass its sample rate too.")
        try:
            return extract_prompt(audio, sr, self.cfg, self.speech_tokenizer, self.speaker_encoder,
                                  with_checksum=with_checksum)
        except CosyError:
            raise
        except Exception as e:  # the boundary: nothing untyped leaves the engine
            logger.debug("prompt extraction failed", exc_info=True)
            raise as_engine_error(e, "reading the voice recording", self.cfg.model_dir) from e

    def create_voice(self, audio: AudioInput, sr: int | None = None, *, transcript: str = "",
                     name: str, language: str = "") -> Voice:
        """Extract a recording's features once and keep them in a :class:`Voice` (save it with
        :func:`~cosycore.voices.save_voice` or a :class:`~cosycore.voices.VoiceLibrary`).

        ``transcript`` may be empty (the voice then serves cross_lingual and instruct requests).
        Warnings about the recording are in :attr:`last_warnings`.
        """
        if not isinstance(name, str) or not name.strip():
            raise InputError("A voice needs a name; type one.")
        if not isinstance(transcript, str) or not isinstance(language, str):
            raise InputError("The transcript and the language must be text.")
        for what, value in (("voice name", name), ("transcript", transcript), ("language", language)):
            check_utf8(value, what)
        if transcript.strip():
            check_spoken_text(transcript)
        features = self.extract_prompt(audio, sr)
        self.last_warnings = features.warnings
        try:
            return voice_from_prompt(features, name=name.strip(), transcript=transcript.strip(), language=language)
        except ValueError as e:  # Voice's own checks: what a recording of at most 30 s can produce
            raise InputError(f"the recording cannot be saved as a voice: {e}.") from e

    def _prompt(self, req: SynthesisRequest) -> PromptFeatures:
        if req.voice is not None:
            # the tokenizer's hash only for a voice that records one (known from the manifest where
            # there is one; otherwise this may hash the file once: cosycore.checksums)
            sha = self.speech_tokenizer.sha256 if req.voice.speech_tokenizer_sha256 else None
            return prompt_from_voice(req.voice, self.cfg, speech_tokenizer_sha256=sha)
        assert req.prompt_audio is not None  # validate_request
        return self.extract_prompt(req.prompt_audio, req.prompt_sample_rate, with_checksum=False)  # never saved

    def reading(self, req: SynthesisRequest) -> TextReading:
        """The text reading of ``req``: its own, else the engine's."""
        return readings.check_text_reading(req.text_reading) if req.text_reading else self.text_reading

    def _plan(self, req: SynthesisRequest) -> ModePlan:
        transcript = ""
        if req.mode == "zero_shot":
            transcript = prepare_transcript(request_transcript(req), text_frontend=req.text_frontend,
                                            reading=self.reading(req), family=self.cfg.family)
        return plan_mode(req.mode, self.cfg.family, transcript=transcript, instruction=req.instruct_text or "")

    # -- synthesis --------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop the running request (and any made before this call) at the next token or chunk.

        Thread-safe. A request made after this call is not affected.
        """
        with self._cancel_lock:
            self._cancel_count += 1
        logger.info("synthesis cancelled")

    def synthesize(self, request: SynthesisRequest) -> Iterator[AudioChunk]:
        """Check ``request`` now (raising :class:`InputError`) and return its chunks as a generator.

        The first chunk carries the request's warnings (also in :attr:`last_warnings`); the last
        has ``is_final``. Errors found while running (unreadable prompt audio, …) are raised from
        the iteration; the engine stays usable for the next request either way.
        """
        self.model.require_llm()  # an engine loaded without it raises NoLanguageModelError first, whatever the request
        validate_request(request, max_chars=self.max_text_chars)
        state = RequestState(self, self._cancel_count, time.perf_counter(), self.sample_rate)
        # Cancel points inside the LM loop, the flow's Euler steps and the vocoder's blocks see this
        # request's cancel; the request then ends quietly, as one cancelled between chunks does.
        return self._typed(scoped(self._run(request, state), state.cancelled), "synthesis")

    def convert(self, source: AudioInput, voice: Voice | None = None, *, sample_rate: int | None = None,
                prompt_audio: AudioInput | None = None, prompt_sample_rate: int | None = None, speed: float = 1.0,
                stream: bool = True, seed: int | None = None,
                max_source_seconds: float = MAX_SOURCE_SECONDS) -> Iterator[AudioChunk]:
        """Voice conversion (:mod:`cosycore.engine.convert`): ``source``'s speech in ``voice`` (or in the voice of the
        recording ``prompt_audio``), as chunks like :meth:`synthesize` yields (``sentence_index``: the 30 s
        piece of the source). The request and the source's header are checked now (:class:`InputError`)."""
        req = ConversionRequest(source, voice, sample_rate, prompt_audio, prompt_sample_rate, speed, stream, seed,
                                max_source_seconds)
        validate_conversion(req)
        info = probe_source(source, sample_rate, max_seconds=max_source_seconds)
        state = RequestState(self, self._cancel_count, time.perf_counter(), self.sample_rate)
        return self._typed(scoped(run_conversion(self, req, info, state), state.cancelled), "voice conversion")

    def _typed(self, chunks: Iterator[AudioChunk], doing: str) -> Iterator[AudioChunk]:
        """Pass chunks through; any exception that is not a CosyError becomes one (with advice)."""
        try:
            yield from chunks
        except CosyError:
            raise
        except Exception as e:
            logger.debug("%s failed", doing, exc_info=True)
            raise as_engine_error(e, doing, self.cfg.model_dir) from e

    @torch.inference_mode()
    def _run(self, req: SynthesisRequest, state: RequestState) -> Iterator[AudioChunk]:
        self.last_warnings = ()
        prompt = self._prompt(req)
        plan = self._plan(req)
        warnings = prompt.warnings
        note = japanese_note(req.text) if isinstance(req.text, str) and self.family == "cosyvoice3" else None
        if note:
            warnings = (*warnings, note)
        state.warnings = warnings
        self.last_warnings = warnings
        prompt_ids = self.tokenizer.encode(plan.lm_prompt_text) if plan.lm_prompt_text else []
        base = model_inputs(plan, prompt, prompt_ids, ())
        g_llm, g_voc = self.model.generators(req.seed)
        knobs = SynthesisKnobs(stream=req.stream, seed=req.seed, speed=float(req.speed),
                               n_steps=self.perf.flow.n_steps, cfg_rate=self.perf.flow.cfg_rate,
                               flow_cache=self.perf.flow_cache, flow_autocast=self.perf.flow.autocast)
        segments = self._segments(req, base, g_llm)
        threads_before = torch.get_num_threads()
        # Streamed text (bistream) stays on this thread: its text iterator is the caller's and may block,
        # which would hold up a cancel waiting for the LM thread.
        governor: CoreGovernor | None = None
        if self.overlaps and not req.is_bistream:
            segments = self._run_ahead(segments, state)
        else:
            set_torch_threads(self.threads)
            if self.governed:  # fewer torch threads while other programs hold cores (cosycore.threads)
                governor = CoreGovernor(self.threads)
        seg: Segment | None = None
        final_sent = False
        try:
            for seg in segments:
                if state.cancelled():
                    break
                t2w = self.model.token2wav_stream(base.flow_prompt_speech, base.prompt_feat, base.embedding,
                                                  knobs=knobs, generator=g_voc)
                t2w.cache_limit_bytes = int(self.perf.flow_cache_mb * 1e6)
                if req.stream and self.perf.flow_cache != "off" and self.perf.prompt_cache:
                    t2w.prompt_cache = self._prompt_flow_cache(t2w)  # on the first segment, while the LM runs
                tokens = state.take_tokens(seg.tokens)
                if governor is not None:
                    tokens = governor.follow(tokens)
                for audio, seg_end in token_audio(tokens, t2w, cancelled=state.cancelled):
                    if state.cancelled():
                        break
                    if audio.size or (seg_end and seg.is_last):
                        chunk = state.chunk(audio, seg, sentence_final=seg_end)
                        final_sent = final_sent or chunk.is_final
                        yield chunk
            if seg is not None and not final_sent and not state.cancelled():
                # a streamed text that ended right after a segment boundary: close the take
                last = Segment(seg.index, seg.text, iter(()), True)
                yield state.chunk(np.zeros(0, np.float32), last, sentence_final=True)
        finally:
            close = getattr(segments, "close", None)
            if close is not None:
                close()  # stops and waits for the LM thread when the caller leaves early
            set_torch_threads(threads_before)
            release_free_memory()  # the request's flow cache and activations go back to the system
        if state.cancelled():
            logger.info("request stopped after %d chunks (cancelled)", state.chunk_index)

    def _prompt_flow_cache(self, t2w: Token2WavStream) -> FlowCache | None:
        """The prompt frames' flow states for this stream's prompt and flow settings (kept for one
        prompt: the voice in use; computed on first use, dropped if larger than the cache bound)."""
        key = (_tensor_digest(t2w.prompt_token, t2w.prompt_feat, t2w.embedding), t2w.n_steps, t2w.cfg_rate,
               t2w.flow_autocast)
        if self._prompt_cache_entry is not None and self._prompt_cache_entry[0] == key:
            return self._prompt_cache_entry[1]
        self._prompt_cache_entry = None  # the old voice's states go before the new ones are made
        flow: Any = self.model.flow
        cache = prompt_flow_cache(flow, t2w.prompt_token, t2w.prompt_feat, t2w.embedding, schedule=t2w.schedule,
                                  n_steps=t2w.n_steps, cfg_rate=t2w.cfg_rate, autocast=t2w.flow_autocast)
        if cache is None or cache.nbytes() > int(self.perf.flow_cache_mb * 1e6):
            return None
        self._prompt_cache_entry = (key, cache)
        logger.info("cached the prompt's flow states: %d tokens, %.0f MB", cache.tokens, cache.nbytes() / 1e6)
        return cache

    @property
    def governed(self) -> bool:
        """Whether requests on the caller's thread follow a :class:`~cosycore.threads.CoreGovernor`
        (CPU, more than one thread, OpenMP's spinning wait, Linux)."""
        return self.model.device.type == "cpu" and self.threads > 1 and self._governor_allowed

    @property
    def overlaps(self) -> bool:
        """Whether the LM decodes on a thread of its own while token2wav runs on the caller's (CPU only)."""
        return self.perf.overlap and self.model.device.type == "cpu" and self.threads >= OVERLAP_MIN_THREADS

    def _run_ahead(self, segments: Iterator[Segment], state: RequestState) -> Iterator[Segment]:
        """The segments with their LM tokens decoded on a producer thread, ahead of token2wav.

        The producer walks the segments (text normalisation, LM decoding, with the request's own
        generator: the tokens are the same as without the overlap) and hands over ``("seg", segment)``,
        ``("tok", id)`` and ``("end", None)`` events through a bounded queue; this thread, the caller's,
        runs the flow and the vocoder on them. Each side gets half of :attr:`threads`. Cancel stops
        the producer at its next token; leaving early stops it and waits for it.
        """
        per_stage = stage_threads(self.threads, overlap=True)
        set_torch_threads(per_stage)

        def events() -> Iterator[tuple[str, object]]:
            for seg in segments:
                if state.cancelled():
                    return
                yield "seg", seg
                for tok in seg.tokens:
                    if state.cancelled():
                        return
                    yield "tok", tok
                yield "end", None

        @contextlib.contextmanager
        def lm_thread() -> Iterator[None]:
            set_torch_threads(per_stage)
            # The cancel scope is per thread: the LM's cancel points need this request's on this one too
            # (a Cancelled raised here reaches the caller's thread through the queue, as any error does).
            with torch.inference_mode(), cancel_scope(state.cancelled):
                yield

        lm_done = threading.Event()
        stream = run_ahead(events, capacity=LM_AHEAD_TOKENS, name="cosy-lm", context=lm_thread, done=lm_done)
        boost = self.perf.tail_threads and per_stage < self.threads

        def tokens() -> Iterator[int]:
            nonlocal boost
            for kind, value in stream:
                if boost and lm_done.is_set():
                    set_torch_threads(self.threads)  # the LM has finished: token2wav gets every thread
                    boost = False
                if kind == "end":
                    return
                yield value  # type: ignore[misc]

        try:
            for kind, value in stream:
                if kind != "seg":
                    continue  # the rest of a segment that token2wav left early (cancelled)
                seg = value
                assert isinstance(seg, Segment)
                yield Segment(seg.index, seg.text, tokens(), seg.is_last)
        finally:
            stream.close()

    def _segments(self, req: SynthesisRequest, base: ModelInputs, g_llm: torch.Generator) -> Iterator[Segment]:
        if isinstance(req.text, str):
            yield from self._sentence_segments(req, req.text, base, g_llm)
            return
        text = StreamedText(self._piece_ids(req.text))
        index = 0
        while True:  # one LM generation per bounded stretch of the streamed text
            seg = Segment(index, "", iter(()), False)
            tokens = self.model.llm.generate_bistream(
                text.segment(), base.prompt_text_ids, base.llm_prompt_speech, generator=g_llm,
                min_len=req.min_tokens or 0, max_len=req.max_tokens,
            )
            seg.tokens = then_mark_last(tokens, seg, text)
            yield seg
            if text.exhausted or not text.has_more():  # has_more waits for the next piece only between segments
                return
            index += 1

    def _sentences(self, req: SynthesisRequest, text: str) -> Iterator[str]:
        return spoken_sentences(text, reading=self.reading(req), family=self.cfg.family, mode=req.mode,
                                language=req.language, text_frontend=req.text_frontend, tokenizer=self.tokenizer)

    def spoken_sentences(self, text: str, *, language: str | None = None, text_frontend: bool = True,
                         reading: TextReading | None = None, mode: Mode = "zero_shot") -> Iterator[str]:
        """The segments a request with this text would speak, in order (see :func:`spoken_sentences`);
        ``reading`` None: the engine's default text reading."""
        return spoken_sentences(text, reading=reading or self.text_reading, family=self.cfg.family, mode=mode,
                                language=language, text_frontend=text_frontend, tokenizer=self.tokenizer)

    def _sentence_segments(self, req: SynthesisRequest, text: str, base: ModelInputs,
                           g_llm: torch.Generator) -> Iterator[Segment]:
        cache: KVCache = self.model.llm.new_cache(1024)  # reused (and grown) across the sentences
        index = 0
        for sentence, is_last in with_last(self._sentences(req, text)):
            ids = self.tokenizer.encode(sentence)
            if not ids:
                logger.info("skipping a segment without text tokens: %r", sentence[:40])
                continue
            tokens = self.model.llm.generate(
                ids, base.prompt_text_ids, base.llm_prompt_speech, generator=g_llm,
                min_len=req.min_tokens, max_len=req.max_tokens, cache=cache,
            )
            yield Segment(index, sentence, tokens, is_last)
            index += 1

    def _piece_ids(self, pieces: Iterable[str]) -> Iterator[tuple[str, list[int]]]:
        """Token ids of streamed text pieces, each tokenised on its own (as the original does).

        Pieces are spoken as they are (no normalisation: a piece may end mid-word). A control marker
        is refused even when it is split across pieces.
        """
        tail = ""
        total = 0
        for piece in pieces:
            if not isinstance(piece, str):
                raise InputError(f"Streamed text must come as strings, got {type(piece).__name__}.")
            total += len(piece)
            check_utf8(piece, "streamed text")
            if total > self.max_text_chars:
                raise too_long(total, self.max_text_chars, "streamed text")
            window = tail + piece
            if find_control_markers(window):
                raise InputError(
                    f"The streamed text contains a control marker such as {ENDOFPROMPT}; markers are added "
                    "by the program. Remove it from the text and put any instruction in the instruction field."
                )
            tail = window[-_MARKER_TAIL:]
            yield piece, list(self.tokenizer.encode(piece))
