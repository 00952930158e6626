"""``python -m cosycore`` (or ``cosycore``): speech synthesis and voice management from a terminal.

Subcommands:

* ``synth``: text (``--text``, ``--text-file`` or standard input) to a WAV/FLAC file or raw float32
  PCM on standard output, in zero_shot, cross_lingual or instruct mode, from a prompt recording or
  a saved voice;
* ``convert``: a recording's speech in a saved voice (voice conversion, :mod:`cosycore.engine.convert`);
* ``voice add|list|show|remove|transcribe``: the voice library (``--voices-dir``, ``$COSY_VOICES_DIR``
  or ``voices/`` in the data folder the app uses too, :mod:`cosycore.paths`); ``transcribe``: a
  recording's words (:mod:`cosycore.studio.transcribe`);
* ``synth --script``: a dialogue script with a cast, to one file plus SRT/VTT subtitles and stems;
  ``--lexicon``: a pronunciation dictionary (:mod:`cosycore.studio`);
* ``text``: the sentences exactly as the engine will speak them; ``render``: a long .txt/.md file to
  audio, resumable, with chapters;
* ``info``: what a model folder holds; ``instruct-presets``: the ready-made instructions;
* ``models``: list, download, verify and remove release folders (:mod:`cosycore.hub.models_cli`).
* ``conformance``: comparison with the original implementation (:mod:`cosycore.conformance`).
* ``serve``: an OpenAI-compatible speech server (:mod:`cosycore.server`).

The core commands (synth, voice, info, instruct-presets) live in :mod:`cosycore.cli`, one module per
command group; this module builds the parser, runs a command and turns its errors into exit codes.

Exit codes: 0 success, 2 a usage or input problem (the message says what to change), 3 the model
could not be loaded, 1 anything else, 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .cli.common import (
    DTYPES,
    EXIT_INTERRUPTED,
    EXIT_MODEL,
    EXIT_OK,
    EXIT_OTHER,
    EXIT_USAGE,
    MAX_THREADS_PER_CPU,
    CliIO,
    UsageError,
    add_model_args,
    add_voices_dir_arg,
    check_threads,
)
from .cli.convert import add_convert_parser, run_convert
from .cli.info import run_info, run_presets
from .cli.synth import AudioSink, Progress, add_synth_parser, run_synth
from .cli.voice import add_voice_parser, run_voice
from .errors import CosyError, InputError, ModelLoadError, ServerError
from .hub.models_cli import add_models_subparser, run_models_command
from .server.cli import add_serve_subparser, run_serve_command
from .threads import choose_wait_policy, default_threads

# The commands live in cosycore.cli; these names stay importable from here.
__all__ = [
    "DTYPES",
    "EXIT_INTERRUPTED",
    "EXIT_MODEL",
    "EXIT_OK",
    "EXIT_OTHER",
    "EXIT_USAGE",
    "MAX_THREADS_PER_CPU",
    "AudioSink",
    "CliIO",
    "Progress",
    "UsageError",
    "build_parser",
    "check_threads",
    "main",
]

logger = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cosycore", description="Cosy Studio engine: speech synthesis "
                                     "with CosyVoice2 / Fun-CosyVoice3 release folders.")
    parser.add_argument("--log-level", default="ERROR", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="log messages shown on standard error (default ERROR)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_synth_parser(sub)
    add_convert_parser(sub)
    add_voice_parser(sub)
    add_models_subparser(sub)
    add_serve_subparser(sub)
    info = sub.add_parser("info", help="show what a model folder holds")
    add_model_args(info)
    from .studio.cli import add_regenerate_parser, add_render_parser, add_take_parser, add_text_parser
    from .studio.transcribe import add_transcribe_parser

    add_transcribe_parser(sub)

    add_text_parser(sub)
    add_render_parser(sub, add_model_args, add_voices_dir_arg)
    add_regenerate_parser(sub, add_model_args)
    add_take_parser(sub)
    presets = sub.add_parser("instruct-presets", help="list the ready-made instructions")
    presets.add_argument("--family", choices=("cosyvoice2", "cosyvoice3"), default=None)
    sub.add_parser("conformance", help="compare with the original's reference outputs (see its --help)",
                   add_help=False)
    return parser


def _load_engine(args: argparse.Namespace, max_chars: int | None = None) -> Any:
    """The engine for a command's model options; the commands are handed it, so a test can replace it here."""
    import torch

    from .engine import Engine
    from .frontend.text_checks import DEFAULT_MAX_CHARS

    threads = check_threads(args.threads) if args.threads is not None else default_threads()
    dtype = getattr(torch, args.dtype)
    return Engine(args.model, device=args.device, dtype=dtype, max_text_chars=max_chars or DEFAULT_MAX_CHARS,
                  quality=getattr(args, "quality", "exact"), text_reading=getattr(args, "text_reading", None),
                  threads=threads, with_llm=getattr(args, "with_llm", True))


def _cmd_synth(args: argparse.Namespace, io: CliIO) -> int:
    return run_synth(args, io, _load_engine)


def _cmd_convert(args: argparse.Namespace, io: CliIO) -> int:
    return run_convert(args, io, _load_engine)


