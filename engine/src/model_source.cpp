#include "shardscope/model_source.h"

#include "shardscope/ir/verifier.h"
#include "shardscope/zoo/zoo.h"

namespace shardscope {

Result<LoadedModel> loadModel(std::string_view source) {
    constexpr std::string_view zooPrefix = "zoo:";
    if (source.substr(0, zooPrefix.size()) != zooPrefix)
        return makeError("model.source", "cannot load '" + std::string(source) +
                                             "': expected zoo:NAME[:key=value,...] (see `shardscope-cli zoo` for names)");
    auto spec = zoo::parseModelSpec(source.substr(zooPrefix.size()));
    if (!spec) return Result<LoadedModel>::failure(spec.diagnostics());
    auto graph = zoo::build(*spec);
    if (!graph) return Result<LoadedModel>::failure(graph.diagnostics());
    LoadedModel model;
    model.source = std::string(source);
    model.displayName = spec->preset.empty() ? spec->family : spec->preset;
    model.description = "zoo:" + spec->canonicalName();
    model.graph = std::move(graph).value();
    return model;
}

}  // namespace shardscope
