// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/zoo/zoo.h"

#include <algorithm>

#include "zoo/models.h"

namespace shardscope::zoo {
namespace {

const std::vector<OptionSpec> kDecoderOptions{
    {"layers", "12", "number of transformer layers"},
    {"d_model", "768", "model (residual stream) width"},
    {"heads", "12", "attention heads"},
    {"d_ff", "0", "feed-forward hidden width (0 = 4 x d_model)"},
    {"seq", "1024", "sequence length (tokens per example)"},
    {"batch", "8", "examples per step (global batch)"},
    {"vocab", "50257", "vocabulary size"},
    {"dtype", "bf16", "element type of parameters and activations (f32, bf16, f16)"},
    {"tied", "true", "share the token embedding with the output projection"},
    {"dropout", "0", "dropout probability in every layer, placed as Megatron-LM (0 = no dropout ops)"},
    {"scan", "false",
     "layers as one while loop over stacked weights [layers, ...], as JAX's nn.scan / MaxText's scan_layers"},
};

std::vector<OptionSpec> llamaOptions() {
    return {
        {"layers", "32", "number of transformer layers"},
        {"d_model", "4096", "model (residual stream) width"},
        {"heads", "32", "query heads"},
        {"kv_heads", "8", "key/value heads (grouped-query attention; = heads for multi-head)"},
        {"d_ff", "14336", "SwiGLU hidden width"},
        {"seq", "4096", "sequence length (tokens per example)"},
        {"batch", "1", "examples per step (global batch)"},
        {"vocab", "128256", "vocabulary size"},
        {"dtype", "bf16", "element type of parameters and activations"},
        {"tied", "false", "share the token embedding with the output projection"},
        {"rope_theta", "500000", "rotary embedding base"},
        {"head_dim", "0", "width of each attention head (0 = d_model / heads)"},
        {"attention", "gqa",
         "gqa (grouped-query; multi-head when kv_heads = heads) or mla (DeepSeek's latent)"},
        {"q_lora_rank", "1536", "mla: width of the queries' low-rank bottleneck"},
        {"kv_lora_rank", "512", "mla: width of the compressed key/value latent"},
        {"qk_nope_dim", "128", "mla: per-head query/key width without rotary embedding"},
        {"qk_rope_dim", "64",
         "mla: per-head query/key width with rotary embedding (one key part for all heads)"},
        {"v_head_dim", "128", "mla: per-head value width"},
        {"dropout", "0", "dropout probability in every layer, placed as Megatron-LM (0 = no dropout ops)"},
        {"scan", "false",
         "layers as one while loop over stacked weights [layers, ...], as JAX's nn.scan / MaxText's "
         "scan_layers"},
    };
}

std::vector<OptionSpec> moeOptions() {
    auto o = llamaOptions();
    auto set = [&](const std::string& key, const std::string& value) {
        for (auto& spec : o)
            if (spec.key == key)
                spec.defaultValue = value;
    };
    set("layers", "4");
    set("d_model", "1024");
    set("heads", "16");
    set("kv_heads", "4");
    set("d_ff", "2816");
    set("seq", "2048");
    set("batch", "4");
    set("vocab", "32000");
    set("rope_theta", "1000000");
    o.push_back({"experts", "8", "experts per MoE layer"});
    o.push_back({"top_k", "2", "experts each token is routed to"});
    o.push_back({"capacity_factor", "1.25",
                 "expert capacity = ceil(top_k x seq x factor / experts) tokens per group"});
    o.push_back({"moe_every", "1", "every n-th layer uses experts (1 = all)"});
    o.push_back({"shared_experts", "0", "experts every token also goes through (DeepSeek's shared experts)"});
    o.push_back({"dense_layers", "0", "the first n layers have a dense MLP"});
    o.push_back({"dense_d_ff", "0", "width of the dense MLPs (0 = d_ff)"});
    return o;
}

struct Builder {
    std::string family;
    Result<ir::Graph> (*build)(Options&);
};

const std::vector<Builder> kBuilders{
    {"mlp", buildMlp}, {"gpt", buildGpt}, {"llama", buildLlama},
    {"moe", buildMoe}, {"vit", buildVit}, {"unet", buildUnet},
};

const Family* findFamily(std::string_view name) {
    for (const auto& f : families())
        if (f.name == name)
            return &f;
    return nullptr;
}

const Preset* findPreset(std::string_view name) {
    for (const auto& p : presets())
        if (p.name == name)
            return &p;
    return nullptr;
}

std::string knownNames() {
    std::string out;
    for (const auto& f : families())
        out += (out.empty() ? "" : ", ") + f.name;
    for (const auto& p : presets())
        out += ", " + p.name;
    return out;
}

// Applies "k=v,k=v" to `options`, accepting only keys the family declares.
Status applyAssignments(std::string_view text, const Family& family, const std::string& model,
                        std::map<std::string, std::string>& options) {
    std::size_t pos = 0;
    while (pos <= text.size()) {
        auto comma = text.find(',', pos);
        std::string_view item =
            text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
        pos = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
        if (item.empty())
            continue;
        auto eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size())
            return makeError("zoo.option",
                             "zoo:" + model + ": '" + std::string(item) + "' is not of the form key=value");
        std::string key(item.substr(0, eq));
        if (!options.count(key)) {
            std::string keys;
            for (const auto& o : family.options)
                keys += (keys.empty() ? "" : ", ") + o.key;
            return makeError("zoo.option", "zoo:" + model + ": unknown option '" + key + "' (" + family.name +
                                               " accepts: " + keys + ")");
        }
        options[key] = std::string(item.substr(eq + 1));
    }
    return Success{};
}

}  // namespace

