"""A flow fixed to one setting (draft mode's memory option, ``cosycore.flow.time_table``).

The Fun-CosyVoice3 DiT fixed to a setting must give the numbers of the same DiT with its weights,
bit for bit, in every kind of call the engine makes with that setting; it refuses other settings,
no longer holds the time-conditioning weights, and a fixed load does not keep the mapping those
weights were read from. No test measures memory itself (``bench/bench_perf.py`` does).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from cosycore.config import load_model_config
from cosycore.errors import FlowSettingsError
from cosycore.flow import FlowModel, FlowSettings, load_flow
from cosycore.flow.cache import FlowCache
from cosycore.flow.cfm import CFMSampler
from cosycore.model import CosyModel
from cosycore.perf import DRAFT_FLOW, PerfOptions, apply_load_options, quality_options
from cosycore.testing.flow_inputs import random_flow_inputs
from cosycore.token2wav import StreamSchedule, prompt_flow_cache
from tests.conftest import copy_release

pytestmark = pytest.mark.usefixtures("single_thread")

SETTINGS = {
    "draft": DRAFT_FLOW,  # 4 steps, no CFG: estimator batch 1
    "release": FlowSettings(),  # 10 steps with CFG: batch 2
    "draft-bf16": FlowSettings(DRAFT_FLOW.n_steps, DRAFT_FLOW.cfg_rate, torch.bfloat16),
}


@pytest.fixture(scope="module")
def plain(cv3_dir: Path) -> FlowModel:
    return load_flow(load_model_config(cv3_dir))


def _inputs() -> tuple[torch.Tensor, ...]:
    return random_flow_inputs(prompt=30, generated=90)


def _calls(flow: FlowModel, s: FlowSettings) -> list[torch.Tensor]:
    """Every kind of flow call a stream makes: offline, streamed, and a cached stream from a prompt template."""
    tok, pt, feat, emb = _inputs()
    kw = {"n_steps": s.n_steps, "cfg_rate": s.cfg_rate, "autocast": s.autocast}
    out = [flow.inference(tok, pt, feat, emb, streaming=False, finalize=True, **kw),
           flow.inference(tok[:, :23], pt, feat, emb, streaming=True, finalize=False, **kw)]
    template = prompt_flow_cache(flow, pt, feat, emb, schedule=StreamSchedule(), **kw)
    assert template is not None
    cache = template.clone()
    for end in (23, 73):  # with the 30 prompt tokens and 3 look-ahead ones: frames up to tokens 50, 100
        out.append(flow.inference_cached(tok[:, :end], pt, feat, emb, cache=cache, finalize=False, **kw))
    out.append(flow.inference_cached(tok, pt, feat, emb, cache=cache, finalize=True, **kw))
    return out


@pytest.mark.parametrize("name", list(SETTINGS))
def test_fixed_flow_gives_the_numbers_of_the_weights(cv3_dir: Path, plain: FlowModel, name: str) -> None:
    settings = SETTINGS[name]
    fixed = load_flow(load_model_config(cv3_dir), fixed=settings)
    assert fixed.fixed_settings == settings and plain.fixed_settings is None
    for want, got in zip(_calls(plain, settings), _calls(fixed, settings), strict=True):
        assert torch.equal(got, want)


def test_fixed_flow_refuses_other_settings(cv3_dir: Path) -> None:
    fixed = load_flow(load_model_config(cv3_dir), fixed=DRAFT_FLOW)
    tok, pt, feat, emb = _inputs()
    with pytest.raises(FlowSettingsError, match=r"one flow setting only \(4 steps, CFG 0"):
        fixed.inference(tok, pt, feat, emb, streaming=False, finalize=True)  # the release's 10 steps
    with pytest.raises(FlowSettingsError, match="autocast"):
        fixed.inference(tok, pt, feat, emb, streaming=False, finalize=True, n_steps=4, cfg_rate=0.0,
                        autocast=torch.bfloat16)
    with pytest.raises(FlowSettingsError):
        fixed.inference(tok, pt, feat, emb, streaming=False, finalize=True, n_steps=3, cfg_rate=0.0)


def test_fixing_drops_the_time_weights(cv3_dir: Path) -> None:
    flow = load_flow(load_model_config(cv3_dir))
    time_params = sum(p.numel() for m in flow.time_modules().values() for p in m.parameters())
    before = sum(p.numel() for p in flow.parameters())
    assert len(flow.time_modules()) == flow.cfg.estimator.depth + 2  # every block's AdaLN, time MLP, final norm
    assert flow.fix_time_steps(DRAFT_FLOW)
    assert sum(p.numel() for p in flow.parameters()) == before - time_params
    assert flow.time_modules() == {}
    assert not [k for k in flow.state_dict() if "attn_norm" in k or "time_embed" in k or "norm_out" in k]
    table = flow.decoder.estimator.time_table
    assert len(table) == 4 and table.nbytes() < time_params * 4 / 10  # 4 steps of modulations, not weights


def test_the_table_keys_are_the_times_the_sampler_passes(plain: FlowModel) -> None:
    sampler: CFMSampler = plain.decoder.sampler
    seen: list[torch.Tensor] = []

    def estimator(x, mask, mu, t, spks, cond, streaming, **_):  # records t, returns zero velocity
        seen.append(t.clone())
        return torch.zeros_like(x)

    for settings in SETTINGS.values():
        seen.clear()
        mu = torch.zeros(1, 80, 6)
        sampler.sample(estimator, mu, torch.zeros(1, 80), mu, streaming=False, n_steps=settings.n_steps,
                       cfg_rate=settings.cfg_rate)
        want = sampler.estimator_times(settings, torch.float32, "cpu")
        assert len(seen) == len(want) and all(torch.equal(a, b) for a, b in zip(seen, want, strict=True))


def test_a_flow_without_the_option_is_left_as_it_is(cv2_dir: Path) -> None:
    """The CosyVoice2 U-Net has no time table: fixing it changes nothing (and loading fixed works)."""
    flow = load_flow(load_model_config(cv2_dir), fixed=DRAFT_FLOW)
    assert flow.time_modules() == {} and flow.fixed_settings is None
    assert not flow.fix_time_steps(DRAFT_FLOW)
    tok, pt, feat, emb = _inputs()
    flow.inference(tok, pt, feat, emb, streaming=False, finalize=True)  # any setting still runs


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_fixed_load_keeps_one_mapping_of_flow_pt(tmp_path: Path, cv3_dir: Path) -> None:
    """The time weights come from a mapping of their own, gone after the load (its pages with it);
    the rest of the flow stays memory-mapped as an unfixed load keeps it."""
    folder = copy_release(cv3_dir, tmp_path / "cv3", link_weights=False)  # our own file: others may map theirs
    path = str((folder / "flow.pt").resolve())

    def mappings() -> int:
        return sum(path in line for line in Path("/proc/self/maps").read_text().splitlines())

    fixed = load_flow(load_model_config(folder), fixed=DRAFT_FLOW)
    assert mappings() == 1
    plain = load_flow(load_model_config(folder))  # the control: a second load maps the file again
    assert mappings() == 2
    del fixed, plain


def test_fixed_load_of_a_legacy_checkpoint(tmp_path: Path, cv3_dir: Path, plain: FlowModel) -> None:
    """A flow.pt in torch's old (not zip) format is read in whole once; same numbers."""
    folder = copy_release(cv3_dir, tmp_path / "cv3")
    (folder / "flow.pt").unlink()
    sd = torch.load(cv3_dir / "flow.pt", map_location="cpu", weights_only=True)
    torch.save(sd, folder / "flow.pt", _use_new_zipfile_serialization=False)
    fixed = load_flow(load_model_config(folder), fixed=DRAFT_FLOW)
    for want, got in zip(_calls(plain, DRAFT_FLOW), _calls(fixed, DRAFT_FLOW), strict=True):
        assert torch.equal(got, want)


