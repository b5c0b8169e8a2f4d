// Embind bindings of live training (the training module, web/build/lookback-train.*), handle-based like the
// model's: trainCreate(options) gives a handle; trainSteps runs optimiser steps; trainEvaluate, trainProbe and
// trainBundle read the run; trainDispose frees it; trainTasks lists the tasks' names. Each validates its arguments, copies results out and returns
// an Error object instead of throwing. Not here: the training itself (wasm/src/train_live) or the JS API
// (web/js/api/train.js).
#include <emscripten/bind.h>

#include <memory>

#include "args.hpp"
#include "handles.hpp"
#include "train_live/live_run.hpp"

namespace lookback::bind {
namespace {

using live::LiveRun;

Handles<LiveRun>& runs() {
  static Handles<LiveRun> r("this training run was disposed (or never made)");
  return r;
}

LiveRun& run_of(const char* fn, double handle) { return runs().at(fn, handle); }

template <class T>
val typed(const char* type, const std::vector<T>& v) {
  return val::global(type).new_(emscripten::typed_memory_view(v.size(), v.data()));
}

// o: { task, alphabet, repeatMin, repeatMax, layers, mlp, dim, heads, seqLen, batch, lr, warmup, seed, heldOut,
// probes } (all present)
val create_js(val o) {
  return guarded([&] {
    const char* fn = "train";
    if (!o["task"].isString()) fail(fn, ": task must be a string");
    live::LiveOptions x;
    x.task = o["task"].as<std::string>();
    x.alphabet = int_arg(fn, "alphabet", o["alphabet"].as<double>(), 2, 256);
    x.repeat_min = int_arg(fn, "repeatMin", o["repeatMin"].as<double>(), 0, 64);
    x.repeat_max = int_arg(fn, "repeatMax", o["repeatMax"].as<double>(), 0, 64);
    x.model.layers = int_arg(fn, "layers", o["layers"].as<double>(), 1, 4);
    x.model.mlp = o["mlp"].as<bool>();
    x.model.dim = int_arg(fn, "dim", o["dim"].as<double>(), 8, 256);
    x.model.heads = int_arg(fn, "heads", o["heads"].as<double>(), 1, 8);
    x.model.seq_len = int_arg(fn, "seqLen", o["seqLen"].as<double>(), 13, 128);
    x.batch = int_arg(fn, "batch", o["batch"].as<double>(), 1, 256);
    x.lr = num_arg(fn, "lr", o["lr"].as<double>(), true);
    x.warmup = int_arg(fn, "warmup", o["warmup"].as<double>(), 0, 1e6);
    x.seed = std::uint64_t(int_arg(fn, "seed", o["seed"].as<double>(), 0, 2147483647.0));
    x.held_out = int_arg(fn, "heldOut", o["heldOut"].as<double>(), 1, 1024);
    x.probes = int_arg(fn, "probes", o["probes"].as<double>(), 1, 64);
    const int handle = runs().add(std::make_unique<LiveRun>(x));
    val r = val::object();
    r.set("handle", handle);
    r.set("parameters", double(runs().at(fn, handle).parameters()));
    return r;
  });
}

val steps_js(double handle, double n) {
  return guarded([&] {
    LiveRun& r = run_of("step", handle);
    std::vector<double> losses(std::size_t(int_arg("step", "n", n, 1, 1e5)));
    for (double& l : losses) l = r.step();
    return typed("Float64Array", losses);
  });
}

val evaluate_js(double handle) {
  return guarded([&] {
    LiveRun& r = run_of("evaluate", handle);
    const live::Losses l = r.evaluate();
    val o = val::object();
    o.set("step", double(r.steps_done()));
    o.set("heldOut", l.held_out);
    o.set("task", l.task);
    return o;
  });
}

val probe_js(double handle) {
  return guarded([&] {
    const live::ProbeView p = run_of("probe", handle).probe();
    val o = val::object();
    o.set("ids", typed("Int32Array", p.ids));
    o.set("attention", to_js(p.attention));
    o.set("previousTokenOnRandomTokens", typed("Float64Array", p.previous));
    o.set("induction", typed("Float64Array", p.induction));
    return o;
  });
}

val bundle_js(double handle) {
  return guarded([&] {
    const live::Bundle b = run_of("bundle", handle).bundle();
    val o = val::object();
    o.set("weights", to_js(b.weights));
    o.set("config", b.config);
    o.set("tokenizer", b.tokenizer);
    return o;
  });
}

// The live tasks' names (live::task_names, the one list).
val tasks_js() {
  val a = val::array();
  for (const auto& name : live::task_names()) a.call<void>("push", name);
  return a;
}

val dispose_js(double handle) {
  return guarded([&] { return val(runs().erase(handle)); });
}

}  // namespace

EMSCRIPTEN_BINDINGS(lookback_train) {
  emscripten::function("trainCreate", &create_js);
  emscripten::function("trainSteps", &steps_js);
  emscripten::function("trainEvaluate", &evaluate_js);
  emscripten::function("trainProbe", &probe_js);
  emscripten::function("trainBundle", &bundle_js);
  emscripten::function("trainDispose", &dispose_js);
  emscripten::function("trainTasks", &tasks_js);
}

}  // namespace lookback::bind
