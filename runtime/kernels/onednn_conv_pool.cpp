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

extern "C" void _mlir_ciface_msrt_kernel_conv2d_f32(msjit_memref4_f32 *x, msjit_memref4_f32 *w,
                                                    msjit_memref4_f32 *y, int64_t sh, int64_t sw, int64_t dh,
                                                    int64_t dw, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                    int64_t group) {
  memory::dims src = dims4(*x), dst = dims4(*y), weights = dims4(*w);
  if (group > 1) weights = {group, w->sizes[0] / group, w->sizes[1], w->sizes[2], w->sizes[3]};
  std::string key = primitiveKey("conv", x->sizes[0], x->sizes[1], x->sizes[2], x->sizes[3], w->sizes[0],
                                 w->sizes[1], w->sizes[2], w->sizes[3], sh, sw, dh, dw, pt, pb, pl, pr, group);
  auto conv = cachedPrimitive<dnnl::convolution_forward>(key, [&] {
    memory::desc srcMd(src, memory::data_type::f32, tag::nchw), dstMd(dst, memory::data_type::f32, tag::nchw);
    memory::desc wMd(weights, memory::data_type::f32, group > 1 ? tag::goihw : tag::oihw);
    // oneDNN counts dilation from 0 (1 = one gap).
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                         srcMd, wMd, dstMd, {sh, sw}, {dh - 1, dw - 1}, {pt, pl}, {pb, pr});
    return dnnl::convolution_forward(dnnl::convolution_forward::primitive_desc(desc, cpuEngine()));
  });
  std::vector<float> xs, ws;
  memory::desc srcMd(src, memory::data_type::f32, tag::nchw), dstMd(dst, memory::data_type::f32, tag::nchw);
  memory::desc wMd(weights, memory::data_type::f32, group > 1 ? tag::goihw : tag::oihw);
  execute(conv, {{DNNL_ARG_SRC, memory(srcMd, cpuEngine(), const_cast<float *>(denseData(*x, xs)))},
                 {DNNL_ARG_WEIGHTS, memory(wMd, cpuEngine(), const_cast<float *>(denseData(*w, ws)))},
                 {DNNL_ARG_DST, memory(dstMd, cpuEngine(), y->data())}});
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
