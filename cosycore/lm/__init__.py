"""The speech language model: a Qwen2 decoder that turns text tokens into speech tokens.

Modules: :mod:`.qwen2` (the decoder), :mod:`.kv_cache`, :mod:`.sampling` (RAS, nucleus, greedy),
:mod:`.token_ids`, :mod:`.speech_lm` (the LM and its unistream decode), :mod:`.bistream` (text
arriving while speech is generated), :mod:`.load`, :mod:`.quant` (int8 weights), and the optional
vLLM path: :mod:`.hf_export` and :mod:`.vllm_backend`.
"""
