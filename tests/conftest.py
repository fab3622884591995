"""Suite-wide settings: one numerical thread per process, property tests draw the same examples
on every run (same seed, same numbers), the modules with slow tests run first, and the
``neurogym_installed`` fixture of the NeuroGym tests."""

import os
from pathlib import Path

# One numerical thread per process, set before anything imports NumPy or torch (children inherit
# it: the CLI runs, the lab servers): two workers on two cores, each with a multi-threaded BLAS,
# oversubscribe the machine and OpenBLAS's spinning threads burn the difference. Measured on the
# reference machine (2026-11-28): the full suite 810 s -> 648 s wall, 1,318 -> 1,032 CPU-seconds.
# What the tests compare does not move with it: training, the experiments' units and the view
# cache set their own torch thread count, and the suite passes either way.
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

# Same examples on every run; no deadline and no "too slow" check: the examples' time depends on
# what else the two cores are doing, not on the code (a loaded machine once failed the check).
settings.register_profile(
    "lab",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
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


HEAVY_FILES = {
    "ui/test_browser.py": 315,
    "experiments/test_machine_independent.py": 87,
    "ui/pages/test_every_page.py": 84,
    "agents/test_bundle_reproducible.py": 82,
    "experiments/test_dask_faults.py": 73,
    "agents/test_training.py": 39,
    "bench/test_protocol_client.py": 37,
    "agents/test_provision.py": 31,
    "experiments/test_explore_e3.py": 31,
    "experiments/test_experiments.py": 30,
    "agents/test_cli.py": 24,
    "ui/pages/test_reward.py": 20,
    "agents/test_neurogym_agents.py": 21,
}
"""Worker-seconds of the heaviest test files, measured with ``--durations`` on the reference
machine (2026-11-29, a full run on a clean clone): only the order the files start
in; a stale figure costs packing, not correctness."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The heaviest files first, longest first, then the other files with a slow test, then the
    rest (a stable sort; a file's tests stay together). ``make test`` hands out whole files
    (``--dist loadfile``), so a file's module fixtures are built once, and the order makes it
    longest-first: the two workers end together instead of one running a long file alone."""
    root = Path(__file__).resolve().parent
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}

    def weight(item: pytest.Item) -> tuple[int, bool]:
        name = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else ""
        return -HEAVY_FILES.get(name, 0), item.path not in slow_files

    items.sort(key=weight)
