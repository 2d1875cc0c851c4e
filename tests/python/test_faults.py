#!/usr/bin/python3
"""Faults during a run: nothing that looks complete is broken, the last checkpoint survives, and a
run restarted after the fault ends bit-identical to an uninterrupted one.

Faults injected (counted and printed at the end):
  * kill -9 at random moments (seeded delays, so the sequence is reproducible; where each kill
    lands depends on the machine's speed),
  * kill -9 during a write: the driver polls for a snapshot's or the checkpoint's temporary file
    and kills as soon as it appears (a seeded extra delay of 0..3 ms),
  * a full disk, simulated without root with a file-size limit (RLIMIT_FSIZE, `ulimit -f`): the
    next write past the limit fails with EFBIG ("File too large"), first in a checkpoint, then in
    an energy.csv row; when the test runs as root and may mount, also a real full disk (ENOSPC) on
    a small tmpfs,
  * the output directory moved away, and deleted, while the run goes.
After every kill each file present must be complete and equal to the uninterrupted run's file of
the same name (energy.csv: its complete rows), or be a temporary "*.tmp". The run is restarted
from the last checkpoint (or started again when there is none yet) until it finishes; the final
snapshots, checkpoint, energy.csv and config_resolved.yaml must then be those of the uninterrupted
run bit for bit.

usage: test_faults.py <path to mpsph>   (run by ctest)"""
import hashlib
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

SEED = 17
N_RANDOM_KILLS = 8
N_WRITE_KILLS = 6
# Small and quick (about 1.5 s on one core), writing often: a checkpoint after every step, a
# snapshot every 0.05 time units (every ~5 steps), an energy.csv row every step.
CONFIG = """run:
  t_end: 1.0
  snapshot_interval: 0.05
  checkpoint_every_steps: 1
  diagnostics_every: 1
  threads: 1
setup: {type: evrard, n_particles: 300}
gravity: {softening: [0.02]}
"""
TIMEOUT = 120  # seconds for any one mpsph process

faults = {}
problems = []


def count(kind):
    faults[kind] = faults.get(kind, 0) + 1


def fail(msg):
    problems.append(msg)
    print("FAIL: " + msg)


def start(mpsph, args, fsize=None):
    def limit():
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, resource.RLIM_INFINITY))

    return subprocess.Popen([mpsph, "run", "--quiet"] + args, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=limit)


def finish(p):
    try:
        _, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        fail("mpsph ran past %d s" % TIMEOUT)
    return p.returncode, err.strip()


def continue_args(d, cfg):
    """Restart from the last checkpoint, or start again when the run has none yet."""
    ckpt = os.path.join(d, "checkpoint.h5")
    if os.path.exists(ckpt):  # a broken one makes the restart fail, which the test reports
        return ["--restart", ckpt, "--output-dir", d]
    return [cfg, "--output-dir", d]


def normalise(text, d):
    """The output directory, the config's source line (a restart names its checkpoint there) and
    run.max_steps (the full-disk case stops its first run after 10 steps) are not state."""
    lines = [l for l in text.split("\n")
             if not l.startswith("# mpsph resolved configuration of") and "max_steps:" not in l]
    return "\n".join(lines).replace(d, "<OUT>")


def h5_items(path, d):
    """Every dataset (bytes, dtype, shape) and attribute of an HDF5 file, output dir normalised."""
    out = {}
    with h5py.File(path, "r") as f:
        def attrs(name, obj):
            for k, v in obj.attrs.items():
                if isinstance(v, bytes):
                    v = v.decode()
                if isinstance(v, str):
                    out[name + "@" + k] = normalise(v, d)
                else:
                    a = np.asarray(v)
                    out[name + "@" + k] = (a.dtype.str, a.shape, a.tobytes())

        def visit(name, obj):
            attrs(name, obj)
            if isinstance(obj, h5py.Dataset):
                a = obj[()]
                out[name] = (a.dtype.str, a.shape, a.tobytes())

        attrs("/", f)
        f.visititems(visit)
    return out


