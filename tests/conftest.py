"""Shared test fixtures.

Conformance data (tiny random-weight release folders plus the original implementation's outputs)
is read from ``COSY_CONFORMANCE_DIR``, by default ``../shared/conformance`` beside the checkout.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import pickle
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

# The cyclic garbage collector waits until collection is over (see pytest_collection below): the
# modules imported meanwhile (torch's ~2,000) make every collection pass long, and rewriting the test
# modules' asserts makes millions of AST nodes, so that its passes cost 15 s of a worker's 25.
gc.disable()

import torch  # noqa: E402 - after gc.disable()

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# MKL picks its FFT/GEMM code path by CPU instruction set; the conformance references were made
# on a CPU without AVX-512. Its compatible mode reproduces them to ~1e-6 on any x86-64 CPU. This
# must be set before the first MKL call, and torch is imported below.
os.environ.setdefault("MKL_CBWR", "COMPATIBLE")

REPO = Path(__file__).resolve().parents[1]
T = TypeVar("T")
_DEFAULT_CONFORMANCE = REPO.parent / "shared" / "conformance"

# Two cores here; keep every test deterministic in its thread count (the CLI's engine too). Under
# pytest-xdist (installer/test.sh runs two workers) each worker gets its share of the cores, one
# thread each on two cores, and so do the commands the tests start (COSY_THREADS, OMP_NUM_THREADS):
# two OpenMP threads per worker on a busy machine spin against each other.
XDIST_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
if XDIST_WORKERS:
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // XDIST_WORKERS))
    os.environ["COSY_THREADS"] = str(torch.get_num_threads())
    os.environ.setdefault("OMP_NUM_THREADS", os.environ["COSY_THREADS"])
else:
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    os.environ.setdefault("COSY_THREADS", str(torch.get_num_threads()))


def shared_across_workers(tmp_path_factory: pytest.TempPathFactory, key: str, make: Callable[[], T]) -> T:
    """``make()``, computed once per test run also under pytest-xdist: the first worker to ask pickles the
    value into the run's shared temporary folder and the others load it (under a file lock)."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return make()
    from filelock import FileLock

    path = tmp_path_factory.getbasetemp().parent / f"shared-{key}.pkl"
    with FileLock(f"{path}.lock"):
        if path.is_file():
            return pickle.loads(path.read_bytes())
        value = make()
        path.write_bytes(pickle.dumps(value))
        return value


