// ranker._native: the ranker's per-repair arithmetic in C++ (the KenLM part is lm._native).
//
// After the compiled rescoring, what was left per file was numpy calls on a few thousand rows, and numpy's
// import was most of the time to rank one small file. Here are the plan table (every planned repair of
// every kind of gap, ranker/plans.py), the style cache (ranker/cache.py), the whitespace habits
// (ranker/habits.py), and FileRanker: a file's repairs, their gains, and which of them to rescore in full.
//
// Which to rescore: lm._native bounds each repair's gain from its changed symbol's score alone; the style
// cache's, the habits' and the error model's terms are exact then already. A repair is rescored in full only
// when its bound can still reach what is asked: its offset's best gain so far (a full ranking needs every
// offset's best), and, for the top K or the offsets with gain >= least, the K-th best gain found so far or
// `least`. Repairs are taken in rounds, each offset's most promising first, so that the gains found prune the
// rest.
// Built by `make setup`.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "../unnatural/buffers.hh"
#include "../unnatural/rescoring.hh"

namespace py = pybind11;
using buffers::View;
using buffers::to_array;

namespace {

constexpr int kHabits = 4;   // ranker/habits.py: what trails, mixed indentation, blank-line whitespace, line endings
constexpr int kEnding = 3;   // the line endings: counted only where the rates have seen a CR (habits.ENDING)
constexpr int kMaxValues = 4;
constexpr int kSymbolBits = 21;         // ranker/cache.py: a (context, symbol) key is context << 21 | symbol
constexpr int64_t kSymbolMask = (int64_t{1} << kSymbolBits) - 1;
constexpr int64_t kBos = 0, kEos = 1, kPad = 2;   // ranker/symbols.py's ids of <s>, </s> and '|'
constexpr int FIRST = 0, LAST = 1, MIDDLE = 3;   // ranker/repairs.py: where a repair points (else NEXT)
// Rounding aside, a bound is at least the gain it bounds; a repair is skipped only when its bound falls
// short by more than this (KenLM's float sums, the sums here: far below it).
constexpr double kMargin = 1e-5;
constexpr double kNone = -std::numeric_limits<double>::infinity();

template <class T>
std::vector<T> copy_of(const py::buffer &b, const char *what) {
  View<T> v(b, what);
  return std::vector<T>(v.data(), v.data() + v.size());
}

// Every planned repair, as columns (ranker/plans.py): plan p owns rows start[p] .. start[p] + count[p].
class PlanTable {
 public:
  explicit PlanTable(int models) : models_(models) {}

  // Appends one plan's rows, and the habits of the observed gap; returns its id.
  int64_t add(const py::buffer &where, const py::buffer &w1, const py::buffer &second, const py::buffer &w2,
              const py::buffer &symbol, const py::buffer &empty, const py::buffer &breaks, const py::buffer &habits,
              const py::buffer &observed_habits, const py::buffer &edit) {
    View<int8_t> W(where, "where"), H(habits, "habits"), O(observed_habits, "observed_habits");
    View<double> D(edit, "edit");
    View<uint32_t> W1(w1, "w1"), W2(w2, "w2");
    View<uint8_t> S(second, "second"), E(empty, "empty"), B(breaks, "breaks");
    View<int64_t> Y(symbol, "symbol");
    const size_t n = W.size();
    if (W1.size() != n * models_ || W2.size() != n * models_ || S.size() != n || E.size() != n || B.size() != n ||
        Y.size() != n || H.size() != n * kHabits || O.size() != kHabits || D.size() != n)
      throw std::invalid_argument("PlanTable.add: columns of one length (ids: one per model, habits: 4 per row)");
    observed_habits_.insert(observed_habits_.end(), O.data(), O.data() + kHabits);
    start.push_back(static_cast<int64_t>(where_.size()));
    count.push_back(static_cast<int64_t>(n));
    where_.insert(where_.end(), W.data(), W.data() + n);
    w1_.insert(w1_.end(), W1.data(), W1.data() + n * models_);
    w2_.insert(w2_.end(), W2.data(), W2.data() + n * models_);
    second_.insert(second_.end(), S.data(), S.data() + n);
    empty_.insert(empty_.end(), E.data(), E.data() + n);
    breaks_.insert(breaks_.end(), B.data(), B.data() + n);
    symbol_.insert(symbol_.end(), Y.data(), Y.data() + n);
    habits_.insert(habits_.end(), H.data(), H.data() + n * kHabits);
    edit_.insert(edit_.end(), D.data(), D.data() + n);
    return static_cast<int64_t>(start.size()) - 1;
  }

  size_t plans() const { return start.size(); }
  size_t rows() const { return where_.size(); }

  // A column of some rows (for tests and the Python side): where, second, empty, breaks, symbol, w1, w2, habits,
  // edit.
  py::object column(const std::string &name, const py::buffer &rows_buffer) const {
    View<int64_t> rows(rows_buffer, "rows");
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i] < 0 || static_cast<size_t>(rows[i]) >= this->rows()) throw std::out_of_range("PlanTable: no such row");
    auto pick = [&](const auto &column, size_t width) {
      std::vector<std::decay_t<decltype(column[0])>> out;
      for (size_t i = 0; i < rows.size(); ++i)
        out.insert(out.end(), column.begin() + rows[i] * width, column.begin() + (rows[i] + 1) * width);
      return to_array(out);
    };
    if (name == "where") return pick(where_, 1);
    if (name == "second") return pick(second_, 1);
    if (name == "empty") return pick(empty_, 1);
    if (name == "breaks") return pick(breaks_, 1);
    if (name == "symbol") return pick(symbol_, 1);
    if (name == "w1") return pick(w1_, models_);
    if (name == "w2") return pick(w2_, models_);
    if (name == "habits") return pick(habits_, kHabits);
    if (name == "edit") return pick(edit_, 1);
    throw std::invalid_argument("PlanTable: no column " + name);
  }

  const size_t models_;
  std::vector<int64_t> start, count;
  std::vector<int8_t> where_;
  std::vector<uint32_t> w1_, w2_;
  std::vector<uint8_t> second_, empty_, breaks_;
  std::vector<int64_t> symbol_;
  std::vector<int8_t> habits_;
  std::vector<int8_t> observed_habits_;   // per plan: the habits of the gap itself
  std::vector<double> edit_;   // per row: log10 prior of the error it undoes (ranker/repairs.py's edit_priors)
};

