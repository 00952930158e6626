"""What the core subcommands share: exit codes, :class:`UsageError`, the streams (:class:`CliIO`),
the model and voices-folder options, the ``--threads`` check, and finding a saved voice.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..config import QUALITY_CHOICES, TEXT_READINGS

EXIT_OK = 0
EXIT_OTHER = 1
EXIT_USAGE = 2
EXIT_MODEL = 3
EXIT_INTERRUPTED = 130
DTYPES = ("float32", "float16", "bfloat16")

EngineLoader = Callable[..., Any]  # (args, max_chars=None) -> a loaded Engine


class UsageError(Exception):
    """A command line that cannot work as given (exit code 2)."""


@dataclass
class CliIO:
    """The streams a command reads and writes (the real ones, or test doubles)."""

    stdin: IO[str]
    stdout: IO[str]
    stdout_bytes: IO[bytes]
    stderr: IO[str]

    @classmethod
    def system(cls) -> CliIO:
        return cls(sys.stdin, sys.stdout, sys.stdout.buffer, sys.stderr)


MAX_THREADS_PER_CPU = 4


def check_threads(n: int) -> int:
    """``--threads``: 1 to 4x the CPUs (torch fails on 0 or less and crashes on 100,000)."""
    import os

    cpus = os.cpu_count() or 1
    if not 1 <= n <= MAX_THREADS_PER_CPU * cpus:
        raise UsageError(f"--threads must be from 1 to {MAX_THREADS_PER_CPU * cpus} (this machine has {cpus} CPUs); "
                         f"got {n}. Leave it out to use every core (or $COSY_THREADS).")
    return n


def _thread_count(text: str) -> int:
    try:
        return check_threads(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--threads must be a whole number, not {text!r}") from None
    except UsageError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, type=Path, help="release folder (CosyVoice2-0.5B or Fun-CosyVoice3-0.5B)")
    p.add_argument("--device", default="auto", help="auto (CUDA if present), cpu, cuda, cuda:1, mps")
    p.add_argument("--dtype", default="float32", choices=DTYPES, help="precision of the networks")
    p.add_argument("--threads", type=_thread_count, default=None,
                   help="CPU threads for synthesis (default: $COSY_THREADS, else every core); waiting threads "
                        "sleep instead of spinning (README: Performance)")
    p.add_argument("--quality", choices=QUALITY_CHOICES, default="exact",
                   help="exact: the original's numbers; fast: int8 LM on CPU, cached streaming flow, warm-up; "
                        "draft: fast plus a 4-step flow without CFG; auto: exact on a GPU, draft on a CPU "
                        "(README: Performance)")
    p.add_argument("--text-reading", choices=TEXT_READINGS, default=None,
                   help="original: the original's text normalisation (default with --quality exact); "
                        "improved: the improved English reading of money, dates, units and abbreviations "
                        "(default otherwise; README: Text reading)")


def add_voices_dir_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--voices-dir", type=Path, default=None,
                   help="voice library folder (default: $COSY_VOICES_DIR or the user data folder)")


def print_warnings(warnings: Iterable[str], err: IO[str]) -> None:
    for w in warnings:
        err.write(f"warning: {w}\n")


def find_voice(spec: str, voices_dir: Path | None) -> Any:
    from ..voices import VOICE_SUFFIX, VoiceLibrary, default_voices_dir, load_voice

    path = Path(spec)
    if path.suffix == VOICE_SUFFIX or path.is_file():
        return load_voice(path)
    return VoiceLibrary(voices_dir or default_voices_dir()).get(spec)


def open_library(args: argparse.Namespace) -> Any:
    from ..voices import VoiceLibrary, default_voices_dir

    return VoiceLibrary(args.voices_dir or default_voices_dir())

