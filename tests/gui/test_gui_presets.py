"""Instruct presets in the app: the grouped picker with search, combinations, the exact-prompt info line,
user presets (saved with the settings, surviving a restart, carried in exported voices), and the
instruction of a take in the Takes list and in exported WAV/FLAC metadata (read back with soundfile)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtCore import QSettings, Qt

from app.config.preset_names import LABELS
from app.config.settings import AppPaths, Settings
from app.config.user_presets import UserPreset, merge_user_presets, parse_user_presets
from app.main_window import MainWindow
from app.takes.export import export_take, take_metadata
from app.takes.take import Take, TakeList
from app.widgets.synthesis_controls import SynthesisControls
from app.widgets.takes_list import TakesList
from app.widgets.voice_panel import VoicePanel
from cosycore.errors import InputError
from cosycore.mode_plan import plan_mode
from cosycore.presets import load_instruct_presets
from cosycore.voices import encode_voice, load_voice, save_voice


def _settings(folder: Path) -> Settings:
    store = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    return Settings(store, AppPaths(data=folder / "data", cache=folder / "cache", logs=folder / "logs"))


@pytest.fixture
def controls(qtbot) -> SynthesisControls:
    c = SynthesisControls()
    qtbot.addWidget(c)
    c.set_mode("instruct")
    c.show()
    return c


def _groups(c: SynthesisControls) -> dict[str, int]:
    tree = c.picker.tree
    out = {}
    for i in range(tree.topLevelItemCount()):
        head = tree.topLevelItem(i)
        out[head.text(0)] = sum(1 for j in range(head.childCount()) if head.child(j).data(0, 256))
    return out


def test_every_label_of_the_table_is_translatable() -> None:
    assert {p.label for p in load_instruct_presets()} <= set(LABELS)


def test_the_picker_groups_both_families(controls: SynthesisControls) -> None:
    c = controls
    assert not c.preset_button.isEnabled()  # no model yet
    c.set_family("cosyvoice2")
    assert _groups(c) == {"Dialect": 6, "Emotion": 8, "Speed": 4, "Volume": 0, "Role play": 7, "Custom": 0}
    c.set_family("cosyvoice3")
    assert _groups(c) == {"Dialect": 17, "Emotion": 3, "Speed": 2, "Volume": 2, "Role play": 2, "Custom": 0}
    item = c.picker.item_for("preset:volume.loud")
    assert item.text(0) == "Loud" and item.text(1) == "Please say a sentence as loudly as possible."
    assert item.toolTip(0).startswith("The loudest possible voice\nSource: the original's instruct list")


def test_search_filters_by_name_text_meaning_and_id(controls: SynthesisControls) -> None:
    c = controls
    c.set_family("cosyvoice3")
    c.picker.search.setText("sichuan")
    assert c.picker.visible_keys() == ["preset:dialect.sichuanese"]
    c.picker.search.setText("开心")  # the instruction text
    assert c.picker.visible_keys() == ["preset:emotion.happy"]
    c.picker.search.setText("ANGRILY")  # the gloss, case-insensitive
    assert c.picker.visible_keys() == ["preset:emotion.angry"]
    heads = {c.picker.tree.topLevelItem(i).text(0): c.picker.tree.topLevelItem(i).isHidden()
             for i in range(c.picker.tree.topLevelItemCount())}
    assert heads["Emotion"] is False and heads["Dialect"] is True  # groups without a match are hidden
    c.picker.search.clear()
    assert len(c.picker.visible_keys()) == 26


def test_clicks_combine_in_group_order(controls: SynthesisControls) -> None:
    c = controls
    c.set_family("cosyvoice3")
    c.choose_preset("volume.soft")
    c.choose_preset("emotion.happy")
    c.choose_preset("dialect.cantonese")
    assert c.instruct_text == "请用广东话表达。请非常开心地说一句话。Please say a sentence in a very soft voice."
    c.choose_preset("emotion.sad")  # replaces the other emotion
    assert c.instruct_text == "请用广东话表达。请非常伤心地说一句话。Please say a sentence in a very soft voice."
    c.choose_preset("role.robot")  # a role stands alone
    assert c.selected_keys() == ["preset:role.robot"] and c.instruct_text == "你可以尝试用机器人的方式解答吗？"
    c.choose_preset("speed.fast")  # and gives way to any other preset
    assert c.selected_keys() == ["preset:speed.fast"]
    c.choose_preset("speed.fast")  # a second click unchecks
    assert c.selected_keys() == [] and c.instruct_text == ""
    checked = [k for k in c.picker.choice_keys() if c.picker.item_for(k).checkState(0).value == 2]
    assert checked == []
    c.choose_preset("dialect.sichuanese")
    c.instruct_edit.textEdited.emit("typed")  # typing by hand clears the check marks
    assert c.selected_keys() == []


def test_the_picker_works_from_the_keyboard(qtbot, controls: SynthesisControls) -> None:
    c = controls
    c.set_family("cosyvoice3")
    c.picker.popup_below(c.preset_button, c.instruct_row)
    qtbot.waitUntil(c.picker.isVisible, timeout=2000)
    qtbot.keyClicks(c.picker.search, "loud")
    qtbot.keyClick(c.picker.search, Qt.Key.Key_Return)  # the single match
    assert c.selected_keys() == ["preset:volume.loud"]
    c.picker.search.clear()
    c.picker.search.setText("话表达")  # the 17 dialects (keyClicks takes ASCII only)
    qtbot.keyClick(c.picker.search, Qt.Key.Key_Down)
    qtbot.keyClick(c.picker.tree, Qt.Key.Key_Down)
    qtbot.keyClick(c.picker.tree, Qt.Key.Key_Space)
    assert c.selected_keys() == ["preset:volume.loud", "preset:dialect.northeastern"]
    assert c.instruct_text == "请用东北话表达。Please say a sentence as loudly as possible."
    assert c.picker.tree.currentItem() is c.picker.item_for("preset:dialect.northeastern")  # focus stays
    qtbot.keyClick(c.picker.tree, Qt.Key.Key_Escape)
    assert not c.picker.isVisible()


@pytest.mark.parametrize("family", ["cosyvoice2", "cosyvoice3"])
def test_the_info_line_shows_exactly_what_the_lm_receives(controls: SynthesisControls, family: str) -> None:
    c = controls
    assert "Load a model" in c.instruct_info.text()
    c.set_family(family)
    c.choose_preset("dialect.sichuanese")
    expected = plan_mode("instruct", family, instruction=c.instruct_text).lm_prompt_text  # type: ignore[arg-type]
    assert c.lm_prompt() == expected
    assert c.instruct_info.text() == f"The model receives: {expected} then the text."
    if family == "cosyvoice3":
        assert expected == "You are a helpful assistant. 请用四川话表达。<|endofprompt|>"
    else:
        assert expected == "用四川话说这句话<|endofprompt|>"
    c.instruct_edit.setText("Speak <|endofprompt|> twice <|endofprompt|>")
    assert c.instruct_info.text().startswith("Not usable:")
    c.instruct_edit.setText("")
    assert "<instruction><|endofprompt|>" in c.instruct_info.text()


def test_user_presets_survive_a_restart(qtbot, tmp_path: Path) -> None:
    first = SynthesisControls()
    qtbot.addWidget(first)
    first.attach_settings(_settings(tmp_path))
    first.set_family("cosyvoice2")
    first.instruct_edit.setText("用撒娇的语气说这句话")
    saved = first.save_user_preset("Coy")
    assert saved == UserPreset("Coy", "用撒娇的语气说这句话") and first.selected_keys() == ["user:Coy"]
    with pytest.raises(InputError, match="already a preset called"):
        first.save_user_preset("Coy", "other")
    with pytest.raises(InputError, match="already saved"):
        first.save_user_preset("Again")
    with pytest.raises(InputError, match="added by the program"):
        first.save_user_preset("Marker", "x<|endofprompt|>")
    first.save_user_preset("Pirate", "Speak like a pirate.")

    again = SynthesisControls()  # a new session reading the same INI file
    qtbot.addWidget(again)
    again.attach_settings(_settings(tmp_path))
    again.set_family("cosyvoice3")
    assert again.user_presets() == [UserPreset("Coy", "用撒娇的语气说这句话"),
                                    UserPreset("Pirate", "Speak like a pirate.")]
    assert _groups(again)["Custom"] == 2
    again.choose_preset("emotion.happy")
    again.choose_user_preset("Pirate")  # a custom preset stands alone
    assert again.instruct_text == "Speak like a pirate." and again.selected_keys() == ["user:Pirate"]
    again.delete_user_preset("Coy")
    assert [p.name for p in _settings(tmp_path).user_presets] == ["Pirate"]


def test_unreadable_user_presets_are_set_aside_not_overwritten(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    s._s.setValue("synthesis/user_presets", "[{broken")
    assert s.user_presets == []
    s.user_presets = [UserPreset("A", "Speak softly.")]
    assert s._s.value("synthesis/user_presets_unreadable") == "[{broken"
    assert _settings(tmp_path).user_presets == [UserPreset("A", "Speak softly.")]
    assert parse_user_presets([{"name": "ok", "text": "Speak."}, {"name": "", "text": "x"}, "junk"]) == [
        UserPreset("ok", "Speak.")]
    merged = merge_user_presets([UserPreset("A", "one")], [UserPreset("A", "two"), UserPreset("B", "one")])
    assert merged == [UserPreset("A", "one"), UserPreset("A (2)", "two")]


def test_exported_voices_carry_the_user_presets(qtbot, settings, library_with_voice, tiny_engine_voice,
                                               tmp_path: Path) -> None:
    assert "instruct_presets" not in encode_voice(tiny_engine_voice).decode("latin-1")  # old layout unchanged
    panel = VoicePanel(library_with_voice)
    qtbot.addWidget(panel)
    controls = SynthesisControls()
    qtbot.addWidget(controls)
    controls.attach_settings(settings)
    controls.save_user_preset("Pirate", "Speak like a pirate.")
    panel.presets_for_export = controls.presets_for_export
    panel.presets_imported.connect(controls.add_imported_presets)
    panel.select("Tester")
    assert panel.export_to(tmp_path / "shared")
    shared = load_voice(tmp_path / "shared.cosyvoice")
    assert shared.instruct_presets == (("Pirate", "Speak like a pirate."),)

    # another user's app imports it: their own presets stay, the new one is added
    other = _settings(tmp_path / "other")
    other_controls = SynthesisControls()
    qtbot.addWidget(other_controls)
    other_controls.attach_settings(other)
    other_controls.save_user_preset("Mine", "Whisper it.")
    panel.presets_imported.disconnect()
    panel.presets_imported.connect(other_controls.add_imported_presets)
    panel.delete_current()
    assert [i.name for i in panel.import_files([tmp_path / "shared.cosyvoice"])] == ["Tester"]
    assert [p.name for p in _settings(tmp_path / "other").user_presets] == ["Mine", "Pirate"]


def test_a_voice_file_with_bad_presets_is_refused(tmp_path: Path, tiny_engine_voice) -> None:
    import json
    import zipfile

    from cosycore.voices import payload_checksum

    path = save_voice(tmp_path / "v.cosyvoice", tiny_engine_voice)
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    header = json.loads(entries["voice.json"])
    header.pop("checksum")
    header["instruct_presets"] = [{"name": 3}]
    arrays = {n[:-4]: entries[n] for n in entries if n.endswith(".npy")}
    header["checksum"] = {"algorithm": "sha256", "value": payload_checksum(header, arrays)}
    entries["voice.json"] = json.dumps(header).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for n, data in entries.items():
            zf.writestr(n, data)
    with pytest.raises(InputError, match="instruct_presets"):
        load_voice(path)


def _take(instruction: str, mode: str = "instruct") -> Take:
    take = Take(1, "收到好友从远方寄来的生日礼物。 Hello!", mode=mode, voice_name="Anna", sample_rate=24000, seed=7,
                instruction=instruction)
    return take


def test_a_take_records_its_instruction_in_the_list(qtbot) -> None:
    takes = TakeList()
    view = TakesList(takes)
    qtbot.addWidget(view)
    takes.add(_take("请用广东话表达。请非常开心地说一句话。"))
    item = view.list.item(0)
    assert "请用广东话表达。请非常开心地说一句话。" in item.text()
    assert "Instruction: 请用广东话表达。请非常开心地说一句话。" in item.toolTip() and "Voice: Anna" in item.toolTip()
    assert _take("ignored", mode="cross_lingual").instruction == ""  # only instruct takes have one


@pytest.mark.parametrize(("fmt", "suffix", "container"), [("wav16", ".wav", "WAV"), ("wav_float", ".wav", "WAV"),
                                                           ("flac", ".flac", "FLAC")])
def test_exported_files_carry_text_voice_and_instruction(tmp_path: Path, fmt: str, suffix: str,
                                                        container: str) -> None:
    take = _take("请用广东话表达。请非常开心地说一句话。")
    audio = (0.1 * np.sin(np.arange(2400) / 10)).astype(np.float32)
    path = export_take(tmp_path / f"take{suffix}", fmt, audio, 24000, (), take_metadata(take))
    with sf.SoundFile(str(path)) as f:
        assert f.format == container and f.frames == 2400
        assert f.title == "收到好友从远方寄来的生日礼物。 Hello!"
        assert f.artist == "Anna"
        assert f.comment == "Mode: instruct; instruction: 请用广东话表达。请非常开心地说一句话。; seed: 7"
        assert f.software.startswith("Cosy Studio")  # libsndfile appends its own name in WAV files
    plain = export_take(tmp_path / f"plain{suffix}", fmt, audio, 24000, (), take_metadata(_take("", "zero_shot")))
    assert sf.SoundFile(str(plain)).comment == "Mode: clone; seed: 7"


def test_a_very_long_text_is_cut_in_the_metadata(tmp_path: Path) -> None:
    take = Take(1, "字" * 5000, mode="zero_shot", voice_name="Anna", sample_rate=24000)
    path = export_take(tmp_path / "long.flac", "flac", np.zeros(240, np.float32), 24000, (), take_metadata(take))
    title = sf.SoundFile(str(path)).title
    assert len(title) == 1000 and title.endswith("…")


def test_the_main_window_records_and_exports_the_instruction(qtbot, window: MainWindow, tmp_path: Path) -> None:
    w = window
    w.controls.set_mode("instruct")
    w.controls.choose_preset("emotion.sad")
    w.editor.set_text("Hello there.")
    with qtbot.waitSignal(w.session.engine.synthesis_finished, timeout=10_000):
        w.speaking_ctl.speak()
    take = w.session.takes[-1]
    assert take.instruction == "你能用悲伤的情感说吗？"
    assert w.session.engine.requests[-1].instruct_text == take.instruction
    assert "你能用悲伤的情感说吗？" in w.takes_view.list.item(0).text()
    assert w.export_ctl.export(take, tmp_path / "t.flac", "flac")
    assert "instruction: 你能用悲伤的情感说吗？" in sf.SoundFile(str(tmp_path / "t.flac")).comment
