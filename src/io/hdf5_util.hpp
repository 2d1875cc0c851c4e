// Typed HDF5 helpers shared by snapshots, checkpoints and `mpsph info`: attributes, whole-dataset
// reads and writes for the particle store's element types, and the write-to-temp-then-rename file.
// Every failure throws mpsph::Error whose message starts with the caller's context (e.g.
// "snapshot 'out/snap_000.h5'") and names the group, attribute or dataset involved.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/vec3.hpp"
#include "io/hdf5_handles.hpp"

namespace mpsph::h5 {

// HDF5 view of a store element type: scalar type, its file type name and the number of components
// per particle.
template <class T>
struct Traits;
template <>
struct Traits<double> {
  using Scalar = double;
  static constexpr int components = 1;
  static hid_t native() { return H5T_NATIVE_DOUBLE; }
  static constexpr const char* name = "float64";
};
template <>
struct Traits<float> {
  using Scalar = float;
  static constexpr int components = 1;
  static hid_t native() { return H5T_NATIVE_FLOAT; }
  static constexpr const char* name = "float32";
};
template <>
struct Traits<uint64_t> {
  using Scalar = uint64_t;
  static constexpr int components = 1;
  static hid_t native() { return H5T_NATIVE_UINT64; }
  static constexpr const char* name = "uint64";
};
template <>
struct Traits<uint32_t> {
  using Scalar = uint32_t;
  static constexpr int components = 1;
  static hid_t native() { return H5T_NATIVE_UINT32; }
  static constexpr const char* name = "uint32";
};
template <>
struct Traits<int64_t> {
  using Scalar = int64_t;
  static constexpr int components = 1;
  static hid_t native() { return H5T_NATIVE_INT64; }
  static constexpr const char* name = "int64";
};
template <>
struct Traits<int32_t> {
  using Scalar = int32_t;
  static constexpr int components = 1;
  static hid_t native() { return H5T_NATIVE_INT32; }
  static constexpr const char* name = "int32";
};
template <>
struct Traits<uint8_t> {
  using Scalar = uint8_t;
  static constexpr int components = 1;
  static hid_t native() { return H5T_NATIVE_UINT8; }
  static constexpr const char* name = "uint8";
};
template <>
struct Traits<Vec3d> {
  using Scalar = double;
  static constexpr int components = 3;
  static hid_t native() { return H5T_NATIVE_DOUBLE; }
  static constexpr const char* name = "float64";
};
static_assert(sizeof(Vec3d) == 3 * sizeof(double), "Vec3d must be three packed doubles");

// ------------------------------------------------------------------ files

// Opens an existing file read-only. Errors: "cannot read <what> '<path>': file not found" and
// "...: not an HDF5 file (or truncated/corrupt)".
File open_for_reading(const std::string& path, const std::string& what);

// A new HDF5 file written under "<path>.tmp" and renamed onto `path` by commit(), so a killed run
// never leaves a half-written file under the final name. Without commit() the temp file is removed.
// Errors read "cannot write <what> '<path>': <reason>".
class TempFile {
 public:
  TempFile(std::string path, std::string what);
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile();

  hid_t id() const { return file_.get(); }
  // The error context for helpers below: "cannot write <what> '<path>'".
  const std::string& context() const { return context_; }
  // The temporary file's path, which other processes open with open_for_update() to add their
  // rows once this one has closed it (close()).
  const std::string& temporary_path() const { return tmp_; }
  // Flushes and closes the temporary file without committing it.
  void close();
  // close(), and leaves the temporary file for other processes to add their rows; the caller
  // commits it later (commit_temporary, io/durable_file.hpp) or removes it.
  void hand_over() {
    close();
    committed_ = true;
  }
  void commit();

