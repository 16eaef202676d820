// parsing._native: the leaves of a tree-sitter-java parse, walked in C.
//
// Walking the tree with py-tree-sitter's cursor costs a Python call per node, which was a fifth of ranking
// time. This parses with tree-sitter's own C runtime (compiled by `make setup` from the tree-sitter source
// package on PyPI, the version the Python binding has) and the grammar of the installed tree-sitter-java
// package, and walks the tree exactly as parsing.java documents: every non-empty leaf, except that nodes
// of the `whole` kinds are taken whole.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

extern "C" {
#include <tree_sitter/api.h>
}

#include "../unnatural/buffers.hh"

namespace py = pybind11;
using buffers::to_array;

namespace {

// Strings interned to dense ids, for the lifetime of a walker (a process): what the units walk hands out.
class Interned {
 public:
  int64_t id(std::string_view s) {
    auto it = index_.find(std::string(s));
    if (it != index_.end()) return it->second;
    const int64_t i = static_cast<int64_t>(names_.size());
    names_.emplace_back(s);
    index_.emplace(names_.back(), i);
    return i;
  }
  const std::string &name(int64_t i) const { return names_.at(static_cast<size_t>(i)); }
  size_t size() const { return names_.size(); }

 private:
  std::unordered_map<std::string, int64_t> index_;
  std::vector<std::string> names_;
};

struct KeyHash {
  size_t operator()(const std::array<int64_t, 4> &k) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t x : k) h = (h ^ static_cast<uint64_t>(x)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};

bool AsciiSpace(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// What follows the last line break of `s` (all of it when it has none): parsing.offsets.last_line.
std::string_view LastLine(std::string_view s) {
  const size_t at = s.find_last_of("\n\r");
  return at == std::string_view::npos ? s : s.substr(at + 1);
}

// parsing.style.columns: a tab moves to the next multiple of 4.
int64_t Columns(std::string_view indent) {
  int64_t col = 0;
  for (char c : indent) col = c == '\t' ? (col / 4 + 1) * 4 : col + 1;
  return col;
}

// parsing.style.indentation_of, on the last lines of the line gaps: the file's unit.
std::string UnitOf(const std::vector<std::string_view> &indents) {
  int64_t tabs = 0;
  std::vector<int64_t> widths;
  for (std::string_view i : indents) {
    if (i.empty()) continue;
    if (i[0] == '\t') ++tabs;
    else if (i[0] == ' ') widths.push_back(static_cast<int64_t>(std::min(i.find_first_not_of(' '), i.size())));
  }
  if (tabs && tabs >= static_cast<int64_t>(widths.size())) return "\t";
  auto share = [](int64_t unit, const std::vector<int64_t> &of) {
    int64_t whole = 0;
    for (int64_t w : of) whole += w % unit == 0;
    return static_cast<double>(whole) / static_cast<double>(std::max<size_t>(1, of.size()));
  };
  int64_t unit;
  if (share(2, widths) >= 0.8) unit = 2;
  else if (share(3, widths) >= 0.8) return "   ";
  else return "    ";
  std::map<int64_t, int64_t> at;
  for (int64_t w : widths) ++at[w];
  while (unit < 8) {
    int64_t whole = 0, odd = 0;
    for (int64_t w : widths)
      if (w % unit == 0) ++whole, odd += (w / unit) % 2;
    const double odd_share = static_cast<double>(odd) / static_cast<double>(std::max<int64_t>(1, whole));
    const int64_t here = at.count(unit) ? at[unit] : 0;
    const bool alignment = here == 0 || (here == 1 && share(2 * unit, widths) >= 0.8);
    if ((odd_share >= (unit == 2 ? 0.10 : 0.05) && !alignment) || (unit == 4 && whole < 20)) break;
    unit *= 2;
  }
  return std::string(static_cast<size_t>(unit), ' ');
}

// parsing.schemes._runs: '  \t' -> 's2t1'.
void Runs(std::string_view ws, std::string *out) {
  char prev = 0;
  int64_t count = 0;
  for (char c : ws) {
    const char letter = c == ' ' ? 's' : c == '\t' ? 't' : c == '\f' ? 'f' : c == '\r' ? 'r' : c == '\v' ? 'v' : 'u';
    if (letter == prev) {
      ++count;
    } else {
      if (prev) *out += prev + std::to_string(count);
      prev = letter;
      count = 1;
    }
  }
  if (prev) *out += prev + std::to_string(count);
}

const char kGapMark[] = "\xc2\xb7";   // parsing.schemes.GAP_MARK, '·'

// parsing.schemes.gap_symbol(gap, indent, unit) for a unit (the kind-units scheme).
std::string UnitsGapSymbol(std::string_view gap, std::string_view indent, std::string_view unit) {
  std::string out = kGapMark;
  if (gap.find_first_of("\n\r") == std::string_view::npos) {
    Runs(gap, &out);
    return out;
  }
  int64_t newlines = 0;
  for (size_t i = 0; i < gap.size(); ++i)
    if (gap[i] == '\n' || (gap[i] == '\r' && (i + 1 == gap.size() || gap[i + 1] != '\n'))) ++newlines;
  const int64_t width = unit == "\t" ? 4 : static_cast<int64_t>(unit.size());
  const int64_t c1 = Columns(LastLine(gap)), c0 = Columns(indent);
  const int64_t l1 = c1 / width, r1 = c1 % width, l0 = c0 / width, r0 = c0 % width;
  out += "n" + std::to_string(newlines);
  if (l1 == l0 && r1 == r0) {
    out += "=";
  } else {
    out += (l1 >= l0 ? "+" : "") + std::to_string(l1 - l0);
    if (r1) out += "r" + std::to_string(r1);
    if (r0) out += "f" + std::to_string(r0);
  }
  return out;
}

class Leaves {
 public:
  // `language`: the capsule tree_sitter_java.language() returns; `whole`: kinds kept whole.
  Leaves(py::capsule language, const std::vector<std::string> &whole)
      : language_(static_cast<const TSLanguage *>(language.get_pointer())), parser_(ts_parser_new()),
        whole_(1 << 16, false) {
    if (!ts_parser_set_language(parser_, language_)) throw std::runtime_error("tree-sitter: incompatible grammar");
    for (uint32_t s = 0; s < 1 << 16; ++s) {
      const char *name = ts_language_symbol_name(language_, static_cast<TSSymbol>(s));
      if (!name) continue;
      for (const auto &w : whole)
        if (w == name) whole_[s] = true;
    }
  }
  ~Leaves() {
    Forget();
    ts_parser_delete(parser_);
  }
  Leaves(const Leaves &) = delete;
  Leaves &operator=(const Leaves &) = delete;

  // The name of a kind id, as py-tree-sitter's Node.type gives it.
  std::string name(uint32_t symbol) const {
    const char *n = ts_language_symbol_name(language_, static_cast<TSSymbol>(symbol));
    return n ? n : "";
  }

  // (kind ids, start bytes, end bytes) of the leaves of `data` parsed as Java, as array.array (no numpy:
  // bin/rank does not import it).
  py::tuple of(py::bytes data) {
    std::string_view text = data;
    std::vector<Leaf> leaves;
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> one_at_a_time(mutex_);
      TSTree *tree = ts_parser_parse_string(parser_, nullptr, text.data(), static_cast<uint32_t>(text.size()));
      Walk(tree, &leaves);
      ts_tree_delete(tree);
    }
    std::vector<uint32_t> kinds(leaves.size());
    std::vector<int64_t> starts(leaves.size()), ends(leaves.size());
    for (size_t i = 0; i < leaves.size(); ++i) {
      kinds[i] = leaves[i].kind;
      starts[i] = leaves[i].start;
      ends[i] = leaves[i].end;
    }
    return py::make_tuple(to_array(kinds), to_array(starts), to_array(ends));
  }

  // The kind-units scheme's token symbols: `fixed` (kind name -> symbol: literals, identifiers, comments),
  // `prefixed` (kind name, text prefix, symbol: a Javadoc), `reserved` (texts KenLM cannot take), and
  // the operators (of two characters or more) whose halves two joined tokens must not form, and the kind
  // of a line comment.
  void units_scheme(const std::map<std::string, std::string> &fixed,
                    const std::vector<std::tuple<std::string, std::string, std::string>> &prefixed,
                    const std::vector<std::string> &reserved, const std::vector<std::string> &operators,
                    const std::string &line_comment) {
    // tables by kind (a TSSymbol), of small items: every forked worker makes them again (as pages of its own)
    fixed_.assign(1 << 16, -1);
    prefixed_at_.assign(1 << 16, 0);
    prefixed_.clear();
    line_comment_.assign(1 << 16, false);
    // the kinds that have names: the language's symbols, and tree-sitter's two error symbols at the top
    std::vector<uint32_t> kinds(ts_language_symbol_count(language_));
    std::iota(kinds.begin(), kinds.end(), 0);
    kinds.push_back((1 << 16) - 2);
    kinds.push_back((1 << 16) - 1);
    for (uint32_t s : kinds) {
      const char *name = ts_language_symbol_name(language_, static_cast<TSSymbol>(s));
      if (!name) continue;
      auto f = fixed.find(name);
      if (f != fixed.end()) fixed_[s] = symbols_.id(f->second);
      for (const auto &[kind, prefix, symbol] : prefixed)
        if (kind == name) {
          if (prefixed_.size() == 255) throw std::invalid_argument("units_scheme: too many prefixed kinds");
          prefixed_.emplace_back(prefix, symbols_.id(symbol));
          prefixed_at_[s] = static_cast<uint8_t>(prefixed_.size());
        }
      line_comment_[s] = line_comment == name;
    }
    reserved_.assign(reserved.begin(), reserved.end());
    tails_.clear();
    for (const std::string &op : operators)
      for (size_t k = 1; k < op.size(); ++k) tails_[op.substr(0, k)].push_back(op.substr(k));
    longest_head_ = 0;
    for (const auto &[head, _] : tails_) longest_head_ = std::max(longest_head_, head.size());
  }

  // The kind-units walk of `data` (UTF-8) from its leaves, in one go: what parsing.java.tokenize and
  // parsing.schemes.walk (with ranker.score.next_newline_gaps and ranker.rank's joinable_gaps and
  // after_line_comment) give, as ids interned for the life of the walker. None when the text is not plain:
  // anything but ASCII whitespace between leaves (a BOM, skipped bytes), overlapping leaves, or a token
  // symbol that is its text and not ASCII; the caller walks it in Python then.
  // (gap starts, gap ends, symbol ids (2n+1), gap text ids, plan key ids, next newline gaps, joinable (2:
  // not told here, a non-ASCII character at the meeting ends), after a line comment, the unit's text id),
  // character offsets 0-based.
  // With `keep`, the leaves are also returned, packed (a few bytes a leaf), as the last item (else None);
  // given back as `parsed` for the same data, they are walked without parsing it again (bin/check's
  // learning pass parses every file before the ranking pass does; for other data they are ignored).
  py::object units(py::bytes data_object, bool keep, std::optional<py::bytes> parsed) {
    if (fixed_.empty()) throw std::logic_error("units: units_scheme not set");
    std::string_view data = data_object;
    std::vector<Leaf> leaves;
    uint32_t error_line = 0;   // the first syntax error's line (1-based; 0: none)
    if (!parsed || !Unpack(*parsed, data, &leaves, &error_line)) {
      leaves.clear();
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> one_at_a_time(mutex_);
      std::string lf;   // parsed with every CR as LF, as parsing.java.tokenize does (one byte for one)
      std::string_view source = data;
      if (data.find('\r') != std::string_view::npos) {
        lf.assign(data);
        for (char &c : lf)
          if (c == '\r') c = '\n';
        source = lf;
      }
      TSTree *tree = ts_parser_parse_string(parser_, nullptr, source.data(), static_cast<uint32_t>(source.size()));
      Walk(tree, &leaves);
      error_line = FirstErrorLine(tree);
      ts_tree_delete(tree);
    }
    const size_t n = leaves.size();
    // the gaps, ASCII whitespace only
    uint32_t at = 0;
    for (const Leaf &leaf : leaves) {
      if (leaf.start < at) return py::none();
      for (uint32_t i = at; i < leaf.start; ++i)
        if (!AsciiSpace(static_cast<unsigned char>(data[i]))) return py::none();
      at = leaf.end;
    }
    for (uint32_t i = at; i < data.size(); ++i)
      if (!AsciiSpace(static_cast<unsigned char>(data[i]))) return py::none();
    auto gap = [&](size_t i) {
      const uint32_t lo = i ? leaves[i - 1].end : 0, hi = i < n ? leaves[i].start : static_cast<uint32_t>(data.size());
      return data.substr(lo, hi - lo);
    };
    auto token = [&](size_t i) { return data.substr(leaves[i].start, leaves[i].end - leaves[i].start); };
    // the token symbols
    std::vector<int64_t> symbols(2 * n + 1);
    for (size_t i = 0; i < n; ++i) {
      const int64_t s = TokenSymbol(leaves[i].kind, token(i));
      if (s < 0) return py::none();
      symbols[2 * i + 1] = s;
    }
    // the unit, from the line gaps' last lines
    std::vector<std::string_view> line_indents;
    for (size_t i = 0; i <= n; ++i) {
      const std::string_view g = gap(i);
      if (g.find_first_of("\n\r") != std::string_view::npos) line_indents.push_back(LastLine(g));
    }
    const std::string unit = UnitOf(line_indents);
    const int64_t unit_id = ws_.id(unit);
    // each gap's text, the indentation it is measured against, its symbol; then the next newline gaps
    std::vector<int64_t> gap_ids(n + 1), indent_ids(n + 1), keys(n + 1), next(n + 1);
    std::vector<uint8_t> line_gap(n + 1), line_token(n + 1, 0);
    int64_t indent = ws_.id("");
    for (size_t i = 0; i <= n; ++i) {
      const std::string_view g = gap(i);
      gap_ids[i] = ws_.id(g);
      indent_ids[i] = indent;
      const std::array<int64_t, 4> key{gap_ids[i], indent, unit_id, -1};
      auto found = gap_symbols_.find(key);
      if (found == gap_symbols_.end())
        found = gap_symbols_.emplace(key, symbols_.id(UnitsGapSymbol(g, ws_.name(indent), unit))).first;
      symbols[2 * i] = found->second;
      line_gap[i] = g.find_first_of("\n\r") != std::string_view::npos;
      if (line_gap[i]) indent = ws_.id(LastLine(g));
      if (i < n) {
        const std::string_view t = token(i);
        if (t.find_first_of("\n\r") != std::string_view::npos) {
          line_token[i] = 1;
          const std::string_view last = LastLine(t);
          indent = ws_.id(last.substr(0, std::min(last.find_first_not_of(" \t\f"), last.size())));
        }
      }
    }
    for (int64_t i = static_cast<int64_t>(n), nxt = -1; i >= 0; --i) {
      if (i < static_cast<int64_t>(n) && line_token[i]) nxt = -1;
      next[i] = nxt;
      if (line_gap[i]) nxt = i;
    }
    for (size_t i = 0; i <= n; ++i) {
      const std::array<int64_t, 4> key{gap_ids[i], indent_ids[i], next[i] >= 0 ? gap_ids[next[i]] : -1, unit_id};
      auto found = keys_index_.find(key);
      if (found == keys_index_.end()) {
        found = keys_index_.emplace(key, static_cast<int64_t>(keys_.size())).first;
        keys_.push_back(key);
      }
      keys[i] = found->second;
    }
    // joinable: only a one-character gap can be emptied by one edit (the ends of the file always can)
    std::vector<uint8_t> joinable(n + 1, 1), after_comment(n + 1, 0);
    for (size_t i = 1; i < n; ++i)
      if (leaves[i].start - leaves[i - 1].end == 1) joinable[i] = Joinable(token(i - 1), token(i));
    for (size_t i = 0; i < n; ++i) after_comment[i + 1] = line_comment_[leaves[i].kind];
    // byte offsets -> character offsets (one pass: the spans are in order)
    std::vector<int64_t> lo(n + 1), hi(n + 1);
    {
      int64_t chars = 0;
      uint32_t b = 0;
      auto to_char = [&](uint32_t to) {
        for (; b < to; ++b) chars += (static_cast<unsigned char>(data[b]) & 0xC0) != 0x80;
        return chars;
      };
      for (size_t i = 0; i <= n; ++i) {
        lo[i] = to_char(i ? leaves[i - 1].end : 0);
        hi[i] = to_char(i < n ? leaves[i].start : static_cast<uint32_t>(data.size()));
      }
    }
    return py::make_tuple(to_array(lo), to_array(hi), to_array(symbols), to_array(gap_ids), to_array(keys),
                          to_array(next), to_array(joinable), to_array(after_comment), unit_id,
                          keep ? py::object(Pack(leaves, data, error_line)) : py::none(), error_line);
  }

  // How many symbols, texts and kinds of gap are interned (what unit_symbols etc. would give from 0).
  std::tuple<size_t, size_t, size_t> unit_sizes() const { return {symbols_.size(), ws_.size(), keys_.size()}; }

  // What units() interned, from id `start` on: symbols, whitespace texts (gaps, indentations, units), and
  // plan keys (gap text, indentation, the next newline gap's text or -1, unit: whitespace text ids).
  std::vector<std::string> unit_symbols(size_t start) const { return Names(symbols_, start); }
  std::vector<std::string> unit_texts(size_t start) const { return Names(ws_, start); }
  std::vector<std::array<int64_t, 4>> unit_keys(size_t start) const {
    return {keys_.begin() + static_cast<ptrdiff_t>(std::min(start, keys_.size())), keys_.end()};
  }

  // Whether `edited` (which is `data` with bytes [start, old_end) replaced by its bytes [start, new_end))
  // splits into the same token texts as `data`, when both are plain: leaves in order with only ASCII
  // whitespace between them, so that parsing.java.tokenize's tokens are the leaves. None when either is not
  // (the caller tokenizes then). `edited` is parsed incrementally from `data`'s tree, which is kept for the
  // next edit of the same text: checking a file's findings costs one parse and a few small reparses.
  py::object same_leaves(py::bytes data, py::bytes edited, uint32_t start, uint32_t old_end, uint32_t new_end) {
    std::string_view before = data, after = edited;
    if (start > old_end || old_end > before.size() || start > new_end || new_end > after.size() ||
        before.size() - old_end != after.size() - new_end)
      throw std::invalid_argument("same_leaves: not an edit of data");
    int verdict;
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> one_at_a_time(mutex_);
      if (!kept_tree_ || kept_data_ != before) {
        if (kept_tree_) ts_tree_delete(kept_tree_);
        kept_data_.assign(before);
        kept_tree_ = ts_parser_parse_string(parser_, nullptr, kept_data_.data(), static_cast<uint32_t>(kept_data_.size()));
        kept_leaves_.clear();
        Walk(kept_tree_, &kept_leaves_);
        kept_plain_ = Plain(kept_leaves_, before);
      }
      TSTree *copy = ts_tree_copy(kept_tree_);
      TSInputEdit edit{start, old_end, new_end, Point(before, start), Point(before, old_end), Point(after, new_end)};
      ts_tree_edit(copy, &edit);
      TSTree *tree = ts_parser_parse_string(parser_, copy, after.data(), static_cast<uint32_t>(after.size()));
      ts_tree_delete(copy);
      std::vector<Leaf> leaves;
      Walk(tree, &leaves);
      ts_tree_delete(tree);
      if (before.size() > kKeepBytes) Forget();   // a large file's tree is not worth its memory afterwards
      if (!kept_plain_ || !Plain(leaves, after)) {
        verdict = -1;
      } else {
        verdict = leaves.size() == kept_leaves_.size();
        for (size_t i = 0; verdict && i < leaves.size(); ++i)
          verdict = before.substr(kept_leaves_[i].start, kept_leaves_[i].end - kept_leaves_[i].start) ==
                    after.substr(leaves[i].start, leaves[i].end - leaves[i].start);
      }
      if (before.size() > kKeepBytes) kept_leaves_.clear();
    }
    if (verdict < 0) return py::none();
    return py::bool_(verdict == 1);
  }

