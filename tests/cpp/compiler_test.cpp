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

// ---- Control flow: If / While regions (issue 12) ----

namespace {

using msjit::testing::setGraph;
using msjit::testing::setOutputs;
using msjit::testing::setTensor;

// A graph taking (name, dims, dtype) inputs: the body of a branch, cond or loop.
ModelBuilder graphOf(std::initializer_list<std::pair<std::string, std::vector<int64_t>>> inputs,
                     std::initializer_list<mindir::DataType> dtypes) {
  ModelBuilder g;
  auto dtype = dtypes.begin();
  for (const auto &[name, dims] : inputs) g.input(name, dims, *dtype++);
  return g;
}

mindir::NodeProto &i64Constant(ModelBuilder &g, const std::string &name, int64_t value) {
  auto &c = g.node(name, "Constant", {});
  setTensor<int64_t>(c, "value", mindir::DT_INT64, {}, {value});
  return c;
}

// cond graph over (i: i64 [], x: f32 [3]) that never turns false.
mindir::GraphProto foreverCond() {
  ModelBuilder cond = graphOf({{"i", {}}, {"x", {3}}}, {mindir::DT_INT64, mindir::DT_FLOAT32});
  auto &t = cond.node("true", "Constant", {});
  setTensor<char>(t, "value", mindir::DT_BOOL, {}, {1});  // bools are one byte each
  cond.output("true");
  return cond.model().graph();
}

}  // namespace

TEST_CASE("If runs exactly one branch, chosen at run time", "[compiler][control_flow]") {
  // y = p ? x * x : -x, and the else branch would loop forever: it must not run when p is true.
  ModelBuilder b;
  b.input("p", {}, mindir::DT_BOOL).input("x", {3});
  ModelBuilder thenG = graphOf({{"a", {3}}}, {mindir::DT_FLOAT32});
  thenG.node("sq", "Mul", {"a", "a"});
  thenG.output("sq");
  ModelBuilder elseG = graphOf({{"a", {3}}}, {mindir::DT_FLOAT32});
  elseG.node("neg", "Neg", {"a"});
  elseG.output("neg");
  auto &y = b.node("If_1", "If", {"p", "x"});
  setGraph(y, "then_branch", thenG.model().graph());
  setGraph(y, "else_branch", elseG.model().graph());
  b.output("If_1");

  ModelBuilder hangG = graphOf({{"a", {3}}}, {mindir::DT_FLOAT32});
  i64Constant(hangG, "zero", 0);
  ModelBuilder idle = graphOf({{"i", {}}, {"x", {3}}}, {mindir::DT_INT64, mindir::DT_FLOAT32});
  idle.output("i").output("x");
  auto &loop = hangG.node("forever", "While", {"zero", "a"});
  setOutputs(loop, {"i", "forever"});
  setGraph(loop, "cond", foreverCond());
  setGraph(loop, "body", idle.model().graph());
  hangG.output("forever");
  ModelBuilder guarded;
  guarded.input("p", {}, mindir::DT_BOOL).input("x", {3});
  auto &g = guarded.node("If_1", "If", {"p", "x"});
  setGraph(g, "then_branch", thenG.model().graph());
  setGraph(g, "else_branch", hangG.model().graph());
  guarded.output("If_1");

  for (const char *level : {"O0", "O1"}) {
    msrt_executable *exe = compileAndLoad(b.model(), level);
    float x[3] = {1.5f, -2, 3}, out[3];
    for (bool p : {true, false}) {
      void *ins[2] = {&p, x};
      void *outs[1] = {out};
      REQUIRE(msrt_run(exe, ins, outs) == 0);
      for (int i = 0; i < 3; ++i) CHECK(out[i] == (p ? x[i] * x[i] : -x[i]));
    }
    msrt_unload(exe);

    exe = compileAndLoad(guarded.model(), level);
    bool p = true;
    void *ins[2] = {&p, x};
    void *outs[1] = {out};
    alarm(60);  // if the untaken branch ran, it would never return: fail rather than hang
    REQUIRE(msrt_run(exe, ins, outs) == 0);
    alarm(0);
    for (int i = 0; i < 3; ++i) CHECK(out[i] == x[i] * x[i]);
    msrt_unload(exe);
  }
}

