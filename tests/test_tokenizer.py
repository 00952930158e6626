"""Text tokenizer: special-token ids against the spec table, raw-text matching, errors for bad folders.

The real Qwen2 vocabulary cannot be downloaded here, so a tiny trained byte-level BPE folder with the
release's sparse special ids stands in; the CosyVoice ids only depend on those and on the list order.
"""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest

from cosycore.errors import ConfigError, ModelNotFoundError
from cosycore.frontend.tokenizer import (
    ARPABET_PHONES,
    CV2_SPECIAL_TOKENS,
    CV3_SPECIAL_TOKENS,
    EXPECTED_VOCAB_SIZE,
    PARALINGUISTIC_TOKENS,
    PINYIN_PHONES,
    TextTokenizer,
    get_text_tokenizer,
)
from cosycore.testing.tiny_tokenizer import write_tiny_qwen_tokenizer

# Spec llm-frontend-orchestration.md §4.1.
SPEC_IDS_BOTH = {
    "<|endoftext|>": 151643,
    "<|im_start|>": 151644,
    "<|im_end|>": 151645,
    "<|endofprompt|>": 151646,
    "[breath]": 151647,
    "<strong>": 151648,
    "[laughter]": 151651,
    "</laughter>": 151657,
    "[mn]": 151662,
}
SPEC_IDS_CV3 = {
    "<|endofsystem|>": 151663,
    "[AA]": 151664,
    "[AA0]": 151665,
    "[ZH]": 151747,
    "[a]": 151748,
    "[ǜ]": 151923,
}


@pytest.fixture(scope="module")
def qwen_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_qwen_tokenizer(tmp_path_factory.mktemp("blank_en"))


@pytest.fixture(scope="module")
def cv2(qwen_dir: Path) -> TextTokenizer:
    return TextTokenizer.from_dir(qwen_dir, "cosyvoice2")


@pytest.fixture(scope="module")
def cv3(qwen_dir: Path) -> TextTokenizer:
    return TextTokenizer.from_dir(qwen_dir, "cosyvoice3")


def test_lists_have_the_spec_shape() -> None:
    assert len(PARALINGUISTIC_TOKENS) == 16
    assert len(ARPABET_PHONES) == 84 and len(PINYIN_PHONES) == 176
    assert len(CV2_SPECIAL_TOKENS) == 19
    assert len(CV3_SPECIAL_TOKENS) == 280
    assert CV3_SPECIAL_TOKENS[: len(CV2_SPECIAL_TOKENS)] == CV2_SPECIAL_TOKENS
    assert len(set(CV3_SPECIAL_TOKENS)) == len(CV3_SPECIAL_TOKENS)
    assert all(unicodedata.is_normalized("NFC", t) for t in CV3_SPECIAL_TOKENS)


def test_cv2_ids_match_the_spec(cv2: TextTokenizer) -> None:
    assert cv2.version == "cosyvoice2"
    for token, expected in SPEC_IDS_BOTH.items():
        assert cv2.special_ids[token] == expected, token
        assert cv2.token_to_id(token) == expected, token
    assert "<|endofsystem|>" not in cv2.special_ids and "[AA]" not in cv2.special_ids
    assert cv2.endofprompt_id == 151646
    assert cv2.vocab_size == len(cv2) == EXPECTED_VOCAB_SIZE["cosyvoice2"] == 151663


def test_cv3_ids_match_the_spec(cv3: TextTokenizer) -> None:
    assert cv3.version == "cosyvoice3"
    for token, expected in {**SPEC_IDS_BOTH, **SPEC_IDS_CV3}.items():
        assert cv3.special_ids[token] == expected, token
    assert cv3.vocab_size == EXPECTED_VOCAB_SIZE["cosyvoice3"] == 151924


def test_cv3_new_tokens_are_consecutive_in_list_order(cv3: TextTokenizer) -> None:
    new = [t for t in CV3_SPECIAL_TOKENS if t not in ("<|im_start|>", "<|im_end|>")]
    assert [cv3.special_ids[t] for t in new] == list(range(151646, 151646 + len(new)))
    assert cv3.special_ids["[AH0]"] == 151664 + ARPABET_PHONES.index("AH0")
    assert cv3.special_ids["[ǐ]"] == 151748 + PINYIN_PHONES.index("ǐ")


