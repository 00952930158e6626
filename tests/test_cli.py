"""``python -m cosycore`` end to end on the tiny models: synth in every mode, voices, info, exit codes."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from cosycore.__main__ import CliIO, main

pytestmark = pytest.mark.usefixtures("single_thread")

REPO = Path(__file__).resolve().parents[1]
TEXT = "Hello there, this is a short test."


class _Stdin(io.StringIO):
    def isatty(self) -> bool:  # what a terminal with nothing piped in says
        return self._tty

    def __init__(self, text: str = "", tty: bool = False) -> None:
        super().__init__(text)
        self._tty = tty


def run(argv: list[str], stdin: str = "", tty: bool = False) -> tuple[int, str, str, bytes]:
    """main(argv) in-process; (exit code, stdout, stderr, raw stdout bytes)."""
    out, err, raw = io.StringIO(), io.StringIO(), io.BytesIO()
    code = main(argv, CliIO(_Stdin(stdin, tty), out, raw, err))
    return code, out.getvalue(), err.getvalue(), raw.getvalue()


def _check_wav(path: Path, *, min_seconds: float = 0.1) -> np.ndarray:
    info = sf.info(str(path))
    assert info.samplerate == 24000 and info.channels == 1 and info.format == "WAV"
    audio, _ = sf.read(str(path), dtype="float32")
    assert audio.size / 24000 >= min_seconds and np.abs(audio).max() > 1e-3 and np.isfinite(audio).all()
    return audio


@pytest.fixture(scope="module")
def short_prompt(espeak_wav: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 2.5 s of the espeak clip ("The quick brown fox…"): a short prompt keeps the flow quick."""
    audio, sr = sf.read(str(espeak_wav), dtype="float32")
    path = tmp_path_factory.mktemp("prompt") / "fox.wav"
    sf.write(str(path), audio[: int(2.5 * sr)], sr, subtype="PCM_16")
    return path


@pytest.fixture(scope="module", params=["cosyvoice2", "cosyvoice3"])
def model(request) -> Path:
    return request.getfixturevalue("tiny_cv2_model" if request.param == "cosyvoice2" else "tiny_cv3_model")


MODE_ARGS = {
    "zero_shot": ["--mode", "zero_shot", "--prompt-text", "The quick brown fox"],
    "cross_lingual": ["--mode", "cross_lingual"],
    "instruct": ["--mode", "instruct", "--instruct", "Please speak very happily."],
}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("mode", ["zero_shot", "cross_lingual", "instruct"])
def test_synth_every_mode(model: Path, short_prompt: Path, tmp_path: Path, mode: str, stream: bool) -> None:
    out = tmp_path / "out.wav"
    argv = ["synth", "--model", str(model), "--device", "cpu", "--text", TEXT, "--prompt-wav", str(short_prompt),
            *MODE_ARGS[mode], "--seed", "1", "--min-tokens", "60", "--max-tokens", "60", "--out", str(out)]
    code, _, err, _ = run(argv + (["--stream"] if stream else []))
    assert code == 0, err
    audio = _check_wav(out, min_seconds=1.0)
    assert audio.size <= 60 * 960  # 60 tokens at most, two 480-sample frames each
    chunks = int(re.search(r"(\d+) chunks?, ", err).group(1))  # the progress summary line
    assert (chunks >= 2 if stream else chunks == 1) and "RTF" in err


def test_voice_library_and_synth_from_a_saved_voice(model: Path, short_prompt: Path, tmp_path: Path) -> None:
    lib = ["--voices-dir", str(tmp_path / "voices")]
    code, out, err, _ = run(["voice", "add", "Fox", *lib, "--model", str(model), "--device", "cpu",
                             "--prompt-wav", str(short_prompt), "--prompt-text", "The quick brown fox",
                             "--language", "en"])
    assert code == 0, err
    assert "saved voice 'Fox'" in out
    code, out, _, _ = run(["voice", "list", *lib])
    assert code == 0 and out.startswith("Fox\t") and "The quick brown fox" in out
    code, out, _, _ = run(["voice", "show", "fox", *lib])
    assert code == 0 and "transcript:    The quick brown fox" in out
    wav = tmp_path / "voice.wav"
    for stream in ([], ["--stream"]):
        code, _, err, _ = run(["synth", "--model", str(model), "--device", "cpu", "--voice", "Fox", *lib,
                               "--text", TEXT, "--seed", "2", "--max-tokens", "40", "--out", str(wav), *stream])
        assert code == 0, err
        _check_wav(wav)
    code, out, _, _ = run(["voice", "remove", "Fox", *lib])
    assert code == 0 and "removed" in out
    code, _, err, _ = run(["voice", "show", "Fox", *lib])
    assert code == 2 and "no saved voice called 'Fox'" in err


