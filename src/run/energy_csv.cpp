#include "run/energy_csv.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "io/durable_file.hpp"

namespace mpsph {

std::string energy_csv_up_to_step(const std::string& text, long step) {
  std::string out;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) break;  // a row cut short by a kill or a full disk
    const std::string line = text.substr(begin, end - begin + 1);
    begin = end + 1;
    const char c = line[0];
    if (c < '0' || c > '9') {  // comments ('#') and the column names
      out += line;
      continue;
    }
    char* rest = nullptr;
    const long row_step = std::strtol(line.c_str(), &rest, 10);
    if (*rest == ',' && row_step <= step) out += line;
  }
  return out;
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
