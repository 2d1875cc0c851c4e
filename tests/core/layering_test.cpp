// The layering of src/ (docs/architecture.md): core is the foundation and includes nothing above
// it; the physics and I/O folders include core and each other but never the run layer or the CLI;
// the run layer never includes the CLI; the MPI layer (parallel/) includes core and physics and
// is included by run/ and app/ only. Every quoted #include of every source file is checked.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "catch.hpp"

namespace fs = std::filesystem;

namespace {

// Folder -> folders its files may include (besides itself).
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::set<std::string> physics = {"core",     "sph",   "gravity", "cooling",
                                                "timestep", "io",    "setups",  "multiphase",
                                                "starform", "sinks", "feedback"};
  static const std::map<std::string, std::set<std::string>> rules = {
      {"core", {"core"}},
      {"sph", physics},
      {"gravity", physics},
      {"cooling", physics},
      {"timestep", physics},
      {"io", physics},
      {"setups", physics},
      {"multiphase", physics},
      {"starform", physics},
      {"sinks", physics},
      {"feedback", physics},
      // The MPI layer drives the physics passes across ranks; only run/ and app/ may use it.
      {"parallel",
       [] {
         auto s = physics;
         s.insert("parallel");
         return s;
       }()},
      {"run",
       [] {
         auto s = physics;
         s.insert({"run", "parallel"});
         return s;
       }()},
      {"app",
       [] {
         auto s = physics;
         s.insert({"run", "app", "parallel"});
         return s;
       }()},
  };
  return rules;
}

struct Violation {
  std::string file, include;
};

std::vector<Violation> violations(const fs::path& src, std::size_t* files_checked) {
  std::vector<Violation> out;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".hpp" && ext != ".cpp" && ext != ".cu" && ext != ".cuh") continue;
    const std::string folder = fs::relative(entry.path(), src).begin()->string();
    ++*files_checked;
    const auto rule = allowed().find(folder);
    std::ifstream f(entry.path());
    std::string line;
    while (std::getline(f, line)) {
      if (line.rfind("#include \"", 0) != 0) continue;
      const std::string inc = line.substr(10, line.find('"', 10) - 10);
      const std::string top = inc.substr(0, inc.find('/'));
      if (rule == allowed().end() || !rule->second.count(top))
        out.push_back({fs::relative(entry.path(), src).string(), inc});
    }
  }
  return out;
}

}  // namespace

// No ';' in the name: catch_discover_tests cuts a ctest name there, and the cut name matches no
// test case (ctest then reports a pass without running anything).
TEST_CASE("layering of src/: core includes only core, and no folder includes a layer above it",
          "[core][layout]") {
  std::size_t files = 0;
  const std::vector<Violation> v = violations(fs::path(MPSPH_SOURCE_DIR) / "src", &files);
  INFO(files << " source files checked");
  CHECK(files > 100);
  for (const Violation& x : v) {
    INFO(x.file << " includes \"" << x.include
                << "\" (a folder missing from the rules counts too)");
    CHECK(false);
  }
  CHECK(v.empty());
}

TEST_CASE("the layering check finds an upward include", "[core][layout]") {
  // The check itself must be able to fail: a file in core that includes a physics header.
  const fs::path tmp = fs::temp_directory_path() / "mpsph_layering_check" / "src";
  fs::create_directories(tmp / "core");
  std::ofstream(tmp / "core" / "bad.hpp")
      << "#include \"core/vec3.hpp\"\n#include \"sph/force.hpp\"\n";
  std::size_t files = 0;
  const std::vector<Violation> v = violations(tmp, &files);
  fs::remove_all(tmp.parent_path());
  REQUIRE(v.size() == 1);
  CHECK(v[0].include == "sph/force.hpp");
}
