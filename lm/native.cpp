// lm._native: the ranker's hot loop in C++ against KenLM's own API.
//
// Ranking a file scores about 2,000 repairs, each a handful of KenLM lookups; made one by one from
// Python, the call overhead was several times the lookups themselves. Here a file's symbol stream is
// scored once (keeping the KenLM state before every symbol, compactly), then every repair of a batch is rescored
// in one call: from the state before the changed symbol until the state after a symbol equals the
// unrepaired stream's state, since from there on every score is the same. Like changes in like contexts
// are rescored once per file (Segments, below).
//
// A Mixture is one model, or a general model interpolated with a project model:
// P = (1 - w) P_general + w P_project, each model keeping its own state. Scores are log10.
// Built by `make setup` against the kenlm source package with KENLM_MAX_ORDER from lm/model.py (as the kenlm module).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "lm/model.hh"
#include "lm/state.hh"

namespace py = pybind11;
using lm::WordIndex;
using lm::ngram::State;

namespace {

constexpr int kMaxModels = 2;

// The stream's states and scores. The KenLM state before symbol k is kept compactly: its words are the
// symbols before k, most recent first (<s> before the first), so only its length and backoffs are stored
// (a State per symbol, sized for KENLM_MAX_ORDER, was 76 bytes: most of a large file's memory).
struct Scored {
  int models = 1;
  std::vector<double> scores;
  std::vector<WordIndex> ids[kMaxModels];
  std::vector<unsigned char> lengths[kMaxModels];   // per symbol, one more at the end
  std::vector<float> backoffs[kMaxModels];          // `stride` per symbol
  size_t stride[kMaxModels] = {1, 1};
  WordIndex bos[kMaxModels] = {0, 0};

  void Keep(size_t j, size_t k, const State &state) {
    lengths[j][k] = state.length;
    std::copy(state.backoff, state.backoff + state.length, backoffs[j].begin() + k * stride[j]);
  }

  // The KenLM state before symbol k under model j.
  void Get(size_t j, int64_t k, State *out) const {
    const unsigned char length = lengths[j][k];
    out->length = length;
    for (unsigned char i = 0; i < length; ++i) out->words[i] = Word(j, k - 1 - i);
    std::copy(backoffs[j].begin() + k * stride[j], backoffs[j].begin() + k * stride[j] + length, out->backoff);
  }

  // Whether `state` is (has the words of) the state before symbol k under model j.
  bool Same(size_t j, int64_t k, const State &state) const {
    if (state.length != lengths[j][k]) return false;
    for (unsigned char i = 0; i < state.length; ++i)
      if (state.words[i] != Word(j, k - 1 - i)) return false;
    return true;
  }

 private:
  WordIndex Word(size_t j, int64_t at) const { return at >= 0 ? ids[j][at] : bos[j]; }
};

class Mixture {
 public:
  Mixture(const std::string &general, const std::string &project, double weight)
      : weight_(weight) {
    models_.emplace_back(lm::ngram::LoadVirtual(general.c_str()));
    if (!project.empty() && weight > 0) models_.emplace_back(lm::ngram::LoadVirtual(project.c_str()));
  }

  int order() const { return models_[0]->Order(); }
  int models() const { return static_cast<int>(models_.size()); }

  // KenLM word ids of `symbols`, one row per symbol, one column per model.
  py::array_t<uint32_t> index(const std::vector<std::string> &symbols) const {
    const size_t m = models_.size();
    py::array_t<uint32_t> out({symbols.size(), m});
    auto o = out.mutable_unchecked<2>();
    for (size_t j = 0; j < m; ++j) {
      const lm::base::Vocabulary &vocab = models_[j]->BaseVocabulary();
      for (size_t i = 0; i < symbols.size(); ++i) o(i, j) = vocab.Index(StringPiece(symbols[i]));
    }
    return out;
  }

