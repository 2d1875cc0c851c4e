#include "io/hdf5_util.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "io/durable_file.hpp"

namespace mpsph::h5 {

namespace {

std::string in_quotes(const std::string& s) {
  return "'" + s + "'";
}

Attribute open_attribute(hid_t loc, const std::string& name, const std::string& ctx) {
  if (!has_attribute(loc, name)) throw Error(ctx + ": missing attribute " + in_quotes(name));
  Attribute a(H5Aopen(loc, name.c_str(), H5P_DEFAULT));
  if (!a.valid()) throw Error(ctx + ": cannot open attribute " + in_quotes(name));
  return a;
}

// Reads a numeric attribute of any shape into `native` values.
template <class T>
std::vector<T> read_numeric_attribute(hid_t loc, const std::string& name, hid_t native,
                                      const std::string& ctx) {
  Attribute a = open_attribute(loc, name, ctx);
  Datatype type(H5Aget_type(a.get()));
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_INTEGER && cls != H5T_FLOAT)
    throw Error(ctx + ": attribute " + in_quotes(name) + " is not numeric");
  Dataspace space(H5Aget_space(a.get()));
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 0) throw Error(ctx + ": cannot read the shape of attribute " + in_quotes(name));
  std::vector<T> values(static_cast<std::size_t>(n));
  if (n > 0 && H5Aread(a.get(), native, values.data()) < 0)
    throw Error(ctx + ": reading attribute " + in_quotes(name) + " failed");
  return values;
}

// The OS reason behind the latest HDF5 failure: HDF5's file drivers record "errno = N" in the
// description of the error they push (e.g. a write() that failed with ENOSPC or EFBIG). Empty when
// the error stack holds none. Must be called before the next HDF5 call, which clears the stack.
std::string os_reason_from_error_stack() {
  int found = 0;
  auto visit = [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
    int* out = static_cast<int*>(data);
    const char* at = e->desc ? std::strstr(e->desc, "errno = ") : nullptr;
    if (*out == 0 && at) *out = std::atoi(at + 8);
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, visit, &found);
  return found > 0 ? std::strerror(found) : std::string();
}

// "<ctx>: <what> failed[: <OS reason>]" for a failed HDF5 write.
Error write_failure(const std::string& ctx, const std::string& what) {
  const std::string reason = os_reason_from_error_stack();
  return Error(ctx + ": " + what + " failed" + (reason.empty() ? "" : ": " + reason));
}

}  // namespace

// ------------------------------------------------------------------ files

File open_for_reading(const std::string& path, const std::string& what) {
  silence_errors();
  const std::string ctx = "cannot read " + what + " " + in_quotes(path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(ctx + ": file not found");
  if (std::filesystem::is_directory(path, ec)) throw Error(ctx + ": is a directory");
  // HDF5 does not say why an open failed; the OS does (e.g. permission denied).
  if (std::FILE* probe = std::fopen(path.c_str(), "rb")) {
    std::fclose(probe);
  } else {
    throw Error(ctx + ": " + std::strerror(errno));
  }
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (id < 0) throw Error(ctx + ": not an HDF5 file (or truncated/corrupt)");
  return File(id);
}

TempFile::TempFile(std::string path, std::string what)
    : path_(std::move(path)),
      tmp_(temporary_name(path_)),
      context_("cannot write " + what + " " + in_quotes(path_)) {
  silence_errors();
  // Probe with stdio first: the OS reason (missing directory, permission) is what the user needs.
  if (std::FILE* probe = std::fopen(tmp_.c_str(), "wb")) {
    std::fclose(probe);
  } else {
    throw Error(write_error(context_, tmp_, errno));
  }
  PropertyList fapl(H5Pcreate(H5P_FILE_ACCESS));
  // The 1.8 object format keeps attributes larger than 64 KiB (a long resolved config) in dense
  // storage; it is readable by every HDF5 >= 1.8 (h5py, yt).
  if (!fapl.valid() || H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18) < 0) {
    std::remove(tmp_.c_str());
    throw Error(context_ + ": cannot set up HDF5 file access properties");
  }
  const hid_t id = H5Fcreate(tmp_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  if (id < 0) {
    // The directory may vanish between the probe above and H5Fcreate (the fault test hit it):
    // then say so, as every other write of the file does.
    const std::string what = "HDF5 creating " + in_quotes(tmp_);
    const Error e = directory_vanished(tmp_)
                        ? Error(write_error(context_ + ": " + what + " failed", tmp_, ENOENT))
                        : write_failure(context_, what);
    std::remove(tmp_.c_str());
    throw e;
  }
  file_ = File(id);
}

TempFile::~TempFile() {
  if (!committed_) {
    file_.close();
    std::remove(tmp_.c_str());
  }
}

void TempFile::close() {
  if (!file_.valid()) return;
  // Every group and dataset must be closed first: H5Fclose only flushes and releases the file once
  // nothing in it is open, and the rename of commit() must see the finished file.
  const ssize_t open_objects =
      H5Fget_obj_count(file_.get(), H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE |
                                        H5F_OBJ_ATTR | H5F_OBJ_LOCAL);
  if (open_objects != 0)
    throw Error(context_ + ": internal error: " + std::to_string(open_objects) +
                " HDF5 objects still open when the file is finished");
  if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0)
    throw write_failure(context_, "flushing " + in_quotes(tmp_));
  if (file_.close() < 0) throw write_failure(context_, "closing " + in_quotes(tmp_));
}

