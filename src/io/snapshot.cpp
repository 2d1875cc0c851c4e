#include "io/snapshot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <new>
#include <type_traits>

#include "core/error.hpp"
#include "core/part_range.hpp"
#include "io/durable_file.hpp"
#include "io/hdf5_util.hpp"

namespace mpsph {

namespace {

// Datasets every snapshot carries (where the field applies to the type).
constexpr const char* kAlwaysWritten[] = {
    "Coordinates", "Velocities",      "Masses",     "ParticleIDs",  "InternalEnergy",
    "Density",     "SmoothingLength", "Spin",       "AccretedMass", "FormationTime",
    "BirthTime",   "InitialMass",     "Metallicity"};

bool always_written(const std::string& name) {
  return std::find(std::begin(kAlwaysWritten), std::end(kAlwaysWritten), name) !=
         std::end(kAlwaysWritten);
}

bool applies_to(const FieldInfo& f, int type) {
  return (f.types >> type) & 1u;
}

std::string part_type_group(int type) {
  return "PartType" + std::to_string(type);
}

// ------------------------------------------------------------------ writing

// Unit metadata of one dataset. Code units are L, M, V with time L/V, so a quantity of dimension
// L^l M^m V^v is GADGET-4's (length, mass, velocity) scaling (l, m, v) directly and, in SWIFT's
// base units L, M, t, the exponents (l + v, m, -v) because V = L t^-1.
void write_unit_attributes(hid_t dataset, const FieldInfo& f, const UnitSystem& units,
                           const std::string& ctx) {
  const double to_cgs = units.to_cgs(f.dim);
  // GADGET-4 (io.cc write_dataset_attributes): scalar doubles; no comoving integration, so the
  // a and h exponents are 0.
  h5::write_scalar_attribute(dataset, "a_scaling", 0.0, ctx);
  h5::write_scalar_attribute(dataset, "h_scaling", 0.0, ctx);
  h5::write_scalar_attribute(dataset, "length_scaling", double(f.dim.length), ctx);
  h5::write_scalar_attribute(dataset, "mass_scaling", double(f.dim.mass), ctx);
  h5::write_scalar_attribute(dataset, "velocity_scaling", double(f.dim.velocity), ctx);
  h5::write_scalar_attribute(dataset, "to_cgs", to_cgs, ctx);
  // SWIFT (single_io.c writeArray): 1-element float exponents and double factors.
  const std::vector<float> zero{0.0f};
  h5::write_array_attribute(dataset, "U_M exponent", std::vector<float>{float(f.dim.mass)}, ctx);
  h5::write_array_attribute(dataset, "U_L exponent",
                            std::vector<float>{float(f.dim.length + f.dim.velocity)}, ctx);
  h5::write_array_attribute(dataset, "U_t exponent", std::vector<float>{float(-f.dim.velocity)},
                            ctx);
  h5::write_array_attribute(dataset, "U_I exponent", zero, ctx);
  h5::write_array_attribute(dataset, "U_T exponent", zero, ctx);
  h5::write_array_attribute(dataset, "h-scale exponent", zero, ctx);
  h5::write_array_attribute(dataset, "a-scale exponent", zero, ctx);
  h5::write_array_attribute(dataset,
                            "Conversion factor to CGS (not including cosmological corrections)",
                            std::vector<double>{to_cgs}, ctx);
  h5::write_array_attribute(
      dataset, "Conversion factor to physical CGS (including cosmological corrections)",
      std::vector<double>{to_cgs}, ctx);
  h5::write_string_attribute(dataset, "Description", f.description, ctx);
}

void write_header(hid_t file, const std::array<uint64_t, kNumTypes>& counts,
                  const SnapshotMeta& meta, const std::string& ctx) {
  h5::Group header = h5::create_group(file, "Header", ctx);
  const hid_t h = header.get();
  const std::vector<uint64_t> n(counts.begin(), counts.end());
  // GADGET-4 (snap_io.cc write_header_fields) writes both counts as uint64. NumPart_Total holds
  // the full 64-bit count, so the GADGET-2 high word is 0: readers that add HighWord << 32 still
  // get the right total.
  h5::write_array_attribute(h, "NumPart_ThisFile", n, ctx);
  h5::write_array_attribute(h, "NumPart_Total", n, ctx);
  h5::write_array_attribute(h, "NumPart_Total_HighWord", std::vector<uint32_t>(kNumTypes, 0), ctx);
  // Masses are always written per particle; a zero MassTable entry says so.
  h5::write_array_attribute(h, "MassTable", std::vector<double>(kNumTypes, 0.0), ctx);
  h5::write_scalar_attribute(h, "Time", meta.time, ctx);
  h5::write_scalar_attribute(h, "Redshift", 0.0, ctx);
  // GADGET's box is a cube [0, BoxSize)^3 (0 = open); BoxCorner/BoxEdges keep mpsph's exact box.
  h5::write_scalar_attribute(h, "BoxSize", meta.box.periodic ? meta.box.size.x : 0.0, ctx);
  h5::write_scalar_attribute(h, "NumFilesPerSnapshot", int32_t{1}, ctx);
  // Non-cosmological run: yt's GADGET frontend switches cosmology off when OmegaLambda is 0.
  h5::write_scalar_attribute(h, "Omega0", 0.0, ctx);
  h5::write_scalar_attribute(h, "OmegaLambda", 0.0, ctx);
  h5::write_scalar_attribute(h, "HubbleParam", 1.0, ctx);
  h5::write_scalar_attribute(h, "Flag_Sfr", int32_t{meta.flag_sfr}, ctx);
  h5::write_scalar_attribute(h, "Flag_Cooling", int32_t{meta.flag_cooling}, ctx);
  h5::write_scalar_attribute(h, "Flag_Feedback", int32_t{meta.flag_feedback}, ctx);
  h5::write_scalar_attribute(h, "Flag_StellarAge", int32_t{meta.flag_stellar_age}, ctx);
  h5::write_scalar_attribute(h, "Flag_Metals", int32_t{meta.flag_metals}, ctx);
  h5::write_scalar_attribute(h, "Flag_DoublePrecision", int32_t{1}, ctx);
  // InternalEnergy is u, not entropy (one uint32 per type, as SWIFT writes it).
  h5::write_array_attribute(h, "Flag_Entropy_ICs", std::vector<uint32_t>(kNumTypes, 0), ctx);
  // mpsph extensions.
  h5::write_string_attribute(h, "Code", "mpsph " MPSPH_VERSION, ctx);
  h5::write_scalar_attribute(h, "Step", int64_t{meta.step}, ctx);
  h5::write_scalar_attribute(h, "Periodic", int32_t{meta.box.periodic}, ctx);
  h5::write_array_attribute(h, "BoxCorner",
                            std::vector<double>{meta.box.lo.x, meta.box.lo.y, meta.box.lo.z}, ctx);
  h5::write_array_attribute(
      h, "BoxEdges", std::vector<double>{meta.box.size.x, meta.box.size.y, meta.box.size.z}, ctx);
}

// SWIFT's unit group (common_io.c io_write_unit_system), 1-element doubles, plus the velocity unit,
// G in code units and the N-body flag (factors are 1 and meaningless when it is set).
void write_units(hid_t file, const UnitSystem& u, const std::string& ctx) {
  h5::Group g = h5::create_group(file, "Units", ctx);
  auto put = [&](const char* name, double v) {
    h5::write_array_attribute(g.get(), name, std::vector<double>{v}, ctx);
  };
  put("Unit mass in cgs (U_M)", u.mass_cgs);
  put("Unit length in cgs (U_L)", u.length_cgs);
  put("Unit time in cgs (U_t)", u.time_cgs());
  put("Unit current in cgs (U_I)", 1.0);
  put("Unit temperature in cgs (U_T)", 1.0);
  put("Unit velocity in cgs (U_V)", u.velocity_cgs);
  put("Gravitational constant in code units (G)", u.G);
  h5::write_array_attribute(g.get(), "N-body units", std::vector<int32_t>{u.nbody}, ctx);
}

// GADGET-4 stores its parameters as attributes of /Parameters; mpsph stores the resolved YAML and
// the three unit parameters under their GADGET-4 names.
void write_parameters(hid_t file, const SnapshotMeta& meta, const std::string& ctx) {
  h5::Group g = h5::create_group(file, "Parameters", ctx);
  h5::write_string_attribute(g.get(), "ConfigYAML", meta.config_yaml, ctx);
  h5::write_scalar_attribute(g.get(), "UnitLength_in_cm", meta.units.length_cgs, ctx);
  h5::write_scalar_attribute(g.get(), "UnitMass_in_g", meta.units.mass_cgs, ctx);
  h5::write_scalar_attribute(g.get(), "UnitVelocity_in_cm_per_s", meta.units.velocity_cgs, ctx);
}

void check_extra_fields(const std::vector<std::string>& extra, const std::string& ctx) {
  const std::vector<std::string> valid = optional_snapshot_fields();
  for (const std::string& name : extra) {
    if (always_written(name) || std::find(valid.begin(), valid.end(), name) != valid.end())
      continue;
    std::string list;
    for (const std::string& v : valid) list += (list.empty() ? "" : ", ") + v;
    throw Error(ctx + ": unknown snapshot field '" + name + "' (valid: " + list + ")");
  }
}

// ------------------------------------------------------------------ reading

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

template <class T>
bool finite(const T& x) {
  if constexpr (std::is_same_v<T, Vec3d>)
    return std::isfinite(x.x) && std::isfinite(x.y) && std::isfinite(x.z);
  else
    return std::isfinite(x);
}

// Every floating-point value read must be finite: NaN or inf anywhere is an error naming the
// dataset and the first particle (its row in the dataset and its id).
template <class T>
void check_finite(const std::vector<T>& v, const std::vector<uint64_t>& id, std::size_t off,
                  std::size_t n, std::size_t row0, const std::string& ctx,
                  const std::string& path) {
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Vec3d>) {
    for (std::size_t k = 0; k < n; ++k) {
      if (finite(v[off + k])) continue;
      const T& x = v[off + k];
      bool nan;
      if constexpr (std::is_same_v<T, Vec3d>)
        nan = std::isnan(x.x) || std::isnan(x.y) || std::isnan(x.z);
      else
        nan = std::isnan(x);
      throw Error(ctx + ": dataset " + path + " has " + (nan ? "NaN" : "inf") + " at particle " +
                  std::to_string(row0 + k) + " (id " + std::to_string(id[off + k]) + ")");
    }
  }
}

bool flag(hid_t header, const char* name, const std::string& ctx) {
  return h5::read_first_double_or(header, name, 0.0, ctx) != 0.0;
}

// Particle numbers per type from /Header: NumPart_ThisFile, else NumPart_Total (+ the GADGET-2
// high word when the total is a 32-bit attribute). Returns the attribute name used.
std::string read_counts(hid_t header, std::array<uint64_t, kNumTypes>& counts,
                        const std::string& ctx) {
  std::string name;
  std::vector<uint64_t> n;
  if (h5::has_attribute(header, "NumPart_ThisFile")) {
    name = "NumPart_ThisFile";
    n = h5::read_uint64_attribute(header, name, ctx);
  } else if (h5::has_attribute(header, "NumPart_Total")) {
    name = "NumPart_Total";
    n = h5::read_uint64_attribute(header, name, ctx);
    if (h5::attribute_element_size(header, name, ctx) <= 4 &&
        h5::has_attribute(header, "NumPart_Total_HighWord")) {
      const auto high = h5::read_uint64_attribute(header, "NumPart_Total_HighWord", ctx);
      for (std::size_t t = 0; t < std::min(n.size(), high.size()); ++t) n[t] += high[t] << 32;
    }
  } else {
    throw Error(ctx + " has no NumPart_ThisFile (or NumPart_Total) attribute");
  }
  counts.fill(0);
  for (std::size_t t = 0; t < n.size(); ++t) {
    if (t < kNumTypes)
      counts[t] = n[t];
    else if (n[t] > 0)
      throw Error(ctx + ": " + name + "[" + std::to_string(t) + "] = " + std::to_string(n[t]) +
                  " but mpsph knows particle types 0..5 only");
  }
  return name;
}

UnitSystem read_units(hid_t file, const std::string& ctx) {
  h5::Group g = h5::open_group(file, "Units", ctx);
  const std::string uctx = ctx + ": /Units";
  if (flag(g.get(), "N-body units", uctx)) return UnitSystem::nbody_units();
  const double length = h5::read_first_double(g.get(), "Unit length in cgs (U_L)", uctx);
  const double mass = h5::read_first_double(g.get(), "Unit mass in cgs (U_M)", uctx);
  // U_V when present keeps the velocity unit bit-exact (U_L / U_t may round).
  const double velocity =
      h5::has_attribute(g.get(), "Unit velocity in cgs (U_V)")
          ? h5::read_first_double(g.get(), "Unit velocity in cgs (U_V)", uctx)
          : length / h5::read_first_double(g.get(), "Unit time in cgs (U_t)", uctx);
  try {
    return UnitSystem::from_cgs(length, mass, velocity);
  } catch (const Error& e) {
    throw Error(uctx + ": " + e.what());
  }
}

Box read_box(hid_t header, const std::string& ctx) {
  Box box;
  if (h5::has_attribute(header, "BoxEdges")) {
    const auto lo = h5::read_double_attribute(header, "BoxCorner", ctx);
    const auto edges = h5::read_double_attribute(header, "BoxEdges", ctx);
    if (lo.size() != 3 || edges.size() != 3)
      throw Error(ctx + ": BoxCorner and BoxEdges must have 3 values");
    box.periodic = flag(header, "Periodic", ctx);
    box.lo = {lo[0], lo[1], lo[2]};
    box.size = {edges[0], edges[1], edges[2]};
  } else if (h5::has_attribute(header, "BoxSize")) {
    // Other GADGET-format tools: a positive BoxSize (scalar, or SWIFT's 3-vector) is taken as a
    // periodic box starting at the origin.
    const auto s = h5::read_double_attribute(header, "BoxSize", ctx);
    if (s.size() != 1 && s.size() != 3) throw Error(ctx + ": BoxSize must have 1 or 3 values");
    const Vec3d size = s.size() == 3 ? Vec3d{s[0], s[1], s[2]} : Vec3d{s[0], s[0], s[0]};
    if (size.x > 0 && size.y > 0 && size.z > 0) {
      box.periodic = true;
      box.size = size;
    }
  }
  return box;
}

}  // namespace

