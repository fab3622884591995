"""Oracle demonstrations: real MiniGrid stepping vs. the batched simulator.

Run: ``.venv/bin/python -m bench.bench_envs``. Prints seconds per 1,000 dual-task episodes.
"""

from __future__ import annotations

import time

import gymnasium as gym

import labcore.envs as E


def minigrid_episodes(task_id: str, n: int) -> float:
    env = gym.make(task_id).unwrapped
    start = time.perf_counter()
    for seed in range(n):
        env.reset(seed=seed)
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(env.oracle_action())
            done = terminated or truncated
    return time.perf_counter() - start


def batched_episodes(task_id: str, n: int) -> float:
    start = time.perf_counter()
    E.oracle_demonstrations(task_id, range(n))
    return time.perf_counter() - start


def main() -> None:
    for task_id in (E.DUAL_TASK, E.WAGERING):
        batched_episodes(task_id, 100)  # warm the pose tables
        n_mg, n_b = 300, 8000
        mg = minigrid_episodes(task_id, n_mg) / n_mg * 1000
        b = batched_episodes(task_id, n_b) / n_b * 1000
        print(
            f"{task_id}: MiniGrid {mg:.2f} s / 1000 oracle episodes; batched {b:.3f} "
            f"s; {mg / b:.0f}x"
        )


if __name__ == "__main__":
    main()
