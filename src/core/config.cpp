// Strict configuration: the YAML document is flattened into leaves (dotted path -> node, origin),
// overrides are laid on top, and every leaf is checked against the active spec of its path. Values
// are kept as canonical text (numbers printed so that they read back to the same double), so the
// resolved YAML reloads to exactly the same configuration.
#include "core/config.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <regex>
#include <set>
#include <stdexcept>

#include "core/error.hpp"

namespace mpsph {

namespace {

// Bounds at or beyond this magnitude mean "no bound" (the schema writes 1e300 for "any").
constexpr double kUnbounded = 1e300;

struct Leaf {
  YAML::Node node;
  std::string origin;  // "<file>:<line>" or "--set a.b.c"
};

std::string type_name(ParamType t) {
  switch (t) {
    case ParamType::Int:
      return "int";
    case ParamType::Double:
      return "double";
    case ParamType::Bool:
      return "bool";
    case ParamType::String:
      return "string";
    case ParamType::Choice:
      return "choice";
    case ParamType::DoubleList:
      return "list of double";
    case ParamType::StringList:
      return "list of string";
  }
  return "?";
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// Shortest "%.Ng" text that reads back to the same double.
std::string double_text(double v) {
  char buf[40];
  for (int prec = 15; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// "out of range" explanation for a value violating [min, max] of the spec.
std::string range_text(const ParamSpec& s) {
  const bool has_min = std::isfinite(s.min) && std::fabs(s.min) < kUnbounded;
  const bool has_max = std::isfinite(s.max) && std::fabs(s.max) < kUnbounded;
  if (has_min && has_max && s.min == s.max && !s.min_exclusive && !s.max_exclusive)
    return "must be " + double_text(s.min);
  std::vector<std::string> parts;
  if (has_min) {
    if (s.min_exclusive && s.min == 0)
      parts.push_back("> 0 (positive)");
    else
      parts.push_back((s.min_exclusive ? "> " : ">= ") + double_text(s.min));
  }
  if (has_max) parts.push_back((s.max_exclusive ? "< " : "<= ") + double_text(s.max));
  return parts.empty() ? "" : "must be " + join(parts, " and ");
}

bool in_range(const ParamSpec& s, double v) {
  if (s.min_exclusive ? !(v > s.min) : !(v >= s.min)) return false;
  if (s.max_exclusive ? !(v < s.max) : !(v <= s.max)) return false;
  return true;
}

std::string describe_node(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a sequence";
    case YAML::NodeType::Null:
      return "an empty value";
    case YAML::NodeType::Scalar:
      return (n.Tag() == "?" ? "'" : "the quoted string '") + n.Scalar() + "'";
    case YAML::NodeType::Undefined:
      break;
  }
  return "nothing";
}

// Validates one value node against its spec and returns the canonical text. `where` is the origin
// prefix ("file:line: " or "--set x: " or "default of "), `key` the path (with [i] for items).
class Checker {
 public:
  Checker(const ParamSpec& spec, std::string where) : s_(spec), where_(std::move(where)) {}

  std::string canonical(const YAML::Node& n) const {
    switch (s_.type) {
      case ParamType::Int:
        return int_text(n, s_.path);
      case ParamType::Double:
        return number_text(n, s_.path);
      case ParamType::Bool: {
        if (n.IsScalar() && n.Tag() == "?" && (n.Scalar() == "true" || n.Scalar() == "false"))
          return n.Scalar();
        fail(s_.path + ": expected true or false, got " + describe_node(n));
      }
      case ParamType::String:
        if (!n.IsScalar()) fail(s_.path + ": expected a string, got " + describe_node(n));
        return n.Scalar();
      case ParamType::Choice: {
        if (!n.IsScalar())
          fail(s_.path + ": expected one of " + join(s_.choices, ", ") + ", got " +
               describe_node(n));
        check_choice(n.Scalar(), s_.path);
        return n.Scalar();
      }
      case ParamType::DoubleList: {
        std::vector<std::string> items;
        for_items(n, "numbers", [&](const YAML::Node& item, const std::string& key) {
          items.push_back(number_text(item, key));
        });
        return "[" + join(items, ", ") + "]";
      }
      case ParamType::StringList: {
        YAML::Emitter e;
        e << YAML::Flow << YAML::BeginSeq;
        for_items(n, "strings", [&](const YAML::Node& item, const std::string& key) {
          if (!item.IsScalar()) fail(key + ": expected a string, got " + describe_node(item));
          if (!s_.choices.empty()) check_choice(item.Scalar(), key);
          e << YAML::DoubleQuoted << item.Scalar();
        });
        e << YAML::EndSeq;
        return e.c_str();
      }
    }
    return "";
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const { throw Error(where_ + msg); }

  void check_choice(const std::string& v, const std::string& key) const {
    if (std::find(s_.choices.begin(), s_.choices.end(), v) == s_.choices.end())
      fail(key + " = '" + v + "' is not allowed: choose one of " + join(s_.choices, ", "));
  }

  template <class F>
  void for_items(const YAML::Node& n, const char* what, F&& f) const {
    if (n.IsScalar()) return f(n, s_.path);  // a single value is a one-element list
    if (!n.IsSequence())
      fail(s_.path + ": expected a sequence of " + what + ", got " + describe_node(n));
    for (std::size_t i = 0; i < n.size(); ++i) f(n[i], s_.path + "[" + std::to_string(i) + "]");
  }

  void check_range(double v, const std::string& key, const std::string& text) const {
    if (!in_range(s_, v)) fail(key + " = " + text + " is out of range: " + range_text(s_));
  }

  std::string number_text(const YAML::Node& n, const std::string& key) const {
    static const std::regex re(R"([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?)");
    if (!n.IsScalar() || n.Tag() != "?" || !std::regex_match(n.Scalar(), re))
      fail(key + ": expected a number, got " + describe_node(n));
    const double v = std::strtod(n.Scalar().c_str(), nullptr);
    if (!std::isfinite(v)) fail(key + " = " + n.Scalar() + " is not a finite number");
    check_range(v, key, n.Scalar());
    return double_text(v);
  }

  std::string int_text(const YAML::Node& n, const std::string& key) const {
    // Plain integers, and integral exponent forms such as 1e6 (counts are often written so).
    static const std::regex re(R"([+-]?[0-9]+([eE]\+?[0-9]+)?)");
    if (!n.IsScalar() || n.Tag() != "?" || !std::regex_match(n.Scalar(), re))
      fail(key + ": expected an integer, got " + describe_node(n));
    const double d = std::strtod(n.Scalar().c_str(), nullptr);
    if (!(std::fabs(d) < 9.2e18)) fail(key + " = " + n.Scalar() + " is too large for an integer");
    long v = 0;
    if (n.Scalar().find_first_of("eE") == std::string::npos) {
      errno = 0;
      v = std::strtol(n.Scalar().c_str(), nullptr, 10);
      if (errno == ERANGE) fail(key + " = " + n.Scalar() + " is too large for an integer");
    } else {
      v = static_cast<long>(d);
    }
    check_range(static_cast<double>(v), key, n.Scalar());
    return std::to_string(v);
  }

  const ParamSpec& s_;
  std::string where_;
};

// Node for a spec's default text. String and Choice defaults are taken verbatim (an empty string
// default must not become YAML null).
YAML::Node default_node(const ParamSpec& s) {
  if (s.type == ParamType::String || s.type == ParamType::Choice) {
    YAML::Node n(*s.default_value);
    return n;
  }
  return YAML::Load(*s.default_value);
}

std::string default_canonical(const ParamSpec& s) {
  return Checker(s, "default of ").canonical(default_node(s));
}

// Damerau-Levenshtein (optimal string alignment) distance: a swap of two letters counts 1.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string last_part(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

// The schema indexed for loading: specs by path, and every section (proper prefix of a path).
struct Index {
  std::map<std::string, std::vector<const ParamSpec*>> by_path;
  std::set<std::string> sections;
  std::vector<std::string> top_sections;  // first components, in schema order

  explicit Index(const Schema& schema) {
    for (const ParamSpec& s : schema.specs()) {
      by_path[s.path].push_back(&s);
      const auto parts = split_path(s.path);
      std::string prefix;
      for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        prefix += (i ? "." : "") + parts[i];
        sections.insert(prefix);
      }
      if (std::find(top_sections.begin(), top_sections.end(), parts[0]) == top_sections.end())
        top_sections.push_back(parts[0]);
    }
  }

  std::string suggestion(const std::string& path) const {
    std::string best;
    std::size_t best_d = std::string::npos;
    for (const auto& kv : by_path) {
      const std::size_t d = edit_distance(path, kv.first);
      if (d < best_d) best_d = d, best = kv.first;
    }
    // Close: a typo or two, more allowed for longer names.
    if (best_d <= std::min<std::size_t>(3, 1 + path.size() / 6)) return best;
    // Right name in the wrong section, e.g. gravity.n_neighbours for sph.n_neighbours.
    for (const auto& kv : by_path)
      if (last_part(kv.first) == last_part(path)) return kv.first;
    return "";
  }
};

std::pair<std::string, std::string> split_when(const std::string& when) {
  const auto eq = when.find('=');
  if (eq == std::string::npos) return {when, ""};
  return {when.substr(0, eq), when.substr(eq + 1)};
}

// Decides which specs are active and resolves Choice keys that conditions refer to.
class Resolver {
 public:
  Resolver(const Index& index, const std::map<std::string, Leaf>& leaves)
      : index_(index), leaves_(leaves) {}

  // The spec of `path` whose condition holds, or nullptr.
  const ParamSpec* active_spec(const std::string& path) {
    const auto it = index_.by_path.find(path);
    if (it == index_.by_path.end()) return nullptr;
    for (const ParamSpec* s : it->second)
      if (holds(s->when)) return s;
    return nullptr;
  }

  // Canonical value of an active key (given or default); nullopt if inactive or required-missing.
  std::optional<std::string> value(const std::string& path) {
    const auto m = memo_.find(path);
    if (m != memo_.end()) return m->second;
    if (!in_progress_.insert(path).second)
      throw std::logic_error("schema: 'when' conditions form a cycle through '" + path + "'");
    std::optional<std::string> v;
    if (const ParamSpec* s = active_spec(path)) {
      const auto leaf = leaves_.find(path);
      if (leaf != leaves_.end())
        v = Checker(*s, leaf->second.origin + ": ").canonical(leaf->second.node);
      else if (s->default_value)
        v = default_canonical(*s);
    }
    in_progress_.erase(path);
    memo_[path] = v;
    return v;
  }

  bool holds(const std::string& when) {
    if (when.empty()) return true;
    const auto [key, val] = split_when(when);
    const auto v = value(key);
    return v && *v == val;
  }

 private:
  const Index& index_;
  const std::map<std::string, Leaf>& leaves_;
  std::map<std::string, std::optional<std::string>> memo_;
  std::set<std::string> in_progress_;
};

// "when eos.type is isothermal or barotropic" for the specs of one path.
std::string condition_text(const std::vector<const ParamSpec*>& specs) {
  std::map<std::string, std::vector<std::string>> by_key;
  std::vector<std::string> keys;
  for (const ParamSpec* s : specs) {
    const auto [k, v] = split_when(s->when);
    if (!by_key.count(k)) keys.push_back(k);
    by_key[k].push_back(v);
  }
  std::vector<std::string> parts;
  for (const auto& k : keys) parts.push_back(k + " is " + join(by_key[k], " or "));
  return "when " + join(parts, " or when ");
}

// Flattens a YAML map into leaves. Duplicate keys (which yaml-cpp keeps) are errors naming both
// lines; a dotted key is the same as the nested form and collides with it.
class Flattener {
 public:
  Flattener(const Index& index, std::map<std::string, Leaf>& leaves)
      : index_(index), leaves_(leaves) {}

  void file(const YAML::Node& map, const std::string& source) {
    source_ = source;
    walk(map, "");
  }

  void override_value(const std::string& path, const YAML::Node& value) {
    leaf_or_section(path, value, "--set " + path, -1);
  }

 private:
  void walk(const YAML::Node& map, const std::string& prefix) {
    std::map<std::string, YAML::Mark> seen;  // key -> where it was first given
    for (const auto& kv : map) {
      const YAML::Node k = kv.first;
      const int line = k.Mark().line + 1;
      const std::string where = source_ + ":" + std::to_string(line);
      if (!k.IsScalar())
        throw Error(where + ": a key must be a plain name, got " + describe_node(k));
      const std::string name = k.Scalar();
      const auto [pos, fresh] = seen.emplace(name, k.Mark());
      if (!fresh) {
        // Both on one line (a flow map): the columns tell them apart.
        const YAML::Mark& first = pos->second;
        const std::string what = first.line + 1 == line
                                     ? "given twice on line " + std::to_string(line) +
                                           ", columns " + std::to_string(first.column + 1) +
                                           " and " + std::to_string(k.Mark().column + 1)
                                     : "also given at line " + std::to_string(first.line + 1);
        throw Error(where + ": duplicate key '" + prefix + name + "' (" + what + ")");
      }
      leaf_or_section(prefix + name, kv.second, where, line);
    }
  }

  // `line` < 0 marks an override, which replaces what the file gave.
  void leaf_or_section(const std::string& path, const YAML::Node& value, const std::string& where,
                       int line) {
    const bool is_key = index_.by_path.count(path) > 0;
    const bool is_section = index_.sections.count(path) > 0;
    if (value.IsMap() && !is_key && (is_section || value.size() > 0)) {
      // A section (or an unknown one: walk on so that the error names the full leaf path).
      if (line < 0) {
        // An override given as a map: its leaves all carry the override's origin.
        for (const auto& kv : value)
          leaf_or_section(path + "." + kv.first.Scalar(), kv.second, where, line);
      } else {
        walk(value, path + ".");
      }
      return;
    }
    if (value.IsNull() && is_section && !is_key) return;  // "sph:" with nothing under it
    if (is_section && !is_key)
      throw Error(where + ": '" + path + "' is a section: expected a map of keys, got " +
                  describe_node(value));
    const auto prev = leaves_.find(path);
    if (prev != leaves_.end() && line >= 0)
      throw Error(where + ": duplicate key '" + path + "' (also given at " + prev->second.origin +
                  ")");
    leaves_[path] = Leaf{value, where};
  }

  const Index& index_;
  std::map<std::string, Leaf>& leaves_;
  std::string source_;
};

// Offset of the first byte that does not belong to a well-formed UTF-8 sequence, or npos.
std::size_t first_invalid_utf8(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t len = c < 0x80           ? 1
                            : (c >> 5) == 0x6  ? 2
                            : (c >> 4) == 0xE  ? 3
                            : (c >> 3) == 0x1E ? 4
                                               : 0;
    if (len == 0 || i + len > text.size()) return i;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return i;
    i += len;
  }
  return std::string::npos;
}

// Counts documents without building them (yaml-cpp's parser events, ignored).
struct DocumentCounter : YAML::EventHandler {
  int documents = 0;
  void OnDocumentStart(const YAML::Mark&) override { ++documents; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// Limits against hostile YAML. A config has a few hundred values, nested three or four levels, with
// scalars no longer than a path; these bounds are far above any real config and far below what
// could exhaust time, memory or the stack.
constexpr std::size_t kMaxConfigBytes = 1 << 20;  // file size
constexpr int kMaxDepth = 32;                     // nested maps and sequences
constexpr std::size_t kMaxNodes = 100000;         // nodes, counting each alias use as a copy
constexpr std::size_t kMaxScalar = 4096;          // characters of one key or value

std::string mark_text(const YAML::Mark& m) {
  return m.is_null() ? "" : ":" + std::to_string(m.line + 1);
}

// Walks the whole document as the flattener and the checks would see it (an alias is visited as
// often as it is used, which is what makes a "billion laughs" document expensive) and stops at the
// first limit it passes, so the work done on any input is bounded by kMaxNodes.
void check_limits(const YAML::Node& n, const std::string& where, int depth, std::size_t& nodes) {
  if (++nodes > kMaxNodes)
    throw Error(where + ": the YAML expands to more than " + std::to_string(kMaxNodes) +
                " values (anchors and aliases repeat nodes): refused as a config");
  if (depth > kMaxDepth)
    throw Error(where + mark_text(n.Mark()) + ": YAML nested more than " +
                std::to_string(kMaxDepth) + " levels deep: refused as a config");
  if (n.IsScalar() && n.Scalar().size() > kMaxScalar)
    throw Error(where + mark_text(n.Mark()) + ": a value of " + std::to_string(n.Scalar().size()) +
                " characters (at most " + std::to_string(kMaxScalar) + " allowed)");
  if (n.IsSequence()) {
    for (const YAML::Node& item : n) check_limits(item, where, depth + 1, nodes);
  } else if (n.IsMap()) {
    for (const auto& kv : n) {
      check_limits(kv.first, where, depth + 1, nodes);
      check_limits(kv.second, where, depth + 1, nodes);
    }
  }
}

// The line where flow collections ([ and {) first nest deeper than kMaxDepth, or 0. yaml-cpp's own
// recursion guard reports such text only as "bad file", so the text is scanned first (quoted
// strings and comments skipped; a bracket inside a plain scalar counts too, which takes 33 of them
// unclosed in one document to matter).
int flow_depth_line(const std::string& text) {
  int depth = 0, line = 1;
  char quote = 0;
  bool comment = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      comment = false;
      if (quote == 0) continue;
    }
    if (comment) continue;
    if (quote) {
      if (quote == '"' && c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
      comment = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return line;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return 0;
}

// The line where block collections first nest deeper than kMaxDepth, or 0: the indentation
// columns of the lines (and of each "- " that opens a sequence item) kept as a stack, as Python's
// tokenizer does.
int block_depth_line(const std::string& text) {
  std::vector<std::size_t> stack;
  int line = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++line;
    std::size_t p = text.find_first_not_of(' ', start);
    if (p < end && text[p] != '#' && text[p] != '\r') {
      while (true) {
        const std::size_t col = p - start;
        while (!stack.empty() && stack.back() > col) stack.pop_back();
        if (stack.empty() || stack.back() < col) stack.push_back(col);
        if (stack.size() > std::size_t(kMaxDepth)) return line;
        if (text[p] != '-' || p + 1 >= end || text[p + 1] != ' ') break;
        p = text.find_first_not_of(' ', p + 1);
        if (p >= end) break;
      }
    }
    start = end + 1;
  }
  return 0;
}

YAML::Node parse_yaml(const std::string& text, const std::string& where) {
  if (text.size() > kMaxConfigBytes)
    throw Error(where + ": larger than " + std::to_string(kMaxConfigBytes >> 20) +
                " MiB, the limit for a config");
  const std::size_t nul = text.find('\0');
  if (nul != std::string::npos)
    throw Error(where + ": a NUL byte at offset " + std::to_string(nul) +
                " (a config is a YAML text file)");
  // yaml-cpp reads bytes that are not UTF-8 into strings but does not write them back as they
  // were, so the resolved config (what checkpoints carry) would name another file (found by
  // fuzz/config_fuzz.cpp).
  if (const std::size_t bad = first_invalid_utf8(text); bad != std::string::npos)
    throw Error(where + ":" +
                std::to_string(1 + std::count(text.begin(), text.begin() + long(bad), '\n')) +
                ": byte " + std::to_string(static_cast<unsigned char>(text[bad])) + " at offset " +
                std::to_string(bad) + " is not UTF-8 (a config is UTF-8 text)");
  if (const int line = std::max(flow_depth_line(text), block_depth_line(text)))
    throw Error(where + ":" + std::to_string(line) + ": YAML nested more than " +
                std::to_string(kMaxDepth) + " levels deep: refused as a config");
  YAML::Node root;
  try {
    // Not YAML::LoadAll: on a stray ',' outside a flow collection (a file holding just ",")
    // yaml-cpp 0.7 returns empty documents without end, and LoadAll fills the memory (found by
    // fuzz/config_fuzz.cpp). A second document is enough to know the file is wrong.
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentCounter counter;
    while (counter.documents < 2 && parser.HandleNextDocument(counter)) {
    }
    if (counter.documents > 1)
      throw Error(where +
                  ": more than one YAML document (a '---' or '...' line, or a stray ',', ']' or "
                  "'}' outside a flow collection); expected one");
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw Error(where + ":" + std::to_string(e.mark.line + 1) + ":" +
                std::to_string(e.mark.column + 1) + ": YAML syntax error: " + e.msg);
  }
  std::size_t nodes = 0;
  check_limits(root, where, 0, nodes);
  return root;
}

}  // namespace

// ------------------------------------------------------------------------------------ Schema

void Schema::add(ParamSpec spec) {
  for (const ParamSpec& s : specs_)
    if (s.path == spec.path && s.when == spec.when)
      throw std::logic_error("schema: duplicate parameter '" + spec.path + "'" +
                             (spec.when.empty() ? "" : " (when " + spec.when + ")"));
  specs_.push_back(std::move(spec));
}

std::vector<std::string> schema_problems(const Schema& schema) {
  std::vector<std::string> problems;
  const Index index(schema);
  static const std::regex path_re(R"([A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*)");
  std::set<std::pair<std::string, std::string>> seen;
  for (const ParamSpec& s : schema.specs()) {
    const std::string name = "'" + s.path + "'" + (s.when.empty() ? "" : " (when " + s.when + ")");
    if (!seen.insert({s.path, s.when}).second) problems.push_back(name + ": declared twice");
    if (!std::regex_match(s.path, path_re)) problems.push_back(name + ": malformed path");
    if (index.sections.count(s.path)) problems.push_back(name + ": is also a section");
    if (s.doc.empty()) problems.push_back(name + ": no description");
    if (s.min > s.max) problems.push_back(name + ": min > max");
    if (s.type == ParamType::Choice && s.choices.empty()) problems.push_back(name + ": no choices");
    if (!s.choices.empty() && s.type != ParamType::Choice && s.type != ParamType::StringList)
      problems.push_back(name + ": choices on a " + type_name(s.type) + " key");
    if (std::set<std::string>(s.choices.begin(), s.choices.end()).size() != s.choices.size())
      problems.push_back(name + ": repeated choice");
    if (!s.when.empty()) {
      const auto [k, v] = split_when(s.when);
      const auto it = index.by_path.find(k);
      bool ok = false;
      if (it != index.by_path.end())
        for (const ParamSpec* c : it->second)
          if (c->type == ParamType::Choice &&
              std::find(c->choices.begin(), c->choices.end(), v) != c->choices.end())
            ok = true;
      if (!ok)
        problems.push_back(name + ": condition does not name a Choice key and one of its values");
      if (k == s.path) problems.push_back(name + ": condition on itself");
    }
    if (s.default_value) {
      try {
        default_canonical(s);
      } catch (const std::exception& e) {
        problems.push_back(name + ": bad default: " + e.what());
      }
    }
  }
  // Specs of one path must be exclusive: all conditional, all on the same key.
  for (const auto& kv : index.by_path) {
    if (kv.second.size() < 2) continue;
    std::set<std::string> keys;
    for (const ParamSpec* s : kv.second) keys.insert(split_when(s->when).first);
    if (keys.size() != 1 || keys.count(""))
      problems.push_back("'" + kv.first + "': its specs could be active together");
  }
  // Conditions must not form cycles.
  for (const auto& kv : index.by_path) {
    std::set<std::string> chain;
    std::function<bool(const std::string&)> cyclic = [&](const std::string& p) {
      if (!chain.insert(p).second) return true;
      const auto it = index.by_path.find(p);
      if (it != index.by_path.end())
        for (const ParamSpec* s : it->second)
          if (!s->when.empty() && cyclic(split_when(s->when).first)) return true;
      chain.erase(p);
      return false;
    };
    if (cyclic(kv.first)) problems.push_back("'" + kv.first + "': conditions form a cycle");
  }
  return problems;
}

// ------------------------------------------------------------------------------------ Config

Config Config::from_file(const std::string& path, const Schema& schema,
                         const std::vector<std::string>& overrides) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error("config file '" + path + "' is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open config file '" + path + "'");
  // Read one byte past the limit, so that an endless file (/dev/zero) is refused, not slurped.
  std::string text(kMaxConfigBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw Error("cannot read config file '" + path + "'");
  text.resize(static_cast<std::size_t>(in.gcount()));
  return from_string(text, path, schema, overrides);
}

Config Config::from_string(const std::string& yaml_text, const std::string& source,
                           const Schema& schema, const std::vector<std::string>& overrides) {
  const Index index(schema);
  std::map<std::string, Leaf> leaves;
  Flattener flat(index, leaves);

  const YAML::Node root = parse_yaml(yaml_text, source);
  if (!root.IsNull()) {
    if (!root.IsMap())
      throw Error(source + ": the top level must be a map of keys, got " + describe_node(root));
    flat.file(root, source);
  }
  // Overrides replace file values; a later override of the same key wins.
  for (const std::string& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || trim(o.substr(0, eq)).empty())
      throw Error("--set '" + o + "': expected key.path=value");
    const std::string path = trim(o.substr(0, eq));
    flat.override_value(path, parse_yaml(trim(o.substr(eq + 1)), "--set " + path));
  }

  Resolver r(index, leaves);
  Config cfg;
  cfg.source_ = source;
  // Leaves in path order; each must be an active key.
  for (const auto& [path, leaf] : leaves) {
    const ParamSpec* spec = r.active_spec(path);
    if (!spec) {
      const auto it = index.by_path.find(path);
      if (it != index.by_path.end()) {
        std::string now;
        const auto [k, v] = split_when(it->second.front()->when);
        if (const auto cur = r.value(k)) now = " (here " + k + " is " + *cur + ")";
        throw Error(leaf.origin + ": '" + path + "' is only used " + condition_text(it->second) +
                    now);
      }
      std::string msg = leaf.origin + ": unknown key '" + path + "'";
      const std::string hint = index.suggestion(path);
      if (!hint.empty())
        msg += " (did you mean '" + hint + "'?)";
      else if (std::find(index.top_sections.begin(), index.top_sections.end(),
                         split_path(path)[0]) == index.top_sections.end())
        msg += " (sections are: " + join(index.top_sections, ", ") + ")";
      throw Error(msg);
    }
    cfg.values_[path] = *r.value(path);
    cfg.specs_[path] = *spec;
    cfg.origins_[path] = leaf.origin;
  }
  // Defaults for every active key not given; required keys must have been given.
  for (const ParamSpec& s : schema.specs()) {
    if (cfg.values_.count(s.path)) continue;
    const ParamSpec* spec = r.active_spec(s.path);
    if (spec != &s) continue;
    if (!s.default_value)
      throw Error(source + ": missing required key '" + s.path + "' (" + s.doc +
                  (s.when.empty() ? ""
                                  : "; required when " + split_when(s.when).first + " is " +
                                        split_when(s.when).second) +
                  ")");
    cfg.values_[s.path] = *r.value(s.path);
    cfg.specs_[s.path] = s;
    cfg.origins_[s.path] = "default";
  }
  return cfg;
}

namespace {

[[noreturn]] void bad_get(const std::string& what) {
  throw Error("Config: " + what);
}

// The text of an active key whose type is one of `ok` (else a programming error, reported).
const std::string& checked_text(const std::map<std::string, std::string>& values,
                                const std::map<std::string, ParamSpec>& specs,
                                const std::string& source, const std::string& path,
                                std::initializer_list<ParamType> ok, const char* wanted) {
  const auto it = values.find(path);
  if (it == values.end())
    bad_get("'" + path + "' is not an active key of " + source + " (asked for " + wanted + ")");
  const ParamType t = specs.at(path).type;
  if (std::find(ok.begin(), ok.end(), t) == ok.end())
    bad_get("'" + path + "' is a " + type_name(t) + " key, asked for " + wanted);
  return it->second;
}

}  // namespace

long Config::get_int(const std::string& path) const {
  const std::string& text =
      checked_text(values_, specs_, source_, path, {ParamType::Int}, "an int");
  return std::strtol(text.c_str(), nullptr, 10);
}

double Config::get_double(const std::string& path) const {
  const std::string& text =
      checked_text(values_, specs_, source_, path, {ParamType::Double}, "a double");
  return std::strtod(text.c_str(), nullptr);
}

bool Config::get_bool(const std::string& path) const {
  return checked_text(values_, specs_, source_, path, {ParamType::Bool}, "a bool") == "true";
}

std::string Config::get_string(const std::string& path) const {
  return checked_text(values_, specs_, source_, path, {ParamType::String, ParamType::Choice},
                      "a string");
}

std::vector<double> Config::get_double_list(const std::string& path) const {
  const std::string& text =
      checked_text(values_, specs_, source_, path, {ParamType::DoubleList}, "a list of double");
  std::vector<double> v;
  for (const YAML::Node& n : YAML::Load(text))
    v.push_back(std::strtod(n.Scalar().c_str(), nullptr));
  return v;
}

std::vector<std::string> Config::get_string_list(const std::string& path) const {
  const std::string& text =
      checked_text(values_, specs_, source_, path, {ParamType::StringList}, "a list of string");
  std::vector<std::string> v;
  for (const YAML::Node& n : YAML::Load(text)) v.push_back(n.Scalar());
  return v;
}

bool Config::is_active(const std::string& path) const {
  return values_.count(path) > 0;
}

std::string Config::origin(const std::string& path) const {
  const auto it = origins_.find(path);
  if (it == origins_.end()) bad_get("'" + path + "' is not an active key of " + source_);
  return it->second;
}

namespace {

struct Tree {
  std::map<std::string, Tree> children;
  const std::string* value = nullptr;
  ParamType type = ParamType::Double;
};

void emit(YAML::Emitter& e, const Tree& t) {
  e << YAML::BeginMap;
  for (const auto& [name, child] : t.children) {
    e << YAML::Key << name << YAML::Value;
    if (!child.value) {
      emit(e, child);
      continue;
    }
    switch (child.type) {
      case ParamType::String:
        e << YAML::DoubleQuoted << *child.value;
        break;
      case ParamType::DoubleList:
      case ParamType::StringList: {
        const YAML::Node seq = YAML::Load(*child.value);
        e << YAML::Flow << YAML::BeginSeq;
        for (const YAML::Node& n : seq) {
          if (child.type == ParamType::StringList) e << YAML::DoubleQuoted;
          e << n.Scalar();
        }
        e << YAML::EndSeq;
        break;
      }
      default:
        e << *child.value;
    }
  }
  e << YAML::EndMap;
}

}  // namespace

std::string Config::resolved_yaml() const {
  Tree root;
  for (const auto& [path, text] : values_) {
    Tree* t = &root;
    for (const std::string& part : split_path(path)) t = &t->children[part];
    t->value = &text;
    t->type = specs_.at(path).type;
  }
  YAML::Emitter e;
  emit(e, root);
  return "# mpsph resolved configuration of " + source_ +
         "\n# every active key, defaults filled in\n" + e.c_str() + "\n";
}

// ------------------------------------------------------------------------------------ docs

namespace {

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// A default as the reader would write it: numbers in their shortest exact form (0.05, not the
// 0.050000000000000003 of "%.17g"), an empty string as "".
std::string default_display(const ParamSpec& s) {
  if (s.type == ParamType::Double || s.type == ParamType::DoubleList) {
    try {
      return default_canonical(s);
    } catch (const Error&) {
      // An invalid default is reported by schema_problems(); show it as written.
    }
  }
  return s.default_value->empty() ? "\"\"" : *s.default_value;
}

std::string allowed_text(const ParamSpec& s) {
  switch (s.type) {
    case ParamType::Int:
    case ParamType::Double:
    case ParamType::DoubleList: {
      const std::string r = range_text(s);
      return r.empty() ? "any" : r.substr(std::string("must be ").size());
    }
    case ParamType::Bool:
      return "true, false";
    case ParamType::Choice:
    case ParamType::StringList:
      return s.choices.empty() ? "any" : join(s.choices, ", ");
    case ParamType::String:
      return "any";
  }
  return "";
}

}  // namespace

std::string schema_markdown(const Schema& schema) {
  const Index index(schema);
  std::string md;
  for (const std::string& section : index.top_sections) {
    md += "## " + section + "\n\n";
    md += "| key | type | default | allowed | unit | when | description |\n";
    md += "|---|---|---|---|---|---|---|\n";
    for (const ParamSpec& s : schema.specs()) {
      if (split_path(s.path)[0] != section) continue;
      const std::string def = s.default_value ? "`" + default_display(s) + "`" : "**required**";
      md += "| `" + s.path + "` | " + type_name(s.type) + " | " + md_escape(def) + " | " +
            md_escape(allowed_text(s)) + " | " + md_escape(s.unit) + " | " +
            (s.when.empty() ? "" : "`" + s.when + "`") + " | " + md_escape(s.doc) + " |\n";
    }
    md += "\n";
  }
  return md;
}

std::string parameters_document(const Schema& schema) {
  return "<!-- Generated from the program's parameter schema by parameters_document() "
         "(src/core/config.cpp); do not edit.\n"
         "     Regenerate: MPSPH_UPDATE_DOCS=1 <build>/tests/mpsph_unit_tests \"[docs]\" -->\n"
         "# Parameters\n\n"
         "Every key of the run's YAML file. A key is either required or has the default shown;\n"
         "unknown keys, duplicate keys, wrong types and out-of-range values are errors. Keys with "
         "a\n"
         "`when` condition exist only when that condition holds. Any key can be overridden on the\n"
         "command line with `--set section.key=value`. Lists are YAML sequences (`[1, 2]`); a\n"
         "single value counts as a one-element list.\n\n"
         "Limits against hostile or broken files: a config is at most 1 MiB of text without NUL\n"
         "bytes, nests at most 32 levels, expands (counting each use of a YAML alias) to at most\n"
         "100000 values, and has no key or value longer than 4096 characters.\n\n" +
         schema_markdown(schema);
}

}  // namespace mpsph
