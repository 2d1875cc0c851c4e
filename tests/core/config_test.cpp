// Strict configuration: every error kind names the problem and the key; defaults, conditional
// keys, overrides and the resolved-YAML round trip. A local schema keeps these tests independent
// of the parameters that modules add to program_schema().
#include "core/config.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "catch.hpp"
#include "core/error.hpp"
#include "core/error_message.hpp"

using namespace mpsph;
using mpsph::test::contains;

namespace {

Schema test_schema() {
  Schema s;
  s.add({"run.t_end",
         ParamType::Double,
         std::nullopt,
         0,
         1e300,
         false,
         false,
         {},
         "code time",
         "end time of the run"});
  s.add({"run.name", ParamType::String, "demo", 0, 0, false, false, {}, "", "run name"});
  s.add({"run.fields",
         ParamType::StringList,
         "[Density]",
         0,
         0,
         false,
         false,
         {"Density", "Pressure", "Two Words"},
         "",
         "extra output fields"});
  s.add({"run.tags", ParamType::StringList, "[]", 0, 0, false, false, {}, "", "free labels"});
  s.add({"sph.n_neighbours",
         ParamType::Int,
         "50",
         1,
         10000,
         false,
         false,
         {},
         "",
         "N_B: neighbours inside 2h"});
  s.add({"sph.alpha", ParamType::Double, "1", 0, 10, false, false, {}, "", "viscosity alpha"});
  s.add({"sph.eps", ParamType::Double, "0.01", 0, 1, true, false, {}, "", "eps in mu_ij"});
  s.add({"sph.balsara", ParamType::Bool, "true", 0, 0, false, false, {}, "", "Balsara switch"});
  s.add({"eos.type",
         ParamType::Choice,
         "adiabatic",
         0,
         0,
         false,
         false,
         {"adiabatic", "isothermal", "barotropic"},
         "",
         "equation of state"});
  s.add({"eos.sound_speed",
         ParamType::Double,
         std::nullopt,
         0,
         1e300,
         true,
         false,
         {},
         "code velocity",
         "isothermal sound speed",
         "eos.type=isothermal"});
  s.add({"eos.sound_speed",
         ParamType::Double,
         std::nullopt,
         0,
         1e300,
         true,
         false,
         {},
         "code velocity",
         "sound speed below rho_crit",
         "eos.type=barotropic"});
  // A chain of conditions: eos.exponent exists only for a barotropic EOS with a custom model.
  s.add({"eos.model",
         ParamType::Choice,
         "bate",
         0,
         0,
         false,
         false,
         {"bate", "custom"},
         "",
         "barotropic model",
         "eos.type=barotropic"});
  s.add({"eos.exponent",
         ParamType::Double,
         "1.4",
         1,
         2,
         false,
         false,
         {},
         "",
         "custom barotropic exponent",
         "eos.model=custom"});
  s.add({"gravity.softening",
         ParamType::DoubleList,
         "[0.05]",
         0,
         1e300,
         true,
         false,
         {},
         "code length",
         "softening lengths"});
  return s;
}

const Schema& schema() {
  static const Schema s = test_schema();
  return s;
}

Config load(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return Config::from_string(yaml, "test.yml", schema(), overrides);
}

// The message of the mpsph::Error that loading throws ("" if it loads).
std::string error_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return test::error_message([&] { load(yaml, overrides); });
}

const std::string kMin = "run: {t_end: 1}\n";  // the one required key

}  // namespace

