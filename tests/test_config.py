"""Release-folder configuration: parsing, family detection and clear errors for bad folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cosycore.config import Tagged, load_model_config, load_plain_yaml
from cosycore.config.folder import check_model_folder, folder_problems
from cosycore.errors import (
    ConfigError,
    ModelNotFoundError,
    UnknownClassError,
    WrongModelFamilyError,
)
from tests.conftest import copy_release


def test_cv2_tiny_config(cv2_dir: Path) -> None:
    cfg = load_model_config(cv2_dir)
    assert cfg.family == "cosyvoice2"
    assert cfg.llm.qwen.hidden_size == 16 and cfg.llm.qwen.num_layers == 2
    assert cfg.llm.speech_vocab_size == 6564 and cfg.llm.decoder_bias
    assert cfg.llm.stop_token_ids == (6561, 6562, 6563)
    assert cfg.llm.eos_token == 6561 and cfg.llm.fill_token == 6563
    assert cfg.flow.kind == "unet" and cfg.flow.encoder is not None
    # "!ref <chunk_size> * <token_mel_ratio>" is evaluated as arithmetic
    assert cfg.flow.estimator.static_chunk_size == 50
    assert cfg.hift.hop_samples == 480 and not cfg.hift.causal
    assert cfg.mel.fmax == 8000.0
    assert cfg.speech_tokenizer_file == "speech_tokenizer_v2.onnx"


def test_cv3_tiny_config(cv3_dir: Path) -> None:
    cfg = load_model_config(cv3_dir)
    assert cfg.family == "cosyvoice3"
    assert cfg.llm.speech_vocab_size == 6761 and not cfg.llm.decoder_bias
    assert cfg.llm.sos_index == 6561 and cfg.llm.eos_token == 6562
    assert cfg.llm.task_id_index == 6563 and cfg.llm.fill_token == 6564
    assert len(cfg.llm.stop_token_ids) == 200
    assert cfg.flow.kind == "dit" and cfg.flow.pre_lookahead_channels == 64
    assert cfg.hift.causal and cfg.hift.conv_pre_look_right == 4
    assert cfg.mel.fmax is None


def test_yaml_tags_are_recorded_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    y = tmp_path / "x.yaml"
    y.write_text(
        f"__evil: !apply:os.system ['touch {marker}']\n"
        "a: 3\nb: !ref <a>\nc: !ref <a> * 2 + 1\nd: !new:pkg.Cls\n  k: !ref <b>\n"
        "e: !name:pkg.func\nf: !ref <d[k]>\n"
    )
    tree = load_plain_yaml(y)
    assert not marker.exists()
    assert "__evil" not in tree
    assert tree["b"] == 3 and tree["c"] == 7 and tree["f"] == 3
    assert isinstance(tree["d"], Tagged) and tree["d"].kwargs == {"k": 3}
    assert tree["e"] == Tagged("name", "pkg.func", None)


def test_missing_folder() -> None:
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        load_model_config("/nonexistent/CosyVoice2-0.5B")


def test_file_instead_of_folder(tmp_path: Path) -> None:
    f = tmp_path / "llm.pt"
    f.write_bytes(b"x")
    with pytest.raises(ModelNotFoundError, match="is a file"):
        load_model_config(f)


def test_v1_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "cosyvoice.yaml").write_text("sample_rate: 22050\n")
    with pytest.raises(WrongModelFamilyError, match="v1"):
        load_model_config(tmp_path)


def test_folder_without_yaml(tmp_path: Path) -> None:
    (tmp_path / "llm.pt").write_bytes(b"")
    with pytest.raises(WrongModelFamilyError, match="neither"):
        load_model_config(tmp_path)


def test_unknown_class(cv2_dir: Path, tmp_path: Path) -> None:
    d = copy_release(cv2_dir, tmp_path / "m")
    y = d / "cosyvoice2.yaml"
    y.write_text(y.read_text().replace("cosyvoice.flow.decoder.CausalConditionalDecoder", "evil.pkg.Backdoor"))
    with pytest.raises(UnknownClassError, match=r"evil\.pkg\.Backdoor"):
        load_model_config(d)


def test_family_mismatch_between_yaml_name_and_classes(cv3_dir: Path, tmp_path: Path) -> None:
    d = copy_release(cv3_dir, tmp_path / "m")
    (d / "cosyvoice3.yaml").rename(d / "cosyvoice2.yaml")
    with pytest.raises(WrongModelFamilyError, match="mixes two releases"):
        load_model_config(d)


def test_config_json_disagrees_with_yaml(cv2_dir: Path, tmp_path: Path) -> None:
    d = copy_release(cv2_dir, tmp_path / "m")
    cj = d / "CosyVoice-BlankEN" / "config.json"
    data = json.loads(cj.read_text())
    data["hidden_size"] = 32
    cj.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="hidden_size=32"):
        load_model_config(d)


def test_missing_qwen_folder(cv2_dir: Path, tmp_path: Path) -> None:
    d = copy_release(cv2_dir, tmp_path / "m")
    (d / "CosyVoice-BlankEN" / "config.json").unlink()
    with pytest.raises(ModelNotFoundError, match="CosyVoice-BlankEN"):
        load_model_config(d)


def test_broken_yaml(cv2_dir: Path, tmp_path: Path) -> None:
    d = copy_release(cv2_dir, tmp_path / "m")
    (d / "cosyvoice2.yaml").write_text("llm: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid yaml"):
        load_model_config(d)


def test_a_config_is_parsed_again_only_when_its_files_change(cv2_dir: Path, tmp_path: Path) -> None:
    """Reads are remembered by the bytes read (a same-length edit, made within the same clock tick,
    still counts); a failed read is not remembered."""
    d = copy_release(cv2_dir, tmp_path / "m")
    first = load_model_config(d)
    assert load_model_config(d) is first and load_model_config(str(d)) is first
    yaml_path = d / "cosyvoice2.yaml"
    text = yaml_path.read_text()
    assert "sample_rate: 24000" in text
    yaml_path.write_text(text.replace("sample_rate: 24000", "sample_rate: 16000"))  # same length
    second = load_model_config(d)
    assert second is not first and second.sample_rate == 16000
    cj = d / "CosyVoice-BlankEN" / "config.json"
    good = cj.read_text()
    data = json.loads(good)
    data["hidden_size"] = 32
    cj.write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="hidden_size=32"):
        load_model_config(d)
    cj.write_text(good)
    assert load_model_config(d) is second


# -- issue 25 item 7: a folder check that names every missing file before loading anything ------------

def _incomplete(tiny: Path, tmp_path: Path) -> Path:
    d = copy_release(tiny, tmp_path / "m")
    for rel in ("flow.pt", "campplus.onnx", "CosyVoice-BlankEN/merges.txt"):
        (d / rel).unlink()
    (d / "hift.pt").unlink()
    (d / "hift.pt").write_bytes(b"")
    return d


def test_folder_missing_three_files_names_every_one(tiny_cv2_model: Path, tmp_path: Path) -> None:
    d = _incomplete(tiny_cv2_model, tmp_path)
    assert folder_problems(d, "cosyvoice2") == ["flow.pt is missing", "hift.pt is empty (0 bytes)",
                                                "campplus.onnx is missing", "CosyVoice-BlankEN/merges.txt is missing"]
    with pytest.raises(ModelNotFoundError, match=r"incomplete: flow\.pt is missing; hift\.pt is empty.*; campplus"
                                                 r"\.onnx is missing; CosyVoice-BlankEN/merges\.txt is missing\. "
                                                 r"Download the model again"):
        check_model_folder(d)
    assert check_model_folder(tiny_cv2_model) == "cosyvoice2"


def test_engine_on_a_folder_missing_three_files_loads_nothing(tiny_cv2_model: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from cosycore import model as model_module
    from cosycore.engine import Engine

    def no_loading(*_a, **_k):
        raise AssertionError("the folder was loaded before it was checked")

    monkeypatch.setattr(model_module.CosyModel, "load", no_loading)
    with pytest.raises(ModelNotFoundError, match=r"flow\.pt is missing.*campplus\.onnx is missing.*merges\.txt"):
        Engine(_incomplete(tiny_cv2_model, tmp_path), device="cpu")


def test_folder_with_tokenizer_json_instead_of_vocab_and_merges(tiny_cv2_model: Path, tmp_path: Path) -> None:
    d = copy_release(tiny_cv2_model, tmp_path / "m")
    (d / "CosyVoice-BlankEN/vocab.json").unlink()
    (d / "CosyVoice-BlankEN/merges.txt").unlink()
    assert folder_problems(d, "cosyvoice2") == ["CosyVoice-BlankEN/vocab.json is missing",
                                                "CosyVoice-BlankEN/merges.txt is missing"]
    (d / "CosyVoice-BlankEN/tokenizer.json").write_text("{}")
    assert folder_problems(d, "cosyvoice2") == []
    (d / "llm.pt").unlink()
    (d / "llm.pt").mkdir()
    assert folder_problems(d, "cosyvoice2") == ["llm.pt is a folder"]


@pytest.mark.parametrize("family", ["cosyvoice2", "cosyvoice3"])
def test_folder_check_asks_for_the_catalogues_required_files(family: str) -> None:
    from cosycore.config.folder import release_files
    from cosycore.hub.catalog import required_files_for

    tokenizer = ("CosyVoice-BlankEN/vocab.json", "CosyVoice-BlankEN/merges.txt")
    assert set(release_files(family)) | set(tokenizer) == set(required_files_for(family))  # type: ignore[arg-type]
