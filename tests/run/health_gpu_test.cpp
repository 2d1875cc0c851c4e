// The GPU backend's health check (inside the step's one synchronisation) stops a bad run as the
// CPU backend does: same step, stage and first offending particle.
#ifdef MPSPH_HAVE_CUDA
#include <cstdio>
#include <filesystem>
#include <string>

#include "catch.hpp"
#include "run/health.hpp"
#include "run/simulation_test_support.hpp"

using namespace mpsph;

namespace {

std::string failure(const std::string& device) {
  // Gravity of a 1e40-mass Plummer sphere overflows float (see health_test.cpp).
  const std::string dir = test::scratch_dir("health_plummer_" + device);
  const std::string yaml = R"(
run: {t_end: 1.0}
setup: {type: plummer, n_particles: 2000, mass: 1.0e40}
gravity: {softening: 0.01}
)";
  try {
    Simulation sim(test::run_options(dir, yaml, {}, device));
    sim.run();
  } catch (const HealthError& e) {
    CHECK(std::filesystem::exists(dir + "/diagnostic_step000000.h5"));
    return e.what();
  }
  return "";
}

// "first offending particle id N " -> N
std::string first_id(const std::string& msg) {
  const std::string key = "first offending particle id ";
  const auto p = msg.find(key);
  if (p == std::string::npos) return "";
  return msg.substr(p + key.size(), msg.find(' ', p + key.size()) - p - key.size());
}

}  // namespace

TEST_CASE("GPU health check: a bad run stops like on the CPU", "[gpu][run][health]") {
  const std::string cpu = failure("cpu"), gpu = failure("gpu");
  INFO("CPU: " << cpu.substr(0, 300) << "\nGPU: " << gpu.substr(0, 300));
  REQUIRE(!cpu.empty());
  REQUIRE(!gpu.empty());
  CHECK(gpu.find("step 0") != std::string::npos);
  CHECK(gpu.find("(gravity)") != std::string::npos);
  CHECK(first_id(gpu) == first_id(cpu));
  std::printf("[gpu health] GPU stopped at: %s\n", gpu.substr(0, gpu.find(';')).c_str());
}
#endif