// How often each int64 key occurs: sorted keys and their counts, owned or viewed (a folder's tables).
class Counts {
 public:
  Counts() = default;
  explicit Counts(std::vector<int64_t> keys) {   // counted here
    std::sort(keys.begin(), keys.end());
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i && keys[i] == keys[i - 1]) {
        ++own_counts_.back();
      } else {
        own_keys_.push_back(keys[i]);
        own_counts_.push_back(1);
      }
    }
    keys_ = own_keys_.data();
    counts_ = own_counts_.data();
    n_ = own_keys_.size();
  }
  Counts(const py::buffer &keys, const py::buffer &counts)   // given: sorted unique keys and their counts
      : key_view_(std::make_shared<View<int64_t>>(keys, "keys")),
        count_view_(std::make_shared<View<int64_t>>(counts, "counts")) {
    if (key_view_->size() != count_view_->size()) throw std::invalid_argument("Counts: one count per key");
    keys_ = key_view_->data();
    counts_ = count_view_->data();
    n_ = key_view_->size();
  }
  Counts(std::vector<int64_t> keys, std::vector<int64_t> counts)   // given: sorted unique keys and their counts
      : own_keys_(std::move(keys)), own_counts_(std::move(counts)) {
    keys_ = own_keys_.data();
    counts_ = own_counts_.data();
    n_ = own_keys_.size();
  }
  int64_t get(int64_t key) const {
    const size_t at = LowerBound(key);
    return at != n_ && keys_[at] == key ? counts_[at] : 0;
  }
  // The rows [lo, hi) of the keys from `first` to `last`, both included (a few: the symbols of one context).
  std::pair<size_t, size_t> span(int64_t first, int64_t last) const {
    const size_t lo = LowerBound(first), stop = std::min(n_, lo + 16);
    size_t hi = lo;
    while (hi < stop && keys_[hi] <= last) ++hi;
    if (hi == stop && hi < n_ && keys_[hi] <= last) hi = std::upper_bound(keys_ + hi, keys_ + n_, last) - keys_;
    return {lo, hi};
  }
  size_t size() const { return n_; }
  int64_t key(size_t row) const { return keys_[row]; }
  int64_t count(size_t row) const { return counts_[row]; }
  // Ask the memory for where `key`'s search will start, some lookups ahead of it (the misses overlap).
  void Prefetch(int64_t key) const {
    if (n_ < kInterpolate) return;
    const size_t g = Guess(key);
    __builtin_prefetch(keys_ + g);
    __builtin_prefetch(counts_ + g);
  }

 private:
  static constexpr size_t kInterpolate = 256;   // tables this long are searched from a guess

  static uint64_t Order(int64_t k) { return static_cast<uint64_t>(k) ^ (uint64_t{1} << 63); }

  // Where an even spread of the keys puts `key` (n_ >= kInterpolate).
  size_t Guess(int64_t key) const {
    const uint64_t low = Order(keys_[0]), high = Order(keys_[n_ - 1]), at = Order(key);
    if (at <= low) return 0;
    if (at >= high) return n_ - 1;
    return std::min(static_cast<size_t>(static_cast<double>(at - low) / static_cast<double>(high - low) *
                                        static_cast<double>(n_ - 1)), n_ - 1);
  }

  // The first row whose key is not less than `key`. A folder's keys are hashes, spread evenly: the search
  // starts where an even spread puts the key and gallops from there, a few reads near it instead of a binary
  // search's ~22 across a table of millions (each a cache miss; bin/check looks up every context of a file).
  size_t LowerBound(int64_t key) const {
    if (n_ < kInterpolate) return std::lower_bound(keys_, keys_ + n_, key) - keys_;
    if (Order(key) <= Order(keys_[0])) return 0;
    if (Order(key) > Order(keys_[n_ - 1])) return n_;
    size_t g = Guess(key), from, to;   // the answer is in [from, to]
    if (keys_[g] < key) {
      size_t step = 1;
      while (g + step < n_ && keys_[g + step] < key) {
        g += step;
        step <<= 1;
      }
      from = g + 1;
      to = std::min(g + step, n_);
    } else {
      size_t step = 1;
      while (g >= step && keys_[g - step] >= key) {
        g -= step;
        step <<= 1;
      }
      from = g >= step ? g - step + 1 : 0;
      to = g;
    }
    return std::lower_bound(keys_ + from, keys_ + to, key) - keys_;
  }

  std::vector<int64_t> own_keys_, own_counts_;
  std::shared_ptr<View<int64_t>> key_view_, count_view_;
  const int64_t *keys_ = nullptr, *counts_ = nullptr;
  size_t n_ = 0;
};

// A folder's counts in one wide context level (ranker/cache.py), as one file uses them: each gap's wide
// context (a hash of the tokens around it in the high 40 bits, the low 24 zero), each gap's context total, and
// the (context, symbol) counts of the contexts the file has, all with the excluded counts taken off (a small
// table, quick to search for the file's repairs).
struct WideLevel {
  std::vector<int64_t> contexts, totals;   // per gap
  Counts pairs;
};

constexpr int64_t kWideSymbolPart = (int64_t{1} << 24) - 1;   // ranker/cache.py: the symbol's hash, low 24 bits
constexpr uint64_t kMultiplier = 0x9E3779B97F4A7C15ULL;

// Per gap of a stream of n tokens (their symbols' text hashes), the hash of the `reach` tokens before it and
// the `reach` after it (`pad`, the hash of '|', past the ends): h = reach, then h = h * kMultiplier + token,
// modulo 2**64, in the high 40 bits (the low 24 zero). The one home of the wide contexts: the StyleCache's
// of a file, and ranker/cache.py's of a folder's files.
std::vector<int64_t> WideContexts(const uint64_t *tokens, size_t count, int reach, uint64_t pad) {
  const int64_t n = static_cast<int64_t>(count);
  std::vector<int64_t> out(count + 1);
  for (int64_t g = 0; g <= n; ++g) {
    uint64_t h = static_cast<uint64_t>(reach);
    for (int64_t t = g - reach; t < g + reach; ++t) h = h * kMultiplier + (t >= 0 && t < n ? tokens[t] : pad);
    out[g] = static_cast<int64_t>(h & ~static_cast<uint64_t>(kWideSymbolPart));
  }
  return out;
}

py::object wide_contexts(const py::buffer &token_hashes, int reach, int64_t pad) {
  View<int64_t> T(token_hashes, "token_hashes");
  if (reach < 0) throw std::invalid_argument("wide_contexts: reach must be at least 0");
  return to_array(WideContexts(reinterpret_cast<const uint64_t *>(T.data()), T.size(), reach, static_cast<uint64_t>(pad)));
}

// StyleCache::Adapted is a pure function of the n-gram score, alpha and the evidence (a count and a total per
// level), and a file repeats all three (the same change in the same context, between the same two tokens), as
// files do: its results are remembered for the process, in a direct-mapped table. (glibc's pow and log10 were
// 4% of a ranking's instructions; 60% of the calls were repeats.)
class AdaptedMemo {
 public:
  static constexpr size_t kLevels = 4;   // the file's own level and ranker/cache.py's REACHES

  // The adapted score of `lm` with `levels` levels of evidence (count, total, ...): `compute()` unless known.
  template <class F>
  double Get(double lm, double alpha, const int64_t *evidence, size_t levels, F compute) {
    uint64_t h = Bits(lm) * kMul ^ Bits(alpha);
    for (size_t i = 0; i < 2 * levels; ++i) h = (h ^ static_cast<uint64_t>(evidence[i])) * kMul;
    Entry &e = entries_[h >> (64 - kBits)];
    if (e.levels == levels && Bits(e.lm) == Bits(lm) && Bits(e.alpha) == Bits(alpha) &&
        std::equal(evidence, evidence + 2 * levels, e.evidence))
      return e.value;
    e.value = compute();
    e.lm = lm;
    e.alpha = alpha;
    e.levels = levels;
    std::copy(evidence, evidence + 2 * levels, e.evidence);
    return e.value;
  }

