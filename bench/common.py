"""Shared helpers of the benchmark scripts: timed subprocesses with peak memory."""

from __future__ import annotations

import os
import platform
import subprocess
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


def timed(args: list[str], *, timeout: float | None = None) -> Run:
    """Run ``args``; return wall time and the child's own peak RSS (``os.wait4``)."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
    _, status, usage = os.wait4(proc.pid, 0) if proc.returncode is None else (0, 0, None)
    seconds = time.perf_counter() - start
    peak = usage.ru_maxrss / 1024 if usage else _maxrss_fallback()
    if proc.returncode:
        raise RuntimeError(f"{' '.join(args)} failed:\n{out}")
    return Run(" ".join(args), seconds, peak, out.strip())


def _maxrss_fallback() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


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
