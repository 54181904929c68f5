// The fused RMSNorm of rms_norm_kernels.cpp as CUDA kernels, built to PTX by nvcc at
// build time and launched by Tlaloc on a CUDA PJRT plugin's stream (rms_norm.cpp's
// .cuda). One block per row; the launch rule in rms_norm.cpp gives the grid (rows),
// the block (kThreads) and the scalars after the buffers: d, then eps.
//
//   rms_norm_fwd_f32(x, w, y, d, eps)
//   rms_norm_bwd_f32(x, w, dy, dx, dw, d, eps)   dw starts at zero (zero_results): rows add into it
//
// dw is accumulated with atomicAdd, so its last bits may vary from run to run.
constexpr int kThreads = 256;

// The sum over the block of `v`, in every thread.
__device__ float block_sum(float v, float* shared) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  float total = 0;
  for (int i = 0; i < kThreads / 32; ++i) total += shared[i];
  __syncthreads();
  return total;
}

extern "C" __global__ void rms_norm_fwd_f32(const float* x, const float* w, float* y, long long d,
                                            float eps) {
  __shared__ float shared[kThreads / 32];
  const float* row = x + blockIdx.x * d;
  float ss = 0;
  for (long long i = threadIdx.x; i < d; i += kThreads) ss += row[i] * row[i];
  const float r = rsqrtf(block_sum(ss, shared) / static_cast<float>(d) + eps);
  for (long long i = threadIdx.x; i < d; i += kThreads) y[blockIdx.x * d + i] = row[i] * r * w[i];
}

extern "C" __global__ void rms_norm_bwd_f32(const float* x, const float* w, const float* dy, float* dx,
                                            float* dw, long long d, float eps) {
  __shared__ float shared[kThreads / 32];
  const float* row = x + blockIdx.x * d;
  const float* grad = dy + blockIdx.x * d;
  float ss = 0, dot = 0;
  for (long long i = threadIdx.x; i < d; i += kThreads) {
    ss += row[i] * row[i];
    dot += grad[i] * w[i] * row[i];
  }
  const float r = rsqrtf(block_sum(ss, shared) / static_cast<float>(d) + eps);
  const float k = r * r * r * block_sum(dot, shared) / static_cast<float>(d);
  for (long long i = threadIdx.x; i < d; i += kThreads) {
    dx[blockIdx.x * d + i] = r * grad[i] * w[i] - k * row[i];
    atomicAdd(dw + i, grad[i] * row[i] * r);
  }
}