void TempFile::commit() {
  close();
  commit_temporary(tmp_, path_, context_);
  committed_ = true;
}

File open_for_update(const std::string& path, const std::string& ctx) {
  silence_errors();
  const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (id < 0) throw Error(ctx + ": cannot open " + in_quotes(path) + " to add rows");
  return File(id);
}

// ------------------------------------------------------------------ groups and links

bool has_link(hid_t loc, const std::string& name) {
  // H5Lexists fails (< 0) when an intermediate group is missing: that also means "absent".
  return H5Lexists(loc, name.c_str(), H5P_DEFAULT) > 0;
}

Group create_group(hid_t loc, const std::string& name, const std::string& ctx) {
  Group g(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!g.valid()) throw write_failure(ctx, "creating group " + in_quotes(name));
  return g;
}

Group open_group(hid_t loc, const std::string& name, const std::string& ctx) {
  if (!has_link(loc, name)) throw Error(ctx + ": missing group " + name);
  Group g(H5Gopen2(loc, name.c_str(), H5P_DEFAULT));
  if (!g.valid()) throw Error(ctx + ": " + name + " is not a group");
  return g;
}

std::vector<std::string> member_names(hid_t group, const std::string& ctx) {
  H5G_info_t info;
  if (H5Gget_info(group, &info) < 0) throw Error(ctx + ": cannot list group members");
  std::vector<std::string> names;
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t len =
        H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (len < 0) throw Error(ctx + ": cannot read a group member name");
    std::string name(static_cast<std::size_t>(len) + 1, '\0');
    H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(),
                       H5P_DEFAULT);
    name.resize(static_cast<std::size_t>(len));
    names.push_back(name);
  }
  return names;
}

// ------------------------------------------------------------------ attributes