const std::vector<Family>& families() {
    static const std::vector<Family> kFamilies{
        {"mlp",
         "multi-layer perceptron: layers of x·W1 -> activation -> ·W2",
         {{"layers", "2", "number of W1/W2 blocks"},
          {"d_model", "1024", "input and output width"},
          {"d_ff", "4096", "hidden width"},
          {"batch", "64", "examples per step"},
          {"bias", "false", "add biases"},
          {"activation", "relu", "relu or gelu"},
          {"dtype", "f32", "element type"}}},
        {"gpt", "GPT-2/3 style decoder: learned positions, pre-LayerNorm, multi-head attention, GELU MLP",
         kDecoderOptions},
        {"llama", "Llama style decoder: RMSNorm, rotary embeddings, grouped-query attention, SwiGLU",
         llamaOptions()},
        {"moe",
         "mixture-of-experts Llama-style decoder with GShard-style top-k routing, capacity and "
         "dispatch/combine einsums",
         moeOptions()},
        {"vit",
         "Vision Transformer: patch convolution, class token, pre-LayerNorm encoder, classification head",
         {{"image", "224", "image height and width (pixels)"},
          {"patch", "16", "patch size"},
          {"channels", "3", "input channels"},
          {"layers", "12", "encoder layers"},
          {"d_model", "768", "width"},
          {"heads", "12", "attention heads"},
          {"d_ff", "3072", "MLP hidden width"},
          {"classes", "1000", "output classes"},
          {"batch", "32", "images per step"},
          {"dtype", "bf16", "element type"}}},
        {"unet",
         "convolutional U-Net: double 3x3 convolutions, max-pool down, 2x2 transposed-convolution up, skips",
         {{"image", "256", "image height and width (divisible by 2^depth)"},
          {"channels", "1", "input channels"},
          {"classes", "2", "output channels"},
          {"base", "64", "channels at the first level (doubling per level)"},
          {"depth", "4", "down-sampling steps"},
          {"batch", "8", "images per step"},
          {"dtype", "bf16", "element type"}}},
    };
    return kFamilies;
}

