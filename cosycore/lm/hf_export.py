"""Export of the speech LM to the Hugging Face ``Qwen2ForCausalLM`` layout (for vLLM and transformers).

:func:`export_hf` turns a :class:`~cosycore.lm.speech_lm.SpeechLM` (or a release folder) into a folder that
a stock ``Qwen2ForCausalLM`` loads; :func:`read_export` checks such a folder and returns its
:class:`ExportLayout`; :func:`cached_export` keeps one export per release folder and redoes it when
``llm.pt`` changes. Nothing here imports transformers or vLLM.

A stock Qwen2 has one vocabulary shared by its input table and its output head, while the speech
LM reads text, speech and (CosyVoice2) two extra rows, and predicts speech tokens only. The export
therefore lays out one *export vocabulary* (Vs = speech rows, 6564 CosyVoice2 / 6761 CosyVoice3):

    ids [0, Vs)               speech tokens: input row = ``speech_embedding``, head row = ``llm_decoder``
    ids Vs, Vs + 1            CosyVoice2 only: sos and task_id (the ``llm_embedding`` rows); CosyVoice3
                              keeps both among its speech rows (6561 and 6563)
    ids [text_offset, +Vt)    text tokens (only with ``include_text=True``): the Qwen ``embed_tokens`` rows
    up to a multiple of 128   zero padding rows

A sampled speech id is fed back as the same id, so a backend never maps generated ids. Head rows
other than the speech rows are zero. A stock Qwen2 head has no bias, so the CosyVoice2 decoder bias
is kept beside the weights in ``logit_bias.safetensors``, which also holds -inf for every id that is
not a speech id: ``hf_logits + logit_bias`` equals ``SpeechLM.logits`` on ids [0, Vs) and is -inf
elsewhere. The original instead swaps the input table for the speech table and needs a custom model
class for the CosyVoice2 bias; keeping the stock class lets transformers (and vLLM) load the export
unchanged, which is how tests/test_hf_export.py checks it on the CPU.

Without text rows the prompt is fed as embeddings (``SpeechLM.build_lm_input``): the head is
only Vs rows plus padding, which is what a decoding backend wants. With them (:meth:`ExportLayout.prompt_ids`) the
whole prompt is token ids, at the price of a 152k-row head.

Files: ``config.json``, ``generation_config.json``, ``model.safetensors``, ``logit_bias.safetensors``
and ``cosy_export.json`` (the :class:`ExportLayout`: where every kind of id lives, and what was
exported from). The folder is written next to its destination and renamed into place, so a reader
sees the previous export or the complete new one.

Shape legend: Vs speech rows, Vx export vocabulary (``ExportLayout.vocab_size``), D model width.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from ..config import LLMConfig, load_model_config
from ..errors import ConfigError, ModelLoadError, ModelNotFoundError, StorageError
from .load import load_llm
from .speech_lm import SpeechLM
from .token_ids import TokenIds, as_ids

logger = logging.getLogger(__name__)

EXPORT_FORMAT = "cosy-studio-qwen2-export"
EXPORT_VERSION = 1
LAYOUT_FILE = "cosy_export.json"
WEIGHTS_FILE = "model.safetensors"
BIAS_FILE = "logit_bias.safetensors"
BIAS_KEY = "logit_bias"
CONFIG_FILE = "config.json"
GENERATION_FILE = "generation_config.json"
EXPORT_FILES = (CONFIG_FILE, GENERATION_FILE, WEIGHTS_FILE, BIAS_FILE, LAYOUT_FILE)
VOCAB_MULTIPLE = 128  # pad the export vocabulary to this many rows (aligned GEMMs)
_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
SAFETENSORS_HINT = ("it is part of the vllm extra: pip install -e '.[vllm]' on the CUDA machine "
                    "(for the export alone: pip install safetensors)")


def _safetensors_torch() -> Any:
    """``safetensors.torch``, imported on first use: it belongs to the optional ``vllm`` extra."""
    try:
        import safetensors.torch
    except ImportError as e:
        raise ModelLoadError(
            "the Hugging Face export for vLLM needs the safetensors package, which is not installed; "
            + SAFETENSORS_HINT
        ) from e
    return safetensors.torch


@dataclass(frozen=True)
class ExportLayout:
    """Where each kind of token lives in the export vocabulary, and what the export was made from.

    Written to ``cosy_export.json``; a backend maps its ids with it and nothing else.
    """

    family: str  # "cosyvoice2" or "cosyvoice3"
    vocab_size: int  # rows of embed_tokens and lm_head, padding included
    speech_vocab_size: int  # Vs: speech ids are [0, Vs), equal to the LM's own speech ids
    speech_token_size: int  # 6561: speech ids >= this are specials
    sos_id: int  # export id whose input row is sos
    task_id_id: int  # export id whose input row is task_id
    eos_id: int  # the family's end-of-speech id
    fill_id: int  # bistream fill id (never fed; listed for completeness)
    stop_token_ids: tuple[int, ...]  # every id that ends a unistream decode
    text_offset: int | None  # export id of text token 0; None = no text rows (prompt as embeddings)
    text_vocab_size: int  # rows of the Qwen text table (exported or not)
    hidden_size: int  # D, the width of prompt embeddings
    dtype: str  # "float32" / "bfloat16" / "float16" of model.safetensors
    sampling: dict[str, float] = field(default_factory=dict)  # the release's RAS knobs (top_p, top_k, ...)
    source: dict[str, Any] = field(default_factory=dict)  # what was exported (see _source_stamp); {} if unknown
    format: str = EXPORT_FORMAT
    version: int = EXPORT_VERSION

    @property
    def torch_dtype(self) -> torch.dtype:
        return _DTYPES[self.dtype]

    def text_id(self, token: int) -> int:
        """Export id of text token ``token`` (needs an export with text rows)."""
        if self.text_offset is None:
            raise ValueError("this export has no text rows; feed the prompt as embeddings")
        if not 0 <= token < self.text_vocab_size:
            raise ValueError(f"text token ids must lie in [0, {self.text_vocab_size}); got {token}")
        return self.text_offset + token

    def prompt_ids(self, text_ids: TokenIds, prompt_text_ids: TokenIds | None = None,
                   prompt_speech_ids: TokenIds | None = None) -> list[int]:
        """The unistream prompt ``[sos] ++ prompt_text ++ text ++ [task_id] ++ prompt_speech`` as export ids.

        The same sequence :meth:`SpeechLM.build_lm_input` embeds; needs ``include_text=True``.
        """
        text = [*as_ids(prompt_text_ids, "prompt_text_ids").tolist(), *as_ids(text_ids, "text_ids").tolist()]
        speech = as_ids(prompt_speech_ids, "prompt_speech_ids").tolist()
        bad = [s for s in speech if not 0 <= s < self.speech_token_size]
        if bad:
            raise ValueError(f"prompt speech tokens must lie in [0, {self.speech_token_size}); got {bad[0]}")
        return [self.sos_id, *(self.text_id(t) for t in text), self.task_id_id, *speech]

    def to_json(self) -> str:
        data = asdict(self)
        data["stop_token_ids"] = list(self.stop_token_ids)
        return json.dumps(data, indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str, where: Path) -> ExportLayout:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ConfigError(f"{where} is not valid JSON ({e}); export the model again") from e
        if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
            raise ConfigError(f"{where} was not written by cosycore's Hugging Face export")
        if data.get("version") != EXPORT_VERSION:
            raise ConfigError(
                f"{where} is export version {data.get('version')}, this cosycore reads version "
                f"{EXPORT_VERSION}; export the model again"
            )
        try:
            data["stop_token_ids"] = tuple(data["stop_token_ids"])
            layout = cls(**data)
        except (KeyError, TypeError) as e:
            raise ConfigError(f"{where} lacks or misnames a field ({e}); export the model again") from e
        if layout.dtype not in _DTYPES:
            raise ConfigError(f"{where} names an unknown dtype {layout.dtype!r}")
        return layout


def export_layout(cfg: LLMConfig, *, include_text: bool = False, dtype: torch.dtype = torch.float32,
                  source: dict[str, Any] | None = None) -> ExportLayout:
    """The export vocabulary of a speech LM with config ``cfg`` (see the module docstring)."""
    vs = cfg.speech_vocab_size
    cv2 = cfg.family == "cosyvoice2"
    sos_id = vs if cv2 else cfg.sos_index  # CV2: the llm_embedding rows follow the speech rows
    task_id_id = vs + 1 if cv2 else cfg.task_id_index
    end = vs + (2 if cv2 else 0)
    text_offset = end if include_text else None
    if include_text:
        end += cfg.qwen.vocab_size
    padded = -(-end // VOCAB_MULTIPLE) * VOCAB_MULTIPLE
    return ExportLayout(
        family=cfg.family,
        vocab_size=padded,
        speech_vocab_size=vs,
        speech_token_size=cfg.speech_token_size,
        sos_id=sos_id,
        task_id_id=task_id_id,
        eos_id=cfg.eos_token,
        fill_id=cfg.fill_token,
        stop_token_ids=tuple(cfg.stop_token_ids),
        text_offset=text_offset,
        text_vocab_size=cfg.qwen.vocab_size,
        hidden_size=cfg.qwen.hidden_size,
        dtype=_dtype_name(dtype),
        sampling={"top_p": cfg.top_p, "top_k": cfg.top_k, "win_size": cfg.win_size, "tau_r": cfg.tau_r},
        source=dict(source or {}),
    )


def _dtype_name(dtype: torch.dtype) -> str:
    for name, value in _DTYPES.items():
        if value == dtype:
            return name
    raise ValueError(f"the export is written as float32, bfloat16 or float16, not {dtype}")


# --------------------------------------------------------------------------------------------
# Building the tensors and the config files
# --------------------------------------------------------------------------------------------


def _hf_key(name: str) -> str:
    """Our parameter name -> the Hugging Face Qwen2 name (``qwen.layers.0.mlp...`` -> ``model.layers.0.mlp...``)."""
    if name.startswith("qwen."):
        return "model." + name[len("qwen."):]
    raise KeyError(name)


def export_tensors(lm: SpeechLM, layout: ExportLayout) -> tuple[dict[str, Tensor], Tensor]:
    """The ``model.safetensors`` tensors (CPU, ``layout.dtype``, contiguous) and the logit bias [V] (float32)."""
    if lm.quantization is not None:
        raise ModelLoadError(
            f"this LM is quantized ({lm.quantization}); the export needs the float weights, so load it again "
            "without quantization"
        )
    dtype = layout.torch_dtype
    cfg = lm.cfg
    d = cfg.qwen.hidden_size
    vs = layout.speech_vocab_size

    def cpu(t: Tensor) -> Tensor:
        return t.detach().to(device="cpu", dtype=dtype).contiguous()

    out: dict[str, Tensor] = {}
    for name, t in lm.qwen.state_dict().items():
        if name != "embed_tokens.weight":
            out[_hf_key("qwen." + name)] = cpu(t)
    embed = torch.zeros(layout.vocab_size, d, dtype=dtype)  # [Vx, D]
    embed[:vs] = cpu(lm.speech_embedding.weight)
    if cfg.family == "cosyvoice2":
        embed[layout.sos_id] = cpu(lm.special_embedding("sos"))[0]
        embed[layout.task_id_id] = cpu(lm.special_embedding("task_id"))[0]
    if layout.text_offset is not None:
        embed[layout.text_offset : layout.text_offset + layout.text_vocab_size] = cpu(lm.qwen.embed_tokens.weight)
    head = torch.zeros(layout.vocab_size, d, dtype=dtype)  # [Vx, D]
    head[:vs] = cpu(lm.llm_decoder.weight)
    out["model.embed_tokens.weight"] = embed
    out["lm_head.weight"] = head
    bias = torch.full((layout.vocab_size,), -float("inf"))  # [Vx]
    dec_bias = lm.llm_decoder.bias
    bias[:vs] = 0.0 if dec_bias is None else dec_bias.detach().float().cpu()
    return out, bias


def hf_config(cfg: LLMConfig, layout: ExportLayout) -> dict[str, Any]:
    """``config.json`` of the export: a stock Qwen2 with the export vocabulary and an untied head."""
    q = cfg.qwen
    return {
        "architectures": ["Qwen2ForCausalLM"],
        "model_type": "qwen2",
        "hidden_size": q.hidden_size,
        "intermediate_size": q.intermediate_size,
        "num_hidden_layers": q.num_layers,
        "num_attention_heads": q.num_heads,
        "num_key_value_heads": q.num_kv_heads,
        "head_dim": q.head_dim,
        "hidden_act": "silu",
        "rms_norm_eps": q.rms_norm_eps,
        "rope_theta": q.rope_theta,
        "rope_scaling": None,
        "max_position_embeddings": q.max_position_embeddings,
        "vocab_size": layout.vocab_size,
        "tie_word_embeddings": False,
        "attention_dropout": 0.0,
        "use_sliding_window": False,
        "sliding_window": None,
        "max_window_layers": q.num_layers,
        "initializer_range": 0.02,
        "use_cache": True,
        "bos_token_id": layout.sos_id,
        "eos_token_id": layout.eos_id,
        "torch_dtype": layout.dtype,
    }


def generation_config(layout: ExportLayout) -> dict[str, Any]:
    """``generation_config.json``: every stop id ends generation; no sampling defaults are implied.

    Plain top-k/top-p sampling is *not* the release's RAS rule; backends apply RAS themselves
    (:mod:`cosycore.lm.vllm_backend`), so only the stop ids are given here.
    """
    return {
        "bos_token_id": layout.sos_id,
        "eos_token_id": list(layout.stop_token_ids),
        "pad_token_id": layout.eos_id,
    }


# --------------------------------------------------------------------------------------------
# Writing and reading export folders
# --------------------------------------------------------------------------------------------


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _source_stamp(model_dir: Path) -> dict[str, Any]:
    """What identifies the exported weights: the resolved ``llm.pt`` with its size and mtime."""
    ckpt = (model_dir / "llm.pt").resolve()
    st = ckpt.stat()
    return {"llm_pt": str(ckpt), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _is_export_dir(path: Path) -> bool:
    return (path / LAYOUT_FILE).is_file()


def _replace_dir(tmp: Path, out_dir: Path) -> None:
    """Move the finished ``tmp`` folder to ``out_dir``, replacing an older export there."""
    old: Path | None = None
    if out_dir.exists():
        old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
        if old.exists():
            shutil.rmtree(old)
        os.replace(out_dir, old)
    try:
        os.replace(tmp, out_dir)
    except OSError:
        if old is not None:
            os.replace(old, out_dir)  # put the previous export back
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def export_hf(source: SpeechLM | Path | str, out_dir: Path | str, *, include_text: bool = False,
              dtype: torch.dtype = torch.float32) -> ExportLayout:
    """Write the Hugging Face Qwen2 export of ``source`` (a loaded LM or a release folder) to ``out_dir``.

    ``include_text`` adds the 151936 text rows so a prompt can be fed as ids (see the module
    docstring). ``dtype`` is the dtype of ``model.safetensors`` (bfloat16 halves it for a GPU).
    An existing export in ``out_dir`` is replaced; a folder that holds anything else is refused
    with :class:`StorageError`, so nothing of the user's is deleted. Returns the written layout.
    """
    save_file = _safetensors_torch().save_file
    out_dir = Path(out_dir)
    if isinstance(source, SpeechLM):
        lm, stamp = source, {}
    else:
        cfg = load_model_config(source)
        lm, stamp = load_llm(cfg), _source_stamp(cfg.model_dir)
    if out_dir.exists() and not (out_dir.is_dir() and (_is_export_dir(out_dir) or not any(out_dir.iterdir()))):
        raise StorageError(
            f"{out_dir} exists and is not a cosycore export (no {LAYOUT_FILE}); choose an empty or new folder"
        )
    layout = export_layout(lm.cfg, include_text=include_text, dtype=dtype, source=stamp)
    tensors, bias = export_tensors(lm, layout)
    tmp: Path | None = None
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".tmp", dir=out_dir.parent))
        save_file(tensors, str(tmp / WEIGHTS_FILE), metadata={"format": "pt"})
        save_file({BIAS_KEY: bias}, str(tmp / BIAS_FILE), metadata={"format": "pt"})
        _write_json(tmp / CONFIG_FILE, hf_config(lm.cfg, layout))
        _write_json(tmp / GENERATION_FILE, generation_config(layout))
        (tmp / LAYOUT_FILE).write_text(layout.to_json(), encoding="utf-8")  # last: marks the folder complete
        _replace_dir(tmp, out_dir)
        tmp = None
    except OSError as e:
        raise StorageError(f"could not write the export to {out_dir}: {e.strerror or e}. Nothing was replaced.") from e
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                shutil.rmtree(tmp)
    logger.info("exported the %s LM to %s (vocabulary %d rows, %s%s)", lm.cfg.family, out_dir,
                layout.vocab_size, layout.dtype, ", with text rows" if include_text else "")
    return layout


def read_export(path: Path | str) -> ExportLayout:
    """Check that ``path`` is a complete export and return its layout.

    Raises :class:`ModelNotFoundError` when the folder or one of its files is missing (for example
    an export interrupted by hand, or a plain Hugging Face folder) and :class:`ConfigError` when
    ``cosy_export.json`` or ``config.json`` is malformed or disagrees with it.
    """
    path = Path(path)
    if not path.is_dir():
        raise ModelNotFoundError(f"the export folder {path} does not exist; run the export first")
    missing = [name for name in EXPORT_FILES if not (path / name).is_file()]
    if missing:
        raise ModelNotFoundError(
            f"{path} is not a complete cosycore export: {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} missing. Delete the folder and export again."
        )
    layout = ExportLayout.from_json((path / LAYOUT_FILE).read_text(encoding="utf-8"), path / LAYOUT_FILE)
    try:
        config = json.loads((path / CONFIG_FILE).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path / CONFIG_FILE} is not valid JSON ({e}); export the model again") from e
    if config.get("vocab_size") != layout.vocab_size or config.get("hidden_size") != layout.hidden_size:
        raise ConfigError(
            f"{path / CONFIG_FILE} (vocab_size {config.get('vocab_size')}, hidden_size {config.get('hidden_size')}) "
            f"disagrees with {LAYOUT_FILE} ({layout.vocab_size}, {layout.hidden_size}); export the model again"
        )
    return layout


def read_logit_bias(path: Path | str, layout: ExportLayout | None = None) -> Tensor:
    """The export's logit bias [V] (float32, CPU): the decoder bias on speech ids, -inf elsewhere."""
    load_file = _safetensors_torch().load_file
    path = Path(path)
    layout = layout or read_export(path)
    bias = load_file(str(path / BIAS_FILE)).get(BIAS_KEY)
    if bias is None or tuple(bias.shape) != (layout.vocab_size,):
        raise ConfigError(
            f"{path / BIAS_FILE} should hold {BIAS_KEY!r} with {layout.vocab_size} values; export the model again"
        )
    return bias.float()