void write_scalar_attribute(hid_t loc, const std::string& name, hid_t native_type,
                            const void* value, const std::string& ctx) {
  Dataspace space(H5Screate(H5S_SCALAR));
  Attribute a(H5Acreate2(loc, name.c_str(), native_type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!a.valid() || H5Awrite(a.get(), native_type, value) < 0)
    throw write_failure(ctx, "writing attribute " + in_quotes(name));
}

void write_array_attribute(hid_t loc, const std::string& name, hid_t native_type,
                           const void* values, std::size_t n, const std::string& ctx) {
  const hsize_t dim = n;
  Dataspace space(H5Screate_simple(1, &dim, nullptr));
  Attribute a(H5Acreate2(loc, name.c_str(), native_type, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!a.valid() || H5Awrite(a.get(), native_type, values) < 0)
    throw write_failure(ctx, "writing attribute " + in_quotes(name));
}

void write_string_attribute(hid_t loc, const std::string& name, const std::string& value,
                            const std::string& ctx) {
  // Fixed-length, null-terminated C string (what GADGET-4 and SWIFT write).
  Datatype type(H5Tcopy(H5T_C_S1));
  Dataspace space(H5Screate(H5S_SCALAR));
  if (!type.valid() || H5Tset_size(type.get(), value.size() + 1) < 0 ||
      H5Tset_strpad(type.get(), H5T_STR_NULLTERM) < 0)
    throw Error(ctx + ": cannot make the string type for attribute " + in_quotes(name));
  Attribute a(H5Acreate2(loc, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!a.valid() || H5Awrite(a.get(), type.get(), value.c_str()) < 0)
    throw write_failure(ctx, "writing attribute " + in_quotes(name));
}

bool has_attribute(hid_t loc, const std::string& name) {
  return H5Aexists(loc, name.c_str()) > 0;
}

std::vector<double> read_double_attribute(hid_t loc, const std::string& name,
                                          const std::string& ctx) {
  return read_numeric_attribute<double>(loc, name, H5T_NATIVE_DOUBLE, ctx);
}

std::vector<uint64_t> read_uint64_attribute(hid_t loc, const std::string& name,
                                            const std::string& ctx) {
  return read_numeric_attribute<uint64_t>(loc, name, H5T_NATIVE_UINT64, ctx);
}

double read_first_double(hid_t loc, const std::string& name, const std::string& ctx) {
  const std::vector<double> v = read_double_attribute(loc, name, ctx);
  if (v.empty()) throw Error(ctx + ": attribute " + in_quotes(name) + " is empty");
  return v[0];
}

double read_first_double_or(hid_t loc, const std::string& name, double fallback,
                            const std::string& ctx) {
  return has_attribute(loc, name) ? read_first_double(loc, name, ctx) : fallback;
}

std::vector<int64_t> read_int64_attribute(hid_t loc, const std::string& name,
                                          const std::string& ctx) {
  return read_numeric_attribute<int64_t>(loc, name, H5T_NATIVE_INT64, ctx);
}

std::vector<std::string> attribute_names(hid_t loc, const std::string& ctx) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->push_back(name);
    return 0;
  };
  hsize_t idx = 0;
  if (H5Aiterate2(loc, H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &names) < 0)
    throw Error(ctx + ": cannot list attributes");
  return names;
}

std::size_t attribute_element_size(hid_t loc, const std::string& name, const std::string& ctx) {
  Attribute a = open_attribute(loc, name, ctx);
  Datatype type(H5Aget_type(a.get()));
  return H5Tget_size(type.get());
}

std::string read_string_attribute(hid_t loc, const std::string& name, const std::string& ctx) {
  Attribute a = open_attribute(loc, name, ctx);
  Datatype type(H5Aget_type(a.get()));
  if (H5Tget_class(type.get()) != H5T_STRING)
    throw Error(ctx + ": attribute " + in_quotes(name) + " is not a string");
  if (H5Tis_variable_str(type.get()) > 0) {
    // The memory type takes the file's character set: HDF5 will not convert UTF-8 (what h5py
    // writes) to ASCII.
    Datatype mem(H5Tcopy(H5T_C_S1));
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
    char* text = nullptr;
    if (H5Aread(a.get(), mem.get(), &text) < 0)
      throw Error(ctx + ": reading attribute " + in_quotes(name) + " failed");
    std::string out = text ? text : "";
    H5free_memory(text);
    return out;
  }
  const std::size_t size = H5Tget_size(type.get());
  std::vector<char> buf(size + 1, '\0');
  if (H5Aread(a.get(), type.get(), buf.data()) < 0)
    throw Error(ctx + ": reading attribute " + in_quotes(name) + " failed");
  return std::string(buf.data(), strnlen(buf.data(), size));
}

// ------------------------------------------------------------------ datasets

Dataset create_rows(hid_t loc, const std::string& name, hid_t native_scalar, int components,
                    std::size_t n, const std::string& ctx) {
  const hsize_t dims[2] = {n, static_cast<hsize_t>(components)};
  Dataspace space(H5Screate_simple(components == 1 ? 1 : 2, dims, nullptr));
  Dataset d(H5Dcreate2(loc, name.c_str(), native_scalar, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT));
  if (!d.valid()) throw write_failure(ctx, "creating dataset " + in_quotes(name));
  return d;
}

void write_rows(hid_t loc, const std::string& name, hid_t native_scalar, int components,
                const void* data, std::size_t first, std::size_t count, const std::string& ctx) {
  if (count == 0) return;
  Dataset d(H5Dopen2(loc, name.c_str(), H5P_DEFAULT));
  if (!d.valid()) throw write_failure(ctx, "opening dataset " + in_quotes(name));
  Dataspace file_space(H5Dget_space(d.get()));
  const int rank = components == 1 ? 1 : 2;
  const hsize_t start[2] = {first, 0}, dims[2] = {count, static_cast<hsize_t>(components)};
  if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, dims, nullptr) < 0)
    throw write_failure(ctx, "selecting rows of dataset " + in_quotes(name));
  Dataspace memory(H5Screate_simple(rank, dims, nullptr));
  if (H5Dwrite(d.get(), native_scalar, memory.get(), file_space.get(), H5P_DEFAULT, data) < 0)
    throw write_failure(ctx, "writing rows of dataset " + in_quotes(name));
}

Dataset write_dataset(hid_t loc, const std::string& name, hid_t native_scalar, int components,
                      const void* data, std::size_t n, const std::string& ctx) {
  const hsize_t dims[2] = {n, static_cast<hsize_t>(components)};
  Dataspace space(H5Screate_simple(components == 1 ? 1 : 2, dims, nullptr));
  Dataset d(H5Dcreate2(loc, name.c_str(), native_scalar, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT));
  if (!d.valid()) throw write_failure(ctx, "creating dataset " + in_quotes(name));
  if (n > 0 && H5Dwrite(d.get(), native_scalar, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
    throw write_failure(ctx, "writing dataset " + in_quotes(name));
  return d;
}

DatasetInfo dataset_info(hid_t dataset, const std::string& name, const std::string& ctx) {
  Dataspace space(H5Dget_space(dataset));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) throw Error(ctx + ": cannot read the shape of dataset " + name);
  DatasetInfo info;
  info.shape.resize(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), info.shape.data(), nullptr);
  Datatype type(H5Dget_type(dataset));
  info.type_class = H5Tget_class(type.get());
  info.element_size = H5Tget_size(type.get());
  return info;
}

