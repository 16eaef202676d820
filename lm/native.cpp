// lm._native: the ranker's hot loop in C++ against KenLM's own API.
//
// Ranking a file scores about 2,000 repairs, each a handful of KenLM lookups; made one by one from
// Python, the call overhead was several times the lookups themselves. Here a file's symbol stream is
// scored once (keeping the KenLM state before every symbol, compactly), then the repairs of a batch are
// rescored together: from the state before the changed symbol until the state after a symbol equals the
// unrepaired stream's state, since from there on every score is the same. Like changes in like contexts
// are rescored once per batch (Segments, below).
//
// Most repairs cannot win, and the ranker rescores in full only those that can (ranker/rank.py). For that a
// Rescorer first bounds every repair's gain cheaply: the changed symbol's own score is one lookup, and each
// symbol after it within the model's reach can at best score its ceiling, its word's highest log10 probability
// in any context that ends with the two words before it (read from lmplz's ARPA when the model is built, and
// kept beside it: write_ceilings; 0 without them), so it gains at most its ceiling less its observed score.
//
// A Mixture is one model, or a general model interpolated with a project model:
// P = (1 - w) P_general + w P_project, each model keeping its own state. Scores are log10.
// Arrays come and go as Python buffers and array.array (unnatural/buffers.hh): the ranker needs no numpy.
// Built by `make setup` against the kenlm source package with KENLM_MAX_ORDER from lm/model.py (as the kenlm module).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../unnatural/buffers.hh"
#include "../unnatural/rescoring.hh"
#include "lm/model.hh"
#include "lm/state.hh"

namespace py = pybind11;
using buffers::View;
using buffers::to_array;
using lm::WordIndex;
using lm::ngram::State;

namespace {

constexpr int kMaxModels = 2;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr const char *kCeilingsSuffix = ".ceilings";   // lm/model.py's ceilings_path: beside the model
// The ceilings file's records (Mixture::ReadCeilings, write_ceilings).
struct CeilingWord {
  uint32_t id;
  float prob;
  uint32_t length;   // the word's text follows
};
struct CeilingEntry {
  uint64_t key;
  float value;
  uint32_t unused;
};

// The stream's states and scores. The KenLM state before symbol k is kept compactly: its words are the
// symbols before k, most recent first (<s> before the first), so only its length and backoffs are stored
// (a State per symbol, sized for KENLM_MAX_ORDER, was 76 bytes: most of a large file's memory).
struct Scored {
  int models = 1;
  std::vector<double> scores;
  std::vector<double> slack;   // per symbol: its ceiling after the symbol before it (Mixture::Ceiling) less its score
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

  // The word at `at` under model j (<s> before the first symbol).
  WordIndex Word(size_t j, int64_t at) const { return at >= 0 ? ids[j][at] : bos[j]; }