TEST_CASE("config: defaults are filled for every active key", "[core][config]") {
  const Config c = load(kMin);
  CHECK(c.get_double("run.t_end") == 1.0);
  CHECK(c.get_string("run.name") == "demo");
  CHECK(c.get_string_list("run.fields") == std::vector<std::string>{"Density"});
  CHECK(c.get_string_list("run.tags").empty());
  CHECK(c.get_int("sph.n_neighbours") == 50);
  CHECK(c.get_double("sph.eps") == 0.01);
  CHECK(c.get_bool("sph.balsara"));
  CHECK(c.get_string("eos.type") == "adiabatic");
  CHECK(c.get_double_list("gravity.softening") == std::vector<double>{0.05});
  CHECK(c.origin("run.t_end") == "test.yml:1");
  CHECK(c.origin("sph.alpha") == "default");
  // Conditional keys of other EOS types are not active.
  CHECK_FALSE(c.is_active("eos.sound_speed"));
  CHECK_FALSE(c.is_active("eos.model"));
  CHECK(c.values().size() == 10);  // 14 specs - 2 sound_speed - model - exponent
}

TEST_CASE("config: values are read back exactly", "[core][config]") {
  const Config c = load(
      "run: {t_end: 0.1, name: 'a: b # c', tags: [x, 'y, z'], fields: [Pressure, Two Words]}\n"
      "sph: {n_neighbours: 1e2, alpha: -0.0e0, eps: 1, balsara: false}\n"
      "gravity: {softening: [1e-300, 0.333333333333333315, 7]}\n");
  // Canonical text must reproduce the parsed double bit for bit.
  CHECK(c.get_double("run.t_end") == 0.1);
  CHECK(c.get_string("run.name") == "a: b # c");
  CHECK(c.get_string_list("run.tags") == std::vector<std::string>{"x", "y, z"});
  CHECK(c.get_string_list("run.fields") == std::vector<std::string>{"Pressure", "Two Words"});
  CHECK(c.get_int("sph.n_neighbours") == 100);  // integral exponent form is an int
  CHECK(c.get_double("sph.alpha") == 0.0);
  CHECK_FALSE(c.get_bool("sph.balsara"));
  const std::vector<double> eps = c.get_double_list("gravity.softening");
  REQUIRE(eps.size() == 3);
  CHECK(eps[0] == 1e-300);
  CHECK(eps[1] == 1.0 / 3.0);
  CHECK(eps[2] == 7.0);
}

TEST_CASE("config: a single value is a one-element list", "[core][config]") {
  CHECK(load(kMin + "gravity: {softening: 0.2}").get_double_list("gravity.softening") ==
        std::vector<double>{0.2});
  CHECK(load("run: {t_end: 1, fields: Pressure}").get_string_list("run.fields") ==
        std::vector<std::string>{"Pressure"});
}

TEST_CASE("config: unknown keys are errors with a suggestion when one is close", "[core][config]") {
  const std::string typo = error_of(kMin + "sph:\n  n_neighbors: 40\n");
  CHECK(typo == "test.yml:3: unknown key 'sph.n_neighbors' (did you mean 'sph.n_neighbours'?)");
  // Swapped letters count as one edit.
  CHECK(contains(error_of(kMin + "sph: {aplha: 1}"), "did you mean 'sph.alpha'?"));
  // Right name, wrong section.
  CHECK(
      contains(error_of(kMin + "gravity: {n_neighbours: 40}"), "did you mean 'sph.n_neighbours'?"));
  // Nothing close: no suggestion, but an unknown section lists the sections.
  const std::string far = error_of(kMin + "sph: {completely_different: 1}");
  CHECK(contains(far, "unknown key 'sph.completely_different'"));
  CHECK_FALSE(contains(far, "did you mean"));
  CHECK(contains(error_of(kMin + "outputs: {every: 3}"), "sections are: run, sph, eos, gravity"));
  // A scalar where a section belongs.
  CHECK(contains(error_of(kMin + "sph: 3"), "'sph' is a section"));
}

