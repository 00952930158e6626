"""Request checks for the speech server, and OpenAI's error shape.

:func:`parse_speech_request` turns the JSON body of ``POST /v1/audio/speech`` into a
:class:`SpeechParams` or raises :class:`ApiError`, before anything is queued or any audio is made.
The fields are OpenAI's (``model``, ``input``, ``voice``, ``instructions``, ``response_format``,
``speed``, ``stream_format``) plus ``seed``; unknown fields are ignored, as OpenAI's clients may
send newer ones. Nothing in a request names a file: ``voice`` is a saved voice's name.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from ..config import MAX_SPEED, MIN_SPEED
from ..errors import InputError
from ..frontend.text_checks import check_spoken_text
from ..safety import MAX_JSON_DEPTH, json_depth_ok

# OpenAI's formats; which of them this machine can write is decided by encode.writable_formats().
OPENAI_FORMATS = ("mp3", "opus", "aac", "flac", "wav", "pcm")
STREAM_FORMATS = ("audio", "sse")
DEFAULT_FORMAT = "mp3"  # OpenAI's default
MAX_INSTRUCTION_CHARS = 1000
MAX_VOICE_CHARS = 200


class ApiError(Exception):
    """An error answered in OpenAI's JSON shape: ``{"error": {"message", "type", "param", "code"}}``."""

    def __init__(self, status: int, message: str, type: str = "invalid_request_error", param: str | None = None,
                 code: str | None = None, headers: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.param = param
        self.code = code
        self.headers = headers

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}


@dataclass(frozen=True)
class SpeechParams:
    """A checked speech request, in plain values."""

    input: str
    voice: str  # a voice library name
    instructions: str = ""
    response_format: str = DEFAULT_FORMAT
    speed: float = 1.0
    stream_format: str | None = None  # None: the whole file in one response; "audio" or "sse": streamed
    seed: int | None = None
    model: str = ""


def _bad(message: str, param: str | None, code: str | None = "invalid_value") -> ApiError:
    return ApiError(400, message, param=param, code=code)


def _string(body: dict[str, Any], key: str, default: str | None = None) -> str | None:
    value = body.get(key, default)
    if value is None or isinstance(value, str):
        return value
    raise _bad(f"'{key}' must be a string, not {type(value).__name__}.", key, "invalid_type")


def _voice_name(body: dict[str, Any]) -> str:
    value = body.get("voice")
    if isinstance(value, dict):  # OpenAI's custom-voice form {"id": "..."}
        value = value.get("id")
    if value is None:
        raise _bad("'voice' is required: the name of a saved voice (GET /v1/voices lists them).", "voice",
                   "missing_required_parameter")
    if not isinstance(value, str) or not value.strip():
        raise _bad("'voice' must be the name of a saved voice (GET /v1/voices lists them).", "voice")
    if len(value) > MAX_VOICE_CHARS or any(c in value for c in "/\\") or value.strip() in (".", ".."):
        raise _bad("'voice' names a saved voice; file paths are not accepted. GET /v1/voices lists the names.",
                   "voice")
    return value.strip()


def _speed(body: dict[str, Any]) -> float:
    value = body.get("speed", 1.0)
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _bad(f"'speed' must be a number from {MIN_SPEED} to {MAX_SPEED}.", "speed", "invalid_type")
    if not MIN_SPEED <= value <= MAX_SPEED:
        raise _bad(f"'speed' must be from {MIN_SPEED} to {MAX_SPEED} with this engine (1.0 is normal); "
                   f"got {value}.", "speed")
    return float(value)


def _format(body: dict[str, Any], writable: tuple[str, ...]) -> str:
    fmt = _string(body, "response_format", DEFAULT_FORMAT) or DEFAULT_FORMAT
    if fmt not in OPENAI_FORMATS:
        raise _bad(f"Unknown response_format {fmt!r}; use one of {', '.join(writable)}.", "response_format")
    if fmt not in writable:
        raise _bad(f"response_format {fmt!r} cannot be written on this machine (its audio library, libsndfile, "
                   f"has no {fmt} encoder); use one of {', '.join(writable)}.", "response_format",
                   "unsupported_value")
    return fmt


