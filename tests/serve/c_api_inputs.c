/* c_api_inputs DIR: wrong inputs through the C API (include/tlaloc/serve.h) on the
 * serve_fixture artifact in DIR (entry point "logits", input x f32[3, 6], one output;
 * entry point "row", input index i32[2] declared to lie in [0, 15]):
 * each call fails with a status and the loader's message, and a good call still
 * runs afterwards. With BOUNDED_DIR, the fixture's bounded artifact (entry point
 * "logits", x f32[batch <= 8, 6]): the dims are named, any batch within the bound runs
 * with the eager model's rows (BOUNDED_DIR/expected8.bin), and batch 9 is refused.
 * Exit status 0 when every check holds. */
#include <stdio.h>
#include <string.h>
#include <tlaloc/serve.h>

static int failures = 0;

static void expect_failure(int status, const char* what, const char* words) {
  const char* msg = tlaloc_last_error();
  if (status == 0 || strstr(msg, words) == NULL) {
    fprintf(stderr, "FAIL %s: status %d, message '%s' (wanted '%s')\n", what, status, msg, words);
    ++failures;
  }
}

static float magnitude(float v) { return v < 0 ? -v : v; }

static long read_floats(const char* dir, const char* name, float* out, long n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "rb");
  if (f == NULL) return -1;
  const long got = (long)fread(out, sizeof(float), (size_t)n, f);
  fclose(f);
  return got;
}

static void check_bounded(const char* dir) {
  tlaloc_model* m = tlaloc_model_load(dir);
  float x[8 * 6], expected[8 * 4];
  if (m == NULL || read_floats(dir, "x8.bin", x, 48) != 48 ||
      read_floats(dir, "expected8.bin", expected, 32) != 32) {
    fprintf(stderr, "FAIL the bounded artifact: %s\n", tlaloc_last_error());
    ++failures;
    return;
  }
  const char* batch = tlaloc_model_input_dim(m, "logits", 0, 0);
  const char* fixed = tlaloc_model_output_dim(m, "logits", 0, 1);
  if (batch == NULL || strcmp(batch, "batch") != 0 || fixed == NULL || strcmp(fixed, "") != 0) {
    fprintf(stderr, "FAIL the dims of 'logits': '%s', '%s'\n", batch ? batch : "(null)",
            fixed ? fixed : "(null)");
    ++failures;
  }
  expect_failure(tlaloc_model_input_dim(m, "logits", 0, 2) == NULL, "an axis past the rank",
                 "'x' has no axis 2");
  for (int64_t n = 1; n <= 8; ++n) {
    const int64_t shape[2] = {n, 6};
    const tlaloc_tensor_view in = {TLALOC_F32, 2, shape, x};
    tlaloc_tensor* out[1] = {NULL};
    if (tlaloc_model_run(m, "logits", &in, 1, out, 1) != 0 || tlaloc_tensor_shape(out[0])[0] != n) {
      fprintf(stderr, "FAIL batch %lld: %s\n", (long long)n, tlaloc_last_error());
      ++failures;
      continue;
    }
    const float* y = (const float*)tlaloc_tensor_data(out[0]);
    for (int64_t i = 0; i < n * 4; ++i)
      if (magnitude(y[i] - expected[i]) > 1e-5f * (1.0f + magnitude(expected[i]))) {
        fprintf(stderr, "FAIL batch %lld element %lld: %g, the eager model gives %g\n", (long long)n,
                (long long)i, (double)y[i], (double)expected[i]);
        ++failures;
        break;
      }
    tlaloc_tensor_free(out[0]);
  }
  float big[9 * 6] = {0};
  const int64_t over[2] = {9, 6};
  const tlaloc_tensor_view too_many = {TLALOC_F32, 2, over, big};
  tlaloc_tensor* out[1] = {NULL};
  expect_failure(tlaloc_model_run(m, "logits", &too_many, 1, out, 1), "a batch over the bound",
                 "dimension 'batch' is 9, over its bound 8");
  tlaloc_model_free(m);
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: c_api_inputs DIR [BOUNDED_DIR]\n");
    return 2;
  }
  if (argc == 3) check_bounded(argv[2]);
  if (tlaloc_model_load("/nonexistent/tlaloc-artifact") != NULL) ++failures;
  expect_failure(1, "a missing directory", "manifest.json: missing");
  tlaloc_model* m = tlaloc_model_load(argv[1]);
  if (m == NULL) {
    fprintf(stderr, "FAIL load: %s\n", tlaloc_last_error());
    return 1;
  }
  float data[3 * 6] = {0};
  double wide[3 * 6] = {0};
  const int64_t good[2] = {3, 6}, bad[2] = {2, 6};
  tlaloc_tensor* out[1] = {NULL};
  const tlaloc_tensor_view as_f64 = {TLALOC_F64, 2, good, wide};
  expect_failure(tlaloc_model_run(m, "logits", &as_f64, 1, out, 1), "an f64 input", "input 'x' is f64[3, 6], expected f32[3, 6]");
  const tlaloc_tensor_view short_rows = {TLALOC_F32, 2, bad, data};
  expect_failure(tlaloc_model_run(m, "logits", &short_rows, 1, out, 1), "a [2, 6] input", "input 'x' is f32[2, 6]");
  /* A number no dtype has, as a C caller may store it. */
  const tlaloc_tensor_view odd = {(tlaloc_dtype)77, 2, good, data};
  expect_failure(tlaloc_model_run(m, "logits", &odd, 1, out, 1), "a dtype out of range",
                 "input 0 has an unknown dtype (77)");
  const tlaloc_tensor_view x = {TLALOC_F32, 2, good, data};
  expect_failure(tlaloc_model_run(m, "logits", &x, 0, out, 1), "no inputs", "takes 1 inputs, got 0");
  expect_failure(tlaloc_model_run(m, "decode", &x, 1, out, 1), "an unknown entry point", "no entry point 'decode'");
  expect_failure(tlaloc_model_run(m, "logits", &x, 1, out, 2), "room for two outputs", "has 1 outputs");
  const int64_t two[1] = {2};
  const int32_t past_the_end[2] = {3, 16};
  const tlaloc_tensor_view index = {TLALOC_I32, 1, two, past_the_end};
  expect_failure(tlaloc_model_run(m, "row", &index, 1, out, 1), "an index past the declared range",
                 "input 'index' holds 16 (element 1), outside its range [0, 15]");
  if (tlaloc_model_run(m, "logits", &x, 1, out, 1) != 0 || tlaloc_tensor_nbytes(out[0]) != 3 * 4 * 4) {
    fprintf(stderr, "FAIL a good run after the refusals: %s\n", tlaloc_last_error());
    ++failures;
  } else {
    tlaloc_tensor_free(out[0]);
  }
  tlaloc_model_free(m);
  if (failures == 0) printf("every wrong input was refused by name\n");
  return failures == 0 ? 0 : 1;
}
