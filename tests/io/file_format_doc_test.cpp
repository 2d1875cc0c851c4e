// docs/file_format.md lists every dataset of snapshots and checkpoints in sections generated from
// the field table; this test fails when the table changes and the document does not.
// Regenerate: MPSPH_UPDATE_DOCS=1 <build>/tests/mpsph_unit_tests "[docs]"
#include "io/file_format_doc.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "catch.hpp"

namespace {

const std::string kDoc = std::string(MPSPH_SOURCE_DIR) + "/docs/file_format.md";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text between "<!-- BEGIN generated: <name> -->\n" and "<!-- END generated: <name> -->" in
// the document (rewritten to `expected` first when MPSPH_UPDATE_DOCS=1).
std::string generated_section(const std::string& name, const std::string& expected) {
  std::string doc = read_text(kDoc);
  const std::string begin = "<!-- BEGIN generated: " + name + " -->\n";
  const std::string end = "<!-- END generated: " + name + " -->";
  const std::size_t b = doc.find(begin);
  const std::size_t e = doc.find(end);
  if (b == std::string::npos || e == std::string::npos || e < b) return "(markers missing)";
  const char* update = std::getenv("MPSPH_UPDATE_DOCS");
  if (update && std::string(update) == "1") {
    doc.replace(b + begin.size(), e - b - begin.size(), expected);
    std::ofstream(kDoc) << doc;
    return expected;
  }
  return doc.substr(b + begin.size(), e - b - begin.size());
}

}  // namespace

TEST_CASE("docs/file_format.md lists every snapshot and checkpoint dataset", "[io][docs]") {
  INFO(kDoc << " is out of date with the field table; regenerate it with\n"
            << "  MPSPH_UPDATE_DOCS=1 <build>/tests/mpsph_unit_tests \"[docs]\"\nand commit it.");
  const std::string snapshot = mpsph::snapshot_datasets_markdown();
  CHECK(generated_section("snapshot_datasets_markdown()", snapshot) == snapshot);
  const std::string checkpoint = mpsph::checkpoint_datasets_markdown();
  CHECK(generated_section("checkpoint_datasets_markdown()", checkpoint) == checkpoint);
}
