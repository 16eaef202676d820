// Typed views of Python buffers, and array.array results, for the compiled modules (lm/native.cpp,
// ranker/native.cpp): the ranker takes and returns flat arrays without importing numpy, whose import alone
// was most of the time to rank one small file. Any object with the buffer protocol is accepted (array.array,
// bytes, memoryview, numpy arrays) when its items have the size asked for (or are bytes, reinterpreted).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace buffers {

namespace py = pybind11;

template <class T>
class View {
 public:
  View() = default;
  View(const py::buffer &b, const char *what) : info_(b.request()) {
    const size_t bytes = static_cast<size_t>(info_.size) * static_cast<size_t>(info_.itemsize);
    const bool raw = info_.itemsize == 1 && (info_.format == "B" || info_.format == "b" || info_.format == "c");
    if (!raw) {
      if (static_cast<size_t>(info_.itemsize) != sizeof(T))
        throw std::invalid_argument(std::string(what) + ": items of " + std::to_string(sizeof(T)) + " bytes expected");
      const char kind = info_.format.empty() ? '?' : info_.format.back();
      const bool floating = kind == 'd' || kind == 'f' || kind == 'e';
      if (floating != std::is_floating_point_v<T>)
        throw std::invalid_argument(std::string(what) + ": " + (std::is_floating_point_v<T> ? "floats" : "integers") +
                                    " expected, not format '" + info_.format + "'");
    }
    if (bytes % sizeof(T)) throw std::invalid_argument(std::string(what) + ": not a whole number of items");
    for (ssize_t d = static_cast<ssize_t>(info_.ndim) - 1, step = info_.itemsize; d >= 0; --d) {
      if (info_.shape[d] > 1 && info_.strides[d] != step)
        throw std::invalid_argument(std::string(what) + ": a contiguous buffer expected");
      step *= info_.shape[d];
    }
    data_ = static_cast<const T *>(info_.ptr);
    size_ = bytes / sizeof(T);
  }
  const T &operator[](size_t i) const { return data_[i]; }
  size_t size() const { return size_; }
  const T *data() const { return data_; }

 private:
  py::buffer_info info_;
  const T *data_ = nullptr;
  size_t size_ = 0;
};

template <class T>
constexpr const char *typecode() {
  if constexpr (std::is_same_v<T, double>) return "d";
  else if constexpr (std::is_same_v<T, int64_t>) return "q";
  else if constexpr (std::is_same_v<T, uint32_t>) return "I";
  else if constexpr (std::is_same_v<T, int8_t>) return "b";
  else if constexpr (std::is_same_v<T, uint8_t>) return "B";
  else static_assert(sizeof(T) == 0, "no array.array typecode");
}

// An array.array holding a copy of data[0 .. n).
template <class T>
py::object to_array(const T *data, size_t n) {
  // the array type, kept for the life of the process (a static py::object would be released after Python ends)
  static py::handle array = py::object(py::module_::import("array").attr("array")).release();
  py::object out = array(typecode<T>());
  if (n) out.attr("frombytes")(py::memoryview::from_memory(static_cast<const void *>(data), n * sizeof(T)));
  return out;
}

template <class T>
py::object to_array(const std::vector<T> &v) {
  return to_array(v.data(), v.size());
}

}  // namespace buffers
