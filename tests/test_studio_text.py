"""Studio, without a model: the script parser, the cast checks, the pronunciation dictionary, subtitles,
the Markdown document parser and ``cosycore text``."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from cosycore.__main__ import CliIO, main
from cosycore.errors import InputError
from cosycore.studio.cast import Cast, CastMember, plan_lines, resolve_instruction
from cosycore.studio.lexicon import (
    Lexicon,
    LexiconEntry,
    LexiconError,
    load_csv,
    parse_csv,
    save_csv,
    to_csv,
    voice_lexicon,
    with_voice_lexicon,
)
from cosycore.studio.longform import parse_document
from cosycore.studio.script import Pause, ScriptError, SpeechLine, parse_script
from cosycore.subtitles import Chapter, Cue, cue_sheet, srt, vtt
from cosycore.voices import Voice, load_voice, save_voice


@pytest.fixture(autouse=True)
def _no_app_lexicon(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The user's own app-wide dictionary never leaks into a test."""
    monkeypatch.setenv("COSY_LEXICON", str(tmp_path / "no-app-lexicon.csv"))


# --------------------------------------------------------------------------------------------
# Script parser
# --------------------------------------------------------------------------------------------

GOOD = """\ufeff# a radio play
Anna: Did you hear that?
Ben (whispering): Quiet. Someone is at the door: listen.

[pause 800ms]
anna（emotion.fearful）：Who is it?


Ben: Nobody. [pause]
[pause 1.5s]
"""


def test_parse_a_good_script() -> None:
    script = parse_script(GOOD)
    assert script.items == (
        SpeechLine(2, "Anna", "Did you hear that?"),
        SpeechLine(3, "Ben", "Quiet. Someone is at the door: listen.", "whispering"),
        Pause(5, 0.8),  # the written pause replaces the blank line's paragraph pause
        SpeechLine(6, "anna", "Who is it?", "emotion.fearful"),
        Pause(7, None, paragraph=True),  # two blank lines: one paragraph pause
        SpeechLine(9, "Ben", "Nobody. [pause]"),
        Pause(10, 1.5),
    )
    assert script.speakers() == ["Anna", "Ben"]  # case-insensitive, first spelling kept


BAD_LINES = {
    "Anna Did you hear that?": "no speaker",
    "Ben (whispering: quiet": "not closed",
    ": nobody speaks": "name before the colon is missing",
    "Anna:   ": "says nothing",
    "[pause 5 minutes]": "is not a pause",
    "[pause 0ms]": "longer than 0",
    "[pause 90s]": "at most 60",
    "[music]": "is not something a script understands",
    "Carl (): hi": "parentheses are empty",
    "Dan: ... !!": "nothing to speak",
    "Eve (a) (b): hi": "one pair of parentheses",
    "Fay: hello <|endofprompt|> there": "control marker",
    "Gus (sad <|endofprompt|>): hi": "control marker",
    "[lexicon missing.csv]": "does not exist",
    "x" * 70 + ": hi": "longer than 64",
}


@pytest.mark.parametrize("bad", list(BAD_LINES))
def test_every_malformed_line_is_reported_with_its_number(bad: str) -> None:
    text = f"# header\nAnna: Hello.\n{bad}\nBen: Bye.\n"
    with pytest.raises(ScriptError) as e:
        parse_script(text)
    assert [p.line for p in e.value.problems] == [3]
    assert BAD_LINES[bad] in e.value.problems[0].message
    assert "line 3: " in str(e.value)
    assert isinstance(e.value, InputError)


def test_all_problems_are_listed_at_once() -> None:
    text = "\n".join(BAD_LINES) + "\nAnna: fine\n"
    with pytest.raises(ScriptError) as e:
        parse_script(text)
    assert [p.line for p in e.value.problems] == list(range(1, len(BAD_LINES) + 1))


def test_a_script_without_lines_is_an_error() -> None:
    with pytest.raises(ScriptError, match="no speaker lines"):
        parse_script("# only a comment\n\n[pause 1s]\n")


def test_lexicon_directive_is_relative_to_the_script(tmp_path: Path) -> None:
    (tmp_path / "names.csv").write_text("term,replacement\nNguyen,Win\n", encoding="utf-8")
    script = parse_script("[lexicon names.csv]\nAnna: Hi Nguyen.\n", base_dir=tmp_path)
    assert script.lexicon_files == (tmp_path / "names.csv",)


# --------------------------------------------------------------------------------------------
# Cast
# --------------------------------------------------------------------------------------------


