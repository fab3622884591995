"""Suite-wide settings: property tests draw the same examples on every run (same seed, same numbers)."""

from hypothesis import settings

settings.register_profile("lab", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("lab")