  // Score a whole stream (ids from index(), '</s>' included as the last symbol).
  std::shared_ptr<Scored> score(py::array_t<uint32_t, py::array::c_style | py::array::forcecast> ids) const {
    auto in = ids.unchecked<2>();
    const size_t n = in.shape(0), m = models_.size();
    if (static_cast<size_t>(in.shape(1)) != m) throw std::invalid_argument("ids: one column per model");
    auto scored = std::make_shared<Scored>();
    scored->models = static_cast<int>(m);
    State state[2][kMaxModels];
    for (size_t j = 0; j < m; ++j) {
      // a state never holds more words than the model's order - 1 (nor <s> and more before it)
      scored->stride[j] = std::max<size_t>(1, models_[j]->Order() - 1);
      scored->lengths[j].resize(n + 1);
      scored->backoffs[j].resize((n + 1) * scored->stride[j]);
      scored->ids[j].resize(n);
      for (size_t k = 0; k < n; ++k) scored->ids[j][k] = in(k, j);
      scored->bos[j] = models_[j]->BaseVocabulary().BeginSentence();
      models_[j]->BeginSentenceWrite(&state[0][j]);
      scored->Keep(j, 0, state[0][j]);
    }
    scored->scores.resize(n);
    py::gil_scoped_release unlocked;
    int cur = 0;
    for (size_t k = 0; k < n; ++k) {
      const State *from[kMaxModels];
      State *to[kMaxModels];
      WordIndex w[kMaxModels];
      for (size_t j = 0; j < m; ++j) {
        from[j] = &state[cur][j];
        to[j] = &state[cur ^ 1][j];
        w[j] = scored->ids[j][k];
      }
      scored->scores[k] = Step(from, w, to);
      cur ^= 1;
      for (size_t j = 0; j < m; ++j) scored->Keep(j, k + 1, state[cur][j]);
    }
    return scored;
  }

  // Rescore repairs: repair r changes symbol k1[r] to ids w1[r] and, when k2[r] >= 0, symbol k2[r] > k1[r]
  // to w2[r]. Returns (log10 gain of the repaired stream, log10 score of the changed symbol k1).
  py::tuple rescore(const Scored &scored,
                    py::array_t<int64_t, py::array::c_style | py::array::forcecast> k1,
                    py::array_t<uint32_t, py::array::c_style | py::array::forcecast> w1,
                    py::array_t<int64_t, py::array::c_style | py::array::forcecast> k2,
                    py::array_t<uint32_t, py::array::c_style | py::array::forcecast> w2) const {
    const size_t m = models_.size();
    auto K1 = k1.unchecked<1>();
    auto K2 = k2.unchecked<1>();
    auto W1 = w1.unchecked<2>();
    auto W2 = w2.unchecked<2>();
    const ssize_t count = K1.shape(0);
    if (K2.shape(0) != count || W1.shape(0) != count || W2.shape(0) != count ||
        static_cast<size_t>(W1.shape(1)) != m || static_cast<size_t>(W2.shape(1)) != m)
      throw std::invalid_argument("rescore: arrays of one length, one id column per model");
    if (scored.models != static_cast<int>(m)) throw std::invalid_argument("rescore: scored by another mixture");
    const int64_t end = static_cast<int64_t>(scored.scores.size());
    for (ssize_t r = 0; r < count; ++r)
      if (K1(r) < 0 || K1(r) >= end || K2(r) >= end || (K2(r) >= 0 && K2(r) <= K1(r)))
        throw std::out_of_range("rescore: symbol index out of range");
    py::array_t<double> delta(count), first(count);
    auto D = delta.mutable_unchecked<1>();
    auto F = first.mutable_unchecked<1>();
    {
      py::gil_scoped_release unlocked;
      Segments segments(*this, scored, count);
      for (ssize_t r = 0; r < count; ++r) {
        const int64_t k = K1(r), kk = K2(r);
        WordIndex a[kMaxModels], b[kMaxModels];
        for (size_t j = 0; j < m; ++j) a[j] = W1(r, j), b[j] = W2(r, j);
        const Segment &one = segments.Get(k, a);
        F(r) = one.first;
        double d = 0;
        if (kk < 0 || k + static_cast<int64_t>(one.length) <= kk) {
          // the second change (if any) comes after the first one's effect has ended
          for (size_t t = 0; t < one.length; ++t) d += segments.terms[one.terms + t];
          if (kk >= 0) {
            const Segment &two = segments.Get(kk, b);
            for (size_t t = 0; t < two.length; ++t) d += segments.terms[two.terms + t];
          }
        } else {   // the two changes' effects overlap: one segment with both
          const Segment &both = segments.Get(k, a, kk, b);
          for (size_t t = 0; t < both.length; ++t) d += segments.terms[both.terms + t];
        }
        D(r) = d;
      }
    }
    return py::make_tuple(delta, first);
  }

