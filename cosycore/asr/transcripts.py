"""A voice's transcript from its own recording, made once and kept in the voice file.

:func:`ensure_transcript` is the one place that decides whether speech recognition runs for a
voice: only when the voice has no transcript yet. The result is saved into the ``.cosyvoice`` file
(``transcript_source: "asr"``) and every later take reads it from there, so the recognizer never
runs again for that voice, and the user can correct the words like any typed transcript.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from ..errors import AsrAudioError
from ..voices import Voice, VoiceLibrary
from .sensevoice import SenseVoice, Transcript

logger = logging.getLogger(__name__)

ASR_SOURCE = "asr"


def transcribe_voice(voice: Voice, recognizer: SenseVoice) -> Transcript:
    """Recognise what is said in ``voice``'s recording (its stored prompt audio, at most 30 s)."""
    transcript = recognizer.transcribe(voice.audio_24k, int(voice.sample_rate),
                                       what=f"the recording of the voice '{voice.name}'")
    if not transcript.text:
        raise AsrAudioError(f"No speech was recognised in the recording of the voice '{voice.name}'. Type its "
                            "transcript instead (Clone mode needs one), or use Cross-lingual mode.")
    return transcript


def with_transcript(voice: Voice, transcript: Transcript) -> Voice:
    """``voice`` carrying ``transcript`` (marked as recognised); a language already set is kept."""
    return replace(voice, transcript=transcript.text, transcript_source=ASR_SOURCE,
                   language=voice.language or transcript.language)


def ensure_transcript(library: VoiceLibrary, name: str,
                      recognizer: Callable[[], SenseVoice]) -> tuple[Voice, Transcript | None]:
    """The voice ``name`` with a transcript: the stored one, or one recognised now and saved.

    ``recognizer`` is called (to load or fetch the model) only when the voice has no transcript.
    Returns the voice as saved and the new :class:`Transcript`, or None when nothing ran.
    """
    voice = library.get(name)
    if voice.transcript.strip():
        return voice, None
    transcript = transcribe_voice(voice, recognizer())
    info = library.update(voice.name, transcript=transcript.text, transcript_source=ASR_SOURCE,
                          language=None if voice.language else transcript.language)
    logger.info("transcribed the voice %r (%s, %.1f s)", info.name, transcript.language or "?", transcript.seconds)
    return library.get(info.name), transcript
