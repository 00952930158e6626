"""The HiFT vocoder: mel spectrogram in, waveform out.

Modules: :mod:`.layers` (causal convolutions, Snake, residual blocks), :mod:`.f0` (the f0
predictor), :mod:`.nsf` (the sine source and CosyVoice3's noise buffers), :mod:`.hift` (both
generators), :mod:`.load` and :mod:`.stream` (the CosyVoice2 and CosyVoice3 streams); on a CPU the
convolution body can run as an ONNX Runtime graph (:mod:`.ort_body`, built once by :mod:`.ort_build`).
"""