std::string code_unit_expression(double l, double m, double v) {
  std::string s;
  const char* symbols[] = {"L", "M", "V"};
  const double exps[] = {l, m, v};
  for (int i = 0; i < 3; ++i) {
    if (exps[i] == 0) continue;
    s += (s.empty() ? "" : " ") + std::string(symbols[i]);
    if (exps[i] != 1) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "^%g", exps[i]);
      s += buf;
    }
  }
  return s.empty() ? "1" : s;
}

std::vector<std::string> default_snapshot_fields() {
  return {std::begin(kAlwaysWritten), std::end(kAlwaysWritten)};
}

std::vector<std::string> optional_snapshot_fields() {
  std::vector<std::string> names;
  for (const FieldInfo& f : particle_field_table())
    if (*f.hdf5_name && !always_written(f.hdf5_name)) names.push_back(f.hdf5_name);
  return names;
}

void set_snapshot_flag(SnapshotMeta& meta, const std::string& name) {
  if (name == "Flag_Sfr") {
    meta.flag_sfr = true;
  } else if (name == "Flag_Cooling") {
    meta.flag_cooling = true;
  } else if (name == "Flag_Feedback") {
    meta.flag_feedback = true;
  } else if (name == "Flag_StellarAge") {
    meta.flag_stellar_age = true;
  } else if (name == "Flag_Metals") {
    meta.flag_metals = true;
  } else {
    throw Error("unknown snapshot header flag '" + name +
                "' (known: Flag_Sfr, Flag_Cooling, Flag_Feedback, Flag_StellarAge, Flag_Metals)");
  }
}