 private:
  static constexpr int kBits = 11;
  static constexpr uint64_t kMul = 0x9E3779B97F4A7C15ULL;
  static uint64_t Bits(double x) {
    uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
  }
  struct Entry {
    double lm = 0, alpha = 0, value = 0;
    size_t levels = kLevels + 1;   // none
    int64_t evidence[2 * kLevels] = {};
  };
  std::vector<Entry> entries_ = std::vector<Entry>(size_t{1} << kBits);
};

// The style cache (ranker/cache.py): the n-gram probability p of a gap symbol becomes, level after level,
// the Dirichlet posterior (count + alpha p) / (total + alpha): with folder adaptation, first the folder's
// counts in each wide context (the file's own, or its near-duplicates', left out), then the file's own counts
// in the narrow context (the token before, the token after), the gap's own observed symbol left out.
class StyleCache {
 public:
  // ids: the file's interned symbols, gap, token, ..., gap (2n+1); hashes: per symbol id, its text's 64-bit
  // hash, for every symbol of the file and every symbol a repair of it can write; folder (folder adaptation
  // only): per reach of `reaches` (tokens a side), (pair keys, pair counts) of the folder's wide counts
  // (sorted), and exclude, the same of the part of them not to use (None: the file itself, counted here).
  StyleCache(const py::buffer &ids_buffer, const std::optional<py::buffer> &hashes,
             const std::vector<int> &reaches, const std::optional<py::list> &folder,
             const std::optional<py::list> &exclude) {
    View<int64_t> ids(ids_buffer, "ids");
    if (ids.size() % 2 == 0) throw std::invalid_argument("StyleCache: 2n+1 symbols expected");
    const size_t gaps = ids.size() / 2 + 1;
    gap_ids_.resize(gaps);
    std::vector<int64_t> contexts(gaps), pairs(gaps);
    for (size_t i = 0; i < gaps; ++i) {
      gap_ids_[i] = ids[2 * i];
      const int64_t before = i ? ids[2 * i - 1] : kBos, after = 2 * i + 1 < ids.size() ? ids[2 * i + 1] : kEos;
      contexts[i] = before << kSymbolBits | after;
      pairs[i] = contexts[i] << kSymbolBits | gap_ids_[i];
    }
    narrow_ = std::move(contexts);
    own_ = Counts(std::move(pairs));
    // each gap's narrow context looked up once (Evidence is asked for every repair of the gap): its pairs' rows,
    // and their counts' sum, how often the context occurs (the pairs sort by context first)
    narrow_total_.resize(gaps);
    narrow_pairs_.resize(gaps);
    for (size_t i = 0; i < gaps; ++i) {
      const auto span = own_.span(narrow_[i] << kSymbolBits, narrow_[i] << kSymbolBits | kSymbolMask);
      narrow_pairs_[i] = span;
      int64_t total = 0;
      for (size_t r = span.first; r < span.second; ++r) total += own_.count(r);
      narrow_total_[i] = total;
    }
    if (!folder) return;
    if (reaches.size() + 1 > AdaptedMemo::kLevels) throw std::invalid_argument("StyleCache: too many reaches");
    if (!hashes) throw std::invalid_argument("StyleCache: the folder's counts need the symbols' hashes");
    hashes_ = std::make_shared<View<int64_t>>(*hashes, "hashes");
    if (folder->size() != reaches.size() || (exclude && exclude->size() != reaches.size()))
      throw std::invalid_argument("StyleCache: one table per reach");
    std::vector<uint64_t> tokens(gaps - 1);
    for (size_t t = 0; t + 1 < gaps; ++t) tokens[t] = static_cast<uint64_t>(hash(ids[2 * t + 1]));
    for (size_t level = 0; level < reaches.size(); ++level) {
      const Counts all = table((*folder)[level], "folder");
      WideLevel w{WideContexts(tokens.data(), tokens.size(), reaches[level], static_cast<uint64_t>(hash(kPad))),
                  std::vector<int64_t>(gaps), Counts()};
      // the excluded part: the given table, or the file's own keys and, per context, its gaps; and the file's
      // distinct contexts, sorted (the file's own keys, counted, give all three: a context's keys are
      // neighbours)
      Counts minus;
      std::vector<int64_t> distinct, own_totals, keys, counts, totals;
      if (exclude) {
        minus = table((*exclude)[level], "exclude");
        distinct = w.contexts;
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      } else {
        std::vector<int64_t> own(gaps);
        for (size_t g = 0; g < gaps; ++g) own[g] = w.contexts[g] | (hash(gap_ids_[g]) & kWideSymbolPart);
        minus = Counts(std::move(own));
        for (size_t r = 0; r < minus.size(); ++r) {
          const int64_t c = minus.key(r) & ~kWideSymbolPart;
          if (!distinct.empty() && distinct.back() == c) {
            own_totals.back() += minus.count(r);
          } else {
            distinct.push_back(c);
            own_totals.push_back(minus.count(r));
          }
        }
      }
      constexpr size_t kAhead = 8;
      for (size_t i = 0; i < std::min(kAhead, distinct.size()); ++i) all.Prefetch(distinct[i]);
      for (size_t i = 0; i < distinct.size(); ++i) {
        const int64_t c = distinct[i];
        if (i + kAhead < distinct.size()) all.Prefetch(distinct[i + kAhead]);
        const auto [lo, hi] = all.span(c, c | kWideSymbolPart);
        int64_t total = 0;
        for (size_t r = lo; r < hi; ++r) {
          total += all.count(r);
          keys.push_back(all.key(r));
          counts.push_back(std::max<int64_t>(all.count(r) - minus.get(all.key(r)), 0));
        }
        int64_t excluded = 0;
        if (exclude) {
          const auto [mlo, mhi] = minus.span(c, c | kWideSymbolPart);
          for (size_t r = mlo; r < mhi; ++r) excluded += minus.count(r);
        } else {
          excluded = own_totals[i];
        }
        totals.push_back(std::max<int64_t>(total - excluded, 0));
      }
      for (size_t g = 0; g < gaps; ++g)
        w.totals[g] = totals[std::lower_bound(distinct.begin(), distinct.end(), w.contexts[g]) - distinct.begin()];
      w.pairs = Counts(std::move(keys), std::move(counts));
      wide_.push_back(std::move(w));
    }
  }

  size_t gaps() const { return gap_ids_.size(); }
  size_t levels() const { return wide_.size() + 1; }

