#include "runtime/checked_run.h"

#include <algorithm>

namespace msjit::runtime {
namespace {

const char *dtypeName(int dtype) {
  static const char *names[] = {"undefined", "float32", "float16", "float64", "int32", "int64", "bool"};
  return dtype >= 0 && dtype <= MSRT_BOOL ? names[dtype] : "unknown";
}

std::string describe(int dtype, const int64_t *dims, int rank) {
  std::string text = std::string(dtypeName(dtype)) + "[";
  for (int d = 0; d < rank; ++d) text += (d ? "," : "") + std::to_string(dims[d]);
  return text + "]";
}

}  // namespace

RunStatus runChecked(const msrt_executable *exe, const std::vector<InputView> &inputs,
                     const std::function<void *(int, const msrt_tensor_info &)> &output, std::string *error) {
  int numInputs = msrt_num_inputs(exe), numOutputs = msrt_num_outputs(exe);
  if (static_cast<int>(inputs.size()) != numInputs) {
    *error = "expected " + std::to_string(numInputs) + " inputs, got " + std::to_string(inputs.size());
    return RunStatus::kInvalidInput;
  }
  std::vector<void *> in, out;
  for (int i = 0; i < numInputs; ++i) {
    msrt_tensor_info info;
    msrt_tensor(exe, 0, i, &info);
    const InputView &t = inputs[i];
    bool same = t.dtype == info.dtype && t.rank == info.rank && std::equal(t.dims, t.dims + t.rank, info.dims);
    if (!same || static_cast<int64_t>(t.size) != info.num_bytes) {
      *error = "input " + std::to_string(i) + " is " + describe(t.dtype, t.dims, t.rank) + " with " +
               std::to_string(t.size) + " bytes; the artifact was compiled for " +
               describe(info.dtype, info.dims, info.rank) + " (" + std::to_string(info.num_bytes) + " bytes)";
      return RunStatus::kInvalidInput;
    }
    in.push_back(const_cast<void *>(t.data));
  }
  for (int i = 0; i < numOutputs; ++i) {
    msrt_tensor_info info;
    msrt_tensor(exe, 1, i, &info);
    out.push_back(output(i, info));
  }
  if (msrt_run(exe, in.data(), out.data()) != 0) {
    *error = std::string("running the artifact failed: ") + msrt_last_error();
    return RunStatus::kFailed;
  }
  return RunStatus::kOk;
}

}  // namespace msjit::runtime
