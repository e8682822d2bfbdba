// compiler_test.cpp - compile models through every stage, load and run them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "passes/Compiler.h"
#include "runtime/msjit_runtime.h"
#include "tests/cpp/model_builder.h"

using namespace msjit;
using msjit::testing::ModelBuilder;

namespace {

// Writes the artifact to a temp file and loads it through the runtime's C ABI.
msrt_executable *load(const passes::CompileResult &r) {
  REQUIRE(r.ok());
  char path[] = "/tmp/msjit-test-XXXXXX.so";
  int fd = mkstemps(path, 3);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, r.artifact.data(), r.artifact.size()) == static_cast<ssize_t>(r.artifact.size()));
  close(fd);
  msrt_executable *exe = nullptr;
  INFO(msrt_last_error());
  REQUIRE(msrt_load(path, &exe) == 0);
  unlink(path);
  return exe;
}

msrt_executable *compileAndLoad(const mindir::ModelProto &model, const char *level) {
  passes::CompileOptions options;
  options.jitLevel = level;
  auto result = passes::compileModel(model, options);
  INFO(result.error);
  return load(result);
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t count(const std::string &text, const std::string &needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a*b+c compiles to an artifact that computes it", "[compiler]") {
  for (const char *level : {"O0", "O1"}) {
    passes::CompileOptions options;
    options.jitLevel = level;
    auto result = passes::compileModel(msjit::testing::mulAddModel(), options);
    INFO(result.error);
    REQUIRE(result.ok());
    REQUIRE(result.artifact.substr(0, 4) == "\x7f" "ELF");
    msrt_executable *exe = load(result);
    REQUIRE(msrt_num_inputs(exe) == 3);
    REQUIRE(msrt_num_outputs(exe) == 1);
    msrt_tensor_info info;
    REQUIRE(msrt_tensor(exe, 1, 0, &info) == 0);
    CHECK(info.dtype == MSRT_FLOAT32);
    CHECK(info.rank == 2);
    CHECK(info.num_bytes == 24);

    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {2, 2, 2, 2, 2, 2}, c[6] = {0.5, 0, -1, 0, 0, 1}, out[6];
    void *ins[3] = {a, b, c};
    void *outs[1] = {out};
    REQUIRE(msrt_run(exe, ins, outs) == 0);
    for (int i = 0; i < 6; ++i) CHECK(out[i] == a[i] * b[i] + c[i]);
    msrt_unload(exe);
  }
}

TEST_CASE("O1 fuses an elementwise chain into one loop nest; O0 does not", "[compiler][fusion]") {
  char dir[] = "/tmp/msjit-dump-XXXXXX";
  REQUIRE(mkdtemp(dir));
  for (const char *level : {"O0", "O1"}) {
    passes::CompileOptions options;
    options.jitLevel = level;
    options.dumpDir = dir;
    options.dumpName = level;
    REQUIRE(passes::compileModel(msjit::testing::mulAddModel(), options).ok());
    std::string linalg = readFile(std::string(dir) + "/" + level + ".2-linalg.mlir");
    CHECK(count(linalg, "linalg.generic") == (std::string(level) == "O1" ? 1u : 2u));
    CHECK(count(readFile(std::string(dir) + "/" + level + ".0-mindir.mlir"), "mindir.Mul") == 1);
    CHECK(count(readFile(std::string(dir) + "/" + level + ".4-llvm.mlir"), "llvm.func") >= 1);
    CHECK(!readFile(std::string(dir) + "/" + level + ".5-llvmir.ll").empty());
  }
  std::system((std::string("rm -rf ") + dir).c_str());
}

TEST_CASE("reductions, matmul, reshape, transpose and broadcasting run correctly", "[compiler]") {
  ModelBuilder b;
  b.input("x", {2, 3}).input("w", {3, 4}).input("bias", {4});
  b.node("MatMul_1", "MatMul", {"x", "w"});                     // (2,4)
  b.node("Add_2", "Add", {"MatMul_1", "bias"});                  // broadcast (4,)
  auto &t = b.node("Transpose_3", "Transpose", {"Add_2"});      // (4,2)
  msjit::testing::setInts(t, "perm", {1, 0});
  auto &r = b.node("Reshape_4", "Reshape", {"Transpose_3"});    // (2,4)
  msjit::testing::setInts(r, "shape", {2, 4});
  auto &s = b.node("ReduceSum_5", "ReduceSum", {"Reshape_4"});  // (2,1)
  msjit::testing::setInts(s, "axes", {1});
  msjit::testing::setBool(s, "keep_dims", true);
  auto &m = b.node("ReduceMean_6", "ReduceMean", {"Reshape_4"});  // ()
  msjit::testing::setInts(m, "axes", {});
  msjit::testing::setBool(m, "keep_dims", false);
  b.node("Tanh_7", "Tanh", {"ReduceSum_5"});
  b.output("Tanh_7").output("ReduceMean_6");

  for (const char *level : {"O0", "O1"}) {
    msrt_executable *exe = compileAndLoad(b.model(), level);
    float x[6] = {1, 2, 3, 4, 5, 6}, w[12], bias[4] = {0.1f, 0.2f, 0.3f, 0.4f}, sum[2], mean;
    for (int i = 0; i < 12; ++i) w[i] = 0.01f * (i - 5);
    float y[2][4];
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) {
        y[i][j] = bias[j];
        for (int k = 0; k < 3; ++k) y[i][j] += x[i * 3 + k] * w[k * 4 + j];
      }
    // transpose (4,2) flattened then viewed as (2,4)
    float flat[8];
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 2; ++i) flat[j * 2 + i] = y[i][j];
    void *ins[3] = {x, w, bias};
    void *outs[2] = {sum, &mean};
    REQUIRE(msrt_run(exe, ins, outs) == 0);
    float total = 0;
    for (int row = 0; row < 2; ++row) {
      float s0 = 0;
      for (int k = 0; k < 4; ++k) s0 += flat[row * 4 + k];
      total += s0;
      CHECK(sum[row] == Approx(std::tanh(s0)).epsilon(1e-5));
    }
    CHECK(mean == Approx(total / 8).epsilon(1e-5));
    msrt_unload(exe);
  }
}

