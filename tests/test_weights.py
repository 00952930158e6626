"""Checkpoint loading: safe, strict, with messages that name the file and the keys."""

from __future__ import annotations

import os
import pickle
import zipfile
from pathlib import Path

import pytest
import torch
from torch import nn

from cosycore.errors import CheckpointError, ModelNotFoundError, StateDictMismatchError, UnsafeCheckpointError
from cosycore.weights import assign_state_dict, load_checkpoint, normalize_keys


class _Boom:
    def __reduce__(self):  # executed by an unsafe unpickler
        return (os.system, (f"touch {os.environ['COSY_TEST_MARKER']}",))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelNotFoundError, match=r"llm\.pt is missing"):
        load_checkpoint(tmp_path / "llm.pt")


def test_empty_and_truncated(tmp_path: Path) -> None:
    empty = tmp_path / "flow.pt"
    empty.write_bytes(b"")
    with pytest.raises(CheckpointError, match="empty"):
        load_checkpoint(empty)
    good = tmp_path / "good.pt"
    torch.save({"w": torch.arange(10000, dtype=torch.float32)}, good)
    cut = tmp_path / "hift.pt"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(CheckpointError, match=r"hift\.pt is truncated or corrupt"):
        load_checkpoint(cut)


def test_pickle_is_refused_and_not_executed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "executed"
    monkeypatch.setenv("COSY_TEST_MARKER", str(marker))
    evil = tmp_path / "llm.pt"
    torch.save({"w": torch.zeros(2), "payload": _Boom()}, evil, pickle_module=pickle)
    with pytest.raises(UnsafeCheckpointError, match="not loaded"):
        load_checkpoint(evil)
    assert not marker.exists()


def test_not_a_state_dict(tmp_path: Path) -> None:
    p = tmp_path / "flow.pt"
    torch.save([torch.zeros(1)], p)
    with pytest.raises(CheckpointError, match="state dict"):
        load_checkpoint(p)


def test_roundtrip_is_memory_mapped(tmp_path: Path) -> None:
    p = tmp_path / "m.pt"
    torch.save({"a": torch.randn(3, 4)}, p)
    sd = load_checkpoint(p)
    assert sd["a"].shape == (3, 4)


def test_weight_norm_key_forms() -> None:
    sd = {"generator.conv.weight_g": torch.ones(1), "generator.conv.weight_v": torch.ones(1),
          "x.bias": torch.ones(1)}
    out = normalize_keys(sd, "hift")
    assert set(out) == {
        "conv.parametrizations.weight.original0",
        "conv.parametrizations.weight.original1",
        "x.bias",
    }


def test_strict_assign_lists_keys() -> None:
    with torch.device("meta"):
        m = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    sd = {"0.weight": torch.zeros(4, 3), "0.bias": torch.zeros(4), "1.weight": torch.zeros(2, 5),
          "extra": torch.zeros(1)}
    with pytest.raises(StateDictMismatchError) as info:
        assign_state_dict(m, sd, "flow.pt")
    msg = str(info.value)
    assert "missing keys: 1.bias" in msg and "unexpected keys: extra" in msg and "1.weight (2, 5)" in msg
    good = {"0.weight": torch.ones(4, 3), "0.bias": torch.zeros(4), "1.weight": torch.ones(2, 4),
            "1.bias": torch.zeros(2)}
    assign_state_dict(m, good, "flow.pt")
    assert m(torch.ones(1, 3)).tolist() == [[12.0, 12.0]]


def test_meta_models_are_built_without_the_random_init_that_imports_dynamo(monkeypatch: pytest.MonkeyPatch) -> None:
    """On the meta device (the loaders), an embedding table and a weight-normed convolution are built without
    torch's meta ``normal_`` and ``norm`` (Python references whose first call imports torch._dynamo and sympy:
    seconds per fresh process), and load and fold as torch's; on the CPU they are initialised as before."""
    from cosycore.vocoder.layers import with_weight_norm
    from cosycore.vocoder.load import fold_weight_norm
    from cosycore.weights import embedding

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a meta tensor was initialised")

    with monkeypatch.context() as m:
        m.setattr(torch.nn.init, "normal_", refuse)
        m.setattr(torch, "norm_except_dim", refuse)
        with torch.device("meta"):
            table = embedding(5, 3)
            conv = with_weight_norm(nn.Conv1d(2, 4, 3))
    assert table.weight.is_meta and table.weight.shape == (5, 3)
    g = torch.rand(4, 1, 1) + 0.5
    v = torch.randn(4, 2, 3)
    sd = {"parametrizations.weight.original0": g, "parametrizations.weight.original1": v, "bias": torch.zeros(4)}
    assign_state_dict(conv, sd, "hift.pt")
    want = g * v / v.flatten(1).norm(dim=1).view(4, 1, 1)  # weight norm over dim 0: g * v / |v|
    torch.testing.assert_close(conv.weight, want)
    assert fold_weight_norm(conv) == 1
    torch.testing.assert_close(conv.weight, want)

    torch.manual_seed(0)
    cpu_table, cpu_conv = embedding(5, 3), with_weight_norm(nn.Conv1d(2, 4, 3))
    assert cpu_table.weight.std() > 0.1  # normal(0, 1)
    torch.testing.assert_close(cpu_conv.parametrizations.weight.original0.flatten(),
                               cpu_conv.parametrizations.weight.original1.flatten(1).norm(dim=1))


def _deflate(src: Path, dst: Path) -> None:
    """``src`` re-zipped with every record DEFLATE-compressed (as a zip tool's default does)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info.filename), compress_type=zipfile.ZIP_DEFLATED)


def test_hift_pt_with_deflate_records(tiny_cv2_model: Path, tmp_path: Path) -> None:
    """Issue 27: a re-zipped hift.pt loads as the same weights, or nothing: never compressed bytes."""
    rezipped = tmp_path / "hift.pt"
    _deflate(tiny_cv2_model / "hift.pt", rezipped)
    with zipfile.ZipFile(rezipped) as zf:
        assert any(i.compress_type == zipfile.ZIP_DEFLATED and i.compress_size != i.file_size
                   for i in zf.infolist() if "/data/" in i.filename)
    expected = load_checkpoint(tiny_cv2_model / "hift.pt")
    got = load_checkpoint(rezipped)
    assert got.keys() == expected.keys()
    assert all(torch.equal(got[k], expected[k]) for k in expected)


def test_incompressible_deflate_record_is_not_read_in_place(tmp_path: Path) -> None:
    """A record DEFLATE cannot shrink keeps its size, so an in-place (memory-mapped) read would take its
    compressed bytes for the tensor without any error."""
    weights = {"w": torch.randint(0, 256, (50_000,), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))}
    torch.save(weights, tmp_path / "stored.pt")
    _deflate(tmp_path / "stored.pt", tmp_path / "flow.pt")
    assert torch.equal(load_checkpoint(tmp_path / "flow.pt")["w"], weights["w"])


def test_damaged_zip_is_still_a_typed_error(tmp_path: Path) -> None:
    p = tmp_path / "llm.pt"
    torch.save({"a": torch.randn(64, 64)}, p)
    data = bytearray(p.read_bytes())
    data[-22:] = b"\0" * 22  # no end-of-central-directory record
    p.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        load_checkpoint(p)