def _stream_format(body: dict[str, Any]) -> str | None:
    value = _string(body, "stream_format")
    if value is not None and value not in STREAM_FORMATS:
        raise _bad(f"Unknown stream_format {value!r}; use 'audio' (bytes as they are made) or 'sse' "
                   "(server-sent events with base64 audio).", "stream_format")
    return value


def _seed(body: dict[str, Any]) -> int | None:
    value = body.get("seed")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise _bad("'seed' must be a non-negative whole number.", "seed", "invalid_type")
    return value


def _input_text(body: dict[str, Any], max_chars: int) -> str:
    text = _string(body, "input")
    if text is None:
        raise _bad("'input' is required: the text to speak.", "input", "missing_required_parameter")
    if len(text) > max_chars:
        raise _bad(f"'input' is {len(text):,} characters long; this server takes at most {max_chars:,} per "
                   "request. Split the text and send the parts one after another.", "input", "string_above_max_length")
    try:
        return check_spoken_text(text, max_chars=max_chars)
    except InputError as e:
        raise _bad(str(e), "input") from e


def _instructions(body: dict[str, Any]) -> str:
    text = (_string(body, "instructions", "") or "").strip()
    if len(text) > MAX_INSTRUCTION_CHARS:
        raise _bad(f"'instructions' is {len(text):,} characters long; the limit is {MAX_INSTRUCTION_CHARS:,}.",
                   "instructions", "string_above_max_length")
    if text:
        try:
            check_spoken_text(text, max_chars=MAX_INSTRUCTION_CHARS)
        except InputError as e:
            raise _bad(str(e), "instructions") from e
    return text


def _no_lone_surrogates(value: Any, where: str = "") -> None:
    """A JSON ``\\ud800`` escape gives a string no UTF-8 text can hold: a 400 that says where."""
    if isinstance(value, str):
        bad = next((i for i, c in enumerate(value) if "\ud800" <= c <= "\udfff"), None)
        if bad is not None:
            raise _bad(f"'{where or 'the body'}' holds a lone UTF-16 surrogate (\\u{ord(value[bad]):04x} at character "
                       f"{bad + 1}), which is not text; send the character itself in UTF-8, or its full "
                       "surrogate pair.", where or None, "invalid_value")
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_lone_surrogates(key, where or "a key")
            _no_lone_surrogates(item, where or str(key))
    elif isinstance(value, list):
        for item in value:
            _no_lone_surrogates(item, where)


def parse_speech_request(raw: bytes, *, max_input_chars: int, writable: tuple[str, ...]) -> SpeechParams:
    """Check a ``/v1/audio/speech`` body (JSON bytes). Raises :class:`ApiError` (400) on any problem."""
    try:
        text = raw.decode("utf-8")
        if not json_depth_ok(text):  # 30,000 '[' are a 400, not a RecursionError
            raise ValueError(f"it nests deeper than {MAX_JSON_DEPTH} levels")
        body = json.loads(text)  # NaN passes here and is refused by the field's own check
    except UnicodeDecodeError as e:
        raise _bad(f"The request body is not UTF-8 ({e.reason} at byte {e.start}).", None, "invalid_json") from e
    except (ValueError, RecursionError) as e:  # also a number of more than 4,300 digits
        raise _bad(f"The request body is not valid JSON: {e}.", None, "invalid_json") from e
    if not isinstance(body, dict):
        raise _bad("The request body must be a JSON object.", None, "invalid_json")
    _no_lone_surrogates(body)
    model = _string(body, "model", "") or ""
    stream_format = _stream_format(body)
    response_format = _format(body, writable)
    if stream_format is not None and response_format == "flac":
        raise _bad("FLAC is not streamed: a FLAC header needs the total length, so a streamed FLAC is one that "
                   "not every reader reads. Leave out stream_format for a FLAC file, or stream wav, pcm, mp3 "
                   "or opus.", "response_format", "unsupported_value")
    return SpeechParams(
        input=_input_text(body, max_input_chars),
        voice=_voice_name(body),
        instructions=_instructions(body),
        response_format=response_format,
        speed=_speed(body),
        stream_format=stream_format,
        seed=_seed(body),
        model=model,
    )


def choose_mode(instructions: str, transcript: str) -> str:
    """The engine mode for a request: instruct with instructions; else zero_shot (clone) when the voice
    has a transcript, cross_lingual when it has none."""
    if instructions.strip():
        return "instruct"
    return "zero_shot" if transcript.strip() else "cross_lingual"
