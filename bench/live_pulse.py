"""Live conversion's mouth-to-ear latency measured on PulseAudio null devices (``bench_convert.py --live
SECONDS --pulse``).

A private PulseAudio daemon (its own runtime folder; nothing else's sound is touched) gets one stereo
null sink, ``room``, and three views of it, so that the speaker's mouth and the listener's ear are
recorded side by side on one clock:

* ``mouth``: a mono sink on the room's left channel. ``paplay`` plays the spoken clip into it, in real
  time (the null sink is clocked).
* ``mic``: a mono source reading the room's left channel: the microphone the converter records from,
  through PortAudio and ALSA's pulse plugin, as the app's Live button does (``app.audio.mic_input``).
* ``ear``: a mono sink on the room's right channel: the converter plays into it through PortAudio and
  the player's own feed (``app.audio.playback_feed``, with the app's pre-roll).

``parec`` records ``room.monitor``: the left channel is what was said, the right what was heard.
Mouth-to-ear latency is the time from each sentence's first sound on the left to the matching burst of
converted sound on the right; every stage between is in it (the devices' buffers, cutting into pieces
at pauses, conversion, the pre-roll). The clip is spoken by espeak-ng: sentences with 2 s pauses, so
that each one's converted sound starts after a silence and can be matched to it in order.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from cosycore.studio.live_convert import LatencyMeter, LiveFeed, PieceCutter, convert_pieces

RATE = 48000
TICK = 0.03  # the app reads the microphone this often (app.controllers.convert.TICK_MS)
SENTENCES = (
    "Good morning, this is a test of live conversion.",
    "The quick brown fox jumps over the lazy dog.",
    "I would like a cup of tea, please.",
    "Every sentence is followed by a short pause.",
    "Thank you, that is all for now.",
    "One more line, to see whether it keeps up.",
)
PAUSE = 2.0  # seconds of silence after each sentence
FRAME = 0.01  # onset detection frames
MERGE_GAP = 1.0  # sounds closer than this belong to one burst (a sentence; the pauses between are 2 s)


class PulseRoom:
    """A private PulseAudio daemon with the room, mouth, mic and ear devices (see the module docstring)."""

    def __init__(self, work: Path) -> None:
        self.work = work
        runtime = work / "pulse"
        runtime.mkdir(parents=True, exist_ok=True)
        self.env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "PULSE_RUNTIME_PATH": str(runtime),
                    "PULSE_SERVER": f"unix:{runtime}/native", "HOME": str(work)}
        self.alsa_conf = work / "asound.conf"

    def __enter__(self) -> PulseRoom:
        missing = [t for t in ("pulseaudio", "pactl", "parec", "paplay", "espeak-ng") if shutil.which(t) is None]
        if missing:
            raise SystemExit(f"error: --pulse needs {', '.join(missing)}: apt-get install pulseaudio "
                             "pulseaudio-utils libasound2-plugins espeak-ng")
        subprocess.run(["pulseaudio", "-D", "-n", "--exit-idle-time=-1", "--disallow-exit", "--use-pid-file=yes",
                        "--load=module-native-protocol-unix", f"--log-target=file:{self.work / 'pulse.log'}"],
                       env=self.env, check=True)
        self._wait_for_daemon()
        for args in (
            ["module-null-sink", "sink_name=room", "channels=2", f"rate={RATE}", "channel_map=front-left,front-right"],
            ["module-remap-sink", "sink_name=mouth", "master=room", "channels=1", "channel_map=mono",
             "master_channel_map=front-left", "remix=no"],
            ["module-remap-sink", "sink_name=ear", "master=room", "channels=1", "channel_map=mono",
             "master_channel_map=front-right", "remix=no"],
            ["module-remap-source", "source_name=mic", "master=room.monitor", "channels=1", "channel_map=mono",
             "master_channel_map=front-left", "remix=no"],
        ):
            self.pactl("load-module", *args)
        self.pactl("set-default-sink", "ear")
        self.pactl("set-default-source", "mic")
        self.alsa_conf.write_text("</usr/share/alsa/alsa.conf>\npcm.!default { type pulse }\n"
                                  "ctl.!default { type pulse }\n", encoding="utf-8")
        # This process's PortAudio (loaded after this) talks to the room through ALSA's pulse plugin.
        for key in ("XDG_RUNTIME_DIR", "PULSE_RUNTIME_PATH", "PULSE_SERVER"):
            os.environ[key] = self.env[key]
        os.environ["ALSA_CONFIG_PATH"] = str(self.alsa_conf)
        os.environ["PULSE_SINK"], os.environ["PULSE_SOURCE"] = "ear", "mic"
        return self

    def _wait_for_daemon(self) -> None:
        for _ in range(100):
            if subprocess.run(["pactl", "info"], env=self.env, capture_output=True).returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError(f"PulseAudio did not start; see {self.work / 'pulse.log'}")

    def pactl(self, *args: str) -> str:
        return subprocess.run(["pactl", *args], env=self.env, check=True, capture_output=True, text=True).stdout

    def __exit__(self, *exc: object) -> None:
        subprocess.run(["pulseaudio", "--kill"], env=self.env, capture_output=True)


def spoken_clip(path: Path) -> float:
    """espeak-ng's sentences with pauses, at RATE, written to ``path``; returns its length in seconds."""
    import soundfile as sf
    import soxr

    parts = [np.zeros(int(0.5 * RATE), np.float32)]
    for i, text in enumerate(SENTENCES):
        wav = path.with_name(f"sentence{i}.wav")
        subprocess.run(["espeak-ng", "-v", "en", "-s", "150", "-w", str(wav), text], check=True)
        audio, sr = sf.read(str(wav), dtype="float32")
        audio = soxr.resample(audio, sr, RATE).astype(np.float32)
        parts += [0.5 * audio / max(1e-6, float(np.abs(audio).max())), np.zeros(int(PAUSE * RATE), np.float32)]
    clip = np.concatenate(parts)
    sf.write(str(path), clip, RATE, subtype="FLOAT")
    return clip.shape[0] / RATE


