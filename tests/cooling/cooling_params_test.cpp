// The cooling: section: defaults, reading, and the errors STYLE.md item 8 and 9 ask for.
#include "cooling/cooling_params.hpp"

#include <string>

#include "catch.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "core/error_message.hpp"
#include "run/program_schema.hpp"
#include "sph/eos_params.hpp"

using namespace mpsph;
using mpsph::test::contains;

namespace {

// The cooling keys plus eos.gamma, which the cooling model reads.
const Schema& schema() {
  static const Schema s = [] {
    Schema x;
    add_eos_params(x);
    add_cooling_params(x);
    return x;
  }();
  return s;
}

CoolingParams read(const std::string& yaml) {
  return cooling_params_from(Config::from_string(yaml, "test.yaml", schema()));
}

std::string error_of(const std::string& yaml) {
  return test::error_message([&] { read(yaml); });
}

}  // namespace

TEST_CASE("cooling parameters: defaults come from the struct", "[cooling][params]") {
  const CoolingParams d;
  const CoolingParams none = read("");
  CHECK(none.kind == CoolingKind::None);
  CHECK(none.mu_variable == d.mu_variable);
  CHECK(none.gamma == Approx(5.0 / 3.0).epsilon(1e-15));
  const CoolingParams p = read("cooling: {model: sd93}");
  CHECK(p.kind == CoolingKind::Sd93);
  CHECK(p.table_dir == d.table_dir);
  CHECK(p.metals == d.metals);
  CHECK(p.metallicity == d.metallicity);
  CHECK(p.hydrogen_fraction == d.hydrogen_fraction);
  CHECK(p.floor_K == d.floor_K);
  CHECK(p.heating == d.heating);
  CHECK(p.tolerance == d.tolerance);
}

TEST_CASE("cooling parameters: every key is read", "[cooling][params]") {
  const CoolingParams p = read(
      "eos: {gamma: 1.4}\n"
      "cooling: {model: sd93, table_dir: /tmp/t, metals: particles, metallicity: -1.5,\n"
      "          hydrogen_fraction: 0.75, floor_K: 100, heating: 2e-26, tolerance: 1e-4,\n"
      "          mu_model: constant, mu: 1.22}\n");
  CHECK(p.kind == CoolingKind::Sd93);
  CHECK(p.table_dir == "/tmp/t");
  CHECK(p.metals == MetalSource::Particles);
  CHECK(p.metallicity == -1.5);
  CHECK(p.hydrogen_fraction == 0.75);
  CHECK(p.floor_K == 100.0);
  CHECK(p.heating == 2e-26);
  CHECK(p.tolerance == 1e-4);
  CHECK(!p.mu_variable);
  CHECK(p.mu == 1.22);
  CHECK(p.gamma == 1.4);
}

TEST_CASE("cooling parameters: errors name the key and what is allowed", "[cooling][params]") {
  // An unknown model lists the valid ones (in the config and in the C++ parser).
  const std::string e1 = error_of("cooling: {model: cie}");
  CHECK(contains(e1, "cooling.model"));
  CHECK(contains(e1, "none"));
  CHECK(contains(e1, "sd93"));
  CHECK_THROWS_AS(parse_cooling_model("cie"), Error);
  // sd93 keys are errors under model none; the constant mu only with mu_model constant.
  CHECK(contains(error_of("cooling: {floor_K: 100}"), "cooling.floor_K"));
  CHECK(contains(error_of("cooling: {mu: 1.2}"), "cooling.mu"));
  // Out of range, with the file and the key.
  const std::string e2 = error_of("cooling: {model: sd93, hydrogen_fraction: 1.5}");
  CHECK(contains(e2, "test.yaml"));
  CHECK(contains(e2, "cooling.hydrogen_fraction"));
  CHECK(contains(error_of("cooling: {model: sd93, floor_K: -1}"), "cooling.floor_K"));
  CHECK(contains(error_of("cooling: {model: sd93, metals: gas}"), "particles"));
}

TEST_CASE("cooling parameters are part of the program schema", "[cooling][params]") {
  bool found = false;
  for (const ParamSpec& s : program_schema().specs()) found = found || s.path == "cooling.model";
  CHECK(found);
}
