#!/usr/bin/env bash
# device-deps.sh - download (no install) the Debian 12 .debs needed to build/run the SPH code on a
# machine without package-registry access.  Run on a Debian 12 (bookworm) amd64 box with apt access.
#
#   ./device-deps.sh [OUTDIR] [--extras]        (default OUTDIR=<repo>/.deps/debs, git-ignored)
#
# Produces OUTDIR/*.deb, OUTDIR/MANIFEST (package=version, size) and OUTDIR/SHA256SUMS.
# Copy OUTDIR + device-unpack.sh to the GPU machine, then run device-unpack.sh there.
set -euo pipefail

OUT=$(cd "$(dirname "$0")/.." && pwd)/.deps/debs
EXTRAS=0
for a in "$@"; do
  case "$a" in
    --extras) EXTRAS=1 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) OUT="$a" ;;
  esac
done

# 1) headers + CMake package files (header-only libs need nothing else)
DEV_PKGS=(
  libhdf5-dev          # HDF5 1.10.8 headers (C + C++ API), .so symlinks, hdf5/serial/{include,lib} layout
  libyaml-cpp-dev      # yaml-cpp 0.7.0 headers + CMake config (target name: yaml-cpp)
  libnanoflann-dev     # nanoflann 1.4.3 header + CMake config (nanoflann::nanoflann)
  catch2               # Catch2 2.13.10 single header + CMake config + Catch.cmake
)
# 2) shared libraries our binaries load directly (always used from the prefix)
RUNTIME_PKGS=(
  libhdf5-103-1 libhdf5-cpp-103-1 libhdf5-hl-100 libhdf5-hl-cpp-100
  libyaml-cpp0.7
  libsz2 libaec0       # szip/libaec: NEEDED by libhdf5
)
# 3) libhdf5's remaining NEEDED closure (libcurl for the ROS3 driver, OpenSSL libcrypto, zlib) with
#    curl's own closure.  Usually present on an Ubuntu image; device-unpack.sh keeps a lib from here
#    only if the target system does not already provide that soname.
FALLBACK_PKGS=(
  libcurl4 libssl3 zlib1g
  libbrotli1 libnghttp2-14 libpsl5 librtmp1 libssh2-1 libzstd1 libidn2-0 libunistring2
  libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1
  libldap-2.5-0 libsasl2-2
  libgnutls30 libhogweed6 libnettle8 libgmp10 libp11-kit0 libtasn1-6 libffi8
)
# 4) MPI (issue #18, docs/mpi.md): Open MPI 4.1 from Debian, headers + the mpicxx wrapper + mpiexec,
#    and the closure of libmpi and its plugins (PMIx, hwloc, libevent, libfabric, UCX, verbs, PSM).
#    Not CUDA-aware (Debian builds it without CUDA): GPU ranks stage transfers through the host.
MPI_PKGS=(
  libopenmpi-dev openmpi-bin openmpi-common libopenmpi3
  libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libmunge2
  libfabric1 libucx0 libibverbs1 ibverbs-providers librdmacm1 libpsm2-2 libpsm-infinipath1
  libnl-3-200 libnl-route-3-200 libnuma1 libudev1 libatomic1
)
# 5) optional: CLI11 (header-only), fmt, spdlog
EXTRA_PKGS=(libcli11-dev libfmt-dev libfmt9 libspdlog-dev libspdlog1.10)

PKGS=("${DEV_PKGS[@]}" "${RUNTIME_PKGS[@]}" "${FALLBACK_PKGS[@]}" "${MPI_PKGS[@]}")
[ "$EXTRAS" = 1 ] && PKGS+=("${EXTRA_PKGS[@]}")

. /etc/os-release
if [ "${VERSION_CODENAME:-}" != bookworm ]; then
  echo "warning: this list was worked out on Debian 12 (bookworm); this is ${PRETTY_NAME:-unknown}" >&2
fi

mkdir -p "$OUT"
cd "$OUT"
rm -f ./*.deb MANIFEST SHA256SUMS
# apt-get download fetches exactly the named packages (no dependency resolution, no root needed)
apt-get download "${PKGS[@]}"

for p in "${PKGS[@]}"; do
  f=$(ls "${p}"_*.deb 2>/dev/null | head -1) || true
  [ -n "$f" ] || { echo "missing download for $p" >&2; exit 1; }
  printf '%-22s %-26s %8d bytes\n' "$p" "$(dpkg-deb -f "$f" Version)" "$(stat -c %s "$f")"
done | tee MANIFEST
sha256sum ./*.deb > SHA256SUMS
echo "---"
echo "$(ls ./*.deb | wc -l) packages, total $(du -ch ./*.deb | tail -1 | cut -f1) in $(pwd)"
