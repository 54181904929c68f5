/* Greedy generation from plain C (include/tlaloc/serve.h) over the artifact of
 * examples/lm: prefill of the prompt (a bounded entry point: the library pads it to a
 * bucket), then one decode step per token, the next token the first largest logit.
 *
 *   c-generate DIR PROMPT TOKENS [IDS_FILE]
 *
 * DIR is the artifact (lm --out X writes X/artifact); the prompt's bytes are its
 * tokens. Prints the ids (prompt, then generated) and the text; IDS_FILE gets the ids
 * as one line of decimal numbers. The C API takes and gives host data only, so the
 * caches come back to the host after each step and go in again as inputs of the
 * next: a copy per step that the C++ loop (device buffers, donated) does not make. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tlaloc/serve.h>

/* What the loop needs from the manifest: prefill's bound on the prompt's length, the
 * decode step's inputs (token, position, then the caches) and its cache capacity. */
typedef struct lm_shape {
  int64_t bound;
  int n_decode_inputs;
  int64_t capacity;
} lm_shape;

static int read_shape(tlaloc_model* m, lm_shape* s) {
  const int64_t* shape; /* tokens: [1, seq], the bound on the bounded axis */
  int rank;
  const char* dim = tlaloc_model_input_dim(m, "prefill", 0, 1);
  s->n_decode_inputs = tlaloc_model_num_inputs(m, "decode");
  if (dim == NULL || strcmp(dim, "") == 0 ||
      tlaloc_model_input(m, "prefill", 0, NULL, NULL, &rank, &shape) != 0 || s->n_decode_inputs < 3) {
    fprintf(stderr,
            "c-generate: the artifact's prefill is not bounded in the prompt's length, or decode has no "
            "caches\n");
    return 1;
  }
  s->bound = shape[1];
  const int64_t* k_shape; /* cache.0.k: [1, capacity, kv_heads, d_head] */
  if (tlaloc_model_input(m, "decode", 2, NULL, NULL, &rank, &k_shape) != 0 || rank < 2) return 1;
  s->capacity = k_shape[1];
  return 0;
}

/* Refuses what the artifact cannot run, naming the sizes (the C++ loop's wording). */
static int check_fits(const lm_shape* s, int64_t prompt, int64_t count) {
  if (prompt == 0) {
    fprintf(stderr, "c-generate: the prompt is empty; prefill needs at least one token\n");
    return 1;
  }
  if (prompt > s->bound) {
    fprintf(stderr, "c-generate: a prompt of %lld tokens is longer than prefill's bound of %lld\n",
            (long long)prompt, (long long)s->bound);
    return 1;
  }
  if (count > s->capacity - prompt) {
    fprintf(stderr, "c-generate: a prompt of %lld tokens and %lld generated do not fit the KV cache of %lld positions\n",
            (long long)prompt, (long long)count, (long long)s->capacity);
    return 1;
  }
  return 0;
}

/* The first largest entry of logits [1, vocab] (f32). */
static int32_t greedy(const tlaloc_tensor* logits) {
  const float* v = (const float*)tlaloc_tensor_data(logits);
  const size_t n = tlaloc_tensor_nbytes(logits) / sizeof(float);
  size_t best = 0;
  for (size_t i = 1; i < n; ++i)
    if (v[i] > v[best]) best = i;
  return (int32_t)best;
}

static void free_all(tlaloc_tensor** t, int n) {
  for (int i = 0; i < n; ++i) {
    tlaloc_tensor_free(t[i]);
    t[i] = NULL;
  }
}

/* Fills ids[0 .. n + count): the prompt's n ids, then count greedy ones. 0 on success. */
static int generate(tlaloc_model* m, const lm_shape* s, int32_t* ids, int64_t n, int64_t count) {
  const int n_out = s->n_decode_inputs - 1; /* logits, then the caches */
  tlaloc_tensor** out = calloc((size_t)n_out, sizeof(tlaloc_tensor*));
  tlaloc_tensor** next = calloc((size_t)n_out, sizeof(tlaloc_tensor*));
  tlaloc_tensor_view* in = calloc((size_t)s->n_decode_inputs, sizeof(tlaloc_tensor_view));
  int32_t token = 0, position = 0;
  const int64_t prompt_shape[2] = {1, n}, token_shape[2] = {1, 1};
  in[0] = (tlaloc_tensor_view){TLALOC_I32, 2, prompt_shape, ids};
  int status = tlaloc_model_run(m, "prefill", in, 1, out, n_out);
  for (int64_t t = 0; t < count && status == 0; ++t) {
    ids[n + t] = greedy(out[0]);
    if (t + 1 == count) break;
    token = ids[n + t];
    position = (int32_t)(n + t);
    in[0] = (tlaloc_tensor_view){TLALOC_I32, 2, token_shape, &token};
    in[1] = (tlaloc_tensor_view){TLALOC_I32, 0, NULL, &position};
    for (int i = 1; i < n_out; ++i)
      in[i + 1] = (tlaloc_tensor_view){tlaloc_tensor_dtype(out[i]), tlaloc_tensor_rank(out[i]),
                                       tlaloc_tensor_shape(out[i]), tlaloc_tensor_data(out[i])};
    status = tlaloc_model_run(m, "decode", in, s->n_decode_inputs, next, n_out);
    free_all(out, n_out);
    tlaloc_tensor** swap = out;
    out = next;
    next = swap;
  }
  if (status != 0) fprintf(stderr, "c-generate: %s\n", tlaloc_last_error());
  free_all(out, n_out);
  free(out);
  free(next);
  free(in);
  return status;
}

static int write_ids(const char* path, const int32_t* ids, int64_t n) {
  FILE* f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "c-generate: cannot write the ids to %s\n", path);
    return 1;
  }
  for (int64_t i = 0; i < n; ++i) fprintf(f, "%s%d", i ? " " : "", ids[i]);
  fprintf(f, "\n");
  return fclose(f) != 0;
}

int main(int argc, char** argv) {
  char* end = NULL;
  const long long count = argc >= 4 ? strtoll(argv[3], &end, 10) : 0;
  if (argc < 4 || argc > 5 || *end != '\0' || count < 1) {
    fprintf(stderr, "usage: c-generate DIR PROMPT TOKENS [IDS_FILE]  (TOKENS: a whole number >= 1)\n");
    return 2;
  }
  tlaloc_model* m = tlaloc_model_load(argv[1]);
  if (!m) {
    fprintf(stderr, "c-generate: %s\n", tlaloc_last_error());
    return 1;
  }
  lm_shape s;
  const int64_t n = (int64_t)strlen(argv[2]);
  int status = read_shape(m, &s) || check_fits(&s, n, count);
  int32_t* ids = status ? NULL : calloc((size_t)(n + count), sizeof(int32_t));
  for (int64_t i = 0; ids && i < n; ++i) ids[i] = (unsigned char)argv[2][i];
  if (status == 0) status = generate(m, &s, ids, n, count);
  if (status == 0) {
    printf("ids:");
    for (int64_t i = 0; i < n + count; ++i) printf(" %d", ids[i]);
    printf("\n");
    for (int64_t i = 0; i < n + count; ++i) putchar(ids[i]);
    putchar('\n');
    if (argc == 5) status = write_ids(argv[4], ids, n + count);
  }
  free(ids);
  tlaloc_model_free(m);
  return status;
}