  // The longest state before symbol k over the models: the words before k its next score depends on.
  int64_t Context(int64_t k) const {
    int64_t context = 0;
    for (int j = 0; j < models; ++j) context = std::max<int64_t>(context, lengths[j][k]);
    return context;
  }
};

// Whether n ids agree (std::equal of a few ids compiled to a call to memcmp, in the memos' inner loops).
inline bool SameIds(const WordIndex *a, const WordIndex *b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

uint64_t Mix(uint64_t h, uint64_t x) { return (h ^ x) * 0x9E3779B97F4A7C15ULL; }

// Open addressing from a hash to an entry index, for the memos below (entries live in the caller's list).
class Slots {
 public:
  explicit Slots(size_t expected) {
    size_t n = 16;
    while (n < 2 * expected) n *= 2;
    slots_.assign(n, -1);
  }
  // The slot where `h` is, or the empty slot where it would go; `same(q)` tells whether entry q matches.
  template <class Same>
  size_t Find(uint64_t h, Same same) const {
    size_t slot = h & (slots_.size() - 1);
    for (; slots_[slot] >= 0; slot = (slot + 1) & (slots_.size() - 1))
      if (hashes_[slots_[slot]] == h && same(slots_[slot])) break;
    return slot;
  }
  int64_t At(size_t slot) const { return slots_[slot]; }
  void Put(size_t slot, uint64_t h) {
    slots_[slot] = static_cast<int64_t>(hashes_.size());
    hashes_.push_back(h);
    if (hashes_.size() * 2 > slots_.size()) Grow();
  }

 private:
  void Grow() {
    slots_.assign(slots_.size() * 2, -1);
    for (size_t q = 0; q < hashes_.size(); ++q) {
      size_t slot = hashes_[q] & (slots_.size() - 1);
      while (slots_[slot] >= 0) slot = (slot + 1) & (slots_.size() - 1);
      slots_[slot] = static_cast<int64_t>(q);
    }
  }
  std::vector<int64_t> slots_;   // index into hashes_ (and the caller's entries), or -1
  std::vector<uint64_t> hashes_;
};

// A list that never moves what it holds (references handed out stay valid as it grows), in blocks of many
// entries: std::deque's blocks of 512 bytes held two of the rescoring's Firsts each, a malloc every second one.
template <class T>
class Blocks {
 public:
  T &emplace_back() {
    if (size_ == blocks_.size() * kBlock) blocks_.emplace_back(new T[kBlock]);
    T &out = blocks_.back()[size_ % kBlock];
    out = T{};
    ++size_;
    return out;
  }
  void push_back(const T &item) { emplace_back() = item; }
  T &back() { return (*this)[size_ - 1]; }
  T &operator[](size_t i) { return blocks_[i / kBlock][i % kBlock]; }
  const T &operator[](size_t i) const { return blocks_[i / kBlock][i % kBlock]; }

 private:
  static constexpr size_t kBlock = 256;
  std::vector<std::unique_ptr<T[]>> blocks_;
  size_t size_ = 0;
};

class Rescorer;

class Mixture {
 public:
  // `ceilings`: per model, the file `bin/build-lm` wrote beside it (ceilings_path in lm/model.py), or "" (none:
  // every word's ceiling is log10 1 = 0).
  Mixture(const std::string &general, const std::string &project, double weight,
          const std::vector<std::string> &ceilings = {})
      : weight_(weight) {
    models_.emplace_back(lm::ngram::LoadVirtual(general.c_str()));
    if (!project.empty() && weight > 0) models_.emplace_back(lm::ngram::LoadVirtual(project.c_str()));
    for (size_t j = 0; j < models_.size(); ++j) probing_[j] = dynamic_cast<const lm::ngram::ProbingModel *>(models_[j].get());
    if (ceilings.size() > models_.size()) throw std::invalid_argument("Mixture: one ceilings file per model at most");
    for (size_t j = 0; j < ceilings.size(); ++j)
      if (!ceilings[j].empty()) ReadCeilings(j, ceilings[j]);
  }

  // Word w's ceiling after the words a, b (ids per model) under the mixture: the mix of each model's highest
  // log10 probability of w in any context that ends with a b (0 where a model has no ceilings), at least its
  // score in every such context (Step's arithmetic is monotone).
  double Ceiling(const WordIndex *a, const WordIndex *b, const WordIndex *w) const {
    const double g = ModelCeiling(0, a[0], b[0], w[0]);
    if (models_.size() == 1) return g;
    const double p = ModelCeiling(1, a[1], b[1], w[1]);
    return std::log10((1.0 - weight_) * std::pow(10.0, g) + weight_ * std::pow(10.0, p));
  }

  int order() const { return models_[0]->Order(); }
  int models() const { return static_cast<int>(models_.size()); }

  // KenLM word ids of `symbols`, one row per symbol, one column per model (an array.array, row-major).
  py::object index(const std::vector<std::string> &symbols) const {
    const size_t m = models_.size();
    std::vector<uint32_t> out(symbols.size() * m);
    for (size_t j = 0; j < m; ++j) {
      const lm::base::Vocabulary &vocab = models_[j]->BaseVocabulary();
      for (size_t i = 0; i < symbols.size(); ++i) out[i * m + j] = vocab.Index(StringPiece(symbols[i]));
    }
    return to_array(out);
  }

  // Score a whole stream (ids from index(), '</s>' included as the last symbol).
  std::shared_ptr<Scored> score(const py::buffer &ids_buffer) const {
    View<uint32_t> in(ids_buffer, "ids");
    const size_t m = models_.size();
    if (in.size() % m) throw std::invalid_argument("ids: one column per model");
    const size_t n = in.size() / m;
    auto scored = std::make_shared<Scored>();
    scored->models = static_cast<int>(m);
    State state[2][kMaxModels];
    for (size_t j = 0; j < m; ++j) {
      // a state never holds more words than the model's order - 1 (nor <s> and more before it)
      scored->stride[j] = std::max<size_t>(1, models_[j]->Order() - 1);
      scored->lengths[j].resize(n + 1);
      scored->backoffs[j].resize((n + 1) * scored->stride[j]);
      scored->ids[j].resize(n);
      for (size_t k = 0; k < n; ++k) scored->ids[j][k] = in[k * m + j];
      scored->bos[j] = models_[j]->BaseVocabulary().BeginSentence();
      models_[j]->BeginSentenceWrite(&state[0][j]);
      scored->Keep(j, 0, state[0][j]);
    }
    scored->scores.resize(n);
    scored->slack.resize(n);
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
      WordIndex a[kMaxModels], b[kMaxModels];
      for (size_t j = 0; j < m; ++j) {
        a[j] = scored->Word(j, static_cast<int64_t>(k) - 2);
        b[j] = scored->Word(j, static_cast<int64_t>(k) - 1);
      }
      scored->slack[k] = std::max(0.0, Ceiling(a, b, w) - scored->scores[k]);
      cur ^= 1;
      for (size_t j = 0; j < m; ++j) scored->Keep(j, k + 1, state[cur][j]);
    }
    return scored;
  }

  // Rescore repairs: repair r changes symbol k1[r] to ids w1[r] and, when k2[r] >= 0, symbol k2[r] > k1[r]
  // to w2[r]. Returns (log10 gain of the repaired stream, log10 score of the changed symbol k1).
  py::tuple rescore(std::shared_ptr<Scored> scored, const py::buffer &k1, const py::buffer &w1, const py::buffer &k2,
                    const py::buffer &w2) const;

  int64_t MaxOrder() const {
    int64_t order = 1;
    for (const auto &model : models_) order = std::max<int64_t>(order, model->Order());
    return order;
  }

  // Scores the stream from symbol k changed to w1 (and kk to w2 on the way, when kk >= 0) until the state
  // rejoins the observed stream's after the last change, handing each symbol's score difference and position
  // to `add` in order; `add` returning false stops the run there. Returns the changed symbol's score.
  // `start`, when given, is the state after the changed symbol, whose score is `start_score` (First's).
  template <class Add>
  double Run(const Scored &scored, int64_t k, const WordIndex *w1, const int64_t kk, const WordIndex *w2,
             Add add, const State *start = nullptr, double start_score = 0) const {
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
    double first = start_score;
    if (start)
      std::copy(start, start + m, buf[cur]);
    else
      first = Step(from, w, to);
    if (!add(first - scored.scores[k], k)) return first;
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
      if (!add(s - scored.scores[k], k)) break;
    }
    return first;
  }

