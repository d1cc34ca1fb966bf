// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The model zoo: parameterised builders of forward graphs with named parameters (module paths).
//
// A model is named `NAME[:key=value,...]` where NAME is a family (mlp, gpt, llama, moe, vit, unet) or a
// preset (gpt2-small, llama3-8b, ...) and the keys override the family's defaults or the preset's values,
// e.g. "gpt:layers=4,d_model=512,heads=8" or "llama3-8b:seq=2048".
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "shardscope/diagnostic.h"
#include "shardscope/ir/graph.h"

namespace shardscope::zoo {

struct OptionSpec {
    std::string key;
    std::string defaultValue;
    std::string help;
};

struct Family {
    std::string name;
    std::string description;
    std::vector<OptionSpec> options;
};

struct Preset {
    std::string name;
    std::string family;
    std::string options;         // "key=value,..." applied over the family's defaults
    double publishedParameters;  // the figure published for this model; 0 for presets with none (the demo)
    std::string source;          // where that figure comes from
    std::string description;
};

const std::vector<Family>& families();
const std::vector<Preset>& presets();

// A resolved model name: the family and every option's value (defaults filled in).
struct ModelSpec {
    std::string family;
    std::string preset;  // empty when named by family
    std::map<std::string, std::string> options;

    // "gpt:batch=8,d_model=768,..." with every option, sorted by key: a canonical name.
    std::string canonicalName() const;
};

// Parses "NAME[:key=value,...]" (without the "zoo:" prefix). Errors name the unknown model or key and
// list what is accepted.
Result<ModelSpec> parseModelSpec(std::string_view text);

// Builds the forward graph. Errors explain option values that do not fit together (heads not dividing
// d_model, image not divisible by patch, ...).
Result<ir::Graph> build(const ModelSpec& spec);

}  // namespace shardscope::zoo