TEST_CASE("config: conditional keys exist only when their condition holds", "[core][config]") {
  CHECK(error_of(kMin + "eos: {sound_speed: 0.2}") ==
        "test.yml:2: 'eos.sound_speed' is only used when eos.type is isothermal or barotropic "
        "(here eos.type is adiabatic)");
  const Config iso = load(kMin + "eos: {type: isothermal, sound_speed: 0.2}");
  CHECK(iso.get_double("eos.sound_speed") == 0.2);
  CHECK_FALSE(iso.is_active("eos.model"));
  // A chain: model is active for barotropic, exponent only for the custom model.
  const Config bate = load(kMin + "eos: {type: barotropic, sound_speed: 0.2}");
  CHECK(bate.get_string("eos.model") == "bate");
  CHECK_FALSE(bate.is_active("eos.exponent"));
  const Config custom =
      load(kMin + "eos: {type: barotropic, sound_speed: 0.2, model: custom, exponent: 1.2}");
  CHECK(custom.get_double("eos.exponent") == 1.2);
  CHECK(contains(error_of(kMin + "eos: {type: barotropic, sound_speed: 0.2, exponent: 1.2}"),
                 "'eos.exponent' is only used when eos.model is custom (here eos.model is bate)"));
  CHECK(contains(error_of(kMin + "eos: {model: custom}"),
                 "'eos.model' is only used when eos.type is barotropic"));
}

TEST_CASE("config: missing required keys name the key and its description", "[core][config]") {
  CHECK(error_of("sph: {alpha: 1}") ==
        "test.yml: missing required key 'run.t_end' (end time of "
        "the run)");
  CHECK(error_of("") == "test.yml: missing required key 'run.t_end' (end time of the run)");
  CHECK(error_of(kMin + "eos: {type: isothermal}") ==
        "test.yml: missing required key 'eos.sound_speed' (isothermal sound speed; required when "
        "eos.type is isothermal)");
}

TEST_CASE("config: duplicate keys name both places", "[core][config]") {
  CHECK(error_of(kMin + "sph:\n  alpha: 1\n  eps: 0.1\n  alpha: 3\n") ==
        "test.yml:5: duplicate key 'sph.alpha' (also given at line 3)");
  CHECK(error_of("run: {t_end: 1}\nsph: {alpha: 1}\nsph: {eps: 0.1}\n") ==
        "test.yml:3: duplicate key 'sph' (also given at line 2)");
  CHECK(error_of("run: {t_end: 1, t_end: 2}") ==
        "test.yml:1: duplicate key 'run.t_end' (given twice on line 1, columns 7 and 17)");
  // A dotted key is the same key as its nested form.
  CHECK(error_of("run: {t_end: 1}\nrun.t_end: 2\n") ==
        "test.yml:2: duplicate key 'run.t_end' (also given at test.yml:1)");
}

TEST_CASE("config: wrong types name the key, the expected type and the value", "[core][config]") {
  CHECK(error_of(kMin + "sph: {n_neighbours: many}") ==
        "test.yml:2: sph.n_neighbours: expected an integer, got 'many'");
  CHECK(error_of(kMin + "sph: {n_neighbours: 1.5}") ==
        "test.yml:2: sph.n_neighbours: expected an integer, got '1.5'");
  CHECK(error_of(kMin + "sph:\n  alpha:\n    x: 1\n") ==
        "test.yml:3: sph.alpha: expected a number, got a map");
  CHECK(error_of(kMin + "sph: {alpha: [1, 2]}") ==
        "test.yml:2: sph.alpha: expected a number, got a sequence");
  CHECK(error_of(kMin + "sph: {alpha: '1'}") ==
        "test.yml:2: sph.alpha: expected a number, got the quoted string '1'");
  CHECK(error_of(kMin + "sph: {alpha: }") ==
        "test.yml:2: sph.alpha: expected a number, got an empty value");
  CHECK(error_of(kMin + "sph: {alpha: .inf}") ==
        "test.yml:2: sph.alpha: expected a number, got '.inf'");
  CHECK(
      contains(error_of(kMin + "sph: {alpha: 1e999}"), "sph.alpha = 1e999 is not a finite number"));
  // YAML 1.1 spellings of booleans are not accepted: only true/false.
  CHECK(error_of(kMin + "sph: {balsara: yes}") ==
        "test.yml:2: sph.balsara: expected true or false, got 'yes'");
  CHECK(error_of("run: {t_end: 1, name: [a]}") ==
        "test.yml:1: run.name: expected a string, got a sequence");
  CHECK(contains(error_of(kMin + "gravity: {softening: [0.1, x]}"),
                 "gravity.softening[1]: expected a number, got 'x'"));
  CHECK(contains(error_of(kMin + "gravity: {softening: {a: 1}}"),
                 "gravity.softening: expected a sequence of numbers, got a map"));
  CHECK(contains(error_of(kMin + "sph: {n_neighbours: 99999999999999999999}"), "too large"));
}

