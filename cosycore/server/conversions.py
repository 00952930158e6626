"""``POST /v1/audio/conversions``: voice conversion over HTTP (our extension; OpenAI has no such endpoint).

A ``multipart/form-data`` body, shaped like OpenAI's audio uploads (``/v1/audio/transcriptions``):

* ``file`` (required): the recording to convert (WAV, FLAC, OGG or MP3; 16 kHz or more);
* ``voice`` (required): the name of a saved voice to speak it in (``GET /v1/voices``);
* ``response_format``, ``stream_format``, ``speed``, ``seed``, ``model``: as for ``/v1/audio/speech``.

The answer is ``/v1/audio/speech``'s: the whole file, a byte stream or server-sent events, with its
errors. The body may be at most ``max_upload_bytes`` (25 MB by default, OpenAI's upload limit); the
file is checked (readable, its rate, its length) before the request is queued, so a bad upload is a
400 at once.
"""

from __future__ import annotations

import io
import math
from collections.abc import AsyncGenerator
from typing import Any

from starlette.datastructures import Headers, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from ..errors import InputError
from .schema import ApiError, SpeechParams, _bad, _format, _speed, _stream_format, _voice_name

DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024  # OpenAI's limit for audio uploads
MAX_FORM_FIELDS = 16
_FIELD_BYTES = 4096  # a form field other than the file


async def read_upload(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 past ``limit`` bytes (before reading it, when its length is declared)."""
    too_big = ApiError(413, f"The upload is larger than {limit / 1e6:.0f} MB. Send a shorter recording, or a "
                       "compressed one (FLAC, OGG or MP3).", "invalid_request_error", "file", "request_too_large")
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise too_big
    body = bytearray()
    async for piece in request.stream():
        body.extend(piece)
        if len(body) > limit:
            raise too_big
    return bytes(body)


def _form_value(form: Any, key: str) -> str | None:
    value = form.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _bad(f"'{key}' must be a form field, not a file.", key, "invalid_type")


def _number(text: str | None, key: str, kind: type) -> Any:
    if text is None or not text.strip():
        return None
    try:
        return kind(text.strip())
    except ValueError:
        raise _bad(f"'{key}' must be a {'whole ' if kind is int else ''}number, not {text[:40]!r}.", key,
                   "invalid_type") from None


async def parse_conversion_request(request: Request, body: bytes, *,
                                   writable: tuple[str, ...]) -> tuple[SpeechParams, bytes]:
    """The checked fields (as :class:`SpeechParams` with an empty ``input``) and the uploaded file's bytes."""
    ctype = request.headers.get("content-type", "")
    if not ctype.lower().startswith("multipart/form-data"):
        raise _bad("Send the recording as multipart/form-data with a 'file' field and a 'voice' field "
                   f"(got content type {ctype[:60] or 'none'!r}).", None, "invalid_content_type")

    async def stream() -> AsyncGenerator[bytes, None]:
        yield body

    parser = MultiPartParser(Headers(headers={"content-type": ctype}), stream(), max_files=1,
                             max_fields=MAX_FORM_FIELDS, max_part_size=_FIELD_BYTES)
    try:
        form = await parser.parse()
    except MultiPartException as e:
        raise _bad(f"The form could not be read: {e.message}.", None, "invalid_form") from e
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise _bad("'file' is required: the recording to convert, sent as a file field.", "file",
                       "missing_required_parameter")
        data = await upload.read()
        fields = {k: _form_value(form, k) for k in ("voice", "response_format", "stream_format", "model")}
        speed = _number(_form_value(form, "speed"), "speed", float)
        seed = _number(_form_value(form, "seed"), "seed", int)
    finally:
        await form.close()
    if not data:
        raise _bad("The uploaded file is empty.", "file")
    values: dict[str, Any] = {k: v for k, v in fields.items() if v is not None}
    if speed is not None:
        if not math.isfinite(speed):
            raise _bad("'speed' must be a finite number.", "speed", "invalid_type")
        values["speed"] = speed
    if seed is not None and not 0 <= seed < 2**63:
        raise _bad("'seed' must be a non-negative whole number.", "seed", "invalid_type")
    params = SpeechParams(input="", voice=_voice_name(values), response_format=_format(values, writable),
                          speed=_speed(values), stream_format=_stream_format(values), seed=seed,
                          model=values.get("model", "") or "")
    return params, data


def check_source(data: bytes, max_seconds: float) -> None:
    """The upload as the engine will read it: 400 for a corrupt file, a rate under 16 kHz, too short or long."""
    from ..engine.convert import probe_source

    try:
        probe_source(io.BytesIO(data), None, max_seconds=max_seconds)
    except InputError as e:
        raise _bad(str(e).replace("'<audio stream>'", "the uploaded file"), "file") from e
