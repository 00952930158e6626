"""The original text reading (CosyVoice's text_normalize with wetext) against the improved one.

The expected "original" results are worked out by hand from the original's code path
(cosyvoice/cli/frontend.py ``text_normalize`` and cosyvoice/utils/frontend_utils.py), with the
wetext step taken from wetext itself, called as the original calls it: ``Normalizer()`` for the
English path and ``Normalizer(remove_erhua=False)`` for the Chinese path, on the whole text.
"""

from __future__ import annotations

import logging

import pytest
from wetext import Normalizer

from cosycore.errors import InputError
from cosycore.frontend import text as improved
from cosycore.frontend import text_original as original
from cosycore.frontend import text_reading
from cosycore.frontend.segment_bound import MAX_SEGMENT_TOKENS
from cosycore.frontend.sentence_split import split_paragraph
from cosycore.mode_plan import spoken_sentences

EN = Normalizer()
ZH = Normalizer(remove_erhua=False)


def _orig(text: str) -> list[str]:
    return original.normalize(text)


# --------------------------------------------------------------------------------------------
# The issue's examples
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,wetext_out,want_original,want_improved", [
    # wetext reads money as a decimal; spell_out_number has no digits left; split_paragraph ends it with "."
    ("$3.50", "three point five dollars", ["three point five dollars."], ["three dollars and fifty cents."]),
    # wetext leaves the marks; split_paragraph cuts after "?" and finds "!" (and the 2nd/3rd ".") with an
    # empty piece before them, so only the first mark of each run stays: "Really?" + " OK."
    ("Really?! OK...", "Really?! OK...", ["Really? OK."], ["Really?! OK..."]),
    # wetext over the whole text reads "Dr." as "doctor" (improved: per clause, and capitalised)
    ("Dr. Smith", "doctor Smith", ["doctor Smith."], ["Doctor Smith."]),
    # wetext reads "No." as "Number." and the digit; "Number." and " seven." merge into one segment
    ("No. 7", "Number. seven", ["Number. seven."], ["No. seven."]),
])
def test_issue_examples(text: str, wetext_out: str, want_original: list[str], want_improved: list[str]) -> None:
    assert EN.normalize(text) == wetext_out  # the original's wetext call, for the record
    assert _orig(text) == want_original
    assert improved.normalize(text) == want_improved


# --------------------------------------------------------------------------------------------
# More of the original's rules
# --------------------------------------------------------------------------------------------


def test_digits_only_text_takes_wetexts_chinese_grammar() -> None:
    # Normalizer() detects its language: text that is all digits counts as Chinese in wetext.
    assert EN.normalize("123") == "一百二十三"
    assert _orig("123") == ["一百二十三."]
    assert improved.normalize("123") == ["one hundred and twenty three."]


def test_wetext_escapes_double_quotes_and_the_original_keeps_the_backslashes() -> None:
    assert EN.normalize('He said "hi".') == 'He said \\"hi\\".'
    assert _orig('He said "hi".') == ['He said \\"hi\\".']
    assert improved.normalize('He said "hi".') == ['He said "hi".']


def test_spell_out_number_reads_each_digit_run_alone() -> None:
    # what is left after wetext: every maximal run of digits becomes inflect's words, nothing else moves
    assert original.spell_out_number("3.14") == "three.fourteen"
    assert original.spell_out_number("B2B 10") == "BtwoB ten"
    assert original.spell_out_number("007") == "seven"  # inflect's number_to_words("007")


def test_decades_and_years_as_wetext_reads_them() -> None:
    text = "The 1990s were fun."
    wetext_out = EN.normalize(text)
    assert wetext_out == "The one thousand nine hundred and ninety seconds were fun."
    assert _orig(text) == [wetext_out]
    assert improved.normalize(text) == ["The nineteen nineties were fun."]


def test_segments_keep_their_leading_space() -> None:
    sentence = "This sentence has exactly enough words to make the splitter cut it off here."
    text = " ".join([sentence] * 8)  # ~15 tokens each: segments of 5 and 3 sentences
    segments = _orig(text)
    assert len(segments) >= 2
    assert "".join(segments) == text  # nothing to normalise: the pieces are the text
    assert all(s.startswith(" ") for s in segments[1:])


def test_a_closing_quote_joins_the_sentence_and_a_lone_mark_segment_is_kept() -> None:
    pieces = original.split_paragraph('He said "Go." Then: left', lambda s: s.split(), "en")
    assert pieces == ['He said "Go." Then: left.']  # short pieces merge
    raw = original.split_paragraph('A "b." c. d!', lambda s: s.split(), "en", token_max_n=1, token_min_n=0,
                                   merge_len=0)
    assert raw == ['A "b."', " c.", " d!"]
    # "x . y" → "x ." and " y." : " ." alone would be only punctuation after a space, which is not
    # punctuation, so the original keeps such a segment; a segment of marks alone is dropped
    assert original.is_only_punctuation("...") and not original.is_only_punctuation(" .")


