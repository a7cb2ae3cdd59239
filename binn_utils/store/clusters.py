"""Where a sweep's tasks run: Dask clusters and clients.

A local cluster of single-threaded worker processes (:func:`local_cluster`), an existing
scheduler (:func:`connect`), or batch-system workers started through dask-jobqueue
(:func:`make_jobqueue_cluster`, configured by a TOML file: :func:`load_cluster_config`),
each checked before any work with a one-line error; :func:`close_dask` closes them.
"""
from __future__ import annotations

import time

import contextlib
import logging

from ..engine.first_use import sigint_held_back

#: Batch systems whose workers dask-jobqueue starts (``--cluster``), by class name.
JOBQUEUE_CLUSTERS = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "sge": "SGECluster"}
#: Environment variable naming an existing Dask scheduler (as ``--scheduler``).
SCHEDULER_ENV = "BINN_SCHEDULER"
#: Keys of a cluster config section that are not dask-jobqueue arguments.
CLUSTER_ONLY_KEYS = ("jobs",)
#: The command each batch system submits jobs with (checked on PATH before a sweep starts).
SUBMIT_COMMANDS = {"slurm": "sbatch", "pbs": "qsub", "sge": "qsub"}
#: At most this many batch jobs per sweep (a typo such as jobs = 1e9 is refused, not submitted).
JOBS_MAX = 10_000
#: The type each known key of a cluster config section must have (others go to dask-jobqueue as they are).
CLUSTER_KEY_TYPES = {"jobs": int, "cores": int, "processes": int, "memory": str, "walltime": str, "queue": str,
                     "account": str, "job_extra_directives": list, "job_script_prologue": list, "interface": str,
                     "local_directory": str, "log_directory": str, "project": str, "name": str}
#: Seconds to wait for an existing Dask scheduler to answer.
CONNECT_TIMEOUT_S = 10


def load_cluster_config(path, kind: str) -> dict:
    """The ``[kind]`` section (e.g. ``[slurm]``) of a TOML cluster config file: keyword
    arguments of dask-jobqueue's cluster class (``queue``, ``walltime``, ``cores``,
    ``memory``, ``processes``, ``job_extra_directives``, ``account``, ...) plus ``jobs``,
    the number of batch jobs to start (default 1).  ValueError with one line if missing."""
    import tomllib
    if kind not in JOBQUEUE_CLUSTERS:
        raise ValueError(f"unknown cluster {kind!r}; choose one of {tuple(JOBQUEUE_CLUSTERS)}")
    if path is None:
        return {}
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as err:
        raise ValueError(f"cannot read the cluster config {path}: {err.strerror}") from None
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"the cluster config {path} is not valid TOML: {err}") from None
    except UnicodeDecodeError as err:            # a binary file, or text in another encoding
        raise ValueError(f"the cluster config {path} (--cluster-config) is not UTF-8 text (TOML): byte "
                         f"{err.object[err.start]:#04x} at position {err.start} cannot be read") from None
    section = doc.get(kind)
    if not isinstance(section, dict):
        raise ValueError(f"the cluster config {path} has no [{kind}] section")
    check_cluster_config(section, f"{path} [{kind}]")
    unknown = sorted(set(section) - known_cluster_keys(kind))
    if unknown:
        raise ValueError(f"{path} [{kind}]: unknown key(s) {', '.join(unknown)}: dask-jobqueue's "
                         f"{JOBQUEUE_CLUSTERS[kind]} takes none such (a typo?)")
    if "memory" in section:
        from dask.utils import parse_bytes
        try:
            parse_bytes(section["memory"])
        except (ValueError, TypeError):
            raise ValueError(f"{path} [{kind}]: memory {section['memory']!r} is not an amount of memory, e.g. "
                             'memory = "4GB"') from None
    return dict(section)