 private:
  static uint64_t Mix(uint64_t h, uint64_t x) { return (h ^ x) * 0x9E3779B97F4A7C15ULL; }

  // The effect of changing one symbol: the score differences from the change until the state rejoins the
  // observed stream's (or the stream ends). It depends only on the new word, the words of the state before
  // it and the order-1 symbols after it, so like changes in like contexts (a file repeats its lines'
  // shapes) are rescored once per file, and repeats replay the differences in the same order: the same sum.
  struct Segment {
    int64_t k, kk, lo, hi;       // the change(s), and the window [lo, hi) the effect depends on
    WordIndex w[kMaxModels], w2[kMaxModels];
    double first;                // the changed symbol's score
    size_t terms, length;        // its differences: terms[terms .. terms + length)
  };

  class Segments {
   public:
    Segments(const Mixture &mixture, const Scored &scored, size_t rows)
        : mixture_(mixture), scored_(scored), reach_(mixture.MaxOrder() - 1),
          end_(static_cast<int64_t>(scored.scores.size())) {
      size_t slots = 16;
      while (slots < 2 * rows) slots *= 2;
      slots_.assign(slots, -1);   // grown when half full
    }

    // The effect of changing symbol k to w (and, when kk >= 0, symbol kk to w2 on the way).
    const Segment &Get(int64_t k, const WordIndex *w, int64_t kk = -1, const WordIndex *w2 = nullptr) {
      const size_t m = mixture_.models_.size();
      // Before k, only the words of the observed state there matter (KenLM keeps the longest suffix of
      // the history that a longer n-gram could extend, a function of those words alone).
      int64_t context = 0;
      for (size_t j = 0; j < m; ++j) context = std::max<int64_t>(context, scored_.lengths[j][k]);
      Segment probe{k, kk, k - context, std::min(end_, (kk >= 0 ? kk : k) + reach_ + 1), {0, 0}, {0, 0}, 0, 0, 0};
      for (size_t j = 0; j < m; ++j) {
        probe.w[j] = w[j];
        if (kk >= 0) probe.w2[j] = w2[j];
      }
      uint64_t h = Mix(Mix(Mix(0, probe.k - probe.lo), probe.hi - probe.k), kk >= 0 ? kk - k : 0);
      for (size_t j = 0; j < m; ++j) {
        h = Mix(Mix(h, probe.w[j]), probe.w2[j]);
        for (int64_t i = probe.lo; i < probe.hi; ++i) h = Mix(h, scored_.ids[j][i]);
      }
      h ^= h >> 29;
      size_t slot = h & (slots_.size() - 1);
      for (; slots_[slot] >= 0; slot = (slot + 1) & (slots_.size() - 1)) {
        const size_t q = slots_[slot];
        if (hashes_[q] == h && Same(list_[q], probe)) return list_[q];
      }
      probe.terms = terms.size();
      probe.first = mixture_.Run(scored_, k, w, kk, w2, [&](double term) { terms.push_back(term); });
      probe.length = terms.size() - probe.terms;
      slots_[slot] = static_cast<int64_t>(list_.size());
      list_.push_back(probe);
      hashes_.push_back(h);
      if (list_.size() * 2 > slots_.size()) Grow();
      return list_.back();
    }

    std::vector<double> terms;

   private:
    void Grow() {
      slots_.assign(slots_.size() * 2, -1);
      for (size_t q = 0; q < list_.size(); ++q) {
        size_t slot = hashes_[q] & (slots_.size() - 1);
        while (slots_[slot] >= 0) slot = (slot + 1) & (slots_.size() - 1);
        slots_[slot] = static_cast<int64_t>(q);
      }
    }

    bool Same(const Segment &a, const Segment &b) const {
      if (a.k - a.lo != b.k - b.lo || a.hi - a.k != b.hi - b.k || (a.kk < 0) != (b.kk < 0) ||
          (a.kk >= 0 && a.kk - a.k != b.kk - b.k) || !std::equal(a.w, a.w + kMaxModels, b.w) ||
          !std::equal(a.w2, a.w2 + kMaxModels, b.w2))
        return false;
      for (size_t j = 0; j < mixture_.models_.size(); ++j) {
        const auto &ids = scored_.ids[j];
        if (!std::equal(ids.begin() + a.lo, ids.begin() + a.hi, ids.begin() + b.lo)) return false;
      }
      return true;
    }

