"""User-facing tools: demo, hint, play, watch, media and serve."""
