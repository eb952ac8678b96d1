#!/usr/bin/env python3
"""#19 end to end: `dedup find TREE` plain vs `dedup find TREE --catalog ...` on a throwaway PostgreSQL cluster.

Each round, alternated: a plain scan; a catalog scan into a new database (the machine's first scan) that holds only
machine 'peer', the same tree scanned just before (so every file has a copy on another machine and every group is
read back; --no-peer: an empty database); the same catalog scan again (an unchanged rescan). The peer's rows are
settled before the timed runs (VACUUM ANALYZE, as autovacuum leaves them a minute after its scan: otherwise that
maintenance of the set-up's 500k rows lands in a timed run, seen as +0.6 s of server CPU in some rounds), and the
round before's database is dropped (its maintenance would land in this round's runs). Prints wall time, peak RSS and CPU time of the client (GNU time), CPU time of the server's processes, exit code, load average, the
catalog's rows and hashed files (from the JSON summary) and the ingest rate (rows / catalog scan time, and rows / the
time the catalog adds to a plain scan). A failed run is reported and makes the script exit non-zero.

Usage (root: the cluster runs as `postgres`, as in the tests):
  python3 benchmarks/catalog/e2e.py [TREE] --dedup /tmp/dedup-aot/dedup --rounds 3
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PASSWORD = "dedup-bench"


def find_bin():
    for env in [os.environ.get("DEDUP_PG_BIN")]:
        if env and os.path.exists(os.path.join(env, "initdb")):
            return env
    base = "/usr/lib/postgresql"
    for version in sorted(os.listdir(base), key=lambda v: int(v) if v.isdigit() else 0, reverse=True) if os.path.isdir(base) else []:
        candidate = os.path.join(base, version, "bin")
        if os.path.exists(os.path.join(candidate, "initdb")):
            return candidate
    sys.exit("PostgreSQL server binaries not found (apt-get install postgresql, or set DEDUP_PG_BIN)")


def as_postgres(args):
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


class Cluster:
    def __init__(self, port):
        self.bin = find_bin()
        self.folder = tempfile.mkdtemp(prefix="dedup-e2e-", dir="/tmp")
        self.port = port
        self.data = os.path.join(self.folder, "data")
        with open(os.path.join(self.folder, "pwfile"), "w") as f:
            f.write(PASSWORD + "\n")
        if os.geteuid() == 0:
            subprocess.run(["chown", "-R", "postgres:postgres", self.folder], check=True)
        subprocess.run(as_postgres([os.path.join(self.bin, "initdb"), "-D", self.data, "-U", "postgres", "--auth=scram-sha-256",
                                    "--pwfile", os.path.join(self.folder, "pwfile"), "-E", "UTF8", "--locale=C"]),
                       check=True, stdout=subprocess.DEVNULL)
        # Server defaults (fsync on): what a real catalog server does.
        options = f"-c listen_addresses='' -k {self.folder} -p {port} -c log_min_duration_statement={os.environ.get('E2E_LOG_MS', '-1')}"
        subprocess.run(as_postgres([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-l", os.path.join(self.folder, "server.log"),
                                    "-o", options, "-w", "-t", "60", "start"]), check=True, stdout=subprocess.DEVNULL)

    def connection(self, database):
        return f"Host={self.folder};Port={self.port};Username=postgres;Password={PASSWORD};Database={database}"

    def create_database(self, name):
        env = dict(os.environ, PGPASSWORD=PASSWORD)
        subprocess.run([os.path.join(self.bin, "createdb"), "-h", self.folder, "-p", str(self.port), "-U", "postgres", name], check=True, env=env)

    def drop_database(self, name):
        env = dict(os.environ, PGPASSWORD=PASSWORD)
        subprocess.run([os.path.join(self.bin, "dropdb"), "-h", self.folder, "-p", str(self.port), "-U", "postgres", "--if-exists", name], check=True, env=env)

    def settle(self, name):
        """VACUUM ANALYZE: the set-up's rows as the server's own maintenance leaves them, before the timed runs."""
        env = dict(os.environ, PGPASSWORD=PASSWORD)
        subprocess.run([os.path.join(self.bin, "psql"), "-h", self.folder, "-p", str(self.port), "-U", "postgres", "-d", name, "-qc", "VACUUM ANALYZE"], check=True, env=env)

    def cpu_seconds(self):
        """User + system CPU seconds of the cluster's processes so far (the postmaster's children that have ended, and
        those alive): what the catalog costs the server, which the client's /usr/bin/time does not see."""
        ticks = os.sysconf("SC_CLK_TCK")
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            root = int(f.readline())
        total = 0
        for pid in [root] + children(root):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                # utime, stime, cutime, cstime (fields 14-17; here 0-based after the command name: 11-14)
                total += sum(int(v) for v in (fields[11:15] if pid == root else fields[11:13]))
            except (FileNotFoundError, ProcessLookupError):
                pass
        return total / ticks

    def stop(self):
        if os.environ.get("E2E_LOG_MS"):
            # Statements slower than E2E_LOG_MS milliseconds, to see where a catalog scan's server time goes.
            with open(os.path.join(self.folder, "server.log"), errors="replace") as f:
                for line in f:
                    if "duration:" in line:
                        print("  server:", line.strip()[:220])
        subprocess.run(as_postgres([os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-m", "fast", "-w", "stop"]), stdout=subprocess.DEVNULL)
        shutil.rmtree(self.folder, ignore_errors=True)


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except FileNotFoundError:
        return []


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def timed(command, report):
    """Runs under GNU time; returns (exit code, wall s, peak RSS MiB, JSON summary or None, load span, CPU s of the client)."""
    before = load()
    process = subprocess.run(["/usr/bin/time", "-f", "%e %M %U %S", *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall, rss, user, system = process.stderr.strip().splitlines()[-1].split()
    summary = None
    if os.path.exists(report):
        with open(report) as f:
            summary = json.load(f)["summary"]
        os.remove(report)
    if process.returncode != 0:
        print(f"  FAILED (exit {process.returncode}): {' '.join(command)}\n  {process.stderr.strip()[:2000]}", file=sys.stderr)
    return process.returncode, float(wall), int(rss) / 1024, summary, f"{before}->{load()}", float(user) + float(system)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tree", nargs="?", default="/var/tmp/dedup-bench/src250k")
    parser.add_argument("--dedup", default="/tmp/dedup-aot/dedup", help="the release CLI (dotnet publish src/Dedup.Cli -c Release -r linux-x64 -o /tmp/dedup-aot)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port", type=int, default=54391)
    parser.add_argument("--no-peer", action="store_true",
                        help="no other machine in the catalog (by default an untimed scan of the same tree as machine 'peer' comes first each round, so every file has a copy on another machine: the group read returns them all)")
    args = parser.parse_args()

    cluster = Cluster(args.port)
    report = os.path.join(tempfile.gettempdir(), f"dedup-e2e-{os.getpid()}.json")
    failures = 0
    rows = {"plain": [], "first": [], "rescan": []}
    # Per kind of run: client CPU, server CPU, peak RSS, for the medians line.
    spent = {name: {"cpu": [], "server": [], "rss": []} for name in rows}
    try:
        subprocess.run(["uptime"])
        print(f"tree {args.tree}, dedup {args.dedup}, {args.rounds} rounds, PostgreSQL in {cluster.folder}")
        print(f"{'round':>5} {'run':<7} {'exit':>4} {'wall s':>7} {'RSS MiB':>8} {'rows':>8} {'hashed':>7} {'rows/s':>8} {'marg.':>8} {'x plain':>7} {'CPU s':>6} {'srv s':>6}  load")
        for round_ in range(1, args.rounds + 1):
            database = f"e2e_{round_}"
            cluster.drop_database(f"e2e_{round_ - 1}")
            cluster.create_database(database)
            plain = [args.dedup, "find", "--format", "json", "--summary", "-o", report, args.tree]
            catalog = plain + ["--catalog", cluster.connection(database), "--machine", "bench"]
            results = {}
            if not args.no_peer:
                peer = [args.dedup, "find", "--format", "json", "--summary", "-o", report, args.tree, "--catalog", cluster.connection(database), "--machine", "peer"]
                code, wall, _, _, _, _ = timed(peer, report)
                failures += code != 0
                cluster.settle(database)
                print(f"{round_:>5} {'(peer)':<7} {code:>4} {wall:>7.2f}  untimed: the same tree as another machine (then VACUUM ANALYZE)")
            for name, command in (("plain", plain), ("first", catalog), ("rescan", catalog)):
                server_before = cluster.cpu_seconds()
                code, wall, rss, summary, load_span, cpu = timed(command, report)
                time.sleep(0.3)  # the client's backend ends and is reaped: its CPU time moves to the postmaster's children's
                server = cluster.cpu_seconds() - server_before
                failures += code != 0
                results[name] = wall
                rows[name].append(wall)
                spent[name]["cpu"].append(cpu)
                spent[name]["server"].append(server)
                spent[name]["rss"].append(rss)
                recorded = hashed = 0
                rate = margin = ratio = ""
                if name != "plain" and summary and "catalog" in summary:
                    recorded = summary["catalog"]["filesRecorded"]
                    hashed = summary["catalog"]["filesHashed"]
                    if "error" in summary["catalog"]:
                        failures += 1
                        print(f"  catalog error: {summary['catalog']['error']}", file=sys.stderr)
                    rate = f"{recorded / wall:,.0f}"
                    extra = wall - results["plain"]
                    margin = f"{recorded / extra:,.0f}" if extra > 0 else "-"
                    ratio = f"{wall / results['plain']:.2f}"
                print(f"{round_:>5} {name:<7} {code:>4} {wall:>7.2f} {rss:>8.0f} {recorded:>8} {hashed:>7} {rate:>8} {margin:>8} {ratio:>7} {cpu:>6.2f} {server:>6.2f}  {load_span}", flush=True)
        plain_median = statistics.median(rows["plain"])
        print(f"medians: plain {plain_median:.2f} s, first catalog scan {statistics.median(rows['first']):.2f} s "
              f"({statistics.median(rows['first']) / plain_median:.2f}x), unchanged rescan {statistics.median(rows['rescan']):.2f} s "
              f"({statistics.median(rows['rescan']) / plain_median:.2f}x)")
        for name in rows:
            print(f"medians: {name:<6} client CPU {statistics.median(spent[name]['cpu']):.2f} s, server CPU "
                  f"{statistics.median(spent[name]['server']):.2f} s, peak RSS {statistics.median(spent[name]['rss']):.0f} MiB")
        subprocess.run(["uptime"])
    finally:
        cluster.stop()
    if failures:
        sys.exit(f"{failures} failed runs")


if __name__ == "__main__":
    main()
