/* msjit_runtime.h - the runtime's C ABI: load an artifact, describe it, run it.
 *
 * Used in-process by the Python client (through its extension module) and by
 * msjitd's Execute. Buffers are dense, row-major and owned by the caller.
 */
#ifndef MSJIT_RUNTIME_MSJIT_RUNTIME_H
#define MSJIT_RUNTIME_MSJIT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Same numbering as msjit.mindir.DataType. */
typedef enum msrt_dtype {
  MSRT_UNDEFINED = 0,
  MSRT_FLOAT32 = 1,
  MSRT_FLOAT16 = 2,
  MSRT_FLOAT64 = 3,
  MSRT_INT32 = 4,
  MSRT_INT64 = 5,
  MSRT_BOOL = 6,
} msrt_dtype;

typedef struct msrt_tensor_info {
  msrt_dtype dtype;
  int32_t rank;
  const int64_t *dims;
  int64_t num_bytes;
} msrt_tensor_info;

typedef struct msrt_executable msrt_executable;

/* Tensors of higher rank are refused when an artifact is loaded. */
#define MSRT_MAX_RANK 32

/* Loads the artifact at `path`. Returns 0 and sets *out, or -1 with the
 * reason in msrt_last_error(). Whoever can replace the file at `path`
 * chooses the code that runs: prefer msrt_load_bytes for verified bytes. */
int msrt_load(const char *path, msrt_executable **out);

/* Loads an artifact from `size` bytes in memory (the caller has checked
 * them, e.g. against their SHA-256): they are copied into a sealed memfd
 * (`name` shows in /proc/self/maps) and dlopened from there, so no file
 * anyone else can swap is involved. The memfd stays open for the life of the
 * process, like the mapping: closing it would let the next memfd reuse the
 * fd number, and dlopen returns an already loaded object whose path string
 * ("/proc/self/fd/N") matches, i.e. the previous artifact.
 * Returns 0 and sets *out, or -1 with the reason in msrt_last_error(). */
int msrt_load_bytes(const void *data, size_t size, const char *name, msrt_executable **out);

/* The last error of this thread, or "". */
const char *msrt_last_error(void);

int msrt_num_inputs(const msrt_executable *exe);
int msrt_num_outputs(const msrt_executable *exe);

/* Fills *info for input (is_output = 0) or output `index`; -1 if out of range. */
int msrt_tensor(const msrt_executable *exe, int is_output, int index, msrt_tensor_info *info);

/* Runs the artifact on dense buffers matching the described tensors.
 * Thread-safe: an executable may run on several threads at once. */
int msrt_run(const msrt_executable *exe, void *const *inputs, void *const *outputs);

/* Frees the description. The shared object stays mapped: unloading code that
 * started OpenMP workers is not safe. */
void msrt_unload(msrt_executable *exe);

#ifdef __cplusplus
}
#endif

#endif /* MSJIT_RUNTIME_MSJIT_RUNTIME_H */