namespace {

// Particle indices of each type, in store order (removed particles left out).
std::array<std::vector<std::size_t>, kNumTypes> type_index(const ParticleStore& store,
                                                           const std::string& ctx) {
  const std::size_t n = store.size();
  store.for_each_field([&](const FieldInfo& f, const auto& v) {
    if (v.size() != n)
      throw Error(ctx + ": field '" + f.member + "' has " + std::to_string(v.size()) +
                  " entries but the store has " + std::to_string(n) + " particles");
  });
  std::array<std::vector<std::size_t>, kNumTypes> index;
  for (std::size_t i = 0; i < n; ++i) {
    // Removed by a stage since the last order stage (its mass went elsewhere): not written.
    if (store.type[i] == kRemoved) continue;
    if (store.type[i] >= kNumTypes)
      throw Error(ctx + ": particle " + std::to_string(i) + " has type " +
                  std::to_string(store.type[i]) + " (valid: 0..5, or " + std::to_string(kRemoved) +
                  " for a particle removed since the last order stage)");
    index[store.type[i]].push_back(i);
  }
  return index;
}

// The part's rows into the open file `file`: with part.creates first the header, the units, the
// parameters and every dataset at its full size.
void write_part_rows(hid_t file, const ParticleStore& store, const SnapshotMeta& meta,
                     const std::vector<std::string>& extra_fields, const SnapshotPart& part,
                     const std::array<std::vector<std::size_t>, kNumTypes>& index,
                     const std::string& ctx) {
  if (part.creates) {
    write_header(file, part.total, meta, ctx);
    write_units(file, meta.units, ctx);
    write_parameters(file, meta, ctx);
  }
  auto selected = [&](const std::string& name) {
    return always_written(name) ||
           std::find(extra_fields.begin(), extra_fields.end(), name) != extra_fields.end();
  };
  for (int t = 0; t < kNumTypes; ++t) {
    if (part.total[t] == 0) continue;
    if (part.first[t] + index[t].size() > part.total[t])
      throw Error(ctx + ": rows " + std::to_string(part.first[t]) + " + " +
                  std::to_string(index[t].size()) + " of type " + std::to_string(t) +
                  " do not fit the file's " + std::to_string(part.total[t]));
    h5::Group group = part.creates ? h5::create_group(file, part_type_group(t), ctx)
                                   : h5::open_group(file, part_type_group(t), ctx);
    store.for_each_field([&](const FieldInfo& f, const auto& v) {
      if (!*f.hdf5_name || !applies_to(f, t) || !selected(f.hdf5_name)) return;
      using T = typename std::decay_t<decltype(v)>::value_type;
      if (part.creates) {
        h5::Dataset d = h5::create_rows<T>(group.get(), f.hdf5_name, part.total[t], ctx);
        write_unit_attributes(d.get(), f, meta.units, ctx);
      }
      std::vector<T> rows(index[t].size());
      for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = v[index[t][k]];
      h5::write_rows(group.get(), f.hdf5_name, rows, part.first[t], ctx);
    });
  }
}

}  // namespace

