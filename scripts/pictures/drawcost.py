#!/usr/bin/env python3
"""drawcost.py JAR: the cost to a running relay of one request on its admin endpoint, each picture against /metrics.

Starts the relay (java -jar JAR run --core-sim) on free ports with a fresh ledger, then for each path: 20 rounds to warm
up, then N rounds of [one new transfer on the channel port, so that the counts moved and a picture is drawn anew, then
GET path]. Prints, per path, the median and p90 time of the GET, and the relay's CPU per round (utime+stime from
/proc) less that of the N rounds with the transfer alone measured just before: the CPU the request cost the relay.
"""
import os, socket, subprocess, sys, tempfile, time, urllib.request, uuid, statistics

def free():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def cpu_ms(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")

def transfer(sock):
    guid = uuid.uuid4().hex.upper()
    msg = ("TR01Q" + guid + "MOB1    " + "1002003004005006" + "2003004005006007" + "%015d" % 100 + "%-20s" % "x").encode()
    sock.sendall(b"%04d" % len(msg) + msg)
    head = b""
    while len(head) < 4: head += sock.recv(4 - len(head))
    n = int(head); body = b""
    while len(body) < n: body += sock.recv(n - len(body))
    assert body[41:45] == b"0000", body

def main():
    jar, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 50
    tmp = tempfile.mkdtemp(prefix="drawcost-")
    port, admin, core = free(), free(), free()
    p = subprocess.Popen(["java", "-jar", jar, "run", "--core-sim", "--no-jobs", "--db", tmp + "/r.db", "--port", str(port),
                          "--admin-port", str(admin), "--core", "http://127.0.0.1:%d" % core],
                         stdout=open(tmp + "/log", "w"), stderr=subprocess.STDOUT)
    try:
        for _ in range(200):
            try: socket.create_connection(("127.0.0.1", port), 0.2).close(); break
            except OSError: time.sleep(0.2)
        sock = socket.create_connection(("127.0.0.1", port))
        base = "http://127.0.0.1:%d" % admin
        def rounds(path, k):
            times = []
            c0 = cpu_ms(p.pid)
            for _ in range(k):
                transfer(sock)
                if path:
                    t0 = time.perf_counter(); urllib.request.urlopen(base + path).read(); times.append((time.perf_counter() - t0) * 1000)
            return times, (cpu_ms(p.pid) - c0) / k
        rounds(None, 200)
        _, alone = rounds(None, n)
        print("a transfer alone: %.1f ms of relay CPU per round" % alone)
        paths = ["/metrics", "/routes.svg"] + ["/routes/%s.svg" % r for r in
                 ("receive-telegram", "claim-guid", "answer-known-guid", "retry-failed", "call-core", "record-result",
                  "channel-replies", "run-resolve", "inquire-core", "admin-routes")] + ["/"]
        for path in paths:
            rounds(path, 20)
            _, alone = rounds(None, n)
            times, cpu = rounds(path, n)
            times.sort()
            print("%-36s median %7.1f ms  p90 %7.1f ms  relay CPU %7.1f ms per request" % (
                path, statistics.median(times), times[int(len(times) * 0.9)], cpu - alone), flush=True)
    finally:
        p.terminate(); p.wait(30)

main()
