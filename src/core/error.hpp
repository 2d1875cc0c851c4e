// User-facing errors: one exception type whose message is the one-line cause printed by the CLI.
#pragma once

#include <stdexcept>
#include <string>

namespace mpsph {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace mpsph
