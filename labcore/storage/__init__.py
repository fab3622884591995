"""Storage: checkpoints (files, manifest, save and load) and result sets (files, validation,
formatting, the studies' loaders)."""
