// A fused RMSNorm, forward and backward, as two XLA FFI handlers: plain functions of
// the C ABI in <tlaloc/xla_ffi.h>, so that the same library serves tl::kernel(...).ffi
// in a C++ program and any PJRT plugin with an FFI extension (Tlaloc's CPU plugin,
// from C++, C or Python). The library needs no libtlaloc.
//
//   rms_norm_fwd: x[n, d], w[d]            -> y[n, d]          y = x * r * w
//   rms_norm_bwd: x[n, d], w[d], dy[n, d] -> dx[n, d], dw[d]
// where r = 1 / sqrt(mean(x^2 over a row) + eps), eps the f64 attribute "eps".
//
// Each row is one pass over memory (two in the backward), vectorized for AVX-512,
// AVX2 or plain x86-64, picked at load time (target_clones), rows split over threads.
#include <tlaloc/xla_ffi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

#if defined(__x86_64__) && !defined(__clang__)
#define TLALOC_EXAMPLE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TLALOC_EXAMPLE_CLONES
#endif

constexpr int kLanes = 16;  // independent partial sums: the compiler keeps them in vector registers

TLALOC_EXAMPLE_CLONES float sum_of_squares(const float* x, long d) {
  float acc[kLanes] = {};
  long i = 0;
  for (; i + kLanes <= d; i += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] += x[i + l] * x[i + l];
  float s = 0;
  for (int l = 0; l < kLanes; ++l) s += acc[l];
  for (; i < d; ++i) s += x[i] * x[i];
  return s;
}

TLALOC_EXAMPLE_CLONES void forward_row(const float* x, const float* w, float* y, long d, float r) {
  for (long i = 0; i < d; ++i) y[i] = x[i] * r * w[i];
}

// sum over the row of dy * w * x (before r is applied), and dw += dy * x * r.
TLALOC_EXAMPLE_CLONES float backward_dot(const float* x, const float* w, const float* dy, float* dw, long d,
                                         float r) {
  float acc[kLanes] = {};
  long i = 0;
  for (; i + kLanes <= d; i += kLanes)
    for (int l = 0; l < kLanes; ++l) {
      const float g = dy[i + l] * x[i + l];
      acc[l] += g * w[i + l];
      dw[i + l] += g * r;
    }
  float s = 0;
  for (int l = 0; l < kLanes; ++l) s += acc[l];
  for (; i < d; ++i) {
    const float g = dy[i] * x[i];
    s += g * w[i];
    dw[i] += g * r;
  }
  return s;
}

// dx = r * (dy * w - x * r^2 * c), c = mean(dy * w * x).
TLALOC_EXAMPLE_CLONES void backward_row(const float* x, const float* w, const float* dy, float* dx, long d,
                                        float r, float k) {
  for (long i = 0; i < d; ++i) dx[i] = r * (dy[i] * w[i]) - k * x[i];
}

tlaloc_ffi_error* refuse(const tlaloc_ffi_call_frame* frame, const std::string& message) {
  tlaloc_ffi_error_create_args args{};
  args.struct_size = TLALOC_FFI_FILLED_SIZE(tlaloc_ffi_error_create_args, errc);
  args.message = message.c_str();
  args.errc = TLALOC_FFI_INVALID_ARGUMENT;
  return frame->api->error_create(&args);
}

const tlaloc_ffi_buffer* buffer(void* const* list, int i) {
  return static_cast<const tlaloc_ffi_buffer*>(list[i]);
}

// eps, or -1 when the attribute is missing.
double epsilon(const tlaloc_ffi_call_frame* frame) {
  for (int64_t i = 0; i < frame->attrs.size; ++i) {
    const tlaloc_ffi_byte_span* n = frame->attrs.names[i];
    if (frame->attrs.types[i] != TLALOC_FFI_ATTR_SCALAR || n->len != 3 || std::memcmp(n->ptr, "eps", 3) != 0)
      continue;
    const auto* s = static_cast<const tlaloc_ffi_scalar*>(frame->attrs.attrs[i]);
    if (s->dtype == TLALOC_FFI_F64) return *static_cast<const double*>(s->value);
    if (s->dtype == TLALOC_FFI_F32) return *static_cast<const float*>(s->value);
  }
  return -1;
}

