// automata._native: Blue-Fringe EDSM (automata/merging.py's Hypothesis + edsm_steps) in C++.
//
// The Python learner spent its time in try_merge's loop, so the auto learner's cross-validation needed a
// wall-clock budget and two runs could differ. This is the same algorithm step for step: children keep
// Python's dict insertion order (a graft is appended, an undo pops it), ties break the same way, and the
// score cache is dropped by the same readers, so it returns the very machine merging.edsm returns (the tests
// compare them). Work is counted (folded pairs, symbols compared, scores looked up, edges scanned for blue
// states) so that a budget can be a number rather than seconds.
// Built by `make setup`.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace {

template <class T>
using In = py::array_t<T, py::array::c_style | py::array::forcecast>;

constexpr long NONE = LONG_MIN;  // try_merge's None: the labels conflict

struct OutOfWork {};

struct Hypothesis {
  int k = 0, n = 0;
  std::vector<int> child;                  // n * k, -1 where missing
  std::vector<std::vector<int>> order;     // per node, its symbols in insertion order
  std::vector<long> pos, neg, pt, nt;
  std::vector<int> red, rank;
  std::vector<char> is_red;
  bool sinks = false, dead_conflict = false;
  long alive_w = 0;
  double set_log = 0;  // > 0: the statistical alive-symbol test, refusing below probability exp(-set_log)
  long merges = 0;
  long long work = 0, max_work = -1;

  // Scratch reused by every test.
  struct Label { int r; long pr, nr, ptr, ntr; };
  std::vector<Label> labels_log;
  std::vector<long> ept;  // with set_log: distinct positive strings per edge (node * k + symbol), folded too
  std::vector<std::pair<size_t, long>> ept_log;
  std::vector<std::pair<int, int>> grafts, stack;

  int& at(int v, int a) { return child[static_cast<size_t>(v) * k + a]; }

  long try_merge(int r0, int parent, int sym, int blue, bool commit, std::vector<int>* touched) {
    labels_log.clear();
    ept_log.clear();
    grafts.clear();
    stack.clear();
    at(parent, sym) = r0;
    long score = 0;
    bool ok = true;
    stack.emplace_back(r0, blue);
    if (touched) touched->push_back(parent);
    while (!stack.empty()) {
      auto [r, b] = stack.back();
      stack.pop_back();
      ++work;
      if (touched) { touched->push_back(r); touched->push_back(b); }
      const long pb = pos[b], nb = neg[b], pr = pos[r], nr = neg[r];
      if ((pb && nr) || (nb && pr)) { ok = false; break; }
      if ((pb || nb) && (pr || nr)) ++score;
      const long ptb = pt[b], ptr = pt[r];
      if (dead_conflict && ((ptb == 0 && ptr > 0) || (ptr == 0 && ptb > 0))) { ok = false; break; }
      if (ptb && ptr) {
        score += alive_w;
        if (set_log > 0) {
          // A symbol some positive string takes from one node and none from the other: had the c strings
          // that take it been spread over both nodes' visits alike, all c would miss the other node with
          // probability (n_has / n_all)^c. Edge counts, not the child's, since a loop's child is the node.
          bool same = true;
          work += k;
          const long* eb = &ept[static_cast<size_t>(b) * k];
          const long* er = &ept[static_cast<size_t>(r) * k];
          for (int a = 0; a < k; ++a) {
            if ((eb[a] == 0) == (er[a] == 0)) continue;
            const long c = eb[a] ? eb[a] : er[a], has = eb[a] ? ptb : ptr;
            if (c * std::log(static_cast<double>(ptb + ptr) / has) > set_log) { same = false; break; }
          }
          if (!same) { ok = false; break; }
        }
      }
      labels_log.push_back({r, pr, nr, ptr, nt[r]});
      if (set_log > 0)
        for (int a : order[b]) {
          const size_t i = static_cast<size_t>(r) * k + a;
          ept_log.emplace_back(i, ept[i]);
          ept[i] += ept[static_cast<size_t>(b) * k + a];
        }
      pos[r] = pr + pb;
      neg[r] = nr + nb;
      pt[r] = ptr + ptb;
      nt[r] += nt[b];
      const size_t m = order[b].size();
      for (size_t i = 0; i < m; ++i) {
        const int a = order[b][i], cb = at(b, a), c = at(r, a);
        if (c < 0) {
          at(r, a) = cb;
          order[r].push_back(a);
          grafts.emplace_back(r, a);
        } else {
          stack.emplace_back(c, cb);
        }
      }
    }
    if (ok && commit) {
      ++merges;
      return score;
    }
    for (auto it = grafts.rbegin(); it != grafts.rend(); ++it) {
      at(it->first, it->second) = -1;
      order[it->first].pop_back();  // grafts are undone last-first, so each is its node's last symbol
    }
    for (auto it = ept_log.rbegin(); it != ept_log.rend(); ++it) ept[it->first] = it->second;
    for (auto it = labels_log.rbegin(); it != labels_log.rend(); ++it) {
      pos[it->r] = it->pr;
      neg[it->r] = it->nr;
      pt[it->r] = it->ptr;
      nt[it->r] = it->ntr;
    }
    at(parent, sym) = blue;
    return ok ? score : NONE;
  }

