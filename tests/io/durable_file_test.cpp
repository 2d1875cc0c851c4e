// Files are put on disk through a temporary name and a rename: a failed write leaves the previous
// file as it was and no temporary behind, and the error names the OS reason (a vanished
// directory, a file-size limit standing in for a full disk).
#include "io/durable_file.hpp"

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "io/checkpoint.hpp"
#include "io/io_test_support.hpp"

using namespace mpsph;
using mpsph::test::contains;
using mpsph::test::error_message;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Lowers the soft file-size limit (as `ulimit -f` does) for its lifetime; SIGXFSZ is ignored so
// that a write past the limit fails with EFBIG instead of killing the test.
struct FileSizeLimit {
  rlimit old{};
  void (*old_handler)(int);
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old);
    old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lower = old;
    lower.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lower);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, old_handler);
  }
};

}  // namespace

TEST_CASE("text files are replaced whole or not at all", "[io][durable]") {
  const std::string path = test::scratch_path("durable.txt");
  write_text_durably(path, "first\n");
  write_text_durably(path, "second version\n");
  CHECK(read_text(path) == "second version\n");
  CHECK_FALSE(std::filesystem::exists(temporary_name(path)));

  SECTION("a vanished directory is named as such") {
    const std::string gone = test::scratch_path("no_such_dir") + "/x.txt";
    const std::string msg = error_message([&] { write_text_durably(gone, "x"); });
    CHECK(contains(msg, "cannot write '" + gone + "'"));
    CHECK(
        contains(msg, "the directory '" + test::scratch_path("no_such_dir") + "' does not exist"));
  }
  SECTION("directory_vanished tells a missing directory from a missing file") {
    CHECK_FALSE(directory_vanished(path));
    CHECK_FALSE(directory_vanished(test::scratch_path("not_written_yet.txt")));
    CHECK(directory_vanished(test::scratch_path("no_such_dir") + "/x.txt"));
  }
  SECTION("a write past the file-size limit fails with EFBIG and keeps the old file") {
    std::string msg;
    {
      const FileSizeLimit limit(8);
      msg = error_message([&] { write_text_durably(path, "a text longer than eight bytes\n"); });
    }
    CHECK(contains(msg, "File too large"));
    CHECK(read_text(path) == "second version\n");
    CHECK_FALSE(std::filesystem::exists(temporary_name(path)));
  }
}

TEST_CASE("a checkpoint that cannot be written leaves the last one intact", "[io][durable]") {
  // HDF5 reports the OS reason of a failed write ("File too large" here, "No space left on
  // device" on a full disk); the previous checkpoint and no temporary file stay behind.
  const std::string path = test::scratch_path("durable_ckpt.h5");
  CheckpointState st;
  st.time = 1.5;
  st.config_yaml = "run: {t_end: 2}\n";
  ParticleStore small = test::make_store({0, 0, 1});
  write_checkpoint(path, small, st);
  const std::string before = read_text(path);
  ParticleStore big = test::make_store(std::vector<uint8_t>(20000, 0));
  std::string msg;
  {
    const FileSizeLimit limit(before.size() * 4);
    msg = error_message([&] { write_checkpoint(path, big, st); });
  }
  INFO(msg);
  CHECK(contains(msg, "cannot write checkpoint '" + path + "'"));
  CHECK(contains(msg, "File too large"));
  CHECK(read_text(path) == before);
  CHECK_FALSE(std::filesystem::exists(temporary_name(path)));
  CheckpointState back;
  CHECK(read_checkpoint(path, &back).size() == 3);
  CHECK(back.time == 1.5);
}
