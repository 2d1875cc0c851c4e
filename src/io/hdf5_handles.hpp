// RAII owners for HDF5 identifiers: each handle closes its id with the matching H5*close when it
// goes out of scope, so an exception thrown half-way through writing a file leaks nothing.
#pragma once

#include <hdf5.h>

#include <utility>

namespace mpsph::h5 {

template <herr_t (*Close)(hid_t)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, kInvalid)) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      close();
      id_ = std::exchange(o.id_, kInvalid);
    }
    return *this;
  }
  ~Handle() { close(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closes now and returns the status: H5Fclose flushes, so its failure is a write failure.
  herr_t close() {
    const herr_t status = id_ >= 0 ? Close(id_) : 0;
    id_ = kInvalid;
    return status;
  }

 private:
  static constexpr hid_t kInvalid = -1;
  hid_t id_ = kInvalid;
};

using File = Handle<H5Fclose>;
using Group = Handle<H5Gclose>;
using Dataset = Handle<H5Dclose>;
using Dataspace = Handle<H5Sclose>;
using Datatype = Handle<H5Tclose>;  // only for ids from H5Tcopy / H5*get_type, never H5T_NATIVE_*
using Attribute = Handle<H5Aclose>;
using PropertyList = Handle<H5Pclose>;

// HDF5 prints its own error stack to stderr by default; mpsph reports failures as mpsph::Error.
inline void silence_errors() {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

// Call first in main(), before any other HDF5 call. A file whose flush failed (a full disk) cannot
// be closed: HDF5 keeps it open, and its clean-up at exit then crashes in H5F__close_cb (HDF5
// 1.10.8, seen on a full tmpfs). mpsph closes every file it finishes itself, so the clean-up at
// exit has nothing to do but that crash.
inline void no_cleanup_at_exit() {
  H5dont_atexit();
}

}  // namespace mpsph::h5
