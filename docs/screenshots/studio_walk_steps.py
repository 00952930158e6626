"""The steps of ``studio_walk.py``'s two runs: what the user does, what is checked, and where a screenshot is taken."""

from __future__ import annotations

from pathlib import Path

from docs.screenshots.studio_walk import PROJECT, PROMPT, SCRIPT, TEXT, VOICE, Walk


def first_run(walk: Walk, work: Path, model: Path, answers: dict[str, str], ctrl) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QDialogButtonBox

    w = walk.w
    s = w.session
    takes = s.takes
    exported = work / "exports" / "lighthouse.mp3"

    def no_model() -> None:
        walk.check("a fresh home starts on the no-model screen", w.stack.currentWidget() is w.model_screen)
        walk.shot("no-model")
        answers["folder"] = str(model)  # the user picks the model folder
        walk.click(w.model_screen.choose_button)

    def loaded() -> None:
        walk.check(f"the model loaded (status: {w.statusBar().currentMessage()!r})", s.model_info is not None)
        walk.shot("model-loaded")
        walk.key(w.editor.edit, Qt.Key.Key_R, ctrl)  # Voice › Record a voice…
        rec = w.voices_ctl.recorder
        walk.check("Ctrl+R opens an empty recorder", rec is not None and rec.isVisible() and rec.trimmed().size == 0)
        answers["open"] = str(work / "clip.wav")
        walk.click(rec.open_button)

    def name_voice() -> None:
        rec = w.voices_ctl.recorder
        rec.name_edit.setFocus()
        rec.name_edit.selectAll()
        QTest.keyClicks(rec.name_edit, VOICE)
        QTest.keyClick(rec.name_edit, Qt.Key.Key_Tab)
        QTest.keyClicks(rec.transcript_edit, PROMPT)
        walk.check(f"the clip looks good ({rec.messages.text()!r})", "looks good" in rec.messages.text())
        walk.shot("recorder")
        walk.click(rec.save_button)

    def speak() -> None:
        walk.click(w.voices_ctl.recorder.close_button)
        w.editor.edit.setFocus()
        QTest.keyClicks(w.editor.edit, TEXT)
        walk.key(w.editor.edit, Qt.Key.Key_Return, ctrl)
        walk.check("Ctrl+Enter starts take 1", len(takes) == 1 and w.controls.stop_button.isEnabled())

    def streaming() -> None:
        walk.shot("streaming")
        walk.key(w.editor.edit, Qt.Key.Key_Escape)

    def stopped() -> None:
        walk.check(f"Esc stopped take 1 ({takes[0].state.value})", takes[0].state.value == "cancelled")
        walk.check("Stop is greyed out again", not w.controls.stop_button.isEnabled())
        walk.shot("stopped")
        walk.key(w.editor.edit, Qt.Key.Key_Return, ctrl)  # again, to the end

    def take_done() -> None:
        view = w.takes_view
        walk.check("take 2 is done", len(takes) == 2 and takes[1].state.value == "done")
        view.list.setFocus()
        rect = view.list.visualItemRect(view.list.item(1))
        walk.click(view.list.viewport(), rect.center())  # the user clicks take 2
        walk.check("take 2 is shown", s.shown_take is takes[1])
        walk.shot("take-done")
        walk.key(view.list, Qt.Key.Key_G, ctrl)  # Takes › Regenerate sentence…

    def regen_dialog() -> None:
        dialog = w.sentence_ctl.dialog_shown
        combo = dialog.sentence_combo
        combo.setCurrentIndex(combo.count() - 1)  # the last sentence
        walk.check(f"the dialog lists the take's sentences ({combo.count()})", combo.count() >= 1)
        walk.shot("regenerate-sentence")
        ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
        walk.click(ok)  # Regenerate

    def regenerated() -> None:
        walk.check("the take has a new version (Ctrl+Z would give the old one back)",
                   takes[1].previous_version is not None)
        walk.shot("regenerated")
        walk.key(w.takes_view.list, Qt.Key.Key_T, ctrl)  # Takes › Edit take…

    def trim() -> None:
        dialog = w.take_tools.edit_dialog
        before = takes[1].duration
        for box, value in ((dialog.start_box, 0.25), (dialog.end_box, max(0.5, dialog.duration - 0.5))):
            box.setFocus()
            box.selectAll()
            QTest.keyClicks(box, f"{value:.2f}")
            QTest.keyClick(box, Qt.Key.Key_Tab)
        walk.shot("trim")
        walk.click(dialog.apply_button)
        walk.check(f"the take is trimmed ({before:.2f} s -> {takes[1].duration:.2f} s)",
                   takes[1].duration < before - 0.6 and takes[1].edit is not None)
        dialog.close()
        answers["save"], answers["filter"] = str(exported), "MP3 (*.mp3)"
        exported.parent.mkdir(exist_ok=True)
        walk.key(w.takes_view.list, Qt.Key.Key_E, ctrl)  # File › Export take…

    def mp3() -> None:
        import soundfile as sf

        info = sf.info(str(exported))
        walk.check(f"the MP3 holds the trimmed take ({info.format}, {info.duration:.2f} s)",
                   info.format == "MP3" and abs(info.duration - takes[1].duration) < 0.2)
        walk.shot("exported-mp3")
        answers["save"] = str(work / "projects" / PROJECT)
        (work / "projects").mkdir(exist_ok=True)
        walk.key(w.editor.edit, Qt.Key.Key_S, ctrl | Qt.KeyboardModifier.ShiftModifier)  # Save project as…

    def saved() -> None:
        folder = work / "projects" / PROJECT
        walk.check("the project and both takes are in its folder",
                   (folder / f"{PROJECT}.cosyproj").is_file()
                   and all((folder / "takes" / t.uid).is_dir() for t in takes))
        walk.check(f"the title names the project ({w.windowTitle()!r})",
                   w.windowTitle().startswith(PROJECT) and not w.isWindowModified())
        walk.shot("project-saved")
        walk.key(w.editor.edit, Qt.Key.Key_Q, ctrl)  # File › Quit

    walk.step("window shown", w.isVisible, no_model)
    walk.step("model loaded", lambda: s.model_info is not None and not s.model_loading, loaded)
    walk.step("clip in the recorder", lambda: w.voices_ctl.recorder.trimmed().size > 0, name_voice)
    walk.step("voice saved", lambda: VOICE in w.voice_panel.names(), speak)
    walk.step("take 1 streaming", lambda: len(takes) == 1 and takes[0].chunk_count >= 2, streaming)
    walk.step("take 1 stopped", lambda: not s.engine.busy and not s.making(), stopped)
    walk.step("take 2 done", lambda: len(takes) == 2 and takes[1].state.value == "done" and not s.engine.busy,
              take_done)
    walk.step("sentence dialog", lambda: w.sentence_ctl.dialog_shown is not None
              and w.sentence_ctl.dialog_shown.isVisible(), regen_dialog)
    walk.step("sentence regenerated", lambda: not w.sentence_ctl.busy and not s.engine.busy
              and takes[1].previous_version is not None, regenerated)
    walk.step("edit dialog", lambda: w.take_tools.edit_dialog is not None and w.take_tools.edit_dialog.isVisible(),
              trim)
    walk.step("MP3 written", lambda: exported.exists() and w.export_ctl.running == 0, mp3)
    walk.step("project saved", lambda: w.windowTitle().startswith(PROJECT), saved)


