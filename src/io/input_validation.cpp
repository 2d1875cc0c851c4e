#include "io/input_validation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <type_traits>

#include "core/error.hpp"

namespace mpsph {

namespace {

const char* const kTypeNames[kNumTypes] = {"gas",           "dark matter", "cold clouds",
                                           "initial stars", "new stars",   "sinks"};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

const FieldInfo& field(const std::string& member) {
  static const std::vector<FieldInfo> table = particle_field_table();
  for (const FieldInfo& f : table)
    if (member == f.member) return f;
  throw std::logic_error("input_validation: no field '" + member + "'");
}

bool carries(const FieldInfo& f, uint8_t type) {
  return type < kNumTypes && ((f.types >> type) & 1u);
}

// Names particle i as the file stores it: "dataset /PartType0/InternalEnergy particle 7 (id 8)"
// (row within its type's group; the store keeps file order within a type) or, in a checkpoint,
// "dataset /Particles/u particle 6 (id 7)" (row among the particles that carry the field).
class Where {
 public:
  // `part`: the store is a part of the checkpoint's particles (their rows are then not known
  // here: a particle is named by its id).
  Where(const ParticleStore& s, bool checkpoint, bool part = false)
      : s_(s), checkpoint_(checkpoint), part_(part) {
    first_.fill(s.size());
    for (std::size_t i = s.size(); i-- > 0;)
      if (s.type[i] < kNumTypes) first_[s.type[i]] = i;
  }

  std::string operator()(std::size_t i, const std::string& member) const {
    const FieldInfo& f = field(member);
    std::string dataset;
    std::size_t row = i;
    if (part_) {
      const std::string d = checkpoint_ ? "/Particles/" + member
                                        : "/PartType" + std::to_string(s_.type[i]) + "/" +
                                              (*f.hdf5_name ? f.hdf5_name : "Coordinates");
      return "dataset " + d + ", the particle of id " + std::to_string(s_.id[i]);
    }
    if (checkpoint_) {
      dataset = "/Particles/" + member;
      if (f.types != AllTypes) row = count_carriers(f, i);
    } else {
      const uint8_t t = s_.type[i];
      dataset =
          "/PartType" + std::to_string(t) + "/" + (*f.hdf5_name ? f.hdf5_name : "Coordinates");
      row = i - first_[t];
    }
    return "dataset " + dataset + " particle " + std::to_string(row) + " (id " +
           std::to_string(s_.id[i]) + ")";
  }

 private:
  std::size_t count_carriers(const FieldInfo& f, std::size_t i) const {
    std::size_t row = 0;
    for (std::size_t j = 0; j < i; ++j) row += carries(f, s_.type[j]);
    return row;
  }

  const ParticleStore& s_;
  bool checkpoint_;
  bool part_;
  std::array<std::size_t, kNumTypes> first_{};
};

std::string handled_list(const ParticleRules& r) {
  std::string s;
  for (int t = 0; t < kNumTypes; ++t)
    if (r.handled[t]) s += (s.empty() ? "" : ", ") + std::to_string(t) + " (" + kTypeNames[t] + ")";
  return s;
}

void check_types(const ParticleStore& s, const ParticleRules& r, const Where& where,
                 const std::string& ctx) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const uint8_t t = s.type[i];
    if (t >= kNumTypes || r.handled[t]) continue;
    throw Error(ctx + ": " + where(i, "type") + " is of type " + std::to_string(t) + " (" +
                kTypeNames[t] + "), which no part of this run evolves (it evolves types " +
                handled_list(r) + ")");
  }
}

void check_gas_count(const ParticleStore& s, const ParticleRules& r, const std::string& ctx) {
  check_gas_count(s.count_by_type()[kGas], r, ctx);
}

