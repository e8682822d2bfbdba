#include "ir/Dtypes.h"

#include "mlir/IR/Builders.h"

namespace msjit::ir {

mlir::Type toMlirType(mindir::DataType dtype, mlir::MLIRContext *ctx) {
  mlir::Builder b(ctx);
  switch (dtype) {
    case mindir::DT_FLOAT32: return b.getF32Type();
    case mindir::DT_FLOAT16: return b.getF16Type();
    case mindir::DT_FLOAT64: return b.getF64Type();
    case mindir::DT_INT32: return b.getI32Type();
    case mindir::DT_INT64: return b.getI64Type();
    case mindir::DT_BOOL: return b.getI1Type();
    default: return {};
  }
}

mindir::DataType fromMlirType(mlir::Type type) {
  if (type.isF32()) return mindir::DT_FLOAT32;
  if (type.isF16()) return mindir::DT_FLOAT16;
  if (type.isF64()) return mindir::DT_FLOAT64;
  if (type.isSignlessInteger(32)) return mindir::DT_INT32;
  if (type.isSignlessInteger(64)) return mindir::DT_INT64;
  if (type.isSignlessInteger(1)) return mindir::DT_BOOL;
  return mindir::DT_UNDEFINED;
}

const char *dtypeName(mindir::DataType dtype) {
  switch (dtype) {
    case mindir::DT_FLOAT32: return "f32";
    case mindir::DT_FLOAT16: return "f16";
    case mindir::DT_FLOAT64: return "f64";
    case mindir::DT_INT32: return "i32";
    case mindir::DT_INT64: return "i64";
    case mindir::DT_BOOL: return "bool";
    default: return "undefined";
  }
}

}  // namespace msjit::ir