def second_run(walk: Walk, work: Path, answers: dict[str, str], ctrl) -> None:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QDialogButtonBox

    from app.widgets.script_export_dialog import ScriptExportDialog

    w = walk.w
    s = w.session
    takes = s.takes
    out = work / "exports" / "dialogue.wav"

    def reopened() -> None:
        walk.check(f"the project is open again ({w.windowTitle()!r})", w.windowTitle().startswith(PROJECT))
        walk.check("both takes are back, the second trimmed and with its earlier version",
                   len(takes) == 2 and takes[1].edit is not None and takes[1].previous_version is not None)
        walk.check(f"the text is back ({w.editor.text()[:30]!r}…)", w.editor.text() == TEXT)
        walk.check("the model is still loading", s.model_loading and s.model_info is None)
        walk.key(w.editor.edit, Qt.Key.Key_Return, ctrl)  # Speak, while the model loads
        walk.check("the Speak waits for the model", s.speak_waiting and w.waiting_bar.isVisible())
        walk.shot("speak-waiting")

    def waited() -> None:
        walk.check("the waiting Speak made take 3", len(takes) == 3)
        walk.shot("waited-speak-done")
        walk.click(w.controls.mode_buttons["script"])
        w.editor.edit.setFocus()
        w.editor.edit.selectAll()
        for line in SCRIPT.splitlines():  # keyClicks types no line breaks: Enter between the lines
            QTest.keyClicks(w.editor.edit, line)
            QTest.keyClick(w.editor.edit, Qt.Key.Key_Return)

    def cast() -> None:
        for name in ("Anna", "Ben"):
            w.cast_table.set_voice(name, VOICE)
        walk.shot("script")
        walk.key(w.editor.edit, Qt.Key.Key_Return, ctrl)

    def script_done() -> None:
        walk.check("the script take is done", takes[-1].script is not None and takes[-1].state.value == "done")
        walk.shot("script-take")
        # The export dialog runs its own event loop: press the key from outside this step, whose timer would
        # not fire again inside that loop.
        QTimer.singleShot(0, lambda: walk.key(w.takes_view.list, Qt.Key.Key_E, ctrl))

    def export_dialog() -> None:
        dialog = walk.modal(ScriptExportDialog)
        dialog.path_edit.setFocus()
        dialog.path_edit.selectAll()
        QTest.keyClicks(dialog.path_edit, str(out))
        if not dialog.srt_check.isChecked():
            walk.click(dialog.srt_check)
        walk.shot("script-export")
        walk.click(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok))

    def exported() -> None:
        srt = out.with_suffix(".srt").read_text(encoding="utf-8")
        walk.check("the script's audio and subtitles with the speakers are written",
                   out.stat().st_size > 1000 and "Anna" in srt and "Ben" in srt)
        walk.shot("script-exported")
        walk.key(w.editor.edit, Qt.Key.Key_S, ctrl)  # Save project
        walk.check("saved: no unsaved mark", not w.isWindowModified())
        walk.key(w.editor.edit, Qt.Key.Key_Q, ctrl)

    walk.step("window shown", w.isVisible, reopened)
    walk.step("waiting Speak done", lambda: len(takes) == 3 and takes[2].state.value == "done" and not s.engine.busy,
              waited)
    walk.step("cast listed", lambda: {"Anna", "Ben"} <= set(w.cast_table.names()), cast)
    walk.step("script take done", lambda: len(takes) == 4 and takes[3].state.value == "done" and not s.engine.busy,
              script_done)
    walk.step("export dialog", lambda: walk.modal(ScriptExportDialog) is not None, export_dialog)
    walk.step("script exported", lambda: out.exists() and out.with_suffix(".srt").exists()
              and w.export_ctl.running == 0, exported)