  // The evidence of symbol id `symbol` at gap `gap`, level by level in the order applied: (count, total).
  template <class F>
  void Evidence(size_t gap, int64_t symbol, F &&level) const {
    if (!wide_.empty()) {
      const int64_t part = hash(symbol) & kWideSymbolPart;
      for (const auto &w : wide_) {
        const int64_t total = w.totals[gap];
        level(total > 0 ? w.pairs.get(w.contexts[gap] | part) : 0, total);   // only contexts the folder has
      }
    }
    // the gap's pairs are a few rows (the symbols seen between the same two tokens)
    const int64_t key = narrow_[gap] << kSymbolBits | symbol;
    int64_t count = 0;
    for (size_t r = narrow_pairs_[gap].first; r < narrow_pairs_[gap].second; ++r)
      if (own_.key(r) == key) {
        count = own_.count(r);
        break;
      }
    level(count - static_cast<int64_t>(gap_ids_[gap] == symbol), narrow_total_[gap] - 1);
  }

  // log10 of the n-gram probability `lm` (log10) of symbol id `symbol` at gap `gap`, adapted to the style.
  double Adapted(size_t gap, int64_t symbol, double lm, double alpha) const {
    int64_t evidence[2 * AdaptedMemo::kLevels];
    size_t n = 0;
    Evidence(gap, symbol, [&](int64_t count, int64_t total) {
      evidence[n++] = count;
      evidence[n++] = total;
    });
    static thread_local AdaptedMemo memo;
    return memo.Get(lm, alpha, evidence, n / 2, [&] {
      double p = std::pow(10.0, lm);
      for (size_t i = 0; i < n; i += 2)
        p = (static_cast<double>(evidence[i]) + alpha * p) / (static_cast<double>(evidence[i + 1]) + alpha);
      return std::log10(p);
    });
  }

  py::object adapted(const py::buffer &gaps, const py::buffer &symbols, const py::buffer &lm, double alpha) const {
    View<int64_t> G(gaps, "gaps"), S(symbols, "symbols");
    View<double> L(lm, "lm");
    if (S.size() != G.size() || L.size() != G.size()) throw std::invalid_argument("adapted: one symbol and score per gap");
    std::vector<double> out(G.size());
    for (size_t i = 0; i < G.size(); ++i) {
      if (G[i] < 0 || static_cast<size_t>(G[i]) >= gaps_count()) throw std::out_of_range("adapted: no such gap");
      out[i] = Adapted(G[i], S[i], L[i], alpha);
    }
    return to_array(out);
  }

  // (counts, totals) of symbol ids `symbols` at gaps `gaps`, one row per gap and one column per level (flat).
  py::tuple evidence(const py::buffer &gaps, const py::buffer &symbols) const {
    View<int64_t> G(gaps, "gaps"), S(symbols, "symbols");
    if (S.size() != G.size()) throw std::invalid_argument("evidence: one symbol per gap");
    std::vector<int64_t> counts, totals;
    for (size_t i = 0; i < G.size(); ++i) {
      if (G[i] < 0 || static_cast<size_t>(G[i]) >= gaps_count()) throw std::out_of_range("evidence: no such gap");
      Evidence(G[i], S[i], [&](int64_t count, int64_t total) {
        counts.push_back(count);
        totals.push_back(total);
      });
    }
    return py::make_tuple(to_array(counts), to_array(totals));
  }

  int64_t gap_id(size_t gap) const { return gap_ids_[gap]; }

 private:
  size_t gaps_count() const { return gap_ids_.size(); }

  int64_t hash(int64_t symbol) const {
    if (symbol < 0 || static_cast<size_t>(symbol) >= hashes_->size())
      throw std::out_of_range("StyleCache: a symbol without its hash");
    return (*hashes_)[symbol];
  }

  static Counts table(const py::handle &level, const char *what) {
    auto t = level.cast<py::tuple>();
    if (t.size() != 2) throw std::invalid_argument(std::string("StyleCache: (pair keys, pair counts) per ") + what + " level");
    return Counts(t[0].cast<py::buffer>(), t[1].cast<py::buffer>());
  }

  std::vector<int64_t> gap_ids_, narrow_;   // per gap
  std::vector<int64_t> narrow_total_;       // per gap: how often its narrow context occurs in the file
  std::vector<std::pair<size_t, size_t>> narrow_pairs_;   // per gap: own_'s rows of its narrow context
  Counts own_;   // the file's (narrow context, gap symbol) pairs
  std::vector<WideLevel> wide_;
  std::shared_ptr<View<int64_t>> hashes_;
};

// The whitespace habits (ranker/habits.py): each variable's value scored by its Dirichlet posterior around a
// prior, each gap's own values left out of the counts when the counts hold the file (`own`).
class Habits {
 public:
  // counts, priors: per variable, per value (counts: besides the file's own, e.g. its folder's); own: the
  // file's gaps count too (their own values left out of their evidence), else the counts alone.
  Habits(const std::vector<std::vector<double>> &counts, const std::vector<std::vector<double>> &priors,
         double strength, bool own)
      : strength_(strength), own_(own) {
    if (counts.size() != kHabits || priors.size() != kHabits) throw std::invalid_argument("Habits: four variables");
    for (int j = 0; j < kHabits; ++j) {
      if (counts[j].size() != priors[j].size() || counts[j].size() > kMaxValues)
        throw std::invalid_argument("Habits: one count and prior per value");
      values_[j] = static_cast<int>(counts[j].size());
      for (int v = 0; v < values_[j]; ++v) {
        extra_[j][v] = counts[j][v];
        prior_[j][v] = priors[j][v];
      }
    }
  }

  // The file's gaps: their four values each (-1: does not apply), flat. With `own`, their counts, plus
  // the counts given, are what the values are scored by.
  void Observe(std::vector<int8_t> observed) {
    if (observed.size() % kHabits) throw std::invalid_argument("Habits: four values per gap");
    observed_ = std::move(observed);
    for (int j = 0; j < kHabits; ++j) {
      double file[kMaxValues] = {};
      if (own_)
        for (size_t g = 0; g < gaps(); ++g) {
          const int8_t v = observed_[g * kHabits + j];
          if (v >= values_[j]) throw std::out_of_range("Habits: no such value");
          if (v >= 0) ++file[v];
        }
      total_[j] = 0;
      for (int v = 0; v < values_[j]; ++v) {
        counts_[j][v] = file[v] + extra_[j][v];
        total_[j] += counts_[j][v];
      }
      used_[j] = true;
      if (j == kEnding) {   // a CR seen: some count of CRLF, CR or mixed line breaks
        used_[j] = false;
        for (int v = 1; v < values_[j]; ++v)
          if (counts_[j][v] != 0) used_[j] = true;
      }
      // each value's term, for each value the gap's own may have (-1: none, or not counted): a few dozen
      // log10 per file instead of six per repair
      for (int v = 0; v < values_[j]; ++v)
        for (int o = -1; o < values_[j]; ++o) {
          const double c = counts_[j][v] - (o == v ? 1.0 : 0.0);
          const double n = total_[j] - (o >= 0 ? 1.0 : 0.0);
          terms_[j][v][o + 1] = std::log10((c + strength_ * prior_[j][v]) / (n + strength_));
        }
    }
  }

