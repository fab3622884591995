"""Run every benchmark in sequence (``make bench``). Run nothing else on the machine meanwhile.

The long ones (the paper schedule in full, 20 seeds with training) are opt-in flags of
``bench.bench_train`` and ``bench.bench_reproduce``.
"""

import sys

from bench import bench_browser, bench_envs, bench_reproduce, bench_train

sys.argv = sys.argv[:1]  # the quick defaults of every benchmark
for module in (bench_envs, bench_train, bench_reproduce, bench_browser):
    print(f"== {module.__name__}", flush=True)
    module.main()