def test_cv3_with_an_instruct_preset_and_raw_pcm(tiny_cv3_model: Path, short_prompt: Path) -> None:
    code, _, err, raw = run(["synth", "--model", str(tiny_cv3_model), "--device", "cpu", "--preset",
                             "emotion.happy", "--prompt-wav", str(short_prompt), "--seed", "3", "--max-tokens",
                             "40", "--out", "-"], stdin=TEXT)
    assert code == 0, err
    pcm = np.frombuffer(raw, dtype="<f4")
    assert len(raw) % 4 == 0 and pcm.size > 0 and np.isfinite(pcm).all() and np.abs(pcm).max() <= 1.0


def test_stdin_stream_is_bistream(tiny_cv2_model: Path, short_prompt: Path, tmp_path: Path) -> None:
    out = tmp_path / "live.flac"
    lines = "Hello there,\nthis arrives\nline by line.\n"
    code, _, err, _ = run(["synth", "--model", str(tiny_cv2_model), "--device", "cpu", "--mode", "cross_lingual",
                           "--prompt-wav", str(short_prompt), "--stdin-stream", "--stream", "--seed", "1",
                           "--max-tokens", "50", "--out", str(out)], stdin=lines)
    assert code == 0, err
    assert sf.info(str(out)).format == "FLAC" and sf.info(str(out)).samplerate == 24000