  void observe(const py::buffer &observed) { Observe(copy_of<int8_t>(observed, "observed")); }

  // log10 probability of the values v (4) at gap `gap`: the sum over the variables that apply (the line
  // endings only when the rates have seen a CR: an LF file ranks as it did without them).
  double Score(const int8_t *v, size_t gap) const {
    const int8_t *own = own_ ? &observed_[gap * kHabits] : nullptr;
    double sum = 0;
    for (int j = 0; j < kHabits; ++j) {
      if (!used_[j]) continue;
      double term = 0.0;
      if (v[j] >= 0) {
        if (v[j] >= values_[j]) throw std::out_of_range("Habits: no such value");
        term = terms_[j][v[j]][own ? own[j] + 1 : 0];
      }
      sum = j ? sum + term : term;
    }
    return sum;
  }

  // The change in log10 probability when gap `gap` holds values v instead of its own.
  double Change(const int8_t *v, size_t gap) const { return Score(v, gap) - Score(&observed_[gap * kHabits], gap); }

  py::object scores(const py::buffer &values, const py::buffer &at) const {
    View<int8_t> V(values, "values");
    View<int64_t> G(at, "gaps");
    if (V.size() != G.size() * kHabits) throw std::invalid_argument("scores: four values per gap");
    std::vector<double> out(G.size());
    for (size_t i = 0; i < G.size(); ++i) {
      if (G[i] < 0 || static_cast<size_t>(G[i]) >= gaps()) throw std::out_of_range("scores: no such gap");
      out[i] = Score(&V[i * kHabits], G[i]);
    }
    return to_array(out);
  }

  size_t gaps() const { return observed_.size() / kHabits; }

 private:
  double extra_[kHabits][kMaxValues] = {}, counts_[kHabits][kMaxValues] = {}, prior_[kHabits][kMaxValues] = {};
  double total_[kHabits] = {};
  double terms_[kHabits][kMaxValues][kMaxValues + 1] = {};   // per value, per own value + 1
  int values_[kHabits] = {};
  bool used_[kHabits] = {};   // whether a variable counts (Observe)
  double strength_;
  bool own_;
  std::vector<int8_t> observed_;
};

// One file's repairs: planned rows picked per gap, scored a chunk of gaps at a time; the gains of the
// repairs rescored in full, and each offset's best.
class FileRanker {
 public:
  // length: characters in the file; per gap: plan, span [lo, hi), joinable (emptying it keeps its two tokens
  // apart), after_comment (a line comment ends before it), next_newline (the next newline gap measured
  // against it, or -1), its observed symbol's log10 score; cache (or None: not adapted), habits (or None; the
  // ranker observes the file's gaps in a copy of its own, so that one Habits serves every file);
  // top (the K best offsets, None: all), least (only offsets whose gain reaches it, None: all).
  FileRanker(std::shared_ptr<PlanTable> table, int64_t length, const py::buffer &plan, const py::buffer &lo,
             const py::buffer &hi, const py::buffer &joinable, const py::buffer &after_comment,
             const py::buffer &next_newline, const py::buffer &observed_lm, std::shared_ptr<StyleCache> cache,
             std::shared_ptr<Habits> habits, double alpha, std::optional<int64_t> top, std::optional<double> least)
      : table_(std::move(table)), length_(length), plan_(copy_of<int64_t>(plan, "plan")), lo_(copy_of<int64_t>(lo, "lo")),
        hi_(copy_of<int64_t>(hi, "hi")), joinable_(copy_of<uint8_t>(joinable, "joinable")),
        after_comment_(copy_of<uint8_t>(after_comment, "after_comment")),
        next_newline_(copy_of<int64_t>(next_newline, "next_newline")), cache_(std::move(cache)),
        habits_(habits ? std::make_shared<Habits>(*habits) : nullptr), alpha_(alpha), top_(top.value_or(0)),
        least_(least.value_or(kNone)) {
    const size_t gaps = plan_.size();
    if (lo_.size() != gaps || hi_.size() != gaps || joinable_.size() != gaps || after_comment_.size() != gaps ||
        next_newline_.size() != gaps)
      throw std::invalid_argument("FileRanker: one value per gap");
    if (top && *top < 1) throw std::invalid_argument("FileRanker: top must be at least 1");
    for (int64_t p : plan_)
      if (p < 0 || static_cast<size_t>(p) >= table_->plans()) throw std::out_of_range("FileRanker: no such plan");
    for (int64_t g : next_newline_)
      if (g >= static_cast<int64_t>(gaps)) throw std::out_of_range("FileRanker: no such gap");
    if (cache_ && cache_->gaps() != gaps) throw std::invalid_argument("FileRanker: the cache is another file's");
    if (habits_) {   // the habits of each gap are its plan's
      std::vector<int8_t> observed(gaps * kHabits);
      for (size_t g = 0; g < gaps; ++g)
        std::copy_n(&table_->observed_habits_[plan_[g] * kHabits], kHabits, &observed[g * kHabits]);
      habits_->Observe(std::move(observed));
    }
    if (cache_) {   // how much the cache moves each gap's observed symbol's score
      View<double> L(observed_lm, "observed_lm");
      if (L.size() != gaps) throw std::invalid_argument("FileRanker: one observed score per gap");
      observed_cache_.resize(gaps);
      for (size_t g = 0; g < gaps; ++g) observed_cache_[g] = cache_->Adapted(g, cache_->gap_id(g), L[g], alpha_) - L[g];
    }
  }

  // Ranges [lo, hi) of gaps with about `rows` planned repairs each (at least one gap).
  std::vector<std::pair<int64_t, int64_t>> chunks(int64_t rows) const {
    std::vector<std::pair<int64_t, int64_t>> out;
    const int64_t gaps = static_cast<int64_t>(plan_.size());
    int64_t lo = 0, sum = 0;
    for (int64_t g = 0; g < gaps; ++g) {
      const int64_t c = table_->count[plan_[g]];
      if (g > lo && sum + c > rows) {
        out.emplace_back(lo, g);
        lo = g;
        sum = 0;
      }
      sum += c;
    }
    if (lo < gaps) out.emplace_back(lo, gaps);
    return out;
  }

