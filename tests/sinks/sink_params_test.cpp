// The sinks: section: defaults, the threshold from resolution, and the errors STYLE.md items 8
// and 9 ask for.
#include "sinks/sink_params.hpp"

#include <cmath>
#include <string>

#include "catch.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/error_message.hpp"
#include "run/program_schema.hpp"
#include "setups/cloud_scales.hpp"

using namespace mpsph;
using mpsph::test::contains;

namespace {

SinkParams read(const std::string& yaml) {
  return sink_params_from(Config::from_string("run: {t_end: 1}\nsetup: {type: evrard}\n" + yaml,
                                              "test.yaml", program_schema()));
}

std::string error_of(const std::string& yaml) {
  return test::error_message([&] { read(yaml); });
}

const char* kIso = "eos: {type: isothermal, sound_speed: 0.2}\ngravity: {softening: [0.01]}\n";

}  // namespace

TEST_CASE("sink parameters: none by default, bate95 with its defaults", "[sinks][params]") {
  CHECK(read("").kind == SinkKind::None);
  CHECK_FALSE(read("").enabled());
  const SinkParams d;
  const SinkParams p = read(std::string(kIso) + "sinks: {model: bate95, h_acc: 0.05}");
  CHECK(p.kind == SinkKind::Bate95);
  CHECK(p.h_acc == 0.05);
  CHECK(p.rho_sink == d.rho_sink);
  CHECK(p.r_crit == d.r_crit);
  CHECK(p.critical_radius() == 0.1);  // default: 2 h_acc
  CHECK(p.wake_radius == d.wake_radius);
  CHECK(p.merge_radius == 1.0);       // default: merge inside each other's h_acc
  CHECK(p.merging_radius() == 0.05);  // in code length
  CHECK(p.sound_speed == 0.2);
  CHECK(p.n_neighbours == 50);
  const SinkParams q =
      read(std::string(kIso) + "sinks: {model: bate95, h_acc: 0.05, r_crit: 0.07, rho_sink: 3}");
  CHECK(q.critical_radius() == 0.07);
  CHECK(q.rho_sink == 3.0);
  CHECK(read(std::string(kIso) + "sinks: {model: bate95, h_acc: 0.05, merge_radius: 0}")
            .merging_radius() == 0.0);  // off
  CHECK(read(std::string(kIso) + "sinks: {model: bate95, h_acc: 0.05, merge_radius: 2}")
            .merging_radius() == 0.1);
}

TEST_CASE("sink parameters: bad values are errors naming the key", "[sinks][params]") {
  const std::string iso = kIso;
  CHECK(contains(error_of("sinks: {model: bate96}"), "bate96"));
  CHECK(contains(error_of(iso + "sinks: {model: bate95}"), "sinks.h_acc"));
  CHECK(contains(error_of(iso + "sinks: {model: bate95, h_acc: 0}"), "sinks.h_acc"));
  CHECK(
      contains(error_of(iso + "sinks: {model: bate95, h_acc: 0.1, r_crit: 0.05}"), "sinks.r_crit"));
  CHECK(contains(error_of(iso + "sinks: {model: bate95, h_acc: 0.1, rho_sink: -1}"),
                 "sinks.rho_sink"));
  CHECK(contains(error_of(iso + "sinks: {model: bate95, h_acc: 0.1, wake_radius: 0.5}"),
                 "sinks.wake_radius"));
  CHECK(contains(error_of(iso + "sinks: {model: bate95, h_acc: 0.1, merge_radius: -1}"),
                 "sinks.merge_radius"));
  CHECK(contains(error_of(iso + "sinks: {model: bate95, h_acc: 0.1, merge_radius: yes}"),
                 "sinks.merge_radius"));
  CHECK(contains(error_of(iso + "sinks: {model: none, merge_radius: 1}"), "sinks.merge_radius"));
  CHECK(contains(error_of(iso + "sinks: {model: none, h_acc: 0.1}"), "sinks.h_acc"));
  CHECK(contains(error_of(iso + "sinks: {model: bate95, h_acc: 0.1, radius: 1}"), "sinks.radius"));
  // The threshold from resolution needs an EOS sound speed; an adiabatic run sets rho_sink.
  CHECK(contains(error_of("gravity: {softening: [0.01]}\nsinks: {model: bate95, h_acc: 0.1}"),
                 "sinks.rho_sink"));
  CHECK(read("gravity: {softening: [0.01]}\nsinks: {model: bate95, h_acc: 0.1, rho_sink: 5}")
            .rho_sink == 5.0);
  CHECK(contains(error_of("eos: {type: isothermal, sound_speed: 0.2}\ngravity: {softening: "
                          "[0.01, 0.01, 0.01, 0.01, 0.01, 0]}\nsinks: {model: bate95, h_acc: 0.1}"),
                 "gravity.softening"));
  CHECK(contains(error_of("eos: {type: isothermal, sound_speed: 0.2}\ngravity: {enabled: "
                          "false}\nsinks: {model: bate95, h_acc: 0.1}"),
                 "gravity.enabled"));
}

TEST_CASE("sink parameters: rho_sink from resolution puts the Jeans mass at 2 N_B m_p",
          "[sinks][params]") {
  const double cs = 0.3, G = 2.0, m = 1e-3;
  const int nb = 50;
  const double rho = jeans_resolution_density(m, nb, cs, G);
  // Jeans mass of a sphere of diameter lambda_J at that density.
  const double lambda = std::sqrt(M_PI * cs * cs / (G * rho));
  const double m_jeans = M_PI / 6.0 * rho * lambda * lambda * lambda;
  CHECK(m_jeans == Approx(2.0 * nb * m).epsilon(1e-12));
  // Halving the particle mass (twice the resolution) raises the threshold fourfold.
  CHECK(jeans_resolution_density(0.5 * m, nb, cs, G) == Approx(4.0 * rho).epsilon(1e-12));
}
