#!/usr/bin/python3
"""Face-on and edge-on surface-density maps of the gas and the stars (and cold clouds, when the
snapshot has any) of a disk galaxy or a merger, centred on the stars and turned into the plane of
the disk (the angular momentum of gas and stars within 10 kpc), in Msun/pc^2.

usage: /usr/bin/python3 tools/plot_galaxy.py SNAP.h5 [SNAP.h5 ...] [--size 50] [--pixels 150]
          [--galaxy N] [--no-rotate] [--out-dir DIR] [--movie]
writes galaxy_<snapshot name>.png per snapshot (beside the snapshot unless --out-dir); with --movie
frame_0000.png, frame_0001.png, ... on one colour scale (the first snapshot's), and
galaxy_movie.mp4 when ffmpeg is installed. The maps are
2D histograms (O(N): fine at 1e7 particles). --galaxy centres on one galaxy of a merger (GalaxyID)
while showing all particles; --no-rotate keeps the simulation's axes and origin (x-y and x-z
projections: the default view of a merger).
"""
import argparse
import os
import shutil
import subprocess
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import galaxy_snap  # noqa: E402


def surface_density(x, m, axes, size, pixels):
    edges = np.linspace(-0.5 * size, 0.5 * size, pixels + 1)
    h, _, _ = np.histogram2d(x[:, axes[0]], x[:, axes[1]], bins=(edges, edges), weights=m)
    pixel_pc2 = (size / pixels * 1e3) ** 2
    return h.T / pixel_pc2  # Msun/pc^2, rows = second axis


def plot(path, args, frame_index=None, vmax_of=None):
    t, parts = galaxy_snap.load(path)
    if args.galaxy is not None:
        _, own = galaxy_snap.load(path, galaxy=args.galaxy)
        c, vc = galaxy_snap.centre(own)
        rot = galaxy_snap.disk_frame(own, c, vc) if not args.no_rotate else np.eye(3)
        frame = {k: dict(d, x=(d["x"] - c) @ rot.T) for k, d in parts.items()}
    elif args.no_rotate:
        frame = parts  # the simulation's axes and origin
    else:
        frame = galaxy_snap.to_frame(parts)
    rows = [("gas", [0])]
    if 2 in frame:
        rows.append(("cold clouds", [2]))
    rows.append(("stars", [3, 4]))
    fig, axs = plt.subplots(len(rows), 2, figsize=(9.5, 4.3 * len(rows)), squeeze=False)
    half = 0.5 * args.size
    for r, (name, types) in enumerate(rows):
        have = [k for k in types if k in frame]
        if not have:
            for a in axs[r]:
                a.set_axis_off()
                a.text(0.5, 0.5, "no " + name, ha="center", transform=a.transAxes)
            continue
        x = np.concatenate([frame[k]["x"] for k in have])
        m = np.concatenate([frame[k]["m"] for k in have])
        views = ((((0, 1), "x-y"), ((0, 2), "x-z")) if args.no_rotate and args.galaxy is None else
                 (((0, 1), "face-on"), ((0, 2), "edge-on")))
        for col, (axes, label) in enumerate(views):
            img = surface_density(x, m, axes, args.size, args.pixels)
            pos = img[img > 0]
            vmax = np.percentile(pos, 99.5) if pos.size else 1.0
            if vmax_of is not None:  # a movie: every frame keeps the first frame's scale
                vmax = vmax_of.setdefault((name, col), vmax)
            im = axs[r, col].imshow(np.where(img > 0, img, np.nan), origin="lower",
                                    extent=(-half, half, -half, half),
                                    norm=LogNorm(vmin=vmax * 1e-4, vmax=vmax), cmap="inferno", interpolation="nearest")
            axs[r, col].set_facecolor("black")
            axs[r, col].set_title("%s, %s" % (name, label))
            axs[r, col].set_xlabel("x [kpc]")
            axs[r, col].set_ylabel("y [kpc]" if col == 0 else "z [kpc]")
            fig.colorbar(im, ax=axs[r, col], label=r"$\Sigma$ [M$_\odot$ pc$^{-2}$]")
    fig.suptitle("%s   t = %.1f Myr" % (os.path.basename(path), t))
    fig.tight_layout()
    out_dir = args.out_dir or os.path.dirname(os.path.abspath(path))
    name = ("frame_%04d" % frame_index if frame_index is not None else
            "galaxy_%s" % os.path.splitext(os.path.basename(path))[0])
    out = os.path.join(out_dir, name + ".png")
    fig.savefig(out, dpi=130)
    plt.close(fig)
    print("wrote", out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("snapshots", nargs="+")
    ap.add_argument("--size", type=float, default=50.0, help="map edge [kpc] (default 50)")
    ap.add_argument("--pixels", type=int, default=150, help="pixels per edge (default 150)")
    ap.add_argument("--galaxy", type=int, default=None, help="centre on this GalaxyID")
    ap.add_argument("--no-rotate", action="store_true",
                    help="keep the simulation's axes (and, without --galaxy, its origin)")
    ap.add_argument("--out-dir", default=None)
    ap.add_argument("--movie", action="store_true",
                    help="frames for a movie: frame_0000.png, ... in the order given, every frame "
                         "with the first one's colour scale; with ffmpeg on the PATH also "
                         "galaxy_movie.mp4 (10 frames/s)")
    args = ap.parse_args()
    vmax_of = {} if args.movie else None
    for k, p in enumerate(args.snapshots):
        plot(p, args, k if args.movie else None, vmax_of)
    if args.movie:
        out_dir = args.out_dir or os.path.dirname(os.path.abspath(args.snapshots[0]))
        cmd = ["ffmpeg", "-y", "-loglevel", "error", "-framerate", "10", "-i",
               os.path.join(out_dir, "frame_%04d.png"), "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2",
               "-pix_fmt", "yuv420p", os.path.join(out_dir, "galaxy_movie.mp4")]
        if shutil.which("ffmpeg"):
            subprocess.run(cmd, check=True)
            print("wrote", cmd[-1])
        else:
            print("%d frames; to make the movie: %s" % (len(args.snapshots), " ".join(cmd)))


if __name__ == "__main__":
    main()