def _cmd_voice(args: argparse.Namespace, io: CliIO) -> int:
    return run_voice(args, io, _load_engine)


def _cmd_info(args: argparse.Namespace, io: CliIO) -> int:
    return run_info(args, io, _load_engine)


def _cmd_text(args: argparse.Namespace, io: CliIO) -> int:
    from .studio.cli import run_text

    return run_text(args, io.stdin, io.stdout, io.stderr)


def _cmd_render(args: argparse.Namespace, io: CliIO) -> int:
    from .studio.cli import run_render

    return run_render(args, io.stderr, _load_engine)


def _cmd_regenerate(args: argparse.Namespace, io: CliIO) -> int:
    from .studio.cli import run_regenerate

    return run_regenerate(args, io.stderr, _load_engine)


def _cmd_transcribe(args: argparse.Namespace, io: CliIO) -> int:
    from .studio.transcribe import run_transcribe

    return run_transcribe(args, io.stdout)


def _cmd_take(args: argparse.Namespace, io: CliIO) -> int:
    from .studio.cli import run_take

    return run_take(args, io.stdout, io.stderr)


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------

COMMANDS: dict[str, Callable[[argparse.Namespace, CliIO], int]] = {
    "synth": _cmd_synth, "convert": _cmd_convert, "voice": _cmd_voice, "info": _cmd_info,
    "instruct-presets": run_presets,
    "models": run_models_command, "serve": run_serve_command, "text": _cmd_text, "render": _cmd_render,
    "regenerate": _cmd_regenerate, "take": _cmd_take, "transcribe": _cmd_transcribe,
}


def _parse(argv: Sequence[str], io: CliIO) -> argparse.Namespace | int:
    try:
        with contextlib.redirect_stdout(io.stdout), contextlib.redirect_stderr(io.stderr):
            return build_parser().parse_args(list(argv))
    except SystemExit as e:  # argparse printed its message; 0 for --help, 2 for usage errors
        return int(e.code) if isinstance(e.code, int) else EXIT_USAGE


def _msg(e: BaseException) -> str:
    """An error's message for the terminal: names from files cannot carry escape sequences."""
    from .safety import escape_control

    return escape_control(e, keep="\n")


def _run(args: argparse.Namespace, io: CliIO) -> int:
    try:
        return COMMANDS[args.command](args, io)
    except UsageError as e:
        io.stderr.write(f"cosycore: error: {_msg(e)}\n")
        return EXIT_USAGE
    except (InputError, ServerError) as e:
        io.stderr.write(f"error: {_msg(e)}\n")
        return EXIT_USAGE
    except ModelLoadError as e:
        io.stderr.write(f"error: the model could not be loaded: {_msg(e)}\n")
        return EXIT_MODEL
    except (CosyError, OSError) as e:
        logger.debug("command failed", exc_info=True)
        io.stderr.write(f"error: {_msg(e)}\n")
        return EXIT_OTHER
    except KeyboardInterrupt:
        io.stderr.write("interrupted\n")
        return EXIT_INTERRUPTED
    except MemoryError:
        io.stderr.write("error: not enough memory: choose --quality draft or shorter sentences (or close other "
                        "programs).\n")
        return EXIT_OTHER
    except Exception as e:  # a bug, not bad input: say so plainly; the traceback is in the debug log
        logger.debug("unexpected failure", exc_info=True)
        io.stderr.write(f"error: unexpected failure ({type(e).__name__}: {_msg(e)}). Run the command again with "
                        "--log-level DEBUG to see where it happened, and please report it.\n")
        return EXIT_OTHER


def main(argv: Sequence[str] | None = None, io: CliIO | None = None) -> int:
    """Run one command; returns the exit code (0 ok, 2 usage/input, 3 model, 1 other)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    choose_wait_policy()  # before torch loads: spin + the core governor (Linux), else the passive wait
    if argv and argv[0] == "conformance":
        from . import conformance

        return conformance.main(argv[1:])
    io = io or CliIO.system()
    parsed = _parse(argv, io)
    if isinstance(parsed, int):
        return parsed
    if not logging.getLogger().handlers:  # embedded callers (tests, other tools) keep their own logging
        logging.basicConfig(level=parsed.log_level, format="%(levelname)s %(name)s: %(message)s")
    _move_legacy_data(io)
    return _run(parsed, io)


def _move_legacy_data(io: CliIO) -> None:
    """Bring voices and the dictionary from the command line's old folder into the one the app uses
    (once per process; see cosycore.paths.legacy), and say what happened: the log is quiet by default."""
    from .paths import ensure_legacy_moved
    from .safety import escape_control as esc

    report = ensure_legacy_moved()
    if report is None:
        return
    for old, new in report.moved:
        io.stderr.write(f"note: moved {esc(old)} to {esc(new)} (the folder the app and cosycore share)\n")
    for item in report.left_behind:
        io.stderr.write(f"warning: {esc(item.advice)}\n")
    for problem in report.problems:
        io.stderr.write(f"warning: {esc(problem)}\n")


if __name__ == "__main__":
    sys.exit(main())