def compare_file(name, d, ref):
    """The file `name` in d must equal the reference's, its energy.csv rows those of the same
    steps. Returns a problem or None."""
    a, b = os.path.join(d, name), os.path.join(ref, name)
    if name.endswith(".tmp"):
        return None
    if name == "energy.csv":
        text = open(a).read()
        lines = text.split("\n")
        complete = lines[:-1]  # the part after the last '\n' may be a row cut short
        ref_lines = open(b).read().split("\n")
        if complete != ref_lines[:len(complete)]:
            return "energy.csv: complete rows differ from the uninterrupted run's"
        return None
    if name == "step_profile.txt":  # wall times: complete (written atomically), never equal
        text = open(a).read()
        return None if text.startswith("# mpsph step profile") and "\nactive fraction" in text \
            else "step_profile.txt is incomplete"
    if name in ("config_resolved.yaml", "timing.txt"):
        if name == "timing.txt":
            text = open(a).read()
            # Written whole (a temporary file renamed): the stage table through the particle
            # updates line, then the backend's notes (e.g. `steady steps`), ending in a newline.
            return None if "\nparticle updates:" in text and text.endswith("\n") \
                else "timing.txt is incomplete"
        return None if normalise(open(a).read(), d) == normalise(open(b).read(), ref) \
            else name + " differs"
    if name.endswith(".h5"):
        try:
            got = h5_items(a, d)
        except Exception as e:  # a truncated or half-written HDF5 file
            return "%s is not a complete HDF5 file: %s" % (name, e)
        if name == "checkpoint.h5":
            # Overwritten every step: complete means every dataset has NumParticles rows (or
            # fewer for the type-masked fields) and the state is there.
            dtype, _, raw = got["/@NumParticles"]
            n = int(np.frombuffer(raw, dtype)[0])
            if np.frombuffer(got["Particles/pos"][2], "<f8").size != 3 * n:
                return "checkpoint.h5: Particles/pos does not have NumParticles rows"
            if "State@Step" not in got:
                return "checkpoint.h5 has no State/Step"
            return None
        if not os.path.exists(b):
            return name + " exists but the uninterrupted run has no such file"
        want = h5_items(b, ref)
        if got != want:
            diff = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
            return "%s differs from the uninterrupted run's in %s" % (name, diff[:4])
        return None
    return "unexpected file " + name


def check_dir(d, ref, when):
    for name in sorted(os.listdir(d)):
        p = compare_file(name, d, ref)
        if p:
            fail("%s: %s" % (when, p))


def check_final(d, ref, when):
    """After the run finished: the same files as the reference, all equal (the wall times of
    timing.txt and step_profile.txt aside)."""
    wall = ("timing.txt", "step_profile.txt")
    names = sorted(n for n in os.listdir(d) if n not in wall)
    want = sorted(n for n in os.listdir(ref) if n not in wall)
    if names != want:
        fail("%s: files %s, the uninterrupted run has %s" % (when, names, want))
    for name in names:
        if name == "energy.csv":
            if open(os.path.join(d, name)).read() != open(os.path.join(ref, name)).read():
                fail("%s: energy.csv differs from the uninterrupted run's" % when)
        elif name == "checkpoint.h5":
            p = compare_file(name, d, ref)  # complete?
            if p or h5_items(os.path.join(d, name), d) != h5_items(os.path.join(ref, name), ref):
                fail("%s: the final checkpoint differs from the uninterrupted run's" % when)
        elif os.path.exists(os.path.join(ref, name)):
            p = compare_file(name, d, ref)
            if p:
                fail("%s: %s" % (when, p))


def run_to_end(mpsph, d, cfg, when):
    code, err = finish(start(mpsph, continue_args(d, cfg) + ["--set", "run.max_steps=0"]))
    if code != 0:
        fail("%s: the restarted run exited %d: %s" % (when, code, err))
    check_final(d, ref_dir, when)


def expect_error(code, err, needles, when):
    if code != 1:
        fail("%s: exit code %d, expected 1 (stderr %r)" % (when, code, err))
    if len(err.splitlines()) != 1:
        fail("%s: stderr is not one line: %r" % (when, err))
    for n in needles:
        if n not in err:
            fail("%s: stderr lacks %r: %r" % (when, n, err))


