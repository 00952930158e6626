"""The transcription commands: ``cosycore transcribe FILE``, ``voice transcribe NAME`` and ``voice add --transcribe``.

The recognizer is the installed ``sensevoice-small`` (``cosycore models download sensevoice-small``)
in the models folder, or the SenseVoice folder given with ``--asr-model``. A missing or damaged
model is an :class:`~cosycore.errors.AsrModelError` whose message says how to get it.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import IO, Any

from ..asr import LANGUAGES, SenseVoice, Transcript, ensure_transcript, transcribe_voice, with_transcript
from ..hub import asr_model_folder
from ..safety import escape_control
from ..voices import Voice, VoiceLibrary

logger = logging.getLogger(__name__)


def add_asr_args(p: argparse.ArgumentParser) -> None:
    """``--asr-model`` and ``--asr-language`` for every command that transcribes."""
    p.add_argument("--asr-model", type=Path, default=None, metavar="FOLDER",
                   help="SenseVoice folder (model.int8.onnx + tokens.txt; default: sensevoice-small in the models "
                        "folder, see 'cosycore models download sensevoice-small')")
    p.add_argument("--asr-language", choices=("auto", *LANGUAGES), default="auto",
                   help="language spoken in the recording (default auto: the model decides)")


def add_transcribe_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("transcribe", help="print what is said in a recording (speech recognition)",
                       description="Transcribe a voice recording of up to 30 s with SenseVoice-Small "
                                   "(Chinese, English, Japanese, Korean, Cantonese).")
    p.add_argument("file", type=Path, help="audio file (WAV, FLAC, OGG or MP3), at most 30 s")
    add_asr_args(p)
    p.add_argument("--json", action="store_true", help="print {\"text\", \"language\", \"seconds\"} as JSON")
    return p


def add_voice_transcribe_parser(vsub: Any) -> argparse.ArgumentParser:
    p = vsub.add_parser("transcribe", help="fill in a saved voice's missing transcript from its recording",
                        description="Recognise what is said in the voice's recording and save it as the "
                                    "voice's transcript. A voice that has a transcript keeps it.")
    p.add_argument("name", help="voice name")
    add_asr_args(p)
    return p


def load_recognizer(args: argparse.Namespace) -> SenseVoice:
    """The recognizer ``args`` name (``--asr-model``, else the installed sensevoice-small)."""
    folder = args.asr_model.expanduser() if args.asr_model is not None else asr_model_folder()
    return SenseVoice.load(folder, language=args.asr_language)


def run_transcribe(args: argparse.Namespace, stdout: IO[str]) -> int:
    result = load_recognizer(args).transcribe_file(args.file)
    if args.json:
        stdout.write(json.dumps({"text": result.text, "language": result.language,
                                 "seconds": round(result.seconds, 3)}, ensure_ascii=False) + "\n")
    else:
        stdout.write(escape_control(result.text) + "\n")
    return 0


def run_voice_transcribe(args: argparse.Namespace, library: VoiceLibrary, stdout: IO[str]) -> int:
    voice, transcript = ensure_transcript(library, args.name, lambda: load_recognizer(args))
    name = escape_control(voice.name)
    if transcript is None:
        stdout.write(f"the voice '{name}' already has a transcript; nothing was changed: "
                     f"{escape_control(voice.transcript)}\n")
    else:
        stdout.write(f"transcribed the voice '{name}' ({transcript.language or 'language unknown'}): "
                     f"{escape_control(transcript.text)}\n")
    return 0


def transcribe_new_voice(voice: Voice, recognizer: SenseVoice, stderr: IO[str]) -> Voice:
    """``voice add --transcribe``: the new voice with the transcript of its own recording."""
    transcript: Transcript = transcribe_voice(voice, recognizer)
    stderr.write(f"transcript ({transcript.language or 'language unknown'}): {escape_control(transcript.text)}\n")
    return with_transcript(voice, transcript)
