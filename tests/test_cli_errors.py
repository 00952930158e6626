"""Issue 12 items 5, 11-15 and 19, and typed errors at the engine boundary; each test is named after its input.

Output-file tests use a fake engine (chunks of a sine, then a failure or an interruption), so that
they exercise the CLI's file handling without a model; the engine tests use the tiny models.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
import torch

import cosycore.__main__ as cli
from cosycore.__main__ import CliIO, main
from cosycore.engine import Engine, SynthesisRequest
from cosycore.errors import EngineError, InputError, ModelLoadError, StorageError, UnsafeCheckpointError
from cosycore.frontend.audio_file import read_audio

REPO = Path(__file__).resolve().parents[1]
SR = 24000
OLD = b"RIFF an older take the user wants to keep"


@dataclass
class _Chunk:
    samples: np.ndarray
    warnings: tuple[str, ...] = ()
    timing: float = 0.0
    sentence_index: int = 0
    sentence_text: str = "Hello."
    sample_rate: int = SR

    @property
    def duration(self) -> float:
        return self.samples.size / SR


class FakeEngine:
    """Yields ``chunks`` half-second chunks, then raises ``then`` (or ends)."""

    sample_rate = SR

    def __init__(self, chunks: int = 3, then: BaseException | None = None) -> None:
        self.chunks, self.then = chunks, then

    def synthesize(self, request) -> Iterator[_Chunk]:
        t = np.arange(SR // 2) / SR
        for _ in range(self.chunks):
            yield _Chunk((0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32))
        if self.then is not None:
            raise self.then


def _run(argv: list[str], *, stdout_bytes: io.RawIOBase | io.BufferedIOBase | None = None,
         stdin: io.TextIOBase | None = None) -> tuple[int, str]:
    err = io.StringIO()
    code = main(argv, CliIO(stdin or io.StringIO(""), io.StringIO(), stdout_bytes or io.BytesIO(), err))
    return code, err.getvalue()


def _synth(out: str | Path, *extra: str) -> list[str]:
    return ["synth", "--model", "unused", "--prompt-wav", "unused.wav", "--mode", "cross_lingual",
            "--text", "Hello.", "-q", "--out", str(out), *extra]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch):
    """Install a fake engine; returns a setter for its behaviour."""
    holder: dict[str, FakeEngine] = {"engine": FakeEngine()}
    monkeypatch.setattr(cli, "_load_engine", lambda args, max_chars=None: holder["engine"])

    def use(engine: FakeEngine) -> None:
        holder["engine"] = engine
    return use


@pytest.fixture
def no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to load a model fails the test: the check must come first."""
    def refuse(*_a, **_k):
        raise AssertionError("the model was loaded before the output was checked")
    monkeypatch.setattr(cli, "_load_engine", refuse)


def _siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


# -- item 5: --out onto an existing file ---------------------------------------------------------

def test_out_onto_existing_file_then_engine_error(fake, tmp_path: Path) -> None:
    out = tmp_path / "take.wav"
    out.write_bytes(OLD)
    fake(FakeEngine(chunks=2, then=EngineError("the model broke")))
    code, err = _run(_synth(out))
    assert code == 1 and "the model broke" in err
    assert out.read_bytes() == OLD and _siblings(out) == ["take.wav"]  # no temp file left either


def test_out_onto_existing_file_then_ctrl_c(fake, tmp_path: Path) -> None:
    out = tmp_path / "take.wav"
    out.write_bytes(OLD)
    fake(FakeEngine(chunks=2, then=KeyboardInterrupt()))
    code, err = _run(_synth(out))
    assert code == 130 and "take.wav was not changed" in err
    assert out.read_bytes() == OLD
    partial = tmp_path / "take.partial.wav"
    assert _siblings(out) == ["take.partial.wav", "take.wav"]
    assert sf.info(str(partial)).frames == SR  # the two chunks made so far, as a valid file
    (tmp_path / "take.partial.wav").write_bytes(b"mine")  # an existing .partial is never replaced
    code, _ = _run(_synth(out))
    assert (tmp_path / "take.partial.wav").read_bytes() == b"mine" and (tmp_path / "take.partial-2.wav").exists()


