"""Everything before the LM: text normalisation and tokenisation, audio features, the voice prompt.

Modules: :mod:`.text` and :mod:`.text_en` (normalisation, sentence splitting), :mod:`.tokenizer`
(the Qwen2 BPE), :mod:`.features` (mels, fbank, audio files), :mod:`.onnx_models` (speech
tokenizer and speaker encoder), :mod:`.prompt` (a reference recording turned into a voice prompt).
"""
