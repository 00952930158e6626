"""Capture the pronunciation dictionary on a virtual screen: the editor, and a term underlined in the text
with its tooltip.

    Xvfb :99 -screen 0 1400x900x24 &
    python -m cosycore.testing.tiny_model /tmp/tiny-cv2 --family cosyvoice2
    DISPLAY=:99 .venv/bin/python -m docs.screenshots.lexicon_screenshots /tmp/tiny-cv2 docs/screenshots

Writes ``lexicon-editor.png`` (Tools › Pronunciation dictionary… with three entries; the Test field
showing how a sentence will be read), ``lexicon-refused.png`` (a fourth entry of pinyin tokens, which
CosyVoice2 cannot take, flagged) and ``lexicon-underline.png`` (the app's and the voice's terms underlined
in the text, the tooltip of the voice's term shown). The app runs with a throw-away home and a voice made
from an espeak-ng recording.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from docs.screenshots.screen import PROMPT, Step, capture, parse_args, place, prompt_wav, run_steps, start_app

TEXT = ("Dr. Nguyen paid $5 for the SQL course at Cosy Studio.\n"
        "Then Siobhan read the chapter aloud, and Nguyen took notes.")


def main() -> int:
    args, work = parse_args("cosy-lexicon-shots-")
    os.environ.pop("COSY_LEXICON", None)

    import torch

    torch.set_num_threads(1)
    from cosycore.engine import Engine
    from cosycore.studio.lexicon import Lexicon, LexiconEntry, save_csv, with_voice_lexicon
    from cosycore.voices import VoiceLibrary

    wav = prompt_wav(work)
    engine = Engine(args.model, device="cpu")
    voice = engine.create_voice(wav, transcript=PROMPT, name="Narrator")
    del engine
    voice = with_voice_lexicon(voice, Lexicon((LexiconEntry("Siobhan", "Shivawn"),)))

    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication

    from app.config.settings import Settings
    from app.main_window import MainWindow
    from app.worker.engine_thread import EngineThread

    app = start_app(args.language)
    settings = Settings()
    VoiceLibrary(settings.paths.voices).add(voice)
    save_csv(settings.paths.lexicon, Lexicon((LexiconEntry("Nguyen", "Win"), LexiconEntry("SQL", "sequel",
                                                                                         case_sensitive=True),
                                              LexiconEntry("Cosy Studio", "Cozy Studio"))))
    window = MainWindow(settings, model_dir=args.model, engine=EngineThread(torch_threads=1))
    place(window)
    args.out.mkdir(parents=True, exist_ok=True)

    def shot(name: str) -> None:
        capture(app, args.out / f"{name}.png", rounds=5)

    def open_editor() -> None:
        window.controls.set_mode("cross_lingual")
        window.editor.set_text(TEXT)
        dialog = window.lexicon_ctl.edit_app_lexicon()
        dialog.move(330, 150)
        dialog.test_edit.setText("Dr. Nguyen paid $5 for SQL at Cosy Studio.")
        dialog.refresh_test_now()

    def test_shown(error: bool) -> Callable[[], bool]:
        def ready() -> bool:
            dialog = window.lexicon_ctl.dialog
            return (dialog is not None and dialog.test_result is not None and dialog.test_output.count() > 0
                    and bool(dialog.test_result.error) == error)
        return ready

    def add_refused() -> None:
        dialog = window.lexicon_ctl.dialog
        assert dialog is not None
        dialog.add_entry("吉林", "[j][í][l][ín]")  # pinyin tokens: flagged for CosyVoice2
        dialog.table.clearSelection()
        dialog.refresh_test_now()

    def close_editor() -> None:
        dialog = window.lexicon_ctl.dialog
        if dialog is not None:
            dialog.done(0)

    def hover() -> None:  # the tooltip a resting mouse pointer gets, over the voice's term
        edit = window.editor.edit
        cursor = edit.textCursor()
        cursor.setPosition(TEXT.index("Siobhan") + 3)
        point = edit.cursorRect(cursor).center() + QPoint(2, 0)
        QApplication.sendEvent(edit.viewport(), QHelpEvent(QEvent.Type.ToolTip, point,
                                                           edit.viewport().mapToGlobal(point)))

    steps: list[Step] = [
        (lambda: window.session.model_info is not None and window.voice_panel.voice is not None, open_editor),
        (test_shown(False), lambda: shot("lexicon-editor")),
        (lambda: True, add_refused),
        (test_shown(True), lambda: shot("lexicon-refused")),
        (lambda: True, close_editor),
        (lambda: len(window.editor.sentences) > 0, hover),
        (lambda: True, lambda: None),  # the tooltip appears
        (lambda: True, lambda: shot("lexicon-underline")),
    ]

    run_steps(app, steps, 300)
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