TEST_CASE("While runs a counted loop and a data-dependent loop", "[compiler][control_flow]") {
  // Counted: for i in range(n): x = x * 2. Data-dependent: while sum(x) < 100: x = x * 1.5 + 1.
  ModelBuilder b;
  b.input("x", {3}).input("n", {}, mindir::DT_INT64);
  i64Constant(b, "zero", 0);
  ModelBuilder cond = graphOf({{"i", {}}, {"x", {3}}, {"n", {}}}, {mindir::DT_INT64, mindir::DT_FLOAT32, mindir::DT_INT64});
  cond.node("more", "Less", {"i", "n"});
  cond.output("more");
  ModelBuilder body = graphOf({{"i", {}}, {"x", {3}}, {"n", {}}}, {mindir::DT_INT64, mindir::DT_FLOAT32, mindir::DT_INT64});
  i64Constant(body, "one", 1);
  body.node("next", "Add", {"i", "one"});
  body.node("twice", "Add", {"x", "x"});
  body.output("next").output("twice").output("n");
  auto &counted = b.node("counted", "While", {"zero", "x", "n"});
  setOutputs(counted, {"count", "counted", "n_out"});
  setGraph(counted, "cond", cond.model().graph());
  setGraph(counted, "body", body.model().graph());

  ModelBuilder cond2 = graphOf({{"x", {3}}}, {mindir::DT_FLOAT32});
  auto &sum = cond2.node("sum", "ReduceSum", {"x"});
  msjit::testing::setInts(sum, "axes", {});
  msjit::testing::setBool(sum, "keep_dims", false);
  auto &limit = cond2.node("limit", "Constant", {});
  setTensor<float>(limit, "value", mindir::DT_FLOAT32, {}, {100.0f});
  cond2.node("below", "Less", {"sum", "limit"});
  cond2.output("below");
  ModelBuilder body2 = graphOf({{"x", {3}}}, {mindir::DT_FLOAT32});
  auto &k = body2.node("k", "Constant", {});
  setTensor<float>(k, "value", mindir::DT_FLOAT32, {}, {1.5f});
  auto &one = body2.node("one", "Constant", {});
  setTensor<float>(one, "value", mindir::DT_FLOAT32, {}, {1.0f});
  body2.node("scaled", "Mul", {"x", "k"});
  body2.node("grown", "Add", {"scaled", "one"});
  body2.output("grown");
  auto &grow = b.node("grow", "While", {"x"});
  setGraph(grow, "cond", cond2.model().graph());
  setGraph(grow, "body", body2.model().graph());
  b.output("counted").output("count").output("grow");

  for (const char *level : {"O0", "O1"}) {
    msrt_executable *exe = compileAndLoad(b.model(), level);
    for (int64_t n : {0, 3, 5}) {
      float x[3] = {0.5f, -1, 2}, counted[3], grown[3], want[3] = {0.5f, -1, 2};
      int64_t count = -1;
      void *ins[2] = {x, &n};
      void *outs[3] = {counted, &count, grown};
      REQUIRE(msrt_run(exe, ins, outs) == 0);
      CHECK(count == n);
      for (int i = 0; i < 3; ++i) CHECK(counted[i] == x[i] * static_cast<float>(1 << n));
      while (want[0] + want[1] + want[2] < 100)
        for (float &w : want) w = w * 1.5f + 1;
      for (int i = 0; i < 3; ++i) CHECK(grown[i] == Approx(want[i]).epsilon(1e-5));
    }
    msrt_unload(exe);
  }
}