  // Ranks the file (once): its chunks of gaps with about `rows` planned repairs each, one after another, each
  // bounded and rescored in rounds by lm._native's rescoring (`rescoring`, its capsule) of the stream `scored`
  // under `mixture`; finish() hands over the offsets kept.
  void rank(const py::capsule &rescoring, const py::object &mixture, const py::object &scored, int64_t rows) {
    if (ranked_) throw std::logic_error("rank: a FileRanker ranks its file once");
    if (std::strcmp(rescoring.name(), rescoring::kCapsule) != 0)
      throw std::invalid_argument(std::string("rank: the capsule ") + rescoring::kCapsule + " expected");
    const rescoring::Api &api = *rescoring.get_pointer<const rescoring::Api>();
    std::unique_ptr<void, void (*)(void *)> session(api.open(mixture.ptr(), scored.ptr()), api.close);
    if (!session) throw py::error_already_set();
    ranked_ = true;
    py::gil_scoped_release unlocked;
    std::vector<double> first, bound, delta;
    for (const auto &[lo, hi] : chunks(rows)) {
      Start(lo, hi);
      const char *error = nullptr;
      std::unique_ptr<void, void (*)(void *)> rescorer(
          api.make(session.get(), k1_.data(), w1_.data(), k2_.data(), w2_.data(), k1_.size(), &error), api.free);
      if (!rescorer) throw std::out_of_range(error);
      first.resize(rows_.size());
      bound.resize(rows_.size());
      api.bounds(rescorer.get(), first.data(), bound.data());
      Bound(first.data(), bound.data());
      while (!picks_.empty()) {
        delta.resize(picks_.size());
        api.rescore(rescorer.get(), picks_.data(), targets_.data(), picks_.size(), delta.data());
        Take(delta.data());
      }
    }
  }

  // The repairs of gaps [lo, hi) that keep every token, and their symbols' changes for the rescoring (k1_, w1_,
  // k2_, w2_).
  void Start(int64_t lo, int64_t hi) {
    if (lo < 0 || hi > static_cast<int64_t>(plan_.size()) || lo >= hi) throw std::out_of_range("start: bad gap range");
    const PlanTable &t = *table_;
    const size_t m = t.models_;
    rows_.clear(); gap_.clear(); offset_.clear();
    k1_.clear(); k2_.clear(); w1_.clear(); w2_.clear();
    size_t planned = 0;
    for (int64_t g = lo; g < hi; ++g) planned += static_cast<size_t>(t.count[plan_[g]]);
    for (auto *v : {&rows_, &gap_, &offset_, &k1_, &k2_}) v->reserve(planned);
    w1_.reserve(planned * m);
    w2_.reserve(planned * m);
    for (int64_t g = lo; g < hi; ++g) {
      const int64_t p = plan_[g];
      for (int64_t r = t.start[p]; r < t.start[p] + t.count[p]; ++r) {
        const int where = t.where_[r];
        const int64_t glo = lo_[g], ghi = hi_[g];
        const int64_t first = ghi > glo ? glo + 1 : ghi + 1;
        const int64_t offset = where == FIRST ? first : where == LAST ? ghi
                               : where == MIDDLE ? (ghi - glo >= 3 ? glo + 2 : first) : ghi + 1;
        // not an insertion after the file's last character, and only repairs that keep every token as it is
        if (offset > length_ || (t.empty_[r] && !joinable_[g]) || (after_comment_[g] && !t.breaks_[r])) continue;
        rows_.push_back(r);
        gap_.push_back(g);
        offset_.push_back(offset);
        k1_.push_back(2 * g);
        k2_.push_back(t.second_[r] ? 2 * next_newline_[g] : -1);
        for (size_t j = 0; j < m; ++j) {   // one id a model: push_back (a range insert a row was 2% of the ranking)
          w1_.push_back(t.w1_[r * m + j]);
          w2_.push_back(t.w2_[r * m + j]);
        }
      }
    }
  }

  // The chunk's bounds from the rescoring (per repair, its changed symbol's score F and the bound of its n-gram
  // gain B): the exact style and habit terms are added, and the first repairs to rescore are picked (picks_),
  // with the n-gram gain each must reach (targets_; -inf: any; the rescoring stops one that cannot).
  void Bound(const double *F, const double *B) {
    const size_t n = rows_.size();
    adapt_.assign(n, 0);
    habit_.assign(n, 0);
    bound_.resize(n);
    gain_.assign(n, std::numeric_limits<double>::quiet_NaN());
    size_t run = 0;   // the first repair of gap g (a gap's repairs come one after another)
    for (size_t r = 0; r < n; ++r) {
      const size_t g = static_cast<size_t>(gap_[r]);
      if (r == 0 || gap_[r] != gap_[r - 1]) run = r;
      if (cache_) {
        // a gap's repairs that blame different offsets often make the same change: its style term once
        const int64_t symbol = table_->symbol_[rows_[r]];
        size_t q = run;
        while (q < r && !(table_->symbol_[rows_[q]] == symbol && F[q] == F[r])) ++q;
        adapt_[r] = q < r ? adapt_[q] : (cache_->Adapted(g, symbol, F[r], alpha_) - F[r]) - observed_cache_[g];
      }
      if (habits_) habit_[r] = habits_->Change(&table_->habits_[rows_[r] * kHabits], g);
      bound_[r] = Gain(r, B[r]);
    }
    // each offset's repairs, most promising first (ties: planned first)
    base_ = n ? *std::min_element(offset_.begin(), offset_.end()) : 0;
    const int64_t span = n ? *std::max_element(offset_.begin(), offset_.end()) - base_ + 1 : 0;
    std::vector<int64_t> first_of(span + 1, 0);
    for (size_t r = 0; r < n; ++r) ++first_of[offset_[r] - base_ + 1];
    std::partial_sum(first_of.begin(), first_of.end(), first_of.begin());
    by_offset_.resize(n);
    std::vector<int64_t> fill(first_of.begin(), first_of.end() - 1);
    for (size_t r = 0; r < n; ++r) by_offset_[fill[offset_[r] - base_]++] = static_cast<int64_t>(r);
    offsets_.clear();
    offset_of_.resize(n);
    for (int64_t o = 0; o < span; ++o) {
      if (first_of[o] == first_of[o + 1]) continue;
      // a stable insertion sort: an offset has a few repairs (std::stable_sort allocated a buffer for each)
      for (int64_t i = first_of[o] + 1; i < first_of[o + 1]; ++i) {
        const int64_t r = by_offset_[i];
        int64_t j = i;
        for (; j > first_of[o] && bound_[r] > bound_[by_offset_[j - 1]]; --j) by_offset_[j] = by_offset_[j - 1];
        by_offset_[j] = r;
      }
      for (int64_t i = first_of[o]; i < first_of[o + 1]; ++i) offset_of_[by_offset_[i]] = offsets_.size();
      offsets_.push_back(Offset{first_of[o], first_of[o + 1], kNone, -1});
    }
    batch_ = std::max<int64_t>(64, 4 * top_);
    Select();
  }

  // The gains of the repairs picked, rescored in full (the rescoring's log10 gains; -inf: it stopped short of
  // its target); picks the next repairs to rescore and their targets (none: the chunk is done, and its
  // offsets' best repairs are kept).
  void Take(const double *delta) {
    for (size_t i = 0; i < picks_.size(); ++i) gain_[picks_[i]] = Gain(picks_[i], delta[i]);
    // the best so far of the offsets these repairs blame (ties: planned first); the others' stay as they were
    for (const int64_t r : picks_) {
      Offset &o = offsets_[offset_of_[r]];
      if (gain_[r] > o.best || (gain_[r] == o.best && r < o.row)) {
        o.best = gain_[r];
        o.row = r;
      }
    }
    Select();
  }

