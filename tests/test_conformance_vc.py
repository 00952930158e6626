"""The ``vc/`` conformance set (voice conversion against the original's ``inference_vc``): it passes, and a
doctored copy fails where it was doctored."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from cosycore.conformance.runner import find_targets, run
from cosycore.conformance.vc import check_vc_reference

pytestmark = [pytest.mark.conformance, pytest.mark.usefixtures("single_thread")]


def test_the_vc_set_passes_for_both_families(vc_dir: Path) -> None:
    results = check_vc_reference(vc_dir)
    failed = [r for r in results if not r.passed]
    assert not failed, "\n".join(f"{r.name}: {r.max_abs_err:.3g} {r.note}" for r in failed)
    names = {r.name for r in results}
    for family in ("cosyvoice2", "cosyvoice3"):
        assert {f"{family}.source_speech_token", f"{family}.prompt_speech_feat", f"{family}.stream.calls",
                f"{family}.stream.call1.kept_mel", f"{family}.speed.chunk_samples"} <= names
    assert {"cosyvoice3.stream.speech", "cosyvoice3.full.speech"} <= names


def test_the_runner_finds_the_vc_set_beside_the_others(vc_dir: Path) -> None:
    assert vc_dir in find_targets(vc_dir.parent)


def test_a_doctored_copy_fails(vc_dir: Path, tmp_path: Path) -> None:
    """One source token and one streamed mel value changed (Fun-CosyVoice3 only, to keep it quick). The flow
    checks run on the recorded tokens, so the changed token fails every kept mel too; the prompt's do not."""
    copy = tmp_path / "vc"
    shutil.copytree(vc_dir, copy)
    for family in ("cosyvoice2", "cosyvoice3"):  # the model folders the manifest names, beside the copy
        (tmp_path / f"{family}-tiny").symlink_to((vc_dir.parent / f"{family}-tiny").resolve())
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    del manifest["families"]["cosyvoice2"]
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    arrays = dict(np.load(copy / "vc.npz"))
    tokens = arrays["cosyvoice3.source_speech_token"]
    tokens[0, 7] = (tokens[0, 7] + 1) % 6561
    arrays["cosyvoice3.stream.call1.mel"][0, 5, 120] += 0.01
    np.savez(copy / "vc.npz", **arrays)
    out = io.StringIO()
    assert run([copy], out=out) is False
    fails = [line.split()[1] for line in out.getvalue().splitlines() if line.strip().startswith("FAIL ")]
    assert "cosyvoice3.source_speech_token" in fails and "cosyvoice3.stream.call1.kept_mel" in fails
    assert not {"cosyvoice3.prompt_speech_feat", "cosyvoice3.flow_prompt_speech_token", "cosyvoice3.flow_embedding",
                "cosyvoice3.full.chunk_samples"} & set(fails)