def test_tags_and_brackets_at_a_cut() -> None:
    def words(s: str) -> list[str]:
        return s.split()

    def count(s: str) -> int:
        return len(s.split())

    # the original cuts inside a tag pair and leaves a closing bracket to the next segment
    assert original.split_paragraph("<strong>Go. Now</strong>", words, "en", 1, 0, 0) == \
        ["<strong>Go.", " Now</strong>."]
    assert split_paragraph("<strong>Go. Now</strong>", "en", count, 1, 0, 0) == ["<strong>Go. Now</strong>."]
    assert original.split_paragraph("It was (big.) Then it fell.", words, "en", 2, 1, 0) == \
        ["It was (big.", ") Then it fell."]
    assert split_paragraph("It was (big.) Then it fell.", "en", count, 2, 1, 0) == \
        ["It was (big.)", " Then it fell."]


def test_chinese_path() -> None:
    text = "我有3个苹果，价格是$5。你好 世界."
    wetext_out = ZH.normalize(text)
    assert wetext_out == "我有三个苹果，价格是五美元。你好 世界."
    # replace_blank drops the space between 好 and 世; "." → "。"; one short segment
    assert _orig(text) == ["我有三个苹果，价格是五美元。你好世界。"]
    assert _orig("第1名（注意）——好，") == ["第一名注意 好。"]  # brackets gone, —— a space, trailing comma → 。


def test_markup_passes_through_and_cv3_prefixed_texts_are_left_alone() -> None:
    marked = "You are a helpful assistant.<|endofprompt|>Dr. Smith paid $5."
    assert _orig(marked) == [marked]
    got = list(text_reading.sentences("original", "Dr. Smith paid $5.", language=None, tokenizer=None,
                                      family="cosyvoice3", mode="cross_lingual"))
    assert got == ["Dr. Smith paid $5."]
    cv2 = list(text_reading.sentences("original", "Dr. Smith paid $5.", language=None, tokenizer=None,
                                      family="cosyvoice2", mode="cross_lingual"))
    assert cv2 == ["doctor Smith paid five dollars."]
    assert text_reading.transcript("original", " Dr. Smith paid $5. ", family="cosyvoice3") == " Dr. Smith paid $5. "
    assert text_reading.transcript("original", "Dr. Smith paid $5.", family="cosyvoice2") == \
        "doctor Smith paid five dollars."


def test_split_false_returns_the_text_before_the_splitter_adds_a_mark() -> None:
    assert original.normalize_text("$3.50") == "three point five dollars"
    assert original.normalize_text("Really?! OK...") == "Really?! OK..."


def test_wetext_refusal_is_read_word_by_word(caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(AssertionError):
        EN.normalize("x  y 2")  # the original stops here
    with caplog.at_level(logging.WARNING, logger="cosycore.frontend.text_original"):
        assert _orig("x  y 2") == ["x  y two."]
    assert "word by word" in caplog.text


def test_long_text_is_read_in_bounded_pieces() -> None:
    sentence = "Room 7 is ready. "
    text = sentence * 400  # 6,800 characters
    segments = original.normalize(text)
    assert "".join(s.strip() for s in segments).count("Room seven is ready.") == 400
    assert not any(ch.isdigit() for s in segments for ch in s)
    short = sentence * 5
    assert original.normalize(short) == original.text_normalize(short)  # one call, as the original


def test_default_reading_and_checks() -> None:
    assert text_reading.default_text_reading(True) == "original"
    assert text_reading.default_text_reading(False) == "improved"
    with pytest.raises(InputError, match="original"):
        text_reading.check_text_reading("fancy")


def test_cv3_cross_lingual_text_with_leading_and_trailing_spaces_keeps_them() -> None:
    """The original returns a ``<|endofprompt|>``-prefixed text before it strips anything."""
    got = list(text_reading.sentences("original", "  Dr. Smith paid $5. ", language=None, tokenizer=None,
                                      family="cosyvoice3", mode="cross_lingual"))
    assert got == ["  Dr. Smith paid $5. "]
    spoken = list(spoken_sentences("  Dr. Smith paid $5. ", reading="original", family="cosyvoice3",
                                   mode="cross_lingual"))
    assert spoken == ["  Dr. Smith paid $5. "]


def test_cv3_cross_lingual_text_of_348_ids_is_one_call_in_exact_mode() -> None:
    """The original takes 348 text ids in one call; the exact reading does too (bytes stand in for
    ids without a tokenizer: never fewer than a byte-level BPE's), and memory stays bounded beyond."""
    text = ("word " * 70)[:348]  # 348 bytes, no sentence mark
    whole = list(spoken_sentences(text, reading="original", family="cosyvoice3", mode="cross_lingual"))
    assert whole == [text]
    cut = list(spoken_sentences(text, reading="improved", family="cosyvoice3", mode="cross_lingual"))
    assert len(cut) > 1 and max(len(c.encode()) for c in cut) <= MAX_SEGMENT_TOKENS
    longer = "word " * 300  # 1,500 bytes: past the pass-through bound, cut into bounded segments
    pieces = list(spoken_sentences(longer, reading="original", family="cosyvoice3", mode="cross_lingual"))
    assert len(pieces) > 1 and max(len(p.encode()) for p in pieces) <= text_reading.PASS_THROUGH_SEGMENT_TOKENS
