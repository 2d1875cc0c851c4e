#include "app/cli.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/error.hpp"
#include "feedback/ssp_csv.hpp"
#include "feedback/ssp_params.hpp"
#include "io/hdf5_handles.hpp"
#include "io/run_info.hpp"
#include "io/snapshot.hpp"
#include "io/snapshot_info.hpp"
#include "run/health.hpp"
#include "run/program_schema.hpp"
#include "run/ranks.hpp"
#include "run/simulation.hpp"
#include "setups/initial_conditions.hpp"

namespace {

const char* kUsage =
    "mpsph " MPSPH_VERSION
    " - multi-phase SPH for galaxies and molecular clouds\n"
    "\n"
    "usage:\n"
    "  mpsph run <config.yaml> [--device auto|cpu|gpu] [--output-dir DIR] [--set a.b.c=VALUE]...\n"
    "  mpsph run --restart <checkpoint.h5> [<config.yaml>] [--set a.b.c=VALUE]...\n"
    "  mpsph ics <config.yaml> <out.h5> [--set a.b.c=VALUE]...\n"
    "                                  write the setup's initial conditions without running\n"
    "  mpsph info <snapshot.h5>        counts, time, units and field ranges of a snapshot\n"
    "  mpsph info <run directory>      what ran, how far, wall time, energy error, files\n"
    "  mpsph params [--markdown]       every configuration key with default, range and unit\n"
    "  mpsph ssp [--imf salpeter|kroupa] [--metallicity Z] [--yields rvn96|ww95]\n"
    "            [--snia binary|dtd] [--ages A1,A2,...]\n"
    "                                  cumulative SN numbers, energy, returned mass, O and Fe of\n"
    "                                  a stellar population per Msun formed at ages in Myr (CSV)\n"
    "  mpsph --help | --version\n"
    "\n"
    "A run writes into run.output_dir: snapshot_NNNN.h5 (GADGET-4/SWIFT HDF5 layout),\n"
    "energy.csv, config_resolved.yaml, checkpoint.h5 and timing.txt. SIGINT/SIGTERM write a\n"
    "checkpoint and stop; `mpsph run --restart` continues bit-identically.\n"
    "Exit codes: 0 success, 1 error (one-line cause on stderr), 2 usage error, 3 stopped early,\n4 "
    "the run went bad (non-finite or impossible values: diagnosis and diagnostic snapshot).\n"
    "Several MPI ranks: mpiexec -n N mpsph-mpi run ... (docs/mpi.md).\n";

const char* kUsageMpi =
    "mpsph-mpi " MPSPH_VERSION
    " - `mpsph run` across MPI ranks (docs/mpi.md)\n"
    "\n"
    "usage:\n"
    "  mpiexec -n N mpsph-mpi run <config.yaml> [--device auto|cpu] [--output-dir DIR]\n"
    "                                 [--set a.b.c=VALUE]...\n"
    "  mpiexec -n N mpsph-mpi run --restart <checkpoint.h5> [<config.yaml>] [--set ...]...\n"
    "  mpsph-mpi --help | --version\n"
    "\n"
    "The options and outputs are those of `mpsph run`; rank 0 writes every file (snapshots and\n"
    "checkpoints gathered, one file per output, particles sorted by type and id) and a restart\n"
    "works on any rank count. Across ranks: SPH, tree gravity in open boxes and cooling, with\n"
    "block or global time steps, on the CPU or GPU backend; direct or periodic gravity and the\n"
    "other physics modules are refused (exit code 2). Other commands (ics, info, params, ssp):\n"
    "use mpsph.\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The one-line cause of an input or usage error: control characters (a newline inside a YAML
// value, bytes of a binary file) are escaped and a huge cause (a 20 MB scalar) is cut, so that the
// message stays one readable line whatever the input held.
std::string one_line(const std::string& what) {
  constexpr std::size_t kMax = 800;
  std::string s;
  for (std::size_t i = 0; i < what.size() && s.size() < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(what[i]);
    if (c == '\n') {
      s += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      s += hex;
    } else {
      s += static_cast<char>(c);
    }
  }
  if (s.size() >= kMax) s += "... (" + std::to_string(what.size()) + " characters in all)";
  return s;
}

void on_signal(int) {
  mpsph::Simulation::request_stop();
}

int cmd_run(const std::vector<std::string>& args, const mpsph::Ranks* ranks) {
  mpsph::RunOptions opt;
  opt.ranks = ranks;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) -> std::string {
      // An option in the place of the value ("--restart --quiet") means the value is missing.
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)
        throw UsageError(std::string(flag) + " needs a value");
      return args[++i];
    };
    if (a == "--device") {
      opt.device = value("--device");
    } else if (a == "--output-dir") {
      opt.output_dir = value("--output-dir");
    } else if (a == "--set") {
      opt.overrides.push_back(value("--set"));
    } else if (a == "--restart") {
      opt.restart_path = value("--restart");
    } else if (a == "--quiet") {
      opt.quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option '" + a + "' for 'mpsph run'");
    } else if (opt.config_path.empty()) {
      opt.config_path = a;
    } else {
      throw UsageError("more than one config file given ('" + opt.config_path + "', '" + a + "')");
    }
  }
  if (opt.config_path.empty() && opt.restart_path.empty())
    throw UsageError("'mpsph run' needs a config file or --restart <checkpoint>");
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  mpsph::Simulation sim(opt);
  return sim.run() ? 0 : 3;
}

