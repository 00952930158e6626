"""``python -m cosycore`` (or ``cosycore``): speech synthesis and voice management from a terminal.

Subcommands:

* ``synth``: text (``--text``, ``--text-file`` or standard input) to a WAV/FLAC file or raw float32
  PCM on standard output, in zero_shot, cross_lingual or instruct mode, from a prompt recording or
  a saved voice;
* ``voice add|list|show|remove|transcribe``: the voice library (``--voices-dir``, ``$COSY_VOICES_DIR``
  or the platform's user data folder); ``transcribe``: a recording's words (:mod:`cosycore.studio.transcribe`);
* ``synth --script``: a dialogue script with a cast, to one file plus SRT/VTT subtitles and stems;
  ``--lexicon``: a pronunciation dictionary (:mod:`cosycore.studio`);
* ``text``: the sentences exactly as the engine will speak them; ``render``: a long .txt/.md file to
  audio, resumable, with chapters;
* ``info``: what a model folder holds; ``instruct-presets``: the ready-made instructions;
* ``models``: list, download, verify and remove release folders (:mod:`cosycore.hub.models_cli`).
* ``conformance``: comparison with the original implementation (:mod:`cosycore.conformance`).
* ``serve``: an OpenAI-compatible speech server (:mod:`cosycore.server`).

Exit codes: 0 success, 2 a usage or input problem (the message says what to change), 3 the model
could not be loaded, 1 anything else, 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from .config import QUALITY_CHOICES, TEXT_READINGS
from .errors import CosyError, InputError, ModelLoadError, ServerError
from .hub.models_cli import add_models_subparser, run_models_command
from .server.cli import add_serve_subparser, run_serve_command
from .threads import default_threads, prefer_passive_wait

logger = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_OTHER = 1
EXIT_USAGE = 2
EXIT_MODEL = 3
EXIT_INTERRUPTED = 130
OUTPUT_FORMATS = {".wav": "WAV", ".flac": "FLAC"}
DTYPES = ("float32", "float16", "bfloat16")
MAX_TEXT_FILE_BYTES = 64 * 1024 * 1024  # larger files are not even read; the engine's limit is far lower


class UsageError(Exception):
    """A command line that cannot work as given (exit code 2)."""


# --------------------------------------------------------------------------------------------
# Argument parsing
# --------------------------------------------------------------------------------------------


def _thread_count(text: str) -> int:
    try:
        return check_threads(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--threads must be a whole number, not {text!r}") from None
    except UsageError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _model_args(p: argparse.ArgumentParser) -> None:
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


def _voices_dir_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--voices-dir", type=Path, default=None,
                   help="voice library folder (default: $COSY_VOICES_DIR or the user data folder)")


def _synth_parser(sub: Any) -> None:
    p = sub.add_parser("synth", help="speak a text", description="Speak a text with a cloned voice.")
    _model_args(p)
    p.add_argument("--mode", choices=("zero_shot", "cross_lingual", "instruct"), default=None,
                   help="zero_shot (needs the prompt's transcript), cross_lingual (no transcript) or instruct; "
                        "default: instruct when an instruction is given, else zero_shot")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--text", help="text to speak (default: read standard input)")
    src.add_argument("--text-file", type=Path, help="UTF-8 file with the text to speak")
    src.add_argument("--stdin-stream", action="store_true",
                     help="read standard input line by line while speaking (for text produced as it is written)")
    src.add_argument("--script", type=Path, metavar="FILE",
                     help="a dialogue script ('Name: line', 'Name (instruction): line', [pause 500ms]; README: "
                          "Dialogue scripts); needs --cast")
    p.add_argument("--prompt-wav", type=Path, help="recording of the voice to imitate (3-10 s)")
    p.add_argument("--prompt-text", help="transcript of --prompt-wav (zero_shot)")
    p.add_argument("--voice", help="a saved voice: a .cosyvoice file or a name in the voice library")
    p.add_argument("--instruct", help="how to speak, e.g. 'Please speak very happily.' (instruct mode)")
    p.add_argument("--preset", action="append", metavar="ID",
                   help="an instruct preset id of the model's family (see 'instruct-presets'); implies instruct "
                        "mode. Repeat it to combine presets of different groups, e.g. a dialect and an emotion")
    p.add_argument("--speed", type=float, default=1.0, help="0.5 to 2.0 (default 1.0)")
    p.add_argument("--seed", type=int, default=None, help="same seed, same speech tokens")
    p.add_argument("--stream", action="store_true", help="synthesise in streaming hops and write chunks as they come")
    p.add_argument("--language", choices=("zh", "en"), default=None, help="language of the text (default: detect)")
    p.add_argument("--no-text-frontend", action="store_true", help="speak the text as typed (no normalisation)")
    p.add_argument("--max-chars", type=int, default=None, help="longest text accepted in one request")
    p.add_argument("--out", "-o", required=True,
                   help="output file (.wav or .flac, 16-bit) or '-' for raw float32 PCM on standard output")
    p.add_argument("--srt", type=Path, default=None,
                   help="also write SubRip subtitles: one cue per sentence of the text as typed")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    p.add_argument("--min-tokens", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--max-tokens", type=int, default=None, help=argparse.SUPPRESS)
    _voices_dir_arg(p)
    from .studio.cli import add_lexicon_arg, add_script_args

    add_lexicon_arg(p)
    add_script_args(p)


def _voice_parser(sub: Any) -> None:
    p = sub.add_parser("voice", help="manage saved voices", description="Manage the voice library.")
    vsub = p.add_subparsers(dest="voice_command", required=True, metavar="{add,list,show,remove,transcribe}")
    add = vsub.add_parser("add", help="extract a recording's features once and save them as a voice")
    add.add_argument("name", help="name of the new voice")
    _model_args(add)
    add.add_argument("--prompt-wav", type=Path, required=True, help="recording of the voice (3-10 s)")
    add.add_argument("--prompt-text", default="", help="its transcript (needed for zero_shot use)")
    add.add_argument("--language", default="", help="language of the recording, e.g. en, zh")
    add.add_argument("--transcribe", action="store_true",
                     help="write the transcript by speech recognition (needs 'models download sensevoice-small')")
    from .studio.transcribe import add_asr_args, add_voice_transcribe_parser

    add_asr_args(add)
    transcribe = add_voice_transcribe_parser(vsub)
    listing = vsub.add_parser("list", help="list the saved voices")
    show = vsub.add_parser("show", help="show one voice")
    show.add_argument("name", help="voice name or .cosyvoice file")
    rm = vsub.add_parser("remove", help="delete a voice")
    rm.add_argument("name", help="voice name")
    for leaf in (add, listing, show, rm, transcribe):
        _voices_dir_arg(leaf)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cosycore", description="Cosy Studio engine: speech synthesis "
                                     "with CosyVoice2 / Fun-CosyVoice3 release folders.")
    parser.add_argument("--log-level", default="ERROR", choices=("DEBUG", "INFO", "WARNING", "ERROR"),
                        help="log messages shown on standard error (default ERROR)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _synth_parser(sub)
    _voice_parser(sub)
    add_models_subparser(sub)
    add_serve_subparser(sub)
    info = sub.add_parser("info", help="show what a model folder holds")
    _model_args(info)
    from .studio.cli import add_render_parser, add_text_parser
    from .studio.transcribe import add_transcribe_parser

    add_transcribe_parser(sub)

    add_text_parser(sub)
    add_render_parser(sub, _model_args, _voices_dir_arg)
    presets = sub.add_parser("instruct-presets", help="list the ready-made instructions")
    presets.add_argument("--family", choices=("cosyvoice2", "cosyvoice3"), default=None)
    sub.add_parser("conformance", help="compare with the original's reference outputs (see its --help)",
                   add_help=False)
    return parser


# --------------------------------------------------------------------------------------------
# synth
# --------------------------------------------------------------------------------------------


def _read_text_file(path: Path) -> str:
    if not path.is_file():
        raise InputError(f"the text file '{path}' does not exist.")
    size = path.stat().st_size
    if size > MAX_TEXT_FILE_BYTES:
        raise InputError(
            f"'{path.name}' is {size / 2**20:,.0f} MiB; that is not a text to speak in one request. "
            "Split it into files of at most a few hundred thousand characters."
        )
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"'{path.name}' is not UTF-8 text ({e.reason}); save it as UTF-8.") from e


def _stdin_lines(stream: IO[str]) -> Iterator[str]:
    try:
        yield from iter(stream.readline, "")
    except UnicodeDecodeError as e:
        raise InputError(f"standard input is not UTF-8 text ({e.reason}); send UTF-8, or run with a UTF-8 "
                         "locale (e.g. LANG=C.UTF-8).") from e


def _text_source(args: argparse.Namespace, stdin: IO[str]) -> str | Iterable[str]:
    if args.text is not None:
        return str(args.text)
    if args.text_file is not None:
        return _read_text_file(args.text_file)
    if args.stdin_stream:
        return _stdin_lines(stdin)
    if stdin.isatty():
        raise UsageError("no text given: use --text, --text-file, or pipe the text into standard input.")
    try:
        return stdin.read()
    except UnicodeDecodeError as e:
        raise InputError(f"standard input is not UTF-8 text ({e.reason}); send UTF-8, or run with a UTF-8 "
                         "locale (e.g. LANG=C.UTF-8).") from e


def _find_voice(spec: str, voices_dir: Path | None) -> Any:
    from .voices import VOICE_SUFFIX, VoiceLibrary, default_voices_dir, load_voice

    path = Path(spec)
    if path.suffix == VOICE_SUFFIX or path.is_file():
        return load_voice(path)
    return VoiceLibrary(voices_dir or default_voices_dir()).get(spec)


def _instruction(args: argparse.Namespace) -> str | None:
    if not args.preset:
        return args.instruct
    if args.instruct:
        raise UsageError("give either --instruct or --preset, not both.")
    from .config import detect_family
    from .presets import combine, find_preset

    family, _ = detect_family(args.model)  # presets are per family; reading the yaml's name is enough
    chosen = []
    for preset_id in args.preset:
        try:
            chosen.append(find_preset(preset_id, family))
        except KeyError:
            raise UsageError(f"there is no {family} instruct preset {preset_id!r}; see "
                             f"'cosycore instruct-presets --family {family}'.") from None
    try:
        return combine(chosen)
    except InputError as e:
        raise UsageError(str(e)) from None


def _request(args: argparse.Namespace, text: str | Iterable[str]) -> Any:
    from .engine import Mode, SynthesisRequest

    if args.prompt_wav is not None and args.voice is not None:
        raise UsageError("give either --prompt-wav or --voice, not both.")
    instruction = _instruction(args)
    mode: Mode = args.mode or ("instruct" if instruction else "zero_shot")
    voice = _find_voice(args.voice, args.voices_dir) if args.voice else None
    if mode == "zero_shot" and not (args.prompt_text or "").strip() and args.prompt_wav is not None:
        raise UsageError("zero_shot mode needs the transcript of --prompt-wav: type what is said in it with "
                         "--prompt-text \"...\", or use --mode cross_lingual, which needs no transcript.")
    return SynthesisRequest(
        text=text, mode=mode, prompt_audio=args.prompt_wav, voice=voice, prompt_text=args.prompt_text,
        instruct_text=instruction, speed=args.speed, seed=args.seed, stream=args.stream,
        text_frontend=not args.no_text_frontend, language=args.language,
        min_tokens=args.min_tokens, max_tokens=args.max_tokens,
    )


def _apply_lexicon(args: argparse.Namespace, text: str | Iterable[str]) -> str | Iterable[str]:
    """The text with the pronunciation dictionaries applied: the app-wide one, the voice's own, the
    --lexicon files (streamed text: piece by piece)."""
    from .config import detect_family
    from .studio.cli import command_lexicon

    voice = _find_voice(args.voice, args.voices_dir) if args.voice else None
    lexicon = command_lexicon(args, voice)
    if lexicon is None:
        return text
    lexicon.check(voice.family if voice is not None else detect_family(args.model)[0])
    if isinstance(text, str):
        return lexicon.apply(text)
    return (lexicon.apply(piece) for piece in text)


class AudioSink:
    """Where synthesised chunks go: a WAV/FLAC file (16-bit PCM) or raw float32 PCM on stdout.

    A file is written atomically (:class:`~cosycore.outfile.AtomicAudioFile`): the target is
    checked before the model loads, and replaced only by a complete take.
    """

    def __init__(self, target: str, sample_rate: int, stdout: IO[bytes]) -> None:
        from .outfile import AtomicAudioFile, check_output_target

        self.target = target
        self.sample_rate = sample_rate
        self._stdout = stdout if target == "-" else None
        self._file: AtomicAudioFile | None = None
        self.samples = 0
        if self._stdout is None:
            fmt = OUTPUT_FORMATS.get(Path(target).suffix.lower())
            if fmt is None:
                raise UsageError(f"--out must end in .wav or .flac, or be '-' for raw PCM; got '{target}'.")
            path = Path(target).absolute()
            check_output_target(path)  # StorageError now, not after the whole synthesis
            self._file = AtomicAudioFile(path, fmt)

    def write(self, samples: np.ndarray) -> None:
        if self._stdout is not None:
            from .outfile import write_all

            write_all(self._stdout, np.asarray(samples, dtype="<f4").tobytes())
        else:
            assert self._file is not None
            self._file.sample_rate = self.sample_rate
            self._file.write(samples)
        self.samples += int(samples.shape[0])

    def commit(self) -> None:
        """The take is complete: move the file into place (or flush standard output)."""
        if self._file is not None:
            self._file.sample_rate = self.sample_rate
            self._file.commit()
        elif self._stdout is not None:
            from .outfile import write_all

            write_all(self._stdout, b"")

    def keep_partial(self) -> Path | None:
        """Interrupted: keep what was made under a new ``*.partial.wav`` name; the target is untouched."""
        return self._file.keep_partial() if self._file is not None else None

    def discard(self) -> None:
        """Failed: remove the temporary file; the target is left as it was."""
        if self._file is not None:
            self._file.discard()


@dataclass
class Progress:
    """The progress line on standard error: chunks, seconds of audio, real-time factor."""

    stream: IO[str]
    enabled: bool
    started: float
    chunks: int = 0
    audio_seconds: float = 0.0
    first_chunk: float | None = None

    def update(self, duration: float, timing: float) -> None:
        self.chunks += 1
        self.audio_seconds += duration
        if self.first_chunk is None:
            self.first_chunk = timing
        if self.enabled and self.stream.isatty():
            self.stream.write("\r" + self.line())
            self.stream.flush()

    def line(self) -> str:
        elapsed = time.perf_counter() - self.started
        rtf = elapsed / self.audio_seconds if self.audio_seconds else float("nan")
        first = f", first chunk after {self.first_chunk:.2f} s" if self.first_chunk is not None else ""
        chunks = f"{self.chunks} chunk" + ("" if self.chunks == 1 else "s")
        return (f"{chunks}, {self.audio_seconds:.2f} s of audio in {elapsed:.2f} s "
                f"(RTF {rtf:.2f}{first})")

    def done(self) -> None:
        if self.enabled:
            prefix = "\r" if self.stream.isatty() else ""
            self.stream.write(prefix + self.line() + "\n")
            self.stream.flush()


MAX_THREADS_PER_CPU = 4


def check_threads(n: int) -> int:
    """``--threads``: 1 to 4x the CPUs (torch fails on 0 or less and crashes on 100,000)."""
    import os

    cpus = os.cpu_count() or 1
    if not 1 <= n <= MAX_THREADS_PER_CPU * cpus:
        raise UsageError(f"--threads must be from 1 to {MAX_THREADS_PER_CPU * cpus} (this machine has {cpus} CPUs); "
                         f"got {n}. Leave it out to use every core (or $COSY_THREADS).")
    return n


def _load_engine(args: argparse.Namespace, max_chars: int | None = None) -> Any:
    import torch

    from .engine import Engine
    from .frontend.text import DEFAULT_MAX_CHARS

    threads = check_threads(args.threads) if args.threads is not None else default_threads()
    dtype = getattr(torch, args.dtype)
    return Engine(args.model, device=args.device, dtype=dtype, max_text_chars=max_chars or DEFAULT_MAX_CHARS,
                  quality=getattr(args, "quality", "exact"), text_reading=getattr(args, "text_reading", None),
                  threads=threads)


def _print_warnings(warnings: Iterable[str], err: IO[str]) -> None:
    for w in warnings:
        err.write(f"warning: {w}\n")


def _cmd_synth(args: argparse.Namespace, io: CliIO) -> int:
    from .engine import validate_request
    from .frontend.text import DEFAULT_MAX_CHARS

    max_chars = args.max_chars or DEFAULT_MAX_CHARS
    if args.script is not None:
        from .studio.cli import run_script_synth

        return run_script_synth(args, io.stderr, lambda a: _load_engine(a, max_chars))
    if args.cast or args.cast_instruct or args.stems or args.vtt:
        raise UsageError("--cast, --cast-instruct, --vtt and --stems go with --script.")
    request = _request(args, _apply_lexicon(args, _text_source(args, io.stdin)))
    validate_request(request, max_chars=max_chars)  # input problems show before the model loads
    sink = AudioSink(args.out, 0, io.stdout_bytes)
    engine = _load_engine(args, max_chars)
    sink.sample_rate = engine.sample_rate
    progress = Progress(io.stderr, not args.quiet, time.perf_counter())
    spoken: list[tuple[int, str, int, int]] = []  # per chunk, for --srt
    try:
        with _sigterm_as_interrupt():
            for chunk in engine.synthesize(request):
                _print_warnings(chunk.warnings, io.stderr)
                sink.write(chunk.samples)
                spoken.append((chunk.sentence_index, chunk.sentence_text, len(chunk.samples), chunk.sample_rate))
                progress.update(chunk.duration, chunk.timing)
            sink.commit()
    except KeyboardInterrupt:
        kept = sink.keep_partial()
        if kept is not None:
            io.stderr.write(f"\nkept the {sink.samples / sink.sample_rate:.2f} s made so far in {kept} "
                            f"({args.out} was not changed)\n")
        if sink.samples and args.srt is not None:
            _write_srt(args.srt, request.text, spoken, complete=False)
        raise
    except BaseException:
        sink.discard()
        raise
    if args.srt is not None:
        _write_srt(args.srt, request.text, spoken, complete=True)
    progress.done()
    return EXIT_OK


def _write_srt(path: Path, text: Any, spoken: list[tuple[int, str, int, int]], *, complete: bool) -> None:
    """Subtitles for what was spoken: per typed sentence for a text, per segment for streamed text."""
    from . import subtitles
    from .voices import write_atomic

    segments = subtitles.spoken_segments(spoken)
    duration = segments[-1].end if segments else 0.0
    if isinstance(text, str):
        cues = subtitles.cues(text, segments, duration, complete=complete)
    else:
        cues = [subtitles.Cue(s.start, s.end, s.text) for s in segments]
    write_atomic(path, subtitles.srt(cues).encode("utf-8"))


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (a closing terminal, ``kill``) ends a take like Ctrl-C: temporary files are cleaned up."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTERM"):
        yield
        return

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


# --------------------------------------------------------------------------------------------
# voice, info, instruct-presets
# --------------------------------------------------------------------------------------------


def _library(args: argparse.Namespace) -> Any:
    from .voices import VoiceLibrary, default_voices_dir

    return VoiceLibrary(args.voices_dir or default_voices_dir())


def _voice_add(args: argparse.Namespace, io: CliIO) -> int:
    recognizer = None
    if args.transcribe:
        if args.prompt_text:
            raise UsageError("--transcribe writes the transcript itself; leave out --prompt-text (or --transcribe)")
        from .studio.transcribe import load_recognizer

        recognizer = load_recognizer(args)  # before the voice model: a missing recognizer is said at once
    engine = _load_engine(args)
    voice = engine.create_voice(args.prompt_wav, transcript=args.prompt_text, name=args.name,
                                language=args.language)
    _print_warnings(engine.last_warnings, io.stderr)
    if recognizer is not None:
        from .studio.transcribe import transcribe_new_voice

        voice = transcribe_new_voice(voice, recognizer, io.stderr)
    info = _library(args).add(voice)
    io.stdout.write(f"saved voice '{info.name}' ({info.duration:.1f} s, {info.family}) to {info.path}\n")
    return EXIT_OK


def _voice_list(args: argparse.Namespace, io: CliIO) -> int:
    from .safety import escape_control as esc

    library = _library(args)
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
    voice = _find_voice(args.name, args.voices_dir)
    rows = [("name", voice.name), ("family", voice.family), ("language", voice.language or "-"),
            ("transcript", voice.transcript or "-"),
            ("transcribed", {"asr": "by speech recognition", "typed": "by hand"}.get(voice.transcript_source, "-")),
            ("duration", f"{voice.duration:.2f} s"),
            ("speech tokens", str(voice.speech_tokens.shape[0])), ("created", voice.created_at),
            ("format", str(voice.format_version))]
    from .safety import escape_control

    for key, value in rows:  # names and transcripts come from files: no raw escape sequences
        io.stdout.write(f"{key + ':':<15}{escape_control(value)}\n")
    return EXIT_OK


def _voice_remove(args: argparse.Namespace, io: CliIO) -> int:
    from .safety import escape_control

    _library(args).remove(args.name)
    io.stdout.write(f"removed voice '{escape_control(args.name)}'\n")
    return EXIT_OK


def _cmd_voice(args: argparse.Namespace, io: CliIO) -> int:
    commands: dict[str, Callable[[argparse.Namespace, CliIO], int]] = {
        "add": _voice_add, "list": _voice_list, "show": _voice_show, "remove": _voice_remove,
        "transcribe": _run_voice_transcribe,
    }
    return commands[args.voice_command](args, io)


def _run_voice_transcribe(args: argparse.Namespace, io: CliIO) -> int:
    from .studio.transcribe import run_voice_transcribe

    return run_voice_transcribe(args, _library(args), io.stdout)


def _cmd_transcribe(args: argparse.Namespace, io: CliIO) -> int:
    from .studio.transcribe import run_transcribe

    return run_transcribe(args, io.stdout)


def _cmd_info(args: argparse.Namespace, io: CliIO) -> int:
    info = _load_engine(args).info()
    out = io.stdout
    out.write(f"model:        {info.title} ({info.family})\n")
    out.write(f"folder:       {info.model_dir}\n")
    out.write(f"device:       {info.device} ({info.dtype})\n")
    out.write(f"quality:      {info.quality}\n")
    out.write(f"text reading: {info.text_reading}\n")
    out.write(f"sample rate:  {info.sample_rate} Hz, {info.token_rate} speech tokens/s\n")
    for name, n in info.parameters:
        out.write(f"{name + ':':<14}{n:,} parameters\n")
    out.write(f"{'total:':<14}{info.total_parameters:,} parameters\n")
    for name, size in info.onnx_files:
        out.write(f"{'onnx:':<14}{name} ({size / 1e6:.1f} MB)\n")
    out.write(f"text vocab:   {info.text_vocab:,} ids\n")
    return EXIT_OK


def _cmd_presets(args: argparse.Namespace, io: CliIO) -> int:
    from .presets import FAMILIES, GROUP_TITLES, grouped_presets, instruct_prompt

    out = io.stdout
    for family in [args.family] if args.family else list(FAMILIES):
        out.write(f"{family}\n")
        for category, presets in grouped_presets(family):
            out.write(f"  {GROUP_TITLES[category]}\n")
            if not presets:
                out.write("    (none documented for this model)\n")
            for p in presets:
                mark = "" if p.verbatim else "  [phrased after the source's example]"
                out.write(f"    {p.id:<22}{p.text}  ({p.gloss}){mark}\n")
        example = instruct_prompt(family, "X").replace("X", "<instruction>", 1)
        out.write(f"  The LM receives: {example}<text>\n")
        out.write("  Combine with repeated --preset: one per group, in the order dialect, emotion, speed, volume; "
                  "a role play stands alone.\n")
    return EXIT_OK


def _cmd_text(args: argparse.Namespace, io: CliIO) -> int:
    from .studio.cli import run_text

    return run_text(args, io.stdin, io.stdout, io.stderr)


def _cmd_render(args: argparse.Namespace, io: CliIO) -> int:
    from .studio.cli import run_render

    return run_render(args, io.stderr, _load_engine)


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


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


COMMANDS: dict[str, Callable[[argparse.Namespace, CliIO], int]] = {
    "synth": _cmd_synth, "voice": _cmd_voice, "info": _cmd_info, "instruct-presets": _cmd_presets,
    "models": run_models_command, "serve": run_serve_command, "text": _cmd_text, "render": _cmd_render,
    "transcribe": _cmd_transcribe,
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
    prefer_passive_wait()  # before torch loads: waiting OpenMP threads sleep instead of spinning
    if argv and argv[0] == "conformance":
        from . import conformance

        return conformance.main(argv[1:])
    io = io or CliIO.system()
    parsed = _parse(argv, io)
    if isinstance(parsed, int):
        return parsed
    if not logging.getLogger().handlers:  # embedded callers (tests, other tools) keep their own logging
        logging.basicConfig(level=parsed.log_level, format="%(levelname)s %(name)s: %(message)s")
    return _run(parsed, io)


if __name__ == "__main__":
    sys.exit(main())
