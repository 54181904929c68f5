/* Runs one entry point of a Tlaloc artifact from plain C (include/tlaloc/serve.h).
 *
 *   c-inference [--plugin NAME] DIR ENTRY OUT.bin IN0.bin [IN1.bin ...]
 *
 * Runs on the embedded interpreter, or with --plugin on a PJRT plugin: "tlaloc_cpu"
 * for Tlaloc's CPU plugin where it is installed, or a plugin's path. Lists the
 * artifact's entry points, reads each input's raw bytes (the manifest
 * gives its dtype and shape), runs ENTRY, writes the first output's raw bytes to
 * OUT.bin and prints its first values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tlaloc/serve.h>

static size_t itemsize(tlaloc_dtype t) {
  switch (t) {
    case TLALOC_F64: case TLALOC_I64: case TLALOC_U64: return 8;
    case TLALOC_F32: case TLALOC_I32: case TLALOC_U32: return 4;
    case TLALOC_BF16: case TLALOC_F16: case TLALOC_I16: case TLALOC_U16: return 2;
    default: return 1;
  }
}

static void* read_all(const char* path, size_t expected) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "c-inference: cannot open %s\n", path);
    return NULL;
  }
  void* data = malloc(expected ? expected : 1);
  const size_t got = fread(data, 1, expected, f);
  const int extra = fgetc(f) != EOF;
  fclose(f);
  if (got != expected || extra) {
    fprintf(stderr, "c-inference: %s does not hold exactly %zu bytes\n", path, expected);
    free(data);
    return NULL;
  }
  return data;
}

int main(int argc, char** argv) {
  const char* plugin = NULL;
  if (argc > 2 && strcmp(argv[1], "--plugin") == 0) {
    plugin = argv[2];
    argv += 2;
    argc -= 2;
  }
  if (argc < 4) {
    fprintf(stderr, "usage: c-inference [--plugin NAME] DIR ENTRY OUT.bin IN0.bin [IN1.bin ...]\n");
    return 2;
  }
  tlaloc_model* m = plugin ? tlaloc_model_load_on(argv[1], plugin) : tlaloc_model_load(argv[1]);
  if (!m) {
    fprintf(stderr, "c-inference: %s\n", tlaloc_last_error());
    return 1;
  }
  for (int i = 0; i < tlaloc_model_num_entry_points(m); ++i) printf("entry point %s\n", tlaloc_model_entry_point_name(m, i));
  const char* entry = argv[2];
  const int n_in = tlaloc_model_num_inputs(m, entry), n_out = tlaloc_model_num_outputs(m, entry);
  if (n_in < 0 || n_out < 1 || n_in != argc - 4) {
    fprintf(stderr, "c-inference: %s\n", n_in < 0 ? tlaloc_last_error() : "wrong number of input files");
    tlaloc_model_free(m);
    return 1;
  }
  tlaloc_tensor_view* views = calloc((size_t)n_in + 1, sizeof(tlaloc_tensor_view));
  int status = 0;
  for (int i = 0; i < n_in && status == 0; ++i) {
    const char* name;
    tlaloc_model_input(m, entry, i, &name, &views[i].dtype, &views[i].rank, &views[i].shape);
    size_t bytes = itemsize(views[i].dtype);
    for (int d = 0; d < views[i].rank; ++d) bytes *= (size_t)views[i].shape[d];
    views[i].data = read_all(argv[4 + i], bytes);
    status = views[i].data ? 0 : 1;
  }
  tlaloc_tensor** out = calloc((size_t)n_out, sizeof(tlaloc_tensor*));
  if (status == 0 && tlaloc_model_run(m, entry, views, n_in, out, n_out) != 0) {
    fprintf(stderr, "c-inference: %s\n", tlaloc_last_error());
    status = 1;
  }
  if (status == 0) {
    FILE* f = fopen(argv[3], "wb");
    const size_t n = tlaloc_tensor_nbytes(out[0]);
    status = !f || fwrite(tlaloc_tensor_data(out[0]), 1, n, f) != n;
    if (f) fclose(f);
    if (tlaloc_tensor_dtype(out[0]) == TLALOC_F32) {
      const float* v = (const float*)tlaloc_tensor_data(out[0]);
      printf("%s: output 0 =", entry);
      for (size_t i = 0; i < n / 4 && i < 6; ++i) printf(" %g", (double)v[i]);
      printf("%s\n", n / 4 > 6 ? " ..." : "");
    }
    for (int i = 0; i < n_out; ++i) tlaloc_tensor_free(out[i]);
  }
  for (int i = 0; i < n_in; ++i) free((void*)views[i].data);
  free(views);
  free(out);
  tlaloc_model_free(m);
  return status;
}
