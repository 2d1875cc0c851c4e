// The text checks of the tests of refusals (bad parameters, files, states): the message of the
// mpsph::Error a call throws, and whether a text holds a part.
#pragma once

#include <string>

#include "core/error.hpp"

namespace mpsph::test {

// The message of the mpsph::Error that `f` throws; "" when it returns normally, so that a check
// that the message holds some text fails for a call that was accepted.
template <class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace mpsph::test
