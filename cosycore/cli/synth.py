"""``cosycore synth``: text (``--text``, ``--text-file`` or standard input) to a WAV/FLAC file or raw
float32 PCM on standard output; with ``--script``, a dialogue (:mod:`cosycore.studio.cli`).
"""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..config import MAX_SPEED, MIN_SPEED
from ..errors import InputError
from .common import (
    EXIT_OK,
    CliIO,
    EngineLoader,
    UsageError,
    add_model_args,
    add_voices_dir_arg,
    find_voice,
    print_warnings,
)

OUTPUT_FORMATS = {".wav": "WAV", ".flac": "FLAC"}
MAX_TEXT_FILE_BYTES = 64 * 1024 * 1024  # larger files are not even read; the engine's limit is far lower


def add_synth_parser(sub: Any) -> None:
    p = sub.add_parser("synth", help="speak a text", description="Speak a text with a cloned voice.")
    add_model_args(p)
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
    p.add_argument("--speed", type=float, default=1.0, help=f"{MIN_SPEED} to {MAX_SPEED} (default 1.0)")
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
    add_voices_dir_arg(p)
    from ..studio.cli import add_lexicon_arg, add_script_args

    add_lexicon_arg(p)
    add_script_args(p)


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


def _instruction(args: argparse.Namespace) -> str | None:
    if not args.preset:
        return args.instruct
    if args.instruct:
        raise UsageError("give either --instruct or --preset, not both.")
    from ..config import detect_family
    from ..presets import combine, find_preset

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
    from ..engine import SynthesisRequest
    from ..request import Mode

    if args.prompt_wav is not None and args.voice is not None:
        raise UsageError("give either --prompt-wav or --voice, not both.")
    instruction = _instruction(args)
    mode: Mode = args.mode or ("instruct" if instruction else "zero_shot")
    voice = find_voice(args.voice, args.voices_dir) if args.voice else None
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
    from ..config import detect_family
    from ..studio.cli import command_lexicon

    voice = find_voice(args.voice, args.voices_dir) if args.voice else None
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
        from ..outfile import AtomicAudioFile, check_output_target

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
            from ..outfile import write_all

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
            from ..outfile import write_all

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


def run_synth(args: argparse.Namespace, io: CliIO, load_engine: EngineLoader) -> int:
    from ..frontend.text_checks import DEFAULT_MAX_CHARS
    from ..request import validate_request

    if args.max_chars is not None and args.max_chars < 1:
        raise UsageError(f"--max-chars must be 1 or more (characters of text in one request), not {args.max_chars}.")
    max_chars = args.max_chars or DEFAULT_MAX_CHARS
    if args.script is not None:
        from ..studio.cli import run_script_synth

        return run_script_synth(args, io.stderr, lambda a: load_engine(a, max_chars))
    if args.cast or args.cast_instruct or args.stems or args.vtt:
        raise UsageError("--cast, --cast-instruct, --vtt and --stems go with --script.")
    request = _request(args, _apply_lexicon(args, _text_source(args, io.stdin)))
    validate_request(request, max_chars=max_chars)  # input problems show before the model loads
    sink = AudioSink(args.out, 0, io.stdout_bytes)
    if args.srt is not None:
        from ..outfile import check_side_outputs

        check_side_outputs(args.out, srt=args.srt)  # a clash or an unwritable --srt shows before the work
    engine = load_engine(args, max_chars)
    sink.sample_rate = engine.sample_rate
    progress = Progress(io.stderr, not args.quiet, time.perf_counter())
    spoken: list[tuple[int, str, int, int]] = []  # per chunk, for --srt
    try:
        with _sigterm_as_interrupt():
            for chunk in engine.synthesize(request):
                print_warnings(chunk.warnings, io.stderr)
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
    from .. import subtitles
    from ..voices import write_atomic

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
