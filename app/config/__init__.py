"""The user's settings and presets, and the app's bundled resources."""