def folder_digest(folder: Path) -> str:
    """A short sha256 of a folder's file names and contents (a key for :func:`shared_across_workers`)."""
    h = hashlib.sha256()
    for f in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(f.relative_to(folder).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def conformance_root() -> Path:
    return Path(os.environ.get("COSY_CONFORMANCE_DIR", _DEFAULT_CONFORMANCE))


def _need(sub: str) -> Path:
    path = conformance_root() / sub
    if not path.is_dir():
        pytest.skip(
            f"conformance data not found at {path}. Set COSY_CONFORMANCE_DIR to the folder that holds "
            "cosyvoice2-tiny/, cosyvoice3-tiny/ and features/ (CI has it at ../shared/conformance)."
        )
    return path


@pytest.fixture(scope="session")
def cv2_dir() -> Path:
    return _need("cosyvoice2-tiny")


@pytest.fixture(scope="session")
def cv3_dir() -> Path:
    return _need("cosyvoice3-tiny")


@pytest.fixture(scope="session")
def features_dir() -> Path:
    return _need("features")


@pytest.fixture(scope="session")
def vc_dir(cv2_dir: Path, cv3_dir: Path) -> Path:
    """The voice-conversion reference set (tools/vc_reference.py), kept in the repository; the tiny
    model folders it was made with come from the conformance folder (``cv2_dir``, ``cv3_dir``)."""
    path = REPO / "tests" / "data" / "conformance-vc"
    assert (path / "manifest.json").is_file(), f"{path} is missing: it is part of the repository"
    return path


def copy_release(src: Path, dst: Path, *, link_weights: bool = True) -> Path:
    """Make an editable copy of a release folder; big ``.pt`` files are symlinked unless asked."""
    dst.mkdir(parents=True, exist_ok=True)
    for item in src.iterdir():
        if item.name == "reference":
            continue
        target = dst / item.name
        if item.is_dir():
            shutil.copytree(item, target)
        elif item.suffix == ".pt" and link_weights:
            target.symlink_to(item.resolve())
        else:
            shutil.copy2(item, target)
    for path in dst.rglob("*"):
        if path.is_file() and not path.is_symlink():
            path.chmod(0o644)
    return dst


# The tiny CosyVoice2 LM ends its sentences after tens of speech tokens instead of always running to its
# maximum (write_tiny_model's eos_bias): the same code paths, a quarter of the synthesis time.
TINY_EOS_BIAS = 1.5


@pytest.fixture(scope="session")
def tiny_cv2_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete tiny CosyVoice2 release folder (random weights, ONNX models, tokenizer), seed 0; its LM
    ends sentences (``TINY_EOS_BIAS``)."""
    from cosycore.testing.tiny_model import write_tiny_model

    return write_tiny_model(tmp_path_factory.mktemp("tiny-cv2"), "cosyvoice2", seed=0, eos_bias=TINY_EOS_BIAS).model_dir


@pytest.fixture(scope="session")
def tiny_cv3_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete tiny Fun-CosyVoice3 release folder (random weights, ONNX models, tokenizer), seed 0."""
    from cosycore.testing.tiny_model import write_tiny_model

    return write_tiny_model(tmp_path_factory.mktemp("tiny-cv3"), "cosyvoice3", seed=0).model_dir


@pytest.fixture(scope="session")
def tiny_sensevoice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny SenseVoice folder in the sherpa-onnx release layout (model.int8.onnx, tokens.txt), seed 0."""
    from cosycore.testing.tiny_sensevoice import write_tiny_sensevoice

    return write_tiny_sensevoice(tmp_path_factory.mktemp("tiny-sensevoice"), seed=0)


@pytest.fixture(scope="module")
def single_thread():
    """Run a module's tests with one torch thread (restored afterwards).

    The tiny models gain nothing from a second thread, and two OpenMP threads on a busy two-core
    machine spin against each other: the tiny CosyVoice2 flow took 19 s instead of 0.4 s that way.
    """
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


ESPEAK_SENTENCE = "The quick brown fox jumps over the lazy dog. Speech synthesis turns text into audio."


@pytest.fixture(scope="session")
def espeak_transcript() -> str:
    """What is said in ``espeak_wav``."""
    return ESPEAK_SENTENCE


@pytest.fixture(scope="session")
def espeak_wav(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 5 s of synthetic speech (espeak-ng, 22.05 kHz mono 16-bit); its transcript is ESPEAK_SENTENCE."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        pytest.skip("espeak-ng is not installed (bash installer/setup.sh --dev installs it)")
    path = tmp_path_factory.mktemp("espeak") / "prompt.wav"
    subprocess.run([exe, "-v", "en-us", "-s", "160", "-w", str(path), ESPEAK_SENTENCE], check=True, timeout=60)
    return path


@pytest.fixture(scope="session")
def cv2_engine(tiny_cv2_model: Path):
    """The public engine on the tiny CosyVoice2 folder, loaded once (CPU)."""
    from cosycore.engine import Engine

    return Engine(tiny_cv2_model, device="cpu")


@pytest.fixture(scope="session")
def cv3_engine(tiny_cv3_model: Path):
    """The public engine on the tiny Fun-CosyVoice3 folder, loaded once (CPU)."""
    from cosycore.engine import Engine

    return Engine(tiny_cv3_model, device="cpu")


@pytest.fixture(scope="module")
def script_voices(cv2_engine, espeak_wav: Path):
    """Anna (with a transcript: zero_shot) and Ben (without: cross_lingual), made from the espeak prompt."""
    import soundfile as sf

    audio, sr = sf.read(str(espeak_wav), dtype="float32")
    clip = audio[: int(2.5 * sr)]
    anna = cv2_engine.create_voice(clip, sr, transcript="The quick brown fox", name="Anna")
    ben = cv2_engine.create_voice(clip[::-1].copy(), sr, name="Ben")  # no transcript: cross_lingual
    return anna, ben


@pytest.fixture
def no_app_lexicon(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The app-wide dictionary (``COSY_LEXICON``) is a file that does not exist: the user's own is never read."""
    monkeypatch.setenv("COSY_LEXICON", str(tmp_path / "no-app-lexicon.csv"))


@pytest.fixture
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Downloads retry at once, from the endpoint they are given (no HF_ENDPOINT or offline switch from outside)."""
    from cosycore.hub import transfer

    monkeypatch.setattr(transfer, "RETRY_DELAYS", (0.01, 0.01))
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)


CV2_REPO = "FunAudioLLM/CosyVoice2-0.5B"


@pytest.fixture(scope="session")
def cv2_repo(tiny_cv2_model: Path):
    """The tiny CosyVoice2 folder as the hub repository FunAudioLLM/CosyVoice2-0.5B, with a README.md as a
    release has (the download never fetches it)."""
    from cosycore.testing.fake_hub import FakeRepo

    return FakeRepo.from_folder(CV2_REPO, tiny_cv2_model, {"README.md": b"# CosyVoice2\n"})


@contextlib.contextmanager
def serving(*repos, max_requests: int = 300, max_seconds: float = 90, max_body_bytes: int = 64 << 20):
    """A fake model hub on 127.0.0.1 serving ``repos``, bounded in requests, seconds and body bytes."""
    from cosycore.testing.fake_hub import FakeHub

    with FakeHub(max_requests=max_requests, max_seconds=max_seconds, max_body_bytes=max_body_bytes) as server:
        for repo in repos:
            server.add_repo(repo)
        yield server


@pytest.fixture
def hub(cv2_repo):
    """The fake hub serving :func:`cv2_repo`; a test may make it misbehave (its flags) and read its log."""
    with serving(cv2_repo) as server:
        yield server


@pytest.fixture
def open_models_dialog(qtbot, tmp_path: Path):
    """Opens the Models dialog on ``tmp_path/models`` fetching from ``endpoint`` (qtbot closes it)."""

    def open_dialog(endpoint: str, **kwargs):
        from app.widgets.models_dialog import ModelsDialog

        dialog = ModelsDialog(tmp_path / "models", endpoint=endpoint, **kwargs)
        qtbot.addWidget(dialog)
        dialog.show()
        return dialog

    return open_dialog


def click(qtbot, button) -> None:
    """Click ``button`` with the mouse, as a user can: it must be enabled and visible."""
    from PySide6.QtCore import Qt

    assert button.isEnabled() and button.isVisible(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def run_models_cli(*argv: str) -> tuple[int, str, str]:
    """``cosycore models ARGV`` in this process: the exit code, stdout and stderr."""
    import io

    from cosycore.hub import models_cli

    out, err = io.StringIO(), io.StringIO()
    code = models_cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# The fixtures that re-initialise PortAudio on the null ALSA device (tests/gui/conftest.py). Their tests
# run in one pytest-xdist group, so one worker runs them one after another (installer/test.sh passes
# --dist loadgroup): the null device has no clock, and two of them playing at once on two cores
# starve each other's callbacks.
PORTAUDIO_FIXTURES = frozenset({"null_audio", "no_audio_device"})


def _uses_a_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    defs = getattr(info, "name2fixturedefs", {}) if info is not None else {}
    return any(d.scope == "module" for seq in defs.values() for d in seq)


# Marked as each test is collected: pytest-xdist's worker reads the groups in its own
# pytest_collection_modifyitems, which ran before this conftest's (even a tryfirst one), so the marks
# added there never reached the scheduler.
def pytest_itemcollected(item: pytest.Item) -> None:
    if PORTAUDIO_FIXTURES & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.xdist_group("portaudio"))
    elif item.get_closest_marker("xdist_group") is None and _uses_a_module_fixture(item):
        # A module-scoped fixture is built once per worker that runs one of its tests: keep such a
        # module's tests on one worker, so that its fixtures (a loaded engine, a command's run, a
        # written model folder) are built once, not once on each worker.
        item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session):
    """Collect with the garbage collector off (as it has been since this file was imported), then turn
    it on with everything made so far (modules, tests, fixtures' definitions: kept for the whole run)
    moved out of its view: its later passes look at what the tests make, not at torch's modules."""
    try:
        return (yield)
    finally:
        gc.enable()
        gc.freeze()
