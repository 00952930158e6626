"""Settings › Local server: the speech server on the app's engine thread (tiny CosyVoice2 model).

The server's requests queue to the app's EngineThread (no second engine), take turns with the app's
own takes, and the dialog switches it on and off.
"""

from __future__ import annotations

import io
import socket
from pathlib import Path

import httpx2 as httpx
import numpy as np
import pytest
import soundfile as sf
from conftest import SR, speechlike

from app.controllers.server import LocalServerDialog, ServerController
from app.worker.engine_thread import EngineThread, SynthesisStats
from cosycore.engine import EngineInfo, SynthesisRequest
from cosycore.voices import VoiceLibrary

openai = pytest.importorskip("openai")


@pytest.fixture(scope="module")
def engine(qapp, tiny_cv2_model: Path):
    from pytestqt.qtbot import QtBot

    thread = EngineThread(torch_threads=1)
    loaded: list[EngineInfo] = []
    thread.model_loaded.connect(loaded.append)
    thread.load_model(tiny_cv2_model, "cpu")
    QtBot(qapp).waitUntil(lambda: bool(loaded), timeout=120_000)
    yield thread
    assert thread.shutdown()


@pytest.fixture
def library(engine: EngineThread, qtbot, tmp_path: Path) -> VoiceLibrary:
    made: list = []
    engine.voice_created.connect(lambda job, voice, warnings: made.append(voice))
    engine.create_voice(speechlike(4.0, seed=3), SR, "Desk", "")
    qtbot.waitUntil(lambda: bool(made), timeout=60_000)
    lib = VoiceLibrary(tmp_path / "voices")
    lib.add(made[0])
    return lib


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_server_speaks_with_the_apps_engine(engine: EngineThread, library: VoiceLibrary, settings, qtbot) -> None:
    controller = ServerController(engine, library, settings)
    assert controller.start(0, "key-1")
    url = controller.url
    try:
        assert controller.url.startswith("http://127.0.0.1:") and controller.url.endswith("/v1")
        client = openai.OpenAI(base_url=controller.url, api_key="key-1", max_retries=0, timeout=120,
                               http_client=httpx.Client(trust_env=False, timeout=120))
        assert [m.id for m in client.models.list().data] == [Path(engine.model_info.model_dir).name]
        data = client.audio.speech.create(model="tts-1", voice="Desk", input="Hello from the app.",
                                          response_format="wav").content
        audio, rate = sf.read(io.BytesIO(data), dtype="float32")
        assert rate == SR and audio.size > 0 and np.isfinite(audio).all()
        qtbot.waitUntil(lambda: controller.stats().served == 1, timeout=10_000)  # counted just after the reply
        # The app's own takes still run on the same thread afterwards.
        finished: list[SynthesisStats] = []
        engine.synthesis_finished.connect(finished.append)
        rid = engine.speak(SynthesisRequest("A take.", mode="cross_lingual", voice=library.get("Desk"), max_tokens=60))
        qtbot.waitUntil(lambda: any(s.request_id == rid for s in finished), timeout=120_000)
    finally:
        controller.stop()
    assert not controller.running
    assert settings.server_api_key == "key-1"
    with pytest.raises(httpx.ConnectError):
        httpx.get(url.removesuffix("/v1") + "/health", trust_env=False)


def test_port_in_use_is_a_message(engine: EngineThread, library: VoiceLibrary, settings) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        controller = ServerController(engine, library, settings)
        assert not controller.start(port)
    assert "in use" in controller.error and not controller.running


def test_dialog_switches_the_server(engine: EngineThread, library: VoiceLibrary, settings, qtbot) -> None:
    controller = ServerController(engine, library, settings)
    dialog = LocalServerDialog(controller)
    qtbot.addWidget(dialog)
    port = _free_port()
    dialog.port.setValue(port)
    assert not dialog.port.isReadOnly() and dialog.status.text()
    dialog.switch.click()
    try:
        assert controller.running, controller.error
        assert dialog.url.text() == f"http://127.0.0.1:{port}/v1" and not dialog.port.isEnabled()
        health = httpx.get(f"http://127.0.0.1:{port}/health", trust_env=False).json()
        assert health["status"] == "ok"
        dialog.refresh()
        assert "0 served" in dialog.status.text()
    finally:
        dialog.switch.click()
    assert not controller.running and dialog.port.isEnabled()
    assert settings.server_port == port


def test_settings_menu_opens_the_dialog(qtbot, settings) -> None:
    from PySide6.QtWidgets import QMenu

    from app.main_window import MainWindow

    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.show()
    actions = [a for menu in w.menuBar().findChildren(QMenu) for a in menu.actions()
               if a.text().replace("&", "") == "Local server…"]
    assert len(actions) == 1
    actions[0].trigger()
    qtbot.waitUntil(lambda: bool(w.findChildren(LocalServerDialog)), timeout=5_000)
    dialog = w.findChildren(LocalServerDialog)[0]
    assert dialog.controller is w.server and not w.server.running
    dialog.close()