    const Mixture &mixture_;
    const Scored &scored_;
    const int64_t reach_, end_;
    std::vector<int64_t> slots_;   // open addressing: index into list_, or -1
    std::deque<Segment> list_;     // a deque: references handed out stay valid as it grows
    std::vector<uint64_t> hashes_;
  };

  int64_t MaxOrder() const {
    int64_t order = 1;
    for (const auto &model : models_) order = std::max<int64_t>(order, model->Order());
    return order;
  }

  // Scores the stream from symbol k changed to w1 (and kk to w2 on the way, when kk >= 0) until the state
  // rejoins the observed stream's after the last change, handing each symbol's score difference to `add`
  // in order. Returns the changed symbol's score.
  template <class Add>
  double Run(const Scored &scored, int64_t k, const WordIndex *w1, const int64_t kk, const WordIndex *w2,
             Add add) const {
    const size_t m = models_.size();
    const int64_t end = static_cast<int64_t>(scored.scores.size());
    State buf[2][kMaxModels];   // the repaired stream's state after the last symbol, and before it
    State observed[kMaxModels];  // the observed stream's state where the repaired one rejoins it
    const State *from[kMaxModels];
    State *to[kMaxModels];
    WordIndex w[kMaxModels];
    int cur = 0;
    for (size_t j = 0; j < m; ++j) {
      scored.Get(j, k, &observed[j]);
      from[j] = &observed[j];
      to[j] = &buf[cur][j];
      w[j] = w1[j];
    }
    const double first = Step(from, w, to);
    add(first - scored.scores[k]);
    while (true) {
      ++k;
      if (SameAt(buf[cur], scored, k)) {
        // same context as the observed stream: scores agree until the next changed symbol
        if (k > kk) break;
        k = kk;
        for (size_t j = 0; j < m; ++j) {
          scored.Get(j, k, &observed[j]);
          from[j] = &observed[j];
        }
      } else {
        for (size_t j = 0; j < m; ++j) from[j] = &buf[cur][j];
      }
      if (k >= end) break;
      cur ^= 1;
      for (size_t j = 0; j < m; ++j) {
        to[j] = &buf[cur][j];
        w[j] = k == kk ? w2[j] : scored.ids[j][k];
      }
      const double s = Step(from, w, to);
      add(s - scored.scores[k]);
    }
    return first;
  }

  // log10 P(w | from) under the mixture; the next states go to `to`. (Remembering steps in a hash map,
  // though two thirds of a file's steps repeat, was twice as slow as asking KenLM again.)
  double Step(const State *const *from, const WordIndex *w, State *const *to) const {
    const float g = models_[0]->BaseScore(from[0], w[0], to[0]);
    if (models_.size() == 1) return g;
    const float p = models_[1]->BaseScore(from[1], w[1], to[1]);
    // the same arithmetic as Python's math.log10((1 - w) * 10 ** g + w * 10 ** p)
    return std::log10((1.0 - weight_) * std::pow(10.0, static_cast<double>(g)) +
                      weight_ * std::pow(10.0, static_cast<double>(p)));
  }

  bool SameAt(const State *out, const Scored &scored, int64_t k) const {
    for (size_t j = 0; j < models_.size(); ++j)
      if (!scored.Same(j, k, out[j])) return false;
    return true;
  }

  std::vector<std::unique_ptr<lm::base::Model>> models_;
  double weight_;
};

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "KenLM scoring and batched repair rescoring for the ranker (see lm/native.cpp)";
  py::class_<Scored, std::shared_ptr<Scored>>(m, "Scored")
      .def_property_readonly("scores", [](const Scored &s) {
        return py::array_t<double>(s.scores.size(), s.scores.data());
      })
      .def("__len__", [](const Scored &s) { return s.scores.size(); });
  py::class_<Mixture>(m, "Mixture")
      .def(py::init<const std::string &, const std::string &, double>(), py::arg("general"),
           py::arg("project") = "", py::arg("weight") = 0.0)
      .def_property_readonly("order", &Mixture::order)
      .def_property_readonly("models", &Mixture::models)
      .def("index", &Mixture::index, py::arg("symbols"))
      .def("score", &Mixture::score, py::arg("ids"))
      .def("rescore", &Mixture::rescore, py::arg("scored"), py::arg("k1"), py::arg("w1"), py::arg("k2"),
           py::arg("w2"));
}