def known_cluster_keys(kind: str) -> set:
    """The keys a ``[kind]`` section may hold: ``CLUSTER_ONLY_KEYS`` and the keyword arguments of
    dask-jobqueue's cluster class and of its job class (with their bases'), read off their
    signatures, so that a typo is refused before a sweep starts, not after."""
    import inspect
    cls = getattr(import_dask_jobqueue(), JOBQUEUE_CLUSTERS[kind])
    names = set(CLUSTER_ONLY_KEYS)
    for k in (*cls.__mro__, *cls.job_cls.__mro__):
        if "__init__" in vars(k):
            names |= {n for n, p in inspect.signature(k.__init__).parameters.items()
                      if n != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    return names


def check_cluster_config(section: dict, where: str = "the cluster config"):
    """A one-line ValueError for a value of a known key of the wrong type or out of range
    (``CLUSTER_KEY_TYPES``; ``jobs``, ``cores`` and ``processes`` positive, ``jobs`` at most
    ``JOBS_MAX``)."""
    names = {int: "an integer", str: "a string", list: "a list"}
    for key, want in CLUSTER_KEY_TYPES.items():
        if key not in section:
            continue
        v = section[key]
        if not isinstance(v, want) or isinstance(v, bool):
            raise ValueError(f"{where}: {key} must be {names[want]}, got {v!r}: e.g. "
                             + {int: f"{key} = 2", str: f'{key} = "..."', list: f'{key} = ["..."]'}[want])
        if want is int and not 1 <= v <= (JOBS_MAX if key == "jobs" else 4096):
            raise ValueError(f"{where}: {key} must be between 1 and {JOBS_MAX if key == 'jobs' else 4096}, got {v}")
        if want is list and not all(isinstance(e, str) for e in v):
            raise ValueError(f"{where}: {key} must be a list of strings, got {v!r}")


def import_dask_jobqueue():
    """``dask_jobqueue``, without its side effect on Ctrl-C: importing it sets SIGINT's handler
    to ``sys.exit`` (its ``runner`` module does so when imported), and a Ctrl-C would then end
    the command with status 0, without saying what was kept or closing the cluster as an
    interrupt does.  SIGINT's handler from before the import is put back (``sigint_held_back``)."""
    with sigint_held_back():
        import dask_jobqueue
    return dask_jobqueue


def make_jobqueue_cluster(kind: str, config: dict):
    """A dask-jobqueue cluster of ``kind`` from a config section (:func:`load_cluster_config`);
    each worker is single-threaded (``processes`` defaults to ``cores``).  Starts a scheduler
    here, submits no job (``cluster.scale(jobs=...)`` does).  Returns (cluster, jobs)."""
    dask_jobqueue = import_dask_jobqueue()
    kw = {k: v for k, v in config.items() if k not in CLUSTER_ONLY_KEYS}
    kw.setdefault("cores", 1)
    kw.setdefault("memory", "4GB")
    kw.setdefault("processes", kw["cores"])
    check_cluster_config(config, f"the [{kind}] cluster config")
    cls = getattr(dask_jobqueue, JOBQUEUE_CLUSTERS[kind])
    try:
        cluster = cls(**kw)
    except (TypeError, ValueError, KeyError, AttributeError) as err:
        raise ValueError(f"bad [{kind}] cluster config: {type(err).__name__}: {err}") from None
    return cluster, int(config.get("jobs", 1))


#: Seconds the batch system may take to accept a sweep's jobs (each given its job id).
SUBMIT_TIMEOUT_S = 120


def wait_submitted(owned, jobs: int, kind: str, timeout: float | None = None):
    """Wait until each of the ``jobs`` batch jobs of a dask-jobqueue cluster has its job id (the
    submit command accepted it); a one-line RuntimeError where it has not within ``timeout``
    (``SUBMIT_TIMEOUT_S``): a failed ``sbatch`` was only logged, and the sweep waited for ever on
    workers that could not come, having said the jobs were submitted."""
    timeout = SUBMIT_TIMEOUT_S if timeout is None else timeout
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        ids = [getattr(w, "job_id", None) for w in list(owned.workers.values())]
        if len(ids) >= jobs and all(ids):
            return
        time.sleep(0.25)
    raise RuntimeError(f"the batch system did not accept the {jobs} job(s) within {timeout:g} s (`{SUBMIT_COMMANDS[kind]}` "
                       "failed, or hangs: its error is logged above); nothing was run")


def check_submit_command(kind: str):
    """A one-line ValueError if the batch system's submit command (``SUBMIT_COMMANDS``) is not on PATH."""
    import shutil
    cmd = SUBMIT_COMMANDS[kind]
    if shutil.which(cmd) is None:
        raise ValueError(f"--cluster {kind} submits its workers with `{cmd}`, which is not on PATH: run binn on "
                         f"the cluster's login node, or use --cluster local or --scheduler tcp://HOST:PORT")


#: The schemes of a scheduler's address binn connects with: plain TCP only (tls:// needs
#: certificates, ws:// and wss:// a websocket server, ucx:// UCX: binn passes none of their settings).
SCHEDULER_SCHEMES = ("tcp",)


def check_scheduler_address(address: str):
    """A one-line ValueError unless ``address`` looks like a Dask scheduler's address of a scheme
    binn connects with (``SCHEDULER_SCHEMES``: ``tcp://HOST:PORT``); an empty one (an unset shell
    variable) included."""
    from urllib.parse import urlsplit
    example = "tcp://HOST:PORT (as printed by `dask scheduler`), e.g. tcp://127.0.0.1:8786"
    try:
        parts = urlsplit(str(address))
        port = parts.port
    except ValueError:
        port = None
        parts = None
    if parts is not None and parts.scheme and parts.scheme not in SCHEDULER_SCHEMES and "://" in str(address):
        raise ValueError(f"scheduler address {address!r}: binn connects to a Dask scheduler over "
                         f"{', '.join(s + '://' for s in SCHEDULER_SCHEMES)} only, not {parts.scheme}://; "
                         f"give {example}")
    if parts is None or parts.scheme not in SCHEDULER_SCHEMES or not parts.hostname or port is None:
        raise ValueError(f"scheduler address {address!r} is not of the form {example}")


#: the largest number of frames a Dask message's header may announce before we call it not Dask
_MAX_FRAMES = 1 << 20
#: the fewest bytes a Dask message announces in its first 8 (its count of frames, then at least one
#: frame's length): fewer (e.g. eight zero bytes) is not Dask, and its client fails on it (struct.error)
_HANDSHAKE_MIN = 16


def probe_scheduler(address: str, timeout: float) -> str | None:
    """Why no Dask scheduler answers at a ``tcp://`` address, or None (it sent the start of a Dask
    handshake, or the address is not tcp://): nothing listens there, the host cannot be found or
    does not answer, or what listens is something else.  A Dask scheduler writes its handshake
    as soon as it accepts a connection; a web server, a proxy or another service waits for a
    request, so it sends nothing (or HTTP) and the Dask client would wait on it, or read its
    answer as a message of absurd length, or of none (struct.error)."""
    import socket
    from urllib.parse import urlsplit
    parts = urlsplit(address)
    if parts.scheme != "tcp":
        return None
    try:
        sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
    except socket.gaierror:
        return f"the host {parts.hostname!r} cannot be found"
    except socket.timeout:
        return f"nothing accepted a connection within {timeout:g} s (the wrong host, or a firewall?)"
    except ConnectionRefusedError:
        return "nothing listens there (connection refused)"
    except OSError as err:
        return f"cannot connect ({err.strerror or err})"
    first = b""
    try:
        with sock:
            sock.settimeout(timeout)
            while len(first) < 16:       # a handshake's first 16 bytes (they may come in parts)
                part = sock.recv(16 - len(first))
                if not part:
                    break
                first += part
    except socket.timeout:
        if first:
            return f"it sent {len(first)} byte(s) and then nothing within {timeout:g} s: not a Dask handshake"
        return (f"something accepted the connection but sent no Dask handshake within {timeout:g} s "
                "(a web server, a proxy or another service?)")
    except OSError as err:
        return f"something accepted the connection and then failed it ({err.strerror or err})"
    if first and len(first) < 16 and not first.startswith(b"HTTP/"):
        return f"it sent {len(first)} byte(s) and closed the connection: not a Dask handshake"
    if not first:
        return "something accepted the connection and closed it without a Dask handshake"
    if first.startswith(b"HTTP/"):
        return "it answers HTTP (a web server or proxy, e.g. the Dask dashboard's port), not the Dask protocol"
    if len(first) >= 8 and not _HANDSHAKE_MIN <= int.from_bytes(first[:8], "little") <= _MAX_FRAMES:
        return "what it sent is not a Dask handshake"
    if len(first) >= 16 and not 1 <= int.from_bytes(first[8:16], "little") <= _MAX_FRAMES:
        return "what it sent is not a Dask handshake"
    return None


def check_scheduler_answers(address: str):
    """A one-line RuntimeError naming ``address`` where no Dask scheduler answers
    (:func:`probe_scheduler`, within ``CONNECT_TIMEOUT_S`` seconds)."""
    why = probe_scheduler(address, CONNECT_TIMEOUT_S)
    if why:
        raise RuntimeError(f"no Dask scheduler answers at {address}: {why}; start one (`dask scheduler`) or "
                           "check the address")


def connect(address: str):
    """A Dask client of the scheduler at ``address``; a one-line RuntimeError naming it if it
    does not answer as a Dask scheduler within ``CONNECT_TIMEOUT_S`` seconds
    (:func:`probe_scheduler`: something else listening there would keep the client waiting)."""
    from distributed import Client
    check_scheduler_address(address)
    check_scheduler_answers(address)
    import struct
    try:
        return Client(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, EOFError, ValueError, MemoryError, struct.error) as err:
        raise RuntimeError(f"no Dask scheduler answers at {address} within {CONNECT_TIMEOUT_S} s "
                           f"({type(err).__name__}): start one (`dask scheduler`) or check the address") from None


def local_cluster(n_workers: int):
    """``n_workers`` single-threaded worker processes, the machine's memory shared among them."""
    import psutil
    from distributed import LocalCluster
    return LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                        memory_limit=psutil.virtual_memory().total // n_workers,
                        dashboard_address=":0", silence_logs=logging.ERROR)