def bursts(x: np.ndarray, rate: int, rel: float = 0.05) -> list[tuple[float, float]]:
    """(start, end) seconds of the sounding stretches of ``x`` (frames above ``rel`` of the loudest, gaps
    under MERGE_GAP merged, stretches under 0.1 s dropped)."""
    n = int(FRAME * rate)
    frames = x[: x.shape[0] // n * n].reshape(-1, n)
    rms = np.sqrt((frames.astype(np.float64) ** 2).mean(axis=1))
    if rms.size == 0 or rms.max() <= 1e-6:
        return []
    on = rms > max(1e-4, rel * rms.max())
    out: list[list[float]] = []
    for i in np.flatnonzero(on):
        t = i * FRAME
        if out and t - out[-1][1] <= MERGE_GAP:
            out[-1][1] = t + FRAME
        else:
            out.append([t, t + FRAME])
    return [(a, b) for a, b in out if b - a >= 0.1]


def run_live(engine: Any, voice: Any, room: PulseRoom, output_delay: float) -> dict[str, Any]:
    """Speak the clip into the room, convert live from ``mic`` into ``ear``, record both; the figures."""
    import sounddevice as sd

    from app.audio.mic_input import MicInput  # PortAudio loads here, after the room set its environment
    from app.audio.playback_feed import MIN_PREROLL, Feed, PendingQueue

    work = room.work
    clip = work / "clip.wav"
    clip_seconds = spoken_clip(clip)
    out_rate = int(engine.sample_rate)
    mic = MicInput("")
    error = mic.start()
    if error:
        raise RuntimeError(f"cannot record from the room's microphone: {error}")
    feed = Feed.for_stream(out_rate, MIN_PREROLL)
    pending = PendingQueue()
    done = threading.Event()

    def callback(outdata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        if not feed.fill(outdata[:, 0]):
            raise sd.CallbackStop

    stream = sd.OutputStream(samplerate=out_rate, channels=1, dtype="float32", callback=callback, latency="low")
    record = work / "room.raw"
    rec = subprocess.Popen(["parec", "-d", "room.monitor", "--format=float32le", f"--rate={RATE}", "--channels=2",
                            "--latency-msec=20", str(record)], env=os.environ.copy())
    live = LiveFeed()
    cutter = PieceCutter(mic.sample_rate)
    meter = LatencyMeter(output_delay=output_delay)
    converted: queue.SimpleQueue[np.ndarray | None] = queue.SimpleQueue()

    def listen() -> None:  # the GUI's timer in the app: read the microphone, cut, feed
        while not done.is_set():
            time.sleep(TICK)
            block, arrived = mic.read()
            if block.size:
                for piece in cutter.push(block, arrived):
                    live.put(piece)
        last = cutter.flush()
        if last is not None:
            live.put(last)
        live.close()

    def convert() -> None:  # the engine thread in the app
        for piece in convert_pieces(engine, live.pieces(), voice=voice, seed=0):
            meter.add(piece)
            converted.put(piece.samples)
        converted.put(None)

    time.sleep(0.5)  # parec and the microphone running
    stream.start()
    threads = [threading.Thread(target=listen, name="mic", daemon=True),
               threading.Thread(target=convert, name="convert", daemon=True)]
    for t in threads:
        t.start()
    speaker = subprocess.Popen(["paplay", "-d", "mouth", str(clip)], env=os.environ.copy())
    while True:  # the player (the GUI thread in the app): top the feed up with what was converted
        if speaker.poll() is not None and not done.is_set():
            time.sleep(0.3)
            done.set()  # the speaker stopped: stop listening (the app's Stop live)
        try:
            item = converted.get(timeout=0.02)
        except queue.Empty:
            pending.top_up(feed)
            continue
        if item is None:
            pending.end()
            break
        pending.put(item)
        pending.top_up(feed)
    while not feed.drained:
        pending.top_up(feed)
        time.sleep(0.02)
    time.sleep(0.5)
    stream.stop()
    stream.close()
    mic.stop()
    rec.terminate()
    rec.wait()
    room = np.fromfile(record, dtype=np.float32)
    room = room[: room.shape[0] // 2 * 2].reshape(-1, 2)
    said, heard = bursts(room[:, 0], RATE), bursts(room[:, 1], RATE)
    matched = len(said) == len(heard) == len(SENTENCES)
    lat = [h[0] - s[0] for s, h in zip(said, heard, strict=False)] if matched else []
    result: dict[str, Any] = {
        "clip_seconds": clip_seconds, "sentences": len(SENTENCES), "said_bursts": len(said),
        "heard_bursts": len(heard), "matched": matched,
        "mouth_to_ear_s": lat,
        "first_mouth_to_ear_s": heard[0][0] - said[0][0] if said and heard else None,
        "end_to_end_s": heard[-1][1] - said[-1][1] if said and heard else None,
        "meter_latency_median_s": meter.median_latency(), "meter_rtf": meter.rtf, "pieces": meter.pieces,
        "underruns": feed.underruns, "mic_rate": mic.sample_rate, "mic_overflows": mic.overflows,
        "output_delay_s": output_delay,
    }
    if lat:
        result.update(mouth_to_ear_median_s=float(np.median(lat)), mouth_to_ear_max_s=float(np.max(lat)))
    return result


@contextlib.contextmanager
def open_room() -> Iterator[PulseRoom]:
    """The room for a whole run (PortAudio reads its ALSA configuration once per process)."""
    work = Path(tempfile.mkdtemp(prefix="cosy-live-pulse-"))
    try:
        with PulseRoom(work) as room:
            yield room
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the folder this made, nothing else