  struct Blue { int parent, sym, node; };

  // The nodes a test read, each once (Python's set(touched)).
  static std::vector<int>& distinct(std::vector<int>& nodes) {
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return nodes;
  }

  std::vector<Blue> blues() const {
    std::vector<Blue> out;
    for (int r : red)
      for (int a : order[r]) {
        const int c = child[static_cast<size_t>(r) * k + a];
        if (!is_red[c] && !(sinks && pt[c] == 0)) out.push_back({r, a, c});
      }
    std::stable_sort(out.begin(), out.end(), [&](const Blue& x, const Blue& y) { return rank[x.node] < rank[y.node]; });
    return out;
  }

  void promote(int b) {
    red.push_back(b);
    is_red[b] = 1;
  }

  void run(long min_score, int max_red, int max_blues) {
    std::unordered_map<long long, long> cache;
    std::vector<std::vector<long long>> readers(n);
    std::vector<int> touched;
    auto score = [&](int r, int parent, int sym, int blue) {
      const long long key = static_cast<long long>(r) * n + blue;
      ++work;
      auto it = cache.find(key);
      if (it != cache.end()) return it->second;
      touched.clear();
      const long s = try_merge(r, parent, sym, blue, false, &touched);
      cache.emplace(key, s);
      for (int v : distinct(touched)) readers[v].push_back(key);
      return s;
    };
    while (true) {
      if (max_work >= 0 && work > max_work) throw OutOfWork{};
      std::vector<Blue> considered = blues();
      if (considered.empty()) return;
      work += static_cast<long long>(red.size()) * k;  // what finding the blues cost
      if (max_blues > 0 && static_cast<int>(considered.size()) > max_blues) {
        std::stable_sort(considered.begin(), considered.end(), [&](const Blue& x, const Blue& y) {
          const long dx = pt[x.node] + nt[x.node], dy = pt[y.node] + nt[y.node];
          if (dx != dy) return dx > dy;
          return rank[x.node] < rank[y.node];
        });
        considered.resize(max_blues);
      }
      bool have = false, promoted = false;
      long best_s = 0;
      int best_r = 0;
      Blue best_b{};
      for (const Blue& b : considered) {
        bool found = false;
        for (int r : red) {
          const long s = score(r, b.parent, b.sym, b.node);
          if (s == NONE) continue;
          found = true;
          if (!have || s > best_s) { have = true; best_s = s; best_r = r; best_b = b; }
        }
        if (!found) {
          promote(b.node);
          promoted = true;
          break;
        }
      }
      if (promoted) continue;
      if (best_s < min_score && static_cast<int>(red.size()) < max_red) {
        promote(considered[0].node);
      } else {
        touched.clear();
        try_merge(best_r, best_b.parent, best_b.sym, best_b.node, true, &touched);
        for (int v : distinct(touched)) {
          for (long long key : readers[v]) cache.erase(key);
          readers[v].clear();
        }
      }
    }
  }
};

