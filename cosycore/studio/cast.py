"""The cast of a script: each speaker's saved voice and, optionally, a default instruction.

:func:`plan_lines` checks a script against a cast for one model family and turns every speech line
into a :class:`LinePlan`: the voice, the mode and the exact instruction. Every problem is reported
with its script line (an unknown speaker, a voice made for the other family, an instruction the
family cannot take, pronunciation tokens the family does not have), all at once, as a
:class:`~cosycore.studio.script.ScriptError`.

The mode of a line: with an instruction (the line's own, else the cast's default) it is
``instruct``; without one it is ``zero_shot`` when the voice has a transcript, else
``cross_lingual`` (both families can clone from a voice without a transcript that way).

An instruction "the family cannot take":

* a preset id (``emotion.happy``, several joined with ``+``) that the family has no preset for,
  or presets that do not combine (:func:`cosycore.presets.combine`);
* text the family's instruct prompt refuses (empty, or a control marker in it);
* pronunciation tokens (``[j][ǐ]``, ``[AH0]``) in an instruction or, for CosyVoice2, anywhere in a
  line: CosyVoice2's tokenizer has no such tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..config import FAMILY_TITLES
from ..errors import InputError
from ..presets import FAMILIES, find_preset, instruct_prompt
from ..presets import combine as combine_presets
from ..request import Mode
from ..voices import VOICE_SUFFIX, Voice, VoiceLibrary, load_voice
from .lexicon import Lexicon, combine, replacement_tokens, token_problem, voice_lexicon
from .script import Script, ScriptError, ScriptProblem, SpeechLine, speaker_key

_PRESET_ID_RE = re.compile(r"^[a-z]+\.[a-z0-9_]+(?:\s*\+\s*[a-z]+\.[a-z0-9_]+)*$")


@dataclass(frozen=True, eq=False)
class CastMember:
    """One speaker: the name used in the script, the voice and an optional default instruction."""

    name: str
    voice: Voice
    instruction: str | None = None


class Cast:
    """Speaker name (compared case-insensitively) → :class:`CastMember`."""

    def __init__(self, members: Iterable[CastMember] = ()) -> None:
        self._members: dict[str, CastMember] = {}
        for m in members:
            self.add(m)

    def add(self, member: CastMember) -> None:
        key = speaker_key(member.name)
        if not key:
            raise InputError("A cast entry needs a speaker name.")
        if key in self._members:
            raise InputError(f"{member.name!r} is cast twice; give each speaker one voice.")
        self._members[key] = member

    def get(self, name: str) -> CastMember | None:
        return self._members.get(speaker_key(name))

    def names(self) -> list[str]:
        return [m.name for m in self._members.values()]

    def __len__(self) -> int:
        return len(self._members)

    def __iter__(self) -> Iterator[CastMember]:
        return iter(self._members.values())


def find_voice(spec: str, library: VoiceLibrary) -> Voice:
    """A voice by ``.cosyvoice`` file path or by name in ``library``."""
    path = Path(spec)
    if path.suffix == VOICE_SUFFIX or path.is_file():
        return load_voice(path)
    return library.get(spec)


def parse_cast_args(specs: Iterable[str], library: VoiceLibrary,
                    instructions: Iterable[str] = ()) -> Cast:
    """A cast from ``NAME=VOICE`` strings (VOICE: a library name or a ``.cosyvoice`` file) and
    ``NAME=INSTRUCTION`` default instructions."""
    defaults: dict[str, str] = {}
    for spec in instructions:
        name, sep, text = spec.partition("=")
        if not sep or not name.strip() or not text.strip():
            raise InputError(f"--cast-instruct takes NAME=INSTRUCTION, e.g. 'Ben=Please speak softly.'; got {spec!r}.")
        defaults[speaker_key(name)] = text.strip()
    cast = Cast()
    for spec in specs:
        name, sep, voice_spec = spec.partition("=")
        if not sep or not name.strip() or not voice_spec.strip():
            raise InputError(f"--cast takes NAME=VOICE (a saved voice's name or a .cosyvoice file), e.g. "
                             f"'Anna=Fox'; got {spec!r}.")
        voice = find_voice(voice_spec.strip(), library)
        cast.add(CastMember(name.strip(), voice, defaults.pop(speaker_key(name), None)))
    if defaults:
        raise InputError(f"--cast-instruct names {', '.join(sorted(defaults))}, who "
                         f"{'is' if len(defaults) == 1 else 'are'} not in the cast; add --cast NAME=VOICE.")
    return cast


@dataclass(frozen=True, eq=False)
class LinePlan:
    """How one speech line is synthesised."""

    index: int  # position among the script's speech lines (0-based)
    line: SpeechLine
    member: CastMember
    mode: Mode
    instruction: str | None  # the instruction body sent (preset ids resolved), None unless instruct
    text: str  # the line's text with the pronunciation dictionary applied


def resolve_instruction(instruction: str, family: str) -> str:
    """The instruction body for ``family``: preset ids (``emotion.happy+speed.slow``) resolved, free
    text as it is. Raises :class:`InputError` when the family cannot take it."""
    text = instruction.strip()
    title = FAMILY_TITLES.get(family, family)
    if _PRESET_ID_RE.match(text):
        presets = []
        for preset_id in (p.strip() for p in text.split("+")):
            try:
                presets.append(find_preset(preset_id, family))
            except KeyError:
                raise InputError(f"{title} has no instruct preset {preset_id!r}; see 'cosycore instruct-presets "
                                 f"--family {family}', or write the instruction out in words.") from None
        text = combine_presets(presets)
    for token in replacement_tokens(text):
        raise InputError(f"the instruction holds {token}; an instruction is plain words (tags and "
                         "pronunciation tokens belong in the line's text).")
    instruct_prompt(family, text)  # the engine's own check: empty, control markers
    return text


def plan_lines(script: Script, cast: Cast, family: str, lexicon: Lexicon | None = None, *,
               app_lexicon: Lexicon | None = None) -> list[LinePlan]:
    """Check ``script`` against ``cast`` for ``family`` and plan every line; raise :class:`ScriptError`
    listing every problem (with its line number).

    A line's text gets the dictionaries in the order ``app_lexicon``, the speaker's voice's own
    dictionary, ``lexicon`` (the script's); the later wins for the same term."""
    if family not in FAMILIES:
        raise InputError(f"unknown model family {family!r}; expected one of {', '.join(FAMILIES)}.")
    title = FAMILY_TITLES[family]
    problems: list[ScriptProblem] = []
    for shared in (app_lexicon, lexicon):
        if shared is None:
            continue
        for why in shared.problems(family):
            problems.append(ScriptProblem(1, f"dictionary {shared.name}: {why}" if shared.name
                                          else f"dictionary: {why}"))
    per_member: dict[str, Lexicon | None] = {}
    plans: list[LinePlan] = []
    wrong_family_reported: set[str] = set()
    for index, line in enumerate(script.lines):
        member = cast.get(line.speaker)
        if member is None:
            known = ", ".join(cast.names()) or "nobody yet"
            problems.append(ScriptProblem(line.line, f"{line.speaker!r} is not in the cast (cast: {known}); "
                                          f"cast a voice for {line.speaker!r} (--cast '{line.speaker}=VOICE').",
                                          1, len(line.speaker)))
            continue
        if member.voice.family != family:
            if member.name not in wrong_family_reported:
                wrong_family_reported.add(member.name)
                problems.append(ScriptProblem(
                    line.line, f"{member.name}'s voice {member.voice.name!r} was made for "
                    f"{FAMILY_TITLES.get(member.voice.family, member.voice.family)}, but the model is {title}; "
                    "re-create the voice with this model or load the other model.", 1, len(line.speaker)))
            continue
        raw_instruction = line.instruction if line.instruction is not None else member.instruction
        instruction = None
        if raw_instruction is not None:
            try:
                instruction = resolve_instruction(raw_instruction, family)
            except InputError as e:
                whose = "the line's" if line.instruction is not None else f"{member.name}'s default"
                problems.append(ScriptProblem(line.line, f"{whose} instruction cannot be used with {title}: {e}",
                                              len(line.speaker) + 2 if line.instruction is not None else 1))
                continue
        key = speaker_key(member.name)
        if key not in per_member:
            try:
                own = voice_lexicon(member.voice)
                if own is not None:
                    own.check(family)
            except InputError as e:
                problems.append(ScriptProblem(line.line, f"{member.name}'s voice: {e}", 1, len(line.speaker)))
                per_member[key] = None
                continue
            per_member[key] = combine(app_lexicon, own, lexicon)
        line_lexicon = per_member[key]
        text = line_lexicon.apply(line.text) if line_lexicon is not None else line.text
        token_why = token_problem(text, family, strict=False)
        if token_why is not None:
            problems.append(ScriptProblem(line.line, f"the line {token_why}", len(line.speaker) + 2))
            continue
        mode: Mode
        if instruction is not None:
            mode = "instruct"
        elif member.voice.transcript.strip():
            mode = "zero_shot"
        else:
            mode = "cross_lingual"
        plans.append(LinePlan(index, line, member, mode, instruction, text))
    if problems:
        raise ScriptError(problems, script.name)
    return plans


def cast_from_mapping(mapping: Mapping[str, Voice], instructions: Mapping[str, str] | None = None) -> Cast:
    """A cast from ``{name: voice}`` (and ``{name: default instruction}``)."""
    instructions = {speaker_key(k): v for k, v in (instructions or {}).items()}
    return Cast(CastMember(n, v, instructions.get(speaker_key(n))) for n, v in mapping.items())