TEST_CASE("Grad through nested If matches finite differences", "[compiler][control_flow][grad]") {
  // f(p, q, x) = p ? sin(x) * x : (q ? exp(x) : x * x * x), float64; the model returns f and d sum(f) / dx.
  using D = mindir::DataType;
  auto branch = [](const char *what) {
    ModelBuilder g = graphOf({{"q", {}}, {"a", {3}}}, {mindir::DT_BOOL, mindir::DT_FLOAT64});
    std::string op = what;
    if (op == "sin") {
      g.node("s", "Sin", {"a"});
      g.node("y", "Mul", {"s", "a"});
    } else if (op == "exp") {
      g.node("y", "Exp", {"a"});
    } else {
      g.node("sq", "Mul", {"a", "a"});
      g.node("y", "Mul", {"sq", "a"});
    }
    g.output("y");
    return g;
  };
  ModelBuilder inner = graphOf({{"q", {}}, {"a", {3}}}, {mindir::DT_BOOL, mindir::DT_FLOAT64});
  auto &innerIf = inner.node("If_inner", "If", {"q", "q", "a"});
  setGraph(innerIf, "then_branch", branch("exp").model().graph());
  setGraph(innerIf, "else_branch", branch("cube").model().graph());
  inner.output("If_inner");
  ModelBuilder body = graphOf({{"p", {}}, {"q", {}}, {"x", {3}}}, {mindir::DT_BOOL, mindir::DT_BOOL, mindir::DT_FLOAT64});
  auto &outerIf = body.node("If_outer", "If", {"p", "q", "x"});
  setGraph(outerIf, "then_branch", branch("sin").model().graph());
  setGraph(outerIf, "else_branch", inner.model().graph());
  body.output("If_outer");

  ModelBuilder b;
  b.input("p", {}, mindir::DT_BOOL).input("q", {}, mindir::DT_BOOL).input("x", {3}, D::DT_FLOAT64);
  auto &grad = b.node("Grad_1", "Grad", {"p", "q", "x"});
  setOutputs(grad, {"f", "dx"});
  setGraph(grad, "body", body.model().graph());
  msjit::testing::setInts(grad, "wrt", {2});
  auto *numDiff = grad.add_attribute();
  numDiff->set_name("num_diff");
  numDiff->set_i(1);
  msjit::testing::setBool(grad, "sens_param", false);
  b.output("f").output("dx");

  for (const char *level : {"O0", "O1"}) {
    msrt_executable *exe = compileAndLoad(b.model(), level);
    auto run = [&](bool p, bool q, const double *x, double *f, double *dx) {
      void *ins[3] = {&p, &q, const_cast<double *>(x)};
      void *outs[2] = {f, dx};
      REQUIRE(msrt_run(exe, ins, outs) == 0);
    };
    for (bool p : {true, false})
      for (bool q : {true, false}) {
        double x[3] = {0.3, -1.2, 2.0}, f[3], dx[3], scratch[3];
        run(p, q, x, f, dx);
        for (int i = 0; i < 3; ++i) {
          double want = p ? std::sin(x[i]) * x[i] : q ? std::exp(x[i]) : x[i] * x[i] * x[i];
          CHECK(f[i] == Approx(want).epsilon(1e-12));
          // Central difference of sum(f) in x[i], through the compiled forward.
          const double h = 1e-6;
          double up[3] = {x[0], x[1], x[2]}, down[3] = {x[0], x[1], x[2]}, fUp[3], fDown[3];
          up[i] += h;
          down[i] -= h;
          run(p, q, up, fUp, scratch);
          run(p, q, down, fDown, scratch);
          double fd = (fUp[0] + fUp[1] + fUp[2] - fDown[0] - fDown[1] - fDown[2]) / (2 * h);
          INFO("p=" << p << " q=" << q << " i=" << i);
          CHECK(dx[i] == Approx(fd).epsilon(1e-6));
        }
      }
    msrt_unload(exe);
  }
}

