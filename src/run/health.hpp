// The health check of every step (issue #17): a non-finite or physically impossible value (NaN or
// inf in a state field, rho <= 0, h <= 0 or collapsed, negative u or mass, a time step that is not
// finite and positive) stops the run with exit code 4, a diagnosis naming the step, the stage, the
// field, the first offending particle and its neighbourhood, and a diagnostic snapshot beside the
// outputs; the last good checkpoint is kept. Per-particle test: health_kern.hpp. The CPU backend
// scans the host store; the GPU backend does it inside the step's one synchronisation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/particle_store.hpp"

namespace mpsph {

struct HealthReport {
  uint32_t bits = 0;             // OR of particle_health() over all particles
  std::size_t first = SIZE_MAX;  // smallest index of a particle with a bad field
  bool ok() const { return bits == 0; }
};

// The scan of the CPU backend.
HealthReport check_health(const ParticleView& p);

// "rho (density)": the field and the stage that writes it, for the lowest bit of `bits`.
std::string health_field_name(uint32_t bits);
// Every field named by `bits`, comma-separated.
std::string health_fields(uint32_t bits);

// The diagnosis of particle `i` of `s`: its id, type, the bad field's value and its state, and the
// `k` nearest particles (by distance, brute force: this runs once, when a run fails) with theirs.
std::string describe_particle_health(const ParticleStore& s, std::size_t i, int k = 8);

// Thrown when the check fails; the CLI exits with code 4.
struct HealthError : Error {
  using Error::Error;
};

}  // namespace mpsph