TEST_CASE("config: out-of-range values say what is allowed", "[core][config]") {
  CHECK(error_of(kMin + "sph: {n_neighbours: 0}") ==
        "test.yml:2: sph.n_neighbours = 0 is out of range: must be >= 1 and <= 10000");
  CHECK(contains(error_of(kMin + "sph: {alpha: 10.5}"), "sph.alpha = 10.5 is out of range"));
  // Exclusive lower bound 0: the value must be positive, 0 itself is refused.
  CHECK(error_of(kMin + "sph: {eps: 0}") ==
        "test.yml:2: sph.eps = 0 is out of range: must be > 0 (positive) and <= 1");
  CHECK(load(kMin + "sph: {eps: 1}").get_double("sph.eps") == 1.0);  // inclusive upper bound
  // Each list element is checked, and the message gives its index.
  CHECK(error_of(kMin + "gravity: {softening: [0.1, 0.2, -1]}") ==
        "test.yml:2: gravity.softening[2] = -1 is out of range: must be > 0 (positive)");
  // An unbounded side (1e300) is not printed.
  CHECK(contains(error_of("run: {t_end: -1}"), "run.t_end = -1 is out of range: must be >= 0"));
}

TEST_CASE("config: choices list the allowed values", "[core][config]") {
  CHECK(error_of(kMin + "eos: {type: polytropic}") ==
        "test.yml:2: eos.type = 'polytropic' is not allowed: choose one of adiabatic, "
        "isothermal, barotropic");
  CHECK(contains(
      error_of("run: {t_end: 1, fields: [Density, Entropy]}"),
      "run.fields[1] = 'Entropy' is not allowed: choose one of Density, Pressure, Two Words"));
}

TEST_CASE("config: YAML syntax errors and bad documents", "[core][config]") {
  CHECK(error_of("run: {t_end: [1}\n") == "test.yml:1:16: YAML syntax error: illegal flow end");
  CHECK(error_of("- 1\n- 2\n") == "test.yml: the top level must be a map of keys, got a sequence");
  CHECK(
      contains(error_of("run: {t_end: 1}\n---\nrun: {t_end: 2}\n"), "more than one YAML document"));
  // Found by fuzz/config_fuzz.cpp: with YAML::LoadAll these filled the memory (yaml-cpp 0.7 reads
  // a stray ',' as endless empty documents).
  CHECK(contains(error_of(","), "test.yml: more than one YAML document"));
  CHECK(contains(error_of("{run: {t_end: 1}},"), "test.yml: more than one YAML document"));
  // Found by fuzz/config_fuzz.cpp: bytes that are not UTF-8 came back from the resolved config
  // as U+FFFD, so a restart would have read another setup.path.
  CHECK(contains(error_of("run: {t_end: 1}\nsetup: {type: file, path: \"\x97\x9c.h5\"}\n"),
                 "test.yml:2: byte 151 at offset 43 is not UTF-8"));
  CHECK_FALSE(
      contains(error_of("run: {t_end: 1}\nsetup: {type: file, path: \"\xc3\xa9.h5\"}\n"), "UTF-8"));
  try {
    Config::from_file("/nonexistent/dir/run.yml", schema());
    FAIL("a missing file must throw");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "cannot open config file '/nonexistent/dir/run.yml'");
  }
}

