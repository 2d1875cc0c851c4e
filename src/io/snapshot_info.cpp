#include "io/snapshot_info.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/constants.hpp"
#include "core/error.hpp"
#include "core/particle_store.hpp"
#include "io/hdf5_util.hpp"
#include "io/snapshot.hpp"

namespace mpsph {

namespace {

std::string fmt(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

const char* type_name(int t) {
  static const char* const names[] = {"gas",       "dark matter", "cold clouds",
                                      "old stars", "new stars",   "sinks"};
  return names[t];
}

std::string element_type_text(hid_t dataset) {
  h5::Datatype t(H5Dget_type(dataset));
  const std::size_t bits = 8 * H5Tget_size(t.get());
  switch (H5Tget_class(t.get())) {
    case H5T_FLOAT:
      return fmt("float%zu", bits);
    case H5T_INTEGER:
      return fmt(H5Tget_sign(t.get()) == H5T_SGN_NONE ? "uint%zu" : "int%zu", bits);
    case H5T_STRING:
      return "string";
    default:
      return "other";
  }
}

// The unit of a dataset from its GADGET-4 attributes, else its SWIFT attributes.
std::string unit_text(hid_t dataset, bool nbody, const std::string& ctx) {
  if (h5::has_attribute(dataset, "length_scaling") && h5::has_attribute(dataset, "to_cgs")) {
    const std::string expr =
        code_unit_expression(h5::read_first_double_or(dataset, "length_scaling", 0, ctx),
                             h5::read_first_double_or(dataset, "mass_scaling", 0, ctx),
                             h5::read_first_double_or(dataset, "velocity_scaling", 0, ctx));
    if (nbody) return expr + " (N-body)";
    return expr + fmt(" (1 = %.5g cgs)", h5::read_first_double_or(dataset, "to_cgs", 1, ctx));
  }
  const char* swift_factor = "Conversion factor to CGS (not including cosmological corrections)";
  if (h5::has_attribute(dataset, "U_L exponent") && h5::has_attribute(dataset, swift_factor)) {
    std::string s;
    const char* symbols[] = {"cm", "g", "s"};
    const char* attrs[] = {"U_L exponent", "U_M exponent", "U_t exponent"};
    for (int i = 0; i < 3; ++i) {
      const double e = h5::read_first_double_or(dataset, attrs[i], 0, ctx);
      if (e != 0) s += (s.empty() ? "" : " ") + std::string(symbols[i]) + fmt("^%g", e);
    }
    return fmt("%.5g ", h5::read_first_double_or(dataset, swift_factor, 1, ctx)) +
           (s.empty() ? "1" : s);
  }
  return "(no unit attributes)";
}

}  // namespace

std::string snapshot_info(const std::string& path) {
  h5::File file = h5::open_for_reading(path, "snapshot");
  const std::string ctx = "snapshot '" + path + "'";
  const hid_t fid = file.get();
  std::string out = "file      " + path + "\n";
  if (!h5::has_link(fid, "Header")) throw Error(ctx + ": missing /Header group");
  h5::Group header = h5::open_group(fid, "Header", ctx);
  const hid_t h = header.get();
  const std::string hctx = ctx + ": /Header";
  if (h5::has_attribute(h, "Code"))
    out += "code      " + h5::read_string_attribute(h, "Code", hctx) + "\n";

  // Units.
  bool nbody = true;
  double time_unit_s = 1.0;
  std::string units = "none in file (/Units missing)";
  if (h5::has_link(fid, "Units")) {
    h5::Group u = h5::open_group(fid, "Units", ctx);
    const std::string uctx = ctx + ": /Units";
    nbody = h5::read_first_double_or(u.get(), "N-body units", 0, uctx) != 0;
    const double G =
        h5::read_first_double_or(u.get(), "Gravitational constant in code units (G)", 0, uctx);
    if (nbody) {
      units = fmt("N-body (G = %g)", G);
    } else {
      const double l = h5::read_first_double_or(u.get(), "Unit length in cgs (U_L)", 1, uctx);
      const double m = h5::read_first_double_or(u.get(), "Unit mass in cgs (U_M)", 1, uctx);
      time_unit_s = h5::read_first_double_or(u.get(), "Unit time in cgs (U_t)", 1, uctx);
      units = fmt("length %.6g cm (%.6g pc), mass %.6g g (%.6g Msun), time %.6g s (%.6g Myr)", l,
                  l / cgs::pc, m, m / cgs::Msun, time_unit_s, time_unit_s / cgs::Myr);
      if (G > 0) units += fmt(", G = %.6g code units", G);
    }
  }
  const double time = h5::read_first_double_or(h, "Time", 0, hctx);
  out += fmt("time      %.10g", time);
  out += nbody ? " (code units)\n" : fmt(" = %.6g Myr\n", time * time_unit_s / cgs::Myr);
  out += "units     " + units + "\n";

  // Box.
  const bool periodic =
      h5::read_first_double_or(h, "Periodic", h5::read_first_double_or(h, "BoxSize", 0, hctx) > 0,
                               hctx) != 0;
  if (!periodic) {
    out += "box       open\n";
  } else if (h5::has_attribute(h, "BoxEdges")) {
    const auto lo = h5::read_double_attribute(h, "BoxCorner", hctx);
    const auto e = h5::read_double_attribute(h, "BoxEdges", hctx);
    if (lo.size() != 3 || e.size() != 3) throw Error(hctx + ": BoxCorner/BoxEdges need 3 values");
    out += fmt("box       periodic, corner (%g, %g, %g), edges (%g, %g, %g)\n", lo[0], lo[1], lo[2],
               e[0], e[1], e[2]);
  } else {
    out += fmt("box       periodic, BoxSize %g\n", h5::read_first_double_or(h, "BoxSize", 0, hctx));
  }

  // Counts and masses per type.
  std::vector<uint64_t> counts(kNumTypes, 0);
  for (const char* name : {"NumPart_ThisFile", "NumPart_Total"}) {
    if (!h5::has_attribute(h, name)) continue;
    const auto c = h5::read_uint64_attribute(h, name, hctx);
    std::copy_n(c.begin(), std::min<std::size_t>(c.size(), kNumTypes), counts.begin());
    break;
  }
  std::vector<double> mass_table(kNumTypes, 0.0);
  if (h5::has_attribute(h, "MassTable")) {
    const auto mt = h5::read_double_attribute(h, "MassTable", hctx);
    std::copy_n(mt.begin(), std::min<std::size_t>(mt.size(), kNumTypes), mass_table.begin());
  }

  std::string table =
      fmt("%-5s %-12s %12s %16s %12s\n", "type", "name", "count", "total mass", "MassTable");
  std::string datasets;
  for (int t = 0; t < kNumTypes; ++t) {
    const std::string gname = "PartType" + std::to_string(t);
    double total_mass = counts[t] * mass_table[t];
    if (counts[t] > 0 && h5::has_link(fid, gname)) {
      h5::Group g = h5::open_group(fid, gname, ctx);
      datasets += fmt("/%s (%s, %llu particles)\n", gname.c_str(), type_name(t),
                      static_cast<unsigned long long>(counts[t]));
      datasets += fmt("  %-20s %-12s %-8s %14s %14s %14s  %s\n", "dataset", "shape", "type", "min",
                      "max", "mean", "unit");
      for (const std::string& name : h5::member_names(g.get(), ctx)) {
        h5::Dataset d(H5Dopen2(g.get(), name.c_str(), H5P_DEFAULT));
        if (!d.valid()) continue;  // a subgroup or link, not data
        const std::string dpath = "/" + gname + "/" + name;
        const h5::DatasetInfo info = h5::dataset_info(d.get(), dpath, ctx);
        std::string line =
            fmt("  %-20s %-12s %-8s", name.c_str(), h5::shape_text(info.shape).c_str(),
                element_type_text(d.get()).c_str());
        if (info.type_class == H5T_FLOAT || info.type_class == H5T_INTEGER) {
          const std::vector<double> v = h5::read_as_double(d.get(), dpath, ctx);
          double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
          for (double x : v) lo = std::min(lo, x), hi = std::max(hi, x), sum += x;
          if (name == "Masses") total_mass = sum;
          line += v.empty() ? fmt(" %14s %14s %14s", "-", "-", "-")
                            : fmt(" %14.6g %14.6g %14.6g", lo, hi, sum / double(v.size()));
        } else {
          line += fmt(" %14s %14s %14s", "-", "-", "-");
        }
        datasets += line + "  " + unit_text(d.get(), nbody, ctx) + "\n";
      }
    }
    table += fmt("%-5d %-12s %12llu %16.8g %12.6g\n", t, type_name(t),
                 static_cast<unsigned long long>(counts[t]), total_mass, mass_table[t]);
  }
  return out + "\n" + table + "\n" + datasets;
}

}  // namespace mpsph
