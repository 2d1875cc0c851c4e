// Turning C++ defaults into the schema's default text, so a parameter struct's member initialisers
// are the single source of every default value.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace mpsph {

inline std::string param_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
inline std::string param_text(int v) {
  return std::to_string(v);
}
inline std::string param_text(long v) {
  return std::to_string(v);
}
inline std::string param_text(bool v) {
  return v ? "true" : "false";
}
inline std::string param_text(const std::string& v) {
  return v;
}
inline std::string param_text(const char* v) {
  return v;
}
inline std::string param_text(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + param_text(v[i]);
  return s + "]";
}
inline std::string param_text(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s + "]";
}

}  // namespace mpsph
