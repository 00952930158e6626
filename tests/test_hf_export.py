"""The Hugging Face export of the speech LM, loaded by transformers on the CPU, against SpeechLM.

Equivalence tests: the export's ``Qwen2ForCausalLM`` logits plus the exported logit bias equal
``SpeechLM.logits`` (float32, atol 1e-5) on the prompt and on decode steps through the KV cache,
for both families, with the prompt fed as embeddings and (text rows exported) as ids. The vLLM
backend's per-request picker driven by the export picks the same tokens as ``SpeechLM.generate``.
vLLM itself is not needed (nor installed here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from cosycore.config import LLMConfig, QwenConfig, load_model_config
from cosycore.errors import ConfigError, InputError, ModelLoadError, ModelNotFoundError, StorageError
from cosycore.lm.hf_export import (
    LAYOUT_FILE,
    WEIGHTS_FILE,
    ExportLayout,
    cached_export,
    export_hf,
    read_export,
    read_logit_bias,
)
from cosycore.lm.load import load_llm
from cosycore.lm.sampling import RasSampler, greedy_sampler
from cosycore.lm.speech_lm import SpeechLM
from tests.conftest import copy_release

pytestmark = pytest.mark.usefixtures("single_thread")

ATOL = 1e-5
TEXT = [11, 22, 33, 44, 55, 66]
PROMPT_TEXT = [101, 102, 151646]  # CosyVoice3 needs <|endofprompt|> somewhere in the text
PROMPT_SPEECH = [5, 600, 6000, 42]
DECODE = [17, 3, 6560, 250]  # speech ids fed back one at a time


@pytest.fixture(scope="module")
def qwen2_cls() -> Any:
    transformers = pytest.importorskip(
        "transformers", reason="transformers is not installed (it is in the dev extra: pip install -e '.[dev]')"
    )
    return transformers.Qwen2ForCausalLM


@pytest.fixture(scope="module", params=["cosyvoice2", "cosyvoice3"])
def release(request: pytest.FixtureRequest, cv2_dir: Path, cv3_dir: Path) -> Path:
    return cv2_dir if request.param == "cosyvoice2" else cv3_dir


@pytest.fixture(scope="module")
def lm(release: Path) -> SpeechLM:
    return load_llm(load_model_config(release))


def _load_hf(qwen2_cls: Any, path: Path) -> Any:
    model, info = qwen2_cls.from_pretrained(str(path), output_loading_info=True)
    assert not info["missing_keys"] and not info["unexpected_keys"], info
    return model.eval()


def _max_diff(hf_logits: torch.Tensor, bias: torch.Tensor, ours: torch.Tensor, layout: ExportLayout) -> float:
    """Largest |hf + bias - ours| on the speech ids; the other ids must be -inf after the bias."""
    vs = layout.speech_vocab_size
    full = hf_logits.float() + bias  # [.., Vx]
    assert torch.isneginf(full[..., vs:]).all()
    return float((full[..., :vs] - ours).abs().max())


@pytest.mark.parametrize("include_text", [False, True], ids=["embeds", "ids"])
def test_export_logits_match_speech_lm(lm: SpeechLM, qwen2_cls: Any, tmp_path: Path, include_text: bool) -> None:
    layout = export_hf(lm, tmp_path / "export", include_text=include_text)
    assert read_export(tmp_path / "export") == layout
    config = json.loads((tmp_path / "export" / "config.json").read_text())
    assert config["architectures"] == ["Qwen2ForCausalLM"] and config["tie_word_embeddings"] is False
    hf = _load_hf(qwen2_cls, tmp_path / "export")
    bias = read_logit_bias(tmp_path / "export")

    with torch.inference_mode():
        lm_input = lm.build_lm_input(TEXT, PROMPT_TEXT, PROMPT_SPEECH)  # [1, T0, D]
        cache = lm.new_cache(lm_input.shape[1] + len(DECODE))
        ours = [lm.logits(lm.extend(lm_input, cache))[0]]  # [T0, V]
        for tok in DECODE:
            ours.append(lm.logits(lm.decode_one_token(lm.speech_embedding.weight[tok : tok + 1], cache)))  # [1, V]

        if include_text:
            ids = torch.tensor([layout.prompt_ids(TEXT, PROMPT_TEXT, PROMPT_SPEECH)])  # [1, T0]
            out = hf(input_ids=ids, use_cache=True)
        else:
            out = hf(inputs_embeds=lm_input, use_cache=True)
        theirs = [out.logits[0]]  # [T0, Vx]
        past = out.past_key_values
        for tok in DECODE:
            out = hf(input_ids=torch.tensor([[tok]]), past_key_values=past, use_cache=True)
            past = out.past_key_values
            theirs.append(out.logits[0])  # [1, Vx]

    diffs = [_max_diff(t, bias, o, layout) for t, o in zip(theirs, ours, strict=True)]
    print(f"{lm.cfg.family} {'ids' if include_text else 'embeds'}: max |logit diff| prefill {diffs[0]:.3g}, "
          f"decode {max(diffs[1:]):.3g}")
    assert max(diffs) <= ATOL, diffs


@pytest.mark.parametrize("family", ["cosyvoice2", "cosyvoice3"])
def test_export_of_a_wider_random_lm(qwen2_cls: Any, tmp_path: Path, family: str) -> None:
    """The release's head layout (head_dim 64, 2 query heads per key/value head), random weights, 40 positions."""
    q = QwenConfig(hidden_size=256, num_layers=2, num_heads=4, num_kv_heads=2, intermediate_size=512,
                   rms_norm_eps=1e-6, rope_theta=1e6, vocab_size=152000, max_position_embeddings=32768)
    cfg = LLMConfig(family=family, qwen=q)  # type: ignore[arg-type]
    torch.manual_seed(0)
    lm = SpeechLM(cfg).eval()
    with torch.no_grad():
        for name, p in lm.named_parameters():
            if name.endswith("bias") or "norm" in name:
                p.normal_(0.0 if name.endswith("bias") else 1.0, 0.1)
    layout = export_hf(lm, tmp_path / "export")
    hf = _load_hf(qwen2_cls, tmp_path / "export")
    bias = read_logit_bias(tmp_path / "export")
    text = [*range(1000, 1030), 151646]
    with torch.inference_mode():
        lm_input = lm.build_lm_input(text, None, PROMPT_SPEECH)  # [1, T0, D]
        cache = lm.new_cache(lm_input.shape[1] + len(DECODE))
        ours = [lm.logits(lm.extend(lm_input, cache))[0]]
        out = hf(inputs_embeds=lm_input, use_cache=True)
        theirs = [out.logits[0]]
        for tok in DECODE:
            ours.append(lm.logits(lm.decode_one_token(lm.speech_embedding.weight[tok : tok + 1], cache)))
            out = hf(input_ids=torch.tensor([[tok]]), past_key_values=out.past_key_values, use_cache=True)
            theirs.append(out.logits[0])
    diffs = [_max_diff(t, bias, o, layout) for t, o in zip(theirs, ours, strict=True)]
    scale = float(torch.cat(ours).abs().max())
    print(f"wider {family}: max |logit diff| {max(diffs):.3g} (logits up to {scale:.3g})")
    assert max(diffs) <= ATOL, diffs


