// Physical constants in cgs: the only place they are written. Converted to code units once at
// start-up through UnitSystem.
#pragma once

namespace mpsph::cgs {

constexpr double kPi = 3.14159265358979323846;
constexpr double G = 6.6743e-8;               // cm^3 g^-1 s^-2 (CODATA 2018)
constexpr double k_B = 1.380649e-16;          // erg/K (exact, SI 2019)
constexpr double m_p = 1.67262192369e-24;     // g
constexpr double m_H = 1.6735575e-24;         // g, hydrogen atom
constexpr double Msun = 1.98841e33;           // g (IAU 2015 nominal GM / G)
constexpr double pc = 3.0856775814913673e18;  // cm
constexpr double kpc = 1e3 * pc;
constexpr double au = 1.495978707e13;  // cm (IAU 2012, exact)
constexpr double km_s = 1e5;           // cm/s
constexpr double year = 3.15576e7;     // s (Julian)
constexpr double Myr = 1e6 * year;
constexpr double Gyr = 1e9 * year;

}  // namespace mpsph::cgs
