"""Command-line side of the studio features (wired into ``python -m cosycore`` by :mod:`cosycore.__main__`).

* ``synth --script FILE --cast NAME=VOICE … --out OUT [--srt F] [--vtt [F]] [--stems DIR]``;
* ``synth --lexicon FILE …`` (also with ``--script``);
* ``text [--lexicon FILE] [--model DIR | --family F] "text"``: the sentences as the engine speaks them;
* ``render FILE.md|FILE.txt --model DIR --voice V --out OUT``: long-form, resumable, with progress and ETA;
* ``regenerate --model DIR --take OUT --line N [--seed S] [--instruct TEXT]``: one line of a script take again;
* ``take lines OUT`` and ``take undo OUT``: a script take's lines; back to before the last regeneration.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ..config import QUALITY_MODES, TEXT_READINGS
from ..errors import InputError
from ..voices import Voice
from .lexicon import Lexicon, combine, load_app_lexicon, load_many, voice_lexicon

EngineLoader = Callable[[argparse.Namespace], Any]


def add_lexicon_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lexicon", action="append", type=Path, default=[], metavar="FILE",
                   help="pronunciation dictionary (CSV with a 'term,replacement' header); repeat to merge, "
                        "later files win. Applied over the app-wide dictionary and the voice's own")
    p.add_argument("--no-app-lexicon", action="store_true",
                   help="leave out the app-wide dictionary ($COSY_LEXICON or lexicon.csv in the user data folder)")


def add_script_args(p: argparse.ArgumentParser) -> None:
    """Options of ``synth`` for scripts (``--script`` itself is in the text-source group)."""
    p.add_argument("--cast", action="append", default=[], metavar="NAME=VOICE",
                   help="who speaks a script's lines: a saved voice name or a .cosyvoice file (repeat per speaker)")
    p.add_argument("--cast-instruct", action="append", default=[], metavar="NAME=INSTRUCTION",
                   help="a speaker's default instruction (a line's own '(instruction)' replaces it)")
    p.add_argument("--vtt", nargs="?", const=True, default=None, metavar="FILE",
                   help="write WebVTT subtitles, one cue per script line (default file: the --srt or --out name "
                        "with .vtt); --srt writes one SubRip cue per script line, with the speaker's name")
    p.add_argument("--stems", type=Path, default=None, metavar="DIR",
                   help="also write one file per speaker into DIR, each as long as the whole take")
    p.add_argument("--line-gap", type=float, default=0.3, help="seconds of silence between script lines")
    p.add_argument("--paragraph-pause", type=float, default=0.9, help="seconds of silence for a blank script line")
    p.add_argument("--no-take", action="store_true",
                   help="do not save the take folder (OUT.take beside OUT) that 'cosycore regenerate' needs to "
                        "speak one line again later")


def app_lexicon(args: argparse.Namespace) -> Lexicon | None:
    return None if getattr(args, "no_app_lexicon", False) else load_app_lexicon()


def command_lexicon(args: argparse.Namespace, voice: Voice | None) -> Lexicon | None:
    """What a one-voice command applies: the app's dictionary, the voice's, then the --lexicon files."""
    return combine(app_lexicon(args), voice_lexicon(voice) if voice is not None else None, load_many(args.lexicon))


def _vtt_path(args: argparse.Namespace) -> Path | None:
    if args.vtt is None:
        return None
    if args.vtt is not True:
        return Path(args.vtt)
    base = args.srt if args.srt is not None else Path(args.out)
    return base.with_suffix(".vtt")


def run_script_synth(args: argparse.Namespace, stderr: IO[str], load_engine: EngineLoader) -> int:
    """``synth --script``: render the script, streamed to --out (and stems), then write the subtitles."""
    from .. import subtitles
    from ..subtitles import Cue
    from ..voices import VoiceLibrary, default_voices_dir
    from .cast import parse_cast_args, plan_lines
    from .output import AtomicAudioWriter, audio_format, stem_file_name, write_text_atomic
    from .render import RenderSettings, ScriptRender
    from .script import load_script
    from .take_file import TakeModel, TakeWriter, check_new_take_folder, inherited_previous, take_folder

    if args.out == "-":
        raise InputError("a script is written to a file: give --out NAME.wav or NAME.flac.")
    audio_format(args.out)
    from ..outfile import check_output_target, check_side_outputs

    check_output_target(Path(args.out).absolute(), missing_folder_ok=True)  # a script's folders are made
    check_side_outputs(args.out, srt=args.srt, vtt=_vtt_path(args),  # before the model loads, not after the take
                       missing_folder_ok=True)
    if not args.cast:
        raise InputError("a script needs a cast: --cast NAME=VOICE for every speaker.")
    script = load_script(args.script)
    folder = None if args.no_take else take_folder(args.out)
    if folder is not None:
        check_new_take_folder(folder, replace_existing=True)  # an earlier take of OUT is replaced, nothing else
    library = VoiceLibrary(args.voices_dir or default_voices_dir())
    cast = parse_cast_args(args.cast, library, args.cast_instruct)
    lexicon = load_many(args.lexicon)  # over the script's own [lexicon] files
    family = next(iter(cast)).voice.family
    shared = app_lexicon(args)
    # every problem shows before the model loads
    plan_lines(script, cast, family, combine(load_many(script.lexicon_files), lexicon), app_lexicon=shared)
    settings = RenderSettings(line_gap=args.line_gap, paragraph_pause=args.paragraph_pause, seed=args.seed,
                              speed=args.speed, stream=args.stream, language=args.language,
                              text_frontend=not args.no_text_frontend, min_tokens=args.min_tokens,
                              max_tokens=args.max_tokens)
    engine = load_engine(args)
    render = ScriptRender(engine, script, cast, settings, lexicon, app_lexicon=shared)
    sr = engine.sample_rate
    out = AtomicAudioWriter(args.out, sr)
    stems: dict[str, AtomicAudioWriter] = {}
    cues: list[Cue] = []
    saver = None
    try:
        if folder is not None:
            model = TakeModel(engine.family, Path(args.model).name, args.quality, engine.text_reading)
            saver = TakeWriter(folder, render, model, Path(args.script).read_text(encoding="utf-8"),
                               Path(args.script).name)
        if args.stems is not None:
            taken: set[str] = set()
            for name in dict.fromkeys(p.member.name for p in render.plans):
                stems[name] = AtomicAudioWriter(args.stems / stem_file_name(name, Path(args.out).suffix, taken), sr)
        started = time.perf_counter()
        line_start: dict[int, float] = {}
        lines = len(render.plans)
        for chunk in render.chunks(keep_audio=False):  # straight to the files: one line in memory
            for w in chunk.warnings:
                stderr.write(f"warning: {w}\n")
            out.write(chunk.samples)
            if saver is not None:
                saver.add(chunk)
            for name, writer in stems.items():
                if name == chunk.speaker:
                    writer.write(chunk.samples)
                else:
                    writer.write_silence(chunk.samples.shape[0])
            if chunk.line_index is not None:
                line_start.setdefault(chunk.line_index, chunk.start_time)
                if chunk.segment_final:
                    plan = render.plans[chunk.line_index]
                    cues.append(Cue(line_start[chunk.line_index], chunk.start_time + chunk.duration,
                                    plan.line.text, plan.member.name))
                    if not args.quiet:
                        stderr.write(f"line {plan.line.line} ({plan.member.name}) done, {chunk.line_index + 1} "
                                     f"of {lines}, "
                                     f"{chunk.start_time + chunk.duration:.1f} s of audio in "
                                     f"{time.perf_counter() - started:.1f} s\n")
        if len(cues) != lines:
            raise InputError("the script was not rendered to the end; nothing was written.")
        out.commit()
        for writer in stems.values():
            writer.commit()
    except BaseException:
        out.abort()
        for writer in stems.values():
            writer.abort()
        if saver is not None:
            saver.abort()
        raise
    try:
        if args.srt is not None:
            write_text_atomic(args.srt, subtitles.srt(cues))
        vtt = _vtt_path(args)
        if vtt is not None:
            write_text_atomic(vtt, subtitles.vtt(cues))
    except BaseException:
        if saver is not None:
            saver.abort()
        raise
    if saver is not None:
        from .regenerate import Targets, recorded_outputs

        written = Targets(Path(args.out), saver.folder, True, False, args.srt, vtt,
                          tuple((name, w.path) for name, w in stems.items()))
        saver.commit(recorded_outputs(written, inherited_previous(saver.folder)))
    if not args.quiet:
        stderr.write(f"wrote {args.out} ({out.samples / sr:.2f} s, {lines} lines, seed {render.base_seed})\n")
        if folder is not None:
            stderr.write(f"saved its take in {folder.name}: 'cosycore regenerate --take {Path(args.out).name} "
                         "--line N' speaks line N of the script again\n")
    return 0


# --------------------------------------------------------------------------------------------
# text
# --------------------------------------------------------------------------------------------


def add_text_parser(sub: Any) -> None:
    p = sub.add_parser("text", help="show the sentences exactly as the engine will speak them",
                       description="Apply the pronunciation dictionary, normalise and split the text the way "
                                   "synthesis does, and print one segment (one LM request) per line.")
    p.add_argument("text", nargs="?", help="the text (default: standard input)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", type=Path, help="release folder: its family and its tokenizer (exact split)")
    src.add_argument("--family", choices=("cosyvoice2", "cosyvoice3"),
                     help="model family, without a model folder (English lengths are then estimated)")
    p.add_argument("--language", choices=("zh", "en"), default=None, help="language of the text (default: detect)")
    p.add_argument("--no-text-frontend", action="store_true", help="as synth --no-text-frontend")
    p.add_argument("--mode", choices=("zero_shot", "cross_lingual", "instruct"), default="zero_shot",
                   help="the request's mode (Fun-CosyVoice3's original reading passes cross_lingual text as is)")
    p.add_argument("--quality", choices=QUALITY_MODES, default="exact",
                   help="as synth --quality: picks the default text reading (exact: original)")
    p.add_argument("--text-reading", choices=TEXT_READINGS, default=None,
                   help="as synth --text-reading (default: original with --quality exact, else improved)")
    add_lexicon_arg(p)


def run_text(args: argparse.Namespace, stdin: IO[str], stdout: IO[str], stderr: IO[str]) -> int:
    from ..config import QWEN_DIR, detect_family
    from ..frontend.text_checks import check_spoken_text
    from ..frontend.text_reading import check_text_reading, default_text_reading
    from ..frontend.tokenizer import get_text_tokenizer
    from ..mode_plan import spoken_sentences

    text = args.text if args.text is not None else stdin.read()
    lexicon = command_lexicon(args, None)
    tokenizer = None
    family = args.family
    if args.model is not None:
        family, _ = detect_family(args.model)
        tokenizer = get_text_tokenizer(args.model / QWEN_DIR, family)
    if lexicon is not None:
        if family is None:
            raise InputError("a dictionary's tokens depend on the model: give --model DIR or --family F.")
        lexicon.check(family)
        for start, end, entry in lexicon.matches(text):
            stderr.write(f"dictionary: {text[start:end]!r} -> {entry.replacement!r}\n")
        text = lexicon.apply(text)
    check_spoken_text(text)
    if tokenizer is None and not args.no_text_frontend:
        stderr.write("note: without --model, English segment lengths are estimated from the word count; "
                     "the split can differ from the model's.\n")
    reading = (check_text_reading(args.text_reading) if args.text_reading
               else default_text_reading(args.quality == "exact"))
    for sentence in spoken_sentences(text, reading=reading, family=family, mode=args.mode, language=args.language,
                                     text_frontend=not args.no_text_frontend, tokenizer=tokenizer):
        stdout.write(sentence + "\n")
    return 0


# --------------------------------------------------------------------------------------------
# render (long-form)
# --------------------------------------------------------------------------------------------


def add_render_parser(sub: Any, model_args: Callable[[argparse.ArgumentParser], None],
                      voices_dir_arg: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("render", help="speak a long .txt or .md file into an audio file (resumable)",
                       description="Render a text or Markdown file to WAV/FLAC, streamed to disk. Stopped "
                                   "(Ctrl-C), it resumes where it stopped when run again with the same options. "
                                   "Markdown headings become chapters.")
    p.add_argument("file", type=Path, help="the .txt or .md file")
    model_args(p)
    p.add_argument("--voice", required=True, help="a saved voice: a .cosyvoice file or a name in the voice library")
    p.add_argument("--out", "-o", required=True, type=Path, help="output .wav or .flac")
    p.add_argument("--instruct", default=None, help="speak everything with this instruction (instruct mode)")
    p.add_argument("--speed", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--language", choices=("zh", "en"), default=None)
    p.add_argument("--chapters", choices=("cue", "split", "none"), default="cue",
                   help="cue: a cue sheet beside the file (default); split: one file per chapter and an M3U "
                        "playlist; none: no chapter markers")
    p.add_argument("--restart", action="store_true", help="discard an unfinished render of OUT and start over")
    p.add_argument("--overwrite", action="store_true", help="replace existing output files")
    p.add_argument("--quiet", "-q", action="store_true")
    p.add_argument("--min-tokens", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--max-tokens", type=int, default=None, help=argparse.SUPPRESS)
    add_lexicon_arg(p)
    voices_dir_arg(p)


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def run_render(args: argparse.Namespace, stderr: IO[str], load_engine: EngineLoader) -> int:
    from ..voices import VoiceLibrary, default_voices_dir
    from .cast import find_voice, resolve_instruction
    from .longform import LongFormJob, LongFormProgress, LongFormSettings, load_document, partial_path

    document = load_document(args.file)
    voice = find_voice(args.voice, VoiceLibrary(args.voices_dir or default_voices_dir()))
    lexicon = command_lexicon(args, voice)
    instruction = resolve_instruction(args.instruct, voice.family) if args.instruct else None
    settings = LongFormSettings(instruction=instruction, speed=args.speed, seed=args.seed, language=args.language,
                                chapters=args.chapters, min_tokens=args.min_tokens, max_tokens=args.max_tokens)
    engine = load_engine(args)
    job = LongFormJob(engine, document, voice, args.out, settings, lexicon, restart=args.restart,
                      overwrite=args.overwrite)
    if job.state.done and not args.quiet:
        stderr.write(f"resuming: {job.state.done} of {len(document.segments)} segments already done\n")
    tty = stderr.isatty()

    def show(p: LongFormProgress) -> None:
        if args.quiet:
            return
        pct = 100.0 * p.chars_done / max(1, p.chars_total)
        line = (f"{p.done}/{p.total} segments, {pct:.0f} %, {_clock(p.audio_seconds)} of audio, "
                f"elapsed {_clock(p.elapsed)}, ETA {_clock(p.eta)}")
        stderr.write(("\r" + line) if tty else (line + "\n"))
        stderr.flush()

    try:
        finished = job.run(show)
    except KeyboardInterrupt:
        stderr.write(f"\npaused: {job.state.done} of {len(document.segments)} segments are kept in "
                     f"{partial_path(job.out).name}; run the same command again to resume.\n")
        raise
    if tty and not args.quiet:
        stderr.write("\n")
    if not finished:
        stderr.write("stopped; run the same command again to resume.\n")
        return 130
    if not args.quiet:
        chapters = len(document.chapter_titles)
        if args.chapters == "split":
            stderr.write(f"wrote {chapters} chapter file{'s' if chapters != 1 else ''} and "
                         f"{args.out.with_suffix('.m3u')}\n")
        else:
            cue = " and a cue sheet" if args.chapters == "cue" and chapters > 1 else ""
            stderr.write(f"wrote {args.out} ({chapters} chapter{'s' if chapters != 1 else ''}{cue})\n")
    return 0


# --------------------------------------------------------------------------------------------
# regenerate, take
# --------------------------------------------------------------------------------------------


def add_regenerate_parser(sub: Any, model_args: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser(
        "regenerate", help="speak one line of a script take again and splice it in",
        description="Speak one line of a take that 'synth --script' wrote again, with another seed or "
                    "instruction, and splice it in with a short crossfade; the other lines keep their audio "
                    "sample for sample. Reads the take folder beside the audio (OUT.wav.take). In place (no "
                    "--out), the previous audio is kept as OUT.prev.wav ('cosycore take undo' swaps it back), "
                    "and the subtitles and stems written from the take are rewritten. --quality and "
                    "--text-reading default to the take's.")
    model_args(p)
    p.set_defaults(quality=None)  # the take's, unless given
    p.add_argument("--take", required=True, type=Path, metavar="OUT.wav",
                   help="the audio file 'synth --script' wrote (or its OUT.wav.take folder)")
    p.add_argument("--line", required=True, type=int, metavar="N",
                   help="the line's number in the script file, counting every line from 1 (blank lines and "
                        "comments too), as error messages and 'cosycore take lines' show it")
    p.add_argument("--seed", type=int, default=None,
                   help="the new seed (default: the line's seed + 1, so another reading of the line)")
    instruct = p.add_mutually_exclusive_group()
    instruct.add_argument("--instruct", default=None, metavar="TEXT",
                          help="a new instruction for the line: words, or preset ids such as emotion.happy "
                               "(default: the line's own)")
    instruct.add_argument("--no-instruct", action="store_true", help="speak the line without an instruction")
    p.add_argument("--out", "-o", type=Path, default=None, metavar="NEW.wav",
                   help="write the new take to NEW.wav (with NEW.wav.take beside it) and leave the take as it is")
    p.add_argument("--srt", nargs="?", const=True, default=None, type=Path, metavar="FILE",
                   help="(re)write SubRip subtitles (default file: the take's, else the audio's name with .srt)")
    p.add_argument("--vtt", nargs="?", const=True, default=None, type=Path, metavar="FILE",
                   help="(re)write WebVTT subtitles (default file: the take's, else the audio's name with .vtt)")
    p.add_argument("--stems", nargs="?", const=True, default=None, type=Path, metavar="DIR",
                   help="(re)write one file per speaker into DIR (default: where the take wrote them)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace files the take did not write (or that were changed since)")
    p.add_argument("--quiet", "-q", action="store_true")


def run_regenerate(args: argparse.Namespace, stderr: IO[str], load_engine: EngineLoader) -> int:
    from dataclasses import replace

    from ..config import FAMILY_TITLES
    from .regenerate import plan_targets, write_outputs
    from .render import SEED_LIMIT, regenerate_line
    from .take_file import find_take, load_take, save_take, update_take

    record = load_take(find_take(args.take))
    index = record.line_index(args.line)
    if args.seed is not None and not 0 <= args.seed < SEED_LIMIT:
        raise InputError(f"--seed must be from 0 to {SEED_LIMIT - 1}.")
    targets = plan_targets(record, out=args.out, srt=args.srt, vtt=args.vtt, stems=args.stems,
                           overwrite=args.overwrite, warn=lambda m: stderr.write(f"warning: {m}\n"))
    changes: dict[str, Any] = {}
    if args.instruct is not None or args.no_instruct:
        changes["instruction"] = None if args.no_instruct else args.instruct
    if args.quality is None:
        args.quality = record.model.quality if record.model.quality != "custom" else "exact"
    if args.text_reading is None:
        args.text_reading = record.model.text_reading
    engine = load_engine(args)
    family = record.model.family
    if engine.family != family:
        raise InputError(f"the take was made with {FAMILY_TITLES.get(family, family)}; give --model a folder of "
                         "that family.")
    if engine.sample_rate != record.take.sample_rate:
        raise InputError(f"the take is {record.take.sample_rate} Hz, the model speaks {engine.sample_rate} Hz; "
                         "give --model the release the take was made with.")
    take = regenerate_line(engine, record.take, index, seed=args.seed, **changes)
    outputs = write_outputs(take, targets)
    if targets.in_place:
        update_take(record, take, outputs)
    else:
        save_take(replace(record, take=take, outputs=outputs, revision=0), targets.take_folder,
                  replace_existing=args.overwrite)
    if not args.quiet:
        seg = take.segments[take.line_segment(index)]
        assert seg.plan is not None
        how = f"instruction {seg.plan.instruction!r}" if seg.plan.instruction else "no instruction"
        stderr.write(f"line {args.line} ({seg.plan.member.name}) spoken again with seed {seg.seed} and {how}\n")
        kept = f"; the previous version is {targets.audio.stem}.prev{targets.audio.suffix}" if targets.keep_previous \
            else ""
        stderr.write(f"wrote {targets.audio} ({take.duration:.2f} s){kept}\n")
        for path in (targets.srt, targets.vtt, *(p for _, p in targets.stems)):
            if path is not None:
                stderr.write(f"wrote {path}\n")
    return 0


def add_take_parser(sub: Any) -> None:
    p = sub.add_parser("take", help="show or undo the lines of a script take",
                       description="Work with the take folder 'synth --script' saves beside its audio.")
    tsub = p.add_subparsers(dest="take_command", required=True, metavar="{lines,undo}")
    lines = tsub.add_parser("lines", help="list the spoken lines of a take: script line, speaker, seed, instruction")
    undo = tsub.add_parser("undo", help="go back to the take before the last 'regenerate' (run again to redo)")
    for leaf in (lines, undo):
        leaf.add_argument("take", type=Path, metavar="OUT.wav",
                          help="the audio 'synth --script' wrote, or its take folder")
    undo.add_argument("--overwrite", action="store_true", help="replace the audio even if it was changed since")


def run_take(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from ..safety import escape_control
    from .regenerate import undo
    from .take_file import find_take, load_take, undo_take

    folder = find_take(args.take)
    if args.take_command == "lines":
        record = load_take(folder)
        sr = record.take.sample_rate
        stdout.write(f"{'line':>5}  {'speaker':<16} {'seed':>10}  {'start':>8}  text\n")
        for (start, _), seg in zip(record.take.layout(), record.take.segments):
            if seg.plan is None:
                continue
            how = f"({seg.plan.instruction}) " if seg.plan.instruction else ""
            mark = "  [regenerated]" if seg.spliced else ""
            stdout.write(escape_control(f"{seg.plan.line.line:>5}  {seg.plan.member.name:<16} {seg.seed:>10}  "
                                        f"{start / sr:>7.2f}s  {how}{seg.plan.line.text}{mark}") + "\n")
        return 0
    record, previous = load_take(folder), load_take(folder, previous=True)
    outputs = undo(record, previous, overwrite=args.overwrite, warn=lambda m: stderr.write(f"warning: {m}\n"))
    undo_take(folder, outputs)
    stderr.write(f"{folder.name}: back to the take before the last regeneration (run 'take undo' again to redo)\n")
    return 0
