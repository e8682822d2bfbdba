//===- DataMovement.cpp - bprop rules of reshapes, slices and gathers -----===//
//
// Each rule moves dout back to where the forward took its elements from;
// elements read more than once (BroadcastTo, Tile, Gather) sum their adjoints.
//
//===----------------------------------------------------------------------===//
#include "ir/bprop/BpropUtils.h"

using namespace mlir;
using namespace mlir::mindir;
using namespace mlir::mindir::bprop;

namespace {

SmallVector<int64_t> withDim(ArrayRef<int64_t> shape, int64_t dim, int64_t size) {
  SmallVector<int64_t> out(shape);
  out[dim] = size;
  return out;
}

// v[begin:end:stride] along `dim`, other dims whole.
Value sliceDim(GradBuilder &g, Value v, int64_t dim, int64_t begin, int64_t end, int64_t stride = 1) {
  ArrayRef<int64_t> shape = tensorType(v).getShape();
  SmallVector<int64_t> begins(shape.size(), 0), ends(shape), strides(shape.size(), 1);
  begins[dim] = begin, ends[dim] = end, strides[dim] = stride;
  return g.create<StridedSliceOp>(v, begins, ends, strides);
}

// Places the n entries of `grad` along `dim` at positions first, first+step,
// ... of a dim of length `size`, zeros elsewhere. A step > 1 interleaves each
// entry with step-1 zeros (Concat on a new axis, then Reshape); zero blocks
// before and after fill the rest. A single entry needs no gaps: its step may be
// any size (a slice with a stride past the dim), so no gap tensor is built for it.
Value scatterDim(GradBuilder &g, Value grad, int64_t dim, int64_t first, int64_t step, int64_t size) {
  auto type = tensorType(grad);
  int64_t n = type.getDimSize(dim);
  if (step > 1 && n > 1) {
    SmallVector<int64_t> split(type.getShape());
    split.insert(split.begin() + dim + 1, 1);
    Value column = g.reshape(grad, split);
    split[dim + 1] = step - 1;
    Value gaps = g.zeros(RankedTensorType::get(split, type.getElementType()));
    grad = g.reshape(g.create<ConcatOp>(ValueRange{column, gaps}, dim + 1), withDim(type.getShape(), dim, n * step));
    // The last entry's trailing zeros may run past the end of the dim.
    if (first + n * step > size) grad = sliceDim(g, grad, dim, 0, size - first);
  }
  int64_t after = size - first - tensorType(grad).getDimSize(dim);
  SmallVector<Value> pieces;
  auto zerosOf = [&](int64_t length) {
    return g.zeros(RankedTensorType::get(withDim(type.getShape(), dim, length), type.getElementType()));
  };
  if (first > 0) pieces.push_back(zerosOf(first));
  pieces.push_back(grad);
  if (after > 0) pieces.push_back(zerosOf(after));
  return pieces.size() == 1 ? grad : g.create<ConcatOp>(pieces, dim);
}

}  // namespace

void ReshapeOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  dins.push_back(GradBuilder(builder, getLoc()).reshape(dout, tensorType(getOperand()).getShape()));
}

void TransposeOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  ArrayRef<int64_t> perm = getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  dins.push_back(GradBuilder(builder, getLoc()).create<TransposeOp>(dout, inverse));
}

void BroadcastToOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  dins.push_back(GradBuilder(builder, getLoc()).sumTo(dout, getOperand()));
}

// dout viewed as (m0, d0, m1, d1, ...) (copy-major, as Tile lays copies out),
// summed over the copy axes. Dims with multiple 1 get no copy axis.
void TileOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  ArrayRef<int64_t> shape = tensorType(getOperand()).getShape();
  SmallVector<int64_t> split, copyAxes;
  for (auto [dim, copies] : llvm::zip(shape, getMultiples())) {
    if (copies > 1) {
      copyAxes.push_back(static_cast<int64_t>(split.size()));
      split.push_back(copies);
    }
    split.push_back(dim);
  }
  if (copyAxes.empty()) {
    dins.push_back(dout);
    return;
  }
  dins.push_back(g.create<ReduceSumOp>(g.reshape(dout, split), copyAxes, /*keep_dims=*/false));
}

