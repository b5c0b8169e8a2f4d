// lookback-eval: measures a trained Sprout bundle (and the window model) on held-out stories and probes and
// prints the model card's measurements as JSON. Not the whole card: `npm run eval` adds the files' checksums
// and writes the readable summary.
//   lookback-eval --sprout shared/models/sprout --window shared/models/window --seed 1 --out card.json
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "base/cli.hpp"
#include "base/read_file.hpp"
#include "model/bundle.hpp"
#include "train/evaluate.hpp"

namespace {

const char* kHelp = R"(usage: lookback-eval --sprout DIR [--window DIR] [options]
  --sprout DIR        bundle folder: model.safetensors, config.json, tokenizer.json
  --window DIR        window model folder: model.safetensors, config.json
  --seed S            corpus seed of the held-out splits (default 1)
  --val-stories N     validation stories (default 400)
  --head-texts N      of those, texts for the head habits (default 200)
  --probes N          probes of each kind (default 300)
  --repeats N         repeated random sequences for the induction test (default 100)
  --weights F         the weight format Sprout runs in: f32 (default), f16, q8 or q4 (the window model stays f32)
  --out FILE          write the JSON there (default: standard output)
)";

const lookback::cli::Usage kUsage{"lookback-eval", kHelp};

int number(const std::string& flag, const std::string& v) {
  try {
    std::size_t used = 0;
    const int n = std::stoi(v, &used);
    if (used == v.size() && n > 0) return n;
  } catch (const std::exception&) {
  }
  throw std::runtime_error(flag + " needs a positive integer (got \"" + v + "\")");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string sprout, window, out;
    lookback::WeightFormat format = lookback::WeightFormat::f32;
    lookback::train::EvalOptions o;
    lookback::cli::parse(kUsage, argc, argv, [&](const std::string& a, auto value) {
      if (a == "--sprout") sprout = value();
      else if (a == "--window") window = value();
      else if (a == "--out") out = value();
      else if (a == "--weights") format = lookback::weight_format(value());
      else if (a == "--seed") o.seed = std::uint64_t(number(a, value()));
      else if (a == "--val-stories") o.val_stories = number(a, value());
      else if (a == "--head-texts") o.head_texts = number(a, value());
      else if (a == "--probes") o.probes = number(a, value());
      else if (a == "--repeats") o.repeats = number(a, value());
      else return false;
      return true;
    });
    if (sprout.empty()) throw std::runtime_error("--sprout DIR is required (see --help)");
    const std::string weights = lookback::read_file(sprout + "/model.safetensors");
    const lookback::LoadedModel m = lookback::load_bundle(reinterpret_cast<const std::uint8_t*>(weights.data()),
                                                          weights.size(), lookback::read_file(sprout + "/config.json"),
                                                          lookback::read_file(sprout + "/tokenizer.json"), format);
    std::unique_ptr<lookback::WindowModel> w;
    if (!window.empty()) {
      const std::string wb = lookback::read_file(window + "/model.safetensors");
      w = std::make_unique<lookback::WindowModel>(reinterpret_cast<const std::uint8_t*>(wb.data()), wb.size(),
                                                  lookback::read_file(window + "/config.json"));
    }
    const std::string text = lookback::train::evaluate(m, w.get(), o).dump(2) + "\n";
    if (out.empty()) {
      std::cout << text;
    } else {
      std::ofstream f(out, std::ios::binary);
      f << text;
      if (!f) throw std::runtime_error("cannot write " + out);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lookback-eval: %s\n", e.what());
    return 1;
  }
}
