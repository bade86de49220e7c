#!/usr/bin/env python3
"""firstpage.py JAR: the start (to 'listening on port') and the first pictures of a fresh relay: wall time and relay CPU
of the first GET / (PlantUML's classes loaded and its code still interpreted), then of the next ones."""
import os, socket, subprocess, sys, tempfile, time, urllib.request
def free():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
def cpu_ms(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")
jar = sys.argv[1]; tmp = tempfile.mkdtemp()
port, admin, core = free(), free(), free()
t0 = time.time()
p = subprocess.Popen(["java", "-jar", jar, "run", "--core-sim", "--no-jobs", "--db", tmp + "/r.db", "--port", str(port),
                      "--admin-port", str(admin), "--core", "http://127.0.0.1:%d" % core], stdout=subprocess.PIPE, text=True)
for line in p.stdout:
    if "listening on port" in line: break
started = time.time() - t0
try:
    print("start to 'listening on port': %.2f s, relay CPU %.0f ms" % (started, cpu_ms(p.pid)))
    if len(sys.argv) > 2:
        for i in range(4):
            c0 = cpu_ms(p.pid); t = time.time()
            urllib.request.urlopen("http://127.0.0.1:%d/" % admin, timeout=300).read()
            print("GET / #%d: %.2f s, relay CPU %.0f ms" % (i + 1, time.time() - t, cpu_ms(p.pid) - c0), flush=True)
finally:
    p.terminate(); p.wait(60)