TEST_CASE("config: from_file names the file in messages", "[core][config]") {
  const std::string path = std::string(MPSPH_BINARY_DIR) + "/config_test_from_file.yml";
  {
    std::ofstream f(path);
    f << "run:\n  t_end: 2.5\nsph:\n  alpha: 11\n";
  }
  try {
    Config::from_file(path, schema());
    FAIL("alpha = 11 is out of range and must throw");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == path +
                                       ":4: sph.alpha = 11 is out of range: must be >= 0 and "
                                       "<= 10");
  }
  const Config c = Config::from_file(path, schema(), {"sph.alpha=2"});
  CHECK(c.get_double("run.t_end") == 2.5);
  CHECK(c.source() == path);
  std::remove(path.c_str());
}

TEST_CASE("config: overrides are applied on top and validated like the file", "[core][config]") {
  const Config c = load(kMin + "sph: {alpha: 2}",
                        {"sph.alpha=0.5", "gravity.softening=[0.01, 0.02]", "run.name=x=y"});
  CHECK(c.get_double("sph.alpha") == 0.5);
  CHECK(c.origin("sph.alpha") == "--set sph.alpha");
  CHECK(c.get_double_list("gravity.softening") == std::vector<double>{0.01, 0.02});
  CHECK(c.get_string("run.name") == "x=y");  // split at the first '='
  CHECK(load(kMin, {"gravity.softening=0.01"}).get_double_list("gravity.softening") ==
        std::vector<double>{0.01});
  // The last override of a key wins.
  CHECK(load(kMin, {"sph.alpha=3", "sph.alpha=4"}).get_double("sph.alpha") == 4.0);
  // An override can switch a condition on, and supply a required key.
  const Config iso = load("", {"run.t_end=1", "eos.type=isothermal", "eos.sound_speed=0.3"});
  CHECK(iso.get_double("eos.sound_speed") == 0.3);

  CHECK(error_of(kMin, {"sph.n_neighbours=0"}) ==
        "--set sph.n_neighbours: sph.n_neighbours = 0 is out of range: must be >= 1 and <= 10000");
  CHECK(error_of(kMin, {"sph.n_neighbors=3"}) ==
        "--set sph.n_neighbors: unknown key 'sph.n_neighbors' (did you mean 'sph.n_neighbours'?)");
  CHECK(error_of(kMin, {"eos.sound_speed=1"}) ==
        "--set eos.sound_speed: 'eos.sound_speed' is only used when eos.type is isothermal or "
        "barotropic (here eos.type is adiabatic)");
  CHECK(error_of(kMin, {"sph.alpha="}) ==
        "--set sph.alpha: sph.alpha: expected a number, got an empty value");
  CHECK(error_of(kMin, {"sph.alpha"}) == "--set 'sph.alpha': expected key.path=value");
  CHECK(error_of(kMin, {"=3"}) == "--set '=3': expected key.path=value");
  CHECK(contains(error_of(kMin, {"gravity.softening=[0.1"}), "--set gravity.softening:1:"));
}

TEST_CASE("config: getters refuse inactive keys and other types", "[core][config]") {
  const Config c = load(kMin);
  CHECK_THROWS_AS(c.get_double("eos.sound_speed"), Error);  // not active
  CHECK_THROWS_AS(c.get_double("no.such.key"), Error);
  CHECK_THROWS_AS(c.get_int("sph.alpha"), Error);  // a double key
  CHECK_THROWS_AS(c.get_double("sph.n_neighbours"), Error);
  CHECK_THROWS_AS(c.get_bool("eos.type"), Error);
  CHECK_THROWS_AS(c.get_double_list("run.fields"), Error);
  CHECK_THROWS_AS(c.origin("eos.sound_speed"), Error);
  CHECK(c.get_string("eos.type") == "adiabatic");  // Choice reads as a string
}

