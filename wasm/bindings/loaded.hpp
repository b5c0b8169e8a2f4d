// Where a loaded model goes: each kind's handle table (model.cpp, window_model.cpp) takes it and answers the
// info JS reads ({ handle, config, tokenizer, parameters, ... }). Called by load.cpp only.
// Not here: detecting or reading a format (wasm/src/model/load.hpp).
#pragma once
#include <emscripten/val.h>

#include "model/bundle.hpp"
#include "model/window_bundle.hpp"

namespace lookback::bind {

emscripten::val register_model(LoadedModel m);
emscripten::val register_window(WindowBundle b);

}  // namespace lookback::bind
