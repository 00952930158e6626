"""Token -> mel flow-matching models (CosyVoice2 conformer + U-Net, Fun-CosyVoice3 DiT)."""
