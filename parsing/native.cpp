// parsing._native: the leaves of a tree-sitter-java parse, walked in C.
//
// Walking the tree with py-tree-sitter's cursor costs a Python call per node, which was a fifth of ranking
// time. This parses with tree-sitter's own C runtime (compiled by `make setup` from the tree-sitter source
// package on PyPI, the version the Python binding has) and the grammar of the installed tree-sitter-java
// package, and walks the tree exactly as parsing.java documents: every non-empty leaf, except that nodes
// of the `whole` kinds are taken whole.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <mutex>
#include <string>
#include <vector>

extern "C" {
#include <tree_sitter/api.h>
}

#include "../unnatural/buffers.hh"

namespace py = pybind11;
using buffers::to_array;

namespace {

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
};

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "tree-sitter-java leaves walked in C (see parsing/native.cpp)";
  py::class_<Leaves>(m, "Leaves")
      .def(py::init<py::capsule, const std::vector<std::string> &>(), py::arg("language"), py::arg("whole"))
      .def("name", &Leaves::name, py::arg("kind"))
      .def("of", &Leaves::of, py::arg("data"))
      .def("same_leaves", &Leaves::same_leaves, py::arg("data"), py::arg("edited"), py::arg("start"),
           py::arg("old_end"), py::arg("new_end"));
}
