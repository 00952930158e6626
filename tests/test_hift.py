"""HiFT vocoders (CosyVoice2 ``HiFTGenerator``, Fun-CosyVoice3 ``CausalHiFTGenerator``) against the
original's recorded numbers in ``reference/hift.npz``, plus the streaming glue and its invariants.

Tolerances follow the conformance README: f0 1e-3 / 1e-4, source and speech (given the recorded
source) 1e-4 absolute. The CosyVoice3 fixed noise must match exactly.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from cosycore.config import ModelConfig, load_model_config
from cosycore.conformance.checks import format_results
from cosycore.conformance.vocoder import check_hift_reference
from cosycore.errors import StateDictMismatchError
from cosycore.vocoder.hift import CausalHiFTGenerator, HiFTGenerator
from cosycore.vocoder.load import build_hift, load_hift
from cosycore.vocoder.nsf import CausalNoiseBank, CausalNoiseRecipe, NsfNoise
from cosycore.vocoder.stream import CausalHiftReferenceStream, CausalHiftStream, HiftStreamV2
from cosycore.weights import assign_state_dict, load_checkpoint, normalize_keys

pytestmark = pytest.mark.conformance

STEP_TOL = 1e-5  # incremental CosyVoice3 stream against the release's re-run-everything stream


@pytest.fixture(scope="module", autouse=True)
def _single_thread():
    """The tiny vocoders are faster on one thread, and on a shared 2-core machine intra-op thread
    synchronisation made these tests up to 20x slower. Restored afterwards."""
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def _ref(model_dir: Path) -> dict[str, np.ndarray]:
    with np.load(model_dir / "reference" / "hift.npz") as z:
        return {k: z[k] for k in z.files}


@pytest.fixture(scope="module")
def cfg2(cv2_dir: Path) -> ModelConfig:
    return load_model_config(cv2_dir)


@pytest.fixture(scope="module")
def cfg3(cv3_dir: Path) -> ModelConfig:
    return load_model_config(cv3_dir)


@pytest.fixture(scope="module")
def hift2(cfg2: ModelConfig) -> HiFTGenerator:
    model = load_hift(cfg2)
    assert isinstance(model, HiFTGenerator)
    return model


@pytest.fixture(scope="module")
def hift3(cfg3: ModelConfig) -> CausalHiFTGenerator:
    model = load_hift(cfg3)
    assert isinstance(model, CausalHiFTGenerator)
    return model


@pytest.fixture(scope="module")
def ref2(cv2_dir: Path) -> dict[str, np.ndarray]:
    return _ref(cv2_dir)


@pytest.fixture(scope="module")
def ref3(cv3_dir: Path) -> dict[str, np.ndarray]:
    return _ref(cv3_dir)


def _random_mel(frames: int, seed: int) -> torch.Tensor:
    """A mel with the statistics of the reference mel (mean -8.6, std 4)."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(1, 80, frames, generator=g) * 4.0 - 8.6  # [1, 80, T]


# --------------------------------------------------------------------------------------------
# Reference numbers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", ["cv2", "cv3"])
def test_check_hift_reference_passes(family: str, cv2_dir: Path, cv3_dir: Path) -> None:
    """Every array of hift.npz: f0, f0_upsampled, uv, source, speech, chunk and stream records."""
    model_dir = cv2_dir if family == "cv2" else cv3_dir
    results = check_hift_reference(model_dir, model_dir / "reference" / "hift.npz")
    names = {r.name for r in results}
    expected = (
        {"chunk1.speech_faded", "chunk1.cache_source", "chunk0.speech_emitted"}
        if family == "cv2"
        else {"rand_ini", "sine_noise", "stream_concat[reference]", "stream_concat[incremental]"}
    )
    assert expected <= names
    assert all(r.passed for r in results), format_results(results)


def test_v2_source_and_speech_from_recorded_inputs(hift2: HiFTGenerator, ref2: dict[str, np.ndarray]) -> None:
    """Given the recorded f0 and random draws the source is float32-exact, and decode(mel, recorded
    source) reproduces the speech (the decoder is deterministic)."""
    for p in ("full", "chunk0"):
        noise = NsfNoise(torch.from_numpy(ref2[f"{p}.random1_randn_like"]),
                         torch.from_numpy(ref2[f"{p}.random0_rand"]))
        with torch.inference_mode():
            res = hift2.nsf_source(torch.from_numpy(ref2[f"{p}.f0"]), noise=noise)
            speech = hift2.decode(torch.from_numpy(ref2[f"{p}.mel"]), torch.from_numpy(ref2[f"{p}.source"]))
        np.testing.assert_allclose(res.source.numpy(), ref2[f"{p}.source"], atol=1e-6, rtol=0)
        np.testing.assert_array_equal(res.uv.numpy(), ref2[f"{p}.uv"])
        np.testing.assert_allclose(speech.numpy(), ref2[f"{p}.speech"], atol=1e-6, rtol=0)


