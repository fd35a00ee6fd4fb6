"""The full-screen Textual front end of ``cribsquares play``."""
