"""Same seed, same weights: a bundled agent retrained from the committed code is the bundled file.

Issue 13 found the first wave's ``wagering-b2_ws-s0`` could not be regenerated (weights up to
0.23 apart, first difference at update 50, in the 7th digit of the training loss): it had been
trained by a working copy whose floating-point order differed from the code committed with it.
The trainer itself was deterministic run to run. This test keeps the bundle honest: whenever a
change to the code moves a single float of training, it fails until the bundle is regenerated
(checkpoints/README.md has the command).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "checkpoints" / "wagering-b2_ws-s0.safetensors"


def test_retraining_a_bundled_agent_gives_its_weights_bit_for_bit(tmp_path):
    cmd = [sys.executable, "-m", "labcore", "train", "--experiment", "e1", "--agent", "b2_ws",
           "--seeds", "0", "--out", str(tmp_path)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    bundled, retrained = load_file(BUNDLED), load_file(tmp_path / BUNDLED.name)
    assert bundled.keys() == retrained.keys()
    differing = [name for name in bundled if not torch.equal(bundled[name], retrained[name])]
    assert not differing, (f"{len(differing)} tensors differ (e.g. {differing[0]}): the bundled agents no "
                           "longer come from this code; regenerate them (checkpoints/README.md)")