def _voice(name: str, family: str, transcript: str = "") -> Voice:
    return Voice(name=name, transcript=transcript, language="en", family=family, speech_tokenizer_sha256="x",
                 audio_24k=np.zeros(2400, np.float32), speech_tokens=np.arange(5, dtype=np.int32),
                 embedding=np.zeros(192, np.float32), prompt_mel=np.zeros((10, 80), np.float32))


def test_cast_plans_modes_and_resolves_presets() -> None:
    script = parse_script("Anna: Hello.\nBen (emotion.happy+speed.slow): Hi.\nCleo: Hey.\nBen: Bye.\n")
    cast = Cast([CastMember("anna", _voice("A", "cosyvoice3", "some words")),
                 CastMember("BEN", _voice("B", "cosyvoice3"), "Please speak softly."),
                 CastMember("Cleo", _voice("C", "cosyvoice3"))])
    plans = plan_lines(script, cast, "cosyvoice3")
    assert [p.mode for p in plans] == ["zero_shot", "instruct", "cross_lingual", "instruct"]
    assert plans[1].instruction == resolve_instruction("emotion.happy+speed.slow", "cosyvoice3")
    assert plans[1].instruction != "emotion.happy+speed.slow"  # the presets' own text, combined
    assert plans[3].instruction == "Please speak softly."  # Ben's default instruction
    assert [p.member.name for p in plans] == ["anna", "BEN", "Cleo", "BEN"]


def test_cast_problems_are_line_numbered() -> None:
    script = parse_script("Anna: Hello.\n# c\nZed: Who am I?\nBen (dialect.zhengzhou): Hi.\n"
                          "Anna (speak [AH0] like this): x\nAnna: 吉林 [j][í]\n")
    cast = Cast([CastMember("Anna", _voice("A", "cosyvoice3", "t")), CastMember("Ben", _voice("B", "cosyvoice3"))])
    with pytest.raises(ScriptError) as e:
        plan_lines(script, cast, "cosyvoice3")
    problems = {p.line: p.message for p in e.value.problems}
    assert set(problems) == {3, 4, 5}
    assert "'Zed' is not in the cast" in problems[3]
    assert "no instruct preset 'dialect.zhengzhou'" in problems[4]  # a CosyVoice2 preset only
    assert "[AH0]" in problems[5]
    # CosyVoice2: its own preset works, but pinyin tokens in a line do not
    cast2 = Cast([CastMember("Anna", _voice("A", "cosyvoice2", "t")), CastMember("Ben", _voice("B", "cosyvoice2")),
                  CastMember("Zed", _voice("Z", "cosyvoice2"))])
    with pytest.raises(ScriptError) as e:
        plan_lines(script, cast2, "cosyvoice2")
    problems = {p.line: p.message for p in e.value.problems}
    assert set(problems) == {5, 6}
    assert "CosyVoice2 has no pinyin or ARPAbet tokens" in problems[6]


def test_a_voice_of_the_other_family_is_refused() -> None:
    script = parse_script("Anna: Hello.\nAnna: Again.\n")
    cast = Cast([CastMember("Anna", _voice("A", "cosyvoice2", "t"))])
    with pytest.raises(ScriptError) as e:
        plan_lines(script, cast, "cosyvoice3")
    assert [p.line for p in e.value.problems] == [1]  # reported once, at the first line
    assert "made for CosyVoice2" in e.value.problems[0].message


def test_cast_twice_is_refused() -> None:
    with pytest.raises(InputError, match="cast twice"):
        Cast([CastMember("Anna", _voice("A", "cosyvoice2")), CastMember("ANNA", _voice("B", "cosyvoice2"))])


# --------------------------------------------------------------------------------------------
# Pronunciation dictionary
# --------------------------------------------------------------------------------------------


def test_longest_match_first_and_one_pass() -> None:
    lx = Lexicon((LexiconEntry("New York", "Noo Yawk"), LexiconEntry("New York City", "the Big Apple"),
                  LexiconEntry("Apple", "APPLE!")))
    assert lx.apply("New York City, New York.") == "the Big Apple, Noo Yawk."  # replacements not rescanned


