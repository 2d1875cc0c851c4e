// Strict run configuration (YAML via yaml-cpp).
//
// Every key the program understands is declared once in a Schema (path, type, default or
// required, range, unit, doc). Loading checks the file against it: unknown keys (with a "did you
// mean" suggestion), duplicate keys, wrong types, out-of-range values and missing required keys
// are errors naming the file, the key path and what is allowed. Command-line overrides
// (`--set a.b.c=value`) are validated exactly like the file. The resolved configuration, with all
// defaults filled in, can be written back as YAML beside the outputs.
//
// Conditional keys: a spec with `when = "setup.type=evrard"` exists only when that key has that
// value; setting it otherwise is an error that says when it applies.
#pragma once

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mpsph {

enum class ParamType { Int, Double, Bool, String, Choice, DoubleList, StringList };

struct ParamSpec {
  std::string path;  // dotted key path, e.g. "sph.n_neighbours"
  ParamType type = ParamType::Double;
  std::optional<std::string> default_value;  // YAML scalar text; nullopt => required
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;  // true: value must be > min (e.g. "positive")
  bool max_exclusive = false;
  std::vector<std::string> choices;  // Choice; for StringList: allowed items (empty = any)
  std::string unit;                  // e.g. "code length", "K", "" (dimensionless)
  std::string doc;                   // one line
  std::string when = "";             // "" or "other.key=value"
};

class Schema {
 public:
  void add(ParamSpec spec);  // throws std::logic_error on a duplicate (path, when)
  const std::vector<ParamSpec>& specs() const { return specs_; }

 private:
  std::vector<ParamSpec> specs_;
};

class Config {
 public:
  // `source` names the file in error messages. Throws mpsph::Error.
  static Config from_file(const std::string& path, const Schema& schema,
                          const std::vector<std::string>& overrides = {});
  static Config from_string(const std::string& yaml_text, const std::string& source,
                            const Schema& schema, const std::vector<std::string>& overrides = {});

  // Typed access to active keys (a key whose `when` condition holds). Throws mpsph::Error when
  // the key is not active or of another type: a programming error surfaced clearly.
  long get_int(const std::string& path) const;
  double get_double(const std::string& path) const;
  bool get_bool(const std::string& path) const;
  std::string get_string(const std::string& path) const;  // String and Choice
  std::vector<double> get_double_list(const std::string& path) const;
  std::vector<std::string> get_string_list(const std::string& path) const;
  bool is_active(const std::string& path) const;
  // Where an active key's value came from: "<file>:<line>", "--set a.b.c" or "default". For
  // error messages of checks made after loading (e.g. "needs 1 or 6 values").
  std::string origin(const std::string& path) const;
  // Every active key -> its canonical text (lists as YAML flow sequences), sorted by path.
  const std::map<std::string, std::string>& values() const { return values_; }

  // The resolved configuration as YAML (all active keys, defaults filled in).
  std::string resolved_yaml() const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::map<std::string, std::string> values_;   // active path -> scalar text (lists as "[a, b]")
  std::map<std::string, ParamSpec> specs_;      // active path -> its spec (a copy: a Config
                                                // stays valid after its Schema is gone)
  std::map<std::string, std::string> origins_;  // active path -> origin (see origin())
};

// Markdown table of every key (docs/parameters.md is generated from this and tested against it).
std::string schema_markdown(const Schema& schema);
// The complete docs/parameters.md: a generated-file header followed by schema_markdown(schema).
std::string parameters_document(const Schema& schema);

// Consistency problems of a schema, one line each (empty = consistent): bad paths, a path that is
// both a key and a section, `when` conditions that do not name a Choice key and one of its
// choices, specs of one path that could be active together, defaults that fail their own checks.
std::vector<std::string> schema_problems(const Schema& schema);

}  // namespace mpsph
