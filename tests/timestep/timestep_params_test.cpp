// timestep.* parameters: the block default, its segment without dt_max, and the log line.
#include "timestep/timestep_params.hpp"

#include <string>

#include "catch.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "run/program_schema.hpp"

using namespace mpsph;

namespace {

Config config(const std::string& extra) {
  return Config::from_string("run: {t_end: 3.0}\nsetup: {type: evrard}\n" + extra, "test.yaml",
                             program_schema());
}

}  // namespace

TEST_CASE("timestep params: block is the default, and without dt_max its segment is t_end / 64",
          "[timestep][config]") {
  const Config c = config("");
  const TimestepParams p = timestep_params_from(c);
  CHECK(p.scheme == TimestepScheme::Block);
  CHECK(p.dt_max == 3.0 / 64);  // exact: 64 is a power of two
  CHECK(p.limiter_factor == 4);
  const std::string line = describe_timestepping(p, c);
  INFO(line);
  CHECK(line.find("block") != std::string::npos);
  CHECK(line.find("dt_max = 0.046875 (run.t_end / 64: timestep.dt_max not set)") !=
        std::string::npos);

  const Config set = config("timestep: {dt_max: 0.05}\n");
  const TimestepParams q = timestep_params_from(set);
  CHECK(q.dt_max == 0.05);
  CHECK(describe_timestepping(q, set).find("not set") == std::string::npos);

  // The global scheme keeps 0 = no limit.
  const Config g = config("timestep: {scheme: global}\n");
  const TimestepParams r = timestep_params_from(g);
  CHECK(r.scheme == TimestepScheme::Global);
  CHECK(r.dt_max == 0.0);
  CHECK(describe_timestepping(r, g) == "time steps: global (one step for all particles)");

  // A limiter factor that is not a power of two is refused.
  CHECK_THROWS_AS(timestep_params_from(config("timestep: {limiter_factor: 3}\n")), Error);
}