  // The kept offsets best first (ties: lower offset): (offsets, gains, gaps, plan rows, complete), where
  // complete tells whether every candidate offset is there (else: the top K, or those reaching least, and
  // perhaps more). Once, at the end: the kept columns are handed over one at a time (a 5 MB file keeps about
  // two million offsets; building all four answers beside them was its ranking's peak of memory).
  py::tuple finish() {
    std::vector<int64_t> order(kept_offset_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      if (kept_gain_[a] != kept_gain_[b]) return kept_gain_[a] > kept_gain_[b];
      return kept_offset_[a] < kept_offset_[b];
    });
    const double need = Need();
    bool complete = !dropped_;
    size_t m = 0;
    for (int64_t i : order) {
      if (kept_gain_[i] < need) {   // exact, but below what is asked: dropped like the rest
        complete = false;
        continue;
      }
      order[m++] = i;
    }
    order.resize(m);
    auto hand_over = [&](auto *kept) {
      std::remove_reference_t<decltype(*kept)> out(m);
      for (size_t i = 0; i < m; ++i) out[i] = (*kept)[order[i]];
      std::remove_reference_t<decltype(*kept)>().swap(*kept);
      return to_array(out);
    };
    py::object offsets = hand_over(&kept_offset_), gains = hand_over(&kept_gain_), gaps = hand_over(&kept_gap_),
               rows = hand_over(&kept_row_);
    return py::make_tuple(offsets, gains, gaps, rows, complete);
  }

  // How many repairs were bounded and how many rescored in full, so far (for the benchmarks).
  std::pair<int64_t, int64_t> counts() const { return {bounded_, rescored_}; }

 private:
  struct Offset {
    int64_t begin, end;   // its repairs: by_offset_[begin .. end), most promising first
    double best;          // the best gain rescored so far (kNone: none)
    int64_t row;          // ... and its repair
  };

  // A repair's gain from its n-gram gain (or bound): the style cache's term, then the habits', then the
  // prior of the error it undoes (each exact before rescoring).
  double Gain(size_t r, double lm) const {
    double g = lm;
    if (cache_) g = g + adapt_[r];
    if (habits_) g = g + habit_[r];
    return g + table_->edit_[rows_[r]];
  }

  // What a gain must reach to matter beyond its own offset: least, and the K-th best gain found so far.
  double Need() const {
    double need = least_;
    if (top_ > 0) {
      std::vector<double> best(kept_gain_);
      for (const Offset &o : offsets_)
        if (o.row >= 0) best.push_back(o.best);
      if (static_cast<int64_t>(best.size()) >= top_) {
        std::nth_element(best.begin(), best.begin() + (top_ - 1), best.end(), std::greater<double>());
        need = std::max(need, best[top_ - 1]);
      }
    }
    return need;
  }

  // The next repairs to rescore: per offset, its most promising one not rescored yet, if its bound can
  // still reach both the offset's best so far and what is needed; for the top K, only the most promising
  // of those, a batch that doubles each round. None left: the chunk's offsets are kept.
  void Select() {
    const double need = Need();
    std::vector<int64_t> &picks = picks_;
    picks.clear();
    for (const Offset &o : offsets_) {
      for (int64_t i = o.begin; i < o.end; ++i) {
        const int64_t r = by_offset_[i];
        if (!std::isnan(gain_[r])) continue;
        if (bound_[r] + kMargin >= std::max(need, o.best)) picks.push_back(r);
        break;   // the rest of this offset's repairs are less promising
      }
    }
    if (top_ > 0 && static_cast<int64_t>(picks.size()) > batch_) {
      std::stable_sort(picks.begin(), picks.end(), [&](int64_t a, int64_t b) { return bound_[a] > bound_[b]; });
      picks.resize(batch_);
      batch_ *= 2;
    }
    std::sort(picks.begin(), picks.end());
    if (picks.empty()) Keep();
    rescored_ += static_cast<int64_t>(picks.size());
    // each repair's target for lm._native: the n-gram gain that would bring it to what it must reach, less
    // the margin
    targets_.resize(picks.size());
    for (size_t i = 0; i < picks.size(); ++i) {
      const int64_t r = picks[i];
      const double must = std::max(need, offsets_[offset_of_[r]].best);
      targets_[i] = must == kNone ? kNone : (((must - table_->edit_[rows_[r]]) - adapt_[r]) - habit_[r]) - kMargin;
    }
  }

  // The chunk's offsets with their best repairs; without a top K or least, every offset (all are exact).
  void Keep() {
    bounded_ += static_cast<int64_t>(rows_.size());
    if (kept_offset_.capacity() == 0) {   // room for every offset, so that they are never copied to grow
      // (pages never written take no memory)
      const size_t most = static_cast<size_t>(length_) + 1;
      kept_offset_.reserve(most); kept_gap_.reserve(most); kept_row_.reserve(most); kept_gain_.reserve(most);
    }
    const double need = Need();
    for (const Offset &o : offsets_) {
      if (o.row < 0 || o.best < need) {   // not rescored, or perhaps not its best: below what is asked
        dropped_ = true;
        continue;
      }
      kept_offset_.push_back(offset_[o.row]);
      kept_gain_.push_back(o.best);
      kept_gap_.push_back(gap_[o.row]);
      kept_row_.push_back(rows_[o.row]);
    }
    offsets_.clear();
    rows_.clear(); gap_.clear(); offset_.clear(); bound_.clear(); gain_.clear(); adapt_.clear(); habit_.clear();
    by_offset_.clear();
    offset_of_.clear();
  }

  std::shared_ptr<PlanTable> table_;
  const int64_t length_;
  std::vector<int64_t> plan_, lo_, hi_;
  std::vector<uint8_t> joinable_, after_comment_;
  std::vector<int64_t> next_newline_;
  std::shared_ptr<StyleCache> cache_;
  std::shared_ptr<Habits> habits_;
  std::vector<double> observed_cache_;
  const double alpha_;
  const int64_t top_;
  const double least_;
  // the current chunk, per repair: its plan row, gap and offset, its symbols' changes (w1_ and w2_: one id a
  // model)
  std::vector<int64_t> rows_, gap_, offset_, k1_, k2_;
  std::vector<uint32_t> w1_, w2_;
  std::vector<int64_t> picks_;    // the repairs to rescore next, and the n-gram gain each must reach
  std::vector<double> targets_;
  std::vector<double> bound_, gain_, adapt_, habit_;
  std::vector<int64_t> by_offset_;
  std::vector<size_t> offset_of_;   // per repair: its offset's index in offsets_
  std::vector<Offset> offsets_;
  int64_t base_ = 0, batch_ = 64;
  // the offsets kept, from every chunk so far
  std::vector<int64_t> kept_offset_, kept_gap_, kept_row_;
  std::vector<double> kept_gain_;
  bool dropped_ = false, ranked_ = false;
  int64_t bounded_ = 0, rescored_ = 0;
};