std::array<uint64_t, kNumTypes> snapshot_counts(const ParticleStore& store) {
  std::array<uint64_t, kNumTypes> c{};
  for (const uint8_t t : store.type)
    if (t < kNumTypes) ++c[t];
  return c;
}

void write_snapshot(const std::string& path, const ParticleStore& store, const SnapshotMeta& meta,
                    const std::vector<std::string>& extra_fields) {
  const std::string ctx = "cannot write snapshot '" + path + "'";
  check_extra_fields(extra_fields, ctx);
  const auto index = type_index(store, ctx);
  SnapshotPart part;
  part.creates = true;
  for (int t = 0; t < kNumTypes; ++t) part.total[t] = index[t].size();
  h5::TempFile file(path, "snapshot");
  write_part_rows(file.id(), store, meta, extra_fields, part, index, ctx);
  file.commit();
}

void write_snapshot_part(const std::string& path, const ParticleStore& store,
                         const SnapshotMeta& meta, const std::vector<std::string>& extra_fields,
                         const SnapshotPart& part) {
  const std::string ctx = "cannot write snapshot '" + path + "'";
  check_extra_fields(extra_fields, ctx);
  const auto index = type_index(store, ctx);
  if (part.creates) {
    h5::TempFile file(path, "snapshot");
    write_part_rows(file.id(), store, meta, extra_fields, part, index, ctx);
    file.hand_over();
    return;
  }
  h5::File file = h5::open_for_update(temporary_name(path), ctx);
  write_part_rows(file.get(), store, meta, extra_fields, part, index, ctx);
  if (file.close() < 0) throw Error(ctx + ": closing the rows of this part failed");
}

