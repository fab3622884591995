"""Run every benchmark in sequence (``make bench``). Run nothing else on the machine meanwhile."""

from bench import bench_envs

bench_envs.main()
