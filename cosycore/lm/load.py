"""Loading the speech LM from a release folder's ``llm.pt``, checked against the Qwen config."""

from __future__ import annotations

import logging
import zipfile
from collections.abc import Callable
from pathlib import Path

import torch

from ..config import QWEN_DIR, LLMConfig, ModelConfig, QwenConfig
from ..devices import resolve_device
from ..errors import ConfigMismatchError
from ..weights import StateDict, assign_state_dict, check_state_dict, load_checkpoint, normalize_keys
from .layout import use_decode_layout
from .speech_lm import SpeechLM, quantize_decoder_layer

logger = logging.getLogger(__name__)

LM_HEAD_KEY = "llm.model.lm_head.weight"  # tied copy of embed_tokens in llm.pt; never used for TTS
EMBED_KEY = "qwen.embed_tokens.weight"  # after weights.normalize_keys


def _drop_tied_head(sd: StateDict, source: Path) -> StateDict:
    """Remove the tied ``lm_head`` copy, checking (cheaply) that it equals ``embed_tokens``."""
    head = sd.get(LM_HEAD_KEY)
    if head is None:
        return sd
    out = {k: v for k, v in sd.items() if k != LM_HEAD_KEY}
    embed = out.get(EMBED_KEY)
    if embed is None or head.shape != embed.shape:
        logger.warning("%s: lm_head has shape %s but embed_tokens does not match; ignored (unused)",
                       source, tuple(head.shape))
        return out
    shared = head.untyped_storage().data_ptr() == embed.untyped_storage().data_ptr() and (
        head.storage_offset() == embed.storage_offset() and head.stride() == embed.stride()
    )
    if not shared:
        rows = torch.linspace(0, head.shape[0] - 1, 64).long()  # a sample: a full compare pages in 1 GB
        if not torch.equal(head[rows], embed[rows].to(head.dtype)):
            logger.warning("%s: lm_head is not a copy of embed_tokens; ignored (TTS never uses it)", source)
    return out


def _layer_count(sd: StateDict) -> int:
    idx = {int(k.split(".")[2]) for k in sd if k.startswith("qwen.layers.") and k.split(".")[2].isdigit()}
    return max(idx) + 1 if idx else 0


def _config_mismatches(sd: StateDict, q: QwenConfig) -> list[str]:
    """``config.json says X, llm.pt has Y`` items, read from tensor shapes only."""
    found: list[str] = []

    def check(name: str, want: int, key: str, dim: int) -> None:
        if key in sd and int(sd[key].shape[dim]) != want:
            found.append(f"{name}={want}, llm.pt has {int(sd[key].shape[dim])}")

    check("vocab_size", q.vocab_size, EMBED_KEY, 0)
    check("hidden_size", q.hidden_size, EMBED_KEY, 1)
    n_layers = _layer_count(sd)
    if n_layers and n_layers != q.num_layers:
        found.append(f"num_hidden_layers={q.num_layers}, llm.pt has {n_layers}")
    layer0 = "qwen.layers.0."
    check("num_attention_heads*head_dim", q.num_heads * q.head_dim, layer0 + "self_attn.q_proj.weight", 0)
    check("num_key_value_heads*head_dim", q.num_kv_heads * q.head_dim, layer0 + "self_attn.k_proj.weight", 0)
    check("intermediate_size", q.intermediate_size, layer0 + "mlp.gate_proj.weight", 0)
    return found


def _check_against_config(sd: StateDict, cfg: LLMConfig, ckpt: Path, config_json: str,
                          yaml_name: str) -> None:
    items = _config_mismatches(sd, cfg.qwen)
    if items:
        raise ConfigMismatchError(
            f"{config_json} and {ckpt} disagree: " + "; ".join(f"config.json says {s}" for s in items)
            + ". The two files come from different models; download the release folder again."
        )
    rows = sd.get("speech_embedding.weight")
    if rows is not None and int(rows.shape[0]) != cfg.speech_vocab_size:
        raise ConfigMismatchError(
            f"{yaml_name} describes a {cfg.family} LM with {cfg.speech_vocab_size} speech-token rows, "
            f"but {ckpt} has {int(rows.shape[0])}; the llm.pt belongs to the other model family."
        )


