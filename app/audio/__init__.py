"""Sound: the player (sounddevice) and its Qt-free feed, and the checks of a voice clip."""
