// onednn_conv_pool.cpp - Conv2D and 2-D pooling on oneDNN, forward and backward
// (MaxPoolGrad excepted: see below).
#include <algorithm>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/kernels/kernels.h"
#include "runtime/kernels/onednn.h"

namespace msjit::kernels {

dnnl::engine &cpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

}  // namespace msjit::kernels

using namespace msjit::kernels;

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using MemRef4 = MemRef<float, 4>;

memory::dims dims4(const MemRef4 &m) { return {m.sizes[0], m.sizes[1], m.sizes[2], m.sizes[3]}; }
memory::desc nchw(const MemRef4 &m) { return {dims4(m), memory::data_type::f32, tag::nchw}; }
memory::desc anyLayout(const memory::desc &md) { return {md.dims(), memory::data_type::f32, tag::any}; }

// A primitive and the descriptor it was made from (which names the layouts it wants).
template <typename Primitive>
struct Prepared {
  typename Primitive::primitive_desc pd;
  Primitive primitive;
};

template <typename Primitive, typename Desc, typename... Hint>
Prepared<Primitive> prepare(const Desc &desc, const Hint &...hint) {
  typename Primitive::primitive_desc pd(desc, cpuEngine(), hint...);
  return {pd, Primitive(pd)};
}

// Reorder targets are per-thread scratch buffers reused across calls: fresh
// ones would page-fault tens of MB per call.
void *scratch(int slot, size_t bytes) {
  thread_local std::vector<float> buffers[3];
  auto &b = buffers[slot];
  if (b.size() * sizeof(float) < bytes) b.resize((bytes + sizeof(float) - 1) / sizeof(float));
  return b.data();
}

// `user` in the layout `wanted`: itself when the layouts agree, else a reorder into scratch `slot`.
memory toLayout(dnnl::stream &stream, const memory &user, const memory::desc &wanted, int slot) {
  if (user.get_desc() == wanted) return user;
  memory converted(wanted, cpuEngine(), scratch(slot, wanted.get_size()));
  dnnl::reorder(user, converted).execute(stream, const_cast<memory &>(user), converted);
  return converted;
}

// One argument of a primitive (DNNL_ARG_*) in the caller's plain-layout buffer.
using Operand = std::pair<int, memory>;

// Runs `p` on two plain-layout inputs and one plain-layout output (dense: it is ours),
// reordering into and out of the (blocked) layouts the primitive picked.
template <typename Primitive>
void executeInLayouts(const Prepared<Primitive> &p, std::initializer_list<Operand> inputs, Operand output) {
  auto wanted = [&](int arg) { return p.pd.query_md(dnnl::query::exec_arg_md, arg); };
  dnnl::stream stream(cpuEngine());
  std::unordered_map<int, memory> args;
  int slot = 0;
  for (const auto &[arg, user] : inputs) args[arg] = toLayout(stream, user, wanted(arg), slot++);
  auto &[outArg, userOut] = output;
  memory::desc outMd = wanted(outArg);
  memory out = userOut.get_desc() == outMd ? userOut : memory(outMd, cpuEngine(), scratch(slot, outMd.get_size()));
  args[outArg] = out;
  p.primitive.execute(stream, args);
  if (out != userOut) dnnl::reorder(out, userOut).execute(stream, out, userOut);
  stream.wait();
}

// A caller's buffer as plain-layout memory (strided views are copied into `keep` first).
memory userMemory(const memory::desc &md, const MemRef4 &m, std::vector<float> &keep) {
  return memory(md, cpuEngine(), const_cast<float *>(denseData(m, keep)));
}

// The geometry of one Conv2D, from the buffers of its input x, weight w and result y (or
// their gradients): plain layouts, and one cache key per kind of primitive.
struct ConvCall {
  memory::desc src, weights, dst;
  memory::dims strides, dilates, padL, padR;
  std::string key;