def test_v3_chunk0_is_a_prefix_of_the_full_call(hift3: CausalHiFTGenerator,
                                                ref3: dict[str, np.ndarray]) -> None:
    mel = torch.from_numpy(ref3["chunk1.mel"])  # [1, 80, 100]
    n = ref3["chunk0.mel"].shape[2]
    part, source = hift3.inference(mel[:, :, :n], finalize=False)
    full, _ = hift3.inference(mel)
    assert part.shape == (1, 480 * (n - 8)) == ref3["chunk0.speech"].shape
    assert source.shape == (1, 1, 480 * (n - 3))
    assert (part - full[:, : part.shape[1]]).abs().max().item() <= 1e-6


# --------------------------------------------------------------------------------------------
# CosyVoice3 fixed noise
# --------------------------------------------------------------------------------------------


def test_noise_bank_blocks_equal_one_shot_draws(cfg3: ModelConfig, ref3: dict[str, np.ndarray]) -> None:
    """torch's CPU rand is serial, so blocks drawn from saved generator states equal the original's
    one-shot buffer; small blocks make many boundaries fall inside the reference range."""
    recipe = CausalNoiseRecipe.from_model_config(cfg3)
    bank = CausalNoiseBank(recipe, block_rows=997, cached_blocks=3)
    np.testing.assert_array_equal(bank.rand_ini().numpy(), ref3["rand_ini"])
    np.testing.assert_array_equal(bank.rows(0, 48000).numpy(), ref3["sine_noise"])
    np.testing.assert_array_equal(bank.rows(12345, 23456).numpy(), ref3["sine_noise"][:, 12345:23456])
    g = torch.Generator()
    g.set_state(bank._states[0])
    one_shot = torch.rand(1, 150_000, recipe.harmonics, generator=g)  # [1, 150000, H]
    assert torch.equal(bank.rows(140_000, 150_000), one_shot[:, 140_000:])
    assert torch.equal(bank.rows(0, 3), one_shot[:, :3])  # an evicted block, drawn again


def test_noise_bank_release_sizes_match_the_spec() -> None:
    """Spec 2.3 lists the buffer values for the release sizes (flow input 80, f0 cond 512)."""
    recipe = CausalNoiseRecipe(seed=0, cfm_noise_shape=(1, 80, 15000), token_vocab=6561, token_dim=80,
                               spk_embed_dim=192, spk_out=80, f0_in=80, f0_cond=512, f0_classes=1,
                               harmonics=9, samples=7_200_000)
    bank = CausalNoiseBank(recipe)
    expected = [0, 0.1710, 0.1653, 0.1438, 0.7629, 0.6589, 0.0275, 0.4348, 0.0538]
    np.testing.assert_allclose(bank.rand_ini()[0].numpy(), expected, atol=5e-5)
    np.testing.assert_allclose(bank.rows(0, 1)[0, 0, :4].numpy(), [0.9228, 0.4774, 0.8271, 0.2835], atol=5e-5)


def test_loading_does_not_touch_the_global_rng(cfg3: ModelConfig) -> None:
    before = torch.get_rng_state()
    model = load_hift(cfg3)
    assert isinstance(model, CausalHiFTGenerator)
    bank = CausalNoiseBank(model.noise_bank.recipe)  # a fresh bank: replays the draws now
    bank.rows(0, 10)
    assert torch.equal(before, torch.get_rng_state())


# --------------------------------------------------------------------------------------------
# NSF source: the frame-rate shortcut is exact
# --------------------------------------------------------------------------------------------


def _literal_sine_source(model: HiFTGenerator | CausalHiFTGenerator, f0: torch.Tensor, noise: torch.Tensor,
                         rand_ini: torch.Tensor) -> torch.Tensor:
    """Spec 2.3 step by step on per-sample tensors (the original's SineGen2 + SourceModuleHnNSF)."""
    p = model.nsf
    f0s = f0.float().repeat_interleave(p.upsample, dim=1)[:, :, None]  # [B, L, 1]
    fn = f0s * torch.arange(1, p.harmonics + 1, dtype=torch.float32)  # [B, L, H]
    rad = (fn / p.sampling_rate) % 1
    rad[:, 0, :] = rad[:, 0, :] + rand_ini
    rad = F.interpolate(rad.transpose(1, 2), scale_factor=1 / p.upsample, mode="linear").transpose(1, 2)
    phase = torch.cumsum(rad, dim=1) * 2 * math.pi  # [B, T, H]
    mode = "nearest" if model.causal else "linear"
    phase = F.interpolate(phase.transpose(1, 2) * p.upsample, scale_factor=float(p.upsample), mode=mode)
    sines = torch.sin(phase.transpose(1, 2)) * p.sine_amp  # [B, L, H]
    uv = (f0s > p.voiced_threshold).float()
    amp = uv * p.noise_std + (1 - uv) * p.sine_amp / 3
    waves = sines * uv + amp * noise
    return torch.tanh(model.m_source.l_linear(waves)).transpose(1, 2)  # [B, 1, L]


