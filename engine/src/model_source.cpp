#include "shardscope/model_source.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "shardscope/import/format.h"
#include "shardscope/import/onnx.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/zoo/zoo.h"

namespace shardscope {
namespace {

Result<LoadedModel> loadZoo(std::string_view source) {
    auto spec = zoo::parseModelSpec(source.substr(4));
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

}  // namespace

Result<LoadedModel> loadModelBytes(std::string_view bytes, const std::string& path, const import::ImportOptions& options) {
    if (bytes.empty()) return makeError("model.empty", path + ": the file is empty");
    const auto format = import::detectFormat(bytes);
    Result<ir::Graph> graph = makeError("model.format", "");
    std::string formatName;
    switch (format) {
        case import::ModelFormat::StableHlo:
            graph = import::importStableHlo(bytes, path, options);
            formatName = "StableHLO";
            break;
        case import::ModelFormat::Onnx:
            graph = import::importOnnx(bytes, path, options);
            formatName = "ONNX";
            break;
        case import::ModelFormat::Empty:
            return makeError("model.empty", path + ": the file holds no model, only blanks and comments");
        case import::ModelFormat::Unknown:
            return makeError("model.format", path + ": neither StableHLO text nor an ONNX model (expected `module`/"
                                                    "`func.func` text or an ONNX protobuf)");
    }
    if (!graph) return Result<LoadedModel>::failure(graph.diagnostics());
    LoadedModel model;
    model.source = path;
    const auto slash = path.find_last_of('/');
    model.displayName = slash == std::string::npos ? path : path.substr(slash + 1);
    model.description = formatName + " file, " + std::to_string(bytes.size()) + " bytes";
    model.graph = std::move(graph).value();
    Result<LoadedModel> result(std::move(model));
    result.addDiagnostics(graph.diagnostics());
    return result;
}

namespace {

Result<LoadedModel> loadFile(const std::string& path, const import::ImportOptions& options) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return makeError("model.open", "cannot open '" + path + "': " + std::strerror(errno));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return loadModelBytes(buffer.str(), path, options);
}

}  // namespace

Result<LoadedModel> loadModel(std::string_view source, const import::ImportOptions& options) {
    if (source.substr(0, 4) == "zoo:") return loadZoo(source);
    if (source.empty()) return makeError("model.source", "no model given: expected zoo:NAME or a file path");
    return loadFile(std::string(source), options);
}

}  // namespace shardscope
