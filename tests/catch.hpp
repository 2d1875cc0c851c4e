// Catch2 v3 (GPU machine) or v2 (Debian 12): one include for every test file.
#pragma once
#if MPSPH_CATCH2_MAJOR >= 3  // set by tests/CMakeLists.txt from the Catch2 package found
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
using Catch::Approx;
#define MPSPH_CATCH_V3 1
#else
#include <catch2/catch.hpp>
#endif
