"""get_system_info: the machine at a glance, from psutil."""

from __future__ import annotations

import os
import platform
from typing import Any

import psutil

from harness.actors.tools._jail import Workspace
from harness.actors.tools._result import Result

__all__ = ["get_system_info"]

_GB = 1024**3


def get_system_info(ws: Workspace, args: dict[str, Any]) -> Result:
    mem = psutil.virtual_memory()
    disk = psutil.disk_usage(str(ws.root))
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    procs = []
    for p in psutil.process_iter(["pid", "name", "memory_info", "cpu_times"]):
        info = p.info
        mi = info.get("memory_info")
        ct = info.get("cpu_times")
        if mi is None:
            continue
        cpu = (ct.user + ct.system) if ct is not None else 0.0
        procs.append((mi.rss, cpu, info["pid"], info.get("name") or "?"))
    top = sorted(procs, reverse=True)[:5]
    lines = [
        f"os: {platform.system()} {platform.release()} ({platform.machine()})",
        f"python: {platform.python_version()}",
        f"cpu: {psutil.cpu_count(logical=True)} logical / "
        f"{psutil.cpu_count(logical=False) or '?'} physical; "
        f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
        f"memory: {mem.used / _GB:.1f} GB used of {mem.total / _GB:.1f} GB "
        f"({mem.percent:.0f}%), {mem.available / _GB:.1f} GB available",
        f"disk (workspace): {disk.used / _GB:.1f} GB used of {disk.total / _GB:.1f} GB "
        f"({disk.percent:.0f}%), {disk.free / _GB:.1f} GB free",
        "top processes by memory:",
    ]
    lines += [
        f"  pid {pid:>7}  {rss / 1024**2:8.1f} MB  cpu {cpu:8.1f} s  {name}"
        for rss, cpu, pid, name in top
    ]
    data = {
        "cpu_count": psutil.cpu_count(logical=True),
        "memory_total": mem.total,
        "memory_available": mem.available,
        "disk_free": disk.free,
    }
    return Result("\n".join(lines), data)