def test_out_success_replaces_and_keeps_permissions(fake, tmp_path: Path) -> None:
    out = tmp_path / "take.flac"
    out.write_bytes(OLD)
    out.chmod(0o640)
    code, err = _run(_synth(out))
    assert code == 0, err
    assert sf.info(str(out)).format == "FLAC" and sf.info(str(out)).frames == 3 * SR // 2
    assert oct(out.stat().st_mode & 0o777) == oct(0o640) and _siblings(out) == ["take.flac"]


def test_out_symlink_to_another_file(fake, tmp_path: Path) -> None:
    victim = tmp_path / "victim.wav"
    victim.write_bytes(OLD)
    link = tmp_path / "link.wav"
    link.symlink_to(victim)
    code, err = _run(_synth(link))
    assert code == 0, err
    assert victim.read_bytes() == OLD  # the link's target is never written
    assert not link.is_symlink() and sf.info(str(link)).frames == 3 * SR // 2


_KILL_SCRIPT = textwrap.dedent("""
    import signal, sys, time
    import numpy as np
    import cosycore.__main__ as cli

    class Slow:
        sample_rate = 24000
        def synthesize(self, request):
            class C:
                samples = np.zeros(2400, np.float32); warnings = (); timing = 0.0; duration = 0.1
                sentence_index = 0; sentence_text = "Hello."; sample_rate = 24000
            while True:
                yield C()
                time.sleep(0.05)

    signal.signal(signal.SIGINT, signal.default_int_handler)  # also when the test run ignores SIGINT
    cli._load_engine = lambda args, max_chars=None: Slow()
    sys.exit(cli.main(sys.argv[1:]))
""")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=lambda s: s.name)
def test_out_when_the_process_gets(sig: signal.Signals, tmp_path: Path) -> None:
    out = tmp_path / "take.wav"
    out.write_bytes(OLD)
    proc = subprocess.Popen([sys.executable, "-c", _KILL_SCRIPT, *_synth(out)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300  # a loaded machine may take minutes to import the child
        while not any(n.endswith(".part") for n in _siblings(out)):  # the take is being written
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()  # first: reading the pipe of a live child would block forever
                _, err = proc.communicate(timeout=30)
                pytest.fail(f"the child never started its take: {err.decode(errors='replace')[-2000:]}")
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(sig)
        proc.wait(60)
    finally:  # whatever happened, the child does not outlive the test
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert out.read_bytes() == OLD  # never a partial take under the final name
    names = _siblings(out)
    if sig == signal.SIGKILL:  # nothing can run: the hidden temporary file stays, the target is intact
        assert next(n for n in names if n != "take.wav").startswith(".take.wav.")
    else:
        assert proc.returncode == 130 and names == ["take.partial.wav", "take.wav"]


# -- item 11: unwritable targets, full disks, short writes ----------------------------------------

def _special_file(path: Path, kind: str) -> Path:
    """A device node (made like /dev/full, char 1:7), a FIFO, a socket or a folder at ``path``."""
    import socket
    import stat as st

    if kind == "dev_full":
        try:
            os.mknod(path, 0o666 | st.S_IFCHR, os.makedev(1, 7))
        except (PermissionError, AttributeError):
            pytest.skip("making a device node needs root; the FIFO and socket cases cover the check")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    else:
        path.mkdir()
    return path


@pytest.mark.parametrize("kind", ["dev_full", "fifo", "socket", "folder"])
def test_srt_onto(no_engine, tmp_path: Path, kind: str) -> None:
    """``--srt /dev/full`` (here a device node like it, made in a temporary folder), a FIFO, a socket,
    a folder: refused before the model loads, and never replaced by a regular file."""
    import stat as st

    target = _special_file(tmp_path / "subs.srt", kind)
    mode = os.lstat(target).st_mode
    code, err = _run(_synth(tmp_path / "take.wav", "--srt", str(target)))
    assert code == 1 and "cannot write" in err and "--srt" in err and "Traceback" not in err
    assert st.S_IFMT(os.lstat(target).st_mode) == st.S_IFMT(mode)


@pytest.mark.parametrize("kind", ["fifo", "socket"])
def test_write_atomic_onto(tmp_path: Path, kind: str) -> None:
    """The one writer every save goes through refuses such a target too (voices, takes, settings…)."""
    import stat as st

    from cosycore.atomic_write import write_atomic

    target = _special_file(tmp_path / "x.json", kind)
    with pytest.raises(StorageError, match="not a regular file"):
        write_atomic(target, b"{}")
    assert not st.S_ISREG(os.lstat(target).st_mode)


def test_write_atomic_through_a_link_out_of_the_folder(tmp_path: Path) -> None:
    from cosycore.atomic_write import write_atomic

    (tmp_path / "store").mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "store" / "take").symlink_to(tmp_path / "outside")
    with pytest.raises(StorageError, match="leads out of"):
        write_atomic(tmp_path / "store" / "take" / "take.json", b"{}", within=tmp_path / "store")
    assert list((tmp_path / "outside").iterdir()) == []


def test_srt_in_a_missing_folder(no_engine, tmp_path: Path) -> None:
    code, err = _run(_synth(tmp_path / "take.wav", "--srt", str(tmp_path / "nope" / "x.srt")))
    assert code == 1 and "does not exist" in err and "--srt" in err


def test_srt_on_a_read_only_disk(no_engine, tmp_path: Path) -> None:
    with _tmpfs(tmp_path / "ro", "size=64k,ro") as folder:
        code, err = _run(_synth(tmp_path / "take.wav", "--srt", str(folder / "x.srt")))
    assert code == 1 and "read-only disk" in err and "--srt" in err


def test_srt_equal_to_out(no_engine, tmp_path: Path) -> None:
    out = tmp_path / "take.wav"
    out.write_bytes(OLD)
    code, err = _run(_synth(out, "--srt", str(out)))
    assert code != 0 and "--srt and --out name the same file" in err and out.read_bytes() == OLD


def test_vtt_equal_to_out(no_engine, tmp_path: Path) -> None:
    out = tmp_path / "take.wav"
    out.write_bytes(OLD)
    script = tmp_path / "s.txt"
    script.write_text("A: Hello.\n", encoding="utf-8")
    argv = ["synth", "--model", "unused", "--script", str(script), "--cast", "A=x", "-q", "--out", str(out),
            "--vtt", str(out)]
    code, err = _run(argv)
    assert code != 0 and "--vtt and --out name the same file" in err and out.read_bytes() == OLD

@pytest.mark.parametrize("case", ["missing_folder", "a_directory", "parent_is_a_file"])
def test_unwritable_out_before_synthesis(no_engine, tmp_path: Path, case: str) -> None:
    target = {"missing_folder": tmp_path / "nope" / "x.wav", "a_directory": tmp_path / "dir.wav",
              "parent_is_a_file": tmp_path / "file" / "x.wav"}[case]
    (tmp_path / "dir.wav").mkdir()
    (tmp_path / "file").write_text("x")
    code, err = _run(_synth(target))
    assert code == 1 and "cannot write" in err and "Nothing was synthesised" in err and "Traceback" not in err


@contextlib.contextmanager
def _tmpfs(path: Path, options: str) -> Iterator[Path]:
    path.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip()}); see the simulated tests")
    try:
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=False)


