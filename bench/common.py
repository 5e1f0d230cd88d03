"""Shared helpers of the benchmark scripts: timed subprocesses with peak memory."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Run:
    """One timed command."""

    command: str
    seconds: float
    peak_mib: float
    output: str


_WRAPPER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def timed(args: list[str], *, timeout: float | None = None) -> Run:
    """Run ``args``; return wall time and the command's own peak RSS.

    A tiny wrapper process runs the command as its only child, so ``RUSAGE_CHILDREN``
    is that command's peak and nothing else's.
    """
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, *_direct(args)], capture_output=True,
                          text=True, timeout=timeout, env=ENV)
    seconds = time.perf_counter() - start
    *messages, peak_kib = proc.stderr.strip().splitlines() or ["0"]
    if proc.returncode:
        raise RuntimeError(f"{' '.join(args)} failed:\n{proc.stdout}{chr(10).join(messages)}")
    return Run(" ".join(args), seconds, int(peak_kib) / 1024, proc.stdout.strip())


#: Every measured command (ours and the peers') runs with Python's usual bytecode cache:
#: some sandboxes set PYTHONDONTWRITEBYTECODE, which recompiles every module at start-up.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _direct(args: list[str]) -> list[str]:
    """Run ``gamedb`` as the console script of this interpreter's environment, not
    through a version-manager shim on PATH (pyenv's adds ~0.1 s to every command)."""
    if not args or args[0] != "gamedb":
        return args
    script = Path(sys.executable).with_name("gamedb")
    return [str(script), *args[1:]] if script.is_file() else args


def gamedb_build(spec: str, *extra: str, timeout: float | None = None) -> Run:
    """Time the whole ``gamedb build SPEC`` command on a fresh file."""
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "bench.sqlite")
        return timed(["gamedb", "build", spec, "--db", db, "--quiet", *extra], timeout=timeout)


def machine() -> str:
    """Describe this machine in one line."""
    cpu = "unknown cpu"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}")


PAGE = os.sysconf("SC_PAGE_SIZE")


def tree(root: int) -> list[int]:
    """Return ``root`` and every live descendant."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack += children.get(pid, [])
    return found


def memory(pids: list[int]) -> tuple[int, int]:
    """Return the summed RSS and PSS (bytes) of ``pids``."""
    rss = pss = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm") as f:
                rss += int(f.read().split()[1]) * PAGE
            with open(f"/proc/{pid}/smaps_rollup") as f:
                pss += next(int(line.split()[1]) * 1024 for line in f if line.startswith("Pss:"))
        except (OSError, StopIteration, ValueError):
            pass
    return rss, pss
