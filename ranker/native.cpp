// ranker._native: the ranker's per-repair arithmetic in C++ (the KenLM part is lm._native).
//
// After the compiled rescoring, what was left per file was numpy calls on a few thousand rows: choosing
// each offset's best repair, ordering the offsets and printing them cost a quarter of ranking time.
// Built by `make setup`.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

template <class T>
using In = py::array_t<T, py::array::c_style | py::array::forcecast>;

// The style cache (ranker/cache.py): the n-gram probability of a gap symbol, 10 ** lm_log10, becomes the
// Dirichlet posterior (count + alpha * p) / (total + alpha), once per context level (columns of `count`
// and `total`); returns log10 of the last. It rounds exactly as Python's math did.
py::array_t<double> posterior(In<double> lm_log10, In<double> count, In<double> total, double alpha) {
  auto L = lm_log10.unchecked<1>();
  auto C = count.unchecked<2>();
  auto T = total.unchecked<2>();
  const ssize_t n = L.shape(0), levels = C.shape(1);
  if (C.shape(0) != n || T.shape(0) != n || T.shape(1) != levels)
    throw std::invalid_argument("posterior: count and total need one row per score, one column per level");
  py::array_t<double> out(n);
  auto O = out.mutable_unchecked<1>();
  for (ssize_t i = 0; i < n; ++i) {
    double p = std::pow(10.0, L(i));
    for (ssize_t j = 0; j < levels; ++j) p = (C(i, j) + alpha * p) / (T(i, j) + alpha);
    O(i) = std::log10(p);
  }
  return out;
}

// Each offset's best repair (highest gain; ties: the first row), the offsets best first (ties: lower
// offset). Returns those repairs' rows.
py::array_t<int64_t> best_repairs(In<int64_t> offset, In<double> gain) {
  auto O = offset.unchecked<1>();
  auto G = gain.unchecked<1>();
  const ssize_t n = O.shape(0);
  if (G.shape(0) != n) throw std::invalid_argument("best_repairs: one gain per offset");
  std::vector<int64_t> rows(n);
  std::iota(rows.begin(), rows.end(), 0);
  std::sort(rows.begin(), rows.end(), [&](int64_t a, int64_t b) {
    if (O(a) != O(b)) return O(a) < O(b);
    if (G(a) != G(b)) return G(a) > G(b);
    return a < b;
  });
  std::vector<int64_t> best;
  best.reserve(n);
  for (ssize_t i = 0; i < n; ++i)
    if (i == 0 || O(rows[i]) != O(rows[i - 1])) best.push_back(rows[i]);
  std::stable_sort(best.begin(), best.end(), [&](int64_t a, int64_t b) { return G(a) > G(b); });
  py::array_t<int64_t> out(best.size());
  std::copy(best.begin(), best.end(), out.mutable_data());
  return out;
}

// The CodRep 2019 ranking of a file of `length` characters: the candidates in order, then every other
// offset 1..length ascending; at most `limit` of them (-1: all), space-separated.
py::str format_ranking(In<int64_t> candidates, int64_t length, int64_t limit) {
  auto C = candidates.unchecked<1>();
  if (limit < 0 || limit > length) limit = length;
  std::vector<char> seen(length + 1, 0);
  std::string out;
  out.reserve(limit * 7);
  char digits[24];
  int64_t written = 0;
  auto put = [&](int64_t offset) {
    if (written++) out.push_back(' ');
    auto end = std::to_chars(digits, digits + sizeof digits, offset).ptr;
    out.append(digits, end);
  };
  for (ssize_t i = 0; i < C.shape(0) && written < limit; ++i) {
    const int64_t o = C(i);
    if (o < 1 || o > length || seen[o]) throw std::invalid_argument("format_ranking: bad candidate offset");
    seen[o] = 1;
    put(o);
  }
  for (int64_t o = 1; o <= length && written < limit; ++o)
    if (!seen[o]) put(o);
  return py::str(out);
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The ranker's per-repair arithmetic (see ranker/native.cpp)";
  m.def("posterior", &posterior, py::arg("lm_log10"), py::arg("count"), py::arg("total"), py::arg("alpha"));
  m.def("best_repairs", &best_repairs, py::arg("offset"), py::arg("gain"));
  m.def("format_ranking", &format_ranking, py::arg("candidates"), py::arg("length"), py::arg("limit") = -1);
}
