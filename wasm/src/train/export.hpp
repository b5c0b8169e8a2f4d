// Export of trained weights to the shipped format: safetensors with fp16 tensors, named as the model
// declares them, plus config.json (and a copy of the tokenizer). One function, so the writer can be
// swapped for the runtime's own safetensors writer in one line.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "train/model.hpp"

namespace lookback::train {


// The bytes of a safetensors file holding every parameter of `params` as F16: safetensors_bytes uses the
// runtime's writer (the one export_folder uses); safetensors_f16 is the trainer's own, kept for comparison.
std::string safetensors_bytes(const std::vector<ParamInfo>& params, const float* w, const nlohmann::json& metadata);
std::string safetensors_f16(const std::vector<ParamInfo>& params, const float* w,
                            const nlohmann::json& metadata);

// dir/model.safetensors, dir/config.json, dir/tokenizer.json (copied when tokenizer is not empty).
void export_folder(const std::string& dir, const TrainModel& model, const float* w, const std::string& tokenizer,
                   const nlohmann::json& extra_metadata);

}  // namespace lookback::train