// The pair (a, b), a < b, of equal keys that comes first in store order (smallest b), or none.
// Sorting the indices by key makes equal keys neighbours: O(N log N).
template <class Less, class Equal>
bool first_repeat(std::size_t n, Less less, Equal equal, std::size_t& a, std::size_t& b) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    if (less(i, j)) return true;
    if (less(j, i)) return false;
    return i < j;
  });
  bool found = false;
  for (std::size_t k = 1; k < n; ++k) {
    // Within a run of equal keys the indices ascend: the first two are the earliest pair.
    if (!equal(order[k - 1], order[k]) || (k >= 2 && equal(order[k - 2], order[k - 1]))) continue;
    if (!found || order[k] < b) a = order[k - 1], b = order[k], found = true;
  }
  return found;
}

void check_unique_ids(const ParticleStore& s, const Where& where, const std::string& ctx) {
  std::size_t a = 0, b = 0;
  const auto& id = s.id;
  if (first_repeat(
          s.size(), [&](std::size_t i, std::size_t j) { return id[i] < id[j]; },
          [&](std::size_t i, std::size_t j) { return id[i] == id[j]; }, a, b))
    throw Error(ctx + ": id " + std::to_string(id[a]) + " is given twice: " + where(a, "id") +
                " and " + where(b, "id"));
}

void check_distinct_positions(const ParticleStore& s, const Where& where, const std::string& ctx) {
  std::size_t a = 0, b = 0;
  const auto& x = s.pos;
  const auto less = [&](std::size_t i, std::size_t j) {
    if (x[i].x != x[j].x) return x[i].x < x[j].x;
    if (x[i].y != x[j].y) return x[i].y < x[j].y;
    return x[i].z < x[j].z;
  };
  const auto equal = [&](std::size_t i, std::size_t j) {
    return x[i].x == x[j].x && x[i].y == x[j].y && x[i].z == x[j].z;
  };
  if (first_repeat(s.size(), less, equal, a, b))
    throw Error(ctx + ": two particles at the same position (" + number(x[a].x) + ", " +
                number(x[a].y) + ", " + number(x[a].z) + "): " + where(a, "pos") + " and " +
                where(b, "pos"));
}

void check_in_box(const ParticleStore& s, const Box& box, const Where& where,
                  const std::string& ctx) {
  if (!box.periodic) return;
  const Vec3d hi = box.lo + box.size;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Vec3d& x = s.pos[i];
    if (x.x >= box.lo.x && x.x <= hi.x && x.y >= box.lo.y && x.y <= hi.y && x.z >= box.lo.z &&
        x.z <= hi.z)
      continue;
    throw Error(ctx + ": " + where(i, "pos") + " at (" + number(x.x) + ", " + number(x.y) + ", " +
                number(x.z) + ") is outside the periodic box [" + number(box.lo.x) + ", " +
                number(hi.x) + "] x [" + number(box.lo.y) + ", " + number(hi.y) + "] x [" +
                number(box.lo.z) + ", " + number(hi.z) + "]");
  }
}

bool finite(double v) {
  return std::isfinite(v);
}
bool finite(float v) {
  return std::isfinite(v);
}
bool finite(const Vec3d& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

}  // namespace

void check_gas_count(std::size_t n_gas, const ParticleRules& r, const std::string& ctx) {
  // h_i is found between the distances to neighbours N_B and N_B + 1 (sph/smoothing_length.cpp).
  const std::size_t need = static_cast<std::size_t>(r.n_neighbours) + 1;
  if (n_gas > 0 && n_gas < need)
    throw Error(ctx + ": only " + std::to_string(n_gas) + " gas particles; sph.n_neighbours = " +
                std::to_string(r.n_neighbours) + " needs at least " + std::to_string(need));
}

