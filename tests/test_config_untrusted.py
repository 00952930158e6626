"""Issue 12, release yaml and config.json from strangers (items 9, 10): each test is named after its input.

Every failure must be a ConfigError (exit code 3 from the CLI), never a traceback, and loading must
end quickly with bounded memory whatever the file says.
"""

from __future__ import annotations

import io
import json
import os
import re
import threading
from pathlib import Path

import pytest

from cosycore.__main__ import CliIO, main
from cosycore.config import load_model_config, load_plain_yaml
from cosycore.errors import ConfigError
from tests.conftest import copy_release


def _edit_yaml(folder: Path, pattern: str, repl: str) -> None:
    y = folder / "cosyvoice2.yaml"
    text, n = re.subn(pattern, repl, y.read_text(encoding="utf-8"), count=1, flags=re.M)
    assert n == 1, pattern
    y.write_text(text, encoding="utf-8")


def _edit_json(folder: Path, **values: object) -> None:
    path = folder / "CosyVoice-BlankEN" / "config.json"
    data = json.loads(path.read_text())
    data.update(values)
    path.write_text(json.dumps(data))


@pytest.fixture
def release(cv2_dir: Path, tmp_path: Path) -> Path:
    return copy_release(cv2_dir, tmp_path / "release")


@pytest.mark.parametrize(("line", "value", "message"), [
    ("sample_rate", "fast", "wrong type or value"),
    ("sample_rate", ".nan", "wrong type or value"),
    ("sample_rate", "[1, 2]", "wrong type or value"),
    ("chunk_size", "0", "chunk_size is 0"),
    ("chunk_size", "-25", "chunk_size is -25"),
    ("token_frame_rate", "1e300", "wrong type or value|token_frame_rate"),
])
def test_yaml_value(release: Path, line: str, value: str, message: str) -> None:
    _edit_yaml(release, rf"^{line}:.*$", f"{line}: {value}")
    with pytest.raises(ConfigError, match=message):
        load_model_config(release)


@pytest.mark.parametrize(("values", "message"), [
    ({"num_attention_heads": 0}, "wrong type|num_heads is 0|modulo"),
    ({"rope_theta": 0}, "rope_theta is 0.0"),
    ({"rope_theta": "fast"}, "wrong type"),
    ({"hidden_size": [16]}, "wrong type"),
    ({"intermediate_size": 2**40}, "intermediate_size is 1099511627776"),
    ({"num_attention_heads": 3}, "not a multiple"),
    ({"rms_norm_eps": -1.0}, "rms_norm_eps is -1.0"),
])
def test_config_json_value(release: Path, values: dict, message: str) -> None:
    _edit_json(release, **values)
    with pytest.raises(ConfigError, match=message):
        load_model_config(release)


def test_config_json_nan(release: Path) -> None:
    path = release / "CosyVoice-BlankEN" / "config.json"
    path.write_text(path.read_text().replace('"rope_theta": 1000000.0', '"rope_theta": NaN'))
    with pytest.raises(ConfigError, match=r"not valid JSON.*NaN"):
        load_model_config(release)


def test_non_utf8_yaml(release: Path) -> None:
    y = release / "cosyvoice2.yaml"
    y.write_bytes(y.read_bytes() + b"\n# caf\xe9\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_model_config(release)


def test_non_utf8_config_json(release: Path) -> None:
    path = release / "CosyVoice-BlankEN" / "config.json"
    path.write_bytes(b'{"hidden_size": "\xff"}')
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_model_config(release)


def test_cli_exit_code_3_for_sample_rate_fast(release: Path) -> None:
    _edit_yaml(release, r"^sample_rate:.*$", "sample_rate: fast")
    err = io.StringIO()
    code = main(["info", "--model", str(release)], CliIO(io.StringIO(), io.StringIO(), io.BytesIO(), err))
    assert code == 3 and "could not be loaded" in err.getvalue() and "Traceback" not in err.getvalue()


# -- item 10: loading that could hang or exhaust memory ----------------------------------------

def test_ref_9_pow_9_pow_9(tmp_path: Path) -> None:
    y = tmp_path / "x.yaml"
    y.write_text("a: 9\nb: !ref <a> ** <a> ** <a>\nc: !ref 9**9**9\n")
    with pytest.raises(ConfigError, match="power"):
        load_plain_yaml(y)
    y.write_text("a: 10\nb: !ref <a> ** 60\n")
    with pytest.raises(ConfigError, match="beyond"):
        load_plain_yaml(y)
    y.write_text("a: 1000000000\nb: !ref <a> * <a> * <a>\n")
    with pytest.raises(ConfigError, match="beyond"):
        load_plain_yaml(y)
    y.write_text("a: 3\nb: !ref <a> ** 2 + 1\n")
    assert load_plain_yaml(y)["b"] == 10  # small powers still work


def test_billion_laughs_aliases(tmp_path: Path) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    y = tmp_path / "laughs.yaml"
    y.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match=r"expands to more than|aliases"):
        load_plain_yaml(y)


def test_ref_expansion_without_aliases(tmp_path: Path) -> None:
    lines = ["a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"]
    for i, name in enumerate("bcdefghij"):
        prev = "abcdefghij"[i]
        lines.append(f"{name}: [" + ", ".join([f"!ref <{prev}>"] * 10) + "]")
    y = tmp_path / "refs.yaml"
    y.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match="expands to more than"):
        load_plain_yaml(y)


def test_yaml_that_is_a_fifo(release: Path) -> None:
    y = release / "cosyvoice2.yaml"
    y.unlink()
    os.mkfifo(y)
    done: list[BaseException] = []

    def load() -> None:
        try:
            load_model_config(release)
        except BaseException as e:  # handed to the test thread
            done.append(e)

    t = threading.Thread(target=load, daemon=True)
    t.start()
    t.join(30)  # generous: without the check the open blocks forever (no writer ever comes)
    if t.is_alive():  # unblock the reader so the thread can end, then fail
        with open(y, "wb"):
            pass
        pytest.fail("loading a FIFO yaml blocked")
    assert isinstance(done[0], ConfigError) and "not a regular file" in str(done[0])


def test_yaml_symlink_to_dev_zero(release: Path) -> None:
    y = release / "cosyvoice2.yaml"
    y.unlink()
    y.symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="not a regular file"):
        load_model_config(release)


def test_yaml_of_two_megabytes(release: Path) -> None:
    y = release / "cosyvoice2.yaml"
    y.write_text(y.read_text() + "#" * (2 << 20) + "\n")
    with pytest.raises(ConfigError, match="at most 1,048,576"):
        load_model_config(release)