  // The changed symbol's score alone, the first step of Run; the states after it go to `out`.
  double First(const Scored &scored, int64_t k, const WordIndex *w1, State *out) const {
    const size_t m = models_.size();
    State observed[kMaxModels];
    const State *from[kMaxModels];
    State *to[kMaxModels];
    for (size_t j = 0; j < m; ++j) {
      scored.Get(j, k, &observed[j]);
      from[j] = &observed[j];
      to[j] = &out[j];
    }
    return Step(from, w1, to);
  }

 private:
  // A context ending with a b has the n-gram of its longest suffix that has one with w: one ending "a b w",
  // whose probability is at most the triple's ceiling, else "b w" or w alone, whose backoffs make it at most
  // their own probability (lmplz's backoffs are at most 1; write_ceilings checks). Word ids are packed 21 bits
  // each.
  static uint64_t Key(WordIndex a, WordIndex b, WordIndex w) {
    return (static_cast<uint64_t>(a) << 42) | (static_cast<uint64_t>(b) << 21) | w;
  }
  double ModelCeiling(size_t j, WordIndex a, WordIndex b, WordIndex w) const {
    const Ceilings &c = ceilings_[j];
    if (c.unigrams.empty()) return 0.0;
    float value;
    if (c.triples.Find(Key(a, b, w), &value) || c.bigrams.Find(Key(0, b, w), &value)) return value;
    return w < c.unigrams.size() ? c.unigrams[w] : 0.0;
  }

  // The file of ceilings write_ceilings made from lmplz's ARPA, if it is this model's: a line naming the model's
  // size in bytes, then (binary) the counts of words, bigrams and triples; each word (its id, unigram
  // probability and text); the bigrams' probabilities and the triples' ceilings (at least their bigram's, or
  // their word's), by Key. Another model's (another size, or a word whose id is not this model's) is ignored.
  // Binary, so that loading it costs start-up about 1 ms (as text, 8 ms).
  void ReadCeilings(size_t j, const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::string line;
    if (!in || !std::getline(in, line)) return;
    long long bytes = -1;
    if (std::sscanf(line.c_str(), "# unnatural word ceilings 2, model bytes %lld", &bytes) != 1) return;
    std::ifstream model(path.substr(0, path.size() - std::string(kCeilingsSuffix).size()), std::ios::binary | std::ios::ate);
    if (!model || static_cast<long long>(model.tellg()) != bytes) return;
    const std::streamoff body = in.tellg();
    in.seekg(0, std::ios::end);
    std::string data(static_cast<size_t>(in.tellg() - body), '\0');
    in.seekg(body);
    if (!in.read(data.data(), static_cast<std::streamsize>(data.size()))) return;
    size_t at = 0;
    auto take = [&](void *out, size_t size) {
      if (at + size > data.size()) return false;
      std::memcpy(out, data.data() + at, size);
      at += size;
      return true;
    };
    uint64_t counts[3];
    if (!take(counts, sizeof counts)) return;
    const lm::base::Vocabulary &vocab = models_[j]->BaseVocabulary();
    Ceilings c;
    for (uint64_t i = 0; i < counts[0]; ++i) {
      CeilingWord word;
      if (!take(&word, sizeof word) || at + word.length > data.size()) return;
      const StringPiece text(data.data() + at, word.length);
      at += word.length;
      if (word.id >= (1u << 21) || vocab.Index(text) != word.id) return;   // another model's
      if (word.id >= c.unigrams.size()) c.unigrams.resize(word.id + 1, 0.0f);
      c.unigrams[word.id] = word.prob;
    }
    std::vector<std::pair<uint64_t, float>> entries[2];
    for (int table = 0; table < 2; ++table)
      for (uint64_t i = 0; i < counts[1 + table]; ++i) {
        CeilingEntry e;
        if (!take(&e, sizeof e)) return;
        entries[table].emplace_back(e.key, e.value);
      }
    if (at != data.size()) return;
    c.bigrams = FloatTable(entries[0]);
    c.triples = FloatTable(entries[1]);
    ceilings_[j] = std::move(c);
  }

  // log10 P(w | from) under the mixture; the next states go to `to`. (Remembering steps in a hash map,
  // though two thirds of a file's steps repeat, was twice as slow as asking KenLM again.)
  double Step(const State *const *from, const WordIndex *w, State *const *to) const {
    ++steps_;
    const float g = Lookup(0, from[0], w[0], to[0]);
    if (models_.size() == 1) return g;
    const float p = Lookup(1, from[1], w[1], to[1]);
    // the same arithmetic as Python's math.log10((1 - w) * 10 ** g + w * 10 ** p)
    return std::log10((1.0 - weight_) * std::pow(10.0, static_cast<double>(g)) +
                      weight_ * std::pow(10.0, static_cast<double>(p)));
  }

  // Model j's log10 P(w | from), its next state to `to`: a probing model (the default format) called as
  // itself, so that its lookup is inlined here, not through the virtual call (the same function: the same bits).
  float Lookup(size_t j, const State *from, WordIndex w, State *to) const {
    if (probing_[j]) return probing_[j]->Score(*from, w, *to);
    return models_[j]->BaseScore(from, w, to);
  }

  bool SameAt(const State *out, const Scored &scored, int64_t k) const {
    for (size_t j = 0; j < models_.size(); ++j)
      if (!scored.Same(j, k, out[j])) return false;
    return true;
  }