 private:
  struct Leaf {
    uint32_t kind, start, end;
  };

  // The 1-based line of the first syntax error in `tree` (an ERROR or a MISSING node; 0: none), found as
  // parsing.grammar's first_error_line finds it: down the first child that holds one.
  static uint32_t FirstErrorLine(TSTree *tree) {
    TSNode node = ts_tree_root_node(tree);
    if (!ts_node_has_error(node)) return 0;
    while (true) {
      TSNode bad{};
      bool found = false;
      for (uint32_t i = 0, n = ts_node_child_count(node); i < n && !found; ++i) {
        const TSNode c = ts_node_child(node, i);
        if (ts_node_is_error(c) || ts_node_is_missing(c) || ts_node_has_error(c)) bad = c, found = true;
      }
      if (!found) break;
      node = bad;
      if (ts_node_is_error(bad) || ts_node_is_missing(bad)) break;
    }
    return ts_node_start_point(node).row + 1;
  }

  // Leaves packed as varints (kind, the gap before, the length), after the data's size and hash, the first
  // syntax error's line and their count.
  static py::bytes Pack(const std::vector<Leaf> &leaves, std::string_view data, uint32_t error_line) {
    std::string out;
    out.reserve(16 + 4 * leaves.size());
    auto put = [&out](uint64_t x) {
      for (; x >= 0x80; x >>= 7) out += static_cast<char>(x | 0x80);
      out += static_cast<char>(x);
    };
    put(data.size());
    put(std::hash<std::string_view>()(data));
    put(error_line);
    put(leaves.size());
    uint32_t at = 0;
    for (const Leaf &leaf : leaves) {
      put(leaf.kind);
      put(leaf.start - at);
      put(leaf.end - leaf.start);
      at = leaf.end;
    }
    return py::bytes(out);
  }