TEST_CASE("config: the resolved YAML reloads to the same configuration", "[core][config]") {
  const std::string yaml =
      "run: {t_end: 0.1, name: 'true', tags: ['null', '', 'a: b', \"it's\"]}\n"
      "sph: {n_neighbours: 64, eps: 0.3333333333333333, balsara: false}\n"
      "eos: {type: barotropic, sound_speed: 1e-5, model: custom, exponent: 1.4}\n"
      "gravity: {softening: [0.1, 2.5e-7, 1e300]}\n";
  for (const std::string& text : {yaml, kMin, std::string("run: {t_end: 3, name: ''}")}) {
    const Config a = load(text);
    const std::string resolved = a.resolved_yaml();
    const Config b = Config::from_string(resolved, "resolved.yml", schema());
    CHECK(b.values() == a.values());
    // And the second generation prints identically (a fixed point).
    CHECK(Config::from_string(resolved, "test.yml", schema()).resolved_yaml() == resolved);
  }
  const Config c = load(yaml);
  const std::string r = c.resolved_yaml();
  CHECK(r.rfind("# mpsph resolved configuration of test.yml\n", 0) == 0);
  // Grouped by section, keys sorted.
  CHECK(contains(
      r, "eos:\n  exponent: 1.4\n  model: custom\n  sound_speed: 1e-05\n  type: barotropic\n"));
  CHECK(c.get_string_list("run.tags") == std::vector<std::string>{"null", "", "a: b", "it's"});
}

TEST_CASE("config: schema rejects duplicates and schema_problems finds inconsistencies",
          "[core][config]") {
  Schema s = test_schema();
  CHECK_THROWS_AS(s.add({"sph.alpha", ParamType::Double, "1", 0, 1, false, false, {}, "", "dup"}),
                  std::logic_error);
  CHECK(schema_problems(s).empty());

  Schema bad;
  bad.add({"a.mode", ParamType::Choice, "x", 0, 0, false, false, {"x", "y"}, "", "mode"});
  bad.add({"a.k1", ParamType::Double, "1", 0, 1, false, false, {}, "", "k1", "a.mode=z"});
  bad.add({"a.k2", ParamType::Double, "1", 0, 1, false, false, {}, "", "k2", "a.k1=1"});
  bad.add({"a.k3", ParamType::Double, "5", 0, 1, false, false, {}, "", "k3"});
  bad.add({"a.k4", ParamType::Int, "1.5", 0, 10, false, false, {}, "", "k4"});
  bad.add({"a.k5", ParamType::Double, "1", 0, 1, false, false, {}, "", "k5"});
  bad.add({"a.k5", ParamType::Double, "1", 0, 1, false, false, {}, "", "k5", "a.mode=x"});
  bad.add({"a.k6", ParamType::Choice, "q", 0, 0, false, false, {"x"}, "", "k6"});
  bad.add({"a.mode.sub", ParamType::Double, "1", 0, 1, false, false, {}, "", "sub"});
  bad.add({"a.bad-name", ParamType::Double, "1", 0, 1, false, false, {}, "", "bad"});
  bad.add({"a.nodoc", ParamType::Double, "1", 0, 1, false, false, {}, "", ""});
  const std::vector<std::string> p = schema_problems(bad);
  const auto reported = [&](const std::string& part) {
    for (const std::string& line : p)
      if (contains(line, part)) return true;
    return false;
  };
  CHECK(reported("'a.k1' (when a.mode=z): condition does not name a Choice key"));
  CHECK(reported("'a.k2' (when a.k1=1): condition does not name a Choice key"));
  CHECK(reported("'a.k3': bad default: default of a.k3 = 5 is out of range"));
  CHECK(reported("'a.k4': bad default: default of a.k4: expected an integer"));
  CHECK(reported("'a.k5': its specs could be active together"));
  CHECK(reported("'a.k6': bad default: default of a.k6 = 'q' is not allowed"));
  CHECK(reported("'a.mode': is also a section"));
  CHECK(reported("'a.bad-name': malformed path"));
  CHECK(reported("'a.nodoc': no description"));
  CHECK(p.size() == 9);
}