TEST_CASE("Grad through While (counted and data-dependent) matches finite differences",
          "[compiler][control_flow][grad]") {
  // Counted: for _ in range(n): x = sin(x) * w + x. Data-dependent: z = x; while sum(z) < 20: z = z * w + 1.
  // float64; the model returns both loops' results and d (sum(y1) + sum(y2)) / d(x, w).
  const auto F64 = mindir::DT_FLOAT64, I64 = mindir::DT_INT64;
  ModelBuilder cond = graphOf({{"i", {}}, {"x", {3}}, {"w", {3}}, {"n", {}}}, {I64, F64, F64, I64});
  cond.node("more", "Less", {"i", "n"});
  cond.output("more");
  ModelBuilder step = graphOf({{"i", {}}, {"x", {3}}, {"w", {3}}, {"n", {}}}, {I64, F64, F64, I64});
  i64Constant(step, "one", 1);
  step.node("next", "Add", {"i", "one"});
  step.node("s", "Sin", {"x"});
  step.node("sw", "Mul", {"s", "w"});
  step.node("x2", "Add", {"sw", "x"});
  step.output("next").output("x2").output("w").output("n");
  ModelBuilder cond2 = graphOf({{"z", {3}}, {"w", {3}}}, {F64, F64});
  auto &sum = cond2.node("sum", "ReduceSum", {"z"});
  msjit::testing::setInts(sum, "axes", {});
  msjit::testing::setBool(sum, "keep_dims", false);
  auto &limit = cond2.node("limit", "Constant", {});
  setTensor<double>(limit, "value", F64, {}, {20.0});
  cond2.node("below", "Less", {"sum", "limit"});
  cond2.output("below");
  ModelBuilder step2 = graphOf({{"z", {3}}, {"w", {3}}}, {F64, F64});
  auto &one = step2.node("one", "Constant", {});
  setTensor<double>(one, "value", F64, {}, {1.0});
  step2.node("zw", "Mul", {"z", "w"});
  step2.node("z2", "Add", {"zw", "one"});
  step2.output("z2").output("w");

  ModelBuilder body = graphOf({{"n", {}}, {"x", {3}}, {"w", {3}}}, {I64, F64, F64});
  i64Constant(body, "zero", 0);
  auto &counted = body.node("counted", "While", {"zero", "x", "w", "n"});
  setOutputs(counted, {"i_end", "y1", "w_end", "n_end"});
  setGraph(counted, "cond", cond.model().graph());
  setGraph(counted, "body", step.model().graph());
  auto &grow = body.node("grow", "While", {"x", "w"});
  setOutputs(grow, {"y2", "w_end2"});
  setGraph(grow, "cond", cond2.model().graph());
  setGraph(grow, "body", step2.model().graph());
  body.output("y1").output("y2");

  ModelBuilder b;
  b.input("n", {}, I64).input("x", {3}, F64).input("w", {3}, F64);
  auto &grad = b.node("Grad_1", "Grad", {"n", "x", "w"});
  setOutputs(grad, {"y1", "y2", "dx", "dw"});
  setGraph(grad, "body", body.model().graph());
  msjit::testing::setInts(grad, "wrt", {1, 2});
  auto *numDiff = grad.add_attribute();
  numDiff->set_name("num_diff");
  numDiff->set_i(2);
  msjit::testing::setBool(grad, "sens_param", false);
  b.output("y1").output("y2").output("dx").output("dw");

  for (const char *level : {"O0", "O1"}) {
    msrt_executable *exe = compileAndLoad(b.model(), level);
    // sum(y1) + sum(y2) at (x, w); gradients into dx, dw when given.
    auto run = [&](int64_t n, const double *x, const double *w, double *dx, double *dw) {
      double y1[3], y2[3], scratch[6];
      void *ins[3] = {&n, const_cast<double *>(x), const_cast<double *>(w)};
      void *outs[4] = {y1, y2, dx ? dx : scratch, dw ? dw : scratch + 3};
      REQUIRE(msrt_run(exe, ins, outs) == 0);
      return y1[0] + y1[1] + y1[2] + y2[0] + y2[1] + y2[2];
    };
    for (int64_t n : {0, 1, 4}) {
      double x[3] = {0.3, -0.7, 1.1}, w[3] = {1.3, 0.9, 1.6}, dx[3], dw[3];
      run(n, x, w, dx, dw);
      const double h = 1e-6;
      for (int i = 0; i < 6; ++i) {
        double up[6] = {x[0], x[1], x[2], w[0], w[1], w[2]}, down[6];
        std::copy(up, up + 6, down);
        up[i] += h;
        down[i] -= h;
        double fd = (run(n, up, up + 3, nullptr, nullptr) - run(n, down, down + 3, nullptr, nullptr)) / (2 * h);
        INFO("n=" << n << " input " << i);
        CHECK((i < 3 ? dx[i] : dw[i - 3]) == Approx(fd).epsilon(1e-6).margin(1e-8));
      }
    }
    msrt_unload(exe);
  }
}