def cached_export(model_dir: Path | str, cache_dir: Path | str, *, include_text: bool = False,
                  dtype: torch.dtype = torch.float32) -> Path:
    """The export of the release in ``model_dir`` under ``cache_dir``, made now unless a current one is there.

    The cache key is the family, the options and the resolved ``llm.pt`` with its size and
    modification time, so a changed or replaced checkpoint is exported again (the original reuses
    ``<model_dir>/vllm`` forever). Returns the export folder.
    """
    cfg = load_model_config(model_dir)
    stamp = _source_stamp(cfg.model_dir)
    name = f"{cfg.family}-{_dtype_name(dtype)}{'-text' if include_text else ''}"
    out_dir = Path(cache_dir) / name
    if _is_export_dir(out_dir):
        try:
            layout = read_export(out_dir)
        except ModelLoadError as e:
            logger.warning("the cached export in %s is unusable (%s); exporting again", out_dir, e)
        else:
            if layout.source == stamp:
                logger.debug("reusing the export in %s", out_dir)
                return out_dir
            logger.info("%s changed since the export in %s; exporting again", stamp["llm_pt"], out_dir)
    export_hf(cfg.model_dir, out_dir, include_text=include_text, dtype=dtype)
    return out_dir


def speech_scores(logits: Tensor, bias: Tensor, layout: ExportLayout, *, ignore_eos: bool,
                  eos_rule: str) -> Tensor:
    """Log-probabilities [Vs] over the speech vocabulary from export logits [Vx], as :meth:`SpeechLM.scores`.

    ``logits + bias`` restricted to the speech ids is the LM's own ``llm_decoder`` output; the
    stop-id masking while ``ignore_eos`` follows the same ``eos_rule`` (``"upstream"`` masks id
    6561 only, ``"all_specials"`` every id >= 6561).
    """
    vs = layout.speech_vocab_size
    logp = torch.log_softmax((logits[..., :vs].float() + bias[:vs].to(logits.device)), dim=-1)  # [.., Vs]
    if ignore_eos:
        n = layout.speech_token_size
        if eos_rule == "upstream":
            logp[..., n] = -float("inf")
        elif eos_rule == "all_specials":
            logp[..., n:] = -float("inf")
        else:
            raise ValueError(f"eos_rule must be 'upstream' or 'all_specials', not {eos_rule!r}")
    return logp

