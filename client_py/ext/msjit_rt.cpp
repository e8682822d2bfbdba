// msjit_rt.cpp - the `msjit._msjit_rt` extension: runs artifacts in process.
//
//   Executable(path | bytes, name)   loads an artifact through the runtime C ABI,
//                                    from a file or from memory (verified bytes)
//     .inputs / .outputs             tuples of (numpy.dtype, shape)
//     .run(arrays)                   general path: converts, validates, runs
//   FastCall(exe, Tensor, single)    the cached-call hot path
//     fast(args) -> result | None    None: args are not exactly the compiled
//                                    Tensors, the caller takes the slow path
//   conv2d / max_pool2d / avg_pool2d eager calls of the vendor kernels the
//   and their gradients              artifacts import (runtime/kernels/), so
//                                    eager and compiled share one kernel
//
// FastCall reads a Tensor's `_array` slot by offset and builds result Tensors
// directly, so a cached call costs a few hundred nanoseconds on top of the
// kernel.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/kernels/kernels.h"
#include "runtime/msjit_runtime.h"

namespace {

// Kernels touching more than this many bytes run without the GIL.
constexpr int64_t kReleaseGilBytes = 1 << 16;

int npyType(msrt_dtype dtype) {
  switch (dtype) {
    case MSRT_FLOAT32: return NPY_FLOAT32;
    case MSRT_FLOAT16: return NPY_FLOAT16;
    case MSRT_FLOAT64: return NPY_FLOAT64;
    case MSRT_INT32: return NPY_INT32;
    case MSRT_INT64: return NPY_INT64;
    case MSRT_BOOL: return NPY_BOOL;
    default: return -1;
  }
}

struct TensorSpec {
  int typenum;
  std::vector<npy_intp> dims;
};

struct ExecutableObject {
  PyObject_HEAD
  msrt_executable *exe;
  std::vector<TensorSpec> *inputs, *outputs;
  int64_t total_bytes;
  PyObject *inputs_tuple, *outputs_tuple;
};

PyObject *specTuple(const std::vector<TensorSpec> &specs) {
  PyObject *tuple = PyTuple_New(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    PyObject *shape = PyTuple_New(specs[i].dims.size());
    for (size_t d = 0; d < specs[i].dims.size(); ++d) PyTuple_SET_ITEM(shape, d, PyLong_FromSsize_t(specs[i].dims[d]));
    PyTuple_SET_ITEM(tuple, i, Py_BuildValue("(NN)", PyArray_DescrFromType(specs[i].typenum), shape));
  }
  return tuple;
}

// Executable(source, name="msjit-artifact"): `source` is a path (str or
// os.PathLike), loaded in place, or a bytes-like object holding the artifact,
// loaded from memory (msrt_load_bytes; `name` labels its memfd).
int Executable_init(ExecutableObject *self, PyObject *args, PyObject *kwargs) {
  static const char *keywords[] = {"source", "name", nullptr};
  PyObject *source = nullptr;
  const char *name = "msjit-artifact";
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|s", const_cast<char **>(keywords), &source, &name)) return -1;
  if (self->exe) {
    PyErr_SetString(PyExc_RuntimeError, "Executable is already initialized");
    return -1;
  }
  int status;
  if (PyUnicode_Check(source) || PyObject_HasAttrString(source, "__fspath__")) {
    PyObject *path = nullptr;
    if (!PyUnicode_FSConverter(source, &path)) return -1;
    status = msrt_load(PyBytes_AS_STRING(path), &self->exe);
    Py_DECREF(path);
  } else {
    Py_buffer view;
    if (PyObject_GetBuffer(source, &view, PyBUF_SIMPLE) != 0) return -1;
    status = msrt_load_bytes(view.buf, static_cast<size_t>(view.len), name, &self->exe);
    PyBuffer_Release(&view);
  }
  if (status != 0) {
    PyErr_SetString(PyExc_RuntimeError, msrt_last_error());
    return -1;
  }
  self->inputs = new std::vector<TensorSpec>();
  self->outputs = new std::vector<TensorSpec>();
  self->total_bytes = 0;
  for (int is_output = 0; is_output < 2; ++is_output) {
    int n = is_output ? msrt_num_outputs(self->exe) : msrt_num_inputs(self->exe);
    for (int i = 0; i < n; ++i) {
      msrt_tensor_info info;
      msrt_tensor(self->exe, is_output, i, &info);
      TensorSpec spec{npyType(info.dtype), std::vector<npy_intp>(info.dims, info.dims + info.rank)};
      self->total_bytes += info.num_bytes;
      (is_output ? self->outputs : self->inputs)->push_back(std::move(spec));
    }
  }
  self->inputs_tuple = specTuple(*self->inputs);
  self->outputs_tuple = specTuple(*self->outputs);
  return 0;
}

void Executable_dealloc(ExecutableObject *self) {
  if (self->exe) msrt_unload(self->exe);
  delete self->inputs;
  delete self->outputs;
  Py_XDECREF(self->inputs_tuple);
  Py_XDECREF(self->outputs_tuple);
  Py_TYPE(self)->tp_free(reinterpret_cast<PyObject *>(self));
}

bool isReady(ExecutableObject *self) {
  if (self->exe) return true;
  PyErr_SetString(PyExc_RuntimeError, "Executable is not initialized");
  return false;
}

// Allocates the outputs, runs, and returns them as a list of new arrays.
bool runWith(ExecutableObject *self, void *const *inputs, std::vector<PyObject *> &outputs) {
  std::vector<void *> out_ptrs;
  for (const TensorSpec &spec : *self->outputs) {
    PyObject *arr = PyArray_SimpleNew(static_cast<int>(spec.dims.size()), const_cast<npy_intp *>(spec.dims.data()), spec.typenum);
    if (!arr) {
      for (PyObject *o : outputs) Py_DECREF(o);
      outputs.clear();
      return false;
    }
    outputs.push_back(arr);
    out_ptrs.push_back(PyArray_DATA(reinterpret_cast<PyArrayObject *>(arr)));
  }
  if (self->total_bytes > kReleaseGilBytes) {
    Py_BEGIN_ALLOW_THREADS
    msrt_run(self->exe, inputs, out_ptrs.data());
    Py_END_ALLOW_THREADS
  } else {
    msrt_run(self->exe, inputs, out_ptrs.data());
  }
  return true;
}

std::string shapeText(int nd, const npy_intp *dims) {
  std::string s = "(";
  for (int i = 0; i < nd; ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + (nd == 1 ? ",)" : ")");
}

PyObject *Executable_run(ExecutableObject *self, PyObject *arg) {
  if (!isReady(self)) return nullptr;
  PyObject *seq = PySequence_Fast(arg, "run() takes a sequence of arrays");
  if (!seq) return nullptr;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n != static_cast<Py_ssize_t>(self->inputs->size())) {
    PyErr_Format(PyExc_ValueError, "expected %zu inputs, got %zd", self->inputs->size(), n);
    Py_DECREF(seq);
    return nullptr;
  }
  std::vector<PyObject *> keep;
  std::vector<void *> ptrs;
  auto cleanup = [&] {
    for (PyObject *o : keep) Py_DECREF(o);
    Py_DECREF(seq);
  };
  for (Py_ssize_t i = 0; i < n; ++i) {
    const TensorSpec &spec = (*self->inputs)[i];
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    PyArrayObject *given = reinterpret_cast<PyArrayObject *>(PyArray_FROM_O(item));
    if (!given) return cleanup(), nullptr;
    bool match = PyArray_TYPE(given) == spec.typenum && PyArray_NDIM(given) == static_cast<int>(spec.dims.size());
    for (size_t d = 0; match && d < spec.dims.size(); ++d) match = PyArray_DIM(given, d) == spec.dims[d];
    if (!match) {
      PyObject *want = reinterpret_cast<PyObject *>(PyArray_DescrFromType(spec.typenum));
      PyErr_Format(PyExc_ValueError, "input %zd: expected %S%s, got %S%s", i, want,
                   shapeText(spec.dims.size(), spec.dims.data()).c_str(),
                   reinterpret_cast<PyObject *>(PyArray_DESCR(given)),
                   shapeText(PyArray_NDIM(given), PyArray_DIMS(given)).c_str());
      Py_DECREF(want);
      Py_DECREF(given);
      return cleanup(), nullptr;
    }
    // Non-contiguous or misaligned inputs (transposes, slices) are copied.
    PyObject *dense = PyArray_FromArray(given, nullptr, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
    Py_DECREF(given);
    if (!dense) return cleanup(), nullptr;
    keep.push_back(dense);
    ptrs.push_back(PyArray_DATA(reinterpret_cast<PyArrayObject *>(dense)));
  }
  std::vector<PyObject *> outputs;
  bool ok = runWith(self, ptrs.data(), outputs);
  cleanup();
  if (!ok) return nullptr;
  PyObject *result = PyTuple_New(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) PyTuple_SET_ITEM(result, i, outputs[i]);
  return result;
}

PyObject *Executable_inputs(ExecutableObject *self, void *) {
  if (!isReady(self)) return nullptr;
  return Py_NewRef(self->inputs_tuple);
}

PyObject *Executable_outputs(ExecutableObject *self, void *) {
  if (!isReady(self)) return nullptr;
  return Py_NewRef(self->outputs_tuple);
}

PyMethodDef Executable_methods[] = {
    {"run", reinterpret_cast<PyCFunction>(Executable_run), METH_O,
     "run(arrays) -> tuple of arrays: validates dtypes/shapes, copies non-contiguous inputs"},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef Executable_getset[] = {
    {"inputs", reinterpret_cast<getter>(Executable_inputs), nullptr, "(dtype, shape) per input", nullptr},
    {"outputs", reinterpret_cast<getter>(Executable_outputs), nullptr, "(dtype, shape) per output", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject ExecutableType = {PyVarObject_HEAD_INIT(nullptr, 0)};

struct FastCallObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  ExecutableObject *exe;
  PyTypeObject *tensor_type;
  Py_ssize_t array_offset;  // where a Tensor keeps its `_array` slot
  bool single;
};

PyObject *&arraySlot(PyObject *tensor, Py_ssize_t offset) {
  return *reinterpret_cast<PyObject **>(reinterpret_cast<char *>(tensor) + offset);
}

PyObject *FastCall_call(FastCallObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
  if (PyVectorcall_NARGS(nargsf) != 1 || kwnames || !PyTuple_CheckExact(args[0])) Py_RETURN_NONE;
  PyObject *tuple = args[0];
  const auto &specs = *self->exe->inputs;
  if (PyTuple_GET_SIZE(tuple) != static_cast<Py_ssize_t>(specs.size())) Py_RETURN_NONE;
  constexpr size_t kInline = 16;
  void *inline_ptrs[kInline];
  std::vector<void *> heap_ptrs;
  void **ptrs = specs.size() <= kInline ? inline_ptrs : (heap_ptrs.resize(specs.size()), heap_ptrs.data());
  for (size_t i = 0; i < specs.size(); ++i) {
    PyObject *t = PyTuple_GET_ITEM(tuple, i);
    if (Py_TYPE(t) != self->tensor_type) Py_RETURN_NONE;
    PyObject *a = arraySlot(t, self->array_offset);
    if (!a || !PyArray_CheckExact(a)) Py_RETURN_NONE;
    auto *arr = reinterpret_cast<PyArrayObject *>(a);
    const TensorSpec &spec = specs[i];
    if (PyArray_TYPE(arr) != spec.typenum || PyArray_NDIM(arr) != static_cast<int>(spec.dims.size()) ||
        !PyArray_ISCARRAY_RO(arr))
      Py_RETURN_NONE;
    for (size_t d = 0; d < spec.dims.size(); ++d)
      if (PyArray_DIM(arr, d) != spec.dims[d]) Py_RETURN_NONE;
    ptrs[i] = PyArray_DATA(arr);
  }
  std::vector<PyObject *> outputs;
  outputs.reserve(self->exe->outputs->size());
  if (!runWith(self->exe, ptrs, outputs)) return nullptr;
  PyObject *result = self->single ? nullptr : PyTuple_New(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    PyObject *t = self->tensor_type->tp_alloc(self->tensor_type, 0);
    if (!t) {
      for (size_t j = i; j < outputs.size(); ++j) Py_DECREF(outputs[j]);
      Py_XDECREF(result);
      return nullptr;
    }
    arraySlot(t, self->array_offset) = outputs[i];  // steals the reference
    if (self->single) return t;
    PyTuple_SET_ITEM(result, i, t);
  }
  return result;
}

int FastCall_init(FastCallObject *self, PyObject *args, PyObject *) {
  PyObject *exe = nullptr, *type = nullptr;
  int single = 0;
  if (!PyArg_ParseTuple(args, "O!O!p", &ExecutableType, &exe, &PyType_Type, &type, &single)) return -1;
  auto *e = reinterpret_cast<ExecutableObject *>(exe);
  if (!isReady(e)) return -1;
  if (single && e->outputs->size() != 1) {
    PyErr_SetString(PyExc_ValueError, "single=True needs exactly one output");
    return -1;
  }
  PyObject *descr = PyDict_GetItemString(reinterpret_cast<PyTypeObject *>(type)->tp_dict, "_array");
  if (!descr || Py_TYPE(descr) != &PyMemberDescr_Type ||
      reinterpret_cast<PyMemberDescrObject *>(descr)->d_member->type != T_OBJECT_EX) {
    PyErr_SetString(PyExc_TypeError, "the tensor type must declare __slots__ = ('_array',)");
    return -1;
  }
  Py_XSETREF(self->exe, reinterpret_cast<ExecutableObject *>(Py_NewRef(exe)));
  Py_XSETREF(self->tensor_type, reinterpret_cast<PyTypeObject *>(Py_NewRef(type)));
  self->array_offset = reinterpret_cast<PyMemberDescrObject *>(descr)->d_member->offset;
  self->single = single;
  self->vectorcall = reinterpret_cast<vectorcallfunc>(FastCall_call);
  return 0;
}

void FastCall_dealloc(FastCallObject *self) {
  Py_XDECREF(self->exe);
  Py_XDECREF(self->tensor_type);
  Py_TYPE(self)->tp_free(reinterpret_cast<PyObject *>(self));
}

PyObject *FastCall_tp_call(PyObject *self, PyObject *args, PyObject *kwargs) {
  if (!reinterpret_cast<FastCallObject *>(self)->vectorcall) {
    PyErr_SetString(PyExc_RuntimeError, "FastCall is not initialized");
    return nullptr;
  }
  return PyVectorcall_Call(self, args, kwargs);
}

PyTypeObject FastCallType = {PyVarObject_HEAD_INIT(nullptr, 0)};

// ---- eager vendor kernels ------------------------------------------------

using Memref4 = msjit::kernels::MemRef<float, 4>;

// The operands of one eager call as dense float32 NCHW views; the converted
// arrays stay alive as long as this object.
class Operands {
 public:
  Operands() = default;
  Operands(const Operands &) = delete;
  Operands &operator=(const Operands &) = delete;
  ~Operands() {
    for (PyObject *o : owned_) Py_DECREF(o);
  }

  // False with a ValueError when `obj` is not a 4-D float32 array.
  bool add(PyObject *obj, const char *what, Memref4 &m) {
    PyObject *array = PyArray_FROMANY(obj, NPY_FLOAT32, 4, 4, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
    if (!array) {
      PyErr_Format(PyExc_ValueError, "%s must be a 4-D float32 array", what);
      return false;
    }
    owned_.push_back(array);
    auto *arr = reinterpret_cast<PyArrayObject *>(array);
    m = denseView(static_cast<float *>(PyArray_DATA(arr)), PyArray_DIMS(arr));
    return true;
  }

  template <typename Dim>
  static Memref4 denseView(float *data, const Dim *dims) {
    Memref4 m{};
    m.allocated = m.aligned = data;
    for (int i = 0; i < 4; ++i) m.sizes[i] = dims[i];
    for (int i = 3, stride = 1; i >= 0; stride *= m.sizes[i], --i) m.strides[i] = stride;
    return m;
  }

 private:
  std::vector<PyObject *> owned_;
};

// A new (uninitialized) float32 array of `shape` and its memref view, or null with an error.
PyObject *newArray4(const int64_t *shape, Memref4 &view) {
  npy_intp dims[4] = {shape[0], shape[1], shape[2], shape[3]};
  for (npy_intp d : dims)
    if (d < 0) return PyErr_Format(PyExc_ValueError, "shape %s has a negative dim", shapeText(4, dims).c_str());
  PyObject *out = PyArray_SimpleNew(4, dims, NPY_FLOAT32);
  if (out) view = Operands::denseView(static_cast<float *>(PyArray_DATA(reinterpret_cast<PyArrayObject *>(out))), dims);
  return out;
}

// The (N, channels, OH, OW) result of a window on the NCHW shape `x`; extents follow
// proto/OPS.md. False with a ValueError when the window does not fit.
bool windowResult(const int64_t *x, int64_t channels, int64_t kh, int64_t kw, const int64_t *stride,
                  const int64_t *dilation, const int64_t *pad, int64_t *out) {
  // How far the window's first tap moves over each padded axis.
  int64_t travelH = x[2] + pad[0] + pad[1] - dilation[0] * (kh - 1) - 1;
  int64_t travelW = x[3] + pad[2] + pad[3] - dilation[1] * (kw - 1) - 1;
  if (travelH < 0 || travelW < 0 || stride[0] < 1 || stride[1] < 1 || kh < 1 || kw < 1 || dilation[0] < 1 ||
      dilation[1] < 1) {
    PyErr_SetString(PyExc_ValueError, "the window does not fit the input");
    return false;
  }
  out[0] = x[0], out[1] = channels, out[2] = travelH / stride[0] + 1, out[3] = travelW / stride[1] + 1;
  return true;
}

// The result shape of Conv2D on input shape `x` and weight shape `w`.
bool convResult(const int64_t *x, const int64_t *w, const int64_t *stride, const int64_t *dilation,
                const int64_t *pad, int64_t group, int64_t *out) {
  if (group < 1 || x[1] != w[1] * group || w[0] % group) {
    PyErr_SetString(PyExc_ValueError, "conv2d: input channels, weight shape and group do not match");
    return false;
  }
  return windowResult(x, w[0], w[2], w[3], stride, dilation, pad, out);
}

// False with a ValueError unless dy has the shape of the forward result.
bool matchesResult(const char *op, const Memref4 &dy, const int64_t *result) {
  if (std::equal(result, result + 4, dy.sizes)) return true;
  npy_intp got[4] = {dy.sizes[0], dy.sizes[1], dy.sizes[2], dy.sizes[3]},
           want[4] = {result[0], result[1], result[2], result[3]};
  PyErr_Format(PyExc_ValueError, "%s: dy has shape %s, the forward result has shape %s", op,
               shapeText(4, got).c_str(), shapeText(4, want).c_str());
  return false;
}

const int64_t kNoDilation[2] = {1, 1};

PyObject *conv2d(PyObject *, PyObject *args) {
  PyObject *xo, *wo;
  int64_t st[2], di[2], pad[4], group, shape[4];
  if (!PyArg_ParseTuple(args, "OO(LL)(LL)(LLLL)L", &xo, &wo, &st[0], &st[1], &di[0], &di[1], &pad[0], &pad[1],
                        &pad[2], &pad[3], &group))
    return nullptr;
  Operands operands;
  Memref4 x, w, y;
  if (!operands.add(xo, "conv2d input", x) || !operands.add(wo, "conv2d weight", w) ||
      !convResult(x.sizes, w.sizes, st, di, pad, group, shape))
    return nullptr;
  PyObject *out = newArray4(shape, y);
  if (!out) return nullptr;
  Py_BEGIN_ALLOW_THREADS
  _mlir_ciface_msrt_kernel_conv2d_f32(&x, &w, &y, st[0], st[1], di[0], di[1], pad[0], pad[1], pad[2], pad[3], group);
  Py_END_ALLOW_THREADS
  return out;
}

// Conv2DBackpropInput (dy, w, ..., input_shape) or Conv2DBackpropFilter (dy, x, ..., filter_shape).
PyObject *conv2dGrad(PyObject *args, bool filter) {
  const char *op = filter ? "conv2d_backprop_filter" : "conv2d_backprop_input";
  PyObject *dyo, *known;
  int64_t st[2], di[2], pad[4], group, shape[4], result[4];
  if (!PyArg_ParseTuple(args, "OO(LL)(LL)(LLLL)L(LLLL)", &dyo, &known, &st[0], &st[1], &di[0], &di[1], &pad[0],
                        &pad[1], &pad[2], &pad[3], &group, &shape[0], &shape[1], &shape[2], &shape[3]))
    return nullptr;
  Operands operands;
  Memref4 dy, other, grad;
  if (!operands.add(dyo, "dy", dy) || !operands.add(known, filter ? "conv2d input" : "conv2d weight", other) ||
      !convResult(filter ? other.sizes : shape, filter ? shape : other.sizes, st, di, pad, group, result) ||
      !matchesResult(op, dy, result))
    return nullptr;
  PyObject *out = newArray4(shape, grad);
  if (!out) return nullptr;
  Py_BEGIN_ALLOW_THREADS
  if (filter)
    _mlir_ciface_msrt_kernel_conv2d_backprop_filter_f32(&dy, &other, &grad, st[0], st[1], di[0], di[1], pad[0],
                                                        pad[1], pad[2], pad[3], group);
  else
    _mlir_ciface_msrt_kernel_conv2d_backprop_input_f32(&dy, &other, &grad, st[0], st[1], di[0], di[1], pad[0],
                                                       pad[1], pad[2], pad[3], group);
  Py_END_ALLOW_THREADS
  return out;
}

PyObject *conv2d_backprop_input(PyObject *, PyObject *args) { return conv2dGrad(args, false); }
PyObject *conv2d_backprop_filter(PyObject *, PyObject *args) { return conv2dGrad(args, true); }

PyObject *pool2d(PyObject *args, bool average) {
  PyObject *xo;
  int64_t k[2], st[2], pad[4], shape[4];
  int include = 0;
  if (average ? !PyArg_ParseTuple(args, "O(LL)(LL)(LLLL)p", &xo, &k[0], &k[1], &st[0], &st[1], &pad[0], &pad[1],
                                  &pad[2], &pad[3], &include)
              : !PyArg_ParseTuple(args, "O(LL)(LL)(LLLL)", &xo, &k[0], &k[1], &st[0], &st[1], &pad[0], &pad[1],
                                  &pad[2], &pad[3]))
    return nullptr;
  Operands operands;
  Memref4 x, y;
  if (!operands.add(xo, "pooling input", x) ||
      !windowResult(x.sizes, x.sizes[1], k[0], k[1], st, kNoDilation, pad, shape))
    return nullptr;
  PyObject *out = newArray4(shape, y);
  if (!out) return nullptr;
  Py_BEGIN_ALLOW_THREADS
  if (average)
    _mlir_ciface_msrt_kernel_avg_pool2d_f32(&x, &y, k[0], k[1], st[0], st[1], pad[0], pad[1], pad[2], pad[3], include);
  else
    _mlir_ciface_msrt_kernel_max_pool2d_f32(&x, &y, k[0], k[1], st[0], st[1], pad[0], pad[1], pad[2], pad[3]);
  Py_END_ALLOW_THREADS
  return out;
}

PyObject *max_pool2d(PyObject *, PyObject *args) { return pool2d(args, false); }
PyObject *avg_pool2d(PyObject *, PyObject *args) { return pool2d(args, true); }

PyObject *max_pool2d_grad(PyObject *, PyObject *args) {
  PyObject *xo, *dyo;
  int64_t k[2], st[2], pad[4], pooled[4];
  if (!PyArg_ParseTuple(args, "OO(LL)(LL)(LLLL)", &xo, &dyo, &k[0], &k[1], &st[0], &st[1], &pad[0], &pad[1],
                        &pad[2], &pad[3]))
    return nullptr;
  Operands operands;
  Memref4 x, dy, dx;
  if (!operands.add(xo, "pooling input", x) || !operands.add(dyo, "dy", dy) ||
      !windowResult(x.sizes, x.sizes[1], k[0], k[1], st, kNoDilation, pad, pooled) ||
      !matchesResult("max_pool2d_grad", dy, pooled))
    return nullptr;
  PyObject *out = newArray4(x.sizes, dx);
  if (!out) return nullptr;
  Py_BEGIN_ALLOW_THREADS
  _mlir_ciface_msrt_kernel_max_pool2d_grad_f32(&x, &dy, &dx, k[0], k[1], st[0], st[1], pad[0], pad[1], pad[2], pad[3]);
  Py_END_ALLOW_THREADS
  return out;
}

PyObject *avg_pool2d_grad(PyObject *, PyObject *args) {
  PyObject *dyo;
  int64_t k[2], st[2], pad[4], shape[4], pooled[4];
  int include = 0;
  if (!PyArg_ParseTuple(args, "O(LL)(LL)(LLLL)p(LLLL)", &dyo, &k[0], &k[1], &st[0], &st[1], &pad[0], &pad[1],
                        &pad[2], &pad[3], &include, &shape[0], &shape[1], &shape[2], &shape[3]))
    return nullptr;
  Operands operands;
  Memref4 dy, dx;
  if (!operands.add(dyo, "dy", dy) || !windowResult(shape, shape[1], k[0], k[1], st, kNoDilation, pad, pooled) ||
      !matchesResult("avg_pool2d_grad", dy, pooled))
    return nullptr;
  PyObject *out = newArray4(shape, dx);
  if (!out) return nullptr;
  Py_BEGIN_ALLOW_THREADS
  _mlir_ciface_msrt_kernel_avg_pool2d_grad_f32(&dy, &dx, k[0], k[1], st[0], st[1], pad[0], pad[1], pad[2], pad[3],
                                               include);
  Py_END_ALLOW_THREADS
  return out;
}

PyMethodDef module_methods[] = {
    {"conv2d", conv2d, METH_VARARGS,
     "conv2d(x, w, (sh, sw), (dh, dw), (top, bottom, left, right), group) -> ndarray (NCHW, OIHW, float32)"},
    {"conv2d_backprop_input", conv2d_backprop_input, METH_VARARGS,
     "conv2d_backprop_input(dy, w, (sh, sw), (dh, dw), (top, bottom, left, right), group, (n, c, h, w)) -> dx"},
    {"conv2d_backprop_filter", conv2d_backprop_filter, METH_VARARGS,
     "conv2d_backprop_filter(dy, x, (sh, sw), (dh, dw), (top, bottom, left, right), group, (o, c/group, kh, kw))"
     " -> dw"},
    {"max_pool2d", max_pool2d, METH_VARARGS, "max_pool2d(x, (kh, kw), (sh, sw), (top, bottom, left, right))"},
    {"avg_pool2d", avg_pool2d, METH_VARARGS,
     "avg_pool2d(x, (kh, kw), (sh, sw), (top, bottom, left, right), count_include_pad)"},
    {"max_pool2d_grad", max_pool2d_grad, METH_VARARGS,
     "max_pool2d_grad(x, dy, (kh, kw), (sh, sw), (top, bottom, left, right)) -> dx"},
    {"avg_pool2d_grad", avg_pool2d_grad, METH_VARARGS,
     "avg_pool2d_grad(dy, (kh, kw), (sh, sw), (top, bottom, left, right), count_include_pad, (n, c, h, w)) -> dx"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "_msjit_rt",
                      "Runs msjit artifacts in process (see msjit/runtime.py).", -1, module_methods};

}  // namespace

PyMODINIT_FUNC PyInit__msjit_rt(void) {
  import_array();
  ExecutableType.tp_name = "msjit._msjit_rt.Executable";
  ExecutableType.tp_basicsize = sizeof(ExecutableObject);
  ExecutableType.tp_flags = Py_TPFLAGS_DEFAULT;
  ExecutableType.tp_doc = "A loaded artifact.";
  ExecutableType.tp_new = PyType_GenericNew;
  ExecutableType.tp_init = reinterpret_cast<initproc>(Executable_init);
  ExecutableType.tp_dealloc = reinterpret_cast<destructor>(Executable_dealloc);
  ExecutableType.tp_methods = Executable_methods;
  ExecutableType.tp_getset = Executable_getset;

  FastCallType.tp_name = "msjit._msjit_rt.FastCall";
  FastCallType.tp_basicsize = sizeof(FastCallObject);
  FastCallType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL;
  FastCallType.tp_doc = "The cached-call hot path of one compiled signature.";
  FastCallType.tp_new = PyType_GenericNew;
  FastCallType.tp_init = reinterpret_cast<initproc>(FastCall_init);
  FastCallType.tp_dealloc = reinterpret_cast<destructor>(FastCall_dealloc);
  FastCallType.tp_vectorcall_offset = offsetof(FastCallObject, vectorcall);
  FastCallType.tp_call = FastCall_tp_call;

  if (PyType_Ready(&ExecutableType) < 0 || PyType_Ready(&FastCallType) < 0) return nullptr;
  PyObject *m = PyModule_Create(&module);
  if (!m) return nullptr;
  Py_INCREF(&ExecutableType);
  Py_INCREF(&FastCallType);
  PyModule_AddObject(m, "Executable", reinterpret_cast<PyObject *>(&ExecutableType));
  PyModule_AddObject(m, "FastCall", reinterpret_cast<PyObject *>(&FastCallType));
  return m;
}
