"""``cosycore voice add|list|show|remove|transcribe``: the voice library from a terminal."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from .common import (
    EXIT_OK,
    CliIO,
    EngineLoader,
    UsageError,
    add_model_args,
    add_voices_dir_arg,
    find_voice,
    open_library,
    print_warnings,
)


def add_voice_parser(sub: Any) -> None:
    p = sub.add_parser("voice", help="manage saved voices", description="Manage the voice library.")
    vsub = p.add_subparsers(dest="voice_command", required=True, metavar="{add,list,show,remove,transcribe}")
    add = vsub.add_parser("add", help="extract a recording's features once and save them as a voice")
    add.add_argument("name", help="name of the new voice")
    add_model_args(add)
    add.add_argument("--prompt-wav", type=Path, required=True, help="recording of the voice (3-10 s)")
    add.add_argument("--prompt-text", default="", help="its transcript (needed for zero_shot use)")
    add.add_argument("--language", default="", help="language of the recording, e.g. en, zh")
    add.add_argument("--transcribe", action="store_true",
                     help="write the transcript by speech recognition (needs 'models download sensevoice-small')")
    from ..studio.transcribe import add_asr_args, add_voice_transcribe_parser

    add_asr_args(add)
    transcribe = add_voice_transcribe_parser(vsub)
    listing = vsub.add_parser("list", help="list the saved voices")
    show = vsub.add_parser("show", help="show one voice")
    show.add_argument("name", help="voice name or .cosyvoice file")
    rm = vsub.add_parser("remove", help="delete a voice")
    rm.add_argument("name", help="voice name")
    for leaf in (add, listing, show, rm, transcribe):
        add_voices_dir_arg(leaf)


def _voice_add(args: argparse.Namespace, io: CliIO, load_engine: EngineLoader) -> int:
    recognizer = None
    if args.transcribe:
        if args.prompt_text:
            raise UsageError("--transcribe writes the transcript itself; leave out --prompt-text (or --transcribe)")
        from ..studio.transcribe import load_recognizer

        recognizer = load_recognizer(args)  # before the voice model: a missing recognizer is said at once
    engine = load_engine(args)
    voice = engine.create_voice(args.prompt_wav, transcript=args.prompt_text, name=args.name,
                                language=args.language)
    print_warnings(engine.last_warnings, io.stderr)
    if recognizer is not None:
        from ..studio.transcribe import transcribe_new_voice

        voice = transcribe_new_voice(voice, recognizer, io.stderr)
    info = open_library(args).add(voice)
    io.stdout.write(f"saved voice '{info.name}' ({info.duration:.1f} s, {info.family}) to {info.path}\n")
    return EXIT_OK


def _voice_list(args: argparse.Namespace, io: CliIO) -> int:
    from ..safety import escape_control as esc

    library = open_library(args)
    scan = library.scan()
    for b in scan.broken:  # listed, never fatal: one bad file does not hide the others
        io.stderr.write(f"warning: {esc(b.path.name)} is not usable: {esc(b.reason)}\n")
    if not scan.voices:
        io.stdout.write(f"no saved voices in {esc(library.root)}\n")
        return EXIT_OK
    for i in scan.voices:
        transcript = i.transcript if len(i.transcript) <= 40 else i.transcript[:39] + "…"
        io.stdout.write(f"{esc(i.name)}\t{esc(i.family)}\t{esc(i.language) or '-'}\t{i.duration:.1f} s\t"
                        f"{esc(transcript)}\n")
    return EXIT_OK


def _voice_show(args: argparse.Namespace, io: CliIO) -> int:
    voice = find_voice(args.name, args.voices_dir)
    rows = [("name", voice.name), ("family", voice.family), ("language", voice.language or "-"),
            ("transcript", voice.transcript or "-"),
            ("transcribed", {"asr": "by speech recognition", "typed": "by hand"}.get(voice.transcript_source, "-")),
            ("duration", f"{voice.duration:.2f} s"),
            ("speech tokens", str(voice.speech_tokens.shape[0])), ("created", voice.created_at),
            ("format", str(voice.format_version))]
    from ..safety import escape_control

    for key, value in rows:  # names and transcripts come from files: no raw escape sequences
        io.stdout.write(f"{key + ':':<15}{escape_control(value)}\n")
    return EXIT_OK


def _voice_remove(args: argparse.Namespace, io: CliIO) -> int:
    from ..safety import escape_control

    open_library(args).remove(args.name)
    io.stdout.write(f"removed voice '{escape_control(args.name)}'\n")
    return EXIT_OK


def _voice_transcribe(args: argparse.Namespace, io: CliIO) -> int:
    from ..studio.transcribe import run_voice_transcribe

    return run_voice_transcribe(args, open_library(args), io.stdout)


def run_voice(args: argparse.Namespace, io: CliIO, load_engine: EngineLoader) -> int:
    commands: dict[str, Callable[[argparse.Namespace, CliIO], int]] = {
        "add": partial(_voice_add, load_engine=load_engine), "list": _voice_list, "show": _voice_show,
        "remove": _voice_remove, "transcribe": _voice_transcribe,
    }
    return commands[args.voice_command](args, io)
