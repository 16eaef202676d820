# unnatural: set-up, tests, demo and benchmarks. Everything built is cached under ignored folders
# (.venv/, .tools/, .models/, .data/), so a second run does nothing slow.
SHELL := /bin/bash
PY := .venv/bin/python
# one home each: the KenLM version in constraints.txt (with every other pinned version), the n-gram order KenLM
# is compiled for in lm/model.py
KENLM_VERSION := $(shell sed -n 's/^kenlm==//p' constraints.txt)
MAX_ORDER := $(shell sed -n 's/^MAX_ORDER = \([0-9][0-9]*\).*/\1/p' lm/model.py)
KENLM_SDIST := .tools/kenlm-$(KENLM_VERSION).tar.gz
LMPLZ := .tools/kenlm/bin/lmplz
SHARED ?= ../shared

.PHONY: models setup wheel lint test quick demo bench formats-bench compare-orders stamina-bench fim-bench data lossless devsets corpus detection-bench check-bench hostile help
help:
	@echo "make setup | wheel | lint | test | quick | demo | bench | formats-bench | compare-orders | stamina-bench | fim-bench | data | lossless | devsets | corpus | detection-bench | check-bench | hostile"

EXT := $(shell python3 -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
NATIVE := lm/_native$(EXT) ranker/_native$(EXT) parsing/_native$(EXT) automata/_native$(EXT)
# The compiled modules use this machine's instructions (they are built where they run), without fused
# multiply-adds: a fused a * b + c rounds once, not twice, and the scores must be the same bits as the Python
# reference's (tests/reference_ranker.py). docs/speed-ranker.md, "Processes, files, the exit".
CXX_FLAGS := -O3 -march=native -ffp-contract=off -DNDEBUG -std=c++17 -fPIC -fvisibility=hidden
CXX_MODULE := g++ $(CXX_FLAGS) -shared

setup: .tools/debs.stamp .venv/.installed $(LMPLZ) .venv/.kenlm $(NATIVE) corpora/jdk17-src.zip

.tools/debs.stamp: bin/setup-debian
	@mkdir -p .tools
	bin/setup-debian
	@touch $@

# the project with its research, build, test, StaMinA-comparison, FIM-transformer and Dask-cluster extras, at the
# versions of constraints.txt; installed again when the version changes (the package's metadata carries it)
.venv/.installed: pyproject.toml constraints.txt unnatural/__init__.py
	python3 -m venv .venv
	.venv/bin/pip install -q -c constraints.txt --upgrade pip setuptools wheel
	.venv/bin/pip install -q -c constraints.txt -e '.[research,build,test,stamina,fim,cluster]'
	@touch $@

$(KENLM_SDIST): | .venv/.installed
	.venv/bin/pip download -q --no-deps --no-binary :all: --no-build-isolation -d .tools kenlm==$(KENLM_VERSION)

# lmplz and build_binary from the kenlm source package, built with Debian's Boost and compression libraries.
$(LMPLZ): $(KENLM_SDIST) | .tools/debs.stamp
	rm -rf .tools/kenlm-src .tools/kenlm-build && mkdir -p .tools/kenlm-src .tools/kenlm-build .tools/kenlm/bin
	tar -xzf $(KENLM_SDIST) -C .tools/kenlm-src --strip-components=1
	@echo "building lmplz and build_binary (a few minutes; log in .tools/kenlm-build/build.log)"
	@cd .tools/kenlm-build && { cmake -DCMAKE_BUILD_TYPE=Release -DKENLM_MAX_ORDER=$(MAX_ORDER) -DCMAKE_POSITION_INDEPENDENT_CODE=ON ../kenlm-src \
	  && $(MAKE) -j2 lmplz build_binary; } > build.log 2>&1 || { tail -20 build.log; exit 1; }
	cp .tools/kenlm-build/bin/lmplz .tools/kenlm-build/bin/build_binary .tools/kenlm/bin/

# The kenlm Python module, compiled for n-gram orders up to MAX_ORDER.
.venv/.kenlm: $(KENLM_SDIST) | .venv/.installed .tools/debs.stamp
	@echo "building the kenlm Python module, MAX_ORDER=$(MAX_ORDER) (a few minutes; log in .tools/kenlm-python.log)"
	@MAX_ORDER=$(MAX_ORDER) .venv/bin/pip install --no-build-isolation --force-reinstall --no-deps $(KENLM_SDIST) \
	  > .tools/kenlm-python.log 2>&1 || { tail -20 .tools/kenlm-python.log; exit 1; }
	@touch $@

# The flags the modules were built with: a change of them rebuilds the modules.
.tools/cxx-flags: FORCE
	@mkdir -p .tools
	@echo '$(CXX_FLAGS)' | cmp -s - $@ || echo '$(CXX_FLAGS)' > $@
FORCE:

# KenLM's query code, from the same source package as lmplz and for the same MAX_ORDER, compiled for link-time
# optimization into lm/_native: its n-gram lookups are inlined into the rescoring's loops.
KENLM_QUERY := bhiksha binary_format config lm_exception model quantize read_arpa search_hashed search_trie sizes \
  trie trie_sort value_build virtual_interface vocab
KENLM_QUERY_OBJECTS := $(KENLM_QUERY:%=.tools/kenlm-query/%.o)
$(KENLM_QUERY_OBJECTS): .tools/kenlm-query/%.o: $(LMPLZ) .tools/cxx-flags
	@mkdir -p $(@D)
	@echo "compiling KenLM's lm/$*.cc for lm/_native"
	@g++ $(CXX_FLAGS) -flto -w -DKENLM_MAX_ORDER=$(MAX_ORDER) -I.tools/kenlm-src -c .tools/kenlm-src/lm/$*.cc -o $@

# The ranker's compiled loops: lm/native.cpp with KenLM's query code, ranker/native.cpp on its own.
lm/_native$(EXT): lm/native.cpp unnatural/buffers.hh unnatural/rescoring.hh $(KENLM_QUERY_OBJECTS) .tools/cxx-flags | .venv/.installed
	$(CXX_MODULE) -flto=auto -DKENLM_MAX_ORDER=$(MAX_ORDER) $$($(PY) -m pybind11 --includes) -I.tools/kenlm-src $< \
	  $(KENLM_QUERY_OBJECTS) .tools/kenlm-build/lib/libkenlm_util.a -lz -lbz2 -llzma -lrt -o $@

ranker/_native$(EXT): ranker/native.cpp unnatural/buffers.hh unnatural/rescoring.hh .tools/cxx-flags | .venv/.installed
	$(CXX_MODULE) $$($(PY) -m pybind11 --includes) $< -o $@

# The StaMinA learner's state merging (automata/merging.py's EDSM, step for step).
automata/_native$(EXT): automata/native.cpp .tools/cxx-flags | .venv/.installed
	$(CXX_MODULE) $$($(PY) -m pybind11 --includes) $< -o $@

# tree-sitter's C runtime from its PyPI source package, the version the installed binding has.
TS_LIB := .tools/tree-sitter/lib
$(TS_LIB)/tree-sitter.o: .venv/.installed
	rm -rf .tools/tree-sitter && mkdir -p .tools/tree-sitter
	v=$$($(PY) -c "import importlib.metadata as m; print(m.version('tree-sitter'))") && \
	  .venv/bin/pip download -q --no-deps --no-binary :all: --no-build-isolation -d .tools/tree-sitter tree-sitter==$$v && \
	  tar -xzf .tools/tree-sitter/tree_sitter-$$v.tar.gz -C .tools/tree-sitter --strip-components=3 tree_sitter-$$v/tree_sitter/core/lib
	gcc -O3 -DNDEBUG -fPIC -I$(TS_LIB)/include -I$(TS_LIB)/src -c $(TS_LIB)/src/lib.c -o $@

parsing/_native$(EXT): parsing/native.cpp unnatural/buffers.hh $(TS_LIB)/tree-sitter.o .tools/cxx-flags
	$(CXX_MODULE) $$($(PY) -m pybind11 --includes) -I$(TS_LIB)/include $< $(TS_LIB)/tree-sitter.o -o $@

corpora/jdk17-src.zip: | .tools/debs.stamp
	ln -sf /usr/lib/jvm/openjdk-17/lib/src.zip $@

# The package as a wheel (dist/unnatural-*.whl; `pip install` it into any venv): setup.py compiles the native modules
# for a portable target and puts the default model inside. Needs only python3 and a C++ compiler.
wheel:
	@test -x .cache/wheel-venv/bin/pip || python3 -m venv .cache/wheel-venv
	.cache/wheel-venv/bin/pip wheel -q --no-deps -w dist .

# The shared data sets (only where ../shared exists, as on developer machines and CI).
data:
	@if [ -x $(SHARED)/data/unpack ]; then $(SHARED)/data/unpack .data; else echo "no $(SHARED)/data: data tests will be skipped"; fi

# The project lints itself (pyproject.toml's [tool.ruff]): the first step of `make test`, so that a lint error fails it.
lint: .venv/.installed
	$(PY) -m ruff check .

test: setup data models
	$(PY) -m ruff check .
	@test -e $(DEFAULT_MODEL).ceilings || bin/build-lm --order 6 corpora/   # the tests of what users run use it
	$(PY) -m pytest -q

quick: setup
	$(PY) -m pytest -q -m 'not slow'

lossless: setup data
	$(PY) -m formats.lossless .data/codrep2019/learning .data/codrep2019/validation .data/codrep2018/Dataset1 .data/codrep2018/Dataset2 .data/codrep2018/Dataset3 .data/codrep2018/Dataset4

# A wider corpus to train on beside corpora/'s JDK: CodRep 2018's projects that no detection set uses, into
# .data/corpus-other (evaluation/corpus.py; measured in docs/notes/detection.md, "A wider corpus").
corpus: setup data
	$(PY) -m evaluation.corpus .data/corpus-other

# Detection development sets (evaluation/devsets.py): one task folder per project, tasks kept only when
# Checkstyle flags them, clean files beside them; cached under .data/devsets (a set is rebuilt when its
# configuration changes); and the same sets with the real slips' mix of edits, under .data/slipsets.
devsets: setup data
	$(PY) -m evaluation.devsets .data/devsets
	$(PY) -m evaluation.devsets --edits real .data/slipsets

# The ranker on the development sets, per project and style, by way of learning the project's style (--adapt):
# MRR and file-level AUC, into docs/results/detection-bench.md (docs/detection.md reads it); then bin/check on
# the same sets as repositories (check-bench below), so that one command gives both tables.
detection-bench: devsets
	@test -e $(DEFAULT_MODEL).ceilings || bin/build-lm --order 6 corpora/
	bin/detection-bench --docs docs/results/detection-bench.md
	bin/check-bench --docs docs/results/check-bench.md

# bin/check on the detection sets as repositories, at each sensitivity: precision, recall, false findings per
# 1000 clean lines, fixes, into docs/results/check-bench.md. `bin/check-bench --calibrate` refits
# check/calibration.json first. Then the real slips (.data/realslips, docs/realslips.md), per project and kind of
# gap, into docs/results/check-bench.md too.
check-bench: devsets
	@test -e $(DEFAULT_MODEL).ceilings || bin/build-lm --order 6 corpora/
	bin/check-bench --docs docs/results/check-bench.md

# (built again where it has no word ceilings beside it, lm/native.cpp: a model from before them; the same .bin)
DEFAULT_MODEL := .models/default-kind-units-o6.bin
HELDOUT := java.net.http/ java.sql/ jdk.httpserver/ java.logging/ java.management/

# The main job on an embedded default: the JDK model (held-out packages left out), 300 tasks made from
# the held-out files, ranked and evaluated.
demo: setup models
	@test -e $(DEFAULT_MODEL).ceilings || bin/build-lm --order 6 corpora/
	@bin/make-tasks --quiet --seed 0 --count 300 --force $(foreach p,$(HELDOUT),--include $(p)) --output .cache/demo-tasks corpora/jdk17-src.zip
	@s=$$(date +%s.%N); bin/rank .cache/demo-tasks > .cache/demo-predictions.txt; \
	  e=$$(date +%s.%N); awk "BEGIN{printf \"ranked 300 files in %.1f s\\n\", $$e - $$s}"
	@bin/evaluate codrep2019 --datasets .cache/demo-tasks < .cache/demo-predictions.txt

# The default models of the other languages (parsing/<language>.py names each), from what Debian installs:
# C from the GNU C library's sources (glibc-source: nine of its folders), C++ from seven libraries of Boost's
# headers (libboost1.74-dev, which the KenLM build's Boost packages bring), Python from its standard library
# (libpython3.11-stdlib), its tests and generated or installed code left out. The signatures name the sources.
LANG_CORPORA := .cache/corpora
GLIBC_DIRS := stdlib string malloc libio stdio-common posix misc time io
BOOST_LIBS := asio beast container thread process algorithm histogram
PY_EXCLUDE := /test/ /tests/ /site-packages/ /dist-packages/ /encodings/ /lib2to3/ /idlelib/ /pydoc_data/ /config-3
PY_STDLIB := $(lastword $(sort $(wildcard /usr/lib/python3.*[0-9])))
models: .models/default-c-o6.bin .models/default-cpp-o6.bin .models/default-python-o6.bin
$(LANG_CORPORA)/c/.stamp: | .tools/debs.stamp
	rm -rf $(@D) && mkdir -p $(@D)
	tar -xJf $(lastword $(sort $(wildcard /usr/src/glibc/glibc-*.tar.xz))) -C $(@D) --strip-components=1 --wildcards $(foreach d,$(GLIBC_DIRS),'glibc-*/$(d)/*')
	@touch $@
$(LANG_CORPORA)/cpp/.stamp: | .tools/debs.stamp
	rm -rf $(@D) && mkdir -p $(@D)
	for d in $(BOOST_LIBS); do ln -s /usr/include/boost/$$d $(@D)/$$d; done
	@touch $@
.models/default-c-o6.bin: $(LANG_CORPORA)/c/.stamp | setup
	bin/build-lm --language c --quiet --output $@ $(LANG_CORPORA)/c
.models/default-cpp-o6.bin: $(LANG_CORPORA)/cpp/.stamp | setup
	bin/build-lm --language cpp --quiet --output $@ $(LANG_CORPORA)/cpp
.models/default-python-o6.bin: | setup
	bin/build-lm --language python --quiet $(foreach x,$(PY_EXCLUDE),--exclude $(x)) --output $@ $(PY_STDLIB)

C18 := .data/codrep2018/Dataset1 .data/codrep2018/Dataset2 .data/codrep2018/Dataset3 .data/codrep2018/Dataset4
.models/c18-o7.bin: | setup data
	bin/build-lm --order 7 --output $@ $(C18)

# Speed: end-to-end ranking with the default model against the tree-sitter floor, memory, cost per size,
# start-up and building (the targets in docs/speed.md). The table is also copied to docs/results/bench.md, which the
# README links.
bench: setup data
	@test -e $(DEFAULT_MODEL).ceilings || bin/build-lm --order 6 corpora/
	bin/bench --model $(DEFAULT_MODEL) --output .bench
	@mkdir -p docs/results && cp .bench/bench.md docs/results/bench.md
	@test -e $(DEFAULT_MODEL).ceilings || bin/build-lm --order 6 corpora/
	bin/check-bench --speed 5000 --docs docs/results/check-bench.md
	bin/repostyle-bench --docs docs/results/bench.md

# KenLM's binary formats (probing, trie, quantized) of the default model at orders 6 and 7: ranking time,
# lookups and MRR on CodRep 2019 validation (the table in docs/speed-profile.md).
formats-bench: setup data
	@test -e .bench/formats/jdk-o6.bin || bin/build-lm --order 6 --keep-arpa --quiet --output .bench/formats/jdk-o6.bin corpora/
	@test -e .bench/formats/jdk-o7.bin || bin/build-lm --order 7 --keep-arpa --quiet --output .bench/formats/jdk-o7.bin corpora/
	$(PY) -m bench.formats --runs 5 --output .bench/formats .bench/formats/jdk-o6.bin .bench/formats/jdk-o7.bin

# StaMinA: our learner against AALpy's EDSM on the real training sets (AALpy: the `stamina` extra).
# The table is also written to docs/results/stamina-bench.txt, which the README links.
stamina-bench: setup data
	set -o pipefail; bin/stamina bench | tee docs/results/stamina-bench.txt

# n-gram orders and token schemes, CodRep 2018 -> CodRep 2019 validation.
compare-orders: setup data
	bin/compare-orders --orders 3-8 --schemes kind-units,kind,text --train .data/codrep2018/Dataset1 .data/codrep2018/Dataset2 --eval .data/codrep2019/validation --output .bench/compare
	@mkdir -p docs/results && cp .bench/compare/compare.md docs/results/compare.md && cp .bench/compare/*.png docs/results/ 2>/dev/null || true

# The hostile inputs (docs/errors.md's list) run as a user would (bench/hostile.py), with bin/rank's memory
# peaks and 20 Ctrl-C tries on bin/build-lm corpora/; the table goes to docs/results/hostile.md (docs/errors.md links it).
hostile: setup
	@test -e $(DEFAULT_MODEL).ceilings || bin/build-lm --order 6 corpora/
	set -o pipefail; bin/hostile --slow --interrupts 20 | tee docs/results/hostile.md

# Fill-in-the-middle: 500 tasks from held-out JDK packages and 500 from held-out Python standard-library
# modules, the n-gram predictor at orders 3-8 against two baselines. Writes docs/results/fim-bench.md.
fim-bench: setup
	bin/fim-bench --output .bench/fim --workers 2 --docs docs/results/fim-bench.md