  // The leaves Pack packed, when they are `data`'s.
  static bool Unpack(std::string_view packed, std::string_view data, std::vector<Leaf> *leaves,
                     uint32_t *error_line) {
    size_t i = 0;
    bool ok = true;
    auto get = [&]() {
      uint64_t x = 0;
      for (int shift = 0; ok; shift += 7) {
        if (i >= packed.size() || shift > 63) {
          ok = false;
          break;
        }
        const auto byte = static_cast<unsigned char>(packed[i++]);
        x |= static_cast<uint64_t>(byte & 0x7F) << shift;
        if (!(byte & 0x80)) break;
      }
      return x;
    };
    if (get() != data.size() || get() != std::hash<std::string_view>()(data) || !ok) return false;
    const uint64_t line = get();
    if (!ok || line > data.size() + 1) return false;
    *error_line = static_cast<uint32_t>(line);
    const uint64_t count = get();
    if (!ok || count > data.size()) return false;
    leaves->reserve(count);
    uint64_t at = 0;
    while (ok && i < packed.size()) {
      const uint64_t kind = get(), start = at + get(), end = start + get();
      if (!ok || kind >= 1 << 16 || end > data.size()) return false;
      leaves->push_back(Leaf{static_cast<uint32_t>(kind), static_cast<uint32_t>(start), static_cast<uint32_t>(end)});
      at = end;
    }
    return ok && leaves->size() == count;
  }