// Writes the initial conditions of a config's setup as an HDF5 snapshot (readable by
// setup.type: file) without running.
int cmd_ics(const std::vector<std::string>& args) {
  std::vector<std::string> files, overrides;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--set") {
      if (i + 1 >= args.size()) throw UsageError("--set needs a value");
      overrides.push_back(args[++i]);
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw UsageError("unknown option '" + args[i] + "' for 'mpsph ics'");
    } else {
      files.push_back(args[i]);
    }
  }
  if (files.size() != 2) throw UsageError("usage: mpsph ics <config.yaml> <out.h5> [--set ...]");
  const mpsph::Config cfg = mpsph::Config::from_file(files[0], mpsph::program_schema(), overrides);
  mpsph::InitialState st = mpsph::make_initial_state(cfg);
  mpsph::SnapshotMeta meta;
  meta.units = mpsph::UnitSystem::from_config(cfg);
  meta.box = st.box;
  meta.time = st.time;
  meta.config_yaml = cfg.resolved_yaml();
  mpsph::write_snapshot(files[1], st.particles, meta, {"GalaxyID"});
  const auto n = st.particles.count_by_type();
  std::printf("wrote %s: %zu particles (gas %zu, dark matter %zu, stars %zu)\n", files[1].c_str(),
              st.particles.size(), n[0], n[1], n[3]);
  return 0;
}

int cmd_info(const std::vector<std::string>& args) {
  if (args.size() != 1) throw UsageError("'mpsph info' takes one snapshot file or run directory");
  const bool dir = std::filesystem::is_directory(args[0]);
  std::fputs((dir ? mpsph::run_info(args[0]) : mpsph::snapshot_info(args[0])).c_str(), stdout);
  return 0;
}

int cmd_params(const std::vector<std::string>& args) {
  if (args.size() > 1 || (args.size() == 1 && args[0] != "--markdown"))
    throw UsageError("usage: mpsph params [--markdown]");
  std::fputs(mpsph::schema_markdown(mpsph::program_schema()).c_str(), stdout);
  return 0;
}