TEST_CASE("second-order Grad through If", "[compiler][control_flow][grad]") {
  // f(p, x) = p ? x * x * x : sin(x); the model returns d/dx sum(f'(x)) = f''(x): 6x or -sin(x).
  const auto F64 = mindir::DT_FLOAT64;
  ModelBuilder cube = graphOf({{"a", {3}}}, {F64});
  cube.node("sq", "Mul", {"a", "a"});
  cube.node("y", "Mul", {"sq", "a"});
  cube.output("y");
  ModelBuilder sine = graphOf({{"a", {3}}}, {F64});
  sine.node("y", "Sin", {"a"});
  sine.output("y");
  ModelBuilder f = graphOf({{"p", {}}, {"x", {3}}}, {mindir::DT_BOOL, F64});
  auto &branch = f.node("If_1", "If", {"p", "x"});
  setGraph(branch, "then_branch", cube.model().graph());
  setGraph(branch, "else_branch", sine.model().graph());
  f.output("If_1");
  auto gradNode = [](ModelBuilder &g, const std::string &name, const mindir::GraphProto &body,
                     std::initializer_list<std::string> outputs) {
    auto &n = g.node(name, "Grad", {"p", "x"});
    setOutputs(n, outputs);
    setGraph(n, "body", body);
    msjit::testing::setInts(n, "wrt", {1});
    auto *numDiff = n.add_attribute();
    numDiff->set_name("num_diff");
    numDiff->set_i(1);
    msjit::testing::setBool(n, "sens_param", false);
  };
  ModelBuilder first = graphOf({{"p", {}}, {"x", {3}}}, {mindir::DT_BOOL, F64});
  gradNode(first, "Grad_inner", f.model().graph(), {"f", "df"});
  first.output("df");
  ModelBuilder b;
  b.input("p", {}, mindir::DT_BOOL).input("x", {3}, F64);
  gradNode(b, "Grad_outer", first.model().graph(), {"df", "d2f"});
  b.output("df").output("d2f");

  for (const char *level : {"O0", "O1"}) {
    msrt_executable *exe = compileAndLoad(b.model(), level);
    for (bool p : {true, false}) {
      double x[3] = {0.3, -1.2, 2.0}, df[3], d2f[3];
      void *ins[2] = {&p, x};
      void *outs[2] = {df, d2f};
      REQUIRE(msrt_run(exe, ins, outs) == 0);
      for (int i = 0; i < 3; ++i) {
        CHECK(df[i] == Approx(p ? 3 * x[i] * x[i] : std::cos(x[i])).epsilon(1e-12));
        CHECK(d2f[i] == Approx(p ? 6 * x[i] : -std::sin(x[i])).epsilon(1e-12));
      }
    }
    msrt_unload(exe);
  }
}

TEST_CASE("While may permute its carried values", "[compiler][control_flow]") {
  // for _ in range(3): a, b = b, a + b (buffers swap roles every iteration).
  const auto F32 = mindir::DT_FLOAT32, I64 = mindir::DT_INT64;
  ModelBuilder cond = graphOf({{"i", {}}, {"a", {2}}, {"b", {2}}}, {I64, F32, F32});
  i64Constant(cond, "three", 3);
  cond.node("more", "Less", {"i", "three"});
  cond.output("more");
  ModelBuilder step = graphOf({{"i", {}}, {"a", {2}}, {"b", {2}}}, {I64, F32, F32});
  i64Constant(step, "one", 1);
  step.node("next", "Add", {"i", "one"});
  step.node("sum", "Add", {"a", "b"});
  step.output("next").output("b").output("sum");
  ModelBuilder b;
  b.input("a", {2}).input("b", {2});
  i64Constant(b, "zero", 0);
  auto &loop = b.node("fib", "While", {"zero", "a", "b"});
  setOutputs(loop, {"n", "a_end", "b_end"});
  setGraph(loop, "cond", cond.model().graph());
  setGraph(loop, "body", step.model().graph());
  b.output("a_end").output("b_end");
  for (const char *level : {"O0", "O1"}) {
    msrt_executable *exe = compileAndLoad(b.model(), level);
    float a[2] = {0, 1}, bv[2] = {1, 1}, aEnd[2], bEnd[2];
    void *ins[2] = {a, bv};
    void *outs[2] = {aEnd, bEnd};
    REQUIRE(msrt_run(exe, ins, outs) == 0);
    // (0,1) (1,1) -> (1,1) (1,2) -> (1,2) (2,3) -> (2,3) (3,5)
    CHECK(aEnd[0] == 2);
    CHECK(aEnd[1] == 3);
    CHECK(bEnd[0] == 3);
    CHECK(bEnd[1] == 5);
    CHECK(a[0] == 0);  // inputs are not written
    CHECK(bv[1] == 1);
    msrt_unload(exe);
  }
}