// Checks that x is f32 [n, d], w f32 [d], and the others f32 of x's or w's shape.
std::string check(const tlaloc_ffi_call_frame* frame, int args, int rets) {
  if (frame->args.size != args || frame->rets.size != rets)
    return "takes " + std::to_string(args) + " operands and gives " + std::to_string(rets) + " results";
  const tlaloc_ffi_buffer* x = buffer(frame->args.args, 0);
  const tlaloc_ffi_buffer* w = buffer(frame->args.args, 1);
  if (x->rank != 2 || w->rank != 1 || w->dims[0] != x->dims[1])
    return "needs x of rank 2 and w of x's last dimension";
  for (int i = 0; i < args + rets; ++i) {
    const tlaloc_ffi_buffer* b = i < args ? buffer(frame->args.args, i) : buffer(frame->rets.rets, i - args);
    const tlaloc_ffi_buffer* like = b->rank == 2 ? x : w;
    if (b->dtype != TLALOC_FFI_F32) return "works on f32 only";
    if (b->rank != like->rank || !std::equal(b->dims, b->dims + b->rank, like->dims)) return "shapes differ";
  }
  if (epsilon(frame) < 0) return "needs the f64 attribute eps >= 0";
  return {};
}

// Runs body(first_row, last_row, thread) over the rows on a few threads.
template <class Body>
void over_rows(long n, long d, const Body& body) {
  const long work = n * d;
  const long threads =
      std::clamp<long>(std::min<long>(std::thread::hardware_concurrency(), work / (1L << 16)), 1, 64);
  std::vector<std::thread> pool;
  for (long t = 1; t < threads; ++t) pool.emplace_back(body, n * t / threads, n * (t + 1) / threads, t);
  body(0, n / threads, 0);
  for (std::thread& t : pool) t.join();
}

}  // namespace

extern "C" tlaloc_ffi_error* rms_norm_fwd(tlaloc_ffi_call_frame* frame) {
  if (tlaloc_ffi_answer_metadata(frame) != 0 || frame->stage != TLALOC_FFI_EXECUTE) return nullptr;
  if (const std::string why = check(frame, 2, 1); !why.empty()) return refuse(frame, "rms_norm_fwd " + why);
  const tlaloc_ffi_buffer* xb = buffer(frame->args.args, 0);
  const long n = xb->dims[0], d = xb->dims[1];
  const auto* x = static_cast<const float*>(xb->data);
  const auto* w = static_cast<const float*>(buffer(frame->args.args, 1)->data);
  auto* y = static_cast<float*>(buffer(frame->rets.rets, 0)->data);
  const auto eps = static_cast<float>(epsilon(frame));
  over_rows(n, d, [&](long first, long last, long) {
    for (long i = first; i < last; ++i) {
      const float r = 1.0f / std::sqrt(sum_of_squares(x + i * d, d) / static_cast<float>(d) + eps);
      forward_row(x + i * d, w, y + i * d, d, r);
    }
  });
  return nullptr;
}

extern "C" tlaloc_ffi_error* rms_norm_bwd(tlaloc_ffi_call_frame* frame) {
  if (tlaloc_ffi_answer_metadata(frame) != 0 || frame->stage != TLALOC_FFI_EXECUTE) return nullptr;
  if (const std::string why = check(frame, 3, 2); !why.empty()) return refuse(frame, "rms_norm_bwd " + why);
  const tlaloc_ffi_buffer* xb = buffer(frame->args.args, 0);
  const long n = xb->dims[0], d = xb->dims[1];
  const auto* x = static_cast<const float*>(xb->data);
  const auto* w = static_cast<const float*>(buffer(frame->args.args, 1)->data);
  const auto* dy = static_cast<const float*>(buffer(frame->args.args, 2)->data);
  auto* dx = static_cast<float*>(buffer(frame->rets.rets, 0)->data);
  auto* dw = static_cast<float*>(buffer(frame->rets.rets, 1)->data);
  const auto eps = static_cast<float>(epsilon(frame));
  std::vector<std::vector<float>> partial(64);  // each thread's share of dw
  over_rows(n, d, [&](long first, long last, long t) {
    std::vector<float>& mine = partial[static_cast<std::size_t>(t)];
    mine.assign(static_cast<std::size_t>(d), 0.0f);
    for (long i = first; i < last; ++i) {
      const float* xi = x + i * d;
      const float r = 1.0f / std::sqrt(sum_of_squares(xi, d) / static_cast<float>(d) + eps);
      const float c = backward_dot(xi, w, dy + i * d, mine.data(), d, r) / static_cast<float>(d);
      backward_row(xi, w, dy + i * d, dx + i * d, d, r, r * r * r * c);
    }
  });
  std::fill(dw, dw + d, 0.0f);
  for (const std::vector<float>& p : partial)
    for (std::size_t j = 0; j < p.size(); ++j) dw[j] += p[j];
  return nullptr;
}