void commit_parts(const std::string& path, const std::string& what) {
  commit_temporary(temporary_name(path), path, "cannot write " + what + " '" + path + "'");
}

void discard_parts(const std::string& path) {
  std::remove(temporary_name(path).c_str());
}

ParticleStore read_snapshot(const std::string& path, SnapshotMeta* meta_out) {
  return read_snapshot_part(path, meta_out, 0, 1);
}

ParticleStore read_snapshot_part(const std::string& path, SnapshotMeta* meta_out, std::size_t part,
                                 std::size_t parts) {
  if (parts == 0 || part >= parts)
    throw Error("snapshot '" + path + "': part " + std::to_string(part) + " of " +
                std::to_string(parts) + " asked for");
  h5::File file = h5::open_for_reading(path, "snapshot");
  const std::string ctx = "snapshot '" + path + "'";
  const hid_t fid = file.get();
  if (!h5::has_link(fid, "Header")) throw Error(ctx + ": missing /Header group");
  h5::Group header = h5::open_group(fid, "Header", ctx);
  const hid_t h = header.get();
  const std::string hctx = ctx + ": /Header";

  std::array<uint64_t, kNumTypes> counts{};
  const std::string count_name = read_counts(h, counts, hctx);
  if (h5::read_first_double_or(h, "NumFilesPerSnapshot", 1, hctx) > 1)
    throw Error(hctx + ": NumFilesPerSnapshot > 1; only single-file snapshots can be read");
  std::vector<double> mass_table(kNumTypes, 0.0);
  if (h5::has_attribute(h, "MassTable")) {
    const auto mt = h5::read_double_attribute(h, "MassTable", hctx);
    std::copy_n(mt.begin(), std::min<std::size_t>(mt.size(), kNumTypes), mass_table.begin());
  }

  // The counts must match the datasets before they size the store: a damaged count would
  // otherwise ask for any amount of memory (found by fuzz/ic_reader_fuzz.cpp).
  uint64_t total = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    if (counts[t] == 0) continue;
    const std::string gname = part_type_group(t);
    const std::string count_source =
        "/Header " + count_name + "[" + std::to_string(t) + "] = " + std::to_string(counts[t]);
    if (!h5::has_link(fid, gname))
      throw Error(ctx + ": missing group /" + gname + " (" + count_source + ")");
    h5::Group group = h5::open_group(fid, gname, ctx);
    h5::check_rows(fid, "/" + gname + "/Coordinates", counts[t], ctx, count_source);
    total += counts[t];
  }
  // This part's rows of each type: [first[t], first[t] + mine[t]), the type's rows cut as evenly
  // as whole rows allow (the first count % parts parts one more); before[t]: the rows of the
  // types before t (the default ids count over the whole file).
  std::array<uint64_t, kNumTypes> first{}, mine{}, before{};
  total = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    const PartRange range = part_range(counts[t], part, parts);
    first[t] = range.first;
    mine[t] = range.count;
    before[t] = t == 0 ? 0 : before[t - 1] + counts[t - 1];
    total += mine[t];
  }
  ParticleStore store;
  try {
    store.resize(total);
  } catch (const std::bad_alloc&) {
    throw Error(ctx + ": " + std::to_string(total) + " particles do not fit in memory");
  }
  std::vector<std::string> datasets;  // the particle datasets found, as "/PartTypeN/Name"

  std::size_t off = 0;
  for (int t = 0; t < kNumTypes; ++t) {
    const std::size_t n = mine[t];
    if (counts[t] == 0) continue;
    const std::string gname = part_type_group(t);
    const std::string count_source =
        "/Header " + count_name + "[" + std::to_string(t) + "] = " + std::to_string(counts[t]);
    if (!h5::has_link(fid, gname))
      throw Error(ctx + ": missing group /" + gname + " (" + count_source + ")");
    h5::Group group = h5::open_group(fid, gname, ctx);
    const std::string prefix = "/" + gname + "/";
    if (!h5::has_link(group.get(), "Coordinates"))
      throw Error(ctx + ": missing dataset " + prefix + "Coordinates");

    // Every table field present in the file is read; absent ones keep their defaults (zero).
    store.for_each_field([&](const FieldInfo& f, auto& v) {
      if (!*f.hdf5_name || !applies_to(f, t) || !h5::has_link(group.get(), f.hdf5_name)) return;
      const std::string dataset = prefix + f.hdf5_name;
      h5::read_row_range(fid, dataset, v.data() + off, counts[t], first[t], n, ctx, count_source);
      datasets.push_back(dataset);
    });
    std::fill_n(store.type.begin() + off, n, static_cast<uint8_t>(t));

    if (!h5::has_link(group.get(), "Masses")) {
      const double m = mass_table[t];
      if (!(std::isfinite(m) && m > 0))
        throw Error(ctx + ": " + prefix + "Masses is missing and /Header MassTable[" +
                    std::to_string(t) + "] = " + number(m) + " is not a positive mass");
      std::fill_n(store.mass.begin() + off, n, m);
    }
    // Default ids: 1..N in file order (position in the file over all types, plus one).
    if (!h5::has_link(group.get(), "ParticleIDs"))
      for (std::size_t k = 0; k < n; ++k) store.id[off + k] = before[t] + first[t] + k + 1;

    store.for_each_field([&](const FieldInfo& f, const auto& v) {
      const std::string dataset = prefix + f.hdf5_name;
      if (std::find(datasets.begin(), datasets.end(), dataset) != datasets.end())
        check_finite(v, store.id, off, n, first[t], ctx, dataset);
    });
    for (std::size_t k = 0; k < n; ++k)
      if (!(store.mass[off + k] > 0))
        throw Error(ctx + ": dataset " + prefix + "Masses has non-positive mass " +
                    number(store.mass[off + k]) + " at particle " + std::to_string(first[t] + k) +
                    " (id " + std::to_string(store.id[off + k]) + ")");
    off += n;
  }
  store.sort_by_type();

  if (meta_out) {
    SnapshotMeta meta;
    meta.time = h5::read_first_double_or(h, "Time", 0.0, hctx);
    meta.step = static_cast<long>(h5::read_first_double_or(h, "Step", 0.0, hctx));
    meta.units_in_file = h5::has_link(fid, "Units");
    if (meta.units_in_file) meta.units = read_units(fid, ctx);
    meta.box = read_box(h, hctx);
    if (h5::has_link(fid, "Parameters")) {
      h5::Group params = h5::open_group(fid, "Parameters", ctx);
      if (h5::has_attribute(params.get(), "ConfigYAML"))
        meta.config_yaml =
            h5::read_string_attribute(params.get(), "ConfigYAML", ctx + ": /Parameters");
    }
    meta.flag_sfr = flag(h, "Flag_Sfr", hctx);
    meta.flag_cooling = flag(h, "Flag_Cooling", hctx);
    meta.flag_feedback = flag(h, "Flag_Feedback", hctx);
    meta.flag_stellar_age = flag(h, "Flag_StellarAge", hctx);
    meta.flag_metals = flag(h, "Flag_Metals", hctx);
    meta.datasets = std::move(datasets);
    *meta_out = std::move(meta);
  }
  return store;
}

}  // namespace mpsph