@pytest.mark.parametrize("family", ["cv2", "cv3"])
def test_nsf_frame_rate_shortcut_is_exact(family: str, hift2: HiFTGenerator,
                                          hift3: CausalHiFTGenerator) -> None:
    """Our frame-rate sine generator against spec 2.3 done literally per sample: bit-exact for v2;
    for v3 within 1e-7 (sin is taken per frame rather than per sample, so vectorised and scalar
    sin paths can differ in the last bit)."""
    model = hift2 if family == "cv2" else hift3
    g = torch.Generator().manual_seed(11)
    t = 60
    f0 = torch.rand(2, t, generator=g) * 400  # [2, T] Hz, some frames below the 10 Hz threshold
    f0[:, ::7] = 3.0
    with torch.inference_mode():
        if isinstance(model, HiFTGenerator):
            noise = NsfNoise.draw(2, 480 * t, 9, device="cpu", generator=g)
            ours = model.nsf_source(f0, noise=noise).source
            literal = _literal_sine_source(model, f0, noise.sine, noise.rand_ini)
        else:
            ours = model.nsf_source(f0).source
            literal = _literal_sine_source(model, f0, model.noise_bank.rows(0, 480 * t),
                                           model.noise_bank.rand_ini())
    assert (ours - literal).abs().max().item() <= 1e-7


def test_v3_source_continues_bit_exactly_across_chunks(hift3: CausalHiFTGenerator) -> None:
    """The phase sum is carried in float64 and the noise is read at absolute positions."""
    f0 = hift3.predict_f0(_random_mel(300, 5)).float()
    with torch.inference_mode():
        whole = hift3.nsf_source(f0).source
        parts, phase, start = [], None, 0
        for n in (37, 100, 163):
            res = hift3.nsf_source(f0[:, start : start + n], start_frame=start, phase=phase)
            parts.append(res.source)
            phase, start = res.phase_end, start + n
    assert torch.equal(torch.cat(parts, dim=2), whole)


# --------------------------------------------------------------------------------------------
# CosyVoice2 randomness and streaming glue
# --------------------------------------------------------------------------------------------


def test_v2_nsf_noise_equals_the_original_recorded_draw() -> None:
    """``NsfNoise.draw`` against the original's own draw (``tests/data/nsf_noise_original.npz``, made
    by ``tests/data/record_nsf_noise.py`` from the original's ``SourceModuleHnNSF``): the original
    draws its sine noise with ``randn_like`` on a transposed [B, 9, L] view, so a plain
    ``randn(B, L, 9)`` gives other numbers and leaves the generator elsewhere."""
    with np.load(Path(__file__).parent / "data" / "nsf_noise_original.npz") as z:
        rec = {k: z[k] for k in z.files}
    b, n, h = rec["sine"].shape
    g = torch.Generator().manual_seed(int(rec["seed"]))
    noise = NsfNoise.draw(b, n, h, device="cpu", generator=g)
    assert noise.rand_ini is not None and noise.branch is not None
    assert torch.equal(noise.rand_ini, torch.from_numpy(rec["rand_ini"]))
    assert torch.equal(noise.sine, torch.from_numpy(rec["sine"]))
    assert torch.equal(noise.branch, torch.from_numpy(rec["branch"]))
    assert torch.equal(torch.rand(8, generator=g), torch.from_numpy(rec["after"]))
    plain = torch.Generator().manual_seed(int(rec["seed"]))
    torch.rand(b, h, generator=plain)
    assert not torch.equal(torch.randn(b, n, h, generator=plain), noise.sine)  # the old layout differs


