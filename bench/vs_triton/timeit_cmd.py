"""Runs a command N times and prints its wall-clock and CPU times as one line of JSON.

  python3 timeit_cmd.py N STDERR_FILE -- CMD [ARG]...

CPU time is user + system of the command and of every process it waited for (wait4's rusage), so
rkc's ld.lld counts. It moves far less than wall-clock time on a machine shared with other builds.
Prints {"wall_ms": [...], "cpu_ms": [...]}; exit 1 when a run fails (its stderr appended to
STDERR_FILE). Standard library only.
"""
import json
import os
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    n, errpath, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[4:]
    wall, cpu = [], []
    with open(errpath, "ab") as err:
        for _ in range(n):
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
            wall.append(round((time.perf_counter() - t0) * 1e3, 2))
            cpu.append(round((ru.ru_utime + ru.ru_stime) * 1e3, 2))
            if p.returncode != 0:
                return 1
    print(json.dumps({"wall_ms": wall, "cpu_ms": cpu}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
