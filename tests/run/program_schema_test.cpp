// The program's own schema: consistent, and documented by docs/parameters.md, which is generated
// from it. When a module adds parameters, regenerate the file:
//   MPSPH_UPDATE_DOCS=1 <build>/tests/mpsph_unit_tests "[docs]"
#include "run/program_schema.hpp"

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "catch.hpp"
#include "core/config.hpp"

using namespace mpsph;

TEST_CASE("program schema: consistent", "[core][config]") {
  const std::vector<std::string> problems = schema_problems(program_schema());
  for (const std::string& p : problems) UNSCOPED_INFO(p);
  CHECK(problems.empty());
  // No duplicate (path, when): Schema::add refuses them, so the count of distinct pairs is the
  // count of specs.
  std::set<std::pair<std::string, std::string>> keys;
  for (const ParamSpec& s : program_schema().specs()) keys.insert({s.path, s.when});
  CHECK(keys.size() == program_schema().specs().size());
}

namespace {

// "line N: expected '...', file has '...'" for the first line where two texts differ.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected), a(actual);
  std::string le, la;
  for (int line = 1;; ++line) {
    const bool more_e = bool(std::getline(e, le)), more_a = bool(std::getline(a, la));
    if (!more_e && !more_a) return "";
    if (!more_e || !more_a || le != la)
      return "line " + std::to_string(line) + ": expected '" + (more_e ? le : "<end>") +
             "', file has '" + (more_a ? la : "<end>") + "'";
  }
}

}  // namespace

TEST_CASE("program schema: docs/parameters.md is up to date", "[core][config][docs]") {
  const std::string path = std::string(MPSPH_SOURCE_DIR) + "/docs/parameters.md";
  const std::string expected = parameters_document(program_schema());
  const char* update = std::getenv("MPSPH_UPDATE_DOCS");
  if (update && std::string(update) == "1") std::ofstream(path) << expected;
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string diff = first_difference(expected, text.str());
  INFO(path << " is out of date with program_schema() (" << diff << "); regenerate it with\n"
            << "  MPSPH_UPDATE_DOCS=1 <build>/tests/mpsph_unit_tests \"[docs]\"\n"
            << "and commit it.");
  CHECK(diff.empty());
  CHECK(text.str() == expected);  // also catches a difference in the final newline
}

TEST_CASE("program schema: every ready-to-run setups/*.yaml loads and round-trips",
          "[core][config]") {
  std::size_t files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(MPSPH_SOURCE_DIR) + "/setups")) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".yaml" && ext != ".yml") continue;
    ++files;
    const std::string path = entry.path().string();
    INFO(path);
    std::string message;
    try {
      const Config c = Config::from_file(path, program_schema());
      const Config back = Config::from_string(c.resolved_yaml(), path, program_schema());
      CHECK(back.values() == c.values());
    } catch (const std::exception& e) {
      message = e.what();
    }
    CHECK(message == "");
  }
  CHECK(files >= 1);  // the directory is part of the source tree
}