  static std::vector<std::string> Names(const Interned &in, size_t start) {
    std::vector<std::string> out;
    for (size_t i = start; i < in.size(); ++i) out.push_back(in.name(static_cast<int64_t>(i)));
    return out;
  }

  // parsing.schemes._kind_symbol's id, or -1 when its text is not ASCII (Python tells then).
  int64_t TokenSymbol(uint32_t kind, std::string_view text) {
    if (fixed_[kind] >= 0) {
      if (!prefixed_at_[kind]) return fixed_[kind];
      const auto &[prefix, symbol] = prefixed_[prefixed_at_[kind] - 1];
      return !prefix.empty() && text.substr(0, prefix.size()) == prefix ? symbol : fixed_[kind];
    }
    bool space = false;
    for (char c : text) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x80) return -1;
      space = space || AsciiSpace(u) || (u >= 0x1c && u <= 0x1f);   // str.isspace
    }
    if (!text.empty() && !space && std::find(reserved_.begin(), reserved_.end(), text) == reserved_.end())
      return symbols_.id(text);
    std::string upper = ts_language_symbol_name(language_, static_cast<TSSymbol>(kind));
    for (char &c : upper) {
      if (static_cast<unsigned char>(c) >= 0x80) return -1;
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return symbols_.id(upper);
  }

  // ranker.repairs.joinable(left, right[:3]); 2 when a character it asks about is not ASCII.
  uint8_t Joinable(std::string_view left, std::string_view right) const {
    auto ascii = [](char c) { return static_cast<unsigned char>(c) < 0x80; };
    const char a = left.back(), b = right.front();
    if (!ascii(a) || !ascii(b) || !ascii(left[0]) || (left.size() > 1 && !ascii(left[1]))) return 2;
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    const bool number = digit(left[0]) || (left[0] == '.' && left.size() > 1 && digit(left[1]));
    const bool quote_a = a == '"' || a == '\'', quote_b = b == '"' || b == '\'';
    if ((word(a) && word(b)) || (number && b == '.') || (a == '.' && digit(b)) || (quote_a && quote_b)) return 0;
    const std::string_view right3 = right.substr(0, 3);
    for (size_t j = 1; j <= std::min(left.size(), longest_head_); ++j) {
      auto tails = tails_.find(std::string(left.substr(left.size() - j)));
      if (tails == tails_.end()) continue;
      for (const std::string &tail : tails->second)
        if (right3.substr(0, tail.size()) == tail) return 0;
    }
    return 1;
  }

  static constexpr size_t kKeepBytes = 1 << 20;   // texts kept between same_leaves calls: up to this size

  void Forget() {
    if (kept_tree_) ts_tree_delete(kept_tree_);
    kept_tree_ = nullptr;
    kept_data_.clear();
    kept_data_.shrink_to_fit();
  }

  // Every non-empty leaf of `tree`, nodes of the `whole` kinds taken whole (MISSING nodes are empty).
  void Walk(TSTree *tree, std::vector<Leaf> *out) const {
    TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
    while (true) {
      const TSNode node = ts_tree_cursor_current_node(&cursor);
      const TSSymbol symbol = ts_node_symbol(node);
      if (whole_[symbol] || !ts_tree_cursor_goto_first_child(&cursor)) {
        const uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);
        if (e > s) out->push_back(Leaf{symbol, s, e});
        bool done = false;
        while (!ts_tree_cursor_goto_next_sibling(&cursor))
          if (!ts_tree_cursor_goto_parent(&cursor)) {
            done = true;
            break;
          }
        if (done) break;
      }
    }
    ts_tree_cursor_delete(&cursor);
  }

  // Whether the leaves are in order with only ASCII whitespace around them (tokenize's tokens are then
  // exactly the leaves; other whitespace, a BOM or skipped bytes are left to it).
  static bool Plain(const std::vector<Leaf> &leaves, std::string_view text) {
    uint32_t at = 0;
    auto blank = [&](uint32_t from, uint32_t to) {
      for (uint32_t i = from; i < to; ++i) {
        const char c = text[i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
      }
      return true;
    };
    for (const Leaf &leaf : leaves) {
      if (leaf.start < at || !blank(at, leaf.start)) return false;
      at = leaf.end;
    }
    return blank(at, static_cast<uint32_t>(text.size()));
  }

  // The row and column (in bytes) of byte `at`, as tree-sitter counts them.
  static TSPoint Point(std::string_view text, uint32_t at) {
    uint32_t row = 0, line = 0;
    for (uint32_t i = 0; i < at; ++i)
      if (text[i] == '\n') {
        ++row;
        line = i + 1;
      }
    return TSPoint{row, at - line};
  }

  const TSLanguage *language_;
  TSParser *parser_;
  std::mutex mutex_;   // one parser, and the kept tree: one call at a time (the GIL is let go while parsing)
  std::vector<bool> whole_;
  // the last text same_leaves was asked about, its tree and leaves, and whether it is plain
  std::string kept_data_;
  TSTree *kept_tree_ = nullptr;
  std::vector<Leaf> kept_leaves_;
  bool kept_plain_ = false;
  // the kind-units walk: token symbols by kind, the reserved texts, operator heads -> tails, and what it
  // interned (symbols, whitespace texts, gap symbols by (gap, indentation, unit), plan keys)
  std::vector<int64_t> fixed_;
  std::vector<uint8_t> prefixed_at_;   // per kind: 1 + its index in prefixed_, or 0
  std::vector<std::pair<std::string, int64_t>> prefixed_;
  std::vector<bool> line_comment_;
  std::vector<std::string> reserved_;
  std::unordered_map<std::string, std::vector<std::string>> tails_;
  size_t longest_head_ = 0;
  Interned symbols_, ws_;
  std::unordered_map<std::array<int64_t, 4>, int64_t, KeyHash> gap_symbols_, keys_index_;
  std::vector<std::array<int64_t, 4>> keys_;
};