def test_specials_in_text_become_single_ids(cv2: TextTokenizer, cv3: TextTokenizer) -> None:
    text = "You are a helpful assistant.<|endofprompt|>你好[breath]hello<strong>world</strong>"
    for tok in (cv2, cv3):
        ids = tok.encode(text)
        for special in ("<|endofprompt|>", "[breath]", "<strong>", "</strong>"):
            assert ids.count(tok.special_ids[special]) == 1
    hint = "报道[j][ǐ]予好评 [AH0]"
    ids = cv3.encode(hint)
    assert {cv3.special_ids["[j]"], cv3.special_ids["[ǐ]"], cv3.special_ids["[AH0]"]} <= set(ids)
    # CosyVoice2 has no phone tokens: the same text is plain BPE there
    assert all(i < 151643 for i in cv2.encode("[j][ǐ]"))


def test_no_bos_or_eos_is_added(cv2: TextTokenizer) -> None:
    ids = cv2.encode("hello")
    assert ids and all(i < 151643 for i in ids)
    assert cv2.encode("") == []


def test_specials_match_the_raw_string_before_nfc(cv3: TextTokenizer) -> None:
    decomposed = unicodedata.normalize("NFD", "[ǐ]")
    assert decomposed != "[ǐ]"
    assert cv3.special_ids["[ǐ]"] not in cv3.encode(decomposed)
    assert cv3.encode("[ǐ]") == [cv3.special_ids["[ǐ]"]]


@pytest.mark.parametrize(
    "text",
    [
        "Hello world. The quick brown fox jumps over the lazy dog!",
        "收到朋友从远方寄来的生日礼物，那份意外的惊喜让我心中充满了甜蜜的快乐。",
        "  spaces,\ttabs\nand newlines  ",
        "emoji 😀 and accents: café, naïve, Zürich",
    ],
)
def test_decode_round_trips_plain_text(cv2: TextTokenizer, text: str) -> None:
    assert cv2.decode(cv2.encode(text)) == text


def test_decode_with_specials(cv3: TextTokenizer) -> None:
    text = "hi<|endofprompt|>报道[j][ǐ]予[laughter]"
    ids = cv3.encode(text)
    assert cv3.decode(ids, skip_special_tokens=False) == text
    assert cv3.decode(ids) == "hi报道予"  # release yamls set skip_special_tokens=True


def test_tiny_folder_is_small_and_sparse(qwen_dir: Path) -> None:
    vocab = json.loads((qwen_dir / "vocab.json").read_text(encoding="utf-8"))
    assert 256 < len(vocab) < 2000 and max(vocab.values()) == len(vocab) - 1
    assert sum(p.stat().st_size for p in qwen_dir.iterdir()) < 100_000


def test_tiny_folder_is_reproducible(tmp_path: Path, qwen_dir: Path) -> None:
    again = write_tiny_qwen_tokenizer(tmp_path / "again")
    for name in ("vocab.json", "merges.txt", "tokenizer_config.json"):
        assert (again / name).read_bytes() == (qwen_dir / name).read_bytes(), name


