"""Text frontend: normalisation case by case, tag passthrough, splitting rules, lazy iteration, input
checks and instruction prompts (spec llm-frontend-orchestration.md §5.7, §5.9, §9 items 7-9)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest

from cosycore.errors import InputError
from cosycore.frontend import text as T
from cosycore.frontend.chunking import DEFAULT_CHUNK_CHARS, iter_chunks
from cosycore.frontend.instruct_prompts import cv2_instruct_prompt, cv3_instruct_prompt, cv3_system_prefix
from cosycore.frontend.sentence_split import split_paragraph
from cosycore.frontend.text import iter_sentences, normalize, normalize_text
from cosycore.frontend.text_checks import Lang, check_spoken_text, check_text, detect_language
from cosycore.frontend.tokenizer import TextTokenizer
from cosycore.testing.tiny_tokenizer import write_tiny_qwen_tokenizer


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> TextTokenizer:
    return TextTokenizer.from_dir(write_tiny_qwen_tokenizer(tmp_path_factory.mktemp("q")), "cosyvoice3")


# ---- Chinese path ----------------------------------------------------------------------------


def test_platform_notes_example() -> None:
    text = "2024年3月5日，温度是-3.5度"
    assert normalize_text(text) == "二零二四年三月五日，温度是负三点五度"
    # split_paragraph ends an unterminated paragraph with a full stop
    assert normalize(text) == ["二零二四年三月五日，温度是负三点五度。"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("边长x²加y³呢", "边长x平方加y立方呢"),
        ("你好.再见", "你好。再见"),
        ("甲（注释）【标题】`代码`——结束，，", "甲注释标题代码 结束。"),
        ("英文a - b中文", "英文a，b中文"),
        ("hello world 你好 ok", "hello world你好ok"),  # a space survives only between ASCII
        ("第一行\n第二行", "第一行第二行"),
        ("我有100%的把握", "我有百分之一百的把握"),
        ("约1.5公里", "约一点五公里"),
        ("比分3:2", "比分三比二"),
    ],
)
def test_chinese_rules(text: str, expected: str) -> None:
    assert normalize_text(text) == expected


# ---- English path ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # money
        ("$3.50", "three dollars and fifty cents"),
        ("$1", "one dollar"),
        ("$0.99", "ninety-nine cents"),
        ("$1,000,000", "one million dollars"),
        ("$2.5 million", "two point five million dollars"),
        ("£5.20 and €20", "five pounds and twenty pence and twenty euros"),
        # dates and years
        ("March 5th, 2024", "March fifth, twenty twenty-four"),
        ("Mar. 5, 2024", "March fifth, twenty twenty-four"),
        ("He was born on 5 March 1990.", "He was born on the fifth of March nineteen ninety."),
        ("the 5th of March", "the fifth of March"),
        ("2024-03-05", "March fifth, twenty twenty-four"),
        ("In 1999 we met.", "In nineteen ninety-nine we met."),
        ("since 1905", "since nineteen oh five"),
        ("in 2005", "in two thousand and five"),
        ("from 1990-2000", "from nineteen ninety to two thousand"),
        ("The 1990s and the '80s.", "The nineteen nineties and the eighties."),
        # percentages, units, decimals, negatives
        ("50% of 12.5%", "fifty percent of twelve point five percent"),
        ("3.5 km", "three point five kilometers"),
        ("1 km", "one kilometer"),
        ("3 kg and 100 km/h", "three kilograms and one hundred kilometers per hour"),
        ("25°C", "twenty-five degrees Celsius"),
        ("-5 °C", "minus five degrees Celsius"),
        ("98.6°F", "ninety-eight point six degrees Fahrenheit"),
        ("3.14", "three point one four"),
        ("-3.14", "minus three point one four"),
        ("it fell to -12", "it fell to minus twelve"),
        # times
        ("10:30", "ten thirty"),
        ("7:05", "seven oh five"),
        ("10:00", "ten o'clock"),
        ("10:30 am", "ten thirty AM"),
        ("at 5 p.m. Then we left.", "at five PM. Then we left."),
        # ordinals, titles, leftovers
        ("1st 2nd 3rd 21st", "first second third twenty-first"),
        ("Mr. Smith met Dr. Who.", "Mister Smith met Doctor Who."),
        ("I have 3 apples and 12 pears.", "I have three apples and twelve pears."),
        ("MP3 and 3D", "MP three and three D"),
        ("007", "oh oh seven"),  # wetext's reading
        ("2,500 people", "two thousand five hundred people"),
    ],
)
def test_english_cases(text: str, expected: str) -> None:
    assert normalize_text(text, "en") == expected


def test_spell_out_number() -> None:
    from cosycore.frontend.text_en import spell_out_number

    assert spell_out_number("007 and 1999") == "zero zero seven and one thousand nine hundred and ninety-nine"
    assert spell_out_number("A4") == "A four"
    assert spell_out_number("1" * 20) == " ".join(["one"] * 20)


def test_english_without_digits_is_untouched() -> None:
    text = "Hello world, nothing to read here."
    assert normalize_text(text) == text


def test_wetext_failure_falls_back() -> None:
    # wetext en raises on "#1"; the word is left to the digit spell-out instead
    assert normalize_text("#1 fan", "en") == "#one fan"


def test_language_detection() -> None:
    assert detect_language("abc 123") == "en"
    assert detect_language("abc 你 123") == "zh"
    with pytest.raises(ValueError, match="lang"):
        normalize("hi", lang="fr")


# ---- tags -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "在他讲述那个荒诞故事的过程中，他突然[laughter]停下来，因为他自己也被逗笑了[laughter]。",
        "追求卓越不是终点，它需要你每天都<strong>付出</strong>和<strong>精进</strong>，最终才能达到巅峰。",
        "高管也通过电话、短信、微信等方式对报道[j][ǐ]予好评。",
        "The [AH0] sound [breath] matters <laughter>a lot</laughter> here.",
        "[quick_breath]Well, [vocalized-noise] hmm [mn].",
    ],
)
def test_tags_pass_through(text: str) -> None:
    assert normalize_text(text) == text
    assert "".join(normalize(text)) == text


def test_tags_next_to_numbers_survive() -> None:
    assert normalize_text("Say [AH0] 3 times [breath].") == "Say [AH0] three times [breath]."
    assert normalize_text("第3[breath]章，共2[laughter]次") == "第三[breath]章，共二[laughter]次"


def test_decomposed_pinyin_hint_is_recomposed() -> None:
    text = unicodedata.normalize("NFD", "对报道[j][ǐ]予好评。")
    assert normalize(text) == ["对报道[j][ǐ]予好评。"]


def test_markup_bypasses_everything() -> None:
    text = "You are a helpful assistant.<|endofprompt|>Hello 3. World 4! " + "More text. " * 50
    assert normalize(text) == [text]
    assert normalize_text(text) == text
    assert list(iter_sentences(text)) == [text]


# ---- splitting ---------------------------------------------------------------------------------

NO_MERGE = {"token_max_n": 1, "token_min_n": 0, "merge_len": 0}


def test_split_marks_and_quotes_zh() -> None:
    assert split_paragraph("他说：“你好。”然后走了。对吗？好！", "zh", **NO_MERGE) == [
        "他说：",
        "“你好。”",
        "然后走了。",
        "对吗？",
        "好！",
    ]


def test_split_marks_and_quotes_en() -> None:
    text = 'He said "Stop." Then he left; why? Really?! Yes... ok'
    assert split_paragraph(text, "en", **NO_MERGE) == [
        'He said "Stop."',
        " Then he left;",
        " why?",
        " Really?!",
        " Yes...",
        " ok.",
    ]


def test_split_comma_split() -> None:
    assert split_paragraph("你好，世界。", "zh", comma_split=True, **NO_MERGE) == ["你好，", "世界。"]
    assert split_paragraph("你好，世界。", "zh", **NO_MERGE) == ["你好，世界。"]


def test_split_greedy_merge_zh() -> None:
    piece = "字" * 29 + "。"  # 30 characters
    segments = split_paragraph(piece * 5, "zh")
    # 30+30 stays together (60 is not above token_min_n), 90 is flushed when the next piece comes
    assert [len(s) for s in segments] == [90, 60]
    assert "".join(segments) == piece * 5


def test_split_glues_a_short_tail() -> None:
    a, b, c = "甲" * 69 + "。", "乙" * 69 + "。", "丙" * 14 + "。"
    assert split_paragraph(a + b + c, "zh") == [a, b + c]
    d = "丁" * 24 + "。"  # 25 characters: long enough to stand alone
    assert split_paragraph(a + b + d, "zh") == [a, b, d]


def test_split_measures_english_in_tokens() -> None:
    sentence = " ".join(["word"] * 29) + "."
    segments = split_paragraph(" ".join([sentence] * 4), "en", token_len_fn=lambda s: len(s.split()))
    assert [len(s.split()) for s in segments] == [87, 29]


def test_split_with_a_real_tokenizer(tokenizer: TextTokenizer) -> None:
    text = " ".join(["The quick brown fox jumps over the lazy dog."] * 12)
    segments = normalize(text, "en", tokenizer)
    assert len(segments) > 1 and "".join(segments) == text
    lengths = [len(tokenizer.encode(s)) for s in segments]
    assert all(n > 60 for n in lengths[:-1]) and all(n <= 80 + 10 for n in lengths[:-1])


def test_split_never_inside_paired_tags() -> None:
    text = "<strong>Hello. World.</strong> Next. <laughter>Ha. Ha.</laughter>"
    assert split_paragraph(text, "en", **NO_MERGE) == [
        "<strong>Hello. World.</strong>",
        " Next.",
        " <laughter>Ha. Ha.</laughter>",
    ]
    assert split_paragraph("<strong>A. B</strong> c. D.", "en", **NO_MERGE) == [
        "<strong>A. B</strong> c.",
        " D.",
    ]


def test_punctuation_only_segments_are_dropped() -> None:
    assert split_paragraph("。。。", "zh") == []
    assert normalize("!!! ... ???") == []
    assert normalize("   ") == [] and normalize("") == []
    assert split_paragraph("好。！？……", "zh", **NO_MERGE) == ["好。！？"]


def test_unterminated_text_gets_a_mark() -> None:
    assert split_paragraph("hello there", "en") == ["hello there."]
    assert split_paragraph("你好", "zh") == ["你好。"]
    assert split_paragraph("他说“好。”", "zh") == ["他说“好。”"]


# ---- lazy iteration over long text -------------------------------------------------------------


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real: Callable[..., str] = T.normalize_piece

    def counting(text: str, lang: Lang, *, final: bool) -> str:
        calls.append(len(text))
        return real(text, lang, final=final)

    monkeypatch.setattr(T, "normalize_piece", counting)
    return calls


@pytest.mark.parametrize(
    "paragraph",
    [
        "The quick brown fox jumps over the lazy dog, again and again. It never stops; why would it? ",
        "收到朋友从远方寄来的生日礼物，那份意外的惊喜让我心中充满了甜蜜的快乐。你好吗？",
    ],
)
def test_first_sentence_before_the_whole_text(monkeypatch: pytest.MonkeyPatch, paragraph: str) -> None:
    text = paragraph * (100_000 // len(paragraph) + 1)
    assert len(text) > 100_000
    calls = _spy(monkeypatch)
    sentences = iter_sentences(text)
    first = next(sentences)
    assert first.strip() and text.startswith(first.strip()[:10])
    assert len(calls) <= 3 and sum(calls) <= 3 * 4 * DEFAULT_CHUNK_CHARS
    for _ in range(5):
        next(sentences)
    assert sum(calls) < len(text) // 10


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chunk_size_does_not_change_the_result(lang: str, tokenizer: TextTokenizer) -> None:
    en = (
        'He paid $3.50 on March 5th, 2024. "Really?!" she said [laughter]. It was 25°C; the year 1999 '
        "was better.\nA new line <strong>with. marks.</strong> and [AH0] hints... Mr. Smith agreed. "
    )
    zh = (
        "2024年3月5日，温度是-3.5度！他突然[laughter]停下来。“真的吗？”她问。"
        "每天都<strong>付出。</strong>报道[j][ǐ]予好评、"
    )
    text = (en if lang == "en" else zh) * 12
    whole = list(iter_sentences(text, tokenizer=tokenizer, chunk_chars=10**7))
    for chunk_chars in (40, 97, 400):
        assert list(iter_sentences(text, tokenizer=tokenizer, chunk_chars=chunk_chars)) == whole


def test_chunks_never_cut_a_tag() -> None:
    text = "abc[breath]de<strong>f. g.</strong>h[vocalized-noise]ij[j][ǐ]k. " * 20
    chunks = list(iter_chunks(text, chunk_chars=5))
    assert "".join(chunks) == text and len(chunks) > 20
    for chunk in chunks:
        assert chunk.count("<strong>") == chunk.count("</strong>")
        assert chunk.count("[") == chunk.count("]")


# ---- input checks --------------------------------------------------------------------------


def test_check_text_accepts_and_nfc_normalises() -> None:
    assert check_text("Hello.") == "Hello."
    assert check_text(unicodedata.normalize("NFD", "café")) == "café"
    assert check_text("[laughter]") == "[laughter]"


@pytest.mark.parametrize("text", ["", "   \n\t"])
def test_check_text_empty(text: str) -> None:
    with pytest.raises(InputError, match="empty"):
        check_text(text)


@pytest.mark.parametrize("text", ["!!!", "😀😀 🎉", "…… ——", "❤️"])
def test_check_text_nothing_to_speak(text: str) -> None:
    with pytest.raises(InputError, match="nothing to speak"):
        check_text(text)


def test_check_text_too_long() -> None:
    with pytest.raises(InputError, match=r"200,001 characters.*limit is 200,000.*Split it"):
        check_text("a" * 200_001)
    assert check_text("a" * 50, max_chars=50)
    with pytest.raises(InputError, match="limit is 10"):
        check_text("a" * 11, max_chars=10)


@pytest.mark.parametrize(
    "text", ["Hello<|endofprompt|>world", "<|im_start|>hi", "a <|endofsystem|> b", "odd <| and |> pair"]
)
def test_check_spoken_text_rejects_markers(text: str) -> None:
    with pytest.raises(InputError, match="control marker"):
        check_spoken_text(text)


def test_check_spoken_text_accepts_tags() -> None:
    text = "Hello [laughter] <strong>world</strong> [j][ǐ]"
    assert check_spoken_text(text) == text


# ---- instruction prompts -----------------------------------------------------------------------


def test_cv3_prompts() -> None:
    assert cv3_system_prefix() == "You are a helpful assistant.<|endofprompt|>"
    expected = "You are a helpful assistant. 请用四川话表达。<|endofprompt|>"
    assert cv3_instruct_prompt("请用四川话表达。") == expected
    assert cv3_instruct_prompt("  请用四川话表达。<|endofprompt|>") == expected
    assert cv3_instruct_prompt("You are a helpful assistant. 请用四川话表达。<|endofprompt|>") == expected
    assert cv3_instruct_prompt("You are a helpful assistant.请用四川话表达。") == expected


def test_cv2_prompts() -> None:
    assert cv2_instruct_prompt("用四川话说这句话") == "用四川话说这句话<|endofprompt|>"
    assert cv2_instruct_prompt("用四川话说这句话<|endofprompt|>") == "用四川话说这句话<|endofprompt|>"


@pytest.mark.parametrize("make", [cv2_instruct_prompt, cv3_instruct_prompt])
@pytest.mark.parametrize(
    ("instruction", "message"),
    [
        ("<|endofprompt|>请用四川话表达。", "wrong place"),
        ("请用<|endofprompt|>四川话表达。", "wrong place"),
        ("请用四川话表达。<|im_end|>", "wrong place"),
        ("", "empty"),
        ("<|endofprompt|>", "empty"),
        ("  。 ", "empty"),
    ],
)
def test_bad_instructions(make: Callable[[str], str], instruction: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        make(instruction)


def test_cv3_system_sentence_alone_is_empty() -> None:
    with pytest.raises(InputError, match="empty"):
        cv3_instruct_prompt("You are a helpful assistant.<|endofprompt|>")


def test_no_wetext_or_inflect_at_import(tmp_path: Path) -> None:
    """Neither is imported with the text path; inflect, once asked for, comes without typeguard's per-function
    re-compiling (seconds per process, cosycore.frontend.text_en.inflect_engine), and typeguard is left as it was."""
    import os
    import subprocess
    import sys

    code = (
        "import sys, cosycore.frontend.text, cosycore.presets; "
        "print('wetext' in sys.modules, 'inflect' in sys.modules); "
        "import typeguard; real = typeguard.typechecked; "
        "from cosycore.frontend.text_en import inflect_engine; words = inflect_engine().number_to_words('21'); "
        "import inflect; names = inflect.engine.number_to_words.__code__.co_names; "
        "print(words, typeguard.typechecked is real, any('typeguard' in n for n in names))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path, env=env
    )
    assert out.stdout.split() == ["False", "False", "twenty-one", "True", "False"]
