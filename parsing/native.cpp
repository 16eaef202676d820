// parsing._native: the leaves of a tree-sitter-java parse, walked in C.
//
// Walking the tree with py-tree-sitter's cursor costs a Python call per node, which was a fifth of ranking
// time. This parses with tree-sitter's own C runtime (compiled by `make setup` from the tree-sitter source
// package on PyPI, the version the Python binding has) and the grammar of the installed tree-sitter-java
// package, and walks the tree exactly as parsing.java documents: every non-empty leaf, except that nodes
// of the `whole` kinds are taken whole.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

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
  ~Leaves() { ts_parser_delete(parser_); }
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
    std::vector<uint32_t> kinds;
    std::vector<int64_t> starts, ends;
    {
      py::gil_scoped_release unlocked;
      TSTree *tree = ts_parser_parse_string(parser_, nullptr, text.data(), static_cast<uint32_t>(text.size()));
      TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
      while (true) {
        const TSNode node = ts_tree_cursor_current_node(&cursor);
        const TSSymbol symbol = ts_node_symbol(node);
        if (whole_[symbol] || !ts_tree_cursor_goto_first_child(&cursor)) {
          const uint32_t s = ts_node_start_byte(node), e = ts_node_end_byte(node);
          if (e > s) {   // MISSING nodes are empty
            kinds.push_back(symbol);
            starts.push_back(s);
            ends.push_back(e);
          }
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
      ts_tree_delete(tree);
    }
    return py::make_tuple(to_array(kinds), to_array(starts), to_array(ends));
  }

 private:
  const TSLanguage *language_;
  TSParser *parser_;
  std::vector<bool> whole_;
};

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "tree-sitter-java leaves walked in C (see parsing/native.cpp)";
  py::class_<Leaves>(m, "Leaves")
      .def(py::init<py::capsule, const std::vector<std::string> &>(), py::arg("language"), py::arg("whole"))
      .def("name", &Leaves::name, py::arg("kind"))
      .def("of", &Leaves::of, py::arg("data"));
}
