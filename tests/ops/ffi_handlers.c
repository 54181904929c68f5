/* Kernels written as bare XLA FFI handlers in C, against the C ABI alone
 * (include/tlaloc/xla_ffi.h), for kernel_test.cpp and the CPU plugin's FFI extension.
 *
 * test_ffi_affine: y = sign * scale * x + offset, elementwise over f64, where sign
 * is -1 when the bool attribute "negate" is set. It reads an attribute of every kind
 * (f64 "scale" and "offset", bool "negate", i64 "copies" that must be 1, string
 * "label" that must be "affine") and checks everything it is given, answering a
 * mistake with an INVALID_ARGUMENT error as XLA's own handlers do.
 * test_ffi_refuses: always fails, with FAILED_PRECONDITION. */
#include <stdio.h>
#include <string.h>

#include "tlaloc/xla_ffi.h"

static tlaloc_ffi_error* refuse(const tlaloc_ffi_call_frame* frame, tlaloc_ffi_error_code code,
                                const char* message) {
  tlaloc_ffi_error_create_args args;
  memset(&args, 0, sizeof args);
  args.struct_size = TLALOC_FFI_FILLED_SIZE(tlaloc_ffi_error_create_args, errc);
  args.message = message;
  args.errc = code;
  return frame->api->error_create(&args);
}

/* The attribute `name` of the given kind, or NULL. */
static void* attribute(const tlaloc_ffi_call_frame* frame, const char* name, tlaloc_ffi_attr_type type) {
  const size_t len = strlen(name);
  for (int64_t i = 0; i < frame->attrs.size; ++i) {
    const tlaloc_ffi_byte_span* n = frame->attrs.names[i];
    if (n->len == len && memcmp(n->ptr, name, len) == 0 && frame->attrs.types[i] == type)
      return frame->attrs.attrs[i];
  }
  return NULL;
}

static int scalar(const tlaloc_ffi_call_frame* frame, const char* name, tlaloc_ffi_data_type dtype, void* out,
                  size_t size) {
  const tlaloc_ffi_scalar* s = (const tlaloc_ffi_scalar*)attribute(frame, name, TLALOC_FFI_ATTR_SCALAR);
  if (s == NULL || s->dtype != dtype) return 0;
  memcpy(out, s->value, size);
  return 1;
}

tlaloc_ffi_error* test_ffi_affine(tlaloc_ffi_call_frame* frame) {
  if (frame->stage != TLALOC_FFI_EXECUTE) return NULL;
  if (frame->args.size != 1 || frame->rets.size != 1 || frame->args.types[0] != TLALOC_FFI_ARG_BUFFER ||
      frame->rets.types[0] != TLALOC_FFI_RET_BUFFER)
    return refuse(frame, TLALOC_FFI_INVALID_ARGUMENT, "test_ffi_affine takes one buffer and gives one");
  const tlaloc_ffi_buffer* x = (const tlaloc_ffi_buffer*)frame->args.args[0];
  tlaloc_ffi_buffer* y = (tlaloc_ffi_buffer*)frame->rets.rets[0];
  if (x->dtype != TLALOC_FFI_F64 || y->dtype != TLALOC_FFI_F64 || x->rank != y->rank)
    return refuse(frame, TLALOC_FFI_INVALID_ARGUMENT, "test_ffi_affine works on f64 of one shape");
  int64_t n = 1;
  for (int64_t d = 0; d < x->rank; ++d) {
    if (x->dims[d] != y->dims[d]) return refuse(frame, TLALOC_FFI_INVALID_ARGUMENT, "shapes differ");
    n *= x->dims[d];
  }
  double scale = 0, offset = 0;
  _Bool negate = 0;
  int64_t copies = 0;
  if (!scalar(frame, "scale", TLALOC_FFI_F64, &scale, sizeof scale) ||
      !scalar(frame, "offset", TLALOC_FFI_F64, &offset, sizeof offset) ||
      !scalar(frame, "negate", TLALOC_FFI_PRED, &negate, sizeof negate) ||
      !scalar(frame, "copies", TLALOC_FFI_S64, &copies, sizeof copies) || copies != 1)
    return refuse(frame, TLALOC_FFI_INVALID_ARGUMENT,
                  "test_ffi_affine needs scale, offset, negate and copies = 1");
  const tlaloc_ffi_byte_span* label =
      (const tlaloc_ffi_byte_span*)attribute(frame, "label", TLALOC_FFI_ATTR_STRING);
  if (label == NULL || label->len != 6 || memcmp(label->ptr, "affine", 6) != 0)
    return refuse(frame, TLALOC_FFI_INVALID_ARGUMENT, "test_ffi_affine needs label = \"affine\"");
  const double* in = (const double*)x->data;
  double* out = (double*)y->data;
  const double sign = negate ? -1.0 : 1.0;
  for (int64_t i = 0; i < n; ++i) out[i] = sign * scale * in[i] + offset;
  return NULL;
}

tlaloc_ffi_error* test_ffi_refuses(tlaloc_ffi_call_frame* frame) {
  char message[64];
  snprintf(message, sizeof message, "the handler refuses %lld values", (long long)frame->args.size);
  return refuse(frame, TLALOC_FFI_FAILED_PRECONDITION, message);
}
