// runtime.cpp - loads artifacts (artifact_abi.h) and runs them.
#include "runtime/msjit_runtime.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <xmmintrin.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/artifact_abi.h"
#include "runtime/kernels/kernels.h"

namespace {

thread_local std::string g_last_error;

int fail(std::string message) {
  g_last_error = std::move(message);
  return -1;
}

struct Tensor {
  msrt_dtype dtype = MSRT_UNDEFINED;
  std::vector<int64_t> dims;
  int64_t num_bytes = 0;
};

msrt_dtype parseDtype(const std::string &name) {
  if (name == "f32") return MSRT_FLOAT32;
  if (name == "f16") return MSRT_FLOAT16;
  if (name == "f64") return MSRT_FLOAT64;
  if (name == "i32") return MSRT_INT32;
  if (name == "i64") return MSRT_INT64;
  if (name == "bool") return MSRT_BOOL;
  return MSRT_UNDEFINED;
}

int64_t dtypeBytes(msrt_dtype dtype) {
  switch (dtype) {
    case MSRT_FLOAT16: return 2;
    case MSRT_FLOAT32:
    case MSRT_INT32: return 4;
    case MSRT_FLOAT64:
    case MSRT_INT64: return 8;
    case MSRT_BOOL: return 1;
    default: return 0;
  }
}

}  // namespace

struct msrt_executable {
  msjit_entry_fn entry = nullptr;
  std::vector<Tensor> inputs, outputs;
  // Descriptors of every memref argument laid out back to back, with the
  // pointer fields left null; msrt_run copies this and patches the pointers.
  std::vector<int64_t> descriptor_template;
  std::vector<size_t> descriptor_offsets;

  bool parseManifest(const char *text) {
    std::istringstream in(text);
    std::string header;
    int version = 0;
    if (!(in >> header >> version) || header != MSJIT_ARTIFACT_MANIFEST_HEADER || version != 1)
      return fail("artifact manifest has an unknown header") == 0;
    std::string kind, dtype;
    int rank = 0;
    while (in >> kind >> dtype >> rank) {
      Tensor t;
      t.dtype = parseDtype(dtype);
      if (t.dtype == MSRT_UNDEFINED || rank < 0 || (kind != "input" && kind != "output"))
        return fail("artifact manifest has a malformed line for '" + kind + "'") == 0;
      if (rank > MSRT_MAX_RANK)
        return fail("artifact manifest has an " + kind + " of rank " + std::to_string(rank) + " (at most " +
                    std::to_string(MSRT_MAX_RANK) + ")") == 0;
      // Checked products: num_bytes, and `span` (zero dims counted as 1) which
      // bounds every stride buildDescriptors derives, must fit in int64.
      int64_t span = dtypeBytes(t.dtype);
      t.num_bytes = span;
      for (int i = 0; i < rank; ++i) {
        int64_t d = -1;
        if (!(in >> d) || d < 0) return fail("artifact manifest has a malformed dim") == 0;
        t.dims.push_back(d);
        if (__builtin_mul_overflow(t.num_bytes, d, &t.num_bytes) ||
            __builtin_mul_overflow(span, d ? d : 1, &span))
          return fail("artifact manifest has an " + kind + " whose byte count overflows 64 bits (dim " +
                      std::to_string(i) + " = " + std::to_string(d) + ")") == 0;
      }
      (kind == "input" ? inputs : outputs).push_back(std::move(t));
    }
    return in.eof() || fail("artifact manifest has trailing garbage") == 0;
  }

