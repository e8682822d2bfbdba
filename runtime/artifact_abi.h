/* artifact_abi.h - the contract between msjit's code generator and its runtime.
 *
 * An artifact is an ELF shared object. It exports one query symbol,
 * `msjit_query_artifact`, returning a static description of itself. The
 * entry takes one pointer per MLIR memref descriptor: inputs first, then
 * outputs (caller-allocated). A descriptor of rank R is
 *   { void *allocated; void *aligned; int64_t offset; int64_t sizes[R]; int64_t strides[R]; }
 *
 * Imports: the vendor kernels the artifact calls (runtime/kernels/kernels.h)
 * are not linked into it. It lists their names and leaves one slot per name;
 * the loader fills every slot with the runtime's function before the first
 * call, and refuses an artifact that names a kernel it does not have.
 *
 * The manifest is text, one tensor per line after the header:
 *   msjit-artifact 1
 *   input f32 2 2 3        <- dtype, rank, dims
 *   output f32 2 2 3
 *
 * Plain C, no dependencies: the runtime must never include compiler headers.
 */
#ifndef MSJIT_RUNTIME_ARTIFACT_ABI_H
#define MSJIT_RUNTIME_ARTIFACT_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSJIT_ARTIFACT_ABI_VERSION 2
#define MSJIT_ARTIFACT_QUERY_SYMBOL "msjit_query_artifact"
#define MSJIT_ARTIFACT_MANIFEST_HEADER "msjit-artifact"

typedef void (*msjit_entry_fn)(void **descriptors);

typedef struct msjit_artifact_v2 {
  uint32_t abi_version; /* MSJIT_ARTIFACT_ABI_VERSION */
  uint32_t flags;       /* feature bits; none defined in version 2 */
  const char *manifest; /* NUL-terminated, see above */
  msjit_entry_fn entry;
  uint32_t num_imports;
  uint32_t reserved;
  const char *const *import_names; /* num_imports kernel names */
  void **import_slots;             /* num_imports slots the loader fills */
} msjit_artifact_v2;

typedef const msjit_artifact_v2 *(*msjit_query_artifact_fn)(void);

#ifdef __cplusplus
static_assert(sizeof(msjit_artifact_v2) == 48, "artifact ABI v2 layout is fixed");
}
#endif

#endif /* MSJIT_RUNTIME_ARTIFACT_ABI_H */