// edges: (node, symbol, child) rows in the APTA's order (each node's children in insertion order); children
// have larger ids than their parent. Returns (delta, accepting, merges, work), or None past max_work.
py::object edsm(int n, int k, In<int> edges, In<long> pos, In<long> neg, long min_score, bool sinks,
                bool dead_conflict, long alive_weight, int max_blues, int max_red,
                bool unlabelled_accepts, long long max_work, double set_log) {
  auto E = edges.unchecked<2>();
  Hypothesis h;
  h.k = k;
  h.n = n;
  h.child.assign(static_cast<size_t>(n) * k, -1);
  h.order.assign(n, {});
  std::vector<int> parent(n, -1);
  for (ssize_t i = 0; i < E.shape(0); ++i) {
    const int v = E(i, 0), a = E(i, 1), c = E(i, 2);
    if (v < 0 || v >= n || c <= v || c >= n || a < 0 || a >= k) throw std::invalid_argument("edsm: bad edge");
    h.at(v, a) = c;
    h.order[v].push_back(a);
    parent[c] = v;
  }
  auto P = pos.unchecked<1>();
  auto N = neg.unchecked<1>();
  h.pos.resize(n);
  h.neg.resize(n);
  h.pt.resize(n);
  h.nt.resize(n);
  for (int v = 0; v < n; ++v) {
    h.pos[v] = P(v);
    h.neg[v] = N(v);
    h.pt[v] = P(v) ? 1 : 0;  // distinct strings through a node, as merging._through_counts
    h.nt[v] = N(v) ? 1 : 0;
  }
  for (int v = n - 1; v > 0; --v) {
    h.pt[parent[v]] += h.pt[v];
    h.nt[parent[v]] += h.nt[v];
  }
  // Shortlex rank: breadth first, children by symbol.
  h.rank.assign(n, 0);
  {
    std::vector<int> q{0};
    for (size_t i = 0; i < q.size(); ++i) {
      h.rank[q[i]] = static_cast<int>(i);
      for (int a = 0; a < k; ++a)
        if (h.at(q[i], a) >= 0) q.push_back(h.at(q[i], a));
    }
  }
  h.red = {0};
  h.is_red.assign(n, 0);
  h.is_red[0] = 1;
  h.sinks = sinks;
  h.dead_conflict = dead_conflict;
  h.alive_w = alive_weight;
  h.set_log = set_log;
  if (set_log > 0) {
    h.ept.assign(static_cast<size_t>(n) * k, 0);
    for (int v = 0; v < n; ++v)
      for (int a : h.order[v]) h.ept[static_cast<size_t>(v) * k + a] = h.pt[h.at(v, a)];
  }
  h.max_work = max_work;
  try {
    py::gil_scoped_release release;
    h.run(min_score, max_red, max_blues);
  } catch (const OutOfWork&) {
    return py::none();
  }
  // The machine: red states reached breadth first, symbols in order; sinks' transitions stay missing.
  std::vector<int> index(n, -1), states{0};
  index[0] = 0;
  for (size_t i = 0; i < states.size(); ++i)
    for (int a = 0; a < k; ++a) {
      const int c = h.at(states[i], a);
      if (c < 0 || (sinks && h.pt[c] == 0) || index[c] >= 0) continue;
      index[c] = static_cast<int>(states.size());
      states.push_back(c);
    }
  const ssize_t m = static_cast<ssize_t>(states.size());
  py::array_t<int32_t> delta({m, static_cast<ssize_t>(k)});
  py::array_t<bool> acc(m);
  auto D = delta.mutable_unchecked<2>();
  auto A = acc.mutable_unchecked<1>();
  for (ssize_t q = 0; q < m; ++q) {
    const int v = states[q];
    A(q) = h.pos[v] > 0 || (unlabelled_accepts && h.neg[v] == 0);
    for (int a = 0; a < k; ++a) {
      const int c = h.at(v, a);
      D(q, a) = (c >= 0 && index[c] >= 0) ? index[c] : -1;
    }
  }
  return py::make_tuple(delta, acc, h.merges, h.work);
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "Blue-Fringe EDSM state merging (automata/merging.py) in C++";
  m.def("edsm", &edsm, py::arg("n"), py::arg("k"), py::arg("edges"), py::arg("pos"), py::arg("neg"),
        py::arg("min_score"), py::arg("sinks"), py::arg("dead_conflict"), py::arg("alive_weight"),
        py::arg("max_blues"), py::arg("max_red"), py::arg("unlabelled_accepts"),
        py::arg("max_work"), py::arg("set_log") = 0.0);
}
