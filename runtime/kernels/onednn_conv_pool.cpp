// onednn_conv_pool.cpp - Conv2D and 2-D pooling on oneDNN, plain NCHW layouts.
#include <vector>

#include "runtime/kernels/kernels.h"
#include "runtime/kernels/onednn.h"

namespace msjit::kernels {

dnnl::engine &cpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

namespace {

using dnnl::memory;
using tag = memory::format_tag;

memory::dims dims4(const MemRef<float, 4> &m) { return {m.sizes[0], m.sizes[1], m.sizes[2], m.sizes[3]}; }

// Runs `primitive` on plain-layout buffers; `dst` must be dense (it is ours).
template <typename Primitive>
void execute(Primitive &primitive, std::unordered_map<int, memory> args) {
  dnnl::stream stream(cpuEngine());
  primitive.execute(stream, args);
  stream.wait();
}

}  // namespace
}  // namespace msjit::kernels

using namespace msjit::kernels;

namespace {

// The convolution primitive picks its own (blocked) layouts; the buffers we
// are given are plain NCHW/OIHW, so data is reordered in and out. Reorder
// targets are per-thread scratch buffers reused across calls: fresh ones would
// page-fault tens of MB per call.
struct Conv {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward primitive;
};

float *scratch(int slot, size_t bytes) {
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

}  // namespace

extern "C" void _mlir_ciface_msrt_kernel_conv2d_f32(msjit_memref4_f32 *x, msjit_memref4_f32 *w,
                                                    msjit_memref4_f32 *y, int64_t sh, int64_t sw, int64_t dh,
                                                    int64_t dw, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                    int64_t group) {
  memory::dims src = dims4(*x), dst = dims4(*y), weights = dims4(*w);
  if (group > 1) weights = {group, w->sizes[0] / group, w->sizes[1], w->sizes[2], w->sizes[3]};
  memory::desc srcMd(src, memory::data_type::f32, tag::nchw), dstMd(dst, memory::data_type::f32, tag::nchw);
  memory::desc wMd(weights, memory::data_type::f32, group > 1 ? tag::goihw : tag::oihw);
  std::string key = primitiveKey("conv", x->sizes[0], x->sizes[1], x->sizes[2], x->sizes[3], w->sizes[0],
                                 w->sizes[1], w->sizes[2], w->sizes[3], sh, sw, dh, dw, pt, pb, pl, pr, group);
  Conv conv = cachedPrimitive<Conv>(key, [&] {
    auto any = [](const memory::desc &md) { return memory::desc(md.dims(), memory::data_type::f32, tag::any); };
    // oneDNN counts dilation from 0 (1 = one gap).
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                         any(srcMd), any(wMd), any(dstMd), {sh, sw}, {dh - 1, dw - 1}, {pt, pl},
                                         {pb, pr});
    dnnl::convolution_forward::primitive_desc pd(desc, cpuEngine());
    return Conv{pd, dnnl::convolution_forward(pd)};
  });
  std::vector<float> xs, ws;
  dnnl::stream stream(cpuEngine());
  memory userSrc(srcMd, cpuEngine(), const_cast<float *>(denseData(*x, xs)));
  memory userW(wMd, cpuEngine(), const_cast<float *>(denseData(*w, ws)));
  memory userDst(dstMd, cpuEngine(), y->data());
  memory src_ = toLayout(stream, userSrc, conv.pd.src_desc(), 0);
  memory w_ = toLayout(stream, userW, conv.pd.weights_desc(), 1);
  memory dst_ = conv.pd.dst_desc() == dstMd ? userDst : memory(conv.pd.dst_desc(), cpuEngine(), scratch(2, conv.pd.dst_desc().get_size()));
  conv.primitive.execute(stream, {{DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, w_}, {DNNL_ARG_DST, dst_}});
  if (dst_ != userDst) dnnl::reorder(dst_, userDst).execute(stream, dst_, userDst);
  stream.wait();
}

namespace {

void pool(dnnl::algorithm algorithm, MemRef<float, 4> *x, MemRef<float, 4> *y, int64_t kh, int64_t kw, int64_t sh,
          int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr) {
  memory::dims src = dims4(*x), dst = dims4(*y);
  std::string key = primitiveKey("pool", static_cast<int>(algorithm), x->sizes[0], x->sizes[1], x->sizes[2],
                                 x->sizes[3], kh, kw, sh, sw, pt, pb, pl, pr);
  memory::desc srcMd(src, memory::data_type::f32, tag::nchw), dstMd(dst, memory::data_type::f32, tag::nchw);
  auto primitive = cachedPrimitive<dnnl::pooling_forward>(key, [&] {
    dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, algorithm, srcMd, dstMd, {sh, sw},
                                     {kh, kw}, {pt, pl}, {pb, pr});
    return dnnl::pooling_forward(dnnl::pooling_forward::primitive_desc(desc, cpuEngine()));
  });
  std::vector<float> xs;
  execute(primitive, {{DNNL_ARG_SRC, memory(srcMd, cpuEngine(), const_cast<float *>(denseData(*x, xs)))},
                      {DNNL_ARG_DST, memory(dstMd, cpuEngine(), y->data())}});
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
  pool(count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                         : dnnl::algorithm::pooling_avg_exclude_padding,
       x, y, kh, kw, sh, sw, pt, pb, pl, pr);
}
