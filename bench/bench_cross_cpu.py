"""Same numbers on another CPU? A digest of the lab's floating-point paths, compared across CPUs.

``python -m bench.bench_cross_cpu`` runs a *probe* in a fresh process per compute mode and prints
a digest of everything it computed: a few behaviour-cloning updates of six agent kinds (both
schedules, the real trainer and batch sizes), their autonomous rollouts, a decoder (scikit-learn
on OpenBLAS) and NumPy's own SIMD math. ``--qemu EPYC-Rome,Haswell`` also runs the probe under
``qemu-x86_64 -cpu MODEL`` (Debian's ``qemu-user``): user-mode emulation executes the same
binaries on an emulated CPU whose CPUID says AMD EPYC (AVX2, no AVX-512) or Intel Haswell, so
MKL, oneDNN, ATen, NumPy and OpenBLAS pick the kernels they would pick on that CPU. Equal
digests on the native CPU and every emulated one: same numbers across CPU families. (What
emulation cannot show: instructions whose results differ between vendors by design, such as
the approximate reciprocals ``rcpps``/``rsqrtps``; portable mode's MKL ``COMPATIBLE`` branch
avoids them, and the other libraries do not use them for these operations.)

``--cost`` times training of three kinds (5 seeds as one batch) in both modes, the figure that
decides the default mode (labcore.compute: keep "fast" above 1.5x).

Slow under emulation: about 7 minutes per emulated CPU (the probe takes 3 s natively).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE_KINDS = (
    ("wagering", "b2_ws"),
    ("dual", "b1"),
    ("dual", "a0"),
    ("dual", "hot_only"),
    ("dual", "bc_mlp"),
    ("dual", "b2"),
)
COST_KINDS = (("e1", "b2_ws"), ("e3", "b1"), ("e3", "b2"))


def _digest(x) -> str:
    import numpy as np
    import torch

    h = hashlib.sha256()
    if isinstance(x, dict):
        for k in sorted(x):
            h.update(k.encode())
            h.update(_digest(x[k]).encode())
        return h.hexdigest()[:16]
    if isinstance(x, torch.Tensor):
        x = x.detach().contiguous().numpy()
    h.update(np.ascontiguousarray(x).tobytes())
    return h.hexdigest()[:16]


def probe() -> dict[str, str]:
    """Digests of a few updates, rollouts and decoders through the lab's real code paths."""
    # labcore first: importing it pins the code paths (labcore.compute) before NumPy loads
    import labcore  # noqa: F401, I001
    import numpy as np

    import labcore.envs as E
    from labcore import compute
    from labcore.config import TrainConfig
    from labcore.markers import delta_nrs
    from labcore.rollout import rollout
    from labcore.seeding import episode_seeds
    from labcore.training.behaviour_cloning import train_seeds

    out: dict[str, str] = {}
    fast = TrainConfig(
        max_updates=3, min_updates=1, eval_every=3, train_episodes=64, heldout_episodes=32
    )
    for task, kind in PROBE_KINDS:
        agent = train_seeds(task, kind, [0, 1], fast)[0].agent
        out[f"train.{task}.{kind}"] = _digest(agent.state_dict())
        trace = rollout(
            agent, E.WAGERING if task == "wagering" else E.DUAL_TASK, episode_seeds(0, "eval", 16)
        )
        out[f"rollout.{task}.{kind}"] = _digest({"h": trace.h, "logits": trace.logits})
    paper = TrainConfig(mode="paper", train_episodes=2, heldout_episodes=16)
    out["train.paper.b1"] = _digest(train_seeds("dual", "b1", [0, 1], paper)[0].agent.state_dict())
    rng = np.random.default_rng(0)
    x = rng.standard_normal((200, 20))
    y = x[:, 0] + rng.standard_normal(200) > 0
    out["decoder.dnrs"] = repr(delta_nrs(x, y, n_splits=5, seed=0).delta)
    out["numpy.exp_log"] = _digest({"exp": np.exp(x), "log": np.log(np.abs(x) + 1)})
    out["numpy.matmul"] = _digest(x @ x.T)
    fp = compute.fingerprint(1)
    out["_fingerprint"] = compute.describe(fp)
    out["_code_path"] = json.dumps(compute.code_path(fp), sort_keys=True)
    return out


def run_probe(mode: str, qemu_cpu: str | None = None) -> tuple[dict[str, str], float]:
    """The probe's digests in a fresh process (under qemu when ``qemu_cpu`` is given) and its wall
    time."""
    cmd = [sys.executable, "-m", "bench.bench_cross_cpu", "--probe"]
    if qemu_cpu:
        cmd = ["qemu-x86_64", "-cpu", qemu_cpu, *cmd]
    env = {**os.environ, "CTLAB_COMPUTE": mode, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3 * 3600)
    if done.returncode:
        raise SystemExit(f"probe failed ({mode}, {qemu_cpu or 'native'}): {done.stderr[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1]), time.perf_counter() - start


def cost() -> None:
    """Training time of COST_KINDS, 5 seeds as one batch, fast vs portable."""
    for experiment, kind in COST_KINDS:
        seconds = {}
        for mode in ("fast", "portable"):
            with tempfile.TemporaryDirectory() as out:
                start = time.perf_counter()
                subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "labcore",
                        "--compute",
                        mode,
                        "train",
                        "--experiment",
                        experiment,
                        "--agent",
                        kind,
                        "--seeds",
                        "0-4",
                        "--out",
                        out,
                    ],
                    cwd=ROOT,
                    check=True,
                    capture_output=True,
                )
                seconds[mode] = time.perf_counter() - start
        print(
            f"{experiment} {kind:6s} 5 seeds: fast {seconds['fast']:6.1f} s, portable "
            f"{seconds['portable']:6.1f} s "
            f"({seconds['portable'] / seconds['fast']:.2f}x)",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--probe", action="store_true", help="(internal) run the probe in this process"
    )
    parser.add_argument(
        "--qemu", default="", help="comma list of qemu CPU models, e.g. EPYC-Rome,Haswell"
    )
    parser.add_argument("--cost", action="store_true", help="time training in both modes")
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(probe(), sort_keys=True))
        return
    if args.cost:
        cost()
        return
    cpus = [c for c in args.qemu.split(",") if c]
    if cpus and not shutil.which("qemu-x86_64"):
        raise SystemExit("qemu-x86_64 is not installed (Debian: apt-get install qemu-user)")
    for mode in ("portable", "fast"):
        native, seconds = run_probe(mode)
        print(f"== {mode}: native {native['_fingerprint']} ({seconds:.1f} s)", flush=True)
        for cpu in cpus:
            other, seconds = run_probe(mode, cpu)
            differing = sorted(
                k for k in native if not k.startswith("_") and native[k] != other.get(k)
            )
            verdict = (
                "identical"
                if not differing
                else f"{len(differing)} of {len(native) - 2} differ: {differing}"
            )
            same_path = native["_code_path"] == other["_code_path"]
            print(
                f"   {cpu:12s} {other['_fingerprint']}: {verdict}; fingerprints say "
                f"{'same' if same_path else 'different'} code path ({seconds:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
