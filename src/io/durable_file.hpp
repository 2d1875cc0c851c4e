// Putting a finished file on disk so that no fault leaves a file that looks complete but is not:
// the content goes to "<path>.tmp" in the same directory, is flushed and fsync'ed, and is renamed
// onto `path` (atomic on POSIX file systems); the directory is fsync'ed so that the rename itself
// survives a crash of the machine. A `kill -9` at any moment leaves either the previous file or
// the new one under `path`, and at most a stray "<path>.tmp".
//
// Errors are mpsph::Error with the OS reason ("No space left on device", "File too large") and,
// when the directory itself is gone, say so: "No such file or directory: the directory 'D' does not
// exist (removed or moved during the run?)".
#pragma once

#include <string>

namespace mpsph {

// The temporary name used for `path`.
std::string temporary_name(const std::string& path);

// Whether the directory that holds (or should hold) `path` no longer exists.
bool directory_vanished(const std::string& path);

// "<ctx>: <reason>" for an OS error `err` (an errno value) while writing `path`; names a vanished
// parent directory instead of the bare ENOENT.
std::string write_error(const std::string& ctx, const std::string& path, int err);

// fsync(2) of the finished temporary file, rename(2) onto `path`, fsync(2) of the directory.
// Throws mpsph::Error "<ctx>: ..." naming the step that failed and the OS reason.
void commit_temporary(const std::string& tmp, const std::string& path, const std::string& ctx);

// Writes `text` to `path` the durable way above (config_resolved.yaml, timing.txt, energy.csv
// when it is rewritten on restart). Throws mpsph::Error "cannot write '<path>': <reason>"; the
// previous file, if any, is left as it was.
void write_text_durably(const std::string& path, const std::string& text);

}  // namespace mpsph
