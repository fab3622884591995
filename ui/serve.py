"""Start the real lab: one ``streamlit run app.py`` server for tests and benchmarks, or a class of
them behind nginx (``make class``).

A class larger than one Python process serves gets several server processes behind
Debian's nginx (``apt-get install nginx``), with sticky sessions: Streamlit keeps a session's state
in the process that holds its websocket, so every request of a browser must reach the same
server. The proxy hashes a cookie (``ctlab_server``, set on the first response from nginx's
request id) onto the servers; the websocket upgrade headers are passed on. Each server gets one
training worker (``CTLAB_TRAIN_WORKERS=1``), and they share ``runs/user`` (seed reservations
are atomic across processes, :class:`ui.jobs.SeedBook`). By default there is one server per core
(:func:`default_servers`: two on the reference machine).

    python -m ui.serve class --port 8501        # or: make class [SERVERS=3] [PORT=8501]

prints the address students open (this machine's LAN address) and runs until Ctrl-C.

Every server runs without Streamlit's file watcher: ``.streamlit/config.toml`` says so
(``fileWatcherType = "none"``), and Streamlit reads it beside ``app.py`` whoever starts the server
(``make run``, :func:`start_server`).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
"""Flags for a headless chromium on a machine without a network beyond loopback."""
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
"""Debian's nginx (package ``nginx``); ``make class`` and its test need it."""
STICKY_COOKIE = "ctlab_server"
"""The cookie nginx hashes a browser's requests on (sticky sessions)."""


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def default_servers() -> int:
    """Lab processes ``make class`` starts: one per core this process may use (at least one).

    One Streamlit process runs its sessions' scripts in threads of one Python interpreter, so it
    computes on one core at a time; two processes on this 2-core machine keep both cores busy. A
    third only queues behind the other two and adds its own memory (about 0.5-0.7 GiB at peak,
    bench/README.md), and nginx's single worker needs little. Sessions stay sticky (a cookie hashed
    onto the servers, :func:`nginx_config`), however many servers there are.
    """
    try:
        cores = len(os.sched_getaffinity(0))  # the cores this process may run on (cgroups, taskset)
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores)


def server_command(port: int, address: str = "127.0.0.1") -> list[str]:
    """The command line of one lab server: ``streamlit run app.py`` on ``address:port``.

    The file watcher is off by ``.streamlit/config.toml``, which Streamlit reads beside ``app.py``
    (and in the working directory, :data:`ROOT`): no flag here overrides it.
    """
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "app.py"),
        "--server.port",
        str(port),
        "--server.address",
        address,
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]


def start_server(
    port: int,
    *,
    address: str = "127.0.0.1",
    env: dict[str, str] | None = None,
    log: Path | None = None,
) -> subprocess.Popen:
    """Start ``streamlit run app.py`` on ``address:port`` (output to ``log``, else a pipe)."""
    out = open(log, "ab") if log else subprocess.PIPE  # the child writes to it
    return subprocess.Popen(
        server_command(port, address),
        cwd=ROOT,
        stdout=out,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )


def wait_healthy(url: str, procs: Sequence[subprocess.Popen], timeout: float) -> None:
    """Wait until ``url``'s ``/_stcore/health`` answers "ok"; raise if a process exits first."""
    deadline = time.monotonic() + timeout
    while True:
        for proc in procs:
            if proc.poll() is not None:
                out = (
                    proc.stdout.read().decode(errors="replace") if proc.stdout else "(see its log)"
                )
                raise RuntimeError(f"a lab process exited ({proc.args[0]}):\n{out}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"the lab did not answer on {url} within {timeout:.0f} s")
        time.sleep(0.3)


def stop(proc: subprocess.Popen, timeout: float = 10) -> None:
    """Terminate a process this module started, then kill it if it does not end."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)


@contextlib.contextmanager
def running_lab(timeout: float = 60.0, env: dict[str, str] | None = None) -> Iterator[str]:
    """Yield the base URL of a freshly started lab server; stop it afterwards. Its visitors' agents
    and seed reservations go to a temporary folder (``$CTLAB_USER_RUNS``), never ``runs/user``,
    and its classes to a temporary store (``$CTLAB_CLASS_DB``); ``env`` adds to its environment."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="ctlab-user-runs-") as runs:
        proc = start_server(
            port,
            env={
                "CTLAB_USER_RUNS": runs,
                "CTLAB_CLASS_DB": str(Path(runs) / "class.sqlite"),
                **(env or {}),
            },
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, [proc], timeout)
            yield url
        finally:
            stop(proc)


def upload_limit_mb() -> int:
    """The servers' cap on one uploaded file, in MB (``server.maxUploadSize`` of
    ``.streamlit/config.toml``): the proxy lets as much through, so an upload over a page's own
    limit reaches the page's check and its sentence, not a refusal from nginx."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    return int(config["server"]["maxUploadSize"])


def nginx_config(ports: Sequence[int], listen: str, workdir: Path) -> str:
    """An nginx configuration: ``listen`` (``host:port``) proxied to the servers on ``ports``.

    Sticky sessions: the upstream is chosen by a consistent hash of the ``ctlab_server`` cookie,
    set from nginx's ``$request_id`` on a browser's first response; every later request of that
    browser, its websocket included, reaches the same server. ``X-Lab-Server`` names it (tests).
    """
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=0;" for p in ports)
    temp = "\n".join(
        f"    {name}_temp_path {workdir / name};"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    user = "user nobody nogroup;\n" if os.geteuid() == 0 else ""
    return f"""{user}worker_processes 1;
daemon off;
pid {workdir / "nginx.pid"};
error_log {workdir / "error.log"} warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
{temp}
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    map $cookie_{STICKY_COOKIE} $lab_key {{ "" $request_id; default $cookie_{STICKY_COOKIE}; }}
    upstream lab {{
        hash $lab_key consistent;
{servers}
    }}
    server {{
        listen {listen};
        client_max_body_size {upload_limit_mb() + 1}m;
        location / {{
            proxy_pass http://lab;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_read_timeout 1d;
            proxy_send_timeout 1d;
            proxy_buffering off;
            add_header Set-Cookie "{STICKY_COOKIE}=$lab_key; Path=/; HttpOnly; SameSite=Lax" always;
            add_header X-Lab-Server $upstream_addr always;
        }}
    }}
}}
"""


def start_nginx(ports: Sequence[int], listen: str, workdir: Path) -> subprocess.Popen:
    """Run nginx in the foreground with :func:`nginx_config` written into ``workdir``."""
    if not Path(NGINX).exists():
        raise FileNotFoundError(
            f"no nginx at {NGINX}: install Debian's nginx package (apt-get install nginx)"
        )
    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (workdir / name).mkdir(parents=True, exist_ok=True)
        os.chmod(workdir / name, 0o777)  # nginx's workers run as nobody when it is started as root
    os.chmod(workdir, 0o755)
    conf = workdir / "nginx.conf"
    conf.write_text(nginx_config(ports, listen, workdir))
    check = subprocess.run(
        [NGINX, "-t", "-c", str(conf), "-p", str(workdir)], capture_output=True, text=True
    )
    if check.returncode:
        raise RuntimeError(f"nginx refused its configuration:\n{check.stderr}")
    return subprocess.Popen(
        [NGINX, "-c", str(conf), "-p", str(workdir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


@dataclass(frozen=True)
class Served:
    """A running lab: the address to open, its servers' ports and process ids (and the proxy's)."""

    url: str
    ports: list[int]
    pids: list[int]
    proxy_pid: int | None = None


def ensure_nginx() -> str:
    """Debian's nginx, installed with apt-get when it is missing (as root); its path."""
    if not Path(NGINX).exists() and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "nginx"],
            check=True,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
    if not Path(shutil.which("nginx") or NGINX).exists():
        raise FileNotFoundError("nginx is missing: apt-get install nginx")
    return shutil.which("nginx") or NGINX