 private:
  std::string path_, tmp_, context_;
  File file_;
  bool committed_ = false;
};

// ------------------------------------------------------------------ groups and links

bool has_link(hid_t loc, const std::string& name);
Group create_group(hid_t loc, const std::string& name, const std::string& ctx);
Group open_group(hid_t loc, const std::string& name, const std::string& ctx);
// Names of the direct members of a group, in creation/name order.
std::vector<std::string> member_names(hid_t group, const std::string& ctx);

// ------------------------------------------------------------------ attributes

// Numeric attribute with a scalar dataspace (GADGET style) ...
void write_scalar_attribute(hid_t loc, const std::string& name, hid_t native_type,
                            const void* value, const std::string& ctx);
// ... or a 1-D dataspace of n values (SWIFT style, and every per-type array).
void write_array_attribute(hid_t loc, const std::string& name, hid_t native_type,
                           const void* values, std::size_t n, const std::string& ctx);
void write_string_attribute(hid_t loc, const std::string& name, const std::string& value,
                            const std::string& ctx);

template <class T>
void write_scalar_attribute(hid_t loc, const std::string& name, T value, const std::string& ctx) {
  write_scalar_attribute(loc, name, Traits<T>::native(), &value, ctx);
}
template <class T>
void write_array_attribute(hid_t loc, const std::string& name, const std::vector<T>& values,
                           const std::string& ctx) {
  write_array_attribute(loc, name, Traits<T>::native(), values.data(), values.size(), ctx);
}

bool has_attribute(hid_t loc, const std::string& name);
// Reads a numeric attribute of any shape (flattened), converted by HDF5 to double / uint64.
std::vector<double> read_double_attribute(hid_t loc, const std::string& name,
                                          const std::string& ctx);
std::vector<uint64_t> read_uint64_attribute(hid_t loc, const std::string& name,
                                            const std::string& ctx);
// The first value of a numeric attribute (GADGET scalars and SWIFT one-element arrays alike); an
// empty attribute is an error. The _or form returns `fallback` when the attribute is absent.
double read_first_double(hid_t loc, const std::string& name, const std::string& ctx);
double read_first_double_or(hid_t loc, const std::string& name, double fallback,
                            const std::string& ctx);
std::vector<int64_t> read_int64_attribute(hid_t loc, const std::string& name,
                                          const std::string& ctx);
// Names of all attributes of `loc`, in name order.
std::vector<std::string> attribute_names(hid_t loc, const std::string& ctx);
// Size in bytes of the attribute's stored element type (e.g. 4 for a 32-bit NumPart_Total).
std::size_t attribute_element_size(hid_t loc, const std::string& name, const std::string& ctx);
// Reads a fixed- or variable-length string attribute.
std::string read_string_attribute(hid_t loc, const std::string& name, const std::string& ctx);

// ------------------------------------------------------------------ datasets

// Creates `name` in `loc` as an n-vector (or n x 3 for Vec3d) of the native type and writes it.
// Returns the open dataset so that the caller can attach attributes.
// A dataset of n rows of `components` values each, written later by rows (write_rows), e.g. by
// several processes in turn.
Dataset create_rows(hid_t loc, const std::string& name, hid_t native_scalar, int components,
                    std::size_t n, const std::string& ctx);
// Rows [first, first + count) of dataset `name` (open in `loc`) from `data`.
void write_rows(hid_t loc, const std::string& name, hid_t native_scalar, int components,
                const void* data, std::size_t first, std::size_t count, const std::string& ctx);
template <class T>
Dataset create_rows(hid_t loc, const std::string& name, std::size_t n, const std::string& ctx) {
  return create_rows(loc, name, Traits<T>::native(), Traits<T>::components, n, ctx);
}
template <class T>
void write_rows(hid_t loc, const std::string& name, const std::vector<T>& data, std::size_t first,
                const std::string& ctx) {
  write_rows(loc, name, Traits<T>::native(), Traits<T>::components, data.data(), first, data.size(),
             ctx);
}
// An existing file (another process's temporary file) opened for writing rows.
File open_for_update(const std::string& path, const std::string& ctx);

Dataset write_dataset(hid_t loc, const std::string& name, hid_t native_scalar, int components,
                      const void* data, std::size_t n, const std::string& ctx);

template <class T>
Dataset write_dataset(hid_t loc, const std::string& name, const std::vector<T>& data,
                      const std::string& ctx) {
  return write_dataset(loc, name, Traits<T>::native(), Traits<T>::components, data.data(),
                       data.size(), ctx);
}

struct DatasetInfo {
  std::vector<hsize_t> shape;
  H5T_class_t type_class;
  std::size_t element_size;  // bytes per scalar element in the file
};
DatasetInfo dataset_info(hid_t dataset, const std::string& name, const std::string& ctx);
std::string shape_text(const std::vector<hsize_t>& shape);  // "(100 x 3)"

// Reads dataset `path` (relative to `loc`) into n particles of `out`, checking that its shape is
// (n) or (n x 3) and its type class matches T (float data for floating fields, integers for
// integer fields; HDF5 converts float32 <-> float64 and between integer widths). `count_source`
// names where n came from, for the length-mismatch message (e.g. "NumPart_ThisFile[0] = 100").
void read_rows(hid_t loc, const std::string& path, hid_t native_scalar, int components,
               bool floating, void* out, std::size_t n, const std::string& ctx,
               const std::string& count_source);

// Rows [first, first + count) of a dataset of n rows (checked as read_rows does) into `out`: a
// process's part of a file that no process reads whole.
void read_row_range(hid_t loc, const std::string& path, hid_t native_scalar, int components,
                    bool floating, void* out, std::size_t n, std::size_t first, std::size_t count,
                    const std::string& ctx, const std::string& count_source);
template <class T>
void read_row_range(hid_t loc, const std::string& path, T* out, std::size_t n, std::size_t first,
                    std::size_t count, const std::string& ctx, const std::string& count_source) {
  using S = typename Traits<T>::Scalar;
  read_row_range(loc, path, Traits<T>::native(), Traits<T>::components,
                 std::is_floating_point<S>::value, out, n, first, count, ctx, count_source);
}

template <class T>
void read_rows(hid_t loc, const std::string& path, T* out, std::size_t n, const std::string& ctx,
               const std::string& count_source) {
  using S = typename Traits<T>::Scalar;
  read_rows(loc, path, Traits<T>::native(), Traits<T>::components, std::is_floating_point<S>::value,
            out, n, ctx, count_source);
}

// The number of rows (first dimension) of dataset `path` under `loc`, checked against `n` before
// anything is allocated for it: a header that claims 10^15 particles is an error naming the
// dataset, not an allocation failure. Throws the read_rows() messages.
void check_rows(hid_t loc, const std::string& path, std::size_t n, const std::string& ctx,
                const std::string& count_source);

// Whole numeric dataset converted to double (for summaries).
std::vector<double> read_as_double(hid_t dataset, const std::string& name, const std::string& ctx);

}  // namespace mpsph::h5
