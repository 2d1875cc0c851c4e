#!/usr/bin/python3
"""A stop request (SIGINT, SIGTERM) inside a block-step segment: checkpoints come at
synchronisation points only, so the run finishes the segment. It must say so at once (not stay
silent while a collapse grinds through the segment), then stop there with exit code 3, a
checkpoint and the restart command, and the checkpoint must continue the run.

usage: test_stop.py <path to mpsph>   (run by ctest)"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SETUP = os.path.join(HERE, "..", "..", "setups", "evrard.yaml")


def main():
    mpsph = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="mpsph_stop_")
    out = os.path.join(tmp, "run")
    # One segment of 1.5 (the whole run, through the bounce): N = 4000 takes ~6 s for it on 2
    # cores. SIGINT goes out when the first progress line shows the run inside the segment.
    args = [mpsph, "run", SETUP, "--device", "cpu", "--output-dir", out,
            "--set", "setup.n_particles=4000", "--set", "run.t_end=1.5",
            "--set", "run.snapshot_times=[]", "--set", "timestep.scheme=block",
            "--set", "timestep.dt_max=1.5"]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in p.stdout:
        lines.append(line)
        if line.startswith("step "):
            p.send_signal(signal.SIGINT)
            break
    try:
        rest, _ = p.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        p.kill()
        sys.exit("FAILED: the run did not stop within 300 s of SIGINT")
    text = "".join(lines) + rest
    if p.returncode != 3:
        sys.exit("FAILED: exit code %d after SIGINT (expected 3):\n%s" % (p.returncode, text[-2000:]))
    if "stop requested: finishing the current segment (to t = 1.5" not in text:
        sys.exit("FAILED: no announcement of the segment's end after SIGINT:\n" + text[-2000:])
    if "stopped on request at t = 1.5" not in text or "--restart" not in text:
        sys.exit("FAILED: no stop line with the restart command:\n" + text[-2000:])
    ckpt = os.path.join(out, "checkpoint.h5")
    if not os.path.isfile(ckpt):
        sys.exit("FAILED: no checkpoint after the stop")
    # The stage timing of the steps done so far (a long run cut into pieces keeps its timing).
    timing = os.path.join(out, "timing.txt")
    if not os.path.isfile(timing) or "particle updates:" not in open(timing).read():
        sys.exit("FAILED: no timing.txt with the particle updates after the stop")
    # The checkpoint continues the run to a later end time.
    r = subprocess.run([mpsph, "run", "--restart", ckpt, "--set", "run.t_end=1.6", "--quiet"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    if r.returncode != 0:
        sys.exit("FAILED: restart from the stop's checkpoint exited %d:\n%s"
                 % (r.returncode, r.stdout[-2000:]))
    print("ok: SIGINT inside a block segment announced, stopped at its end with checkpoint and timing, restarted")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
