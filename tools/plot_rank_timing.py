#!/usr/bin/python3
"""Where a step's time goes on one GPU (or one process) and across MPI ranks, from the runs'
timing.txt (the runs of bench/ranks_gpu.sh or bench/ranks_cpu.sh, or any `mpsph run` and
`mpsph-mpi run`; docs/mpi.md, docs/PERFORMANCE.md).

usage: /usr/bin/python3 tools/plot_rank_timing.py RUN [RUN ...] [--weak | --strong] [--out PNG]
RUN: a run directory (its timing.txt) or a timing.txt. The first RUN is the reference (one GPU).
writes rank_timing.png (or PNG): one stacked bar per run, milliseconds per step over the steady
steps (steps 2 to the last but one: timing.txt's "steady steps" and the "steps 2+" columns), in
the parts below; prints the same as a table, and with --weak (the same particles per rank) or
--strong (the same particles in all) each run's efficiency against the first:
  weak t_1 / t_P, strong t_1 / (P t_P), P the run's MPI ranks (1 without an "MPI ranks" section).
Parts of a run across ranks (timing.txt's "MPI ranks" section; largest over the ranks, except
where said):
  decomposition     decomposition + migration (re-cuts included)
  SPH halos         smoothing lengths: halos + density + forces: halos (without
                    run.timing_sync: true the GPU ranks' order stage's GPU work lands here)
  SPH passes        the passes' own work, mean over the ranks
  SPH wait          the passes' time less that mean: the wait for the slowest rank
  gravity tree+LET  local tree, LET selection and LET exchange
  gravity walk      the walk (its largest over the ranks)
  other             the steady step less the parts above (order sort, time step, integration)
Parts of a run on one GPU or one process (the stage table's "steps 2+ [ms]" column):
  order, SPH passes (smoothing lengths, density, prepare force, SPH forces), gravity, other.
"""
import argparse
import os
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

PARTS = ["decomposition", "order", "SPH halos", "SPH passes", "SPH wait", "gravity tree+LET",
         "gravity walk", "gravity", "other"]
COLOURS = {"decomposition": "#8c564b", "order": "#7f7f7f", "SPH halos": "#ff7f0e",
           "SPH passes": "#1f77b4", "SPH wait": "#aec7e8", "gravity tree+LET": "#98df8a",
           "gravity walk": "#2ca02c", "gravity": "#2ca02c", "other": "#dddddd"}


def read_timing(path):
    """The steady ms per step, the stage table's steps 2+ column, the MPI ranks (1 without), and
    the ranks' parts as {name: (largest, mean)} over steps 2+."""
    if os.path.isdir(path):
        path = os.path.join(path, "timing.txt")
    stages, parts, ranks, steady = {}, {}, 1, None
    stage_row = re.compile(r"^(\S.*?)\s+([0-9.]+)\s+([0-9.]+)%\s+([0-9.]+)\s+([0-9.]+)$")
    part_row = re.compile(r"^\s+(\S.*?)\s+[0-9.]+ \([0-9.]+\)\s+steps 2\+:\s+([0-9.]+) \(([0-9.]+)\)$")
    seen = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^steady steps: ([0-9.]+) ms per step", line)
            if m:
                steady = float(m.group(1))
                continue
            m = re.match(r"^MPI ranks: (\d+),", line)
            if m:
                ranks = int(m.group(1))
                continue
            m = part_row.match(line)
            if m:
                name = m.group(1)
                # Two lines are named "of which this rank's own work": the first belongs to the
                # smoothing lengths' passes, the second to the density and forces'.
                k = seen.get(name, 0)
                seen[name] = k + 1
                parts[name if k == 0 else "%s #%d" % (name, k + 1)] = (float(m.group(2)),
                                                                      float(m.group(3)))
                continue
            m = stage_row.match(line)
            if m and m.group(1) != "stage":
                stages[m.group(1).strip()] = float(m.group(5))
    if steady is None:
        sys.exit("%s: no 'steady steps' line (a run of at least 3 steps writes one)" % path)
    return steady, stages, ranks, parts


def split(steady, stages, ranks, parts):
    """The step's parts in ms (PARTS), summing to the steady step."""
    out = {}
    if ranks > 1 and parts:
        def largest(name):
            return parts.get(name, (0.0, 0.0))[0]

        def mean(name):
            return parts.get(name, (0.0, 0.0))[1]
        own = "of which this rank's own work"
        out["decomposition"] = largest("decomposition + migration")
        out["SPH halos"] = largest("smoothing lengths: halos") + largest("density + forces: halos")
        passes = largest("smoothing lengths: passes") + largest("density + forces: passes")
        out["SPH passes"] = mean(own) + mean(own + " #2")
        out["SPH wait"] = max(passes - out["SPH passes"], 0.0)
        out["gravity tree+LET"] = (largest("gravity: local tree") + largest("gravity: LET selection")
                                   + largest("gravity: LET exchange"))
        out["gravity walk"] = largest("gravity: walk")
    else:
        out["order"] = stages.get("order + trees", 0.0)
        out["SPH passes"] = sum(stages.get(s, 0.0) for s in
                                ("smoothing lengths", "density", "prepare force", "SPH forces"))
        out["gravity"] = stages.get("gravity", 0.0)
    out["other"] = steady - sum(out.values())
    return out


def label_of(path):
    """A run's name: its directory's."""
    return os.path.basename(os.path.dirname(path) if path.endswith("timing.txt") else path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+")
    scaling = ap.add_mutually_exclusive_group()
    scaling.add_argument("--weak", action="store_true", help="the same particles per rank")
    scaling.add_argument("--strong", action="store_true", help="the same particles in all")
    ap.add_argument("--out", help="the PNG (default rank_timing.png in the current directory)")
    a = ap.parse_args()

    rows = []
    for path in a.runs:
        steady, stages, ranks, parts = read_timing(path)
        rows.append((path.rstrip("/"), steady, ranks, split(steady, stages, ranks, parts)))
    t1 = rows[0][1]
    used = [p for p in PARTS if any(abs(r[3].get(p, 0.0)) > 0 for r in rows)]
    print("ms per step over the steady steps (steps 2 to the last but one)")
    for name, steady, ranks, part in rows:
        eff = ""
        if a.weak:
            eff = ", weak efficiency %.3f" % (t1 / steady)
        elif a.strong:
            eff = ", strong efficiency %.3f" % (t1 / (ranks * steady))
        print("%s (%d rank%s): %.1f ms per step%s" % (label_of(name), ranks,
                                                     "" if ranks == 1 else "s", steady, eff))
        for p in used:
            if p in part:
                print("  %-18s %9.1f" % (p, part[p]))

    fig, ax = plt.subplots(figsize=(9, 2.0 + 0.6 * len(rows)))
    labels = []
    for k, (name, steady, ranks, part) in enumerate(rows):
        left = 0.0
        for p in used:
            w = part.get(p, 0.0)
            if w <= 0:
                continue
            ax.barh(k, w, left=left, color=COLOURS[p], edgecolor="white")
            left += w
        labels.append("%s (%d rank%s)" % (label_of(name), ranks, "" if ranks == 1 else "s"))
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.set_xlabel("time per step [ms] (steady steps)")
    handles = [Patch(color=COLOURS[p], label=p) for p in used if p != "other"]
    handles.append(Patch(color=COLOURS["other"], label="other"))
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.25 - 0.1 / len(rows)),
              ncol=4, fontsize=8, frameon=False)
    fig.tight_layout()
    out = a.out or "rank_timing.png"
    fig.savefig(out, dpi=120)
    print("wrote", out)


if __name__ == "__main__":
    main()