def test_out_on_a_read_only_disk(no_engine, tmp_path: Path) -> None:
    with _tmpfs(tmp_path / "ro", "size=64k,ro") as folder:
        code, err = _run(_synth(folder / "x.wav"))
    assert code == 1 and "read-only disk" in err and "Nothing was synthesised" in err


def test_out_read_only_file(no_engine, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write any file; the read-only disk test covers this case")
    out = tmp_path / "keep.wav"
    out.write_bytes(OLD)
    out.chmod(0o444)
    code, err = _run(_synth(out))
    assert code == 1 and "read-only" in err and out.read_bytes() == OLD


def test_out_on_a_full_tmpfs(fake, tmp_path: Path) -> None:
    with _tmpfs(tmp_path / "small", "size=128k") as folder:
        out = folder / "take.wav"
        out.write_bytes(OLD)
        fake(FakeEngine(chunks=40))  # 20 s of 16-bit audio: 960 kB
        code, err = _run(_synth(out))
        assert code == 1 and "disk is full" in err and "Traceback" not in err
        assert out.read_bytes() == OLD and _siblings(out) == ["take.wav"]


def test_out_full_disk_simulated_enospc(fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "take.wav"
    out.write_bytes(OLD)
    real = sf.SoundFile.write
    calls = {"n": 0}

    def failing(self, data):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(sf.SoundFile, "write", failing)
    code, err = _run(_synth(out))
    assert code == 1 and "disk is full" in err and out.read_bytes() == OLD and _siblings(out) == ["take.wav"]


def test_out_dash_on_dev_full(fake) -> None:
    with open("/dev/full", "wb") as full:
        code, err = _run(_synth("-"), stdout_bytes=full)
    assert code == 1 and "standard output" in err and "disk is full" in err


class _ShortWriter(io.RawIOBase):
    """Takes 100 bytes, then nothing (as a pipe or file that stopped accepting data)."""

    def __init__(self) -> None:
        self.taken = 0

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        n = min(len(b), max(0, 100 - self.taken))
        self.taken += n
        return n


def test_out_dash_short_write(fake) -> None:
    code, err = _run(_synth("-"), stdout_bytes=_ShortWriter())
    assert code == 1 and "standard output took 100 of" in err


# -- item 12: NaN model output ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def voice(cv2_engine: Engine, espeak_wav):
    audio, sr = sf.read(str(espeak_wav), dtype="float32")
    return cv2_engine.create_voice(audio[: int(2.5 * sr)], sr, name="fox", transcript="The quick brown fox")


def _nan_vocoder(monkeypatch: pytest.MonkeyPatch) -> None:
    from cosycore.token2wav import Token2WavStream

    real_finish, real_push = Token2WavStream.finish, Token2WavStream.push
    monkeypatch.setattr(Token2WavStream, "finish", lambda self, **kw: np.full_like(real_finish(self, **kw), np.nan))
    monkeypatch.setattr(Token2WavStream, "push",
                        lambda self, tok: (np.full_like(a, np.inf) for a in real_push(self, tok)))


@pytest.mark.parametrize("stream", [False, True], ids=["offline", "streaming"])
def test_nan_model_output(cv2_engine: Engine, voice, monkeypatch: pytest.MonkeyPatch, stream: bool) -> None:
    _nan_vocoder(monkeypatch)
    request = SynthesisRequest("Hello there.", mode="zero_shot", voice=voice, seed=0, stream=stream,
                               min_tokens=30, max_tokens=30)
    with pytest.raises(EngineError, match=r"NaN or infinite.*models verify"):
        for chunk in cv2_engine.synthesize(request):
            assert np.isfinite(chunk.samples).all()  # nothing non-finite is ever handed out


def test_nan_model_output_is_not_written(tiny_cv2_model: Path, espeak_wav: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _nan_vocoder(monkeypatch)
    out = tmp_path / "nan.wav"
    code, err = _run(["synth", "--model", str(tiny_cv2_model), "--device", "cpu", "--prompt-wav", str(espeak_wav),
                      "--mode", "cross_lingual", "--text", "Hi.", "--max-tokens", "20", "-q", "--out", str(out)])
    assert code == 1 and "models verify" in err and not out.exists() and _siblings(out) == []


# -- item 13: prompt audio is decoded only up to what is needed -------------------------------------

def test_three_minute_192khz_six_channel_prompt(tmp_path: Path) -> None:
    path = tmp_path / "long.flac"
    rate, seconds, channels = 192_000, 180, 6
    block = np.zeros((rate, channels), np.float32)
    block[:, 0] = 0.1 * np.sin(2 * np.pi * 440 * np.arange(rate) / rate)
    with sf.SoundFile(str(path), "w", samplerate=rate, channels=channels, format="FLAC", subtype="PCM_16") as fh:
        for _ in range(seconds):
            fh.write(block)
    whole = seconds * rate * channels * 4  # what decoding it all at once as float32 would take: 829 MB
    tracemalloc.start()
    mono, sr, total = read_audio(path, 30.0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert sr == rate and total == pytest.approx(seconds) and mono.shape == (30 * rate + 1,)
    assert peak < 30 * rate * 4 * 2 + (8 << 20) and peak < whole / 10  # the head, its concatenation, a block
    from cosycore.frontend.prompt import _fit_length, _read_prompt
    wav, rate2, name, total2 = _read_prompt(path, None)
    notes: list[str] = []
    assert _fit_length(wav, rate2, name, notes, total2).shape == (30 * rate,)
    assert "is 180.0 s long; only its first 30 s are used" in notes[0]


def test_audio_header_claiming_absurd_channels_or_rate(tmp_path: Path) -> None:
    path = tmp_path / "odd.wav"
    sf.write(str(path), np.zeros((1000, 70), np.float32), 16000, subtype="PCM_16")
    with pytest.raises(InputError, match="70 channels"):
        read_audio(path, 30.0)


# -- item 14: invalid UTF-8 ---------------------------------------------------------------------------

def test_invalid_utf8_text_argument(no_engine) -> None:
    text = b"caf\xe9 au lait".decode("utf-8", "surrogateescape")  # what Python makes of such argv bytes
    code, err = _run(["synth", "--model", "m", "--prompt-wav", "p.wav", "--mode", "cross_lingual", "--text", text,
                      "--out", "-"])
    assert code == 2 and "not valid UTF-8 text (byte 0xe9 at character 3)" in err


def test_invalid_utf8_on_standard_input(no_engine) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"Hello \xff\xfe there."), encoding="utf-8")
    code, err = _run(["synth", "--model", "m", "--prompt-wav", "p.wav", "--mode", "cross_lingual", "--out", "-"],
                     stdin=stdin)
    assert code == 2 and "standard input is not UTF-8" in err


def test_invalid_utf8_in_request_fields(cv2_engine: Engine, voice) -> None:
    bad = "x\udcff"
    for fields in ({"text": bad}, {"prompt_text": bad}, {"text": iter(["ok ", bad])}):
        request = SynthesisRequest(**{"text": "Hello.", "mode": "zero_shot", "voice": voice, **fields})
        with pytest.raises(InputError, match="not valid UTF-8"):
            list(cv2_engine.synthesize(request))
    with pytest.raises(InputError, match="not valid UTF-8"):
        cv2_engine.create_voice(np.zeros(48000, np.float32), 16000, name="x", transcript=bad)


# -- item 15: threads, devices, seeds -----------------------------------------------------------------

@pytest.mark.parametrize("value", ["-1", "0", "100000"])
def test_threads(no_engine, value: str) -> None:
    code, err = _run(["info", "--model", "m", "--threads", value])
    assert code == 2 and "--threads must be from 1 to" in err


@pytest.mark.parametrize("device", ["tpu:7", "cuda:x", "meta", ""])
def test_device_name(tiny_cv2_model: Path, device: str) -> None:
    code, err = _run(["info", "--model", str(tiny_cv2_model), "--device", device])
    assert code == 2 and "is not a device Cosy Studio can use" in err and "Traceback" not in err


def test_missing_gpu_index(tiny_cv2_model: Path) -> None:
    code, err = _run(["info", "--model", str(tiny_cv2_model), "--device", "cuda:7"])
    assert code == 3 and "CUDA GPU" in err


@pytest.mark.parametrize("seed", [2**70, -(2**70)])
def test_seed_out_of_range(no_engine, seed: int) -> None:
    code, err = _run(_synth("-", "--seed", str(seed)))
    assert code == 2 and "The seed must be between" in err


def test_max_tokens_of_a_billion(no_engine) -> None:
    code, err = _run(_synth("-", "--max-tokens", str(10**9)))
    assert code == 2 and "max_tokens must be a whole number from 0 to 4000" in err


# -- item 19: never suggest weights_only=False ----------------------------------------------------------

class _Evil:
    def __reduce__(self):
        return (os.getcwd, ())


def test_checkpoint_with_a_pickled_callable(tmp_path: Path) -> None:
    from cosycore.weights import load_checkpoint

    path = tmp_path / "llm.pt"
    torch.save({"w": torch.zeros(2), "x": _Evil()}, path)
    with pytest.raises(UnsafeCheckpointError) as info:
        load_checkpoint(path)
    message = str(info.value)
    assert "weights_only" not in message and "trusted source" not in message
    assert "not loaded" in message and "getcwd" in message  # it still says what was found


def test_checkpoint_that_is_a_plain_pickle(tmp_path: Path) -> None:
    from cosycore.weights import load_checkpoint

    path = tmp_path / "flow.pt"
    path.write_bytes(pickle.dumps({"x": _Evil()}))
    with pytest.raises(ModelLoadError) as info:
        load_checkpoint(path)
    assert "weights_only" not in str(info.value)


# -- typed errors at the engine boundary -------------------------------------------------------------

@pytest.mark.parametrize(("raised", "message"), [
    (torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB"),
     "not enough memory: choose Draft quality or shorter sentences"),
    (RuntimeError("[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: not enough memory"),
     "not enough memory: choose Draft quality"),
    (ValueError("16000 mel frames exceed the flow's 15000-frame limit (300 s including the prompt)"),
     "too long for the flow"),
    (RuntimeError("flow cache out of step"), r"failed unexpectedly \(RuntimeError.*models verify"),
])
def test_engine_failure(cv2_engine: Engine, voice, monkeypatch: pytest.MonkeyPatch, raised: Exception,
                        message: str) -> None:
    def broken(*_a, **_k) -> Iterator[int]:
        raise raised
        yield 0

    monkeypatch.setattr(cv2_engine.model.llm, "generate", broken)
    request = SynthesisRequest("Hello there.", mode="zero_shot", voice=voice, seed=0, max_tokens=10)
    with pytest.raises(EngineError, match=message):
        list(cv2_engine.synthesize(request))
    monkeypatch.undo()
    assert list(cv2_engine.synthesize(request))[-1].is_final  # the engine is still usable


def test_create_voice_failure_inside_the_speaker_encoder(cv2_engine: Engine, monkeypatch: pytest.MonkeyPatch,
                                                         espeak_wav: Path) -> None:
    def broken(*_a, **_k):
        raise RuntimeError("onnxruntime: bad input")

    monkeypatch.setattr(cv2_engine.speaker_encoder, "embed", broken)
    with pytest.raises(EngineError, match="reading the voice recording failed unexpectedly"):
        cv2_engine.create_voice(espeak_wav, name="x")


def test_loader_failure(tiny_cv2_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cosycore.engine import core as engine_module

    def broken(*_a, **_k):
        raise RuntimeError("unexpected failure inside a loader")

    monkeypatch.setattr(engine_module.CosyModel, "load", broken)
    with pytest.raises(ModelLoadError, match=r"could not be loaded.*models verify"):
        Engine(tiny_cv2_model, device="cpu")
    monkeypatch.setattr(engine_module.CosyModel, "load", lambda *a, **k: (_ for _ in ()).throw(MemoryError()))
    with pytest.raises(ModelLoadError, match="not enough memory"):
        Engine(tiny_cv2_model, device="cpu")


def test_storage_error_is_a_cosy_error() -> None:
    assert issubclass(StorageError, Exception) and issubclass(EngineError, cli.CosyError)


@pytest.mark.parametrize("value", ["-5", "0"])
def test_max_chars(no_engine, value: str) -> None:
    code, err = _run(_synth("x.wav", "--max-chars", value))
    assert code == 2 and "--max-chars must be 1 or more" in err


@pytest.mark.parametrize("field", ["prompt_text", "instruct_text"])
def test_synthesis_request_with_a_number_as(field: str) -> None:
    """``SynthesisRequest(prompt_text=5)``: an InputError that says what the field must be."""
    from cosycore.request import validate_request

    req = SynthesisRequest("Hello.", mode="zero_shot", prompt_audio="x.wav", **{field: 5})
    with pytest.raises(InputError, match="must be text"):
        validate_request(req)
