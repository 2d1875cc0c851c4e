// Parameters of the stellar populations and their feedback (PHYSICS.md section 7;
// docs/feedback.md): the `feedback:` section.
//   feedback: {model: none|ssp, imf, yields, yields_dir, snia, snia_binary_fraction,
//              snia_dtd_number, snia_dtd_t_min_myr, snia_dtd_t_max_myr, sn_energy_erg,
//              n_neighbours}
// Member initialisers (and those of SspModel) are the defaults.
#pragma once

#include <string>

#include "feedback/ssp_model.hpp"

namespace mpsph {

class Config;
class Schema;

enum class FeedbackKind { None, Ssp };

struct FeedbackParams {
  FeedbackKind kind = FeedbackKind::None;
  SspModel ssp;            // ssp.ww95 is not set here (see load_ww95_tables)
  std::string yields_dir;  // WW95 directory; empty = found next to the executable or source
  int n_neighbours = 50;   // N_B: gas particles that receive a star's release

  bool enabled() const { return kind != FeedbackKind::None; }
};

constexpr int kFeedbackMaxNeighbours = 128;

// Name -> choice (also the options of `mpsph ssp`); any other name throws mpsph::Error listing
// the valid ones.
FeedbackKind parse_feedback_model(const std::string& name);
ImfKind parse_imf(const std::string& name);
YieldKind parse_yields(const std::string& name);
SnIaKind parse_snia(const std::string& name);

void add_feedback_params(Schema& schema);
// Reads the feedback section; throws mpsph::Error naming the key when a value is inconsistent.
FeedbackParams ssp_params_from(const Config& cfg);

}  // namespace mpsph
