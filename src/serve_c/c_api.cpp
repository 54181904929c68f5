// The C interface (include/tlaloc/serve.h) over tl::serve::Model. Every entry point
// catches everything: a C caller sees a status and tlaloc_last_error(), never an
// exception.
#include "tlaloc/serve.h"

#include <cstring>
#include <string>
#include <vector>

#include "core/tensor_impl.hpp"
#include "tlaloc/serve.hpp"

struct tlaloc_model {
  tlaloc::serve::Model model;
  std::vector<std::string> names;
};

struct tlaloc_tensor {
  tlaloc::Tensor t;
  tlaloc::Shape shape;
};

namespace {

namespace tl = tlaloc;

thread_local std::string last_error;

// DType's order is tlaloc_dtype's, checked here so the two never drift apart.
static_assert(int(tl::DType::f32) == TLALOC_F32 && int(tl::DType::f64) == TLALOC_F64 &&
              int(tl::DType::bf16) == TLALOC_BF16 && int(tl::DType::f16) == TLALOC_F16 &&
              int(tl::DType::i8) == TLALOC_I8 && int(tl::DType::i32) == TLALOC_I32 &&
              int(tl::DType::i64) == TLALOC_I64 && int(tl::DType::u8) == TLALOC_U8 &&
              int(tl::DType::boolean) == TLALOC_BOOL && int(tl::DType::i16) == TLALOC_I16 &&
              int(tl::DType::u16) == TLALOC_U16 && int(tl::DType::u32) == TLALOC_U32 &&
              int(tl::DType::u64) == TLALOC_U64);

// Runs f, turning any exception into `fail` and a message.
template <class F, class R>
R guarded(F f, R fail) {
  try {
    last_error.clear();
    return f();
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "tlaloc: unknown error";
  }
  return fail;
}

tl::Tensor from_view(const tlaloc_tensor_view& v, int index) {
  if (v.rank < 0 || (v.rank > 0 && v.shape == nullptr))
    throw tl::ValueError("tlaloc_model_run: input " + std::to_string(index) + " has no shape");
  // A C caller may store any int in the enum; C++ may not load one outside its values,
  // so the raw number is read and checked first.
  int raw = 0;
  static_assert(sizeof(v.dtype) == sizeof(raw));
  std::memcpy(&raw, &v.dtype, sizeof raw);
  if (raw < 0 || raw > TLALOC_U64)
    throw tl::ValueError("tlaloc_model_run: input " + std::to_string(index) + " has an unknown dtype (" +
                         std::to_string(raw) + ")");
  const tl::Shape shape(v.shape, v.shape + v.rank);
  tl::Tensor t = tl::detail::empty(shape, tl::DType(raw));
  const std::size_t bytes = std::size_t(t.numel()) * tl::itemsize(t.dtype());
  if (bytes > 0 && v.data == nullptr)
    throw tl::ValueError("tlaloc_model_run: input " + std::to_string(index) + " has no data");
  if (bytes > 0) std::memcpy(t.impl().data(), v.data, bytes);
  return t;
}

int spec(const tlaloc_model* m, const char* entry, int index, bool input, const char** name, tlaloc_dtype* dtype,
         int* rank, const int64_t** shape) {
  return guarded(
      [&] {
        const tl::serve::EntryPoint& e = m->model.entry_point(entry);
        const auto& specs = input ? e.inputs : e.outputs;
        if (index < 0 || std::size_t(index) >= specs.size())
          throw tl::ValueError(std::string("tlaloc_model_") + (input ? "input" : "output") + ": entry point '" +
                               entry + "' has no " + (input ? "input " : "output ") + std::to_string(index));
        const tl::serve::TensorSpec& s = specs[std::size_t(index)];
        if (name) *name = s.name.c_str();
        if (dtype) *dtype = tlaloc_dtype(s.dtype);
        if (rank) *rank = int(s.shape.size());
        if (shape) *shape = s.shape.data();
        return 0;
      },
      1);
}

// The bounded dimension an axis of a spec follows ("" for a fixed axis).
const char* spec_dim(const tlaloc_model* m, const char* entry, int index, int axis, bool input) {
  return guarded(
      [&]() -> const char* {
        const char* who = input ? "tlaloc_model_input_dim" : "tlaloc_model_output_dim";
        if (!m || !entry) throw tl::ValueError(std::string(who) + ": no model or entry point");
        const tl::serve::EntryPoint& e = m->model.entry_point(entry);
        const auto& specs = input ? e.inputs : e.outputs;
        if (index < 0 || std::size_t(index) >= specs.size())
          throw tl::ValueError(std::string(who) + ": entry point '" + entry + "' has no " +
                               (input ? "input " : "output ") + std::to_string(index));
        const tl::serve::TensorSpec& s = specs[std::size_t(index)];
        if (axis < 0 || std::size_t(axis) >= s.shape.size())
          throw tl::ValueError(std::string(who) + ": '" + s.name + "' has no axis " + std::to_string(axis));
        return s.dims.empty() ? "" : s.dims[std::size_t(axis)].c_str();
      },
      static_cast<const char*>(nullptr));
}

}  // namespace

