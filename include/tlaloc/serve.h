/* The C interface to Tlaloc's artifacts (docs/SERVING.md): load a model directory,
 * list its entry points and their tensors, run one, read the last error.
 *
 *   tlaloc_model* m = tlaloc_model_load("artifacts/mlp");
 *   if (!m) { fprintf(stderr, "%s\n", tlaloc_last_error()); return 1; }
 *   tlaloc_tensor_view in = {TLALOC_F32, 2, shape, data};
 *   tlaloc_tensor* out[1];
 *   if (tlaloc_model_run(m, "logits", &in, 1, out, 1) != 0) { ... tlaloc_last_error() ... }
 *   const float* logits = (const float*)tlaloc_tensor_data(out[0]);
 *   tlaloc_tensor_free(out[0]);
 *   tlaloc_model_free(m);
 *
 * Functions that can fail return NULL or a nonzero status and leave a message for
 * tlaloc_last_error() (per thread). Strings and arrays the library returns stay
 * valid until the object they came from is freed. */
#ifndef TLALOC_SERVE_H
#define TLALOC_SERVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Stable values: they are part of the C ABI. */
typedef enum tlaloc_dtype {
  TLALOC_F32 = 0,
  TLALOC_F64 = 1,
  TLALOC_BF16 = 2,
  TLALOC_F16 = 3,
  TLALOC_I8 = 4,
  TLALOC_I32 = 5,
  TLALOC_I64 = 6,
  TLALOC_U8 = 7,
  TLALOC_BOOL = 8,
  TLALOC_I16 = 9,
  TLALOC_U16 = 10,
  TLALOC_U32 = 11,
  TLALOC_U64 = 12
} tlaloc_dtype;

typedef struct tlaloc_model tlaloc_model;
typedef struct tlaloc_tensor tlaloc_tensor; /* a result, owned by the caller */

/* An input: the caller's contiguous row-major data, read during the call only. */
typedef struct tlaloc_tensor_view {
  tlaloc_dtype dtype;
  int rank;
  const int64_t* shape;
  const void* data;
} tlaloc_tensor_view;

/* The message of the last failure on this thread ("" if none). */
const char* tlaloc_last_error(void);

/* Loads and verifies an artifact directory (every hash, before anything runs). */
tlaloc_model* tlaloc_model_load(const char* dir);
/* The same, run on a PJRT plugin: "tlaloc_cpu" (Tlaloc's CPU plugin where it is
 * installed), a plugin's path, or NULL or "" for TLALOC_PJRT_PLUGIN_PATH. */
tlaloc_model* tlaloc_model_load_on(const char* dir, const char* plugin);
void tlaloc_model_free(tlaloc_model* model);

int tlaloc_model_num_entry_points(const tlaloc_model* model);
const char* tlaloc_model_entry_point_name(const tlaloc_model* model, int index);
/* -1 (with an error) for an unknown entry point. */
int tlaloc_model_num_inputs(const tlaloc_model* model, const char* entry);
int tlaloc_model_num_outputs(const tlaloc_model* model, const char* entry);
/* An input's name, dtype and shape; 0 on success. */
int tlaloc_model_input(const tlaloc_model* model, const char* entry, int index, const char** name,
                       tlaloc_dtype* dtype, int* rank, const int64_t** shape);
int tlaloc_model_output(const tlaloc_model* model, const char* entry, int index, const char** name,
                        tlaloc_dtype* dtype, int* rank, const int64_t** shape);

/* The bounded dimension an axis of an input (or output) follows, "" for a fixed axis,
 * or NULL with an error. On a bounded axis the shape above holds the bound; a run takes
 * any size up to it (docs/DYNAMIC_SHAPES.md). */
const char* tlaloc_model_input_dim(const tlaloc_model* model, const char* entry, int index, int axis);
const char* tlaloc_model_output_dim(const tlaloc_model* model, const char* entry, int index, int axis);

/* Runs an entry point: n_inputs inputs in the manifest's order; fills n_outputs
 * results (which must be the entry point's number of outputs). 0 on success. */
int tlaloc_model_run(tlaloc_model* model, const char* entry, const tlaloc_tensor_view* inputs, int n_inputs,
                     tlaloc_tensor** outputs, int n_outputs);

tlaloc_dtype tlaloc_tensor_dtype(const tlaloc_tensor* t);
int tlaloc_tensor_rank(const tlaloc_tensor* t);
const int64_t* tlaloc_tensor_shape(const tlaloc_tensor* t);
const void* tlaloc_tensor_data(const tlaloc_tensor* t); /* contiguous, row-major */
size_t tlaloc_tensor_nbytes(const tlaloc_tensor* t);
void tlaloc_tensor_free(tlaloc_tensor* t);

#ifdef __cplusplus
}
#endif

#endif /* TLALOC_SERVE_H */
