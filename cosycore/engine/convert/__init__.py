"""Voice conversion: a recording's words, timing and intonation, spoken again in a saved voice.

:meth:`cosycore.engine.Engine.convert` is the entry point; :mod:`.source` reads and cuts the source,
:mod:`.request` holds the request and its checks, :mod:`.run` turns it into audio chunks.
"""

from .request import ConversionRequest, validate_conversion
from .run import flow_is_exact, run_conversion, source_tokens, target_prompt
from .source import (
    MAX_PIECE_SECONDS,
    MAX_SOURCE_SECONDS,
    MIN_SAMPLE_RATE,
    MIN_SOURCE_SECONDS,
    SourceInfo,
    SourcePiece,
    iter_pieces,
    probe_source,
)

__all__ = [
    "MAX_PIECE_SECONDS",
    "MAX_SOURCE_SECONDS",
    "MIN_SAMPLE_RATE",
    "MIN_SOURCE_SECONDS",
    "ConversionRequest",
    "SourceInfo",
    "SourcePiece",
    "flow_is_exact",
    "iter_pieces",
    "probe_source",
    "run_conversion",
    "source_tokens",
    "target_prompt",
    "validate_conversion",
]