const std::vector<Preset>& presets() {
    static const std::vector<Preset> kPresets{
        {"demo", "gpt", "layers=2,d_model=256,heads=4,d_ff=1024,seq=128,batch=8,vocab=1024,dtype=f32", 0, "",
         "a small two-layer GPT for trying things out"},
        {"gpt2-small", "gpt", "layers=12,d_model=768,heads=12,seq=1024,vocab=50257", 124e6,
         "OpenAI gpt-2 release, checkpoint '124M' (Radford et al. 2019)", "GPT-2 small"},
        {"gpt2-xl", "gpt", "layers=48,d_model=1600,heads=25,seq=1024,vocab=50257", 1558e6,
         "OpenAI gpt-2 release, checkpoint '1558M' (Radford et al. 2019)", "GPT-2 XL"},
        {"gpt3-175b", "gpt", "layers=96,d_model=12288,heads=96,seq=2048,vocab=50257", 175.0e9,
         "Brown et al. 2020, Language Models are Few-Shot Learners, Table 2.1", "GPT-3 175B"},
        // The calibration runs' models (resources/calibration/published_runs.json). Korthikanti et al.
        // trained with Megatron-LM's tied embedding; the Megatron-Core weak-scaling GPTs untie it (their
        // published sizes count the output layer: 7.13 B, 16.1 B, 69.8 B, 177.2 B; "1.7B" is the 1.754 B
        // model's name, truncated).
        {"korthikanti-22b", "gpt", "layers=48,d_model=6144,heads=64,seq=2048,vocab=51200", 22e9,
         "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models, Table 3 "
         "(22B)",
         "GPT 22B of Korthikanti et al. (Megatron-LM, A100)"},
        {"megatron-1.7b", "gpt", "layers=24,d_model=2048,heads=16,seq=4096,vocab=131072,tied=false", 1.7e9,
         "Megatron-LM README, weak-scaling model table on H100 (1.7B)",
         "Megatron-Core weak-scaling GPT 1.7B"},
        {"megatron-7.1b", "gpt", "layers=30,d_model=4096,heads=32,seq=4096,vocab=131072,tied=false", 7.1e9,
         "Megatron-LM README, weak-scaling model table on H100 (7.1B)",
         "Megatron-Core weak-scaling GPT 7.1B"},
        {"megatron-16b", "gpt", "layers=32,d_model=6144,heads=48,seq=4096,vocab=131072,tied=false", 16e9,
         "Megatron-LM README, weak-scaling model table on H100 (16B)", "Megatron-Core weak-scaling GPT 16B"},
        {"megatron-70b", "gpt", "layers=84,d_model=8192,heads=64,seq=4096,vocab=131072,tied=false", 70e9,
         "Megatron-LM README, weak-scaling model table on H100 (70B)", "Megatron-Core weak-scaling GPT 70B"},
        {"megatron-177b", "gpt", "layers=96,d_model=12288,heads=96,seq=4096,vocab=131072,tied=false", 177e9,
         "Megatron-LM README, weak-scaling model table on H100 (177B)",
         "Megatron-Core weak-scaling GPT 177B"},
        {"llama3-8b", "llama",
         "layers=32,d_model=4096,heads=32,kv_heads=8,d_ff=14336,vocab=128256,rope_theta=500000", 8.03e9,
         "Meta Llama 3 model card (meta-llama/Meta-Llama-3-8B: 8.03B parameters)", "Llama 3 8B"},
        {"llama3-70b", "llama",
         "layers=80,d_model=8192,heads=64,kv_heads=8,d_ff=28672,vocab=128256,rope_theta=500000", 70.6e9,
         "Meta Llama 3 model card (meta-llama/Meta-Llama-3-70B: 70.6B parameters)", "Llama 3 70B"},
        {"mixtral-8x7b", "moe",
         "layers=32,d_model=4096,heads=32,kv_heads=8,d_ff=14336,vocab=32000,experts=8,top_k=2,rope_theta="
         "1000000,seq=4096,batch=1",
         46.7e9, "Jiang et al. 2024, Mixtral of Experts (47B total; model card 46.7B)",
         "Mixtral 8x7B (8 experts, top-2)"},
        // Frontier models at their published sizes (issue 22).
        {"llama3.1-405b", "llama",
         "layers=126,d_model=16384,heads=128,kv_heads=8,d_ff=53248,vocab=128256,rope_theta=500000", 405.85e9,
         "Meta Llama 3.1 model card and config.json (meta-llama/Llama-3.1-405B: 405.85B parameters)",
         "Llama 3.1 405B"},
        {"mixtral-8x22b", "moe",
         "layers=56,d_model=6144,heads=48,kv_heads=8,d_ff=16384,vocab=32768,experts=8,top_k=2,rope_theta="
         "1000000,seq=4096,batch=1",
         140.6e9, "Mistral AI, Mixtral 8x22B model card (mistralai/Mixtral-8x22B-v0.1: 141B total, 140.6B)",
         "Mixtral 8x22B (8 experts, top-2)"},
        {"qwen3-235b-a22b", "moe",
         "layers=94,d_model=4096,heads=64,kv_heads=4,head_dim=128,d_ff=1536,vocab=151936,experts=128,top_k=8,"
         "rope_theta=1000000,seq=4096,batch=1",
         235e9, "Qwen3 technical report (Yang et al. 2025), Table 2 and config.json: 235B total, 22B active",
         "Qwen3-235B-A22B (128 experts, top-8)"},
        {"deepseek-v3", "moe",
         "layers=61,d_model=7168,heads=128,kv_heads=128,attention=mla,q_lora_rank=1536,kv_lora_rank=512,"
         "qk_nope_dim=128,qk_rope_dim=64,v_head_dim=128,d_ff=2048,experts=256,top_k=8,shared_experts=1,"
         "dense_layers=3,dense_d_ff=18432,vocab=129280,rope_theta=10000,seq=4096,batch=1",
         671e9,
         "DeepSeek-V3 technical report (DeepSeek-AI 2024), §2 and §4.2: 671B total parameters (without the "
         "multi-token prediction module), 37B active",
         "DeepSeek-V3 (MLA, 1 shared + 256 routed experts, top-8, 3 dense layers)"},
        {"vit-b16", "vit", "image=224,patch=16,layers=12,d_model=768,heads=12,d_ff=3072,classes=1000", 86.6e6,
         "Dosovitskiy et al. 2021 (ViT-Base, 86M); timm vit_base_patch16_224: 86.6M", "ViT-Base/16"},
        {"vit-l16", "vit", "image=224,patch=16,layers=24,d_model=1024,heads=16,d_ff=4096,classes=1000",
         304.3e6, "timm vit_large_patch16_224: 304.3M (Dosovitskiy et al. 2021, ViT-Large)", "ViT-Large/16"},
        {"unet", "unet", "image=256,channels=1,classes=2,base=64,depth=4", 31.03e6,
         "Ronneberger et al. 2015, U-Net (Fig. 1 architecture: 31.03M parameters)", "the original U-Net"},
    };
    return kPresets;
}

