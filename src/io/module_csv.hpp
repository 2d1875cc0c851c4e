// The CSV files of physics modules (sinks.csv, sfr.csv): comment lines starting with '#', one
// header line starting with "time,", then rows whose first column is the code time. A restart
// keeps the rows an uninterrupted run would have written up to its time (a run killed after its
// checkpoint wrote more) and appends.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

namespace mpsph {

// The lines of a CSV text that a restart keeps: every line that is not a data row (comments, the
// column names: lines not starting with a digit, '-' or '.') and the complete data rows (ending in
// '\n') for which keep(row) is true, in their order.
std::string csv_keep_rows(const std::string& text,
                          const std::function<bool(const char* row)>& keep);

// The lines of `text` up to `time`: comments, the header and the rows with time <= `time`; a last
// line without its newline (cut short by a kill or a full disk) is dropped.
std::string csv_rows_up_to_time(const std::string& text, double time);

// Opens `path` to append rows. A new run (restart false) writes `header`; a restart at `time`
// rewrites the file with its lines up to `time` (or `header` when the file is missing or has
// none) and appends after them. *kept, when given, receives what the file holds before the first
// new row. Throws mpsph::Error naming the file when it cannot be read or written.
std::FILE* open_module_csv(const std::string& path, const std::string& header, double time,
                           bool restart, std::string* kept = nullptr);

// The writer of one module CSV file (sinks.csv, sink_merges.csv, sfr.csv): opens it with
// open_module_csv, takes the module's rows through file(), flushes them with end_rows() and closes
// the file when destroyed.
class ModuleCsvFile {
 public:
  ModuleCsvFile() = default;
  ModuleCsvFile(const ModuleCsvFile&) = delete;
  ModuleCsvFile& operator=(const ModuleCsvFile&) = delete;
  ~ModuleCsvFile() { close(); }
  // open_module_csv(path, header, time, restart, kept). Throws mpsph::Error.
  void open(const std::string& path, const std::string& header, double time, bool restart,
            std::string* kept = nullptr);
  bool is_open() const { return f_ != nullptr; }
  const std::string& path() const { return path_; }
  std::FILE* file() const { return f_; }
  // Flushes the rows written to file(), so a killed run loses none; throws mpsph::Error naming the
  // file when they could not be written.
  void end_rows();
  void close();

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
};

}  // namespace mpsph