def test_v2_draw_order_matches_the_original(hift2: HiFTGenerator, ref2: dict[str, np.ndarray]) -> None:
    """With no generator the draws come from the global RNG in the order rand(B, 9), N(0, 1) into a
    [B, 9, L] tensor seen as [B, L, 9], randn(B, L, 1), so ``manual_seed(k)`` before a call
    reproduces the original's call."""
    mel = torch.from_numpy(ref2["chunk0.mel"])
    n = 480 * mel.shape[2]
    torch.manual_seed(1234)
    r0 = torch.rand(1, 9)
    r0[:, 0] = 0
    r1 = torch.empty(1, 9, n).transpose(1, 2).normal_()
    r2 = torch.randn(1, n, 1)
    after_manual = torch.rand(1)
    torch.manual_seed(1234)
    speech_global, _ = hift2.inference(mel)
    after_call = torch.rand(1)
    speech_given, _ = hift2.inference(mel, noise=NsfNoise(r1, r0, r2))
    assert torch.equal(after_manual, after_call)
    assert torch.equal(speech_global, speech_given)


def test_v2_generator_is_reproducible_and_private(hift2: HiFTGenerator, ref2: dict[str, np.ndarray]) -> None:
    mel = torch.from_numpy(ref2["chunk0.mel"])
    state = torch.get_rng_state()
    a, _ = hift2.inference(mel, generator=torch.Generator().manual_seed(7))
    b, _ = hift2.inference(mel, generator=torch.Generator().manual_seed(7))
    c, _ = hift2.inference(mel, generator=torch.Generator().manual_seed(8))
    assert torch.equal(a, b)
    assert not torch.equal(a, c)
    assert torch.equal(state, torch.get_rng_state())


def test_v2_stream_lengths_and_seams(hift2: HiFTGenerator, ref2: dict[str, np.ndarray]) -> None:
    """The crossfaded stream has the full length and no seam jump larger than the waveform's own
    largest sample-to-sample step."""
    mel = torch.from_numpy(ref2["full.mel"])  # [1, 80, 100]
    stream = HiftStreamV2(hift2, torch.Generator().manual_seed(3))
    bounds = [(0, 30, False), (30, 60, False), (60, 100, True)]
    chunks = [stream.push_tensor(mel[:, :, a:b], finalize=fin) for a, b, fin in bounds]
    assert [c.shape[1] for c in chunks] == [480 * 30 - 3840, 480 * 30, 480 * 40 + 3840]
    assert stream.cache is None and stream.finished
    wave = torch.cat(chunks, dim=1)[0]
    steps = (wave[1:] - wave[:-1]).abs()  # steps[i] = |wave[i + 1] - wave[i]|
    seams = np.cumsum([c.shape[1] for c in chunks[:-1]]) - 1
    inner = steps.clone()
    inner[seams] = 0
    assert steps[seams].max() <= inner.max()
    with pytest.raises(RuntimeError):
        stream.push_tensor(mel[:, :, :10], finalize=True)


# --------------------------------------------------------------------------------------------
# CosyVoice3 incremental streaming
# --------------------------------------------------------------------------------------------


def _run_streams(hift: CausalHiFTGenerator, mel: torch.Tensor, sizes: list[int],
                 context: int | None = None) -> list[tuple[torch.Tensor, torch.Tensor]]:
    ref, inc = CausalHiftReferenceStream(hift), CausalHiftStream(hift)
    if context is not None:
        inc.context = context
    out, start = [], 0
    for k, n in enumerate(sizes):
        fin = k == len(sizes) - 1
        chunk = mel[:, :, start : start + n]
        out.append((ref.push_tensor(chunk, finalize=fin), inc.push_tensor(chunk, finalize=fin)))
        start += n
    return out


def test_v3_incremental_stream_equals_reference_stream(hift3: CausalHiFTGenerator) -> None:
    mel = _random_mel(400, 21)
    sizes = [5, 50, 2, 100, 140, 103]  # includes chunks shorter than the 8-frame hold-back
    pairs = _run_streams(hift3, mel, sizes)
    for k, (r, i) in enumerate(pairs):
        assert r.shape == i.shape, k
        if r.numel():
            assert (r - i).abs().max().item() <= STEP_TOL, k
    assert pairs[0][1].numel() == 0
    total = torch.cat([i for _, i in pairs], dim=1)
    whole, _ = hift3.inference(mel)
    assert total.shape == whole.shape
    assert (total - whole).abs().max().item() <= STEP_TOL


def test_v3_stream_keeps_bounded_state(hift3: CausalHiFTGenerator) -> None:
    mel = _random_mel(300, 4)
    stream = CausalHiftStream(hift3)
    for start in range(0, 250, 50):
        stream.push_tensor(mel[:, :, start : start + 50], finalize=False)
    assert stream.mel is not None and stream.source is not None
    assert stream.mel.shape[2] <= stream.context + hift3.holdback_frames
    assert stream.source.shape[2] <= 480 * (stream.context + hift3.holdback_frames)


