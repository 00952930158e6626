"""The studio's jobs, one controller per job: speaking, playback, the takes list, export, audio devices,
voices and the recorder, models, pronunciation dictionaries, Script mode, line regeneration, long-form
renders, the editor's autosave and the local server. Each is built from the
:class:`~app.session.StudioSession` and the widgets it drives, runs on the GUI thread, and never sees
the main window, which builds and wires them."""
