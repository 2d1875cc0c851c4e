// The text of `mpsph ssp`: the cumulative release per Msun formed of one stellar population at
// given ages, as CSV with a header stating the model and units, read from the same SSP table the
// feedback stage uses (ssp_table_kern.hpp).
#pragma once

#include <string>
#include <vector>

#include "feedback/ssp_table.hpp"

namespace mpsph {

// The default ages [Myr]: 1 Myr to 14 Gyr, every 0.05 dex.
std::vector<double> default_ssp_ages_myr();

// Columns age_Myr, N_SNII, N_SNIa, E_SN_erg, M_returned, M_O, M_Fe; one row per age (> 0, Myr).
std::string ssp_csv(const SspTable& table, double metallicity, const std::vector<double>& ages_myr);

}  // namespace mpsph
