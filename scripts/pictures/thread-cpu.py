#!/usr/bin/env python3
"""thread-cpu.py JAR [nopage]: where a relay under load spends its CPU, by thread group, in four windows of 20 s, with
the route page opened 5 s into the load (GET /, then every 5 s /routes.svg and /routes/receive-telegram.svg), or
without it (nopage). Needs the C tools that ../shared/bench/side-by-side.py builds into /tmp/relaybench-bin."""
import os, socket, subprocess, sys, tempfile, threading, time, urllib.request, collections
BIN="/tmp/relaybench-bin"
def free():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
def threads(pid):
    out = {}
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            name = open("/proc/%d/task/%s/comm" % (pid, t)).read().strip()
            f = open("/proc/%d/task/%s/stat" % (pid, t)).read().rsplit(")", 1)[1].split()
            out[t] = (name, (int(f[11]) + int(f[12])) * 10)
        except OSError: pass
    return out
def group(name):
    for k in ("C2 Compiler", "C1 Compiler", "vert.x", "NettyServerTCPWorker", "Camel", "GC", "VM Thread", "epoll"):
        if k in name: return k
    return name
tmp = tempfile.mkdtemp(); cport, port, admin = free(), free(), free()
fc = subprocess.Popen([BIN + "/fastcore", str(cport)])
p = subprocess.Popen(["java", "-jar", sys.argv[1], "run", "--db", tmp + "/r.db", "--port", str(port), "--admin-port", str(admin),
    "--core", "http://127.0.0.1:%d" % cport, "--no-jobs"], stdout=open(tmp + "/log", "w"), stderr=subprocess.STDOUT)
try:
    for _ in range(300):
        try: socket.create_connection(("127.0.0.1", port), 0.2).close(); break
        except OSError: time.sleep(0.2)
    lg = subprocess.Popen([BIN + "/loadgen", "-p", str(port), "-c", "32", "-d", "80", "-w", "0"], stdout=subprocess.PIPE, text=True)
    stop = threading.Event()
    def page():
        base = "http://127.0.0.1:%d" % admin
        t = time.time(); urllib.request.urlopen(base + "/", timeout=300).read(); print("first page %.1f s" % (time.time() - t), flush=True)
        while not stop.wait(5):
            for path in ("/routes.svg", "/routes/receive-telegram.svg"):
                t = time.time(); urllib.request.urlopen(base + path, timeout=60).read(); print("  %s %.0f ms" % (path, (time.time() - t) * 1000), flush=True)
    time.sleep(5)
    if "nopage" not in sys.argv: threading.Thread(target=page, daemon=True).start()
    prev = threads(p.pid)
    for w in range(4):
        time.sleep(20)
        cur = threads(p.pid); by = collections.Counter()
        for t, (name, ms) in cur.items():
            by[group(name)] += ms - prev.get(t, (name, 0))[1]
        prev = cur
        print("window %d: " % (w + 1) + ", ".join("%s %d ms" % kv for kv in by.most_common(7)), flush=True)
    stop.set(); print(lg.communicate()[0])
finally:
    p.terminate(); p.wait(60); fc.terminate()