def test_layout_places_the_special_rows(lm: SpeechLM, tmp_path: Path) -> None:
    from safetensors.torch import load_file

    layout = export_hf(lm, tmp_path / "export", include_text=True)
    weights = load_file(str(tmp_path / "export" / WEIGHTS_FILE))
    embed = weights["model.embed_tokens.weight"]
    cfg = lm.cfg
    vs = cfg.speech_vocab_size
    assert layout.vocab_size % 128 == 0 and embed.shape == (layout.vocab_size, cfg.qwen.hidden_size)
    assert torch.equal(embed[:vs], lm.speech_embedding.weight)
    assert torch.equal(embed[layout.sos_id], lm.special_embedding("sos")[0])
    assert torch.equal(embed[layout.task_id_id], lm.special_embedding("task_id")[0])
    assert layout.text_offset is not None
    assert torch.equal(embed[layout.text_offset + 151646], lm.qwen.embed_tokens.weight[151646])
    if cfg.family == "cosyvoice2":
        assert (layout.sos_id, layout.task_id_id, layout.eos_id, layout.text_offset) == (6564, 6565, 6561, 6566)
    else:
        assert (layout.sos_id, layout.task_id_id, layout.eos_id, layout.text_offset) == (6561, 6563, 6562, 6761)
    assert layout.stop_token_ids == tuple(range(6561, vs))