  std::vector<std::unique_ptr<lm::base::Model>> models_;
  const lm::ngram::ProbingModel *probing_[kMaxModels] = {nullptr, nullptr};   // the models in probing format
  // Open addressing from a 63-bit key to a float, filled once (std::unordered_map's nodes were 13% of a
  // ranking's CPU: the bounds look ceilings up for every repair).
  class FloatTable {
   public:
    FloatTable() = default;
    explicit FloatTable(const std::vector<std::pair<uint64_t, float>> &items) {
      size_t n = 16;
      while (n < 2 * items.size()) n *= 2;
      slots_.assign(n, Entry{kEmpty, 0.0f});
      shift_ = 64 - __builtin_ctzll(n);
      for (const auto &[key, value] : items) {
        size_t slot = Slot(key);
        while (slots_[slot].key != kEmpty && slots_[slot].key != key) slot = (slot + 1) & (n - 1);
        slots_[slot] = Entry{key, value};
      }
    }
    bool Find(uint64_t key, float *value) const {
      if (slots_.empty()) return false;
      for (size_t slot = Slot(key);; slot = (slot + 1) & (slots_.size() - 1)) {
        if (slots_[slot].key == key) {
          *value = slots_[slot].value;
          return true;
        }
        if (slots_[slot].key == kEmpty) return false;
      }
    }

   private:
    static constexpr uint64_t kEmpty = ~uint64_t{0};   // no 63-bit key
    struct Entry {   // key and value side by side: one cache line a probe
      uint64_t key;
      float value;
    };
    size_t Slot(uint64_t key) const { return (key * 0x9E3779B97F4A7C15ULL) >> shift_; }
    std::vector<Entry> slots_;
    int shift_ = 64;
  };
  struct Ceilings {   // ReadCeilings (none: every ceiling is 0)
    std::vector<float> unigrams;   // per word id: its unigram probability
    FloatTable bigrams, triples;   // by Key: a bigram's probability; a triple's ceiling (at least its bigram's)
  };
  Ceilings ceilings_[kMaxModels];
  double weight_;
  mutable int64_t steps_ = 0;   // lookups so far (one per model each): what the benchmarks count

 public:
  int64_t steps() const { return steps_; }
};

// The repairs of one batch (a chunk of a file's gaps), bounded, then rescored in full in as many rounds as
// the ranker asks, sharing one memo of effects: a change's effect depends only on the new word, the words of
// the state before it and the order-1 symbols after it, so like changes in like contexts (a file repeats
// its lines' shapes) are rescored once, and repeats replay the differences in the same order: the same sum.
class Rescorer {
 public:
  // Repair r changes symbol k1[r] to ids w1[r] and, when k2[r] >= 0, symbol k2[r] > k1[r] to w2[r] (ids one
  // per model, row-major).
  Rescorer(const Mixture &mixture, std::shared_ptr<Scored> scored, const int64_t *k1, const uint32_t *w1,
           const int64_t *k2, const uint32_t *w2, size_t count)
      : mixture_(mixture), scored_(std::move(scored)), reach_(mixture.MaxOrder() - 1),
        end_(static_cast<int64_t>(scored_->scores.size())), segment_slots_(0), first_slots_(0) {
    const size_t m = mixture.models();
    if (scored_->models != static_cast<int>(m)) throw std::invalid_argument("rescore: scored by another mixture");
    for (size_t r = 0; r < count; ++r)
      if (k1[r] < 0 || k1[r] >= end_ || k2[r] >= end_ || (k2[r] >= 0 && k2[r] <= k1[r]))
        throw std::out_of_range("rescore: symbol index out of range");
    k1_.assign(k1, k1 + count);
    k2_.assign(k2, k2 + count);
    w1_.assign(w1, w1 + count * m);
    w2_.assign(w2, w2 + count * m);
    segment_slots_ = Slots(count);
    first_slots_ = Slots(count);
    first_at_.assign(count, nullptr);
  }

  // A rescorer of Python buffers (Mixture.rescorer and .rescore), checked for one length and one id column a model.
  static std::unique_ptr<Rescorer> FromBuffers(const Mixture &mixture, std::shared_ptr<Scored> scored,
                                               const py::buffer &k1, const py::buffer &w1, const py::buffer &k2,
                                               const py::buffer &w2) {
    View<int64_t> K1(k1, "k1"), K2(k2, "k2");
    View<uint32_t> W1(w1, "w1"), W2(w2, "w2");
    const size_t count = K1.size(), m = mixture.models();
    if (K2.size() != count || W1.size() != count * m || W2.size() != count * m)
      throw std::invalid_argument("rescore: arrays of one length, one id column per model");
    return std::make_unique<Rescorer>(mixture, std::move(scored), K1.data(), W1.data(), K2.data(), W2.data(), count);
  }

  size_t size() const { return k1_.size(); }

  // Per repair: (the changed symbol's log10 score, an upper bound of the repair's log10 gain): the changed
  // symbol's own difference, plus what every later symbol the change can reach (the order-1 after it, and after
  // the second change) can gain at most: its ceiling in the repaired stream less its observed score (Slack).
  // Rounding aside: callers leave a margin.
  py::tuple bounds() {
    std::vector<double> first(k1_.size()), bound(k1_.size());
    {
      py::gil_scoped_release unlocked;
      Bounds(first.data(), bound.data());
    }
    return py::make_tuple(to_array(first), to_array(bound));
  }