def test_whole_word_and_case() -> None:
    lx = Lexicon((LexiconEntry("AI", "A. I.", case_sensitive=True), LexiconEntry("cat", "kat"),
                  LexiconEntry("dog", "dawg", whole_word=False)))
    assert lx.apply("AI and Ai, TRAIN") == "A. I. and Ai, TRAIN"
    assert lx.apply("Cat concatenate CAT") == "kat concatenate kat"
    assert lx.apply("hotdogs") == "hotdawgs"
    assert lx.apply("我用AI写") == "我用A. I.写"  # a CJK neighbour does not break a whole word
    zh = Lexicon((LexiconEntry("吉林", "[j][í][l][ín]"),))
    assert zh.apply("吉林省") == "[j][í][l][ín]省"  # Chinese terms match inside running text
    assert [(s, e) for s, e, _ in lx.matches("a cat, AI")] == [(2, 5), (7, 9)]


def test_tokens_refused_per_family() -> None:
    pinyin = LexiconEntry("吉林", "[j][í][l][ín]")
    arpabet = LexiconEntry("Nguyen", "[N][W][IH1][N]")
    respelling = LexiconEntry("Nguyen", "Win")
    bogus = LexiconEntry("foo", "[xx]")
    for entry in (pinyin, arpabet):
        assert Lexicon((entry,)).problems("cosyvoice3") == []
        with pytest.raises(LexiconError, match="CosyVoice2 has no pinyin or ARPAbet tokens"):
            Lexicon((entry,)).check("cosyvoice2")
        with pytest.raises(LexiconError):
            Lexicon().with_entry(entry, "cosyvoice2")
    for family in ("cosyvoice2", "cosyvoice3"):
        Lexicon((respelling,)).check(family)
        with pytest.raises(LexiconError, match=r"\[xx\], which is not a"):
            Lexicon((bogus,)).check(family)


def test_later_dictionaries_win() -> None:
    app = Lexicon((LexiconEntry("Nguyen", "Win"), LexiconEntry("SQL", "sequel")))
    voice = Lexicon((LexiconEntry("nguyen", "N'Win"),))
    merged = app.merged(voice)
    assert merged.apply("Nguyen likes SQL") == "N'Win likes sequel"
    assert len(merged) == 2


def test_csv_round_trip(tmp_path: Path) -> None:
    lx = Lexicon((LexiconEntry("New York", "Noo Yawk"), LexiconEntry("AI", "A. I.", case_sensitive=True),
                  LexiconEntry('say "hi"', "hello, there", whole_word=False), LexiconEntry("吉林", "[j][í][l][ín]")))
    path = save_csv(tmp_path / "names.csv", lx)
    assert path.read_text(encoding="utf-8").startswith("term,replacement,whole_word,case_sensitive\n")
    assert load_csv(path) == lx
    assert parse_csv(to_csv(lx)) == lx


def test_csv_extra_columns_defaults_and_errors() -> None:
    lx = parse_csv("Term,Replacement,note\nNguyen,Win,a name\n\nSQL,sequel,\n")
    assert [(e.term, e.whole_word, e.case_sensitive) for e in lx] == [("Nguyen", True, False), ("SQL", True, False)]
    with pytest.raises(LexiconError, match="must start 'term,replacement'"):
        parse_csv("word,say\nx,y\n")
    with pytest.raises(LexiconError, match="line 3: a term without a replacement"):
        parse_csv("term,replacement\na,b\nlonely\n")
    with pytest.raises(LexiconError, match="line 2: whole_word is 'maybe'"):
        parse_csv("term,replacement,whole_word\na,b,maybe\n")
    with pytest.raises(LexiconError, match=r"line 2: .*no replacement"):
        parse_csv("term,replacement\na,\n")


# --------------------------------------------------------------------------------------------
# Subtitles, documents
# --------------------------------------------------------------------------------------------


def test_srt_and_vtt() -> None:
    cues = [Cue(0.0, 1.25, "Hello <there> & you", "Anna"), Cue(3661.5, 3662.0, "Bye.", "Ben")]
    assert srt(cues) == ("1\n00:00:00,000 --> 00:00:01,250\nAnna: Hello <there> & you\n\n"
                              "2\n01:01:01,500 --> 01:01:02,000\nBen: Bye.\n")
    assert vtt(cues) == ("WEBVTT\n\n00:00:00.000 --> 00:00:01.250\n<v Anna>Hello &lt;there&gt; &amp; you\n\n"
                              "01:01:01.500 --> 01:01:02.000\n<v Ben>Bye.\n")


def test_cue_sheet() -> None:
    sheet = cue_sheet("book.flac", [Chapter("One", 0.0), Chapter('Two "quoted"', 61.5)])
    assert 'FILE "book.flac" WAVE' in sheet
    assert "TRACK 02 AUDIO\n    TITLE \"Two 'quoted'\"\n    INDEX 01 01:01:37" in sheet


