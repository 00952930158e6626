"""Release-folder configuration: the yaml read as plain data, then frozen dataclasses.

The release yaml is written for HyperPyYAML, whose ``!new:``/``!name:``/``!apply:`` tags import and
call whatever they name. Here those tags only *record* what they name (:class:`Tagged`); ``!ref``
references are resolved the way HyperPyYAML resolves them (whole-scalar references alias the node,
embedded ones interpolate and then evaluate simple arithmetic), and nothing is ever imported or
called. From that plain tree we build :class:`ModelConfig` once; derived values are properties.

The package's parts: :mod:`.choices` (quality modes, text readings), :mod:`.plain_yaml` (the safe
yaml reader), :mod:`.model_config` (the dataclasses), :mod:`.checks` (their value ranges) and
:mod:`.release` (a release folder to a checked :class:`ModelConfig`). Every public name is
importable from here.
"""

from .checks import check_config_values
from .choices import (
    AUTO_QUALITY,
    FAMILY_TITLES,
    MAX_SPEED,
    MIN_SPEED,
    QUALITY_CHOICES,
    QUALITY_MODES,
    TEXT_READINGS,
    Quality,
    TextReading,
)
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
from .plain_yaml import (
    MAX_ARITH_CHARS,
    MAX_ARITH_VALUE,
    MAX_EXPONENT,
    MAX_REF_STRING,
    MAX_YAML_ALIASES,
    MAX_YAML_BYTES,
    MAX_YAML_NODES,
    Tagged,
    load_plain_yaml,
)
from .release import detect_family, load_model_config, read_qwen_config

__all__ = [
    "AUTO_QUALITY",
    "FAMILY_TITLES",
    "MAX_ARITH_CHARS",
    "MAX_ARITH_VALUE",
    "MAX_EXPONENT",
    "MAX_REF_STRING",
    "MAX_SPEED",
    "MAX_YAML_ALIASES",
    "MAX_YAML_BYTES",
    "MAX_YAML_NODES",
    "MIN_SPEED",
    "QUALITY_CHOICES",
    "QUALITY_MODES",
    "QWEN_DIR",
    "TEXT_READINGS",
    "YAML_NAMES",
    "CFMConfig",
    "ConformerEncoderConfig",
    "DiTConfig",
    "F0PredictorConfig",
    "Family",
    "FlowConfig",
    "HiftConfig",
    "LLMConfig",
    "MelConfig",
    "ModelConfig",
    "Quality",
    "QwenConfig",
    "Tagged",
    "TextReading",
    "UNetConfig",
    "check_config_values",
    "detect_family",
    "load_model_config",
    "load_plain_yaml",
    "read_qwen_config",
]
