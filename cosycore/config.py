"""Release-folder configuration: the yaml read as plain data, then frozen dataclasses.

The release yaml is written for HyperPyYAML, whose ``!new:``/``!name:``/``!apply:`` tags import and
call whatever they name. Here those tags only *record* what they name (:class:`Tagged`); ``!ref``
references are resolved the way HyperPyYAML resolves them (whole-scalar references alias the node,
embedded ones interpolate and then evaluate simple arithmetic), and nothing is ever imported or
called. From that plain tree we build :class:`ModelConfig` once; derived values are properties.
"""

from __future__ import annotations

import ast
import dataclasses
import logging
import math
import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from .errors import (
    ConfigError,
    ModelNotFoundError,
    UnknownClassError,
    WrongModelFamilyError,
)
from .safety import UnsafeFileError, loads_strict_json, read_regular_file

logger = logging.getLogger(__name__)

# The user-facing speed/quality modes (cosycore.perf maps them onto engine options). Named here,
# in a module without torch, so that the CLI's --help and the app's settings can use them cheaply.
QUALITY_MODES = ("exact", "fast", "draft")
Quality = Literal["exact", "fast", "draft"]
# How the text frontend reads text (cosycore.frontend.text_reading): "original" is CosyVoice's own
# text_normalize (the default in exact mode), "improved" the project's English reading (money,
# dates, units, abbreviations; the default in the other modes).
TEXT_READINGS = ("original", "improved")
TextReading = Literal["original", "improved"]
# "auto" picks one of them per device (cosycore.perf.resolve_quality): the app's default.
AUTO_QUALITY = "auto"
QUALITY_CHOICES = (AUTO_QUALITY, *QUALITY_MODES)

Family = Literal["cosyvoice2", "cosyvoice3"]

YAML_NAMES: dict[str, Family] = {"cosyvoice2.yaml": "cosyvoice2", "cosyvoice3.yaml": "cosyvoice3"}
QWEN_DIR = "CosyVoice-BlankEN"


# --------------------------------------------------------------------------------------------
# Plain-data yaml
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tagged:
    """A ``!new:``, ``!name:`` or ``!apply:`` node, recorded instead of being executed."""

    kind: str  # "new" | "name" | "apply" | "module"
    target: str  # dotted path, e.g. "cosyvoice.llm.llm.Qwen2LM"
    args: Any = None  # mapping (keyword arguments), list (positional) or None

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.args) if isinstance(self.args, Mapping) else {}

    @property
    def class_name(self) -> str:
        return self.target.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class _Ref:
    expr: str
    copy: bool = False


MAX_YAML_BYTES = 1 << 20  # the release yaml is ~10 kB; config.json ~1 kB
MAX_YAML_ALIASES = 256  # the release yaml uses none; "billion laughs" needs many
MAX_YAML_NODES = 100_000  # nodes visited while resolving !ref (the release yaml has a few hundred)
MAX_REF_STRING = 10_000  # characters of an interpolated !ref string
MAX_ARITH_CHARS = 200  # a !ref arithmetic expression, e.g. "<a> * <b> // 2"
MAX_ARITH_VALUE = 10**15  # magnitude of any operand or intermediate result
MAX_EXPONENT = 64  # "x ** e" only with a literal e up to this; no towers such as 9**9**9


