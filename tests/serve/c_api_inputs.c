/* c_api_inputs DIR: wrong inputs through the C API (include/tlaloc/serve.h) on the
 * serve_fixture artifact in DIR (entry point "logits", input x f32[3, 6], one output;
 * entry point "row", input index i32[2] declared to lie in [0, 15]):
 * each call fails with a status and the loader's message, and a good call still
 * runs afterwards. Exit status 0 when every check holds. */
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

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: c_api_inputs DIR\n");
    return 2;
  }
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