def test_v3_decoder_context_covers_its_receptive_field(hift3: CausalHiFTGenerator) -> None:
    """Gradient of one late output sample: no input left of the context window influences it."""
    frames, ctx = 80, hift3.decoder_context_frames
    mel = _random_mel(frames, 9).requires_grad_(True)
    source = (torch.rand(1, 1, 480 * frames) - 0.5).requires_grad_(True)
    target = 480 * (frames - 4)
    hift3.decode(mel, source)[0, target].backward()
    assert mel.grad is not None and source.grad is not None
    first_frame = int(torch.nonzero(mel.grad.abs().sum(1)[0])[0])
    first_sample = int(torch.nonzero(source.grad[0, 0])[0])
    reach = target - min(480 * first_frame, first_sample)
    assert 0 < reach <= 480 * ctx, (reach, ctx)


def test_v3_too_little_context_is_detected(hift3: CausalHiFTGenerator) -> None:
    """Negative control: a context shorter than the receptive field changes the output."""
    pairs = _run_streams(hift3, _random_mel(200, 2), [60, 60, 80], context=3)
    assert max((r - i).abs().max().item() for r, i in pairs if r.numel()) > 1e-3


# --------------------------------------------------------------------------------------------
# Loading: strict keys, meta construction, weight-norm forms, folding
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", ["cv2", "cv3"])
def test_meta_build_matches_checkpoint_keys(family: str, cfg2: ModelConfig, cfg3: ModelConfig) -> None:
    cfg = cfg2 if family == "cv2" else cfg3
    sd = load_checkpoint(cfg.model_dir / "hift.pt")
    with torch.device("meta"):
        model = build_hift(cfg)
    assert set(model.state_dict()) == set(sd) and len(sd) == 328
    assign_state_dict(model, normalize_keys(sd, "hift"), "hift.pt")
    assert not any(t.is_meta for t in model.state_dict().values())
    other = cfg3 if family == "cv2" else cfg2
    with torch.device("meta"):
        wrong = build_hift(other)
    with pytest.raises(StateDictMismatchError):
        assign_state_dict(wrong, sd, "hift.pt")


def _legacy_form(sd: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """weight_g / weight_v keys under a ``generator.`` prefix, as older training files have them."""
    out = {}
    for k, v in sd.items():
        k = k.replace(".parametrizations.weight.original0", ".weight_g")
        k = k.replace(".parametrizations.weight.original1", ".weight_v")
        out["generator." + k] = v.clone()
    return out


@pytest.mark.parametrize("family", ["cv2", "cv3"])
def test_legacy_weight_norm_keys_give_identical_output(family: str, tmp_path: Path, cfg2: ModelConfig,
                                                       cfg3: ModelConfig) -> None:
    cfg = cfg2 if family == "cv2" else cfg3
    torch.save(_legacy_form(load_checkpoint(cfg.model_dir / "hift.pt")), tmp_path / "hift.pt")
    legacy_cfg = dataclasses.replace(cfg, model_dir=tmp_path)
    mel = _random_mel(30, 1)
    source = torch.rand(1, 1, 480 * 30) - 0.5
    for fold in (False, True):
        a, b = load_hift(cfg, fold=fold), load_hift(legacy_cfg, fold=fold)
        with torch.inference_mode():
            assert torch.equal(a.decode(mel, source), b.decode(mel, source))


@pytest.mark.parametrize("family", ["cv2", "cv3"])
def test_folding_weight_norm_changes_output_by_less_than_1e6(family: str, cfg2: ModelConfig,
                                                             cfg3: ModelConfig) -> None:
    cfg = cfg2 if family == "cv2" else cfg3
    plain, folded = load_hift(cfg, fold=False), load_hift(cfg, fold=True)
    assert not any("parametrizations" in k for k in folded.state_dict())
    n_weights = sum(p.numel() for p in plain.parameters()) - sum(
        g.numel() for k, g in plain.named_parameters() if k.endswith("original0"))
    assert sum(p.numel() for p in folded.parameters()) == n_weights  # folded weights stay Parameters
    mel = _random_mel(40, 3)
    source = torch.rand(1, 1, 480 * 40) - 0.5
    with torch.inference_mode():
        assert (plain.decode(mel, source) - folded.decode(mel, source)).abs().max().item() <= 1e-6
        f0_a, f0_b = plain.predict_f0(mel), folded.predict_f0(mel)
    assert (f0_a - f0_b).abs().max().item() <= 1e-6 * max(1.0, f0_a.abs().max().item())