// The SSP model of the feedback stage (defaults of the feedback section) at the given ages.
int cmd_ssp(const std::vector<std::string>& args) {
  mpsph::SspModel model;
  double z = 0.02;
  std::vector<double> ages = mpsph::default_ssp_ages_myr();
  auto number = [](const std::string& flag, const std::string& text) {
    std::size_t used = 0;
    double v = 0.0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || !std::isfinite(v))
      throw UsageError(flag + " needs a number, got '" + text + "'");
    return v;
  };
  for (std::size_t i = 0; i < args.size(); ++i) try {
      const std::string& a = args[i];
      if (i + 1 >= args.size()) throw UsageError("unknown option or missing value '" + a + "'");
      const std::string& v = args[++i];
      if (a == "--imf") {
        model.imf = mpsph::parse_imf(v);
      } else if (a == "--yields") {
        model.yields = mpsph::parse_yields(v);
      } else if (a == "--snia") {
        model.snia = mpsph::parse_snia(v);
      } else if (a == "--metallicity") {
        z = number(a, v);
        if (!(z >= 0.0 && z < 1.0)) throw UsageError("--metallicity must be in [0, 1)");
      } else if (a == "--ages") {
        ages.clear();
        std::size_t pos = 0;
        while (pos <= v.size()) {
          const std::size_t comma = std::min(v.find(',', pos), v.size());
          const double age = number(a, v.substr(pos, comma - pos));
          if (!(age > 0.0)) throw UsageError("--ages must be positive (Myr)");
          ages.push_back(age);
          pos = comma + 1;
        }
      } else {
        throw UsageError("unknown option '" + a + "' for 'mpsph ssp'");
      }
    } catch (const mpsph::Error& e) {
      throw UsageError(e.what());  // a bad choice name is a usage error
    }
  mpsph::Ww95View ww95{};
  if (model.yields == mpsph::YieldKind::Ww95) {
    ww95 = mpsph::load_ww95_tables(mpsph::find_ww95_dir(""));
    model.ww95 = &ww95;
  }
  const mpsph::SspTable table(model);
  std::fputs(mpsph::ssp_csv(table, z, ages).c_str(), stdout);
  return 0;
}

}  // namespace

int mpsph::cli_main(int argc, char** argv, const Ranks* ranks) {
  // A file-size limit (ulimit -f) would kill the process with SIGXFSZ, without a message or a
  // checkpoint; ignored, the write fails with EFBIG and is reported like a full disk.
  std::signal(SIGXFSZ, SIG_IGN);
  mpsph::h5::no_cleanup_at_exit();
  std::vector<std::string> args(argv + 1, argv + argc);
  // Every rank reports its own errors (the same line on every rank for an error they share).
  const std::string who = ranks ? "mpsph-mpi (rank " + std::to_string(ranks->rank()) + " of " +
                                      std::to_string(ranks->size()) + ")"
                                : "mpsph";
  const char* usage = ranks ? kUsageMpi : kUsage;
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      std::fputs(usage, args.empty() ? stderr : stdout);
      return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
      std::puts(ranks ? "mpsph-mpi " MPSPH_VERSION : "mpsph " MPSPH_VERSION);
      return 0;
    }
    const std::string cmd = args[0];
    args.erase(args.begin());
    if (cmd == "run") return cmd_run(args, ranks);
    if (ranks)
      throw UsageError("mpsph-mpi runs only 'run' across ranks; for '" + cmd +
                       "' use mpsph (see --help)");
    if (cmd == "ics") return cmd_ics(args);
    if (cmd == "info") return cmd_info(args);
    if (cmd == "params") return cmd_params(args);
    if (cmd == "ssp") return cmd_ssp(args);
    throw UsageError("unknown command '" + cmd +
                     "' (commands: run, ics, info, params, ssp; see --help)");
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n", who.c_str(), one_line(e.what()).c_str());
    return 2;
  } catch (const mpsph::NotAcrossRanks& e) {
    // A feature that does not work across ranks yet: the config asks for what this program
    // cannot do, like a usage error.
    std::fprintf(stderr, "%s: %s\n", who.c_str(), one_line(e.what()).c_str());
    return 2;
  } catch (const mpsph::HealthError& e) {
    // A run that went bad: never exit 0, and keep the failure apart from input errors (1).
    std::fprintf(stderr, "%s: run stopped: %s\n", who.c_str(), e.what());
    return 4;
  } catch (const mpsph::Error& e) {
    std::fprintf(stderr, "%s: error: %s\n", who.c_str(), one_line(e.what()).c_str());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of memory\n", who.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", who.c_str(), one_line(e.what()).c_str());
    return 1;
  } catch (...) {
    std::fprintf(stderr, "%s: internal error: an exception of unknown type\n", who.c_str());
    return 1;
  }
}