def test_markdown_document() -> None:
    doc = parse_document("Intro text.\n\n# Chapter *One*\n\nSome **bold** [link](http://x) `code`.\n- item one\n"
                         "- item two\n\n```\nprint('skip')\n```\n---\n## Two\n\n> quoted [laughter] line\n",
                         markdown=True)
    assert doc.chapter_titles == ("", "Chapter One", "Two")
    assert [(s.text, s.chapter, s.heading) for s in doc.segments] == [
        ("Intro text.", 0, False), ("Chapter One", 1, True), ("Some bold link code.", 1, False),
        ("item one", 1, False), ("item two", 1, False), ("Two", 2, True), ("quoted [laughter] line", 2, False)]
    plain = parse_document("# not a heading\n\nsecond", markdown=False)
    assert plain.chapter_titles == ("",) and plain.segments[0].text == "# not a heading"


# --------------------------------------------------------------------------------------------
# cosycore text
# --------------------------------------------------------------------------------------------


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, CliIO(io.StringIO(""), out, io.BytesIO(), err))
    return code, out.getvalue(), err.getvalue()


def test_text_command_uses_the_engine_text_path(tiny_cv2_model: Path, tmp_path: Path) -> None:
    from cosycore.config import QWEN_DIR
    from cosycore.frontend.tokenizer import get_text_tokenizer
    from cosycore.mode_plan import spoken_sentences

    csv = tmp_path / "lx.csv"
    csv.write_text("term,replacement\nDr. Nguyen,Doctor Win\n", encoding="utf-8")
    text = "Dr. Nguyen paid $5 on 3/4. " * 12
    code, out, err = _run(["text", "--model", str(tiny_cv2_model), "--lexicon", str(csv), text])
    assert code == 0, err
    tok = get_text_tokenizer(tiny_cv2_model / QWEN_DIR, "cosyvoice2")
    expected = list(spoken_sentences(text.replace("Dr. Nguyen", "Doctor Win"), reading="original",
                                     family="cosyvoice2", tokenizer=tok))
    assert out.splitlines() == expected and len(expected) > 1
    assert "Win" in out and "Nguyen" not in out and "five dollars" in out
    assert "dictionary: 'Dr. Nguyen' -> 'Doctor Win'" in err
    code, out, err = _run(["text", "--model", str(tiny_cv2_model), "--text-reading", "improved", "Pay $5 on 3/4."])
    assert code == 0, err
    assert out.splitlines() == list(spoken_sentences("Pay $5 on 3/4.", reading="improved", family="cosyvoice2",
                                                     tokenizer=tok))


def test_text_command_refuses_tokens_the_family_lacks(tmp_path: Path) -> None:
    csv = tmp_path / "lx.csv"
    csv.write_text("term,replacement\n吉林,[j][í][l][ín]\n", encoding="utf-8")
    code, out, err = _run(["text", "--family", "cosyvoice3", "--lexicon", str(csv), "我去吉林。"])
    assert code == 0 and out.strip() == "我去[j][í][l][ín]。", err
    code, _, err = _run(["text", "--family", "cosyvoice2", "--lexicon", str(csv), "我去吉林。"])
    assert code == 2 and "CosyVoice2 has no pinyin or ARPAbet tokens" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("word;say\n", encoding="utf-8")
    code, _, err = _run(["text", "--family", "cosyvoice2", "--lexicon", str(bad), "x"])
    assert code == 2 and "must start 'term,replacement'" in err