def end_worker_processes():
    """End this process's multiprocessing children at once (a Dask cluster's workers and
    nannies, process pools), leaving any other child alone."""
    import psutil
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):
            if "multiprocessing" in " ".join(child.cmdline()):
                child.terminate()


def close_dask(client, owned, interrupted: bool = False):
    """Close a Dask client and the cluster this process started (None: none).  After Ctrl-C
    (``interrupted``) the worker processes of a cluster this process started are ended at
    once, and distributed's own complaints about it are not logged while it closes: the
    command says in one line what was kept.  A further Ctrl-C meanwhile is held back until
    both are closed (``sigint_held_back``): cut short, the closing left the cluster to
    distributed's own closing at exit, which waited some ten seconds for workers already ended."""
    quiet = {name: logging.getLogger(name) for name in ("distributed", "asyncio", "tornado")} \
        if interrupted else {}
    levels = {name: log.level for name, log in quiet.items()}
    try:
        with sigint_held_back() if interrupted else contextlib.nullcontext():
            for log in quiet.values():
                log.setLevel(logging.CRITICAL + 1)
            if interrupted and owned is not None:
                end_worker_processes()
            for thing in (client, owned):
                if thing is None:
                    continue
                if interrupted:
                    with contextlib.suppress(Exception):
                        thing.close(timeout=5)
                else:
                    thing.close()
    finally:
        for name, log in quiet.items():
            log.setLevel(levels[name])


def dashboard_line(client) -> str:
    try:
        import bokeh  # noqa: F401 - the dashboard needs it
    except ImportError:
        return "dashboard: install bokeh to get one"
    return f"dashboard {client.dashboard_link}"
