#!/usr/bin/env python3
"""fibtree and the reference programs of compare/reference/ side by side on the same n.

Usage (from anywhere):
    python3 compare/compare.py N [--runs R] [--fibtree PATH] [--skip NAME,...]

It builds the reference programs into target/reference/ (g++ -O2 -std=c++17; exact_dp links
GMP: `apt-get install g++ libgmp-dev`), rebuilding one when its source is newer, and skips a program,
saying why, where g++ or GMP is missing. It runs `fibtree count N --json` and each program R times
in turn (fibtree, residue_dp, exact_dp, fibtree, ...), checks that every answer agrees with
fibtree's (exact_dp the whole value, residue_dp its last 18 digits and its residue mod 998244353),
and prints a table: what each program prints, its median wall seconds, its peak resident memory
(the largest of its runs, in 10^6 bytes, measured by GNU time, /usr/bin/time, where it is
installed) and fibtree's median time over its own.

Exit status: 0 when every answer agrees, 1 when one disagrees or a program fails, 2 on bad input.
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "compare", "reference")
BUILDS = os.path.join(ROOT, "target", "reference")
SHARED_HEADER = os.path.join(SOURCES, "window.hpp")

# the largest n the reference programs take (window.hpp's max_n)
MAX_N = 1000000
LAST18 = 10**18
P998244353 = 998244353

# name: (source, link flags, what it prints)
REFERENCES = {
    "residue_dp": ("residue_dp.cpp", [], "mod 10^18 and mod 998244353, one pass over whole layers"),
    "exact_dp": ("exact_dp.cpp", ["-lgmp"], "exactly, GMP, whole layers, one thread"),
}

# GNU time, which reports a program's own peak memory (%M)
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None

GMP_PROBE = "#include <gmp.h>\nint main() { mpz_t z; mpz_init(z); mpz_clear(z); return 0; }\n"


class Failure(Exception):
    """A program failed or printed something unreadable: exit status 1."""


class Parser(argparse.ArgumentParser):
    """argparse with the project's one-line usage errors and exit status 2."""

    def error(self, message):
        sys.stderr.write(f"error: {message}\n")
        sys.exit(2)