  ConvCall(const char *kind, const MemRef4 &x, const MemRef4 &w, const MemRef4 &y, int64_t sh, int64_t sw,
           int64_t dh, int64_t dw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t group)
      : src(nchw(x)),
        dst(nchw(y)),
        strides{sh, sw},
        dilates{dh - 1, dw - 1},  // oneDNN counts dilation from 0 (1 = one gap)
        padL{pt, pl},
        padR{pb, pr},
        key(primitiveKey(kind, x.sizes[0], x.sizes[1], x.sizes[2], x.sizes[3], w.sizes[0], w.sizes[1], w.sizes[2],
                         w.sizes[3], sh, sw, dh, dw, pt, pb, pl, pr, group)) {
    memory::dims oihw = dims4(w);
    if (group > 1) oihw = {group, w.sizes[0] / group, w.sizes[1], w.sizes[2], w.sizes[3]};
    weights = memory::desc(oihw, memory::data_type::f32, group > 1 ? tag::goihw : tag::oihw);
  }

  dnnl::convolution_forward::desc forward(dnnl::prop_kind prop) const {
    return dnnl::convolution_forward::desc(prop, dnnl::algorithm::convolution_direct, anyLayout(src),
                                           anyLayout(weights), anyLayout(dst), strides, dilates, padL, padR);
  }

  // Backward primitives are chosen to match a forward one (oneDNN's "hint").
  dnnl::convolution_forward::primitive_desc hint() const {
    return dnnl::convolution_forward::primitive_desc(forward(dnnl::prop_kind::forward_training), cpuEngine());
  }
};

}  // namespace

extern "C" void _mlir_ciface_msrt_kernel_conv2d_f32(msjit_memref4_f32 *x, msjit_memref4_f32 *w,
                                                    msjit_memref4_f32 *y, int64_t sh, int64_t sw, int64_t dh,
                                                    int64_t dw, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                    int64_t group) {
  ConvCall call("conv", *x, *w, *y, sh, sw, dh, dw, pt, pb, pl, pr, group);
  auto conv = cachedPrimitive<Prepared<dnnl::convolution_forward>>(call.key, [&] {
    return prepare<dnnl::convolution_forward>(call.forward(dnnl::prop_kind::forward_inference));
  });
  std::vector<float> xs, ws;
  executeInLayouts(conv,
                   {{DNNL_ARG_SRC, userMemory(call.src, *x, xs)}, {DNNL_ARG_WEIGHTS, userMemory(call.weights, *w, ws)}},
                   {DNNL_ARG_DST, memory(call.dst, cpuEngine(), y->data())});
}

namespace {

// A convolution backward primitive (Backward: _data or _weights): dy and the forward operand
// it needs (`known`) in, the other operand's gradient out.
template <typename Backward>
void convBackward(const ConvCall &call, const MemRef4 &dy, Operand known, Operand gradient) {
  auto conv = cachedPrimitive<Prepared<Backward>>(call.key, [&] {
    // Both descriptors take (src or its gradient, weights or theirs, dst's gradient).
    typename Backward::desc desc(dnnl::algorithm::convolution_direct, anyLayout(call.src), anyLayout(call.weights),
                                 anyLayout(call.dst), call.strides, call.dilates, call.padL, call.padR);
    return prepare<Backward>(desc, call.hint());
  });
  std::vector<float> dys;
  executeInLayouts(conv, {{DNNL_ARG_DIFF_DST, userMemory(call.dst, dy, dys)}, known}, gradient);
}

}  // namespace

extern "C" void _mlir_ciface_msrt_kernel_conv2d_backprop_input_f32(
    msjit_memref4_f32 *dy, msjit_memref4_f32 *w, msjit_memref4_f32 *dx, int64_t sh, int64_t sw, int64_t dh,
    int64_t dw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t group) {
  ConvCall call("conv_bwd_data", *dx, *w, *dy, sh, sw, dh, dw, pt, pb, pl, pr, group);
  std::vector<float> ws;
  convBackward<dnnl::convolution_backward_data>(call, *dy, {DNNL_ARG_WEIGHTS, userMemory(call.weights, *w, ws)},
                                                {DNNL_ARG_DIFF_SRC, memory(call.src, cpuEngine(), dx->data())});
}