def test_a_real_subprocess_writes_a_wav(tiny_cv2_model: Path, short_prompt: Path, tmp_path: Path) -> None:
    out = tmp_path / "sub.wav"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    res = subprocess.run(
        [sys.executable, "-m", "cosycore", "synth", "--model", str(tiny_cv2_model), "--device", "cpu",
         "--mode", "zero_shot", "--prompt-wav", str(short_prompt), "--prompt-text", "The quick brown fox",
         "--text", TEXT, "--seed", "1", "--max-tokens", "40", "--stream", "--out", str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )
    assert res.returncode == 0, res.stderr
    _check_wav(out)
    assert "RTF" in res.stderr


# ---- exit codes and messages -----------------------------------------------------------------


def test_usage_and_input_errors_exit_2(tiny_cv2_model: Path, short_prompt: Path, tmp_path: Path) -> None:
    base = ["synth", "--model", str(tiny_cv2_model), "--device", "cpu"]
    out = ["--out", str(tmp_path / "o.wav")]
    prompt = ["--prompt-wav", str(short_prompt)]
    cases = [
        ([*base, *out, "--text", TEXT, *prompt], "--prompt-text"),
        ([*base, *out, *prompt, "--mode", "cross_lingual"], "no text given"),
        ([*base, *out, "--text", "!!!", *prompt, "--mode", "cross_lingual"], "nothing to speak"),
        ([*base, *out, "--text", TEXT, "--mode", "cross_lingual"], "needs a voice to imitate"),
        ([*base, *out, "--text", TEXT, "--preset", "no.such", *prompt], "no cosyvoice2 instruct preset 'no.such'"),
        ([*base, *out, "--text", TEXT, "--preset", "emotion.happy", "--preset", "emotion.sad", *prompt],
         "choose one per group"),
        ([*base, *out, "--text", TEXT, "--preset", "volume.loud", *prompt], "no cosyvoice2 instruct preset"),
        ([*base, "--out", str(tmp_path / "o.mp3"), "--text", TEXT, *prompt, "--mode", "cross_lingual"],
         "must end in .wav or .flac"),
        ([*base, *out, "--text", TEXT, "--voice", str(tmp_path / "missing.cosyvoice")], "does not exist"),
        ([*base, *out, "--text", TEXT, "--mode", "shouting"], "invalid choice"),
    ]
    for argv, message in cases:
        code, _, err, _ = run(argv, tty=True)
        assert code == 2, (argv, err)
        assert message in err, (message, err)
    assert not (tmp_path / "o.wav").exists()  # nothing half-written


def test_a_1mb_text_file_is_refused_with_a_way_forward(tiny_cv2_model: Path, short_prompt: Path,
                                                      tmp_path: Path) -> None:
    big = tmp_path / "book.txt"
    big.write_text("All work and no play makes Jack a dull boy. " * 23831, encoding="utf-8")
    assert big.stat().st_size >= 1_000_000
    code, _, err, _ = run(["synth", "--model", str(tiny_cv2_model), "--text-file", str(big), "--mode",
                           "cross_lingual", "--prompt-wav", str(short_prompt), "--out", str(tmp_path / "b.wav")])
    assert code == 2
    assert "at most 200,000" in err and "Split it into parts" in err and "--max-chars" in err


def test_bad_prompt_file_exits_2_and_model_errors_exit_3(tiny_cv2_model: Path, tmp_path: Path) -> None:
    fake = tmp_path / "fake.wav"
    fake.write_bytes(b"definitely not a RIFF file" * 100)
    code, _, err, _ = run(["synth", "--model", str(tiny_cv2_model), "--device", "cpu", "--text", TEXT,
                           "--mode", "cross_lingual", "--prompt-wav", str(fake), "--out", str(tmp_path / "x.wav")])
    assert code == 2 and "fake.wav" in err
    assert not (tmp_path / "x.wav").exists()
    keep = tmp_path / "keep.wav"
    keep.write_bytes(b"an older take")
    code, _, _, _ = run(["synth", "--model", str(tiny_cv2_model), "--device", "cpu", "--text", TEXT,
                         "--mode", "cross_lingual", "--prompt-wav", str(fake), "--out", str(keep)])
    assert code == 2 and keep.read_bytes() == b"an older take"  # a failure before any audio keeps it
    code, _, err, _ = run(["info", "--model", str(tmp_path / "no-model-here")])
    assert code == 3 and "could not be loaded" in err


def test_info_and_presets(tiny_cv3_model: Path) -> None:
    code, out, err, _ = run(["info", "--model", str(tiny_cv3_model), "--device", "cpu"])
    assert code == 0, err
    assert "Fun-CosyVoice3 (cosyvoice3)" in out and "24000 Hz" in out and "llm:" in out and "parameters" in out
    assert "text reading: original" in out  # exact mode reads text as the original
    code, out, err, _ = run(["info", "--model", str(tiny_cv3_model), "--device", "cpu", "--text-reading", "improved"])
    assert code == 0 and "text reading: improved" in out, err
    code, _, err, _ = run(["info", "--model", str(tiny_cv3_model), "--text-reading", "fancy"])
    assert code == 2 and "--text-reading" in err
    code, out, _, _ = run(["instruct-presets", "--family", "cosyvoice3"])
    lines = out.splitlines()
    assert code == 0 and lines[0] == "cosyvoice3"
    groups = [line.strip() for line in lines if line.startswith("  ") and not line.startswith("    ")]
    assert groups[:5] == ["Dialect", "Emotion", "Speed", "Volume", "Role play"]
    assert sum(1 for line in lines if line.startswith("    ") and "." in line.split()[0]) == 26
    assert "    emotion.happy         请非常开心地说一句话。  (Please say a sentence very happily.)" in lines
    assert "  The LM receives: You are a helpful assistant. <instruction><|endofprompt|><text>" in lines
    code, out, _, _ = run(["instruct-presets", "--family", "cosyvoice2"])
    assert code == 0 and "(none documented for this model)" in out and "role.peppa_pig" in out
    assert "  The LM receives: <instruction><|endofprompt|><text>" in out.splitlines()


def test_repeated_presets_combine_in_group_order(tiny_cv3_model: Path, short_prompt: Path) -> None:
    from cosycore.__main__ import build_parser
    from cosycore.cli.synth import _request

    args = build_parser().parse_args(["synth", "--model", str(tiny_cv3_model), "--preset", "emotion.happy",
                                      "--preset", "dialect.cantonese", "--prompt-wav", str(short_prompt),
                                      "--out", "-"])
    request = _request(args, TEXT)
    assert request.mode == "instruct" and request.instruct_text == "请用广东话表达。请非常开心地说一句话。"


def test_conformance_is_delegated(tmp_path: Path) -> None:
    code, _, _, _ = run(["conformance", str(tmp_path / "nothing")])
    assert code == 2  # cosycore.conformance's own "not a folder" error
