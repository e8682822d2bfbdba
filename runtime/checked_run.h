// checked_run.h - runs an executable on caller tensors after checking them against its signature:
// the one place that checks inputs and allocates outputs for msjit-worker's Execute and msjit-run.
// No protobuf here (the runtime never depends on it): runTensors() takes any tensor list with
// TensorProto's accessors (dtype(), dims(), raw_data(); add(), set_dtype(), add_dims(),
// mutable_raw_data()).
#ifndef MSJIT_RUNTIME_CHECKED_RUN_H
#define MSJIT_RUNTIME_CHECKED_RUN_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/msjit_runtime.h"

namespace msjit::runtime {

struct InputView {
  int dtype;  // msrt_dtype numbering (= msjit.mindir.DataType)
  const int64_t *dims;
  int rank;
  const void *data;
  size_t size;
};

enum class RunStatus { kOk, kInvalidInput, kFailed };

// Checks `inputs` (count, dtype, shape, byte size) against `exe`, asks `output(i, info)` for a
// buffer of info.num_bytes bytes per output, runs. kInvalidInput or kFailed set *error.
RunStatus runChecked(const msrt_executable *exe, const std::vector<InputView> &inputs,
                     const std::function<void *(int, const msrt_tensor_info &)> &output, std::string *error);

template <class Inputs, class Outputs>
RunStatus runTensors(const msrt_executable *exe, const Inputs &inputs, Outputs *outputs, std::string *error) {
  std::vector<InputView> views;
  for (const auto &t : inputs)
    views.push_back({static_cast<int>(t.dtype()), t.dims().data(), t.dims_size(), t.raw_data().data(),
                     t.raw_data().size()});
  return runChecked(exe, views, [&](int i, const msrt_tensor_info &info) -> void * {
    auto *t = outputs->Add();
    t->set_name("output" + std::to_string(i));
    t->set_dtype(static_cast<decltype(t->dtype())>(info.dtype));
    for (int d = 0; d < info.rank; ++d) t->add_dims(info.dims[d]);
    t->mutable_raw_data()->resize(static_cast<size_t>(info.num_bytes));
    return t->mutable_raw_data()->data();
  }, error);
}

}  // namespace msjit::runtime

#endif  // MSJIT_RUNTIME_CHECKED_RUN_H