extern "C" void _mlir_ciface_msrt_kernel_conv2d_backprop_filter_f32(
    msjit_memref4_f32 *dy, msjit_memref4_f32 *x, msjit_memref4_f32 *dw, int64_t sh, int64_t sw, int64_t dh,
    int64_t dwd, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t group) {
  ConvCall call("conv_bwd_weights", *x, *dw, *dy, sh, sw, dh, dwd, pt, pb, pl, pr, group);
  std::vector<float> xs;
  memory gradient(call.weights, cpuEngine(), dw->data());
  convBackward<dnnl::convolution_backward_weights>(call, *dy, {DNNL_ARG_SRC, userMemory(call.src, *x, xs)},
                                                   {DNNL_ARG_DIFF_WEIGHTS, gradient});
}

namespace {

// The geometry of one pooling, from the buffers of its input x and result y (or their
// gradients). Pooling runs on plain NCHW: it is memory-bound, reorders would cost more.
struct PoolCall {
  memory::desc src, dst;
  memory::dims strides, kernel, padL, padR;
  std::string key;

  PoolCall(const char *kind, dnnl::algorithm algorithm, const MemRef4 &x, const MemRef4 &y, int64_t kh,
           int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr)
      : src(nchw(x)),
        dst(nchw(y)),
        strides{sh, sw},
        kernel{kh, kw},
        padL{pt, pl},
        padR{pb, pr},
        key(primitiveKey(kind, static_cast<int>(algorithm), x.sizes[0], x.sizes[1], x.sizes[2], x.sizes[3], kh, kw,
                         sh, sw, pt, pb, pl, pr)) {}

  dnnl::pooling_forward::desc forward(dnnl::prop_kind prop, dnnl::algorithm algorithm) const {
    return dnnl::pooling_forward::desc(prop, algorithm, src, dst, strides, kernel, padL, padR);
  }

  dnnl::pooling_backward::desc backward(dnnl::algorithm algorithm) const {
    return dnnl::pooling_backward::desc(algorithm, src, dst, strides, kernel, padL, padR);
  }
};

dnnl::algorithm avgAlgorithm(int64_t count_include_pad) {
  return count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                           : dnnl::algorithm::pooling_avg_exclude_padding;
}

// Runs `primitive` on plain-layout buffers.
void execute(const dnnl::primitive &primitive, const std::unordered_map<int, memory> &args) {
  dnnl::stream stream(cpuEngine());
  primitive.execute(stream, args);
  stream.wait();
}

void pool(dnnl::algorithm algorithm, MemRef4 *x, MemRef4 *y, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
          int64_t pt, int64_t pb, int64_t pl, int64_t pr) {
  PoolCall call("pool", algorithm, *x, *y, kh, kw, sh, sw, pt, pb, pl, pr);
  auto primitive = cachedPrimitive<dnnl::pooling_forward>(call.key, [&] {
    return prepare<dnnl::pooling_forward>(call.forward(dnnl::prop_kind::forward_inference, algorithm)).primitive;
  });
  std::vector<float> xs;
  execute(primitive, {{DNNL_ARG_SRC, userMemory(call.src, *x, xs)},
                      {DNNL_ARG_DST, memory(call.dst, cpuEngine(), y->data())}});
}

}  // namespace

extern "C" void _mlir_ciface_msrt_kernel_max_pool2d_f32(msjit_memref4_f32 *x, msjit_memref4_f32 *y, int64_t kh,
                                                        int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                                        int64_t pl, int64_t pr) {
  pool(dnnl::algorithm::pooling_max, x, y, kh, kw, sh, sw, pt, pb, pl, pr);
}

