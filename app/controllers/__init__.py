"""The main window's jobs, one controller per job: takes and playback, export, audio devices, voices
and the recorder, models. Each holds a reference to the window for its widgets and runs on the GUI
thread; the window keeps the layout and forwards its public methods here."""
