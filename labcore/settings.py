"""The lab's environment variables (``CTLAB_*``; empty counts as unset), read at each call.

>>> Settings(train_workers="3").train_workers, Settings(train_workers="many").train_workers
(3, None)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Every ``CTLAB_*`` variable the lab reads; None (or the default) where it is unset."""

    model_config = SettingsConfigDict(env_prefix="CTLAB_", env_ignore_empty=True, frozen=True)

    compute: str = "fast"
    """The compute mode, "fast" or "portable" (checked by ``labcore.compute``)."""
    compute_pinned: str = ""
    """The pins a parent labcore process set, comma-separated (:mod:`labcore.compute`)."""
    class_db: Path | None = None
    """The class store's SQLite file (:class:`labcore.classroom.store.ClassStore`)."""
    train_workers: int | None = None
    """Training jobs the app runs at once; not a number: unset."""
    checkpoints: Path | None = None
    """Where the pages find agents (default ``checkpoints/``)."""
    user_runs: Path | None = None
    """Where visitors' trained agents go (default ``runs/user``)."""
    view_cache: Path | None = None
    """The bundled agents' precomputed views (``ui.data.VIEW_CACHE_DIR``)."""
    listen: str | None = None
    """The address of a proxy in front of the server (:func:`ui.share.listening_on`)."""
    base_url: str | None = None
    """The address students open, as it is (:func:`ui.share.share_base`)."""

    @field_validator("train_workers", mode="before")
    @classmethod
    def _number_or_unset(cls, value: Any) -> Any:
        try:
            return int(value)
        except (TypeError, ValueError):
            return None


def settings() -> Settings:
    """The ``CTLAB_*`` variables as the environment holds them now."""
    return Settings()