def new_temporaries(d, since_ns):
    """Temporary files written since `since_ns` (older ones are left over from earlier kills)."""
    out = []
    for n in os.listdir(d):
        if n.endswith(".tmp"):
            try:
                if os.stat(os.path.join(d, n)).st_mtime_ns >= since_ns:
                    out.append(n)
            except FileNotFoundError:  # renamed onto its final name meanwhile
                pass
    return out


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def main():
    global ref_dir
    mpsph = os.path.abspath(sys.argv[1])
    rng = random.Random(SEED)
    tmp = tempfile.mkdtemp(prefix="mpsph_faults_")
    cfg = os.path.join(tmp, "faults.yaml")
    with open(cfg, "w") as f:
        f.write(CONFIG)

    # The uninterrupted reference.
    ref_dir = os.path.join(tmp, "reference")
    t0 = time.time()
    code, err = finish(start(mpsph, [cfg, "--output-dir", ref_dir]))
    wall = time.time() - t0
    if code != 0:
        print("FAIL: the reference run exited %d: %s" % (code, err))
        return 1
    print("reference run: %.2f s, files %s" % (wall, sorted(os.listdir(ref_dir))))

    # 1. kill -9 at random moments, then kill -9 during snapshot and checkpoint writes.
    d = os.path.join(tmp, "killed")
    os.mkdir(d)
    hit_write = 0
    kills = {"random": 0, "write": 0}
    attempts = 0
    while kills["write"] < N_WRITE_KILLS and attempts < 4 * (N_RANDOM_KILLS + N_WRITE_KILLS):
        attempts += 1
        mode = "random" if kills["random"] < N_RANDOM_KILLS else "write"
        since = time.time_ns() - 1000000  # file times may lag the clock by a tick
        p = start(mpsph, continue_args(d, cfg) + ["--set", "run.max_steps=0"])
        if mode == "random":
            time.sleep(rng.uniform(0.05, 0.5) * wall)
            kind = "kill -9 at a random moment"
        else:
            # Alternately a snapshot's and the checkpoint's temporary file.
            target = "checkpoint.h5.tmp" if kills["write"] % 2 == 0 else "snapshot_"
            extra = rng.uniform(0.0, 0.003)
            deadline = time.time() + TIMEOUT
            while p.poll() is None and time.time() < deadline:
                if any(n.startswith(target) for n in new_temporaries(d, since)):
                    break
                time.sleep(0.0002)
            time.sleep(extra)
            kind = "kill -9 during a write"
        if p.poll() is not None:
            code, err = finish(p)
            print("  run %d finished (exit %d) before the kill; starting again" % (attempts, code))
            if code != 0:
                fail("run %d exited %d: %s" % (attempts, code, err))
                break
            check_final(d, ref_dir, "run %d, not killed" % attempts)
            shutil.rmtree(d)
            os.mkdir(d)
            continue
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stderr.close()
        kills[mode] += 1
        count(kind)
        tmps = new_temporaries(d, since)
        hit_write += bool(tmps)
        step = None
        try:
            with h5py.File(os.path.join(d, "checkpoint.h5"), "r") as f:
                step = int(f["State"].attrs["Step"])
        except (OSError, KeyError):
            pass  # none yet; a broken one is reported by check_dir
        print("  %s (%d): temporary files %s, checkpoint at step %s" % (kind, attempts, tmps, step))
        check_dir(d, ref_dir, "after kill %d" % attempts)
    if kills["random"] < N_RANDOM_KILLS or kills["write"] < N_WRITE_KILLS:
        fail("only %s kills landed (the runs finished first)" % kills)
    faults["kills that left a temporary file (hit a write)"] = hit_write
    run_to_end(mpsph, d, cfg, "restart after the kills")

    # 2. A full disk, simulated by a file-size limit: first a checkpoint, then an energy.csv row
    #    cannot be written. The run must stop with a clear error and keep the last checkpoint.
    d = os.path.join(tmp, "full")
    code, err = finish(start(mpsph, [cfg, "--output-dir", d, "--set", "run.max_steps=10"]))
    if code != 3:
        fail("full disk: the first 10 steps exited %d (expected 3): %s" % (code, err))
    ckpt = os.path.join(d, "checkpoint.h5")
    biggest_other = max(os.path.getsize(os.path.join(ref_dir, n)) for n in os.listdir(ref_dir)
                        if n != "checkpoint.h5")
    cases = [("checkpoint", (os.path.getsize(ckpt) + biggest_other) // 2, ["checkpoint.h5"]),
             ("energy.csv", os.path.getsize(os.path.join(d, "energy.csv")) + 40, ["energy.csv"])]
    if not os.path.getsize(ckpt) > cases[0][1] > biggest_other:
        fail("full disk: no file-size limit between the checkpoint (%d bytes) and the other files "
             "(%d bytes)" % (os.path.getsize(ckpt), biggest_other))
    for what, limit, needles in cases:
        before = sha(ckpt)
        code, err = finish(start(mpsph, continue_args(d, cfg) + ["--set", "run.max_steps=0"],
                                 fsize=limit))
        count("full disk (file-size limit, EFBIG) writing " + what)
        print("  full disk writing %s (limit %d bytes): exit %d: %s" % (what, limit, code, err))
        expect_error(code, err, needles + ["File too large"], "full disk writing " + what)
        if sha(ckpt) != before:
            fail("full disk writing %s: the last checkpoint was changed" % what)
        if [n for n in os.listdir(d) if n.endswith(".tmp")]:
            fail("full disk writing %s: temporary files left: %s" % (what, os.listdir(d)))
        check_dir(d, ref_dir, "after the full disk writing " + what)
    run_to_end(mpsph, d, cfg, "restart after the full disks")

    # 2b. A real full disk (ENOSPC) on a small tmpfs, when this test may mount one (root).
    d = os.path.join(tmp, "tmpfs")
    os.mkdir(d)
    mounted = os.geteuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=%d" % (2 * biggest_other + 512 * 1024), "tmpfs", d],
        capture_output=True).returncode == 0
    if mounted:
        try:
            code, err = finish(start(mpsph, [cfg, "--output-dir", d]))
            count("full disk (tmpfs, ENOSPC)")
            print("  full tmpfs: exit %d: %s" % (code, err))
            expect_error(code, err, ["No space left on device"], "full tmpfs")
            check_dir(d, ref_dir, "after the full tmpfs")
            if os.path.exists(os.path.join(d, "checkpoint.h5")):
                saved = os.path.join(tmp, "tmpfs_copy")
                shutil.copytree(d, saved)
                subprocess.run(["umount", d], check=True)
                mounted = False
                shutil.rmtree(d)
                os.rename(saved, d)
                run_to_end(mpsph, d, cfg, "restart after the full tmpfs")
            else:
                fail("full tmpfs: no checkpoint before the disk filled (tmpfs too small)")
        finally:
            if mounted:
                subprocess.run(["umount", d])
    else:
        print("  (a real full disk on tmpfs needs root and mount; not run here)")

    # 3. The output directory vanishes mid-run: moved away (the restart continues from the moved
    #    directory's checkpoint), and deleted.
    for how in ("moved", "deleted"):
        d = os.path.join(tmp, "vanish_" + how)
        p = start(mpsph, [cfg, "--output-dir", d])
        deadline = time.time() + TIMEOUT
        while p.poll() is None and not os.path.exists(os.path.join(d, "snapshot_0002.h5")):
            if time.time() > deadline:
                break
            time.sleep(0.001)
        gone = d + "_gone"
        if how == "moved":
            os.rename(d, gone)
        else:
            while os.path.exists(d):  # the run may create a file while rmtree empties the dir
                shutil.rmtree(d, ignore_errors=True)
        count("output directory " + how)
        code, err = finish(p)
        print("  output directory %s: exit %d: %s" % (how, code, err))
        # The directory is named, and that it was removed ("no longer exists (removed or moved
        # ...)", or a file in it "was removed" when the deletion caught a write half-way).
        expect_error(code, err, [d, "removed"], "output directory " + how)
        if how == "moved":
            os.rename(gone, d)  # back under the name its files give, to compare them
            check_dir(d, ref_dir, "in the moved directory")
            run_to_end(mpsph, d, cfg, "restart after the output directory was moved")
        elif os.path.exists(d):
            fail("output directory deleted: the run created it again")

    print("faults injected: " + ", ".join("%s %d" % (k, v) for k, v in faults.items()))
    print("total faults injected: %d" % sum(v for k, v in faults.items() if "hit a write" not in k))
    if faults.get("kills that left a temporary file (hit a write)", 0) < N_WRITE_KILLS // 2:
        fail("fewer than %d kills hit a write" % (N_WRITE_KILLS // 2))
    if problems:
        print("%d problems" % len(problems))
        return 1
    shutil.rmtree(tmp)
    print("data lost: none (every restart ended bit-identical to the uninterrupted run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