  void buildDescriptors() {
    auto add = [&](const Tensor &t) {
      descriptor_offsets.push_back(descriptor_template.size());
      descriptor_template.insert(descriptor_template.end(), {0, 0, 0});  // allocated, aligned, offset
      descriptor_template.insert(descriptor_template.end(), t.dims.begin(), t.dims.end());
      std::vector<int64_t> strides(t.dims.size(), 1);
      for (int i = static_cast<int>(t.dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * t.dims[i + 1];
      descriptor_template.insert(descriptor_template.end(), strides.begin(), strides.end());
    };
    for (const auto &t : inputs) add(t);
    for (const auto &t : outputs) add(t);
  }
};

namespace {

// Describes a dlopened artifact (`what` names it in errors): checks its ABI,
// parses its manifest and binds its kernel imports.
int describe(void *handle, const std::string &what, msrt_executable **out) {
  auto query = reinterpret_cast<msjit_query_artifact_fn>(dlsym(handle, MSJIT_ARTIFACT_QUERY_SYMBOL));
  if (!query) return fail(what + " is not an msjit artifact (no " MSJIT_ARTIFACT_QUERY_SYMBOL ")");
  const msjit_artifact_v2 *desc = query();
  if (!desc || desc->abi_version != MSJIT_ARTIFACT_ABI_VERSION)
    return fail(what + " has artifact ABI version " + std::to_string(desc ? desc->abi_version : 0) +
                ", this runtime reads " + std::to_string(MSJIT_ARTIFACT_ABI_VERSION));
  auto exe = std::make_unique<msrt_executable>();
  exe->entry = desc->entry;
  g_last_error.clear();
  if (!exe->entry || !desc->manifest || !exe->parseManifest(desc->manifest)) {
    if (g_last_error.empty()) g_last_error = "artifact description is incomplete";
    return fail(what + ": " + g_last_error);
  }
  for (uint32_t i = 0; i < desc->num_imports; ++i) {
    void *kernel = msrt_kernel_lookup(desc->import_names[i]);
    if (!kernel) return fail(what + " needs kernel '" + desc->import_names[i] + "', which this runtime lacks");
    desc->import_slots[i] = kernel;
  }
  exe->buildDescriptors();
  *out = exe.release();
  return 0;
}

// A memfd whose contents may be mapped executable. Under vm.memfd_noexec=1
// (Linux 6.3+) a memfd is only executable when asked for with MFD_EXEC, a
// flag older kernels (and glibc's headers) do not know: they get the plain one.
int execMemfd(const char *name) {
  constexpr unsigned kMfdExec = 0x10;  // MFD_EXEC in linux/memfd.h
  int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | kMfdExec);
  if (fd < 0 && errno == EINVAL) fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  return fd;
}

bool writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n, size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

extern "C" {

const char *msrt_last_error(void) { return g_last_error.c_str(); }

int msrt_load(const char *path, msrt_executable **out) {
  *out = nullptr;
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) return fail(std::string("cannot load artifact: ") + dlerror());
  return describe(handle, path, out);
}

int msrt_load_bytes(const void *data, size_t size, const char *name, msrt_executable **out) {
  *out = nullptr;
  // Each loaded artifact keeps one fd: lift the soft fd limit (often 1024) to the hard one, once.
  static const bool fdLimitRaised = [] {
    rlimit limit{};
    return getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max &&
           (limit.rlim_cur = limit.rlim_max, setrlimit(RLIMIT_NOFILE, &limit) == 0);
  }();
  (void)fdLimitRaised;
  std::string what = std::string("artifact '") + (name && *name ? name : "msjit-artifact") + "' (from memory)";
  if (!data && size) return fail(what + ": no data");
  int fd = execMemfd(name && *name ? name : "msjit-artifact");
  if (fd < 0) return fail(what + ": memfd_create failed: " + std::strerror(errno));
  // Sealed, so the bytes the caller checked are the bytes mapped, even though
  // the fd stays open (another process of this user could open /proc/PID/fd/N).
  constexpr int kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
  if (!writeAll(fd, static_cast<const char *>(data), size) || fcntl(fd, F_ADD_SEALS, kSeals) != 0) {
    std::string reason = std::strerror(errno);
    close(fd);
    return fail(what + ": cannot write it to a sealed memfd: " + reason);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    std::string reason = dlerror();
    close(fd);  // nothing was loaded under this path: its number may be reused
    return fail(what + ": cannot load it: " + reason);
  }
  return describe(handle, what, out);  // fd kept open: see msjit_runtime.h
}

int msrt_num_inputs(const msrt_executable *exe) { return static_cast<int>(exe->inputs.size()); }
int msrt_num_outputs(const msrt_executable *exe) { return static_cast<int>(exe->outputs.size()); }

int msrt_tensor(const msrt_executable *exe, int is_output, int index, msrt_tensor_info *info) {
  const auto &list = is_output ? exe->outputs : exe->inputs;
  if (index < 0 || index >= static_cast<int>(list.size())) return fail("tensor index out of range");
  const Tensor &t = list[index];
  *info = {t.dtype, static_cast<int32_t>(t.dims.size()), t.dims.data(), t.num_bytes};
  return 0;
}

int msrt_run(const msrt_executable *exe, void *const *inputs, void *const *outputs) {
  constexpr size_t kInlineWords = 256, kInlineArgs = 32;
  int64_t inlineWords[kInlineWords];
  void *inlineArgs[kInlineArgs];
  size_t words = exe->descriptor_template.size(), args = exe->descriptor_offsets.size();
  std::vector<int64_t> heapWords;
  std::vector<void *> heapArgs;
  int64_t *storage = inlineWords;
  void **argv = inlineArgs;
  if (words > kInlineWords) storage = (heapWords.resize(words), heapWords.data());
  if (args > kInlineArgs) argv = (heapArgs.resize(args), heapArgs.data());
  std::memcpy(storage, exe->descriptor_template.data(), words * sizeof(int64_t));
  size_t numInputs = exe->inputs.size();
  for (size_t i = 0; i < args; ++i) {
    int64_t *desc = storage + exe->descriptor_offsets[i];
    void *data = i < numInputs ? inputs[i] : outputs[i - numInputs];
    std::memcpy(&desc[0], &data, sizeof(void *));
    std::memcpy(&desc[1], &data, sizeof(void *));
    argv[i] = desc;
  }
  // Flush subnormals to zero while the artifact runs (as oneDNN and most ML
  // runtimes do): a softmax over masked scores otherwise grinds through
  // subnormal arithmetic at a fraction of normal speed. Restored afterwards.
  const unsigned int csr = _mm_getcsr();
  constexpr unsigned int kFlushToZero = 0x8000, kDenormalsAreZero = 0x0040;
  _mm_setcsr(csr | kFlushToZero | kDenormalsAreZero);
  exe->entry(argv);
  _mm_setcsr(csr);
  return 0;
}

void msrt_unload(msrt_executable *exe) { delete exe; }

}  // extern "C"
