"""Same seed, same weights, on any machine (docs/reliability.md, "Same seed, same
weights").

The bundled agents were trained in portable compute mode (``labcore.compute``): pinned kernels
that any x86-64 CPU with AVX2 runs identically, Intel or AMD. So:

1. retrained in portable mode from the committed code, a bundled agent is the bundled file bit for
   bit wherever the fingerprints' code paths match (any AVX2 x86-64 CPU with the pinned torch and
   NumPy); where they cannot match (no AVX2, other versions) the registered tolerances below apply;
2. in fast mode (the default: this CPU's own kernels) two retrains on one machine are bit-identical;
3. and a fast retrain, a different code path here and on every other CPU, is the same agent
   within the tolerances registered in docs/protocol.md (change log, 2026-11-24) on held-out
   agreement and the E1 markers.

Whenever a code change moves a single float of training, (1) fails until the bundle is
regenerated (checkpoints/README.md has the command).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from labcore.compute import RETRAIN_TOLERANCES, same_code_path
from labcore.experiments.e1 import view_values
from labcore.interventions import INTACT
from labcore.measures import metacognition
from labcore.seeding import episode_seeds
from labcore.storage.checkpoints import checkpoint_file, load_checkpoint, read_record

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
NAME = "wagering-b2_ws-s0"
BUNDLED = checkpoint_file(ROOT / "checkpoints", NAME)
E1_TRIALS = 600
"""The E1 evaluation's trials (ReproduceConfig().e1_trials): the registered comparison's budget."""


def _retrain(out: Path, mode: str) -> tuple[dict[str, torch.Tensor], dict, Path]:
    cmd = [
        sys.executable,
        "-m",
        "labcore",
        "--compute",
        mode,
        "train",
        "--experiment",
        "e1",
        "--agent",
        "b2_ws",
        "--seeds",
        "0",
        "--out",
        str(out),
    ]
    env = {k: v for k, v in os.environ.items() if k != "CTLAB_COMPUTE"}
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    path = checkpoint_file(out, NAME)
    return tensors_of(path), read_record(out, NAME), path


def tensors_of(path: Path) -> dict[str, torch.Tensor]:
    """The weights of a checkpoint file (either form), as stored: the loaded agent's state dict
    (loaded strictly, so its names and values are the file's)."""
    return load_checkpoint(path, verify=False).agent.state_dict()


@pytest.fixture(scope="module")
def bundled() -> tuple[dict[str, torch.Tensor], dict, Path]:
    return tensors_of(BUNDLED), read_record(ROOT / "checkpoints", NAME), BUNDLED


@pytest.fixture(scope="module")
def portable(tmp_path_factory):
    return _retrain(tmp_path_factory.mktemp("portable"), "portable")


@pytest.fixture(scope="module")
def fast_twice(tmp_path_factory):
    return [_retrain(tmp_path_factory.mktemp(f"fast{i}"), "fast") for i in range(2)]


def _differing(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> list[str]:
    assert a.keys() == b.keys()
    return [name for name in a if not torch.equal(a[name], b[name])]


def _e1_numbers(path: Path, record: dict) -> dict[str, float]:
    agent = load_checkpoint(path).agent
    view = metacognition(agent, INTACT, episode_seeds(0, "eval", E1_TRIALS))
    numbers = view_values(view)
    return {
        "heldout_agreement": record["heldout_agreement"],
        **{k: numbers[k] for k in ("accuracy", "auroc", "confidence", "skip", "ece")},
    }


def _outside_tolerance(
    ours: dict[str, float], reference: dict[str, float]
) -> dict[str, tuple[float, float]]:
    return {
        k: (ours[k], reference[k])
        for k, tol in RETRAIN_TOLERANCES.items()
        if not abs(ours[k] - reference[k]) <= tol
    }


def test_the_bundle_was_made_in_portable_mode(bundled):
    fp = bundled[1].get("compute") or {}
    assert fp.get("portable") is True, f"{NAME} was not trained in portable mode: {fp}"


def test_a_portable_retrain_is_the_bundled_agent_bit_for_bit(bundled, portable):
    same_path, differing_fields = same_code_path(bundled[1]["compute"], portable[1]["compute"])
    if not same_path:  # e.g. a CPU without AVX2, or other library versions: the tolerances apply
        outside = _outside_tolerance(
            _e1_numbers(portable[2], portable[1]), _e1_numbers(BUNDLED, bundled[1])
        )
        assert not outside, (
            f"another code path ({differing_fields}) and outside the registered "
            f"tolerances: {outside}"
        )
        pytest.skip(
            f"bit-for-bit needs the bundle's code path; this machine differs in {differing_fields} "
            "(within the registered tolerances)"
        )
    differing = _differing(bundled[0], portable[0])
    assert not differing, (
        f"{len(differing)} tensors differ (e.g. {differing[0]}) on the bundle's own code path: "
        "the bundled agents no longer come from this code; regenerate them (checkpoints/README.md)"
    )


def test_two_fast_retrains_on_this_machine_are_bit_identical(fast_twice):
    (a, ra, _), (b, rb, _) = fast_twice
    assert same_code_path(ra["compute"], rb["compute"])[0]
    assert not _differing(a, b)


def test_a_fast_retrain_is_the_bundled_agent_within_the_registered_tolerances(bundled, fast_twice):
    _, record, path = fast_twice[0]
    assert not same_code_path(bundled[1]["compute"], record["compute"])[
        0
    ]  # a genuinely other code path
    ours = _e1_numbers(path, record)
    reference = _e1_numbers(BUNDLED, bundled[1])
    assert np.isfinite(list(ours.values())).all()
    outside = _outside_tolerance(ours, reference)
    assert not outside, f"outside the registered tolerances (ours, bundled): {outside}"


def test_a_child_process_repins_what_its_parent_labcore_pinned(tmp_path):
    # This process imported labcore in fast mode (MKL_CBWR=AUTO,STRICT in its environment); a child
    # asked for portable mode must not take the inherited pin for a user's own setting.
    import labcore  # noqa: F401 - pins this process

    assert os.environ.get("MKL_CBWR")
    code = (
        "import labcore, json; from labcore import compute; "
        "print(json.dumps(compute.fingerprint(1)))"
    )
    env = {**os.environ, "CTLAB_COMPUTE": "portable"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env, timeout=120
    )
    fp = json.loads(done.stdout.strip().splitlines()[-1])
    assert fp["mkl_cbwr"] == "COMPATIBLE,STRICT" and fp["portable"] is True
    user = {**env, "MKL_CBWR": "AVX2", "CTLAB_COMPUTE_PINNED": ""}  # a user's own pin is kept
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=user,
        timeout=120,
    )
    assert json.loads(done.stdout.strip().splitlines()[-1])["portable"] is False
