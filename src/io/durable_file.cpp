#include "io/durable_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace mpsph {

namespace {

std::string parent_directory(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

// fsync(2) of a file or directory by name; returns 0 or the errno.
int sync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) return errno;
  const int err = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return err;
}

}  // namespace

std::string temporary_name(const std::string& path) {
  return path + ".tmp";
}

bool directory_vanished(const std::string& path) {
  std::error_code ec;
  return !std::filesystem::is_directory(parent_directory(path), ec);
}

std::string write_error(const std::string& ctx, const std::string& path, int err) {
  if (err == ENOENT && directory_vanished(path))
    return ctx + ": " + std::strerror(err) + ": the directory '" + parent_directory(path) +
           "' does not exist (removed or moved during the run?)";
  return ctx + ": " + std::strerror(err);
}

void commit_temporary(const std::string& tmp, const std::string& path, const std::string& ctx) {
  // ENOENT for the temporary file itself: something removed it (or its directory) meanwhile.
  const auto failed = [&](const std::string& what, int err) {
    if (err == ENOENT && !directory_vanished(path))
      return Error(ctx + ": '" + tmp + "' was removed before it could be renamed (is the output " +
                   "directory being removed?)");
    return Error(write_error(ctx + ": " + what + " '" + tmp + "' failed", path, err));
  };
  if (const int err = sync_path(tmp, false)) throw failed("fsync of", err);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw failed("renaming", errno);
  // The rename is on disk once the directory is; a directory that cannot be opened for fsync
  // (some network file systems) still holds the complete file under its final name.
  if (const int err = sync_path(parent_directory(path), true); err != 0 && err != EINVAL)
    throw Error(write_error(ctx + ": fsync of the directory failed", path, err));
}

void write_text_durably(const std::string& path, const std::string& text) {
  const std::string ctx = "cannot write '" + path + "'";
  const std::string tmp = temporary_name(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
  if (fd < 0) throw Error(write_error(ctx, tmp, errno));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t k = ::write(fd, text.data() + done, text.size() - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      const int err = k < 0 ? errno : EIO;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error(write_error(ctx, tmp, err));
    }
    done += std::size_t(k);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(write_error(ctx, tmp, err));
  }
  try {
    commit_temporary(tmp, path, ctx);
  } catch (const Error&) {
    ::unlink(tmp.c_str());
    throw;
  }
}

}  // namespace mpsph