TEST_CASE("config: schema_markdown documents every key", "[core][config]") {
  const std::string md = schema_markdown(schema());
  CHECK(md.rfind("## run\n\n| key | type | default | allowed | unit | when | description |\n", 0) ==
        0);
  CHECK(contains(md,
                 "| `run.t_end` | double | **required** | >= 0 | code time |  | end time of the "
                 "run |\n"));
  CHECK(contains(md,
                 "| `sph.eps` | double | `0.01` | > 0 (positive) and <= 1 |  |  | eps in mu_ij |"));
  CHECK(contains(md,
                 "| `eos.sound_speed` | double | **required** | > 0 (positive) | code velocity | "
                 "`eos.type=barotropic` | sound speed below rho_crit |"));
  CHECK(contains(md, "| `eos.type` | choice | `adiabatic` | adiabatic, isothermal, barotropic |"));
  // One row per spec, under four section headings.
  std::size_t rows = 0;
  for (std::size_t pos = md.find("\n| `"); pos != std::string::npos;
       pos = md.find("\n| `", pos + 1))
    ++rows;
  CHECK(rows == schema().specs().size());
  CHECK(contains(md, "## sph\n"));
  CHECK(contains(md, "## eos\n"));
  CHECK(contains(md, "## gravity\n"));
}

TEST_CASE("config: hostile YAML is refused quickly with the limit it passed", "[core][config]") {
  // Billion laughs: nine levels of ten aliases each would be 10^9 leaves if expanded.
  std::string bomb =
      "a: &a {x0: 1, x1: 1, x2: 1, x3: 1, x4: 1, x5: 1, x6: 1, x7: 1, x8: 1, x9: 1}\n";
  for (char c = 'b'; c <= 'i'; ++c) {
    bomb += std::string(1, c) + ": &" + c + " {";
    for (int k = 0; k < 10; ++k)
      bomb += (k ? ", y" : "y") + std::to_string(k) + ": *" + char(c - 1);
    bomb += "}\n";
  }
  CHECK(contains(error_of(bomb), "test.yml: the YAML expands to more than 100000 values"));
  CHECK(contains(error_of("run: {t_end: 1}\nsph: " + std::string(40, '[') + std::string(40, ']')),
                 "YAML nested more than 32 levels deep"));
  // Deeper than yaml-cpp's own guard: still an error, not a stack overflow.
  CHECK(contains(error_of("sph: " + std::string(100000, '[') + std::string(100000, ']')),
                 "test.yml"));
  CHECK(contains(error_of("run: {t_end: 1, name: " + std::string(5000, 'x') + "}"),
                 "test.yml:1: a value of 5000 characters (at most 4096 allowed)"));
  CHECK(contains(error_of("run: {t_end: 1}\n" + std::string(1 << 20, '#')),
                 "test.yml: larger than 1 MiB, the limit for a config"));
  CHECK(contains(error_of(std::string("run: {t_end: 1}\0", 16)),
                 "test.yml: a NUL byte at offset 15"));
  // Overrides are held to the same limits.
  try {
    load(kMin, {"run.name=" + std::string(40, '[') + std::string(40, ']')});
    FAIL("a deeply nested override must throw");
  } catch (const Error& e) {
    CHECK(contains(e.what(), "--set run.name"));
    CHECK(contains(e.what(), "nested more than 32 levels"));
  }
  // A config of realistic size passes: the limits are far above any real config.
  std::string many = kMin;
  for (int k = 0; k < 5; ++k) many += "# " + std::string(4000, '-') + "\n";
  CHECK_NOTHROW(load(many));
}

TEST_CASE("config: a directory or an endless file is not read as a config", "[core][config]") {
  try {
    Config::from_file(MPSPH_BINARY_DIR, schema());
    FAIL("a directory must throw");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "config file '" MPSPH_BINARY_DIR "' is a directory");
  }
  try {
    Config::from_file("/dev/zero", schema());
    FAIL("/dev/zero must throw");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "/dev/zero: larger than 1 MiB, the limit for a config");
  }
}