namespace {

// The checks of initial conditions one particle at a time (a part of the file can make them
// alone).
void check_ic_values(const ParticleStore& s, const Box& box, const ParticleRules& rules,
                     const Where& where, const std::string& ctx,
                     const std::vector<std::string>& datasets) {
  check_types(s, rules, where, ctx);
  const auto has = [&](const std::string& d) {
    return std::find(datasets.begin(), datasets.end(), d) != datasets.end();
  };
  const std::size_t n_gas = s.count_by_type()[kGas];
  if (n_gas > 0 && rules.needs_internal_energy && !has("/PartType0/InternalEnergy"))
    throw Error(ctx +
                ": no dataset /PartType0/InternalEnergy: the gas needs its specific internal "
                "energy u > 0 (eos.type = adiabatic)");
  const bool has_h = has("/PartType0/SmoothingLength");
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.type[i] != kGas) continue;
    const double u = s.u[i];
    if (u < 0 || (rules.needs_internal_energy && !(u > 0)))
      throw Error(ctx + ": " + where(i, "u") + " has u = " + number(u) +
                  (rules.needs_internal_energy ? "; the gas needs u > 0 (eos.type = adiabatic)"
                                               : "; u must not be negative"));
    if (has_h && !(s.h[i] > 0))
      throw Error(ctx + ": " + where(i, "h") + " has h = " + number(s.h[i]) +
                  "; smoothing lengths must be positive (leave the dataset out to have mpsph "
                  "compute them)");
  }
  check_in_box(s, box, where, ctx);
}

}  // namespace

void validate_initial_conditions(const ParticleStore& s, const Box& box, const ParticleRules& rules,
                                 const std::string& path,
                                 const std::vector<std::string>& datasets) {
  const std::string ctx = "initial conditions '" + path + "'";
  if (s.size() == 0) throw Error(ctx + ": no particles (every NumPart count is 0)");
  const Where where(s, false);
  check_ic_values(s, box, rules, where, ctx, datasets);
  check_gas_count(s, rules, ctx);
  check_unique_ids(s, where, ctx);
  check_distinct_positions(s, where, ctx);
}

void validate_initial_conditions_part(const ParticleStore& s, const Box& box,
                                      const ParticleRules& rules, const std::string& path,
                                      const std::vector<std::string>& datasets) {
  const Where where(s, false, true);
  check_ic_values(s, box, rules, where, "initial conditions '" + path + "'", datasets);
}

namespace {

// The checks of one particle at a time (a part of the file can make them alone).
void check_particle_values(const ParticleStore& s, const ParticleRules& rules, const Where& where,
                           const std::string& ctx) {
  check_types(s, rules, where, ctx);
  s.for_each_field([&](const FieldInfo& f, const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Vec3d>) {
      if (f.persistence != Persistence::Kept) return;
      for (std::size_t i = 0; i < v.size(); ++i)
        if ((f.types == AllTypes || carries(f, s.type[i])) && !finite(v[i]))
          throw Error(ctx + ": " + where(i, f.member) + " is NaN or inf");
    }
  });
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.type[i] >= kNumTypes) continue;  // removed since the last order stage: mass 0
    if (!(s.mass[i] > 0))
      throw Error(ctx + ": " + where(i, "mass") + " has mass " + number(s.mass[i]) +
                  "; masses must be positive");
    if (s.type[i] != kGas) continue;
    if (s.u[i] < 0)
      throw Error(ctx + ": " + where(i, "u") + " has u = " + number(s.u[i]) +
                  "; u must not be negative");
    if (!(s.h[i] > 0))
      throw Error(ctx + ": " + where(i, "h") + " has h = " + number(s.h[i]) +
                  "; smoothing lengths must be positive");
  }
}

}  // namespace

void validate_checkpoint_particles(const ParticleStore& s, const ParticleRules& rules,
                                   const std::string& path) {
  const std::string ctx = "checkpoint '" + path + "'";
  if (s.size() == 0) throw Error(ctx + ": no particles");
  const Where where(s, true);
  check_particle_values(s, rules, where, ctx);
  check_gas_count(s, rules, ctx);
  check_unique_ids(s, where, ctx);
}

void validate_checkpoint_part(const ParticleStore& s, const ParticleRules& rules,
                              const std::string& path) {
  const Where where(s, true, true);
  check_particle_values(s, rules, where, "checkpoint '" + path + "'");
}

}  // namespace mpsph
