#!/usr/bin/env python3
"""cpu-per-transfer.py ROUNDS NAME=CMD[@page] ...: the relay's CPU per transfer on the channel path, by variant.

For each variant in turn (ROUNDS times, in the same order each round): a fresh ledger, the relay started on the C
stand-in core (fastcore) with --no-jobs, 30 s of load from the C loadgen (32 connections) to warm it, then 20 s of
load measured: transfers per second, and the relay's CPU (utime+stime from /proc) over those 20 s divided by the
transfers. A variant whose name ends in @page has the route page open: loaded once at the start of the warm-up (every
picture drawn), then every 5 s the pictures at its top fetched again (/routes.svg, /routes/receive-telegram.svg), as
its script does. CPU per transfer moves much less than throughput on a machine that others load. Needs the C tools that
../shared/bench/side-by-side.py builds into /tmp/relaybench-bin.
"""
import os, re, socket, subprocess, sys, tempfile, threading, time, urllib.request

BIN = "/tmp/relaybench-bin"

def free():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def cpu_ms(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")

def load(port, secs):
    out = subprocess.run([BIN + "/loadgen", "-p", str(port), "-c", "32", "-d", str(secs), "-w", "0"], capture_output=True, text=True).stdout
    return {k: float(v) for k, v in re.findall(r"(tps|n|p99) ([\d.]+)", out)}

def page(admin, stop):
    base = "http://127.0.0.1:%d" % admin
    urllib.request.urlopen(base + "/", timeout=120).read()
    while not stop.wait(5):
        for path in ("/routes.svg", "/routes/receive-telegram.svg"):
            urllib.request.urlopen(base + path, timeout=60).read()

def main():
    rounds = int(sys.argv[1]); variants = [a.split("=", 1) for a in sys.argv[2:]]
    tmp = tempfile.mkdtemp(prefix="cpt-")
    cport = free(); fc = subprocess.Popen([BIN + "/fastcore", str(cport)])
    try:
        for r in range(rounds):
            for name, cmd in variants:
                for attempt in range(3):  # a free port may be taken by another process before the relay binds it
                    port, admin = free(), free()
                    argv = cmd.split() + ["--db", "%s/%s-%d-%d.db" % (tmp, name, r, attempt), "--port", str(port),
                                          "--admin-port", str(admin), "--core", "http://127.0.0.1:%d" % cport, "--no-jobs"]
                    p = subprocess.Popen(argv, stdout=open("%s/%s-%d.log" % (tmp, name, r), "w"), stderr=subprocess.STDOUT)
                    for _ in range(300):
                        try: socket.create_connection(("127.0.0.1", port), 0.2).close(); break
                        except OSError:
                            if p.poll() is not None: break
                            time.sleep(0.2)
                    if p.poll() is None: break
                try:
                    stop = threading.Event()
                    if name.endswith("@page"):
                        threading.Thread(target=page, args=(admin, stop), daemon=True).start()
                    load(port, 30)
                    c0 = cpu_ms(p.pid); m = load(port, 20); c1 = cpu_ms(p.pid)
                    stop.set()
                    print("round %d %-22s tps %7.0f  p99 %6.1f ms  relay CPU %5.0f us per transfer  load %s" % (
                        r + 1, name, m["tps"], m["p99"], (c1 - c0) * 1000 / m["n"], os.getloadavg()[0]), flush=True)
                finally:
                    p.terminate()
                    try: p.wait(60)
                    except subprocess.TimeoutExpired: p.kill(); p.wait()
    finally:
        fc.terminate(); fc.wait()

main()