// Scatters dout back into zeros of the operand's shape, one dim at a time. A
// negative-stride dim is first reversed, which turns it into the ascending
// positions begin+(n-1)*stride, ..., begin with step -stride.
void StridedSliceOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  auto type = tensorType(getOperand());
  if (tensorType(dout).getNumElements() == 0) {
    dins.push_back(g.zeros(type));
    return;
  }
  Value grad = dout;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    int64_t begin = getBegin()[dim], stride = getStrides()[dim], size = type.getDimSize(dim);
    int64_t n = tensorType(grad).getDimSize(dim);
    if (begin == 0 && stride == 1 && n == size) continue;
    if (stride < 0) {
      if (n > 1) grad = sliceDim(g, grad, dim, n - 1, -1, -1);
      begin += (n - 1) * stride, stride = -stride;
    }
    grad = scatterDim(g, grad, dim, begin, stride, size);
  }
  dins.push_back(grad);
}

void ConcatOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  int64_t axis = static_cast<int64_t>(getAxis()), offset = 0;
  for (Value input : getInputs()) {
    int64_t size = tensorType(input).getDimSize(axis);
    dins.push_back(getInputs().size() == 1 ? dout : sliceDim(g, dout, axis, offset, offset + size));
    offset += size;
  }
}

// Scatter-add as a product with a one-hot matrix: with params viewed as
// (pre, N, post) and dout as (pre, K, post) for K indices,
// dparams[:, j, :] = sum over k with index[k] == j of dout[:, k, :], i.e.
// onehot(K, N)^T @ dout(K, pre*post): duplicate indices accumulate. Indices
// are wrapped and clamped exactly as the forward does.
void GatherOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  GradBuilder g(builder, getLoc());
  auto params = tensorType(getParams());
  auto indexType = tensorType(getIndices());
  int64_t axis = static_cast<int64_t>(getAxis()), n = params.getDimSize(axis), k = indexType.getNumElements();
  int64_t pre = 1, post = 1;
  for (int64_t i = 0; i < params.getRank(); ++i) {
    if (i < axis) pre *= params.getDimSize(i);
    if (i > axis) post *= params.getDimSize(i);
  }

  Value idx = g.reshape(getIndices(), {k, 1});
  Value zero = g.scalar(idx, 0.0);
  idx = g.create<SelectOp>(g.create<LessOp>(idx, zero), g.create<AddOp>(idx, g.scalar(idx, n)), idx);
  idx = g.create<MinimumOp>(g.create<MaximumOp>(idx, zero), g.scalar(idx, n - 1));
  Type indexElem = indexType.getElementType();
  SmallVector<APInt> positions;
  for (int64_t i = 0; i < n; ++i) positions.emplace_back(indexElem.getIntOrFloatBitWidth(), i);
  Value iota = g.create<ConstantOp>(
      DenseElementsAttr::get(RankedTensorType::get({1, n}, indexElem), positions).cast<ElementsAttr>());
  Value onehot = g.create<CastOp>(g.create<EqualOp>(idx, iota), params.getElementType());

  // The K axis goes first so one 2-D MatMul serves every `pre` slice.
  Value grad = g.reshape(dout, {pre, k, post});
  if (pre > 1) grad = g.create<TransposeOp>(grad, ArrayRef<int64_t>{1, 0, 2});
  grad = g.create<MatMulOp>(onehot, g.reshape(grad, {k, pre * post}), builder.getBoolAttr(true), BoolAttr());
  if (pre > 1) grad = g.create<TransposeOp>(g.reshape(grad, {n, pre, post}), ArrayRef<int64_t>{1, 0, 2});
  dins.push_back(g.reshape(grad, params.getShape()));
  dins.push_back(Value());  // indices
}

void TriuOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  dins.push_back(GradBuilder(builder, getLoc()).create<TriuOp>(dout, getDiagonalAttr()));
}

void TrilOp::buildBprop(OpBuilder &builder, Value dout, SmallVectorImpl<Value> &dins) {
  dins.push_back(GradBuilder(builder, getLoc()).create<TrilOp>(dout, getDiagonalAttr()));
}