def test_app_voice_and_script_dictionaries_layer(tmp_path: Path) -> None:
    app = Lexicon((LexiconEntry("Nguyen", "Win"), LexiconEntry("SQL", "sequel"), LexiconEntry("GIF", "jif")))
    anna = with_voice_lexicon(_voice("A", "cosyvoice3", "t"), Lexicon((LexiconEntry("nguyen", "N'Win"),)))
    # the voice file keeps its dictionary (header, checksum) and reads it back
    path = save_voice(tmp_path / "a.cosyvoice", anna)
    assert load_voice(path) == anna and voice_lexicon(load_voice(path)) == voice_lexicon(anna)
    assert load_voice(save_voice(tmp_path / "b.cosyvoice", _voice("B", "cosyvoice3"))).lexicon == ()
    script_lx = Lexicon((LexiconEntry("GIF", "gif with a hard g"),))
    cast = Cast([CastMember("Anna", anna), CastMember("Ben", _voice("B", "cosyvoice3"))])
    script = parse_script("Anna: Nguyen, SQL, GIF.\nBen: Nguyen, SQL, GIF.\n")
    plans = plan_lines(script, cast, "cosyvoice3", script_lx, app_lexicon=app)
    assert [p.text for p in plans] == ["N'Win, sequel, gif with a hard g.", "Win, sequel, gif with a hard g."]
    # a voice dictionary with pinyin is refused for CosyVoice2, at the speaker's first line
    zh = with_voice_lexicon(_voice("Z", "cosyvoice2", "t"), Lexicon((LexiconEntry("吉林", "[j][í][l][ín]"),)))
    with pytest.raises(ScriptError) as e:
        plan_lines(parse_script("Zoe: hi\nZoe: again\n"), Cast([CastMember("Zoe", zh)]), "cosyvoice2")
    assert [p.line for p in e.value.problems] == [1] and "no pinyin" in e.value.problems[0].message


def test_text_command_applies_the_app_dictionary(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    app = tmp_path / "app.csv"
    save_csv(app, Lexicon((LexiconEntry("Nguyen", "Win"),)))
    monkeypatch.setenv("COSY_LEXICON", str(app))
    code, out, _ = _run(["text", "--family", "cosyvoice2", "Hello Nguyen."])
    assert code == 0 and out.strip() == "Hello Win."
    code, out, _ = _run(["text", "--family", "cosyvoice2", "--no-app-lexicon", "Hello Nguyen."])
    assert code == 0 and out.strip() == "Hello Nguyen."


def test_app_dictionary_path_follows_the_app_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The app and the CLI share one app-wide dictionary, also in a portable home ($COSY_STUDIO_HOME)."""
    from cosycore.studio.lexicon import app_lexicon_path

    monkeypatch.delenv("COSY_LEXICON")
    monkeypatch.setenv("COSY_STUDIO_HOME", str(tmp_path / "home"))
    assert app_lexicon_path() == tmp_path / "home" / "data" / "lexicon.csv"
    save_csv(app_lexicon_path(), Lexicon((LexiconEntry("Nguyen", "Win"),)))
    code, out, _ = _run(["text", "--family", "cosyvoice2", "Hello Nguyen."])
    assert code == 0 and out.strip() == "Hello Win."
    monkeypatch.setenv("COSY_LEXICON", str(tmp_path / "elsewhere.csv"))  # the explicit file comes first
    assert app_lexicon_path() == tmp_path / "elsewhere.csv"


def test_a_script_of_200000_pause_60s_lines() -> None:
    """Each pause is within its bound, but 3,333 hours of silence together are refused at once."""
    from cosycore.studio.script import MAX_TOTAL_PAUSE_SECONDS

    text = "Anna: Hello.\n" + "[pause 60s]\n" * 200_000
    with pytest.raises(ScriptError) as e:
        parse_script(text)
    assert "pauses of the script add up" in str(e.value) and len(e.value.problems) == 1
    assert e.value.problems[0].line == 2 + int(MAX_TOTAL_PAUSE_SECONDS // 60)


def test_a_script_of_30000_speech_lines() -> None:
    with pytest.raises(ScriptError, match="longer than 20,000 lines"):
        parse_script("Anna: Hi.\n" * 30_000)


def test_lexicon_etc_shadow_does_not_show_its_first_row(tmp_path: Path) -> None:
    """``[lexicon /etc/shadow]``: a readable file that is not a dictionary; its content is never echoed."""
    from cosycore.studio.lexicon import LexiconError, load_csv

    secret = tmp_path / "shadow"
    secret.write_text("root:$6$SECRETHASH:19000:0:99999:7:::\n", encoding="utf-8")
    with pytest.raises(LexiconError) as e:
        load_csv(secret)
    assert "SECRETHASH" not in str(e.value) and "root" not in str(e.value)
    assert "not a pronunciation dictionary" in str(e.value)


def test_cosy_lexicon_dev_zero_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """``COSY_LEXICON=/dev/zero``: refused with a typed error (not silently ignored, not read forever)."""
    from cosycore.studio.lexicon import APP_LEXICON_ENV, LexiconError, load_app_lexicon

    monkeypatch.setenv(APP_LEXICON_ENV, "/dev/zero")
    with pytest.raises(LexiconError, match="not a regular file"):
        load_app_lexicon()