// check/structure.py's statement lines of a token stream, numpy's steps done in one pass each: `codes`, each
// token's small code (0: a token the structure does not read); `starts`, whether each token starts a line;
// `roles`, per code its roles (the Role bits, from check/structure.py's table of symbols: the names live
// there). Returns (each statement line's first token, its kind's index in KINDS, its base's first token).
enum Role : uint16_t {
  kOpenBrace = 1, kCloseBrace = 2, kOpenParen = 4, kCloseParen = 8, kComment = 16, kEnd = 32, kNotBlock = 64,
  kBodyKeyword = 128, kIf = 256, kControl = 512, kLabel = 1024, kColon = 2048, kCase = 4096, kDefault = 8192,
  kParen = 16384,   // '(' itself, whose keyword a control statement's head follows
  kCloseRound = 32768,   // ')' itself
};
enum Kind : int64_t { kStatement = 0, kClose = 1, kLabelKind = 2, kAfterLabel = 3, kBody = 4 };

// For each query (position, level): the last target position before it (or at it, `inclusive`) of the same
// level; -1 where none. Positions ascend in both lists' order of scanning (a token index each).
std::vector<int64_t> LastBefore(const std::vector<int64_t> &targets, const std::vector<int64_t> &target_level,
                                const std::vector<int64_t> &queries, const std::vector<int64_t> &query_level,
                                bool inclusive) {
  std::unordered_map<int64_t, int64_t> last;   // level -> the last target so far
  std::vector<size_t> order(queries.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return queries[a] < queries[b]; });
  std::vector<int64_t> out(queries.size(), -1);
  size_t t = 0;
  for (const size_t q : order) {
    while (t < targets.size() && (targets[t] < queries[q] || (inclusive && targets[t] == queries[q]))) {
      last[target_level[t]] = targets[t];
      ++t;
    }
    const auto it = last.find(query_level[q]);
    out[q] = it == last.end() ? -1 : it->second;
  }
  return out;
}

