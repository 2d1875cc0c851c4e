// One number as text through a printf format ("%.4g"), for log lines and error messages that mix
// numbers into std::string.
#pragma once

#include <cstdio>
#include <string>

namespace mpsph {

inline std::string format_number(const char* printf_format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, printf_format, v);
  return buf;
}

}  // namespace mpsph
