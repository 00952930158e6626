"""Saved voices: one ``.cosyvoice`` file per voice, and a folder of them (:class:`VoiceLibrary`).

* :mod:`.voice`: the :class:`Voice` value object and the bounds of what a voice holds;
* :mod:`.voice_file`: the file format, writing it atomically and reading it back with every check;
* :mod:`.library`: the folder of voices, addressed by name.

Every public name is importable from here; ``write_atomic`` too (it lives in
:mod:`cosycore.atomic_write`, and callers have long imported it from here).
"""

from ..atomic_write import write_atomic
from .library import (
    VOICES_DIR_ENV,
    BrokenVoice,
    VoiceInfo,
    VoiceLibrary,
    VoiceScan,
    default_voices_dir,
    sanitize_voice_name,
    voice_file_stem,
)
from .voice import (
    ARRAY_NAMES,
    EMBEDDING_DIM,
    FORMAT_VERSION,
    MAX_NAME_CHARS,
    MAX_PROMPT_FRAMES,
    MAX_PROMPT_TOKENS,
    MAX_VOICE_SECONDS,
    MEL_BINS,
    MEL_RATE,
    SAMPLE_RATES,
    SPEECH_TOKEN_VOCAB,
    TOKEN_RATE,
    Voice,
    check_prompt_bounds,
    clean_tags,
    utc_now,
)
from .voice_file import (
    FORMAT_NAME,
    HEADER_ENTRY,
    MAX_COMPRESSION_RATIO,
    MAX_ENTRIES,
    MAX_ENTRY_BYTES,
    MAX_FILE_BYTES,
    MAX_HEADER_BYTES,
    MAX_TOTAL_BYTES,
    MAX_TRANSCRIPT_CHARS,
    VOICE_SUFFIX,
    encode_voice,
    load_voice,
    payload_checksum,
    save_voice,
)

__all__ = [
    "ARRAY_NAMES",
    "EMBEDDING_DIM",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "HEADER_ENTRY",
    "MAX_COMPRESSION_RATIO",
    "MAX_ENTRIES",
    "MAX_ENTRY_BYTES",
    "MAX_FILE_BYTES",
    "MAX_HEADER_BYTES",
    "MAX_NAME_CHARS",
    "MAX_PROMPT_FRAMES",
    "MAX_PROMPT_TOKENS",
    "MAX_TOTAL_BYTES",
    "MAX_TRANSCRIPT_CHARS",
    "MAX_VOICE_SECONDS",
    "MEL_BINS",
    "MEL_RATE",
    "SAMPLE_RATES",
    "SPEECH_TOKEN_VOCAB",
    "TOKEN_RATE",
    "VOICES_DIR_ENV",
    "VOICE_SUFFIX",
    "BrokenVoice",
    "Voice",
    "VoiceInfo",
    "VoiceLibrary",
    "VoiceScan",
    "check_prompt_bounds",
    "clean_tags",
    "default_voices_dir",
    "encode_voice",
    "load_voice",
    "payload_checksum",
    "sanitize_voice_name",
    "save_voice",
    "utc_now",
    "voice_file_stem",
    "write_atomic",
]