class _PlainLoader(yaml.SafeLoader):
    """SafeLoader that turns HyperPyYAML tags into inert data; aliases are counted and capped."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise ConfigError(f"the yaml uses more than {MAX_YAML_ALIASES} aliases (*name); a release yaml "
                                  "uses none. Use the yaml that came with the release folder.")
        return super().compose_node(parent, index)


def _construct_args(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    value = loader.construct_scalar(node)  # type: ignore[arg-type]
    return None if value in ("", None) else value


def _multi(kind: str):
    def construct(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Tagged:
        return Tagged(kind, suffix, _construct_args(loader, node))

    return construct


for _kind in ("new", "name", "apply", "module"):
    _PlainLoader.add_multi_constructor(f"!{_kind}:", _multi(_kind))
_PlainLoader.add_constructor(
    "!ref", lambda loader, node: _Ref(str(loader.construct_scalar(node)))  # type: ignore[arg-type]
)
_PlainLoader.add_constructor(
    "!copy", lambda loader, node: _Ref(str(loader.construct_scalar(node)), copy=True)  # type: ignore[arg-type]
)
_PlainLoader.add_constructor(
    "!tuple", lambda loader, node: tuple(loader.construct_sequence(node, deep=True))  # type: ignore[arg-type]
)

_REF_RE = re.compile(r"<([^<>]+)>")
_ARITH_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
    ast.Mod: operator.mod,
}


def _bounded(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("not arithmetic")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"a !ref expression gives {value}; use finite numbers")
    if abs(value) > MAX_ARITH_VALUE:
        raise ConfigError(f"a !ref expression gives a number beyond {MAX_ARITH_VALUE:.0e}; no release uses one")
    return value


def _eval_arith(text: str) -> Any:
    """Evaluate ``text`` if it is plain arithmetic on numbers, else return it unchanged.

    Operands and results are kept within ±10**15 and a power needs a literal exponent of at most
    64, so an expression such as ``9**9**9`` is refused instead of computed for hours.
    """

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return _bounded(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITH_OPS:
            left = ev(node.left)
            if isinstance(node.op, ast.Pow):
                if not (isinstance(node.right, ast.Constant) and isinstance(node.right.value, (int, float))
                        and abs(node.right.value) <= MAX_EXPONENT):
                    raise ConfigError(f"the !ref expression {text.strip()!r} raises to a power that is not a "
                                      f"literal number up to {MAX_EXPONENT}")
                if abs(left) > 1 and math.log10(abs(left)) * abs(node.right.value) > 15:
                    raise ConfigError(f"the !ref expression {text.strip()!r} gives a number beyond "
                                      f"{MAX_ARITH_VALUE:.0e}")
            right = ev(node.right)
            return _bounded(_ARITH_OPS[type(node.op)](left, right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        raise ValueError("not arithmetic")

    if len(text) > MAX_ARITH_CHARS:
        return text
    try:
        return ev(ast.parse(text.strip(), mode="eval"))
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, RecursionError, MemoryError):
        return text
    except OverflowError as e:
        raise ConfigError(f"the !ref expression {text.strip()!r} overflows ({e})") from e


def _lookup(tree: Mapping[str, Any], key: str) -> Any:
    # "a[b][c]" -> tree["a"]["b"]["c"]
    parts = re.findall(r"[^\[\]]+", key)
    node: Any = tree
    for p in parts:
        if isinstance(node, Mapping) and p in node:
            node = node[p]
        elif isinstance(node, Tagged) and isinstance(node.args, Mapping) and p in node.args:
            node = node.args[p]
        else:
            raise KeyError(key)
    return node


def _resolve(node: Any, root: Mapping[str, Any], depth: int = 0, budget: list[int] | None = None) -> Any:
    budget = [MAX_YAML_NODES] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0:  # aliases and !ref would otherwise expand exponentially ("billion laughs")
        raise ConfigError(f"the yaml expands to more than {MAX_YAML_NODES:,} values through !ref and aliases; "
                          "a release yaml has a few hundred. Use the yaml that came with the release folder.")
    if depth > 64:
        raise ConfigError("the yaml has a !ref cycle deeper than 64 levels")
    if isinstance(node, _Ref):
        expr = node.expr.strip()
        whole = _REF_RE.fullmatch(expr)
        if whole:
            return _resolve(_lookup(root, whole.group(1)), root, depth + 1, budget)

        def sub(m: re.Match[str]) -> str:
            return str(_resolve(_lookup(root, m.group(1)), root, depth + 1, budget))

        text = _REF_RE.sub(sub, expr)
        if len(text) > MAX_REF_STRING:
            raise ConfigError(f"a !ref expression expands to {len(text):,} characters; a release yaml has short ones")
        return _eval_arith(text)
    if isinstance(node, Tagged):
        return Tagged(node.kind, node.target, _resolve(node.args, root, depth + 1, budget))
    if isinstance(node, dict):
        return {k: _resolve(v, root, depth + 1, budget) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        items = [_resolve(v, root, depth + 1, budget) for v in node]
        return tuple(items) if isinstance(node, tuple) else items
    return node


def _read_small_text(path: Path, what: str) -> str:
    """A config file's text: a regular file (not a FIFO or /dev/zero), at most 1 MiB, UTF-8."""
    try:
        raw = read_regular_file(path, MAX_YAML_BYTES)
    except FileNotFoundError as e:
        raise ModelNotFoundError(f"{Path(path).name} is missing from {Path(path).parent}") from e
    except UnsafeFileError as e:
        raise ConfigError(f"{e}; {what} must be the small text file that came with the release.") from e
    except OSError as e:
        raise ConfigError(f"{path} cannot be read ({e.strerror or e}); check its permissions.") from e
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path} is not UTF-8 text ({e.reason} at byte {e.start}); use the file that came with "
                          "the release.") from e