def load_llm(cfg: ModelConfig | LLMConfig, path: Path | str | None = None, *,
             device: torch.device | str = "cpu", dtype: torch.dtype = torch.float32,
             quantize: str | None = None) -> SpeechLM:
    """Build :class:`SpeechLM` on the meta device and fill it from ``llm.pt`` (strict, no copy).

    ``quantize="int8"`` (CPU only) packs the linear layers to int8 while loading, one decoder layer at a
    time, with the numbers of :meth:`SpeechLM.quantize_int8` on the float model and without ever holding
    the whole float model; ``None``, the default, keeps the exact float weights.

    ``path`` defaults to ``<model_dir>/llm.pt`` when ``cfg`` is a :class:`ModelConfig`. Raises
    :class:`ConfigMismatchError` when ``CosyVoice-BlankEN/config.json`` (or the yaml) disagrees
    with the checkpoint's shapes, and :class:`StateDictMismatchError` for missing/extra keys.
    """
    llm_cfg = cfg.llm if isinstance(cfg, ModelConfig) else cfg
    if path is None:
        if not isinstance(cfg, ModelConfig):
            raise ValueError("load_llm needs the llm.pt path when given an LLMConfig")
        path = cfg.model_dir / "llm.pt"
    path = Path(path)
    if isinstance(cfg, ModelConfig):
        config_json, yaml_name = str(cfg.qwen_dir / "config.json"), cfg.yaml_path.name or f"{cfg.family}.yaml"
    else:
        config_json, yaml_name = f"{QWEN_DIR}/config.json", f"{llm_cfg.family}.yaml"
    dev = resolve_device(device)
    sd = _drop_tied_head(normalize_keys(load_checkpoint(path), "llm"), path)
    _check_against_config(sd, llm_cfg, path, config_json, yaml_name)
    with torch.device("meta"):
        model = SpeechLM(llm_cfg)
    if quantize is None:
        assign_state_dict(model, sd, path)
        model = model.to(device=dev, dtype=dtype)
        use_decode_layout(model)  # float32 on a CPU: the wide matrices input-major (cosycore.lm.layout)
    else:
        check_state_dict(model, sd, path)
        # A zip checkpoint is mapped afresh for each part (below); a legacy one cannot be mapped, so
        # it stays read in as a whole.
        whole = None if zipfile.is_zipfile(path) else sd
        del sd  # the mapping of the whole file must not outlive this point
        _fill_int8(model, lambda keep: _checkpoint_part(path, keep, whole), path, quantize, dev, dtype)
    model.eval().requires_grad_(False)
    logger.info("loaded %s LM from %s (%d layers, width %d) on %s as %s", llm_cfg.family, path,
                llm_cfg.qwen.num_layers, llm_cfg.qwen.hidden_size, dev, dtype)
    return model


def _checkpoint_part(path: Path, keep: Callable[[str], bool], whole: StateDict | None) -> StateDict:
    """The tensors of ``llm.pt`` whose (normalised) keys ``keep`` accepts.

    Each call maps the file anew (``torch.load(mmap=True)`` maps the whole file as one block that
    lives as long as any tensor taken from it), so once the caller drops these tensors, the pages
    they were read from leave the process's memory.
    """
    sd = whole if whole is not None else normalize_keys(load_checkpoint(path), "llm")
    return {k: v for k, v in sd.items() if keep(k)}


def _fill_int8(model: SpeechLM, read: Callable[[Callable[[str], bool]], StateDict], path: Path, mode: str,
               dev: torch.device, dtype: torch.dtype) -> None:
    """Fill the meta-device ``model`` from its checkpoint and pack it to int8, one part at a time.

    Each decoder layer is read, cast, fused and packed (:func:`quantize_decoder_layer`) before the
    next is read, then the text-token table and the heads (:meth:`SpeechLM.quantize_int8_heads`); a
    part's float weights are dropped once packed. So the float backbone, 2 GB for the 0.5B LM, never
    exists at once: packing it whole set the peak memory of fast and draft mode (README
    "Performance"). The numbers are those of :meth:`SpeechLM.quantize_int8` on the float model.
    """
    scheme = model.check_quantizable(mode)
    swapped = 0
    for i, layer in enumerate(model.qwen.layers):
        prefix = f"qwen.layers.{i}."
        part = read(_under(prefix))
        _materialize(layer, {k[len(prefix):]: v for k, v in part.items()}, path, dev, dtype)
        del part
        swapped += quantize_decoder_layer(layer, scheme)
        _own_tensors(layer)
    rest = read(lambda k: not k.startswith("qwen.layers."))
    for name, module in _outside_layers(model):
        _materialize(module, {k[len(name) + 1:]: v for k, v in rest.items() if k.startswith(name + ".")},
                     path, dev, dtype)
    del rest, module  # the float text-token table and head are dropped once packed (next line)
    model.quantize_int8_heads(mode, swapped)
    for _, module in _outside_layers(model):
        _own_tensors(module)


def _outside_layers(model: SpeechLM) -> list[tuple[str, torch.nn.Module]]:
    """The modules of ``model`` with weights outside the decoder layers, with their key prefixes."""
    owners = [(f"qwen.{n}", m) for n, m in model.qwen.named_children() if n != "layers"]
    return owners + [(n, m) for n, m in model.named_children() if n != "qwen"]


def _under(prefix: str) -> Callable[[str], bool]:
    return lambda key: key.startswith(prefix)


def _materialize(module: torch.nn.Module, sd: StateDict, path: Path, dev: torch.device, dtype: torch.dtype) -> None:
    """Assign ``sd`` into the meta-device ``module`` (strict), on ``dev`` in ``dtype``."""
    assign_state_dict(module, sd, path)
    module.to(device=dev, dtype=dtype)


def _own_tensors(module: torch.nn.Module) -> None:
    """Copy the float parameters still read from the checkpoint's mapping (norms, the speech-token
    table) into the process's own memory, so that the mapping is released when its part is dropped."""
    with torch.no_grad():
        for p in module.parameters():
            p.data = p.data.clone()
