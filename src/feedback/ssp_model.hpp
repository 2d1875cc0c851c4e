// The choices that define a simple stellar population (PHYSICS.md section 7), as the SSP functions
// read them: IMF, SN II yields, SN Ia model and its constants. Filled from the `feedback` section
// by feedback_params.hpp, or directly (mpsph ssp, tests).
#pragma once

#include "feedback/ssp_imf_kern.hpp"
#include "feedback/ssp_yields_kern.hpp"

namespace mpsph {

enum class SnIaKind : int {
  Binary = 0,  // RVN96 / Greggio & Renzini (1983) binaries (default)
  Dtd = 1,     // t^-1 delay-time distribution after snia_dtd_t_min_yr
};

struct SspModel {
  ImfKind imf = ImfKind::Salpeter;
  YieldKind yields = YieldKind::Rvn96;
  SnIaKind snia = SnIaKind::Binary;
  double e_sn_erg = 1e51;              // energy of one SN (II or Ia)
  double snia_binary_fraction = 0.05;  // binary: fraction of the IMF in 3-16 Msun systems
  double snia_dtd_number = 1.3e-3;     // dtd: SN Ia per Msun formed up to snia_dtd_t_max_yr
  double snia_dtd_t_min_yr = 4e7;      // dtd: first SN Ia
  double snia_dtd_t_max_yr = 1.37e10;  // dtd: end of the normalisation interval
  const Ww95View* ww95 = nullptr;      // the WW95 tables (yields ww95), host memory
};

}  // namespace mpsph
