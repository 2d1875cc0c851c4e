#include "io/file_format_doc.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/particle_store.hpp"
#include "io/hdf5_util.hpp"
#include "io/snapshot.hpp"

namespace mpsph {

namespace {

// A table cell: '|' would end the cell.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// Rows of a checkpoint dataset: N for every particle, else the sum of the counts N_t of the types
// that carry the field ("N_0" for the gas).
std::string rows_of(unsigned types) {
  if (types == AllTypes) return "N";
  std::string r;
  for (int t = 0; t < kNumTypes; ++t)
    if ((types >> t) & 1u) r += (r.empty() ? "N_" : " + N_") + std::to_string(t);
  return r;
}

template <class T>
std::string shape(unsigned types = AllTypes) {
  const std::string rows = rows_of(types);
  return h5::Traits<T>::components == 1 ? rows
                                        : rows + " x " + std::to_string(h5::Traits<T>::components);
}

}  // namespace

std::string snapshot_datasets_markdown() {
  const std::vector<std::string> always = default_snapshot_fields();
  std::string md =
      "| dataset | types | file type | shape | unit | written | description |\n"
      "|---|---|---|---|---|---|---|\n";
  ParticleStore{}.for_each_field([&](const FieldInfo& f, const auto& v) {
    if (!*f.hdf5_name) return;
    using T = typename std::decay_t<decltype(v)>::value_type;
    std::string types;
    for (int t = 0; t < kNumTypes; ++t)
      if ((f.types >> t) & 1u) types += (types.empty() ? "" : ", ") + std::to_string(t);
    if (f.types == AllTypes) types = "all";
    const bool by_default = std::find(always.begin(), always.end(), f.hdf5_name) != always.end();
    md += "| `" + std::string(f.hdf5_name) + "` | " + types + " | " + h5::Traits<T>::name + " | " +
          shape<T>() + " | " + code_unit_expression(f.dim.length, f.dim.mass, f.dim.velocity) +
          " | " + (by_default ? "always" : "on request") + " | " + cell(f.description) + " |\n";
  });
  return md;
}

std::string checkpoint_datasets_markdown() {
  std::string md = "| dataset | file type | shape | description |\n|---|---|---|---|\n";
  ParticleStore{}.for_each_field([&](const FieldInfo& f, const auto& v) {
    if (f.persistence != Persistence::Kept) return;
    using T = typename std::decay_t<decltype(v)>::value_type;
    md += "| `/Particles/" + std::string(f.member) + "` | " + h5::Traits<T>::name + " | " +
          shape<T>(f.types) + " | " + cell(f.description) + " |\n";
  });
  return md;
}

}  // namespace mpsph