std::string ModelSpec::canonicalName() const {
    std::string out = family;
    char separator = ':';
    for (const auto& [key, value] : options) {
        out += separator + key + "=" + value;
        separator = ',';
    }
    return out;
}

Result<ModelSpec> parseModelSpec(std::string_view text) {
    const auto colon = text.find(':');
    const std::string name(text.substr(0, colon));
    const std::string_view overrides =
        colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
    ModelSpec spec;
    const Preset* preset = findPreset(name);
    const Family* family = findFamily(preset ? preset->family : name);
    if (!family)
        return makeError("zoo.unknown-model",
                         "unknown zoo model '" + name + "' (known: " + knownNames() + ")");
    spec.family = family->name;
    for (const auto& o : family->options)
        spec.options[o.key] = o.defaultValue;
    if (preset) {
        spec.preset = preset->name;
        auto applied = applyAssignments(preset->options, *family, name, spec.options);
        if (!applied)
            return Result<ModelSpec>::failure(applied.diagnostics());
    }
    auto applied = applyAssignments(overrides, *family, name, spec.options);
    if (!applied)
        return Result<ModelSpec>::failure(applied.diagnostics());
    return spec;
}

Result<ir::Graph> build(const ModelSpec& spec) {
    auto it = std::find_if(kBuilders.begin(), kBuilders.end(),
                           [&](const Builder& b) { return b.family == spec.family; });
    if (it == kBuilders.end())
        return makeError("zoo.unknown-model", "unknown zoo model family '" + spec.family + "'");
    Options options(spec.preset.empty() ? spec.family : spec.preset, spec.options);
    return it->build(options);
}

}  // namespace shardscope::zoo
