#!/usr/bin/env python3
"""The first hour of a new user, as issue 37 found it, replayed and asserted (CI: .ci/run).

A fresh clone of this tree's HEAD, its build step, then: the start-up bench's ratios; `npm start`
under a pseudo-terminal and Ctrl-C; a restart through `node bin/tapehouse.js run` (the way that
exits 0) with a token file others can read; `npm start` with stdout on a pipe; `tapehouse sql`
during the job's start-up; the bad paths; reconcile. Each step asserts what the user would see.

node_modules is a symlink to this tree's (a full install is CI's `npm install` step, and
scripts/check-lock.sh proves `npm ci --omit=dev` builds dist/): the build step runs as npm's
install runs it, `npm run prepare`. About 2 minutes on a busy 2-core machine.

    python3 test/newcomer.py
"""
import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = tempfile.mkdtemp(prefix="tapehouse-newcomer-")
REPO = os.path.join(WORK, "repo")
ENV = {**os.environ, "TAPEHOUSE_LOG_LEVEL": "info", "FORCE_COLOR": "0"}
ENV.pop("TAPEHOUSE_LOG_FORMAT", None)
failures = []


def step(name):
    print(f"\n--- {name}", flush=True)


def check(ok, what):
    print(f"  {'ok  ' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        failures.append(what)


def run(args, timeout=120, **kw):
    return subprocess.run(args, cwd=REPO, env=ENV, capture_output=True, text=True, timeout=timeout, **kw)


def tapehouse(*args, timeout=120):
    return run(["node", "bin/tapehouse.js", *args], timeout=timeout)


class Terminal:
    """A command on a pseudo-terminal (stdout and stderr both, as in a shell), read as it goes."""

    def __init__(self, args):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(REPO)
            os.execvpe(args[0], args, ENV)
        self.out = b""

    def read(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            self.out += chunk
        return True

    def wait_for(self, text, seconds):
        end = time.time() + seconds
        while time.time() < end and text not in self.text():
            if not self.read(0.5):
                break
        return text in self.text()

    def ctrl_c(self):
        os.write(self.fd, b"\x03")  # the terminal sends SIGINT to the foreground group, as a shell's would

    def finish(self, seconds=90):
        end = time.time() + seconds
        while time.time() < end and self.read(0.5):
            pass
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)

    def text(self):
        return self.out.decode("utf8", "replace").replace("\r\n", "\n")


def queryable(data_dir, seconds=90):
    """Polls the job's endpoint (tapehouse sql) until a trade is stored."""
    end = time.time() + seconds
    while time.time() < end:
        r = tapehouse("sql", "--data-dir", data_dir, "--format", "csv", "SELECT count() FROM trades")
        if r.returncode == 0 and r.stdout.strip().splitlines()[-1:] != ["0"]:
            return True
        time.sleep(1)
    return False


def readable_logs(text, what):
    check('{"level"' not in text, f"{what}: no JSON log lines on the terminal")
    check("stream coverage lost" not in text, f"{what}: no 'stream coverage lost' lines at the stop")
    warns = [line for line in text.splitlines() if re.search(r"\b(WARN|ERROR|FATAL)\b", line)]
    check(not warns, f"{what}: nothing above info" + (f" (got {warns[:3]})" if warns else ""))


started = time.time()
try:
    step("fresh clone, the build step npm install runs (prepare)")
    subprocess.run(["git", "clone", "-q", ROOT, REPO], check=True)
    os.symlink(os.path.join(ROOT, "node_modules"), os.path.join(REPO, "node_modules"))
    build = run(["npm", "run", "--silent", "prepare"])
    check(build.returncode == 0 and os.path.exists(os.path.join(REPO, "dist/src/cli/main.js")), "dist/ built")
    version = tapehouse("--version")
    check(version.returncode == 0 and re.match(r"^\d+\.\d+\.\d+\n$", version.stdout) is not None, "--version")
    help_ = tapehouse("--help")
    check(help_.returncode == 0 and all(c in help_.stdout for c in ("run", "sql", "reconcile")), "--help lists the commands")

    step("the start-up bench (ratios)")
    bench = run(["node", "--import", "tsx", "bench/cli-startup.ts", "--runs", "3"], timeout=300)
    print(bench.stdout, end="")
    check(bench.returncode == 0, "bench/cli-startup.ts ran")

    data = os.path.join(WORK, "data")
    step("npm start on a terminal, Ctrl-C")
    term = Terminal(["npm", "start", "--", "--data-dir", data, "--http-port", "0"])
    check(term.wait_for("Ctrl-C to stop.", 120), "the banner")
    check(queryable(data), "a trade is queryable with tapehouse sql while the job runs")
    term.ctrl_c()
    code = term.finish()
    text = term.text()
    check("stopped cleanly." in text, "stopped cleanly.")
    # npm answers a Ctrl-C with its own 130 whatever its script returns (README, "Stopping").
    # (-2: npm ended by the SIGINT itself, which a shell shows as 130.)
    check(code in (0, 130, -signal.SIGINT), f"npm start's exit code on Ctrl-C is 0 or npm's 130 (got {code})")
    readable_logs(text, "npm start")

    step("restart through node bin/tapehouse.js run (exit 0), with a token file others can read")
    token = os.path.join(WORK, "token")
    with open(token, "w") as f:
        f.write("not-a-real-token\n")
    os.chmod(token, 0o644)
    term = Terminal(["node", "bin/tapehouse.js", "run", "--data-dir", data, "--http-port", "0", "--token-file", token])
    check(term.wait_for("Ctrl-C to stop.", 120), "the banner again")
    term.read(5)
    check("resumed from" in term.text(), "the built-in venue resumed its saved world")
    term.ctrl_c()
    code = term.finish()
    text = term.text()
    check(code == 0, f"exit code 0 after Ctrl-C (got {code})")
    check("readable by everyone" in text and "chmod 600" in text, "the shared token file is warned about")
    readable_logs(text.replace(next((l for l in text.splitlines() if "chmod 600" in l), "\0"), ""), "restart")

    step("npm start with stdout on a pipe; tapehouse sql during the start-up")
    out_r, out_w = os.pipe()
    pid, fd = pty.fork()
    if pid == 0:
        os.dup2(out_w, 1)
        os.chdir(REPO)
        os.execvpe("npm", ["npm", "start", "--", "--data-dir", data, "--http-port", "0"], ENV)
    os.close(out_w)
    # Asked once the job holds the directory (chDB writes its PID into status) and before it serves.
    status_file = os.path.join(data, "clickhouse", "status")
    launched = time.time()
    while time.time() - launched < 60 and not (os.path.exists(status_file) and os.path.getmtime(status_file) >= launched - 1):
        time.sleep(0.1)
    during = tapehouse("sql", "--data-dir", data, "SELECT 1 AS one", timeout=120)
    check(during.returncode == 0 and "another process" not in during.stderr, "sql during start-up answers (it waits)")
    term = Terminal.__new__(Terminal)
    term.pid, term.fd, term.out = pid, fd, b""
    term.wait_for("Ctrl-C", 5)
    stdout = b""
    deadline = time.time() + 120
    while b"Ctrl-C to stop." not in stdout and time.time() < deadline:
        if select.select([out_r], [], [], 0.5)[0]:
            stdout += os.read(out_r, 65536)
    os.close(out_r)  # the reader goes away, as `| head` does
    term.ctrl_c()
    code = term.finish()
    check("stopped cleanly." in term.text(), "the stop's lines reach the terminal while stdout is a closed pipe")

    step("bad paths: exit 2 within a second, nothing created")
    for args in (["run", "--data-dir", "/proc/x"], ["sql", "--data-dir", "/sys/x", "SELECT 1"]):
        t0 = time.time()
        r = tapehouse(*args, timeout=30)
        took = time.time() - t0
        check(r.returncode == 2 and "--data-dir (TAPEHOUSE_DATA_DIR)" in r.stderr, f"{' '.join(args)}: exit 2, flag and variable named")
        print(f"  ({took:.2f} s)")
    missing = os.path.join(WORK, "typo")
    for command in (["status"], ["sql", "SELECT 1"], ["reconcile"]):
        r = tapehouse(command[0], "--data-dir", missing, *command[1:])
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(lines) == 1 and "holds no warehouse" in lines[0], f"{command[0]} on a mistyped --data-dir: one line, exit 2")
    check(not os.path.exists(missing), "the mistyped directory was not created")

    step("reconcile")
    r = tapehouse("reconcile", "--data-dir", data, timeout=180)
    check(r.returncode == 0, f"tapehouse reconcile exits 0 (got {r.returncode}: {r.stderr.strip()[-300:]})")
finally:
    subprocess.run(["rm", "-rf", WORK])

print(f"\nnewcomer: {len(failures)} failure(s) in {time.time() - started:.0f} s")
sys.exit(1 if failures else 0)