def say(line):
    """Prints a line on standard output; once a reader has closed it, prints nothing more, and the
    run goes on to its exit status."""
    try:
        print(line, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def usage_error(message):
    """Prints a one-line usage error and exits with status 2."""
    sys.stderr.write(f"error: {message}\n")
    sys.exit(2)


def gmp_missing():
    """Whether a program using GMP fails to build here (no gmp.h or libgmp)."""
    with tempfile.TemporaryDirectory() as dir:
        source = os.path.join(dir, "probe.cpp")
        with open(source, "w") as f:
            f.write(GMP_PROBE)
        probe = subprocess.run(["g++", "-o", os.path.join(dir, "probe"), source, "-lgmp"], capture_output=True)
        return probe.returncode != 0


def build(name):
    """The path of the built program `name`, rebuilt when a source is newer; None (said why) if skipped."""
    source, libs, _ = REFERENCES[name]
    source = os.path.join(SOURCES, source)
    exe = os.path.join(BUILDS, name)
    newest = max(os.path.getmtime(source), os.path.getmtime(SHARED_HEADER))
    if os.path.exists(exe) and os.path.getmtime(exe) >= newest:
        return exe
    if shutil.which("g++") is None:
        say(f"# {name}: skipped, g++ is not installed (apt-get install g++)")
        return None
    if "-lgmp" in libs and gmp_missing():
        say(f"# {name}: skipped, GMP is not installed (apt-get install libgmp-dev)")
        return None
    os.makedirs(BUILDS, exist_ok=True)
    # built under a name of its own, then renamed: a concurrent run never sees half a binary
    partial = f"{exe}.{os.getpid()}.partial"
    compiler = subprocess.run(["g++", "-O2", "-std=c++17", "-o", partial, source] + libs, capture_output=True, text=True)
    if compiler.returncode != 0:
        if os.path.exists(partial):
            os.remove(partial)
        raise Failure(f"{name}: g++ failed:\n{compiler.stderr.strip()}")
    os.replace(partial, exe)
    return exe


def run(argv):
    """Runs argv once: its standard output, wall seconds and peak resident memory in bytes (None
    without GNU time: a child of this process would count the interpreter's own memory as its peak)."""
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r", suffix=".peak") as peak:
        # the wall time includes GNU time's own start, about a millisecond, alike for every program
        measured = [GNU_TIME, "-f", "%M", "-o", peak.name] + argv if GNU_TIME else argv
        start = time.perf_counter()
        child = subprocess.run(measured, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
        wall = time.perf_counter() - start
        if child.returncode != 0:
            err.seek(0)
            message = err.read().decode(errors="replace").strip()
            raise Failure(f"{' '.join(argv)} exited with status {child.returncode}: {message}")
        kib = peak.read().split() if GNU_TIME else []
    # GNU time's %M is in KiB
    return child.stdout.decode(errors="replace"), wall, int(kib[-1]) * 1024 if kib and kib[-1].isdigit() else None


def fibtree_answer(out):
    """fibtree's exact value and its threads from its --json report, its two residue fields checked
    against the value."""
    try:
        report = json.loads(out)
        value, last18, residue = int(report["value"]), int(report["last18"]), int(report["mod_998244353"])
        threads = int(report.get("threads", 0))
    except (ValueError, KeyError, TypeError) as e:
        raise Failure(f"fibtree printed no readable --json report ({e}): {out.strip()[:200]}")
    if last18 != value % LAST18 or residue != value % P998244353:
        raise Failure(f"fibtree's report disagrees with itself: last18 {last18}, mod_998244353 {residue}")
    return value, threads


def agrees(name, out, value):
    """Whether reference program `name`'s output is the answer fibtree gave (`value`)."""
    want = {"residue_dp": [value % LAST18, value % P998244353], "exact_dp": [value]}[name]
    try:
        got = [int(word) for word in out.split()]
    except ValueError:
        return False
    return got == want


def main():
    parser = Parser(description="fibtree and the reference programs side by side on the same n.")
    parser.add_argument("n", help=f"the tree T(N), from 0 to {MAX_N}")
    parser.add_argument("--runs", default="3", help="runs of each program, in turn (default 3)")
    parser.add_argument("--fibtree", default=os.path.join(ROOT, "target", "release", "fibtree"), metavar="PATH",
                        help="the fibtree binary to run (default target/release/fibtree of this checkout)")
    parser.add_argument("--skip", default="", help="reference programs to leave out, comma-separated")
    args = parser.parse_args()
    if not args.n.isdigit() or int(args.n) > MAX_N:
        usage_error(f"N: expected a whole number from 0 to {MAX_N}, got '{args.n}'")
    if not args.runs.isdigit() or not 1 <= int(args.runs) <= 1000:
        usage_error(f"--runs: expected a whole number from 1 to 1000, got '{args.runs}'")
    skip = [name for name in args.skip.split(",") if name]
    for name in skip:
        if name not in REFERENCES:
            usage_error(f"--skip: expected names among {', '.join(REFERENCES)}, got '{name}'")
    if not os.access(args.fibtree, os.X_OK):
        usage_error(f"--fibtree: no program at {args.fibtree} (run `cargo build --release` first)")
    n, runs = int(args.n), int(args.runs)
    if GNU_TIME is None:
        say("# peak memory: GNU time is not installed (apt-get install time), shown as ?")

    try:
        programs = {"fibtree": [args.fibtree, "count", str(n), "--json"]}
        for name in REFERENCES:
            if name in skip:
                say(f"# {name}: skipped (--skip)")
                continue
            exe = build(name)
            if exe is not None:
                programs[name] = [exe, str(n)]
        walls = {name: [] for name in programs}
        peaks = {}
        outs = {}
        for _ in range(runs):
            for name, argv in programs.items():
                out, wall, peak = run(argv)
                walls[name].append(wall)
                if peak is not None:
                    peaks[name] = max(peaks.get(name, 0), peak)
                outs.setdefault(name, set()).add(out)
        answers = {fibtree_answer(out) for out in outs["fibtree"]}
        if len(answers) > 1:
            raise Failure("fibtree gave two answers in its runs")
        value, threads = answers.pop()
    except Failure as e:
        sys.stderr.write(f"error: {e}\n")
        sys.exit(1)

    all_agree = True
    for name in programs:
        if name == "fibtree":
            continue
        ok = all(agrees(name, out, value) for out in outs[name])
        all_agree &= ok
        printed = " or ".join(sorted(out.strip()[:40] for out in outs[name]))
        say(f"# {name}: {'agrees' if ok else 'DISAGREES'} with fibtree (it printed {printed})")

    what = {"fibtree": "exactly, both projections checked" + (f", {threads} threads" if threads else "")}
    what.update({name: kind for name, (_, _, kind) in REFERENCES.items()})
    ours = statistics.median(walls["fibtree"])
    say(f"| program | what it prints | f({n}): median s | peak MB | fibtree's time / its time |")
    say("| --- | --- | ---: | ---: | ---: |")
    for name in [name for name in programs if name != "fibtree"] + ["fibtree"]:
        median = statistics.median(walls[name])
        ratio = f"{ours / median:.3f}" if median > 0 else "-"
        peak = f"{peaks[name] / 1e6:.1f}" if name in peaks else "?"
        say(f"| {name} | {what[name]} | {median:.3f} | {peak} | {ratio} |")
    say(f"(median of {runs} run{'s' if runs > 1 else ''} each, in turn; peak MB the largest of the runs)")
    sys.exit(0 if all_agree else 1)


if __name__ == "__main__":
    main()
