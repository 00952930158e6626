"""The voice-conversion conformance set (``tests/data/conformance-vc``, the original's ``inference_vc``): it
passes with the shared tiny model folders, ``python -m cosycore.conformance`` checks it by default, a doctored
copy fails where it was doctored, and the model folders are found by their contents, not their names."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from cosycore.conformance.runner import default_targets, find_targets, main
from cosycore.conformance.vc import REPO_VC_SET, check_vc_reference, find_model_folder
from cosycore.errors import ConformanceError
from tests.conftest import conformance_root

pytestmark = [pytest.mark.conformance, pytest.mark.usefixtures("single_thread")]


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def test_the_vc_set_passes_for_both_families(vc_dir: Path) -> None:
    results = check_vc_reference(vc_dir, models=[conformance_root()])
    failed = [r for r in results if not r.passed]
    assert not failed, "\n".join(f"{r.name}: {r.max_abs_err:.3g} {r.note}" for r in failed)
    names = {r.name for r in results}
    families = _manifest(vc_dir)["families"]
    assert set(families) == {"cosyvoice2", "cosyvoice3"}
    for family, info in families.items():
        assert {f"{family}.source_speech_token", f"{family}.flow_prompt_speech_token",
                f"{family}.prompt_speech_feat", f"{family}.flow_embedding"} <= names
        assert {"full", "stream"} <= set(info["runs"])
        assert len(info["runs"]["stream"]["token2wav_calls"]) > 1  # streamed in more than one call
        for run, rec in info["runs"].items():
            assert {f"{family}.{run}.calls", f"{family}.{run}.chunk_samples"} <= names
            assert {f"{c['name']}.kept_mel" for c in rec["token2wav_calls"]} <= names
            if family == "cosyvoice3":
                assert f"{family}.{run}.speech" in names


def test_the_default_run_checks_the_repository_set(vc_dir: Path) -> None:
    assert vc_dir.resolve() == REPO_VC_SET.resolve()
    assert REPO_VC_SET in default_targets()
    assert find_targets(vc_dir) == [vc_dir]


def test_a_doctored_copy_fails(vc_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One source token and one streamed mel value changed (Fun-CosyVoice3 only, to keep it quick). The flow
    checks run on the recorded tokens, so the changed token fails every kept mel too; the prompt's do not."""
    copy = tmp_path / "vc"
    shutil.copytree(vc_dir, copy)
    manifest = _manifest(copy)
    del manifest["families"]["cosyvoice2"]
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    arrays = dict(np.load(copy / "vc.npz"))
    tokens = arrays["cosyvoice3.source_speech_token"]  # [1, N]
    i = tokens.shape[1] // 2
    tokens[0, i] = next(t for t in tokens[0] if t != tokens[0, i])  # another token of the same codebook
    call = manifest["families"]["cosyvoice3"]["runs"]["stream"]["token2wav_calls"][1]
    mel = arrays[f"{call['name']}.mel"]  # [1, 80, T]: the call keeps frames from token_offset * ratio on
    mel[0, mel.shape[1] // 2, -1] += 0.01
    np.savez(copy / "vc.npz", **arrays)
    assert main([str(copy), "--models", str(conformance_root())]) == 1
    out = capsys.readouterr().out
    fails = [line.split()[1] for line in out.splitlines() if line.strip().startswith("FAIL ")]
    assert "cosyvoice3.source_speech_token" in fails and f"{call['name']}.kept_mel" in fails
    assert not {"cosyvoice3.prompt_speech_feat", "cosyvoice3.flow_prompt_speech_token", "cosyvoice3.flow_embedding",
                "cosyvoice3.full.chunk_samples"} & set(fails)
    assert out.rstrip().endswith("FAIL")


def test_model_folders_are_found_by_their_contents(vc_dir: Path, cv3_dir: Path, tmp_path: Path) -> None:
    """A folder of the same format with other contents is skipped, whatever its name; without the right
    one the error says where it looked and what to do."""
    manifest = _manifest(vc_dir)
    other = tmp_path / "a" / manifest["models"]["cosyvoice3"]["folder"]  # the set's folder name, other weights
    other.mkdir(parents=True)
    for item in cv3_dir.iterdir():
        if item.name != "cosyvoice3.yaml":
            (other / item.name).symlink_to(item.resolve())
    (other / "cosyvoice3.yaml").write_text(
        (cv3_dir / "cosyvoice3.yaml").read_text(encoding="utf-8") + "\n# another seed\n", encoding="utf-8")
    (tmp_path / "a" / "renamed").symlink_to(cv3_dir.resolve())
    assert find_model_folder(manifest, "cosyvoice3", [tmp_path / "a"]) == tmp_path / "a" / "renamed"
    (tmp_path / "a" / "renamed").unlink()
    with pytest.raises(ConformanceError, match=r"(?s)cosyvoice3\.yaml differs.*COSY_CONFORMANCE_DIR.*regenerate"):
        find_model_folder(manifest, "cosyvoice3", [tmp_path / "a", tmp_path / "missing"])