extern "C" {

const char* tlaloc_last_error(void) { return last_error.c_str(); }

namespace {

tlaloc_model* load(const char* who, const char* dir, const tl::runtime::SessionOptions& options) {
  if (dir == nullptr) throw tl::ValueError(std::string(who) + ": no directory");
  tl::serve::Model m = tl::serve::Model::load(dir, options);
  std::vector<std::string> names = m.entry_point_names();
  return new tlaloc_model{std::move(m), std::move(names)};
}

}  // namespace

tlaloc_model* tlaloc_model_load(const char* dir) {
  return guarded([&] { return load("tlaloc_model_load", dir, {}); }, static_cast<tlaloc_model*>(nullptr));
}

tlaloc_model* tlaloc_model_load_on(const char* dir, const char* plugin) {
  return guarded(
      [&] {
        tl::runtime::SessionOptions options;
        options.backend = tl::runtime::Backend::pjrt;
        options.plugin_path = plugin != nullptr ? plugin : "";
        return load("tlaloc_model_load_on", dir, options);
      },
      static_cast<tlaloc_model*>(nullptr));
}

void tlaloc_model_free(tlaloc_model* model) { delete model; }

int tlaloc_model_num_entry_points(const tlaloc_model* model) { return model ? int(model->names.size()) : 0; }

const char* tlaloc_model_entry_point_name(const tlaloc_model* model, int index) {
  if (!model || index < 0 || std::size_t(index) >= model->names.size()) return nullptr;
  return model->names[std::size_t(index)].c_str();
}

int tlaloc_model_num_inputs(const tlaloc_model* model, const char* entry) {
  return guarded([&] { return int(model->model.entry_point(entry ? entry : "").inputs.size()); }, -1);
}

int tlaloc_model_num_outputs(const tlaloc_model* model, const char* entry) {
  return guarded([&] { return int(model->model.entry_point(entry ? entry : "").outputs.size()); }, -1);
}

int tlaloc_model_input(const tlaloc_model* model, const char* entry, int index, const char** name,
                       tlaloc_dtype* dtype, int* rank, const int64_t** shape) {
  return spec(model, entry ? entry : "", index, true, name, dtype, rank, shape);
}

int tlaloc_model_output(const tlaloc_model* model, const char* entry, int index, const char** name,
                        tlaloc_dtype* dtype, int* rank, const int64_t** shape) {
  return spec(model, entry ? entry : "", index, false, name, dtype, rank, shape);
}

const char* tlaloc_model_input_dim(const tlaloc_model* model, const char* entry, int index, int axis) {
  return spec_dim(model, entry, index, axis, true);
}

const char* tlaloc_model_output_dim(const tlaloc_model* model, const char* entry, int index, int axis) {
  return spec_dim(model, entry, index, axis, false);
}

int tlaloc_model_run(tlaloc_model* model, const char* entry, const tlaloc_tensor_view* inputs, int n_inputs,
                     tlaloc_tensor** outputs, int n_outputs) {
  return guarded(
      [&] {
        if (!model || !entry) throw tl::ValueError("tlaloc_model_run: no model or entry point");
        if (n_inputs < 0 || (n_inputs > 0 && !inputs)) throw tl::ValueError("tlaloc_model_run: no inputs");
        const tl::serve::EntryPoint& e = model->model.entry_point(entry);
        if (n_outputs != int(e.outputs.size()) || !outputs)
          throw tl::ValueError("tlaloc_model_run: entry point '" + std::string(entry) + "' has " +
                               std::to_string(e.outputs.size()) + " outputs, the call has room for " +
                               std::to_string(n_outputs));
        std::vector<tl::Tensor> in;
        for (int i = 0; i < n_inputs; ++i) in.push_back(from_view(inputs[i], i));
        const std::vector<tl::Tensor> out = model->model.run(entry, in);
        for (std::size_t i = 0; i < out.size(); ++i) outputs[i] = new tlaloc_tensor{out[i], out[i].shape()};
        return 0;
      },
      1);
}

tlaloc_dtype tlaloc_tensor_dtype(const tlaloc_tensor* t) { return tlaloc_dtype(t->t.dtype()); }
int tlaloc_tensor_rank(const tlaloc_tensor* t) { return int(t->shape.size()); }
const int64_t* tlaloc_tensor_shape(const tlaloc_tensor* t) { return t->shape.data(); }
const void* tlaloc_tensor_data(const tlaloc_tensor* t) { return t->t.raw_data(); }
size_t tlaloc_tensor_nbytes(const tlaloc_tensor* t) { return std::size_t(t->t.numel()) * tl::itemsize(t->t.dtype()); }
void tlaloc_tensor_free(tlaloc_tensor* t) { delete t; }

}  // extern "C"