extern "C" void _mlir_ciface_msrt_kernel_avg_pool2d_f32(msjit_memref4_f32 *x, msjit_memref4_f32 *y, int64_t kh,
                                                        int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                                        int64_t pl, int64_t pr, int64_t count_include_pad) {
  pool(avgAlgorithm(count_include_pad), x, y, kh, kw, sh, sw, pt, pb, pl, pr);
}

// Max pooling's gradient is plain loops, not oneDNN: oneDNN's forward starts each window at
// -FLT_MAX, so when no real element exceeds that its workspace names a padding tap and dy is
// lost; the contract (proto/OPS.md) sends dy to the first real maximum. One pass, no forward.
extern "C" void _mlir_ciface_msrt_kernel_max_pool2d_grad_f32(msjit_memref4_f32 *x, msjit_memref4_f32 *dy,
                                                             msjit_memref4_f32 *dx, int64_t kh, int64_t kw,
                                                             int64_t sh, int64_t sw, int64_t pt, int64_t /*pb*/,
                                                             int64_t pl, int64_t /*pr*/) {
  std::vector<float> xs, dys;
  const float *input = denseData(*x, xs), *grad = denseData(*dy, dys);
  const int64_t planes = x->sizes[0] * x->sizes[1], h = x->sizes[2], w = x->sizes[3];
  const int64_t oh = dy->sizes[2], ow = dy->sizes[3];
  float *result = dx->data();
#pragma omp parallel for if (planes * h * w > (1 << 16))
  for (int64_t plane = 0; plane < planes; ++plane) {
    const float *in = input + plane * h * w, *g = grad + plane * oh * ow;
    float *out = result + plane * h * w;
    std::fill(out, out + h * w, 0.0f);
    for (int64_t i = 0; i < oh; ++i) {
      int64_t top = i * sh - pt, row0 = std::max<int64_t>(top, 0), row1 = std::min(top + kh, h);
      for (int64_t j = 0; j < ow; ++j) {
        int64_t left = j * sw - pl, col0 = std::max<int64_t>(left, 0), col1 = std::min(left + kw, w);
        if (row0 >= row1 || col0 >= col1) continue;  // all padding: cannot happen when pad < kernel
        int64_t best = row0 * w + col0;
        float highest = in[best];
        for (int64_t r = row0; r < row1; ++r)
          for (int64_t c = col0; c < col1; ++c) {
            // Strict, so ties keep the first; selects rather than branches: on real data the
            // comparison is unpredictable and mispredictions cost most of the time.
            bool higher = in[r * w + c] > highest;
            highest = higher ? in[r * w + c] : highest;
            best = higher ? r * w + c : best;
          }
        out[best] += g[i * ow + j];
      }
    }
  }
}

extern "C" void _mlir_ciface_msrt_kernel_avg_pool2d_grad_f32(msjit_memref4_f32 *dy, msjit_memref4_f32 *dx,
                                                             int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                                                             int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                             int64_t count_include_pad) {
  dnnl::algorithm algorithm = avgAlgorithm(count_include_pad);
  PoolCall call("avg_pool_grad", algorithm, *dx, *dy, kh, kw, sh, sw, pt, pb, pl, pr);
  auto primitive = cachedPrimitive<dnnl::pooling_backward>(call.key, [&] {
    dnnl::pooling_forward::primitive_desc hint(call.forward(dnnl::prop_kind::forward_training, algorithm),
                                               cpuEngine());
    return prepare<dnnl::pooling_backward>(call.backward(algorithm), hint).primitive;
  });
  std::vector<float> dys;
  execute(primitive, {{DNNL_ARG_DIFF_DST, userMemory(call.dst, *dy, dys)},
                      {DNNL_ARG_DIFF_SRC, memory(call.src, cpuEngine(), dx->data())}});
}