// The CodRep 2019 ranking of a file of `length` characters: the candidates in order, then every other
// offset 1..length ascending; at most `limit` of them (-1: all), space-separated.
py::str format_ranking(const py::buffer &candidates, int64_t length, int64_t limit) {
  View<int64_t> C(candidates, "candidates");
  if (limit < 0 || limit > length) limit = length;
  std::vector<char> seen(length + 1, 0);
  // written straight into a buffer of the longest line, then copied once into an ASCII str (appending to a
  // std::string, then decoding it as UTF-8, was 2% of a ranking)
  const size_t widest = std::to_string(std::max<int64_t>(length, 0)).size() + 1;
  std::unique_ptr<char[]> buffer(new char[std::max<size_t>(1, static_cast<size_t>(limit) * widest)]);
  char *at = buffer.get(), *const end = buffer.get() + static_cast<size_t>(limit) * widest;
  int64_t written = 0;
  auto put = [&](int64_t offset) {
    if (written++) *at++ = ' ';
    at = std::to_chars(at, end, offset).ptr;
  };
  for (size_t i = 0; i < C.size() && written < limit; ++i) {
    const int64_t o = C[i];
    if (o < 1 || o > length || seen[o]) throw std::invalid_argument("format_ranking: bad candidate offset");
    seen[o] = 1;
    put(o);
  }
  for (int64_t o = 1; o <= length && written < limit; ++o)
    if (!seen[o]) put(o);
  const Py_ssize_t size = at - buffer.get();
  PyObject *out = PyUnicode_New(size, 127);
  if (!out) throw py::error_already_set();
  std::memcpy(PyUnicode_DATA(out), buffer.get(), static_cast<size_t>(size));
  return py::reinterpret_steal<py::str>(out);
}

// Every offset 1..length: the candidates in order, then every other offset ascending.
py::object all_offsets(const py::buffer &candidates, int64_t length) {
  View<int64_t> C(candidates, "candidates");
  std::vector<char> seen(length + 1, 0);
  std::vector<int64_t> out;
  out.reserve(length);
  for (size_t i = 0; i < C.size(); ++i) {
    const int64_t o = C[i];
    if (o < 1 || o > length || seen[o]) throw std::invalid_argument("all_offsets: bad candidate offset");
    seen[o] = 1;
    out.push_back(o);
  }
  for (int64_t o = 1; o <= length; ++o)
    if (!seen[o]) out.push_back(o);
  return to_array(out);
}

}  // namespace

// Rows `index` of a table of `width` items per row, flat: a file's per-symbol (or per-gap) values from the
// process's per-id tables of the kind-units walk (ranker/walk.py).
template <class T>
py::object Gather(const py::buffer &table_buffer, const py::buffer &index_buffer, int64_t width) {
  View<T> table(table_buffer, "table");
  View<int64_t> index(index_buffer, "index");
  const size_t w = static_cast<size_t>(width), rows = w ? table.size() / w : 0;
  std::vector<T> out(index.size() * w);
  for (size_t i = 0; i < index.size(); ++i) {
    const auto row = static_cast<size_t>(index[i]);
    if (row >= rows) throw std::out_of_range("gather: index past the table");
    std::copy(table.data() + row * w, table.data() + (row + 1) * w, out.data() + i * w);
  }
  return to_array(out);
}

PYBIND11_MODULE(_native, m) {
  m.doc() = "The ranker's per-repair arithmetic (see ranker/native.cpp)";
  py::class_<PlanTable, std::shared_ptr<PlanTable>>(m, "PlanTable")
      .def(py::init<int>(), py::arg("models"))
      .def("add", &PlanTable::add, py::arg("where"), py::arg("w1"), py::arg("second"), py::arg("w2"),
           py::arg("symbol"), py::arg("empty"), py::arg("breaks"), py::arg("habits"), py::arg("observed_habits"),
           py::arg("edit"))
      .def_property_readonly("plans", &PlanTable::plans)
      .def_property_readonly("rows", &PlanTable::rows)
      .def("start", [](const PlanTable &t, int64_t p) { return t.start.at(p); })
      .def("count", [](const PlanTable &t, int64_t p) { return t.count.at(p); })
      .def("column", &PlanTable::column, py::arg("name"), py::arg("rows"));
  py::class_<StyleCache, std::shared_ptr<StyleCache>>(m, "StyleCache")
      .def(py::init<const py::buffer &, const std::optional<py::buffer> &, const std::vector<int> &,
                    const std::optional<py::list> &, const std::optional<py::list> &>(),
           py::arg("ids"), py::arg("hashes") = py::none(), py::arg("reaches") = std::vector<int>(),
           py::arg("folder") = py::none(), py::arg("exclude") = py::none())
      .def_property_readonly("levels", &StyleCache::levels)
      .def("adapted", &StyleCache::adapted, py::arg("gaps"), py::arg("symbols"), py::arg("lm"), py::arg("alpha"))
      .def("evidence", &StyleCache::evidence, py::arg("gaps"), py::arg("symbols"));
  py::class_<Habits, std::shared_ptr<Habits>>(m, "Habits")
      .def(py::init<const std::vector<std::vector<double>> &, const std::vector<std::vector<double>> &, double, bool>(),
           py::arg("counts"), py::arg("priors"), py::arg("strength"), py::arg("own"))
      .def("observe", &Habits::observe, py::arg("observed"))
      .def("scores", &Habits::scores, py::arg("values"), py::arg("gaps"));
  py::class_<FileRanker>(m, "FileRanker")
      .def(py::init<std::shared_ptr<PlanTable>, int64_t, const py::buffer &, const py::buffer &, const py::buffer &,
                    const py::buffer &, const py::buffer &, const py::buffer &, const py::buffer &,
                    std::shared_ptr<StyleCache>, std::shared_ptr<Habits>, double, std::optional<int64_t>,
                    std::optional<double>>(),
           py::arg("table"), py::arg("length"), py::arg("plan"), py::arg("lo"), py::arg("hi"), py::arg("joinable"),
           py::arg("after_comment"), py::arg("next_newline"), py::arg("observed_lm"), py::arg("cache"),
           py::arg("habits"), py::arg("alpha"), py::arg("top"), py::arg("least"))
      .def("chunks", &FileRanker::chunks, py::arg("rows"))
      .def("rank", &FileRanker::rank, py::arg("rescoring"), py::arg("mixture"), py::arg("scored"), py::arg("rows"))
      .def("finish", &FileRanker::finish)
      .def("counts", &FileRanker::counts);
  m.def("format_ranking", &format_ranking, py::arg("candidates"), py::arg("length"), py::arg("limit") = -1);
  m.def("gather_ids", &Gather<uint32_t>, py::arg("table"), py::arg("index"), py::arg("width"));
  m.def("gather", &Gather<int64_t>, py::arg("table"), py::arg("index"), py::arg("width") = 1);
  m.def("all_offsets", &all_offsets, py::arg("candidates"), py::arg("length"));
  m.def("wide_contexts", &wide_contexts, py::arg("token_hashes"), py::arg("reach"), py::arg("pad"));
}