def test_tokenizer_json_folder_gives_the_same_ids(tmp_path: Path, qwen_dir: Path, cv3: TextTokenizer) -> None:
    vocab = json.loads((qwen_dir / "vocab.json").read_text(encoding="utf-8"))
    merges = (qwen_dir / "merges.txt").read_text(encoding="utf-8").splitlines()[1:]
    added = [
        {"id": 151643 + i, "content": c, "special": True}
        for i, c in enumerate(["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
    ]
    doc = {"model": {"type": "BPE", "vocab": vocab, "merges": merges}, "added_tokens": added}
    (tmp_path / "tokenizer.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    tok = TextTokenizer.from_dir(tmp_path, "cosyvoice3")
    assert dict(tok.special_ids) == dict(cv3.special_ids)
    assert tok.encode("Hello world, 你好") == cv3.encode("Hello world, 你好")


def test_get_text_tokenizer_caches(qwen_dir: Path) -> None:
    a = get_text_tokenizer(qwen_dir, "cosyvoice3")
    assert get_text_tokenizer(qwen_dir, "cosyvoice3") is a
    assert get_text_tokenizer(qwen_dir, "cosyvoice2") is not a


def test_unknown_version_is_rejected(qwen_dir: Path) -> None:
    with pytest.raises(ValueError, match="cosyvoice1"):
        TextTokenizer.from_dir(qwen_dir, "cosyvoice1")  # type: ignore[arg-type]


# ---- broken folders ---------------------------------------------------------------------------


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        TextTokenizer.from_dir(tmp_path / "nope")


@pytest.mark.parametrize("name", ["vocab.json", "merges.txt"])
def test_missing_file_is_named(tmp_path: Path, qwen_dir: Path, name: str) -> None:
    folder = _copy(qwen_dir, tmp_path / "q")
    (folder / name).unlink()
    with pytest.raises(ModelNotFoundError, match=name.replace(".", r"\.")):
        TextTokenizer.from_dir(folder)


def test_corrupt_vocab_is_named(tmp_path: Path, qwen_dir: Path) -> None:
    folder = _copy(qwen_dir, tmp_path / "q")
    (folder / "vocab.json").write_text('{"a": 0, "b": ', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"vocab\.json"):
        TextTokenizer.from_dir(folder)


def test_vocab_with_bad_ids(tmp_path: Path, qwen_dir: Path) -> None:
    folder = _copy(qwen_dir, tmp_path / "q")
    (folder / "vocab.json").write_text('{"a": 0, "b": "one"}', encoding="utf-8")
    with pytest.raises(ConfigError, match="not a non-negative integer"):
        TextTokenizer.from_dir(folder)


def test_malformed_merge_line_is_located(tmp_path: Path, qwen_dir: Path) -> None:
    folder = _copy(qwen_dir, tmp_path / "q")
    with (folder / "merges.txt").open("a", encoding="utf-8") as f:
        f.write("one two three\n")
    with pytest.raises(ConfigError, match=r"merges\.txt line \d+"):
        TextTokenizer.from_dir(folder)


def test_merge_outside_the_vocabulary(tmp_path: Path, qwen_dir: Path) -> None:
    folder = _copy(qwen_dir, tmp_path / "q")
    with (folder / "merges.txt").open("a", encoding="utf-8") as f:
        f.write("zzzq yyyq\n")
    with pytest.raises(ConfigError, match="do not fit together"):
        TextTokenizer.from_dir(folder)


def test_corrupt_tokenizer_config(tmp_path: Path, qwen_dir: Path) -> None:
    folder = _copy(qwen_dir, tmp_path / "q")
    (folder / "tokenizer_config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"tokenizer_config\.json"):
        TextTokenizer.from_dir(folder)


def test_missing_tokenizer_config_uses_qwen_defaults(tmp_path: Path, qwen_dir: Path) -> None:
    folder = _copy(qwen_dir, tmp_path / "q")
    (folder / "tokenizer_config.json").unlink()
    tok = TextTokenizer.from_dir(folder, "cosyvoice2")
    assert tok.special_ids["<|endoftext|>"] == 151643 and tok.endofprompt_id == 151646


@pytest.mark.parametrize("name", ["vocab.json", "merges.txt"])
def test_tokenizer_file_that_is_a_symlink_to_dev_zero(tmp_path: Path, qwen_dir: Path, name: str) -> None:
    """Refused before any byte is read (it used to be read whole: 3.2 GB)."""
    folder = _copy(qwen_dir, tmp_path / "q")
    (folder / name).unlink()
    (folder / name).symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="not a regular file"):
        TextTokenizer.from_dir(folder)


def test_vocab_json_nested_100000_deep(tmp_path: Path, qwen_dir: Path) -> None:
    folder = _copy(qwen_dir, tmp_path / "q")
    (folder / "vocab.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(ConfigError, match="nests deeper"):
        TextTokenizer.from_dir(folder)
