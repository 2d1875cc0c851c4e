// Small 3-vector used by the pure physics functions (host and device).
#pragma once

#include <cmath>

#include "core/annotation.hpp"

namespace mpsph {

template <class T>
struct Vec3 {
  T x, y, z;

  MPSPH_HD Vec3& operator+=(const Vec3& b) {
    x += b.x, y += b.y, z += b.z;
    return *this;
  }
  MPSPH_HD Vec3& operator-=(const Vec3& b) {
    x -= b.x, y -= b.y, z -= b.z;
    return *this;
  }
  MPSPH_HD Vec3& operator*=(T s) {
    x *= s, y *= s, z *= s;
    return *this;
  }
};

template <class T>
MPSPH_HD Vec3<T> operator+(Vec3<T> a, const Vec3<T>& b) {
  return a += b;
}
template <class T>
MPSPH_HD Vec3<T> operator-(Vec3<T> a, const Vec3<T>& b) {
  return a -= b;
}
template <class T>
MPSPH_HD Vec3<T> operator-(const Vec3<T>& a) {
  return {-a.x, -a.y, -a.z};
}
template <class T>
MPSPH_HD Vec3<T> operator*(T s, Vec3<T> a) {
  return a *= s;
}
template <class T>
MPSPH_HD Vec3<T> operator*(Vec3<T> a, T s) {
  return a *= s;
}
template <class T>
MPSPH_HD T dot(const Vec3<T>& a, const Vec3<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class T>
MPSPH_HD Vec3<T> cross(const Vec3<T>& a, const Vec3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T>
MPSPH_HD T norm2(const Vec3<T>& a) {
  return dot(a, a);
}
template <class T>
MPSPH_HD T norm(const Vec3<T>& a) {
  return std::sqrt(dot(a, a));
}
template <class To, class From>
MPSPH_HD Vec3<To> vec_cast(const Vec3<From>& a) {
  return {To(a.x), To(a.y), To(a.z)};
}

using Vec3d = Vec3<double>;
using Vec3f = Vec3<float>;

}  // namespace mpsph