@contextlib.contextmanager
def running_class(
    servers: int | None = None,
    port: int | None = None,
    listen: str = "127.0.0.1",
    timeout: float = 120.0,
    workdir: Path | None = None,
    proxy: bool = True,
    scratch_runs: bool = False,
) -> Iterator[Served]:
    """Run ``servers`` lab processes behind nginx (``proxy=False``: one server alone); stop all
    after.

    ``servers`` defaults to :func:`default_servers` (one alone without the proxy). Beside several
    servers each does its numerical work on one thread (``OMP_NUM_THREADS=1`` unless set), so the
    processes share the cores instead of each spreading over all of them.
    ``scratch_runs`` (tests, benchmarks): the servers share a temporary ``$CTLAB_USER_RUNS`` in the
    work folder instead of ``runs/user``."""
    if servers is None:
        servers = default_servers() if proxy else 1
    if not proxy and servers != 1:
        raise ValueError("several servers need the proxy")
    port = port or free_port()
    ports = [free_port() for _ in range(servers)] if proxy else [port]
    own = workdir is None
    work = Path(tempfile.mkdtemp(prefix="ctlab-class-")) if own else Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen] = []
    try:
        for i, p in enumerate(ports):
            env = {
                "CTLAB_TRAIN_WORKERS": "1",
                **(
                    {"OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
                    if servers > 1
                    else {}
                ),
                **({"CTLAB_USER_RUNS": str(work / "user-runs")} if scratch_runs else {}),
                # students reach the proxy, not this server: links are checked against its address
                **({"CTLAB_LISTEN": listen} if proxy else {}),
            }
            procs.append(start_server(p, env=env, log=work / f"server-{i}.log"))
        for p in ports:
            wait_healthy(f"http://127.0.0.1:{p}", procs, timeout)
        pids = [proc.pid for proc in procs]
        url = f"http://127.0.0.1:{port}"
        proxy_pid = None
        if proxy:
            procs.append(start_nginx(ports, f"{listen}:{port}", work))
            proxy_pid = procs[-1].pid
            url = f"http://{'127.0.0.1' if listen in ('0.0.0.0', '') else listen}:{port}"
            wait_healthy(url, procs, 30)
        yield Served(url, ports, pids, proxy_pid)
    finally:
        for proc in reversed(procs):
            stop(proc)
        if own:
            shutil.rmtree(work, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ui.serve class [--servers N] [--port P] [--listen ADDR]``: a class until
    Ctrl-C."""
    parser = argparse.ArgumentParser(
        prog="python -m ui.serve", description="Serve the lab to a class."
    )
    parser.add_argument("command", choices=("class",))
    parser.add_argument(
        "--servers",
        type=int,
        default=default_servers(),
        help="lab processes behind nginx (default: one per core, here %(default)s)",
    )
    parser.add_argument("--port", type=int, default=8501)
    parser.add_argument(
        "--listen", default="0.0.0.0", help="address nginx listens on (0.0.0.0: every network)"
    )
    args = parser.parse_args(argv)
    from ui.share import lan_address

    ensure_nginx()
    with running_class(args.servers, args.port, args.listen) as served:
        ports = served.ports
        public = f"http://{lan_address() or '127.0.0.1'}:{args.port}"
        print(
            f"{args.servers} lab servers (ports {', '.join(map(str, ports))}) behind "
            f"nginx on {args.listen}:{args.port}.\n"
            f"Students open {public} (set CTLAB_BASE_URL if they reach this machine by "
            "another name). Ctrl-C stops.",
            flush=True,
        )
        signal.signal(
            signal.SIGTERM, signal.default_int_handler
        )  # stop as on Ctrl-C: the servers end too
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
