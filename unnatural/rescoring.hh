// The rescoring's C interface: lm/native.cpp exports it as the capsule `lm._native.rescoring`, and
// ranker/native.cpp's FileRanker runs a file's bounds and rounds of rescoring through it, in one call from
// Python. (Through pybind11, each round was a call to each module with arrays in and out: a dozen crossings and
// their copies a file.) The functions after `open` do not touch Python objects, so they run without the GIL.
#pragma once

#include <Python.h>

#include <cstddef>
#include <cstdint>

namespace rescoring {

constexpr const char *kCapsule = "lm._native.rescoring";

struct Api {
  // A file's session: its scored stream (an lm._native.Scored) under `mixture` (the lm._native.Mixture that
  // scored it); nullptr with a Python error set when they are not. The GIL must be held.
  void *(*open)(PyObject *mixture, PyObject *scored);
  void (*close)(void *session);
  // A rescorer of `count` repairs of the session's stream (lm._native's Rescorer: repair r changes symbol k1[r]
  // to w1[r], and symbol k2[r] to w2[r] when k2[r] >= 0; ids one per model, row-major); nullptr with the reason
  // in *error when one is out of range.
  void *(*make)(void *session, const int64_t *k1, const uint32_t *w1, const int64_t *k2, const uint32_t *w2,
                size_t count, const char **error);
  void (*free)(void *rescorer);
  // Rescorer.bounds: per repair, its changed symbol's log10 score and an upper bound of its log10 gain.
  void (*bounds)(void *rescorer, double *first, double *bound);
  // Rescorer.rescore of `count` repairs `rows`, each with its target: their log10 gains (-inf: short of it).
  void (*rescore)(void *rescorer, const int64_t *rows, const double *targets, size_t count, double *delta);
};

}  // namespace rescoring
