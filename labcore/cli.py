"""Command line: ``python -m labcore train ...`` and ``python -m labcore study NAME ...``.

Examples (more in the README)::

    python -m labcore train --experiment e1 --agent b2_ws --seeds 0-4
    python -m labcore train --experiment all --agent all --seeds 0-4 --jobs 2
    python -m labcore train --experiment e4 --agent reward_all --seeds 0 --trainer rl --out runs/rl
    python -m labcore study paper --jobs 2 --out results/mine
    python -m labcore study pdw_sweep --set cells=S,O --out runs/some_cells
    python -m labcore --compute portable study e4 --out results/e4
    python -m labcore study paper --backend dask --scheduler tcp://HOST:8786 --out results/mine
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from labcore import compute
from labcore.checks import choice_error
from labcore.cluster import DASK_TIMEOUT, DistributedRunError, cluster_size
from labcore.config import (
    AGENT_KINDS,
    BUNDLED_EXPERIMENTS,
    KINDS_OF_EXPERIMENT,
    PAPER_EPISODES,
    TASK_OF_EXPERIMENT,
    TRAINERS,
    TrainConfig,
    train_config_of,
    trainer_of,
)
from labcore.humans.command import add_markers_command
from labcore.seeding import parse_seeds


def training_jobs(
    experiment: str, agents: str, mode: str, trainer: str | None = None
) -> list[tuple[str, str, int | None]]:
    """(task, kind, paper episodes) for every kind an experiment (``all``: the bundled ones)
    needs; ``trainer`` narrows ``all`` to its kinds. A kind that cannot train so ends the command
    with one sentence before anything trains."""
    experiments = list(BUNDLED_EXPERIMENTS) if experiment == "all" else [experiment]
    jobs: dict[tuple[str, str, int | None], None] = {}
    for exp in experiments:
        needed = KINDS_OF_EXPERIMENT[exp]
        kinds = needed if agents == "all" else [k.strip() for k in agents.split(",")]
        if agents == "all" and trainer is not None:
            kinds = [k for k in kinds if trainer_of(k) == trainer]
        for kind in kinds:
            if problem := choice_error(kind, "agent kind", (*AGENT_KINDS, "all")):
                raise SystemExit(f"error: {problem}")
            if trainer not in (None, trainer_of(kind)):
                raise SystemExit(
                    f"error: {kind} is made by --trainer {trainer_of(kind)}, not "
                    f"--trainer {trainer}"
                )
            if trainer_of(kind) == "rl":
                if mode == "paper" or TASK_OF_EXPERIMENT[exp] != "wagering":
                    raise SystemExit(
                        f"error: {kind} learns from the wagering task's reward in fast mode only "
                        "(E1 or E4, without --mode paper)"
                    )
                jobs[(TASK_OF_EXPERIMENT[exp], kind, None)] = None
                continue
            try:
                train_config_of(kind, TrainConfig(mode=mode), TASK_OF_EXPERIMENT[exp])
            except ValueError as exc:
                raise SystemExit(f"error: {exc}") from exc  # the record stays the cause
            episodes = PAPER_EPISODES[exp] if mode == "paper" else None
            jobs[(TASK_OF_EXPERIMENT[exp], kind, episodes)] = None
    return list(jobs)


def cmd_train(args: argparse.Namespace) -> int:
    """``train``: train every requested (task, kind, seed) and save the checkpoints."""
    jobs = training_jobs(args.experiment, args.agent, args.mode, args.trainer)  # refused first
    from labcore.storage.checkpoints import BUNDLED_DIR
    from labcore.training.provision import missing_seeds, plan_batches, progress_bar, run_batches

    args.out = args.out or str(BUNDLED_DIR)
    requests = []
    for task, kind, episodes in jobs:
        cfg = TrainConfig(
            mode=args.mode, train_episodes=args.episodes or episodes or TrainConfig().train_episodes
        )
        if args.max_updates is not None:
            cfg = replace(
                cfg,
                max_updates=args.max_updates,
                min_updates=min(cfg.min_updates, args.max_updates),
            )
        seeds = (
            missing_seeds(task, kind, args.seeds, [args.out], cfg)
            if args.skip_existing
            else args.seeds
        )
        requests.append((task, kind, seeds, cfg))
    batches = plan_batches(
        requests, args.out, workers=args.jobs, seed_batches=not args.no_seed_batch
    )
    if not batches:
        print("nothing to train")
        return 0
    bar, render = progress_bar("training", args.mode == "paper")
    try:
        records = run_batches(batches, workers=args.jobs, on_progress=render)
    finally:
        bar.close()
    for r in sorted(records, key=lambda r: (r["task"], r["kind"], r["seed"])):
        flag = ""
        if r["excluded"]:
            flag = (
                "  EXCLUDED: below the criterion "
                f"({r.get('criterion_text', 'held-out agreement >= 0.95')})"
            )
        elif not r["criterion_attainable"]:
            flag = "  (cue-blind by wiring: criterion unattainable by construction)"
        accuracy = f"accuracy {r['heldout_accuracy']:.4f} " if r.get("trainer") == "rl" else ""
        print(
            f"{r['task']:9s} {r['kind']:10s} seed {r['seed']:<4d} {accuracy}agreement "
            f"{r['heldout_agreement']:.4f} "
            f"updates {r['updates']:5d} (best {r['best_update']:5d}){flag}"
        )
    print(f"wrote {len(records)} checkpoint(s) to {args.out} in {len(batches)} batch(es)")
    return 0


def _dask_client(scheduler: str | None, jobs: int, timeout: float) -> tuple[Any, Any]:
    """The client (and local cluster of ``jobs`` workers) of ``study --backend dask``, announced
    on stderr; waits ``timeout`` seconds (0: no limit) for a worker, else one sentence."""
    from distributed import Client, LocalCluster

    cluster = None
    if scheduler:
        try:
            client = Client(scheduler)
        except (OSError, TimeoutError, ValueError) as exc:
            raise SystemExit(
                f"error: cannot reach the Dask scheduler at {scheduler} ({type(exc).__name__}); "
                "check the address and that the scheduler runs, or use --backend local"
            ) from None
    else:
        cluster = LocalCluster(
            n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    address = client.scheduler.address
    workers, threads = cluster_size(client)
    if not workers:
        limit = f"up to {timeout:g} s" if timeout else "with no time limit (--dask-timeout 0)"
        print(f"dask: 0 workers at {address} — waiting {limit} for a worker", file=sys.stderr)
        try:
            client.wait_for_workers(1, timeout=timeout or None)
        except TimeoutError:
            client.close()
            if cluster is not None:
                cluster.close()
            raise SystemExit(
                f"error: no Dask worker joined the scheduler at {address} within {timeout:g} s; "
                f"start one (dask worker {address}) or use --backend local"
            ) from None
        workers, threads = cluster_size(client)
    print(
        f"dask: {workers} worker(s) with {threads} thread(s) at {address}; units and training "
        "run there, not in this process",
        file=sys.stderr,
    )
    return client, cluster


def cmd_study(args: argparse.Namespace) -> int:
    """``study NAME``: run (or ``--resummarise``) a registered study, then its headline figure."""
    from labcore.experiments.study import (
        STUDIES,
        get_study,
        resummarise,
        run_study,
        with_overrides,
    )

    if args.list or not args.name:
        for name, entry in STUDIES.items():
            print(f"{name:14s} results/{entry.folder:22s} {entry.title}")
        return 0
    try:
        study = get_study(args.name)
        config = study.quick() if args.quick else study.design()
        config = with_overrides(config, args.set or [])
        study.units(config)  # a config the study cannot run (an unknown cell): one sentence
    except ValueError as exc:  # the refusal stays the exit's cause, with its record
        raise SystemExit(f"error: {exc}") from exc
    out = Path(args.out or Path("results") / study.folder)

    client = cluster = None
    if args.backend == "dask" and not args.resummarise:
        client, cluster = _dask_client(args.scheduler, args.jobs, args.dask_timeout)
    elif args.scheduler:
        raise SystemExit("error: --scheduler needs --backend dask")
    try:
        if args.resummarise:
            summary = resummarise(study, out, config)
        else:
            summary = run_study(
                study,
                out,
                config,
                jobs=args.jobs,
                backend=args.backend,
                rerun=args.rerun,
                say=partial(print, file=sys.stderr),
                dask_timeout=args.dask_timeout,
            )
    except (DistributedRunError, ValueError) as exc:
        raise SystemExit(f"error: {exc}") from exc  # the record stays the cause
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    from labcore.figures.registry import write_study_figure
    from labcore.render import answer, has_template

    figure = write_study_figure(study.name, out)
    if has_template(study.name):
        print(answer(summary, "short"))
    wrote = [f"{out}/summary.json"] + ([figure.name] if figure else [])
    if not args.no_report:
        from labcore.report import REPORTED_STUDIES, write_report

        if study.name in REPORTED_STUDIES:
            wrote.append(write_report(out).name)
    print("wrote " + ", ".join(wrote))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m labcore`` argument parser (subcommands ``train`` and ``study``)."""
    parser = argparse.ArgumentParser(prog="python -m labcore", description=__doc__.split("\n")[0])
    _compute_argument(parser)
    sub = parser.add_subparsers(dest="command", required=True)
    train = sub.add_parser(
        "train",
        help="train agents (behaviour cloning, or reinforcement learning) and save checkpoints",
    )
    train.add_argument("--experiment", required=True, choices=[*KINDS_OF_EXPERIMENT, "all"])
    train.add_argument(
        "--agent",
        required=True,
        help=f"a kind ({', '.join(AGENT_KINDS)}), a comma list, or 'all' the experiment needs",
    )
    train.add_argument(
        "--seeds", type=parse_seeds, default=[0], help="e.g. 0-4 or 1,3,7 (default 0)"
    )
    train.add_argument("--mode", choices=["fast", "paper"], default="fast")
    train.add_argument(
        "--trainer",
        choices=list(TRAINERS),
        default=None,
        help="bc (behaviour cloning) or rl (reinforcement learning on the task's reward: "
        "reward_all); default: each kind's own; with --agent all, only the kinds it makes",
    )
    train.add_argument("--out", default=None, help="checkpoint directory (default: checkpoints/)")
    train.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="seed batches side by side (processes, 1 torch thread each)",
    )
    train.add_argument(
        "--no-seed-batch",
        action="store_true",
        help="train one seed at a time instead of a kind's seeds as one batched model",
    )
    train.add_argument(
        "--skip-existing", action="store_true", help="do not retrain checkpoints already in --out"
    )
    train.add_argument(
        "--max-updates",
        type=int,
        default=None,
        help="cap on optimizer updates (fast mode; for smoke tests)",
    )
    train.add_argument(
        "--episodes",
        type=int,
        default=None,
        help=(
            "demonstration pool (fast) or training episodes (paper); default 4000 / the "
            "paper's count"
        ),
    )
    _compute_argument(train)
    train.set_defaults(func=cmd_train)

    study = sub.add_parser(
        "study",
        help="run a registered study (--list: which) through the one runner: units cached and "
        "resumable, rows written, findings summarised",
    )
    study.add_argument("name", nargs="?", help="the study (see --list)")
    study.add_argument("--list", action="store_true", help="list the registered studies")
    study.add_argument("--out", default=None, help="output folder (default results/<its folder>)")
    study.add_argument("--quick", action="store_true", help="the study's smoke-test budget")
    study.add_argument("--jobs", type=int, default=1, help="units side by side (processes)")
    study.add_argument("--backend", choices=["local", "dask"], default="local")
    study.add_argument(
        "--scheduler", default=None, help="address of a Dask scheduler (with --backend dask)"
    )
    study.add_argument(
        "--dask-timeout",
        type=float,
        default=DASK_TIMEOUT,
        help=f"with --backend dask: seconds to wait for a worker while the cluster has none, "
        f"then stop with an error (default {DASK_TIMEOUT:g}; 0: no limit)",
    )
    study.add_argument(
        "--no-report", action="store_true", help="skip report.html (studies that have one)"
    )
    study.add_argument(
        "--set",
        action="append",
        metavar="FIELD=VALUE",
        help="override a field of the study's config (repeatable; tuples comma-separated)",
    )
    study.add_argument(
        "--rerun",
        default=None,
        metavar="PATTERN",
        help="run again the units whose label matches this shell pattern (others already in "
        "the files are kept)",
    )
    study.add_argument(
        "--resummarise",
        action="store_true",
        help="only summarise the rows already in --out (no unit runs)",
    )
    _compute_argument(study)
    study.set_defaults(func=cmd_study)
    add_markers_command(sub)
    return parser


def _compute_argument(parser: argparse.ArgumentParser) -> None:
    """``--compute``: acted on by ``labcore.__main__`` before NumPy loads; here for --help."""
    parser.add_argument(
        "--compute",
        choices=list(compute.MODES),
        default=argparse.SUPPRESS,
        help="floating-point code paths: fast (this CPU's best kernels; default, or "
        "CTLAB_COMPUTE) or portable (the same numbers on any AVX2 x86-64 CPU, "
        "1.3-1.5x slower training; how the bundled agents were made)",
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m labcore``; returns the exit status."""
    args = build_parser().parse_args(argv)
    if compute.mode_error:
        raise SystemExit(f"error: {compute.mode_error}")
    if getattr(args, "compute", None) and args.compute != compute.requested_mode():
        raise SystemExit(
            "error: --compute must be given to `python -m labcore` itself (it is read before "
            "NumPy and torch load); or set CTLAB_COMPUTE"
        )
    if getattr(args, "jobs", 1) < 1:
        raise SystemExit("error: --jobs must be >= 1")
    if args.command == "study" and not 0 <= args.dask_timeout < math.inf:
        raise SystemExit("error: --dask-timeout must be a number of seconds >= 0 (0: no limit)")
    return args.func(args)
