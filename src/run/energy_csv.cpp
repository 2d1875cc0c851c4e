#include "run/energy_csv.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "io/durable_file.hpp"
#include "io/module_csv.hpp"

namespace mpsph {

std::string energy_csv_up_to_step(const std::string& text, long step) {
  return csv_keep_rows(text, [step](const char* row) {
    char* rest = nullptr;
    const long row_step = std::strtol(row, &rest, 10);
    return rest != row && *rest == ',' && row_step <= step;
  });
}

bool trim_energy_csv(const std::string& path, long step) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return false;
    throw Error("cannot read '" + path + "': " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error("cannot read '" + path + "'");
  write_text_durably(path, energy_csv_up_to_step(text.str(), step));
  return true;
}

}  // namespace mpsph
