"""Suite-wide settings: one numerical thread per process, property tests draw the same examples
on every run (same seed, same numbers), the modules with slow tests run first, and the
``neurogym_installed`` fixture of the NeuroGym tests."""

import os

# One numerical thread per process, set before anything imports NumPy or torch (children inherit
# it: the CLI runs, the lab servers): two workers on two cores, each with a multi-threaded BLAS,
# oversubscribe the machine and OpenBLAS's spinning threads burn the difference. Measured on the
# reference machine (2026-11-28): the full suite 810 s -> 648 s wall, 1,318 -> 1,032 CPU-seconds.
# What the tests compare does not move with it: training, the experiments' units and the view
# cache set their own torch thread count, and the suite passes either way.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

settings.register_profile("lab", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("lab")


@pytest.fixture(scope="session")
def neurogym_installed() -> None:
    """Skip where NeuroGym is not installed; with ``CTLAB_REQUIRE_NEUROGYM=1`` (set by ``.ci/run``:
    the README's set-up installs it) a missing NeuroGym fails instead."""
    from labcore.envs import neurogym_wager as W

    if not W.neurogym_available():
        reason = f"NeuroGym is not installed ({W.NEUROGYM_PIN}, requirements-neurogym.txt)"
        if os.environ.get("CTLAB_REQUIRE_NEUROGYM") == "1":
            pytest.fail(f"CTLAB_REQUIRE_NEUROGYM=1 but {reason}")
        pytest.skip(reason)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Modules with a slow test first (a stable sort; a module's tests stay together, so its
    fixtures are built once): on two workers the longest tests start early instead of keeping one
    worker busy while the other has finished (``make test`` runs ``--dist worksteal``)."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)
