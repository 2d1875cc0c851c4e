// HDF5 snapshots in the GADGET-4 / SWIFT layout, and initial conditions read from that layout.
//
//   /Header      attributes: NumPart_ThisFile, NumPart_Total, NumPart_Total_HighWord, MassTable,
//                Time, Redshift, BoxSize, NumFilesPerSnapshot, Flag_* (as GADGET-4 writes them)
//   /Units       cgs factors (Unit length in cgs (U_L), Unit mass in cgs (U_M), ...)
//   /Parameters  the resolved config (YAML text attribute)
//   /PartTypeN/  Coordinates, Velocities, Masses, ParticleIDs, InternalEnergy, Density,
//                SmoothingLength, ... each with unit attributes
//
// Files are written to "<path>.tmp" and renamed, so a killed run never leaves a broken snapshot.
// Every group, attribute, dataset, type and unit is listed in docs/file_format.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/box.hpp"
#include "core/particle_store.hpp"
#include "core/units.hpp"

namespace mpsph {

struct SnapshotMeta {
  double time = 0.0;  // code time
  long step = 0;
  UnitSystem units;
  bool units_in_file = false;  // set by read_snapshot: /Units was present (else `units` is default)
  Box box;
  std::string config_yaml;  // resolved config, stored under /Parameters
  // Physics switches reported as the GADGET header flags Flag_Sfr, Flag_Cooling, Flag_Feedback,
  // Flag_StellarAge and Flag_Metals (readers use them to know which datasets to expect).
  bool flag_sfr = false;
  bool flag_cooling = false;
  bool flag_feedback = false;
  bool flag_stellar_age = false;
  bool flag_metals = false;
  // Set by read_snapshot: the particle datasets found in the file, as "/PartTypeN/Name" (a field
  // whose dataset is absent got its default).
  std::vector<std::string> datasets;
};

// Sets the flag of that GADGET header name ("Flag_Sfr", "Flag_Cooling", "Flag_Feedback",
// "Flag_StellarAge", "Flag_Metals"); another name throws mpsph::Error listing these.
void set_snapshot_flag(SnapshotMeta& meta, const std::string& name);

// Fields always written: Coordinates, Velocities, Masses, ParticleIDs and, for gas,
// InternalEnergy, Density, SmoothingLength. `extra_fields` names further HDF5 dataset names from
// the field table (e.g. "Acceleration", "Potential", "DivV"); an unknown name throws mpsph::Error
// listing the valid ones.
void write_snapshot(const std::string& path, const ParticleStore& store, const SnapshotMeta& meta,
                    const std::vector<std::string>& extra_fields = {});

// A snapshot written by several processes in turn, each its own particles (the MPI ranks,
// run/simulation.cpp): the file's rows of each type (`total`, the sums of every part's
// snapshot_counts) and this part's first row of each (the sums of the parts before it). The part
// that `creates` comes first: it writes the header (NumPart_Total = total) and every dataset at
// its full size into the temporary file "path.tmp", its own rows, and leaves the file closed; each
// later part adds its rows; then the first commits the file (commit_snapshot_parts). The rows of
// a type are the parts' rows one after the other, each in its store order.
struct SnapshotPart {
  std::array<uint64_t, kNumTypes> total{}, first{};
  bool creates = false;
};
// The particles of each type in `store` (those removed since the last order stage left out).
std::array<uint64_t, kNumTypes> snapshot_counts(const ParticleStore& store);
void write_snapshot_part(const std::string& path, const ParticleStore& store,
                         const SnapshotMeta& meta, const std::vector<std::string>& extra_fields,
                         const SnapshotPart& part);
// The temporary file of the parts made `path` (fsynced and renamed, as write_snapshot's); `what`
// names it in errors ("snapshot", "checkpoint").
void commit_parts(const std::string& path, const std::string& what);
// Removes the parts' temporary file (after an error on some process).
void discard_parts(const std::string& path);

// The HDF5 names that may appear in `extra_fields`.
std::vector<std::string> optional_snapshot_fields();

// "L^-3 M" for the code unit L^l M^m V^v ("1" when dimensionless), where L, M, V are the code units
// of length, mass and velocity.
std::string code_unit_expression(double l, double m, double v);

// The HDF5 names written to every snapshot (for the types they apply to).
std::vector<std::string> default_snapshot_fields();

// Reads a GADGET/SWIFT-layout HDF5 file as initial conditions (files by other tools too).
// Required: /Header NumPart_ThisFile (or NumPart_Total) and per type Coordinates; Masses unless
// MassTable gives the type's mass. Optional fields get documented defaults (Velocities 0,
// ParticleIDs 1..N in file order, InternalEnergy 0, SmoothingLength 0 = to be computed).
// Validates: file exists and is HDF5, datasets present with consistent lengths (checked before
// anything is allocated), every floating-point value finite, positive masses. Every failure throws
// mpsph::Error naming the file, dataset and problem. Particles come back sorted by type (gas
// first).
ParticleStore read_snapshot(const std::string& path, SnapshotMeta* meta_out = nullptr);
// Part `part` of `parts` of it (initial conditions read across MPI ranks, no process holding
// them all): of each type its part of the rows (core/part_range.hpp), the default ids those of
// the whole file; the parts in order hold read_snapshot's particles.
ParticleStore read_snapshot_part(const std::string& path, SnapshotMeta* meta_out, std::size_t part,
                                 std::size_t parts);

}  // namespace mpsph
