#include "io/checkpoint.hpp"

#include <cstdint>
#include <new>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "io/durable_file.hpp"
#include "io/hdf5_util.hpp"

namespace mpsph {

namespace {

constexpr const char* kVersionAttr = "mpsph_checkpoint_version";

template <class F>
void for_each_kept_field(const ParticleStore& store, F&& f) {
  store.for_each_field([&](const FieldInfo& info, const auto& v) {
    if (info.persistence == Persistence::Kept) f(info, v);
  });
}

bool carries(const FieldInfo& f, uint8_t type) {
  return type < kNumTypes && ((f.types >> type) & 1u);
}

// The rows of a field restricted to the particles whose type carries it, in store order.
template <class T>
std::vector<T> masked_rows(const FieldInfo& f, const std::vector<T>& v,
                           const std::vector<uint8_t>& type) {
  if (f.types == AllTypes) {
    // kRemoved particles (not yet dropped by an order stage) carry the AllTypes fields too.
    return v;
  }
  std::vector<T> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (carries(f, type[i])) out.push_back(v[i]);
  return out;
}

}  // namespace

namespace {

void check_field_sizes(const ParticleStore& store, const std::string& ctx) {
  const std::size_t n = store.size();
  for_each_kept_field(store, [&](const FieldInfo& f, const auto& v) {
    if (v.size() != n)
      throw Error(ctx + ": field '" + f.member + "' has " + std::to_string(v.size()) +
                  " entries but the store has " + std::to_string(n) + " particles");
  });
}

// The part's rows into the open file: with part.creates first the attributes, the state and every
// dataset at its full size.
void write_part_rows(hid_t root, const ParticleStore& store, const CheckpointState& state,
                     const CheckpointPart& part, const std::string& ctx) {
  if (part.creates) {
    h5::write_scalar_attribute(root, kVersionAttr, int32_t{kCheckpointVersion}, ctx);
    h5::write_scalar_attribute(root, "NumParticles", uint64_t{part.total}, ctx);
    h5::write_string_attribute(root, "Code", "mpsph " MPSPH_VERSION, ctx);
    h5::Group st = h5::create_group(root, "State", ctx);
    h5::write_scalar_attribute(st.get(), "Time", state.time, ctx);
    h5::write_scalar_attribute(st.get(), "TimeStep", state.dt, ctx);
    h5::write_scalar_attribute(st.get(), "Step", int64_t{state.step}, ctx);
    h5::write_scalar_attribute(st.get(), "NextSnapshot", int64_t{state.next_snapshot}, ctx);
    h5::write_string_attribute(st.get(), "ConfigYAML", state.config_yaml, ctx);
    // One attribute per entry: the name is the key, the value is stored exactly.
    h5::Group scalars = h5::create_group(st.get(), "Scalars", ctx);
    for (const auto& [key, value] : state.scalars) {
      if (key.empty()) throw Error(ctx + ": a scalar has an empty name");
      h5::write_scalar_attribute(scalars.get(), key, value, ctx);
    }
    h5::Group counters = h5::create_group(st.get(), "Counters", ctx);
    for (const auto& [key, value] : state.counters) {
      if (key.empty()) throw Error(ctx + ": a counter has an empty name");
      h5::write_scalar_attribute(counters.get(), key, int64_t{value}, ctx);
    }
  }
  h5::Group particles = part.creates ? h5::create_group(root, "Particles", ctx)
                                     : h5::open_group(root, "Particles", ctx);
  std::size_t k = 0;
  for_each_kept_field(store, [&](const FieldInfo& f, const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    const std::vector<T> rows = masked_rows(f, v, store.type);
    if (k >= part.field_total.size() || k >= part.field_first.size() ||
        part.field_first[k] + rows.size() > part.field_total[k])
      throw Error(ctx + ": the rows of field '" + f.member + "' do not fit the file's");
    if (part.creates) h5::create_rows<T>(particles.get(), f.member, part.field_total[k], ctx);
    h5::write_rows(particles.get(), f.member, rows, part.field_first[k], ctx);
    ++k;
  });
}

}  // namespace

std::vector<uint64_t> checkpoint_field_rows(const std::vector<uint8_t>& types) {
  // masked_rows' counts, without its copies.
  std::vector<uint64_t> rows;
  for_each_kept_field(ParticleStore{}, [&](const FieldInfo& f, const auto&) {
    uint64_t n = 0;
    for (const uint8_t t : types) n += f.types == AllTypes || carries(f, t) ? 1 : 0;
    rows.push_back(n);
  });
  return rows;
}

std::vector<uint64_t> checkpoint_field_rows(const ParticleStore& store) {
  return checkpoint_field_rows(store.type);
}

void write_checkpoint(const std::string& path, const ParticleStore& store,
                      const CheckpointState& state) {
  const std::string ctx = "cannot write checkpoint '" + path + "'";
  check_field_sizes(store, ctx);
  CheckpointPart part;
  part.creates = true;
  part.total = store.size();
  part.field_total = checkpoint_field_rows(store);
  part.field_first.assign(part.field_total.size(), 0);
  h5::TempFile file(path, "checkpoint");
  write_part_rows(file.id(), store, state, part, ctx);
  // The groups above are closed: commit() flushes, fsyncs and renames the finished file.
  file.commit();
}

void write_checkpoint_part(const std::string& path, const ParticleStore& store,
                           const CheckpointState& state, const CheckpointPart& part) {
  const std::string ctx = "cannot write checkpoint '" + path + "'";
  check_field_sizes(store, ctx);
  if (part.creates) {
    h5::TempFile file(path, "checkpoint");
    write_part_rows(file.id(), store, state, part, ctx);
    file.hand_over();
    return;
  }
  h5::File file = h5::open_for_update(temporary_name(path), ctx);
  write_part_rows(file.get(), store, state, part, ctx);
  if (file.close() < 0) throw Error(ctx + ": closing the rows of this part failed");
}

namespace {

// The checkpoint open for reading, its version checked, and its particle count (checked against
// the rows of /Particles/type before anything is allocated: a damaged count asked for 412 GB in
// fuzz/checkpoint_fuzz.cpp).
h5::File open_checkpoint(const std::string& path, uint64_t& n) {
  h5::File file = h5::open_for_reading(path, "checkpoint");
  const std::string ctx = "checkpoint '" + path + "'";
  const hid_t root = file.get();
  if (!h5::has_attribute(root, kVersionAttr))
    throw Error("'" + path + "' is not an mpsph checkpoint (no " + kVersionAttr + " attribute)");
  const auto version = h5::read_int64_attribute(root, kVersionAttr, ctx);
  if (version.size() != 1 || version[0] != kCheckpointVersion)
    throw Error(ctx + " has format version " +
                (version.empty() ? std::string("?") : std::to_string(version[0])) +
                "; this build reads version " + std::to_string(kCheckpointVersion));
  const auto count = h5::read_uint64_attribute(root, "NumParticles", ctx);
  if (count.size() != 1) throw Error(ctx + ": NumParticles must be one value");
  n = count[0];
  h5::Group particles = h5::open_group(root, "Particles", ctx);
  h5::check_rows(root, "/Particles/type", n, ctx, "NumParticles = " + std::to_string(n));
  return file;
}

}  // namespace

uint64_t checkpoint_particles(const std::string& path) {
  uint64_t n = 0;
  open_checkpoint(path, n);
  return n;
}

std::vector<uint8_t> read_checkpoint_types(const std::string& path, uint64_t first,
                                           uint64_t count) {
  uint64_t n = 0;
  h5::File file = open_checkpoint(path, n);
  const std::string ctx = "checkpoint '" + path + "'";
  std::vector<uint8_t> types;
  try {
    types.resize(count);
  } catch (const std::bad_alloc&) {
    throw Error(ctx + ": " + std::to_string(count) + " particles do not fit in memory");
  }
  h5::read_row_range(file.get(), "/Particles/type", types.data(), n, first, count, ctx,
                     "NumParticles = " + std::to_string(n));
  for (std::size_t i = 0; i < count; ++i)
    if (types[i] > kNumTypes)
      throw Error(ctx + ": dataset /Particles/type has type " + std::to_string(types[i]) +
                  " at particle " + std::to_string(first + i) + " (valid: 0..5, or " +
                  std::to_string(kRemoved) + " for a particle removed since the last order stage)");
  return types;
}

ParticleStore read_checkpoint(const std::string& path, CheckpointState* state_out) {
  const uint64_t n = checkpoint_particles(path);
  std::vector<uint8_t> types = read_checkpoint_types(path, 0, n);
  CheckpointPart part;
  part.total = n;
  part.field_total = checkpoint_field_rows(types);
  part.field_first.assign(part.field_total.size(), 0);
  return read_checkpoint_part(path, part, std::move(types), state_out);
}

ParticleStore read_checkpoint_part(const std::string& path, const CheckpointPart& part,
                                   std::vector<uint8_t> types, CheckpointState* state_out) {
  uint64_t n = 0;
  h5::File file = open_checkpoint(path, n);
  const std::string ctx = "checkpoint '" + path + "'";
  const hid_t root = file.get();
  const std::size_t count = types.size();
  if (n != part.total || part.first + count > n)
    throw Error(ctx + ": particles " + std::to_string(part.first) + " to " +
                std::to_string(part.first + count) + " asked for; it has " + std::to_string(n));
  const std::string count_source = "NumParticles = " + std::to_string(n);
  h5::Group particles = h5::open_group(root, "Particles", ctx);
  ParticleStore store;
  try {
    store.resize(count);
  } catch (const std::bad_alloc&) {
    throw Error(ctx + ": " + std::to_string(count) + " particles do not fit in memory");
  }
  store.type = std::move(types);
  // Each kept field's rows of this part: its particles', or those of them whose type carries it.
  std::size_t k = 0;
  store.for_each_field([&](const FieldInfo& f, auto& v) {
    if (f.persistence != Persistence::Kept) return;
    const std::size_t field = k++;
    if (std::string(f.member) == "type") return;
    using T = typename std::decay_t<decltype(v)>::value_type;
    using S = typename h5::Traits<T>::Scalar;
    const std::string dataset = std::string("/Particles/") + f.member;
    if (!h5::has_link(particles.get(), f.member)) throw Error(ctx + ": missing dataset " + dataset);
    // A bit-identical restart needs the native element type, not an HDF5 conversion.
    h5::Dataset d(H5Dopen2(particles.get(), f.member, H5P_DEFAULT));
    if (!d.valid()) throw Error(ctx + ": " + dataset + " is not a dataset");
    if (h5::dataset_info(d.get(), dataset, ctx).element_size != sizeof(S))
      throw Error(ctx + ": dataset " + dataset + " does not hold " + std::to_string(sizeof(S)) +
                  "-byte values as written by this build");
    if (field >= part.field_total.size() || field >= part.field_first.size())
      throw Error(ctx + ": no rows given for field '" + f.member + "'");
    if (f.types == AllTypes) {
      h5::read_row_range(root, dataset, v.data(), n, part.first, count, ctx, count_source);
      return;
    }
    std::size_t masked_n = 0;
    for (std::size_t i = 0; i < count; ++i) masked_n += carries(f, store.type[i]);
    std::decay_t<decltype(v)> rows(masked_n);
    h5::read_row_range(root, dataset, rows.data(), part.field_total[field], part.field_first[field],
                       masked_n, ctx,
                       std::to_string(part.field_total[field]) + " particles of the field's types");
    std::size_t j = 0;
    for (std::size_t i = 0; i < count; ++i)
      if (carries(f, store.type[i])) v[i] = rows[j++];
  });

  if (state_out) {
    h5::Group st = h5::open_group(root, "State", ctx);
    const std::string sctx = ctx + ": /State";
    auto one_double = [&](hid_t loc, const std::string& name, const std::string& c) {
      const auto v = h5::read_double_attribute(loc, name, c);
      if (v.size() != 1) throw Error(c + ": attribute '" + name + "' must be one value");
      return v[0];
    };
    auto one_long = [&](hid_t loc, const std::string& name, const std::string& c) {
      const auto v = h5::read_int64_attribute(loc, name, c);
      if (v.size() != 1) throw Error(c + ": attribute '" + name + "' must be one value");
      return static_cast<long>(v[0]);
    };
    CheckpointState state;
    state.time = one_double(st.get(), "Time", sctx);
    state.dt = one_double(st.get(), "TimeStep", sctx);
    state.step = one_long(st.get(), "Step", sctx);
    state.next_snapshot = one_long(st.get(), "NextSnapshot", sctx);
    state.config_yaml = h5::read_string_attribute(st.get(), "ConfigYAML", sctx);
    h5::Group scalars = h5::open_group(st.get(), "Scalars", ctx);
    for (const std::string& key : h5::attribute_names(scalars.get(), sctx + "/Scalars"))
      state.scalars[key] = one_double(scalars.get(), key, sctx + "/Scalars");
    h5::Group counters = h5::open_group(st.get(), "Counters", ctx);
    for (const std::string& key : h5::attribute_names(counters.get(), sctx + "/Counters"))
      state.counters[key] = one_long(counters.get(), key, sctx + "/Counters");
    *state_out = std::move(state);
  }
  return store;
}

}  // namespace mpsph