def _drive_export(hf: Any, picker: Any, lm_input: torch.Tensor, max_len: int, stops: set[int]) -> list[int]:
    """What vLLM does with the export: prefill embeddings, let the picker force a token, feed it back."""
    out = hf(inputs_embeds=lm_input, use_cache=True)
    tokens: list[int] = []
    for _ in range(max_len):
        row = picker(list(tokens), out.logits[0, -1].clone())  # [Vx]
        assert int(torch.isfinite(row).sum()) == 1
        tok = int(row.argmax())
        if tok in stops:
            break
        tokens.append(tok)
        out = hf(input_ids=torch.tensor([[tok]]), past_key_values=out.past_key_values, use_cache=True)
    return tokens


@pytest.mark.parametrize("greedy", [False, True], ids=["ras", "greedy"])
def test_vllm_picker_on_the_export_matches_generate(lm: SpeechLM, qwen2_cls: Any, tmp_path: Path,
                                                    greedy: bool) -> None:
    from cosycore.lm.vllm_backend import SpeechTokenPicker, picker_args

    layout = export_hf(lm, tmp_path / "export")
    hf = _load_hf(qwen2_cls, tmp_path / "export")
    bias = read_logit_bias(tmp_path / "export")
    seed, min_len, max_len = 1234, 6, 24
    pick = greedy_sampler if greedy else RasSampler.from_config(lm.cfg)
    picker = SpeechTokenPicker(layout, bias, picker_args(pick, seed=seed, min_len=min_len, eos_rule="all_specials"))
    with torch.inference_mode():
        ours = list(lm.generate(TEXT, PROMPT_TEXT, PROMPT_SPEECH, greedy=greedy, min_len=min_len, max_len=max_len,
                                generator=torch.Generator().manual_seed(seed)))
        theirs = _drive_export(hf, picker, lm.build_lm_input(TEXT, PROMPT_TEXT, PROMPT_SPEECH), max_len,
                               set(layout.stop_token_ids))
    assert len(ours) >= min_len
    assert theirs == ours


