#!/usr/bin/env python3
"""CPU time a process has used, in ms, in all and by group of its threads (the thread's name without its digits and
what follows a ' - ' or '#': all netty workers in one group, all GC threads in another), read from /proc; with a file
of an earlier snapshot, what was used since. Prints one line: total=<ms> then <group>=<ms> ..., largest first, groups that used nothing left out.

    python3 scripts/proc-cpu.py PID > before; ...; python3 scripts/proc-cpu.py PID before

A thread that ended between the two snapshots counts in the total (the process's own figure) but in no group.
"""
import os, re, sys

TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def ticks(stat_path):
    # the fields after the command's name, which is in parentheses and may hold spaces: utime and stime are 14 and 15
    fields = open(stat_path).read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def snapshot(pid):
    groups = {"total": ticks(f"/proc/{pid}/stat") * TICK_MS}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            name = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
            used = ticks(f"/proc/{pid}/task/{tid}/stat") * TICK_MS
        except FileNotFoundError:
            continue
        group = re.sub(r"\d+", "", re.split(r" - |#", name)[0]).strip(" -_").replace(" ", "_") or "unnamed"
        groups[group] = groups.get(group, 0) + used
    return groups


now = snapshot(sys.argv[1])
if len(sys.argv) > 2:
    before = dict((k, float(v)) for k, v in (p.split("=", 1) for p in open(sys.argv[2]).read().split()))
    now = {k: v - before.get(k, 0) for k, v in now.items()}
rest = sorted(((k, v) for k, v in now.items() if k != "total" and v > 0), key=lambda kv: -kv[1])
print(" ".join(f"{k}={v:.0f}" for k, v in [("total", now["total"])] + rest))
