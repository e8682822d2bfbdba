# msjit front door. `make demo` and `make test` are all a fresh Debian 12
# machine needs; both install what is missing first.
PY        := /usr/bin/python3
PREFIX    ?= /usr/local
PYLIB     := $(shell $(PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))' 2>/dev/null || echo /usr/local/lib/python3.11/dist-packages)
BAZEL     := bazel
APT_PACKAGES := bazel-bootstrap libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler \
	libmlir-16-dev mlir-16-tools llvm-16-dev libspdlog-dev catch2 python3-dev python3-grpcio \
	python3-protobuf python3-numpy python3-pytest libopenblas0-openmp libopenblas-openmp-dev libdnnl-dev \
	gcc g++ make binutils openssl clang-16 libclang-rt-16-dev libfuzzer-16-dev \
	libhiredis-dev redis-server libssl-dev python3-yaml python3-pip
TARGETS   := //server:msjitd //server:msjit-worker //client_cpp:msjitctl //client_cpp:msjit-run //client_py:_msjit_rt.so //proto:py_gen \
	//runtime:libmsjit_runtime.so //tools:mindir-opt //tests/cpp:all

.PHONY: all deps build stage install demo test clean

all: install

# apt packages by name, installed only when missing.
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  apt-get -o DPkg::Lock::Timeout=600 update -q && \
	  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q $$missing; \
	fi

build: deps
	$(BAZEL) build $(TARGETS)

# Generated protobuf modules and the runtime extension go into the source
# package too, so `PYTHONPATH=client_py` works in a checkout.
stage: build
	rm -rf client_py/msjit/proto
	cp -r bazel-bin/proto/py client_py/msjit/proto
	chmod -R u+w client_py/msjit/proto
	install -m 755 bazel-bin/client_py/_msjit_rt.so client_py/msjit/_msjit_rt.so

install: stage
	install -d $(PREFIX)/bin $(PREFIX)/lib
	install -m 755 bazel-bin/server/msjitd bazel-bin/server/msjit-worker bazel-bin/client_cpp/msjitctl bazel-bin/client_cpp/msjit-run $(PREFIX)/bin/
	install -m 755 bazel-bin/runtime/libmsjit_runtime.so $(PREFIX)/lib/
	rm -rf $(PYLIB)/msjit $(PYLIB)/mindspore
	install -d $(PYLIB)
	cp -r client_py/msjit client_py/mindspore $(PYLIB)/
	find $(PYLIB)/msjit $(PYLIB)/mindspore -name __pycache__ -prune -exec rm -rf {} +
	@echo "installed msjitd, msjitctl in $(PREFIX)/bin and packages msjit, mindspore in $(PYLIB)"

# Starts (or reuses) the local daemon through the client and runs the tutorial's example.
demo: install
	cd /tmp && $(PY) $(CURDIR)/examples/simple_function.py
	msjitctl stats

test: install
	$(PY) tools/run_tests.py

clean:
	$(BAZEL) clean
	rm -rf client_py/msjit/proto client_py/msjit/_msjit_rt.so build

gen: ; PYTHONPATH=client_py $(PY) tools/gen_ops_md.py

# libFuzzer target over the request decoder, the request check, the importer and
# the verifier (fuzz/request_fuzzer.cpp), built with clang and its sanitizers from
# our sources plus the protobuf and tablegen files Bazel generates.
# `make fuzz-run RUNS=1000000` is the long campaign; new crash inputs land in
# build/fuzz/crashes/ and belong in fuzz/regressions/ once fixed.
FUZZ_CXX      := clang++-16
FUZZ_DIR      := build/fuzz
FUZZ_FLAGS    := -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I. -Ibazel-bin -I/usr/lib/llvm-16/include -D__STDC_CONSTANT_MACROS -D__STDC_FORMAT_MACROS \
	-D__STDC_LIMIT_MACROS -MMD -MP
FUZZ_GEN      := bazel-bin/proto/mindir.pb.cc bazel-bin/proto/msjit.pb.cc
FUZZ_SRCS     := $(wildcard ir/*.cpp ir/bprop/*.cpp) server/request_check.cpp fuzz/request_fuzzer.cpp
FUZZ_OBJS     := $(patsubst %.cpp,$(FUZZ_DIR)/obj/%.o,$(FUZZ_SRCS)) \
	$(patsubst bazel-bin/%.cc,$(FUZZ_DIR)/obj/gen/%.o,$(FUZZ_GEN))
RUNS          ?= 1000000

.PHONY: fuzz fuzz-run

fuzz: $(FUZZ_DIR)/request_fuzzer

$(FUZZ_DIR)/request_fuzzer: $(FUZZ_OBJS)
	$(FUZZ_CXX) -fsanitize=fuzzer,address,undefined $^ -o $@ -L/usr/lib/llvm-16/lib \
	  -Wl,-rpath,/usr/lib/llvm-16/lib -lMLIR -lLLVM-16 -lprotobuf -lpthread

# Only the generated files are asked of Bazel, not the whole build; the stamp
# keeps `make fuzz` from calling Bazel when nothing they come from changed.
$(FUZZ_DIR)/gen.stamp: proto/mindir.proto proto/msjit.proto $(wildcard ir/*.td)
	@command -v $(FUZZ_CXX) >/dev/null || { echo "$(FUZZ_CXX) is missing: run make deps (clang-16, libfuzzer-16-dev)" >&2; exit 1; }
	$(BAZEL) build //proto:cc_gen $(foreach n,dialect_decls dialect_defs op_decls op_defs interface_decls \
	  interface_defs,//ir:mindir_$(n))
	@mkdir -p $(@D) && touch $@

$(FUZZ_DIR)/obj/%.o: %.cpp $(FUZZ_DIR)/gen.stamp
	@mkdir -p $(@D)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -c $< -o $@

$(FUZZ_DIR)/obj/gen/%.o: bazel-bin/%.cc $(FUZZ_DIR)/gen.stamp
	@mkdir -p $(@D)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -c $< -o $@

-include $(FUZZ_OBJS:.o=.d)

fuzz-run: fuzz
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/crashes
	$(FUZZ_DIR)/request_fuzzer -runs=$(RUNS) -max_len=4096 -dict=fuzz/request.dict -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_DIR)/crashes/ $(FUZZ_DIR)/corpus fuzz/corpus