  // bounds() into `first` and `bound`, one each a repair.
  void Bounds(double *first, double *bound) {
    const size_t count = k1_.size(), m = mixture_.models();
    const Scored &s = *scored_;
    size_t run = 0;   // the first of the repairs (one after another) that change symbol k
    for (size_t r = 0; r < count; ++r) {
      const int64_t k = k1_[r], kk = k2_[r];
      if (r == 0 || k != k1_[r - 1]) run = r;
      // a gap's repairs that blame different offsets often make the same change (the same symbols): bounded once
      size_t same = r;
      for (size_t q = run; q < r; ++q)
        if (k2_[q] == kk && SameIds(&w1_[q * m], &w1_[r * m], m) &&
            (kk < 0 || SameIds(&w2_[q * m], &w2_[r * m], m))) {
          same = q;
          break;
        }
      if (same < r) {
        first_at_[r] = first_at_[same];
        first[r] = first[same];
        bound[r] = bound[same];
        continue;
      }
      const First *one = FindFirst(k, &w1_[r * m], true);
      first_at_[r] = one;
      first[r] = one->score;
      const int64_t hi1 = std::min(end_ - 1, k + reach_);
      double rest = 0;
      if (kk < 0 || kk <= hi1) {
        const int64_t hi = kk < 0 ? hi1 : std::min(end_ - 1, kk + reach_);
        for (int64_t t = k + 1; t <= hi; ++t) rest += Slack(t, k, &w1_[r * m], kk, &w2_[r * m]);
      } else {
        for (int64_t t = k + 1; t <= hi1; ++t) rest += Slack(t, k, &w1_[r * m], kk, &w2_[r * m]);
        for (int64_t t = kk, hi2 = std::min(end_ - 1, kk + reach_); t <= hi2; ++t)
          rest += Slack(t, k, &w1_[r * m], kk, &w2_[r * m]);
      }
      bound[r] = (first[r] - s.scores[k]) + rest;
    }
  }

  // (log10 gain, log10 score of the changed symbol) of every repair, rescored in full.
  py::tuple rescore() {
    const size_t count = k1_.size();
    std::vector<int64_t> rows(count);
    for (size_t r = 0; r < count; ++r) rows[r] = static_cast<int64_t>(r);
    std::vector<double> target(count, -kInfinity), delta(count), first(count);
    {
      py::gil_scoped_release unlocked;
      Rescore(rows.data(), target.data(), count, delta.data(), first.data());
    }
    return py::make_tuple(to_array(delta), to_array(first));
  }

