"""``cosycore convert``: a recording's speech in a saved voice (voice conversion, :mod:`cosycore.engine.convert`),
to a WAV/FLAC file or raw float32 PCM on standard output, with ``synth``'s output rules."""

from __future__ import annotations

import argparse
import time
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
    print_warnings,
)
from .synth import AudioSink, Progress, _sigterm_as_interrupt


def add_convert_parser(sub: Any) -> None:
    p = sub.add_parser("convert", help="say a recording again in another voice",
                       description="Voice conversion: the words, timing and intonation of SOURCE, in the voice of "
                                   "--voice (or of the recording --prompt-wav). Sources longer than 30 s are "
                                   "converted in pieces cut at pauses.")
    add_model_args(p)
    p.add_argument("source", type=Path, help="the recording to convert (WAV, FLAC, OGG, MP3; 16 kHz or more)")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("--voice", help="the target voice: a .cosyvoice file or a name in the voice library")
    target.add_argument("--prompt-wav", type=Path, help="the target voice as a recording (3-10 s)")
    p.add_argument("--speed", type=float, default=1.0, help="0.5 to 2.0 times the source's pace (default 1.0)")
    p.add_argument("--seed", type=int, default=None, help="the vocoder's noise (CosyVoice2)")
    p.add_argument("--stream", action="store_true", help="convert in streaming hops and write chunks as they come")
    p.add_argument("--max-seconds", type=float, default=None,
                   help="longest source accepted (default 3600 s); longer ones are refused, not cut short")
    p.add_argument("--out", "-o", required=True,
                   help="output file (.wav or .flac, 16-bit) or '-' for raw float32 PCM on standard output")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress line")
    add_voices_dir_arg(p)
    p.set_defaults(with_llm=False)  # conversion never runs the language model: it is not loaded (memory)


def run_convert(args: argparse.Namespace, io: CliIO, load_engine: EngineLoader) -> int:
    from ..engine.convert import MAX_SOURCE_SECONDS, ConversionRequest, probe_source, validate_conversion

    max_seconds = args.max_seconds if args.max_seconds is not None else MAX_SOURCE_SECONDS
    if not max_seconds > 0:
        raise UsageError(f"--max-seconds must be positive, got {args.max_seconds}.")
    voice = find_voice(args.voice, args.voices_dir) if args.voice else None
    # input problems show before the model loads
    validate_conversion(ConversionRequest(args.source, voice, prompt_audio=args.prompt_wav, speed=args.speed,
                                          seed=args.seed, stream=args.stream, max_source_seconds=max_seconds))
    probe_source(args.source, None, max_seconds=max_seconds)
    if args.prompt_wav is not None:
        probe_source(args.prompt_wav, None)
    sink = AudioSink(args.out, 0, io.stdout_bytes)
    engine = load_engine(args)
    sink.sample_rate = engine.sample_rate
    progress = Progress(io.stderr, not args.quiet, time.perf_counter())
    try:
        with _sigterm_as_interrupt():
            for chunk in engine.convert(args.source, voice, prompt_audio=args.prompt_wav, speed=args.speed,
                                        stream=args.stream, seed=args.seed, max_source_seconds=max_seconds):
                print_warnings(chunk.warnings, io.stderr)
                sink.write(chunk.samples)
                progress.update(chunk.duration, chunk.timing)
            sink.commit()
    except KeyboardInterrupt:
        kept = sink.keep_partial()
        if kept is not None:
            io.stderr.write(f"\nkept the {sink.samples / sink.sample_rate:.2f} s made so far in {kept} "
                            f"({args.out} was not changed)\n")
        raise
    except BaseException:
        sink.discard()
        raise
    progress.done()
    return EXIT_OK
