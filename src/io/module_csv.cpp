#include "io/module_csv.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "io/durable_file.hpp"

namespace mpsph {

std::string csv_keep_rows(const std::string& text,
                          const std::function<bool(const char* row)>& keep) {
  std::string out;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) break;  // a row cut short by a kill or a full disk
    const std::string line = text.substr(begin, end - begin + 1);
    begin = end + 1;
    const char c = line[0];
    const bool row = (c >= '0' && c <= '9') || c == '-' || c == '.';
    if (!row || keep(line.c_str())) out += line;
  }
  return out;
}

std::string csv_rows_up_to_time(const std::string& text, double time) {
  return csv_keep_rows(text, [time](const char* row) {
    char* rest = nullptr;
    const double t = std::strtod(row, &rest);
    return rest != row && *rest == ',' && t <= time;
  });
}

std::FILE* open_module_csv(const std::string& path, const std::string& header, double time,
                           bool restart, std::string* kept) {
  std::string text = header;
  if (restart) {
    std::ifstream in(path, std::ios::binary);
    std::string old;
    if (in) {
      std::ostringstream s;
      s << in.rdbuf();
      if (in.bad()) throw Error("cannot read '" + path + "'");
      old = csv_rows_up_to_time(s.str(), time);
    } else if (errno != ENOENT) {
      throw Error("cannot read '" + path + "': " + std::strerror(errno));
    }
    if (!old.empty()) text = old;
    write_text_durably(path, text);
    std::FILE* f = std::fopen(path.c_str(), "a");
    if (!f) throw Error(write_error("cannot append to '" + path + "'", path, errno));
    if (kept) *kept = text;
    return f;
  }
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw Error(write_error("cannot write '" + path + "'", path, errno));
  std::fputs(header.c_str(), f);
  if (std::fflush(f) != 0) {
    const int e = errno;
    std::fclose(f);
    throw Error(write_error("cannot write '" + path + "'", path, e));
  }
  if (kept) *kept = header;
  return f;
}

void ModuleCsvFile::open(const std::string& path, const std::string& header, double time,
                         bool restart, std::string* kept) {
  close();
  path_ = path;
  f_ = open_module_csv(path, header, time, restart, kept);
}

void ModuleCsvFile::end_rows() {
  if (std::fflush(f_) != 0 || std::ferror(f_))
    throw Error(write_error("cannot write '" + path_ + "'", path_, errno));
}

void ModuleCsvFile::close() {
  if (f_) std::fclose(f_);
  f_ = nullptr;
}

}  // namespace mpsph