  // The gains of `count` repairs `rows` to `delta`, their changed symbols' scores to `first` (when given). A
  // repair whose gain so far plus the bound of the rest falls below its target (log10; -inf: none) is not
  // rescored further: its gain is -inf then (and its score NaN).
  void Rescore(const int64_t *rows, const double *target, size_t count, double *delta, double *first) {
    const size_t m = mixture_.models();
    for (size_t i = 0; i < count; ++i) {
      const size_t r = static_cast<size_t>(rows[i]);
      const int64_t k = k1_[r], kk = k2_[r];
      const WordIndex *a = &w1_[r * m], *b = &w2_[r * m];
      const First *start = first_at_[r];
      const Segment *one = target[i] == -kInfinity ? &Get(k, a, -1, nullptr, start) : Reach(k, a, kk, b, target[i], start);
      if (!one) {   // cannot reach its target
        delta[i] = -kInfinity;
        if (first) first[i] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      if (first) first[i] = one->first;
      double d = 0;
      if (kk < 0 || k + static_cast<int64_t>(one->length) <= kk) {
        // the second change (if any) comes after the first one's effect has ended
        for (size_t t = 0; t < one->length; ++t) d += terms_[one->terms + t];
        if (kk >= 0) {
          const Segment &two = Get(kk, b);
          for (size_t t = 0; t < two.length; ++t) d += terms_[two.terms + t];
        }
      } else {   // the two changes' effects overlap: one segment with both
        const Segment &both = Get(k, a, kk, b, start);
        for (size_t t = 0; t < both.length; ++t) d += terms_[both.terms + t];
      }
      delta[i] = d;
    }
  }

 private:
  // The effect of changing one symbol (or two): the score differences from the change until the state
  // rejoins the observed stream's (or the stream ends).
  struct Segment {
    int64_t k, kk, lo, hi;       // the change(s), and the window [lo, hi) the effect depends on
    WordIndex w[kMaxModels], w2[kMaxModels];
    double first;                // the changed symbol's score
    size_t terms, length;        // its differences: terms_[terms .. terms + length)
  };

  struct First {
    int64_t k, lo;               // the change, and the first word of the context it depends on
    WordIndex w[kMaxModels];
    double score;
    State out[kMaxModels];       // the states after it (Run starts from there)
  };

  // What symbol t > k can gain at most in the stream with symbol k changed to w1 (and kk to w2, when kk >= 0):
  // its ceiling after the symbol before it less its observed score.
  double Slack(int64_t t, int64_t k, const WordIndex *w1, int64_t kk, const WordIndex *w2) const {
    const Scored &s = *scored_;
    // (kk < 0: no second change; before the stream, at -1 and -2, is <s>, not the second change)
    const bool second = kk >= 0;
    if (t - 2 != k && t - 1 != k && !(second && (t - 2 == kk || t - 1 == kk || t == kk))) return s.slack[t];
    WordIndex words[3][kMaxModels] = {};
    for (int i = 0; i < 3; ++i) {
      const int64_t at = t - 2 + i;
      for (int j = 0; j < s.models; ++j) words[i][j] = at == k ? w1[j] : second && at == kk ? w2[j] : s.Word(j, at);
    }
    return mixture_.Ceiling(words[0], words[1], words[2]) - s.scores[t];
  }

  uint64_t Window(uint64_t h, int64_t lo, int64_t hi) const {
    for (int j = 0; j < scored_->models; ++j)
      for (int64_t i = lo; i < hi; ++i) h = Mix(h, scored_->Word(j, i));
    return h;
  }

  bool SameWindow(int64_t a, int64_t b, int64_t length) const {
    for (int j = 0; j < scored_->models; ++j)
      for (int64_t i = 0; i < length; ++i)
        if (scored_->Word(j, a + i) != scored_->Word(j, b + i)) return false;
    return true;
  }

  // The changed symbol's score (and the states after it), once per like change in a like context (the
  // words of the state before it): the memo's entry, and whether it was there already.
  const First *FindFirst(int64_t k, const WordIndex *w, bool add) {
    const size_t m = mixture_.models();
    if (k != window_k_) {   // a gap's repairs come one after another: its context's hash is made once
      window_k_ = k;
      window_lo_ = k - scored_->Context(k);
      window_hash_ = Window(Mix(0, k - window_lo_), window_lo_, k);
    }
    const int64_t lo = window_lo_;
    WordIndex words[kMaxModels] = {0, 0};
    uint64_t h = window_hash_;
    for (size_t j = 0; j < m; ++j) h = Mix(h, words[j] = w[j]);
    h ^= h >> 29;
    const size_t slot = first_slots_.Find(h, [&](int64_t q) {
      const First &a = firsts_[q];
      return a.k - a.lo == k - lo && SameIds(a.w, words, kMaxModels) && SameWindow(a.lo, lo, k - lo);
    });
    if (first_slots_.At(slot) >= 0) return &firsts_[first_slots_.At(slot)];
    if (!add) return nullptr;
    First &one = firsts_.emplace_back();
    one.k = k;
    one.lo = lo;
    std::copy(words, words + kMaxModels, one.w);
    one.score = mixture_.First(*scored_, k, w, one.out);
    first_slots_.Put(slot, h);
    return &one;
  }

  // The memo's key of changing symbol k to w (and, when kk >= 0, symbol kk to w2 on the way), its hash, and
  // its slot in the memo.
  Segment Probe(int64_t k, const WordIndex *w, int64_t kk, const WordIndex *w2, uint64_t *hash, size_t *slot) const {
    const size_t m = mixture_.models();
    // Before k, only the words of the observed state there matter (KenLM keeps the longest suffix of
    // the history that a longer n-gram could extend, a function of those words alone).
    Segment probe{k, kk, k - scored_->Context(k), std::min(end_, (kk >= 0 ? kk : k) + reach_ + 1), {0, 0}, {0, 0}, 0, 0, 0};
    for (size_t j = 0; j < m; ++j) {
      probe.w[j] = w[j];
      if (kk >= 0) probe.w2[j] = w2[j];
    }
    uint64_t h = Mix(Mix(Mix(0, probe.k - probe.lo), probe.hi - probe.k), kk >= 0 ? kk - k : 0);
    for (size_t j = 0; j < m; ++j) h = Mix(Mix(h, probe.w[j]), probe.w2[j]);
    h = Window(h, probe.lo, probe.hi);
    h ^= h >> 29;
    *hash = h;
    *slot = segment_slots_.Find(h, [&](int64_t q) { return SameSegment(segments_[q], probe); });
    return probe;
  }

  const Segment &Keep(Segment probe, uint64_t hash, size_t slot) {
    probe.length = terms_.size() - probe.terms;
    segments_.push_back(probe);
    segment_slots_.Put(slot, hash);
    return segments_.back();
  }

  // The effect of changing symbol k to w (and, when kk >= 0, symbol kk to w2 on the way). `start`: the
  // change's First, when bounds() found it already (else it is looked for here).
  const Segment &Get(int64_t k, const WordIndex *w, int64_t kk = -1, const WordIndex *w2 = nullptr,
                     const First *start = nullptr) {
    uint64_t h;
    size_t slot;
    Segment probe = Probe(k, w, kk, w2, &h, &slot);
    if (segment_slots_.At(slot) >= 0) return segments_[segment_slots_.At(slot)];
    probe.terms = terms_.size();
    if (!start) start = FindFirst(k, w, false);
    probe.first = mixture_.Run(*scored_, k, w, kk, w2, [&](double term, int64_t) {
      terms_.push_back(term);
      return true;
    }, start ? start->out : nullptr, start ? start->score : 0);
    return Keep(probe, h, slot);
  }

  // The effect of changing symbol k to w, as Get, unless the repair (with its second change at kk, if any)
  // cannot reach `target`: its differences so far plus what every symbol left that either change can reach
  // can gain at most (Slack) fall short (nullptr then; not remembered).
  const Segment *Reach(int64_t k, const WordIndex *w, int64_t kk, const WordIndex *w2, double target,
                       const First *start) {
    uint64_t h;
    size_t slot;
    Segment probe = Probe(k, w, -1, nullptr, &h, &slot);
    if (segment_slots_.At(slot) >= 0) return &segments_[segment_slots_.At(slot)];
    // what the symbols after each position can gain at most (Slack), over the positions either change reaches
    const Scored &s = *scored_;
    const int64_t hi1 = std::min(end_ - 1, k + reach_), hi2 = kk >= 0 ? std::min(end_ - 1, kk + reach_) : -1;
    rest_.clear();
    for (int64_t t = k + 1; t <= std::max(hi1, hi2); ++t)
      rest_.push_back(t <= hi1 || t >= kk ? Slack(t, k, w, kk, w2) : 0.0);
    for (size_t i = rest_.size(); i-- > 1;) rest_[i - 1] += rest_[i];
    auto after = [&](int64_t t) { return t - k < static_cast<int64_t>(rest_.size()) ? rest_[t - k] : 0.0; };
    probe.terms = terms_.size();
    double sum = 0;
    bool short_of = false;
    if (!start) start = FindFirst(k, w, false);
    probe.first = mixture_.Run(s, k, w, -1, nullptr, [&](double term, int64_t t) {
      terms_.push_back(term);
      sum += term;
      // from kk on, this run (without the second change) is not the repair's: no judging from there
      if ((kk < 0 || t < kk) && sum + after(t) < target) short_of = true;
      return !short_of;
    }, start ? start->out : nullptr, start ? start->score : 0);
    if (short_of) {
      terms_.resize(probe.terms);
      return nullptr;
    }
    return &Keep(probe, h, slot);
  }

  bool SameSegment(const Segment &a, const Segment &b) const {
    return a.k - a.lo == b.k - b.lo && a.hi - a.k == b.hi - b.k && (a.kk < 0) == (b.kk < 0) &&
           (a.kk < 0 || a.kk - a.k == b.kk - b.k) && SameIds(a.w, b.w, kMaxModels) &&
           SameIds(a.w2, b.w2, kMaxModels) && SameWindow(a.lo, b.lo, a.hi - a.lo);
  }

  const Mixture &mixture_;
  std::shared_ptr<Scored> scored_;
  const int64_t reach_, end_;
  std::vector<int64_t> k1_, k2_;
  std::vector<WordIndex> w1_, w2_;
  Slots segment_slots_, first_slots_;
  Blocks<Segment> segments_;   // references handed out stay valid as it grows
  Blocks<First> firsts_;       // pointers handed out stay valid as it grows
  std::vector<const First *> first_at_;   // per repair: its changed symbol's First (bounds() finds them)
  int64_t window_k_ = -1, window_lo_ = 0;   // FindFirst's last change's symbol, its context's start and hash
  uint64_t window_hash_ = 0;
  std::vector<double> terms_;
  std::vector<double> rest_;       // Reach's bounds of what is left after each position
};

py::tuple Mixture::rescore(std::shared_ptr<Scored> scored, const py::buffer &k1, const py::buffer &w1,
                           const py::buffer &k2, const py::buffer &w2) const {
  return Rescorer::FromBuffers(*this, std::move(scored), k1, w1, k2, w2)->rescore();
}

// The rescoring for ranker._native (unnatural/rescoring.hh): a rescorer that cannot be made says why in `error`
// (a C interface: only running out of memory would throw into the other module).
struct Session {
  const Mixture *mixture;
  std::shared_ptr<Scored> scored;
};

void *OpenSession(PyObject *mixture, PyObject *scored) {
  try {
    return new Session{&py::handle(mixture).cast<const Mixture &>(), py::handle(scored).cast<std::shared_ptr<Scored>>()};
  } catch (const py::cast_error &) {
    PyErr_SetString(PyExc_TypeError, "rescoring: an lm._native Mixture and the Scored stream it made expected");
  }
  return nullptr;
}

void *MakeRescorer(void *session, const int64_t *k1, const uint32_t *w1, const int64_t *k2, const uint32_t *w2,
                   size_t count, const char **error) {
  static thread_local std::string reason;
  try {
    const Session &s = *static_cast<Session *>(session);
    return new Rescorer(*s.mixture, s.scored, k1, w1, k2, w2, count);
  } catch (const std::exception &e) {
    reason = e.what();
  }
  *error = reason.c_str();
  return nullptr;
}

const rescoring::Api kRescoring = {
    OpenSession,
    [](void *session) { delete static_cast<Session *>(session); },
    MakeRescorer,
    [](void *rescorer) { delete static_cast<Rescorer *>(rescorer); },
    [](void *rescorer, double *first, double *bound) { static_cast<Rescorer *>(rescorer)->Bounds(first, bound); },
    [](void *rescorer, const int64_t *rows, const double *targets, size_t count, double *delta) {
      static_cast<Rescorer *>(rescorer)->Rescore(rows, targets, count, delta, nullptr);
    },
};

// The ceilings of lmplz's ARPA file `arpa` for the binary model build_binary made of it, `model`
// (Mixture::ReadCeilings): each unigram's and bigram's probability, and per three words ending an n-gram of
// order 3 or more, the highest probability of those n-grams (at least the bigram's of its last two words, or
// the last word's: what a lookup that finds it returns). A context without a longer n-gram of a word backs off
// to a shorter one, times backoffs that lmplz's interpolated Kneser-Ney makes at most 1 (log10 0 at most);
// were one positive, the largest of each order would be added to every value, so that the ceilings stay upper
// bounds. Written to `out`; returns the number of words, bigrams and triples (none written when a word id does
// not fit 21 bits).
size_t write_ceilings(const std::string &arpa, const std::string &out, const std::string &model) {
  std::ifstream in(arpa);
  if (!in) throw std::runtime_error(arpa + ": cannot read the ARPA file");
  std::map<std::string, float> unigrams, bigrams, triples;   // the last three words of longer n-grams
  std::vector<double> raise;   // per order: the largest positive log10 backoff of its n-grams (as contexts)
  std::string line;
  int order = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '\\') {
      int n = 0;
      order = std::sscanf(line.c_str(), "\\%d-grams:", &n) == 1 ? n : 0;
      continue;
    }
    if (order == 0) continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) throw std::runtime_error(arpa + ": not an ARPA n-gram line: " + line);
    const size_t end = line.find('\t', tab + 1);
    const float prob = std::strtof(line.c_str(), nullptr);
    const std::string gram = line.substr(tab + 1, (end == std::string::npos ? line.size() : end) - tab - 1);
    if (order <= 2) {
      (order == 1 ? unigrams : bigrams)[gram] = prob;
    } else {
      size_t from = gram.size();
      for (int i = 0; i < 3; ++i) from = gram.rfind(' ', from - 1);
      std::string key = gram.substr(from + 1);
      auto at = triples.find(key);
      if (at == triples.end()) triples.emplace(std::move(key), prob);
      else at->second = std::max(at->second, prob);
    }
    if (end != std::string::npos) {
      const double backoff = std::strtod(line.c_str() + end + 1, nullptr);
      if (static_cast<int>(raise.size()) < order) raise.resize(order, 0.0);
      raise[order - 1] = std::max(raise[order - 1], backoff);
    }
  }
  double up = 0;
  for (double r : raise) up += r;
  auto raised = [&](float c) { return up > 0 ? static_cast<float>(std::min(0.0, c + up + 1e-6)) : c; };
  std::unique_ptr<lm::base::Model> binary(lm::ngram::LoadVirtual(model.c_str()));
  const lm::base::Vocabulary &vocab = binary->BaseVocabulary();
  bool fits = true;
  auto id = [&](const std::string &words, size_t from, size_t to) {
    const WordIndex w = vocab.Index(StringPiece(words.data() + from, to - from));
    fits = fits && w < (1u << 21);
    return static_cast<uint64_t>(w);
  };
  auto key = [&](const std::string &words) {   // Mixture::Key of two or three words
    uint64_t k = 0;
    for (size_t from = 0, to; from <= words.size(); from = to + 1) {
      to = std::min(words.find(' ', from), words.size());
      k = k << 21 | id(words, from, to);
    }
    return k;
  };
  std::string body;
  auto put = [&](const void *p, size_t size) { body.append(static_cast<const char *>(p), size); };
  const uint64_t counts[3] = {unigrams.size(), bigrams.size(), triples.size()};
  put(counts, sizeof counts);
  for (const auto &[word, p] : unigrams) {
    const CeilingWord w{static_cast<uint32_t>(id(word, 0, word.size())), raised(p), static_cast<uint32_t>(word.size())};
    put(&w, sizeof w);
    body += word;
  }
  for (const auto &[words, p] : bigrams) {
    const CeilingEntry e{key(words), raised(p), 0};
    put(&e, sizeof e);
  }
  for (const auto &[words, p] : triples) {
    const size_t mid = words.find(' ') + 1;
    const std::string last = words.substr(mid), word = last.substr(last.find(' ') + 1);
    const auto two = bigrams.find(last);
    const auto one = unigrams.find(word);
    const float below = two != bigrams.end() ? two->second : one != unigrams.end() ? one->second : 0.0f;
    const CeilingEntry e{key(words), raised(std::max(p, below)), 0};
    put(&e, sizeof e);
  }
  if (!fits) return 0;
  std::FILE *f = std::fopen(out.c_str(), "wb");
  if (!f) throw std::runtime_error(out + ": cannot write the ceilings");
  std::fprintf(f, "# unnatural word ceilings 2, model bytes %lld\n", static_cast<long long>(std::ifstream(
      model, std::ios::binary | std::ios::ate).tellg()));
  const bool written = std::fwrite(body.data(), 1, body.size(), f) == body.size();
  if (std::fclose(f) != 0 || !written) throw std::runtime_error(out + ": cannot write the ceilings");
  return counts[0] + counts[1] + counts[2];
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "KenLM scoring and batched repair rescoring for the ranker (see lm/native.cpp)";
  m.def("write_ceilings", &write_ceilings, py::arg("arpa"), py::arg("out"), py::arg("model"));
  m.attr("rescoring") = py::capsule(&kRescoring, rescoring::kCapsule);
  py::class_<Scored, std::shared_ptr<Scored>>(m, "Scored")
      .def_property_readonly("scores", [](const Scored &s) { return to_array(s.scores); })
      .def("__len__", [](const Scored &s) { return s.scores.size(); });
  py::class_<Mixture>(m, "Mixture")
      .def(py::init<const std::string &, const std::string &, double, const std::vector<std::string> &>(),
           py::arg("general"), py::arg("project") = "", py::arg("weight") = 0.0,
           py::arg("ceilings") = std::vector<std::string>())
      .def_property_readonly("order", &Mixture::order)
      .def_property_readonly("models", &Mixture::models)
      .def_property_readonly("steps", &Mixture::steps,
                             "symbols scored so far (each a lookup per model): a measure of work that load does not change")
      .def("index", &Mixture::index, py::arg("symbols"))
      .def("ceiling", [](const Mixture &mixture, const py::buffer &a, const py::buffer &b, const py::buffer &ids) {
             View<uint32_t> A(a, "a"), B(b, "b"), w(ids, "ids");
             if (static_cast<int>(w.size()) != mixture.models() || A.size() != w.size() || B.size() != w.size())
               throw std::invalid_argument("ceiling: one id per model");
             return mixture.Ceiling(A.data(), B.data(), w.data());
           }, py::arg("a"), py::arg("b"), py::arg("ids"),
           "the ceiling of word `ids` after words a b: its highest log10 probability in any context ending with them")
      .def("score", &Mixture::score, py::arg("ids"))
      .def("rescore", &Mixture::rescore, py::arg("scored"), py::arg("k1"), py::arg("w1"), py::arg("k2"),
           py::arg("w2"))
      .def("rescorer", [](const Mixture &mixture, std::shared_ptr<Scored> scored, const py::buffer &k1,
                          const py::buffer &w1, const py::buffer &k2, const py::buffer &w2) {
             return Rescorer::FromBuffers(mixture, std::move(scored), k1, w1, k2, w2);
           }, py::arg("scored"), py::arg("k1"), py::arg("w1"), py::arg("k2"), py::arg("w2"),
           py::keep_alive<0, 1>());
  py::class_<Rescorer>(m, "Rescorer")
      .def("__len__", &Rescorer::size)
      .def("bounds", &Rescorer::bounds)
      .def("rescore", &Rescorer::rescore);
}