def test_partial_or_foreign_folders_are_refused(lm: SpeechLM, tmp_path: Path) -> None:
    out = tmp_path / "export"
    export_hf(lm, out)
    (out / WEIGHTS_FILE).unlink()
    with pytest.raises(ModelNotFoundError, match=r"model\.safetensors is missing"):
        read_export(out)

    export_hf(lm, out)  # an export (even a broken one) is replaced
    assert read_export(out).family == lm.cfg.family
    (out / LAYOUT_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid JSON"):
        read_export(out)
    (out / LAYOUT_FILE).write_text(json.dumps({"format": "something-else"}), encoding="utf-8")
    with pytest.raises(ConfigError, match="not written by cosycore"):
        read_export(out)

    with pytest.raises(ModelNotFoundError, match="does not exist"):
        read_export(tmp_path / "nowhere")

    foreign = tmp_path / "my-files"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(StorageError, match="not a cosycore export"):
        export_hf(lm, foreign)
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")], "a temporary folder was left behind"


def test_cached_export_is_reused_until_llm_pt_changes(cv2_dir: Path, tmp_path: Path) -> None:
    release = copy_release(cv2_dir, tmp_path / "release", link_weights=False)
    cache = tmp_path / "cache"
    first = cached_export(release, cache)
    stamp = (first / LAYOUT_FILE).stat().st_mtime_ns
    assert cached_export(release, cache) == first
    assert (first / LAYOUT_FILE).stat().st_mtime_ns == stamp  # reused, not rewritten
    ckpt = release / "llm.pt"
    st = ckpt.stat()
    os.utime(ckpt, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert cached_export(release, cache) == first
    assert read_export(first).source["mtime_ns"] == st.st_mtime_ns + 10**9


def test_vllm_backend_imports_without_vllm_and_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    code = "import sys, cosycore.lm.vllm_backend, cosycore.perf; print('vllm' in sys.modules)"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[1])
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "False"

    from cosycore.lm import vllm_backend
    from cosycore.perf import PerfOptions, apply_load_options

    with pytest.raises(ModelLoadError, match=r"pip install 'cosy-studio\[vllm\]'"):
        vllm_backend.require_vllm("cpu")
    assert PerfOptions().llm_backend == "torch" and PerfOptions().exact
    assert not PerfOptions(llm_backend="vllm").exact
    with pytest.raises(ModelLoadError, match=r"cosy-studio\[vllm\]"):
        apply_load_options(SimpleNamespace(device=torch.device("cpu"), has_llm=True), PerfOptions(llm_backend="vllm"))  # type: ignore[arg-type]

    # A CUDA machine without the package: the message names the extra.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(vllm_backend.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelLoadError, match=r"needs the vllm package: pip install 'cosy-studio\[vllm\]'"):
        vllm_backend.require_vllm("cuda:0")


def test_picker_refuses_a_custom_sampler() -> None:
    from cosycore.lm.vllm_backend import picker_args

    def my_sampler(scores: torch.Tensor, decoded: Any, generator: torch.Generator) -> int:
        return 0

    with pytest.raises(InputError, match="torch backend"):
        picker_args(my_sampler, seed=0, min_len=0, eos_rule="all_specials")


def test_vllm_speech_lm_hands_the_prompt_and_rules_to_the_runner(lm: SpeechLM, tmp_path: Path) -> None:
    """The glue around vLLM, with a stand-in runner: same weights, the LM's prompt, the request's rules."""
    from cosycore.lm.vllm_backend import VllmSpeechLM

    layout = export_hf(lm, tmp_path / "export")
    seen: dict[str, Any] = {}

    def stream(embeds: torch.Tensor, args: dict[str, Any], *, max_len: int) -> Any:
        seen.update(embeds=embeds, args=args, max_len=max_len)
        yield from (7, 8, 9)

    wrapped = VllmSpeechLM.wrap(lm, SimpleNamespace(layout=layout, stream=stream))  # type: ignore[arg-type]
    assert wrapped.speech_embedding.weight.data_ptr() == lm.speech_embedding.weight.data_ptr()  # shared, not copied
    tokens = list(wrapped.generate(TEXT, PROMPT_TEXT, PROMPT_SPEECH, seed=3, min_len=4, max_len=30))
    assert tokens == [7, 8, 9]
    assert torch.equal(seen["embeds"], lm.build_lm_input(TEXT, PROMPT_TEXT, PROMPT_SPEECH)[0])
    assert seen["max_len"] == 30
    assert seen["args"]["min_len"] == 4 and seen["args"]["eos_rule"] == "all_specials"
    assert seen["args"]["rule"] == {"kind": "ras", "top_p": lm.cfg.top_p, "top_k": lm.cfg.top_k,
                                    "win_size": lm.cfg.win_size, "tau_r": lm.cfg.tau_r}


def test_without_safetensors_the_export_says_which_extra_to_install(
        lm: SpeechLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "safetensors", None)  # makes "import safetensors..." raise ImportError
    monkeypatch.setitem(sys.modules, "safetensors.torch", None)
    with pytest.raises(ModelLoadError, match=r"safetensors.*\.\[vllm\]"):
        export_hf(lm, tmp_path / "export")
    assert not (tmp_path / "export").exists()
    with pytest.raises(ModelLoadError, match=r"\.\[vllm\]"):
        read_logit_bias(tmp_path / "export")
