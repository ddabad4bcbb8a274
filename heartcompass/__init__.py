"""HeartCompass: a second brain about the people in your life."""

__version__ = "0.1.0"