def test_draft_loads_its_flow_fixed(cv3_dir: Path) -> None:
    exact, fast, draft = (quality_options(q, "cpu") for q in ("exact", "fast", "draft"))
    assert draft.fixed_flow and not fast.fixed_flow and not exact.fixed_flow
    model = CosyModel.load(cv3_dir, device="cpu", fixed_flow=draft.flow)
    flow = model.flow
    apply_load_options(model, PerfOptions(flow=draft.flow, fixed_flow=True))  # the engine's next step
    assert model.flow is flow and flow.fixed_settings == draft.flow
    with pytest.raises(ValueError, match="loaded for"):
        apply_load_options(model, PerfOptions(fixed_flow=True))  # the exact flow on a draft-fixed one
    later = CosyModel.load(cv3_dir, device="cpu")
    apply_load_options(later, PerfOptions(flow=draft.flow, fixed_flow=True))  # a model loaded unfixed
    assert later.flow.fixed_settings == draft.flow and later.flow.time_modules() == {}


def test_a_cached_stream_of_a_fixed_flow_keeps_its_cache_checks(cv3_dir: Path) -> None:
    fixed = load_flow(load_model_config(cv3_dir), fixed=DRAFT_FLOW)
    tok, pt, feat, emb = _inputs()
    cache = FlowCache()
    fixed.inference_cached(tok[:, :23], pt, feat, emb, cache=cache, finalize=False, n_steps=4, cfg_rate=0.0)
    with pytest.raises(ValueError, match="4 steps"):  # the cache's own check comes first
        fixed.inference_cached(tok, pt, feat, emb, cache=cache, finalize=True)


def test_draft_engine_makes_the_audio_of_an_unfixed_flow(tiny_cv3_model: Path, espeak_wav: Path) -> None:
    """The engine in draft (flow fixed at load) against the same options with the flow's weights kept."""
    from cosycore.engine import Engine, SynthesisRequest

    draft = Engine(tiny_cv3_model, device="cpu", quality="draft")
    assert draft.perf.fixed_flow and draft.model.flow.fixed_settings == draft.perf.flow
    unfixed = Engine(tiny_cv3_model, device="cpu", perf=replace(draft.perf, fixed_flow=False))
    assert unfixed.model.flow.fixed_settings is None and unfixed.model.flow.time_modules()
    voice = draft.create_voice(espeak_wav, name="v", transcript="")
    req = SynthesisRequest(text="Hello there, this is a test of the modes.", mode="cross_lingual", voice=voice,
                           stream=True, seed=3, min_tokens=60, max_tokens=60)
    audio = [np.concatenate([c.samples for c in e.synthesize(req)]) for e in (draft, unfixed, draft)]
    assert audio[0].size and np.array_equal(audio[0], audio[1]) and np.array_equal(audio[0], audio[2])