py::tuple statement_structure(const py::buffer &codes_buffer, const py::buffer &starts_buffer,
                              const py::buffer &roles_buffer) {
  buffers::View<uint8_t> code(codes_buffer, "codes"), starts_line(starts_buffer, "starts");
  buffers::View<uint16_t> roles(roles_buffer, "roles");
  const int64_t n = static_cast<int64_t>(code.size());
  if (static_cast<int64_t>(starts_line.size()) < n) throw std::invalid_argument("structure: a start per token");
  if (roles.size() < 256) throw std::invalid_argument("structure: a role per code");
  std::vector<int64_t> lines, kinds, bases;
  if (n == 0) return py::make_tuple(to_array(lines), to_array(kinds), to_array(bases));
  const auto is = [&](int64_t i, uint16_t role) { return (roles[code[i]] & role) != 0; };
  const auto role_of = [&](int64_t i) -> uint16_t { return i >= 0 ? roles[code[i]] : 0; };   // code 0 past the start
  std::vector<int64_t> depth(n), pdepth(n), prev(n), line_of(n), keyword_at(n, -1);
  std::vector<uint8_t> starts(n), block(n), body(n), candidate(n);
  int64_t d = 0, pd = 0, last_code = -1, line = 0;
  for (int64_t i = 0; i < n; ++i) {
    depth[i] = d;
    pdepth[i] = pd;
    d += is(i, kOpenBrace) - is(i, kCloseBrace);
    pd += is(i, kOpenParen) - is(i, kCloseParen);
    prev[i] = last_code;   // the previous token that is not a comment
    if (!is(i, kComment)) last_code = i;
    starts[i] = starts_line[i] && !is(i, kComment);
    if (starts[i] || i == 0) line = i;
    line_of[i] = line;   // each token's line's first token
  }
  std::vector<int64_t> opened_parens, paren_level, opened_braces, brace_level, shut, shut_level, closing;
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t before = role_of(prev[i]);
    block[i] = is(i, kOpenBrace) && !(before & kNotBlock);
    // an unbraced body: after `else` or `do` (not `else if`: a chain), or after the `)` of a control's head
    body[i] = starts[i] && (before & kBodyKeyword) && !is(i, kIf);
    if (body[i]) keyword_at[i] = prev[i];
    if (is(i, kParen)) {
      opened_parens.push_back(i);
      paren_level.push_back(pdepth[i]);
    }
    if (is(i, kOpenBrace)) {
      opened_braces.push_back(i);
      brace_level.push_back(depth[i] + 1);
    }
    if (starts[i] && (before & kCloseRound)) {
      closing.push_back(i);
      shut.push_back(prev[i]);
      shut_level.push_back(pdepth[prev[i]] - 1);
    }
  }
  const std::vector<int64_t> head = LastBefore(opened_parens, paren_level, shut, shut_level, false);
  for (size_t k = 0; k < closing.size(); ++k) {
    if (head[k] > 0 && (role_of(head[k] - 1) & kControl)) {
      body[closing[k]] = 1;
      keyword_at[closing[k]] = head[k] - 1;
    }
  }
  std::vector<int64_t> need, need_level;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t p = prev[i];
    const uint16_t before = role_of(p);
    // after a label's `:` (`case X:`, `default:`): the `:` two tokens after `case`, or right after `default`
    const bool after_label = (before & kColon) && ((p - 2 >= 0 && (role_of(p - 2) & kCase)) ||
                                                   (p - 1 >= 0 && (role_of(p - 1) & kDefault)));
    candidate[i] = starts[i] && ((before & kEnd) || is(i, kCloseBrace) || after_label || p < 0 || body[i]);
    if (candidate[i] || block[i]) {
      need.push_back(i);
      need_level.push_back(depth[i]);
    }
  }
  // the enclosing `{` of the candidates and of the blocks: the last `{` before them one level out
  std::vector<int64_t> enclosing(n, -1);
  const std::vector<int64_t> found_brace = LastBefore(opened_braces, brace_level, need, need_level, false);
  for (size_t k = 0; k < need.size(); ++k) enclosing[need[k]] = found_brace[k];
  std::vector<uint8_t> kept(n), heads(n), in_parens(n);
  const auto safe = [&](int64_t i) { return std::max<int64_t>(enclosing[i], 0); };
  for (int64_t i = 0; i < n; ++i) {
    const bool inside = enclosing[i] >= 0;
    kept[i] = candidate[i] && inside && block[safe(i)] && pdepth[i] == pdepth[safe(i)];
    heads[i] = kept[i] || (candidate[i] && !inside && pdepth[i] == 0);   // not a `for` head's clause after its `;`
  }
  // each block's header line: the last statement line at the block's own level (inclusive), or, inside
  // parentheses, the line its `{` is on
  std::vector<int64_t> header = line_of, at_heads, head_level, blocks, block_level;
  for (int64_t i = 0; i < n; ++i) {
    if (heads[i]) {
      at_heads.push_back(i);
      head_level.push_back(depth[i]);
    }
    if (block[i]) {
      blocks.push_back(i);
      block_level.push_back(depth[i]);
    }
  }
  const std::vector<int64_t> found_head = LastBefore(at_heads, head_level, blocks, block_level, true);
  for (size_t k = 0; k < blocks.size(); ++k) {
    const int64_t b = blocks[k];
    const bool own_level = pdepth[b] == (enclosing[b] >= 0 ? pdepth[safe(b)] : 0);
    if (found_head[k] >= 0 && own_level) header[b] = found_head[k];
  }
  // a block inside parentheses whose `{` ends a continuation line: not judged
  for (int64_t i = 0; i < n; ++i)
    in_parens[i] = block[i] && pdepth[i] != (enclosing[i] >= 0 ? pdepth[safe(i)] : 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = safe(i);
    if (in_parens[s] && !heads[line_of[s]]) kept[i] = 0;
  }
  std::vector<uint8_t> label(n), in_switch(n);   // a block holding a label: its statements follow one
  for (int64_t i = 0; i < n; ++i) {
    label[i] = kept[i] && is(i, kLabel);
    if (label[i]) in_switch[enclosing[i]] = 1;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (!kept[i]) continue;
    lines.push_back(i);
    if (body[i]) {
      kinds.push_back(kBody);
      bases.push_back(line_of[keyword_at[i]]);
      continue;
    }
    kinds.push_back(is(i, kCloseBrace) ? kClose : label[i] ? kLabelKind : in_switch[enclosing[i]] ? kAfterLabel
                                                                                           : kStatement);
    bases.push_back(header[enclosing[i]]);
  }
  return py::make_tuple(to_array(lines), to_array(kinds), to_array(bases));
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "tree-sitter-java leaves walked in C (see parsing/native.cpp)";
  py::class_<Leaves>(m, "Leaves")
      .def(py::init<py::capsule, const std::vector<std::string> &>(), py::arg("language"), py::arg("whole"))
      .def("name", &Leaves::name, py::arg("kind"))
      .def("of", &Leaves::of, py::arg("data"))
      .def("same_leaves", &Leaves::same_leaves, py::arg("data"), py::arg("edited"), py::arg("start"),
           py::arg("old_end"), py::arg("new_end"))
      .def("units_scheme", &Leaves::units_scheme, py::arg("fixed"), py::arg("prefixed"), py::arg("reserved"),
           py::arg("operators"), py::arg("line_comment"))
      .def("units", &Leaves::units, py::arg("data"), py::arg("keep") = false, py::arg("parsed") = py::none())
      .def("unit_sizes", &Leaves::unit_sizes)
      .def("unit_symbols", &Leaves::unit_symbols, py::arg("start"))
      .def("unit_texts", &Leaves::unit_texts, py::arg("start"))
      .def("unit_keys", &Leaves::unit_keys, py::arg("start"));
  m.def("statement_structure", &statement_structure, py::arg("codes"), py::arg("starts"), py::arg("roles"));
  py::dict roles;   // the Role bits by name, which check/structure.py gives its symbols
  for (const auto &[name, bit] : std::initializer_list<std::pair<const char *, Role>>{
           {"open-brace", kOpenBrace}, {"close-brace", kCloseBrace}, {"open", kOpenParen}, {"close", kCloseParen},
           {"comment", kComment}, {"end", kEnd}, {"not-block", kNotBlock}, {"body-keyword", kBodyKeyword},
           {"if", kIf}, {"control", kControl}, {"label", kLabel}, {"colon", kColon}, {"case", kCase},
           {"default", kDefault}, {"paren", kParen}, {"close-paren", kCloseRound}})
    roles[name] = static_cast<int>(bit);
  m.attr("STRUCTURE_ROLES") = roles;
}