std::string shape_text(const std::vector<hsize_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? " x " : "") + std::to_string(shape[i]);
  return s + ")";
}

void check_rows(hid_t loc, const std::string& path, std::size_t n, const std::string& ctx,
                const std::string& count_source) {
  if (!has_link(loc, path)) throw Error(ctx + ": missing dataset " + path);
  Dataset d(H5Dopen2(loc, path.c_str(), H5P_DEFAULT));
  if (!d.valid()) throw Error(ctx + ": " + path + " is not a dataset");
  const DatasetInfo info = dataset_info(d.get(), path, ctx);
  if (info.shape.empty())
    throw Error(ctx + ": dataset " + path + " is a scalar; expected one row per particle");
  if (info.shape[0] != n)
    throw Error(ctx + ": dataset " + path + " has " + std::to_string(info.shape[0]) + " rows but " +
                count_source);
}

void read_rows(hid_t loc, const std::string& path, hid_t native_scalar, int components,
               bool floating, void* out, std::size_t n, const std::string& ctx,
               const std::string& count_source) {
  read_row_range(loc, path, native_scalar, components, floating, out, n, 0, n, ctx, count_source);
}

void read_row_range(hid_t loc, const std::string& path, hid_t native_scalar, int components,
                    bool floating, void* out, std::size_t n, std::size_t first, std::size_t count,
                    const std::string& ctx, const std::string& count_source) {
  if (!has_link(loc, path)) throw Error(ctx + ": missing dataset " + path);
  Dataset d(H5Dopen2(loc, path.c_str(), H5P_DEFAULT));
  if (!d.valid()) throw Error(ctx + ": " + path + " is not a dataset");
  const DatasetInfo info = dataset_info(d.get(), path, ctx);
  const bool shape_ok =
      components == 1 ? info.shape.size() == 1
                      : info.shape.size() == 2 && info.shape[1] == static_cast<hsize_t>(components);
  if (!shape_ok)
    throw Error(ctx + ": dataset " + path + " has shape " + shape_text(info.shape) + "; expected " +
                (components == 1 ? "(N)" : "(N x " + std::to_string(components) + ")"));
  if (info.shape[0] != n)
    throw Error(ctx + ": dataset " + path + " has " + std::to_string(info.shape[0]) + " rows but " +
                count_source);
  const H5T_class_t want = floating ? H5T_FLOAT : H5T_INTEGER;
  if (info.type_class != want)
    throw Error(ctx + ": dataset " + path + " must hold " +
                (floating ? "floating-point" : "integer") + " values");
  if (first + count > n)
    throw Error(ctx + ": rows " + std::to_string(first) + " to " + std::to_string(first + count) +
                " of dataset " + path + " asked for; it has " + std::to_string(n));
  if (count == 0) return;
  if (first == 0 && count == n) {
    if (H5Dread(d.get(), native_scalar, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
      throw Error(ctx + ": reading dataset " + path + " failed");
    return;
  }
  const hsize_t start[2] = {hsize_t(first), 0}, size[2] = {hsize_t(count), hsize_t(components)};
  const int rank = components == 1 ? 1 : 2;
  Dataspace file_space(H5Dget_space(d.get()));
  Dataspace mem_space(H5Screate_simple(rank, size, nullptr));
  if (!file_space.valid() || !mem_space.valid() ||
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, size, nullptr) < 0 ||
      H5Dread(d.get(), native_scalar, mem_space.get(), file_space.get(), H5P_DEFAULT, out) < 0)
    throw Error(ctx + ": reading rows " + std::to_string(first) + " to " +
                std::to_string(first + count) + " of dataset " + path + " failed");
}

std::vector<double> read_as_double(hid_t dataset, const std::string& name, const std::string& ctx) {
  const DatasetInfo info = dataset_info(dataset, name, ctx);
  if (info.type_class != H5T_INTEGER && info.type_class != H5T_FLOAT)
    throw Error(ctx + ": dataset " + name + " is not numeric");
  std::size_t count = 1;
  for (hsize_t d : info.shape) count *= static_cast<std::size_t>(d);
  std::vector<double> values(count);
  if (count > 0 &&
      H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    throw Error(ctx + ": reading dataset " + name + " failed");
  return values;
}

}  // namespace mpsph::h5
