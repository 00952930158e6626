"""Reading a release folder: which family it is (:func:`detect_family`), the Qwen ``config.json``
(:func:`read_qwen_config`), and the yaml tree turned into a checked :class:`~.model_config.ModelConfig`
(:func:`load_model_config`)."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import (
    ConfigError,
    ModelNotFoundError,
    UnknownClassError,
    WrongModelFamilyError,
)
from ..safety import loads_strict_json
from .checks import check_config_values
from .model_config import (
    QWEN_DIR,
    YAML_NAMES,
    CFMConfig,
    ConformerEncoderConfig,
    DiTConfig,
    F0PredictorConfig,
    Family,
    FlowConfig,
    HiftConfig,
    LLMConfig,
    MelConfig,
    ModelConfig,
    QwenConfig,
    UNetConfig,
)
from .plain_yaml import Tagged, load_plain_yaml, read_small_text

logger = logging.getLogger(__name__)

_KNOWN = {
    "llm": {"Qwen2LM": "cosyvoice2", "CosyVoice3LM": "cosyvoice3"},
    "flow": {"CausalMaskedDiffWithXvec": "cosyvoice2", "CausalMaskedDiffWithDiT": "cosyvoice3"},
    "hift": {"HiFTGenerator": "cosyvoice2", "CausalHiFTGenerator": "cosyvoice3"},
}
_KNOWN_CHILDREN = {
    "Qwen2Encoder",
    "UpsampleConformerEncoder",
    "PreLookaheadLayer",
    "CausalConditionalCFM",
    "CausalConditionalDecoder",
    "DiT",
    "DictConfig",
    "ConvRNNF0Predictor",
    "CausalConvRNNF0Predictor",
}
_V1_CLASSES = {"TransformerLM", "MaskedDiffWithXvec"}


def _tagged(tree: Mapping[str, Any], key: str, where: Path) -> Tagged:
    node = tree.get(key)
    if not isinstance(node, Tagged) or node.kind != "new":
        raise ConfigError(f"{where.name}: the top-level key {key!r} must be a '!new:' class; found {node!r}")
    return node


def _child(parent: Tagged, key: str, where: Path) -> Tagged:
    node = parent.kwargs.get(key)
    if not isinstance(node, Tagged):
        raise ConfigError(f"{where.name}: {parent.class_name} needs a {key!r} entry")
    if node.class_name not in _KNOWN_CHILDREN:
        raise UnknownClassError(
            f"{where.name}: {parent.class_name}.{key} is {node.target}, which is not part of a "
            "CosyVoice2 or Fun-CosyVoice3 release. Use the yaml that came with the release folder."
        )
    return node


def _req(kw: Mapping[str, Any], key: str, owner: str, where: Path) -> Any:
    if key not in kw:
        raise ConfigError(f"{where.name}: {owner} is missing the setting {key!r}")
    return kw[key]


def read_qwen_config(qwen_dir: Path) -> QwenConfig:
    path = qwen_dir / "config.json"
    try:
        text = read_small_text(path, "config.json")
    except ModelNotFoundError as e:
        raise ModelNotFoundError(
            f"{path} is missing; the release folder must contain the {QWEN_DIR}/ folder "
            "(re-download the model or copy it in)"
        ) from e
    try:
        data = loads_strict_json(text)
    except ValueError as e:
        raise ConfigError(f"{path} is not valid JSON: {e}") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object; use the config.json that came with the release.")
    try:
        return QwenConfig(
            hidden_size=_int(data["hidden_size"]),
            num_layers=_int(data["num_hidden_layers"]),
            num_heads=_int(data["num_attention_heads"]),
            num_kv_heads=_int(data.get("num_key_value_heads", data["num_attention_heads"])),
            intermediate_size=_int(data["intermediate_size"]),
            rms_norm_eps=_float(data.get("rms_norm_eps", 1e-6)),
            rope_theta=_float(data.get("rope_theta", 10000.0)),
            vocab_size=_int(data["vocab_size"]),
            max_position_embeddings=_int(data.get("max_position_embeddings", 32768)),
            tie_word_embeddings=bool(data.get("tie_word_embeddings", True)),
            head_dim_override=_int(data["head_dim"]) if data.get("head_dim") else None,
        )
    except KeyError as e:
        raise ConfigError(f"{path} lacks the field {e.args[0]!r} that a Qwen2 config must have") from e
    except (ValueError, TypeError, OverflowError) as e:
        raise ConfigError(f"{path} has a value of the wrong type ({e}); use the config.json that came with the "
                          "release.") from e


def _int(value: Any) -> int:
    """A whole number from JSON: an int, or a float with no fraction; never a bool, text or list."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{value!r} is not a whole number")
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"{value!r} is not a whole number")
    return int(value)


def _float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{value!r} is not a number")
    return float(value)


