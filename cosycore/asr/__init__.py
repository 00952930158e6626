"""Transcripts from speech: SenseVoice-Small through sherpa-onnx (issue 15, part 3).

* :mod:`.folder`: the release folder (``model.int8.onnx`` / ``model.onnx`` + ``tokens.txt``) and
  the checks that run before sherpa-onnx loads it (:func:`check_model_folder`);
* :mod:`.sensevoice`: the recognizer (:class:`SenseVoice`, :class:`Transcript`), 16 kHz
  resampling and the audio bounds;
* :mod:`.transcripts`: a voice's transcript, recognised once and kept in the voice file
  (:func:`ensure_transcript`).

The model is downloaded by the Models manager (:mod:`cosycore.hub`, id ``sensevoice-small``);
nothing here touches the network.
"""

from .folder import CATALOG_ID, LANGUAGES, MODEL_FILES, TOKENS_FILE, SenseVoiceFolder, check_model_folder
from .sensevoice import MAX_SECONDS, SAMPLE_RATE, SenseVoice, Transcript, check_audio
from .transcripts import ASR_SOURCE, ensure_transcript, transcribe_voice, with_transcript

__all__ = [
    "ASR_SOURCE", "CATALOG_ID", "LANGUAGES", "MAX_SECONDS", "MODEL_FILES", "SAMPLE_RATE", "TOKENS_FILE",
    "SenseVoice", "SenseVoiceFolder", "Transcript", "check_audio", "check_model_folder", "ensure_transcript",
    "transcribe_voice", "with_transcript",
]