def load_plain_yaml(path: Path, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Read a HyperPyYAML file as plain data. Nothing named in it is imported or run.

    Bounded: only a regular file of at most 1 MiB is read, aliases are capped, ``!ref`` expansion
    visits at most 100,000 values and ``!ref`` arithmetic stays within ±10**15.
    """
    text = _read_small_text(Path(path), "the release yaml")
    try:
        tree = yaml.load(text, Loader=_PlainLoader)
    except yaml.YAMLError as e:
        raise ConfigError(f"{path} is not valid yaml: {e}") from e
    except (RecursionError, MemoryError) as e:
        raise ConfigError(f"{path} nests too deeply to be a release yaml") from e
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from e
    if not isinstance(tree, dict):
        raise ConfigError(f"{path} does not hold a yaml mapping at the top level")
    if overrides:
        tree.update(overrides)
    try:
        resolved = _resolve(tree, tree)
    except KeyError as e:
        raise ConfigError(f"{path}: !ref to {e.args[0]!r}, which the file does not define") from e
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from e
    except (RecursionError, MemoryError) as e:
        raise ConfigError(f"{path} nests too deeply to be a release yaml") from e
    return {k: v for k, v in resolved.items() if not str(k).startswith("__")}


# --------------------------------------------------------------------------------------------
# Architecture dataclasses
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QwenConfig:
    """The Qwen2 decoder backbone, read from ``CosyVoice-BlankEN/config.json``."""

    hidden_size: int  # model width D
    num_layers: int  # decoder blocks
    num_heads: int  # query heads
    num_kv_heads: int  # key/value heads (GQA)
    intermediate_size: int  # SwiGLU width
    rms_norm_eps: float
    rope_theta: float
    vocab_size: int  # rows of embed_tokens (151936 in the releases)
    max_position_embeddings: int
    tie_word_embeddings: bool = True
    head_dim_override: int | None = None  # config.json "head_dim", when present

    @property
    def head_dim(self) -> int:
        return self.head_dim_override or self.hidden_size // self.num_heads


@dataclass(frozen=True)
class LLMConfig:
    """The speech language model: Qwen2 backbone plus speech embedding and decoder head."""

    family: Family
    qwen: QwenConfig
    speech_token_size: int = 6561  # FSQ codes; ids >= this are specials
    mix_ratio: tuple[int, int] = (5, 15)  # bistream: text tokens : speech tokens
    top_p: float = 0.8  # RAS nucleus mass
    top_k: int = 25  # RAS nucleus size cap
    win_size: int = 10  # RAS repetition window
    tau_r: float = 0.1  # RAS repetition ratio
    min_token_text_ratio: float = 2.0
    max_token_text_ratio: float = 20.0

    @property
    def speech_vocab_size(self) -> int:
        """Rows of ``speech_embedding`` / outputs of ``llm_decoder``."""
        return self.speech_token_size + (3 if self.family == "cosyvoice2" else 200)

    @property
    def decoder_bias(self) -> bool:
        return self.family == "cosyvoice2"

    @property
    def eos_token(self) -> int:
        return self.speech_token_size + (0 if self.family == "cosyvoice2" else 1)

    @property
    def fill_token(self) -> int:
        return self.speech_token_size + (2 if self.family == "cosyvoice2" else 3)

    @property
    def sos_index(self) -> int:
        """Row of sos: in ``llm_embedding`` (CV2) or ``speech_embedding`` (CV3)."""
        return 0 if self.family == "cosyvoice2" else self.speech_token_size

    @property
    def task_id_index(self) -> int:
        """Row of task_id: in ``llm_embedding`` (CV2) or ``speech_embedding`` (CV3)."""
        return 1 if self.family == "cosyvoice2" else self.speech_token_size + 2

    @property
    def stop_token_ids(self) -> tuple[int, ...]:
        return tuple(range(self.speech_token_size, self.speech_vocab_size))


@dataclass(frozen=True)
class ConformerEncoderConfig:
    """CosyVoice2 ``UpsampleConformerEncoder`` (token rate -> mel frame rate)."""

    input_size: int  # token embedding width (512 in the release)
    output_size: int  # conformer width (512)
    attention_heads: int
    linear_units: int  # FFN width
    num_blocks: int  # conformer layers at token rate
    num_up_blocks: int = 4  # conformer layers after upsampling (hard-coded upstream)
    static_chunk_size: int = 25  # tokens per attention chunk when streaming
    upsample_stride: int = 2  # = token_mel_ratio
    pre_lookahead_len: int = 3


@dataclass(frozen=True)
class UNetConfig:
    """CosyVoice2 ``CausalConditionalDecoder`` (1-D causal U-Net with transformer blocks)."""

    in_channels: int  # 320 = x, mu, spks, cond
    out_channels: int  # 80
    channels: tuple[int, ...]  # (256,) in the release
    attention_head_dim: int
    n_blocks: int  # transformer blocks per stage
    num_mid_blocks: int
    num_heads: int
    act_fn: str  # "gelu"
    static_chunk_size: int  # frames per attention chunk when streaming (50)


@dataclass(frozen=True)
class DiTConfig:
    """Fun-CosyVoice3 ``DiT`` estimator."""

    dim: int
    depth: int
    heads: int
    dim_head: int
    ff_mult: int
    mel_dim: int
    mu_dim: int
    spk_dim: int
    out_channels: int
    static_chunk_size: int


@dataclass(frozen=True)
class CFMConfig:
    """Conditional flow-matching sampler."""

    inference_cfg_rate: float = 0.7
    n_timesteps: int = 10
    t_scheduler: str = "cosine"
    noise_frames: int = 15000  # length of the fixed initial noise (300 s incl. prompt)
    noise_seed: int = 0


@dataclass(frozen=True)
class FlowConfig:
    """Token -> mel flow model (``CausalMaskedDiffWithXvec`` or ``CausalMaskedDiffWithDiT``)."""

    kind: Literal["unet", "dit"]
    input_size: int  # token embedding width
    output_size: int  # mel bins (80)
    spk_embed_dim: int  # 192
    vocab_size: int  # 6561
    token_mel_ratio: int  # 2
    pre_lookahead_len: int  # 3
    estimator: UNetConfig | DiTConfig
    cfm: CFMConfig
    encoder: ConformerEncoderConfig | None = None  # CV2 only
    pre_lookahead_channels: int | None = None  # CV3 only


@dataclass(frozen=True)
class F0PredictorConfig:
    causal: bool
    in_channels: int  # 80
    cond_channels: int  # 512 in the release
    num_class: int = 1


@dataclass(frozen=True)
class HiftConfig:
    """HiFT vocoder (``HiFTGenerator`` or ``CausalHiFTGenerator``)."""

    causal: bool
    in_channels: int
    base_channels: int
    nb_harmonics: int
    sampling_rate: int
    nsf_alpha: float
    nsf_sigma: float
    nsf_voiced_threshold: float
    upsample_rates: tuple[int, ...]
    upsample_kernel_sizes: tuple[int, ...]
    istft_n_fft: int
    istft_hop: int
    resblock_kernel_sizes: tuple[int, ...]
    resblock_dilation_sizes: tuple[tuple[int, ...], ...]
    source_resblock_kernel_sizes: tuple[int, ...]
    source_resblock_dilation_sizes: tuple[tuple[int, ...], ...]
    lrelu_slope: float
    audio_limit: float
    f0_predictor: F0PredictorConfig
    conv_pre_look_right: int = 0  # CV3: right context frames of conv_pre

    @property
    def hop_samples(self) -> int:
        """Output samples per mel frame (480)."""
        return math.prod(self.upsample_rates) * self.istft_hop


@dataclass(frozen=True)
class MelConfig:
    """Prompt mel extractor (Matcha-style log mel)."""

    n_fft: int
    num_mels: int
    sampling_rate: int
    hop_size: int
    win_size: int
    fmin: float
    fmax: float | None  # None = Nyquist
    center: bool


@dataclass(frozen=True)
class ModelConfig:
    """Everything the engine needs to know about one release folder."""

    family: Family
    model_dir: Path
    sample_rate: int
    token_frame_rate: int
    token_mel_ratio: int
    chunk_size: int  # streaming hop base, tokens
    llm: LLMConfig
    flow: FlowConfig
    hift: HiftConfig
    mel: MelConfig
    yaml_path: Path = field(default=Path())

    @property
    def qwen_dir(self) -> Path:
        return self.model_dir / QWEN_DIR

    @property
    def speech_tokenizer_file(self) -> str:
        return "speech_tokenizer_v2.onnx" if self.family == "cosyvoice2" else "speech_tokenizer_v3.onnx"

    @property
    def tokenizer_version(self) -> str:
        return self.family


# --------------------------------------------------------------------------------------------
# Building the dataclasses from the yaml tree
# --------------------------------------------------------------------------------------------

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
        text = _read_small_text(path, "config.json")
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


def load_model_config(model_dir: Path | str) -> ModelConfig:
    """Read a release folder's yaml and Qwen config.json into a :class:`ModelConfig`.

    Every failure is a :class:`ConfigError` (or another :class:`ModelLoadError`): a value of the
    wrong type (``sample_rate: fast``, a list where a number belongs) and a value out of range
    (``chunk_size: 0``, ``rope_theta: 0``, ``.nan``) are refused here, before any network is built.
    """
    model_dir = Path(model_dir)
    try:
        cfg = _load_model_config(model_dir)
    except (ValueError, TypeError, OverflowError, AttributeError, IndexError, KeyError) as e:
        raise ConfigError(
            f"{model_dir}: a setting in the yaml has the wrong type or value ({type(e).__name__}: {e}). "
            "Use the yaml that came with the release folder."
        ) from e
    check_config_values(cfg)
    return cfg


# Settings that may be 0; every other whole number must be at least 1, every number finite.
_ZERO_OK = {"pre_lookahead_len", "num_mid_blocks", "conv_pre_look_right", "noise_seed", "fmin", "tau_r",
            "nsf_alpha", "nsf_sigma", "nsf_voiced_threshold", "lrelu_slope", "inference_cfg_rate", "num_up_blocks"}
_MAX_INT = 1 << 24  # beyond any size a 0.5B release uses (vocab 151,936; noise 15,000 frames)
_MAX_WIDTH = 1 << 16  # hidden sizes, channels and heads: allocation happens from these
_WIDTHS = {"hidden_size", "input_size", "output_size", "attention_heads", "num_heads", "num_kv_heads", "heads",
           "dim", "dim_head", "mel_dim", "mu_dim", "spk_dim", "in_channels", "out_channels", "base_channels",
           "cond_channels", "spk_embed_dim", "attention_head_dim", "num_layers", "num_blocks", "depth", "n_blocks",
           "num_mid_blocks", "num_up_blocks", "ff_mult", "num_mels", "nb_harmonics", "num_class",
           "pre_lookahead_channels"}


def _check_number(name: str, value: Any, where: str) -> None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, (tuple, list)):
        if not value and name not in ("mix_ratio",):
            return
        for v in value:
            _check_number(name, v, where)
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(f"{where}: {name} is {value}; it must be a finite number.")
        if value < 0 or (value == 0 and name not in _ZERO_OK):
            raise ConfigError(f"{where}: {name} is {value}; it must be {'≥ 0' if name in _ZERO_OK else '> 0'}.")
        return
    if isinstance(value, int):
        low = 0 if name in _ZERO_OK else 1
        high = _MAX_WIDTH if name in _WIDTHS else _MAX_INT
        if not low <= value <= high:
            raise ConfigError(f"{where}: {name} is {value}; it must be a whole number from {low} to {high:,}.")


def _walk_numbers(obj: Any, where: str) -> None:
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            _walk_numbers(value, where)
        elif not isinstance(value, Path):
            _check_number(f.name, value, where)


def check_config_values(cfg: ModelConfig) -> None:
    """Raise :class:`ConfigError` unless every number the engine uses is finite and in range.

    Whole numbers are at least 1 (a few, such as ``pre_lookahead_len``, may be 0) and no larger
    than any release could need; real numbers are finite and positive; attention heads divide the
    width; ``top_p`` is at most 1. A release yaml passes; a hand-edited or hostile one that would
    crash (``chunk_size: 0``), divide by zero (``rope_theta: 0``) or allocate without end is refused.
    """
    where = f"{cfg.yaml_path.name or 'the yaml'} / {QWEN_DIR}/config.json"
    _walk_numbers(cfg, where)
    q = cfg.llm.qwen
    if q.head_dim_override is None and q.hidden_size % q.num_heads:
        raise ConfigError(f"{where}: hidden_size {q.hidden_size} is not a multiple of num_attention_heads "
                          f"{q.num_heads}.")
    if q.num_heads % q.num_kv_heads:
        raise ConfigError(f"{where}: num_attention_heads {q.num_heads} is not a multiple of num_key_value_heads "
                          f"{q.num_kv_heads}.")
    if not 0.0 < cfg.llm.top_p <= 1.0:
        raise ConfigError(f"{where}: top_p is {cfg.llm.top_p}; it must be in (0, 1].")
    if len(cfg.llm.mix_ratio) != 2:
        raise ConfigError(f"{where}: mix_ratio must be two whole numbers, not {cfg.llm.mix_ratio}.")
    if cfg.mel.fmax is not None and cfg.mel.fmax <= cfg.mel.fmin:
        raise ConfigError(f"{where}: fmax {cfg.mel.fmax} is not above fmin {cfg.mel.fmin}.")


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
