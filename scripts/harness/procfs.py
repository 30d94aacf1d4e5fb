"""Readings from ``/proc``: CPU time of the machine and of processes, their memory, children and
sockets. The benchmark's CPU-per-request figures and the load test's memory and connection checks
come from here, so both read the kernel the same way."""

from __future__ import annotations

import contextlib
import os
import resource
from dataclasses import dataclass
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class CpuTimes:
    """Jiffies summed over all CPUs, from the first line of /proc/stat."""

    tasks: int
    """user + nice + system: time that processes account for in their own utime/stime."""
    irq: int
    """irq + softirq: interrupt work (loopback networking shows up here), attributed to nobody."""
    steal: int
    """Time the hypervisor gave to other guests: noise we cannot see from inside."""
    total: int

    def __sub__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(
            self.tasks - other.tasks,
            self.irq - other.irq,
            self.steal - other.steal,
            self.total - other.total,
        )


def read_cpu_times() -> CpuTimes:
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]] + [0] * 8
    user, nice, system, _idle, _iowait, irq, softirq, steal = v[:8]
    return CpuTimes(user + nice + system, irq + softirq, steal, sum(v[:8]))


def proc_stat(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name (index 0 is the state), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def proc_cpu_ticks(pid: int) -> int | None:
    """utime + stime of a process (all its threads, live and finished), in clock ticks."""
    fields = proc_stat(pid)
    return None if fields is None else int(fields[11]) + int(fields[12])


def proc_start_s(pid: int) -> float | None:
    """When the process started, in seconds since boot (CLOCK_BOOTTIME), tick resolution."""
    fields = proc_stat(pid)
    return None if fields is None else int(fields[19]) / CLK_TCK


def proc_name(pid: int) -> str:
    """The process's short name (``comm``), never its command line (which may carry secrets)."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip() or f"pid {pid}"
    except OSError:
        return f"pid {pid}"


def children_of(pid: int) -> list[int]:
    """The live children of ``pid``: a gunicorn master's workers."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    with contextlib.suppress(OSError):
        return sorted(int(p) for p in path.read_text().split())
    found = []  # kernels without CONFIG_PROC_CHILDREN: scan every process's parent
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = proc_stat(int(entry))
            if fields is not None and int(fields[1]) == pid:
                found.append(int(entry))
    return sorted(found)


@dataclass(frozen=True)
class Memory:
    """One process's memory, in KiB; None where the kernel would not say."""

    rss_kib: int | None
    hwm_kib: int | None
    """The peak RSS (VmHWM)."""
    pss_kib: int | None
    """Proportional set size: pages shared with the master (preload) split between sharers."""

    @property
    def rss_mib(self) -> float | None:
        return None if self.rss_kib is None else self.rss_kib / 1024

    @property
    def pss_mib(self) -> float | None:
        return None if self.pss_kib is None else self.pss_kib / 1024


def proc_memory(pid: int) -> Memory:
    """VmRSS and VmHWM from /proc/<pid>/status, Pss from smaps_rollup."""
    found: dict[str, int] = {}
    with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(rest.split()[0])
    with contextlib.suppress(OSError), open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key == "Pss":
                found["Pss"] = int(rest.split()[0])
    return Memory(found.get("VmRSS"), found.get("VmHWM"), found.get("Pss"))


def rss_mib(pid: int) -> float:
    """VmRSS in MiB; raises LookupError for a process that is gone."""
    found = proc_memory(pid).rss_mib
    if found is None:
        raise LookupError(pid)
    return found


def all_process_ticks() -> dict[int, int]:
    ticks = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            t = proc_cpu_ticks(int(entry))
            if t is not None:
                ticks[int(entry)] = t
    return ticks


def children_cpu_s() -> float:
    """CPU time of this process's children that have been waited for (wrk runs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def self_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def connections_held(pid: int, port: int) -> int:
    """Established TCP connections to ``port`` whose socket the process ``pid`` holds: what a
    gunicorn worker loses if it is killed (connections still queued belong to the master)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    held = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as lines:
            next(lines)
            for line in lines:
                parts = line.split()
                local_port = int(parts[1].rsplit(":", 1)[1], 16)
                if local_port == port and parts[3] == "01" and parts[9] in inodes:
                    held += 1
    return held
