"""The speech language model: a Qwen2 decoder that turns text tokens into speech tokens.

Modules: :mod:`.speech_lm` (the LM and its decoding loops), :mod:`.quant` (int8 weights),
:mod:`.hf_export` and :mod:`.vllm_backend` (the optional vLLM path).
"""
