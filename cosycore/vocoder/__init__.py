"""The HiFT vocoder: mel spectrogram in, waveform out (:mod:`.hift`)."""
