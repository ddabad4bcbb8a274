"""The terminal layer: parses arguments, calls the core, renders with rich."""