def detect_family(model_dir: Path) -> tuple[Family, Path]:
    """Find the release yaml in ``model_dir`` and say which model family it is."""
    model_dir = Path(model_dir)
    if not model_dir.exists():
        raise ModelNotFoundError(
            f"The model folder {model_dir} does not exist. Choose the folder you downloaded "
            "(it contains cosyvoice2.yaml or cosyvoice3.yaml, llm.pt, flow.pt and hift.pt)."
        )
    if not model_dir.is_dir():
        raise ModelNotFoundError(f"{model_dir} is a file, not a model folder. Choose the folder that holds it.")
    if (model_dir / "cosyvoice.yaml").exists():
        raise WrongModelFamilyError(
            f"{model_dir} holds a CosyVoice v1 (CosyVoice-300M) model, which Cosy Studio does not run. "
            "Download CosyVoice2-0.5B or Fun-CosyVoice3-0.5B instead."
        )
    found = [(fam, model_dir / name) for name, fam in YAML_NAMES.items() if (model_dir / name).exists()]
    if not found:
        raise WrongModelFamilyError(
            f"{model_dir} is not a CosyVoice2 or Fun-CosyVoice3 release folder: it has neither "
            "cosyvoice2.yaml nor cosyvoice3.yaml. Choose the folder that contains the model's yaml."
        )
    if len(found) > 1:
        raise WrongModelFamilyError(
            f"{model_dir} has both cosyvoice2.yaml and cosyvoice3.yaml; keep one release per folder."
        )
    return found[0]


def _tuple_ints(v: Any) -> tuple[int, ...]:
    return tuple(int(x) for x in v)


# Parsed configs by the bytes they were read from (see _config_key): the app reads a folder's config when
# it is chosen, when it has loaded and for each check; PyYAML's pure-Python parser takes 50-100 ms a time.
_CONFIGS: OrderedDict[str, ModelConfig] = OrderedDict()
_CONFIGS_LOCK = threading.Lock()
_CONFIGS_KEPT = 16
_KEY_MAX_BYTES = 1 << 20  # larger files are not cached (the loader refuses what is too large to be a config)


def _config_key(model_dir: Path) -> str | None:
    """A sha256 of the folder's path and of the bytes of every file the config is read from (the yamls
    the family is told by, the Qwen config.json); None where one cannot be read or is unusually large."""
    h = hashlib.sha256(str(model_dir.resolve()).encode())
    for path in [model_dir / name for name in sorted(YAML_NAMES)] + [model_dir / QWEN_DIR / "config.json"]:
        try:
            if not path.is_file():
                h.update(b"\0absent")
                continue
            if path.stat().st_size > _KEY_MAX_BYTES:
                return None
            h.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
        except OSError:
            return None
    return h.hexdigest()


def load_model_config(model_dir: Path | str) -> ModelConfig:
    """Read a release folder's yaml and Qwen config.json into a :class:`ModelConfig`.

    Every failure is a :class:`ConfigError` (or another :class:`ModelLoadError`): a value of the
    wrong type (``sample_rate: fast``, a list where a number belongs) and a value out of range
    (``chunk_size: 0``, ``rope_theta: 0``, ``.nan``) are refused here, before any network is built.
    """
    model_dir = Path(model_dir)
    key = _config_key(model_dir)
    if key is not None:
        with _CONFIGS_LOCK:
            if key in _CONFIGS:
                _CONFIGS.move_to_end(key)
                return _CONFIGS[key]  # frozen all the way down: shared safely
    try:
        cfg = _load_model_config(model_dir)
    except (ValueError, TypeError, OverflowError, AttributeError, IndexError, KeyError) as e:
        raise ConfigError(
            f"{model_dir}: a setting in the yaml has the wrong type or value ({type(e).__name__}: {e}). "
            "Use the yaml that came with the release folder."
        ) from e
    check_config_values(cfg)
    if key is not None:
        with _CONFIGS_LOCK:
            _CONFIGS[key] = cfg
            while len(_CONFIGS) > _CONFIGS_KEPT:
                _CONFIGS.popitem(last=False)
    return cfg