namespace {

std::vector<float> iota(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7) % 11) - 1.0f;
  return v;
}

}  // namespace

TEST_CASE("vendor kernels: grouped strided conv, pools and transposed matmul", "[compiler][kernels]") {
  // x (1,4,5,5) * w (6,2,3,3), group 2, stride 2, pad 1 -> (1,6,3,3); then pools; a (2,3) @ b(4,3)^T.
  ModelBuilder b;
  b.input("x", {1, 4, 5, 5}).input("w", {6, 2, 3, 3}).input("a", {2, 3}).input("bt", {4, 3});
  auto &conv = b.node("Conv2D_1", "Conv2D", {"x", "w"});
  msjit::testing::setInts(conv, "stride", {2, 2});
  msjit::testing::setInts(conv, "dilation", {1, 1});
  msjit::testing::setInts(conv, "pad", {1, 1, 1, 1});
  auto *group = conv.add_attribute();
  group->set_name("group");
  group->set_i(2);
  auto &maxPool = b.node("MaxPool_2", "MaxPool", {"Conv2D_1"});
  msjit::testing::setInts(maxPool, "kernel", {2, 2});
  msjit::testing::setInts(maxPool, "stride", {1, 1});
  msjit::testing::setInts(maxPool, "pad", {0, 0, 0, 0});
  auto &avgPool = b.node("AvgPool_3", "AvgPool", {"Conv2D_1"});
  msjit::testing::setInts(avgPool, "kernel", {3, 3});
  msjit::testing::setInts(avgPool, "stride", {3, 3});
  msjit::testing::setInts(avgPool, "pad", {0, 0, 0, 0});
  auto &mm = b.node("MatMul_4", "MatMul", {"a", "bt"});
  msjit::testing::setBool(mm, "transpose_b", true);
  b.output("Conv2D_1").output("MaxPool_2").output("AvgPool_3").output("MatMul_4");

  std::vector<float> x = iota(100, 0.25f), w = iota(108, 0.125f), a = iota(6, 0.5f), bt = iota(12, 0.3f);
  // Reference convolution.
  float conv_ref[6][3][3] = {};
  for (int o = 0; o < 6; ++o)
    for (int oh = 0; oh < 3; ++oh)
      for (int ow = 0; ow < 3; ++ow) {
        int g = o / 3;
        for (int c = 0; c < 2; ++c)
          for (int kh = 0; kh < 3; ++kh)
            for (int kw = 0; kw < 3; ++kw) {
              int ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
              if (ih < 0 || ih >= 5 || iw < 0 || iw >= 5) continue;
              conv_ref[o][oh][ow] += x[((g * 2 + c) * 5 + ih) * 5 + iw] * w[((o * 2 + c) * 3 + kh) * 3 + kw];
            }
      }
  for (const char *level : {"O0", "O1"}) {
    msrt_executable *exe = compileAndLoad(b.model(), level);
    std::vector<float> y(54), maxOut(6 * 2 * 2), avgOut(6), mmOut(8);
    void *ins[4] = {x.data(), w.data(), a.data(), bt.data()};
    void *outs[4] = {y.data(), maxOut.data(), avgOut.data(), mmOut.data()};
    REQUIRE(msrt_run(exe, ins, outs) == 0);
    for (int o = 0; o < 6; ++o) {
      float sum = 0;
      for (int oh = 0; oh < 3; ++oh)
        for (int ow = 0; ow < 3; ++ow) {
          CHECK(y[(o * 3 + oh) * 3 + ow] == Approx(conv_ref[o][oh][ow]).margin(1e-4));
          sum += conv_ref[o][oh][ow];
        }
      CHECK(avgOut[o] == Approx(sum / 9).margin(1e-4));
      for (int oh = 0; oh < 2; ++oh)
        for (int ow = 0; ow < 2; ++ow) {
          float m = std::max(std::max(conv_ref[o][oh][ow], conv_ref[o][oh][ow + 1]),
                             std::max(conv_ref[o][oh + 1][ow], conv_ref[o][oh + 1][ow + 1]));
          CHECK(maxOut[(o * 2 + oh) * 2 + ow] == Approx(m).margin(1e-4));
        }
    }
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j) {
        float ref = 0;
        for (int k = 0; k < 3; ++k) ref += a[i * 3 + k] * bt[j * 3 + k];
        CHECK(mmOut[i * 4 + j] == Approx(ref).margin(1e-4));
      }
    msrt_unload(exe);
  }
}