def _load_model_config(model_dir: Path) -> ModelConfig:
    family, yaml_path = detect_family(model_dir)
    tree = load_plain_yaml(yaml_path, overrides={"qwen_pretrain_path": str(model_dir / QWEN_DIR)})
    where = yaml_path

    llm_node, flow_node, hift_node = (_tagged(tree, k, where) for k in ("llm", "flow", "hift"))
    for key, node in (("llm", llm_node), ("flow", flow_node), ("hift", hift_node)):
        if node.class_name in _V1_CLASSES:
            raise WrongModelFamilyError(
                f"{where} describes a CosyVoice v1 {key} ({node.class_name}); Cosy Studio runs "
                "CosyVoice2-0.5B and Fun-CosyVoice3-0.5B."
            )
        fam = _KNOWN[key].get(node.class_name)
        if fam is None:
            raise UnknownClassError(
                f"{where.name}: {key} is {node.target}, which is not a known CosyVoice2 or "
                "Fun-CosyVoice3 class. Use the yaml that came with the release folder."
            )
        if fam != family:
            raise WrongModelFamilyError(
                f"{where.name} is named for {family} but its {key} is {node.class_name} ({fam}). "
                "The folder mixes two releases; re-download it."
            )

    # LLM --------------------------------------------------------------------------------
    lkw = llm_node.kwargs
    _child(llm_node, "llm", where)
    sampling = lkw.get("sampling")
    skw = sampling.kwargs if isinstance(sampling, Tagged) else {}
    if isinstance(sampling, Tagged) and sampling.class_name != "ras_sampling":
        raise UnknownClassError(f"{where.name}: llm.sampling is {sampling.target}; only ras_sampling is known")
    qwen = read_qwen_config(model_dir / QWEN_DIR)
    llm_in = int(_req(lkw, "llm_input_size", "llm", where))
    if llm_in != qwen.hidden_size:
        raise ConfigError(
            f"{where.name} says llm_input_size={llm_in} but {QWEN_DIR}/config.json says "
            f"hidden_size={qwen.hidden_size}; the folder mixes files from two models."
        )
    llm = LLMConfig(
        family=family,
        qwen=qwen,
        speech_token_size=int(lkw.get("speech_token_size", 6561)),
        mix_ratio=tuple(int(x) for x in lkw.get("mix_ratio", (5, 15))),  # type: ignore[arg-type]
        top_p=float(skw.get("top_p", 0.8)),
        top_k=int(skw.get("top_k", 25)),
        win_size=int(skw.get("win_size", 10)),
        tau_r=float(skw.get("tau_r", 0.1)),
    )

    # Flow -------------------------------------------------------------------------------
    fkw = flow_node.kwargs
    dec = _child(flow_node, "decoder", where)
    dkw = dec.kwargs
    cfm_params = dkw.get("cfm_params")
    ckw: Mapping[str, Any] = {}
    if isinstance(cfm_params, Tagged):
        ckw = cfm_params.kwargs.get("content", cfm_params.kwargs) or {}
    elif isinstance(cfm_params, Mapping):
        ckw = cfm_params
    cfm = CFMConfig(
        inference_cfg_rate=float(ckw.get("inference_cfg_rate", 0.7)),
        t_scheduler=str(ckw.get("t_scheduler", "cosine")),
    )
    if cfm.t_scheduler != "cosine":
        raise ConfigError(f"{where.name}: t_scheduler {cfm.t_scheduler!r} is not supported (cosine only)")
    est = _child(dec, "estimator", where)
    ekw = est.kwargs
    token_mel_ratio = int(fkw.get("token_mel_ratio", tree.get("token_mel_ratio", 2)))
    pre_lookahead = int(fkw.get("pre_lookahead_len", 3))
    encoder: ConformerEncoderConfig | None = None
    pre_ch: int | None = None
    estimator: UNetConfig | DiTConfig
    if family == "cosyvoice2":
        enc = _child(flow_node, "encoder", where)
        nkw = enc.kwargs
        encoder = ConformerEncoderConfig(
            input_size=int(nkw.get("input_size", fkw.get("input_size", 512))),
            output_size=int(nkw.get("output_size", 512)),
            attention_heads=int(nkw.get("attention_heads", 8)),
            linear_units=int(nkw.get("linear_units", 2048)),
            num_blocks=int(nkw.get("num_blocks", 6)),
            static_chunk_size=int(nkw.get("static_chunk_size", 25)),
            upsample_stride=token_mel_ratio,
            pre_lookahead_len=pre_lookahead,
        )
        estimator = UNetConfig(
            in_channels=int(_req(ekw, "in_channels", est.class_name, where)),
            out_channels=int(_req(ekw, "out_channels", est.class_name, where)),
            channels=_tuple_ints(ekw.get("channels", (256,))),
            attention_head_dim=int(ekw.get("attention_head_dim", 64)),
            n_blocks=int(ekw.get("n_blocks", 1)),
            num_mid_blocks=int(ekw.get("num_mid_blocks", 2)),
            num_heads=int(ekw.get("num_heads", 4)),
            act_fn=str(ekw.get("act_fn", "snake")),
            static_chunk_size=int(ekw.get("static_chunk_size", 50)),
        )
    else:
        pla = _child(flow_node, "pre_lookahead_layer", where)
        pre_ch = int(_req(pla.kwargs, "channels", "pre_lookahead_layer", where))
        estimator = DiTConfig(
            dim=int(_req(ekw, "dim", "DiT", where)),
            depth=int(_req(ekw, "depth", "DiT", where)),
            heads=int(ekw.get("heads", 8)),
            dim_head=int(ekw.get("dim_head", 64)),
            ff_mult=int(ekw.get("ff_mult", 4)),
            mel_dim=int(ekw.get("mel_dim", 80)),
            mu_dim=int(ekw.get("mu_dim", ekw.get("mel_dim", 80))),
            spk_dim=int(ekw.get("spk_dim", 80)),
            out_channels=int(ekw.get("out_channels", ekw.get("mel_dim", 80))),
            static_chunk_size=int(ekw.get("static_chunk_size", 50)),
        )
    flow = FlowConfig(
        kind="unet" if family == "cosyvoice2" else "dit",
        input_size=int(_req(fkw, "input_size", flow_node.class_name, where)),
        output_size=int(fkw.get("output_size", 80)),
        spk_embed_dim=int(fkw.get("spk_embed_dim", 192)),
        vocab_size=int(fkw.get("vocab_size", 6561)),
        token_mel_ratio=token_mel_ratio,
        pre_lookahead_len=pre_lookahead,
        estimator=estimator,
        cfm=cfm,
        encoder=encoder,
        pre_lookahead_channels=pre_ch,
    )

    # HiFT -------------------------------------------------------------------------------
    hkw = hift_node.kwargs
    f0 = _child(hift_node, "f0_predictor", where)
    istft = hkw.get("istft_params") or {}
    hift = HiftConfig(
        causal=family == "cosyvoice3",
        in_channels=int(hkw.get("in_channels", 80)),
        base_channels=int(hkw.get("base_channels", 512)),
        nb_harmonics=int(hkw.get("nb_harmonics", 8)),
        sampling_rate=int(hkw.get("sampling_rate", 24000)),
        nsf_alpha=float(hkw.get("nsf_alpha", 0.1)),
        nsf_sigma=float(hkw.get("nsf_sigma", 0.003)),
        nsf_voiced_threshold=float(hkw.get("nsf_voiced_threshold", 10)),
        upsample_rates=_tuple_ints(hkw.get("upsample_rates", (8, 5, 3))),
        upsample_kernel_sizes=_tuple_ints(hkw.get("upsample_kernel_sizes", (16, 11, 7))),
        istft_n_fft=int(istft.get("n_fft", 16)),
        istft_hop=int(istft.get("hop_len", 4)),
        resblock_kernel_sizes=_tuple_ints(hkw.get("resblock_kernel_sizes", (3, 7, 11))),
        resblock_dilation_sizes=tuple(
            _tuple_ints(d) for d in hkw.get("resblock_dilation_sizes", ((1, 3, 5),) * 3)
        ),
        source_resblock_kernel_sizes=_tuple_ints(hkw.get("source_resblock_kernel_sizes", (7, 7, 11))),
        source_resblock_dilation_sizes=tuple(
            _tuple_ints(d) for d in hkw.get("source_resblock_dilation_sizes", ((1, 3, 5),) * 3)
        ),
        lrelu_slope=float(hkw.get("lrelu_slope", 0.1)),
        audio_limit=float(hkw.get("audio_limit", 0.99)),
        f0_predictor=F0PredictorConfig(
            causal=f0.class_name == "CausalConvRNNF0Predictor",
            in_channels=int(f0.kwargs.get("in_channels", 80)),
            cond_channels=int(f0.kwargs.get("cond_channels", 512)),
            num_class=int(f0.kwargs.get("num_class", 1)),
        ),
        conv_pre_look_right=int(hkw.get("conv_pre_look_right", 0)),
    )

    # Prompt mel -------------------------------------------------------------------------
    fe = tree.get("feat_extractor")
    if not isinstance(fe, Tagged):
        raise ConfigError(f"{where.name} has no feat_extractor entry")
    mkw = fe.kwargs
    fmax = mkw.get("fmax")
    mel = MelConfig(
        n_fft=int(mkw.get("n_fft", 1920)),
        num_mels=int(mkw.get("num_mels", 80)),
        sampling_rate=int(mkw.get("sampling_rate", 24000)),
        hop_size=int(mkw.get("hop_size", 480)),
        win_size=int(mkw.get("win_size", 1920)),
        fmin=float(mkw.get("fmin", 0)),
        fmax=None if fmax in (None, "null", "None") else float(fmax),
        center=bool(mkw.get("center", False)),
    )

    return ModelConfig(
        family=family,
        model_dir=model_dir,
        sample_rate=int(tree.get("sample_rate", 24000)),
        token_frame_rate=int(tree.get("token_frame_rate", 25)),
        token_mel_ratio=token_mel_ratio,
        chunk_size=int(tree.get("chunk_size", 25)),
        llm=llm,
        flow=flow,
        hift=hift,
        mel=mel,
        yaml_path=yaml_path,
    )
