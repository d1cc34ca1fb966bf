// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/session/model_source.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "shardscope/analysis/resize.h"
#include "shardscope/import/format.h"
#include "shardscope/import/onnx.h"
#include "shardscope/import/stablehlo.h"
#include "shardscope/input_file.h"
#include "shardscope/ir/unroll.h"
#include "shardscope/zoo/zoo.h"

namespace shardscope {
namespace {

// The form planning works on: counted loops unrolled (ir/unroll.h); loops that stay are said in warnings.
Result<LoadedModel> planningForm(LoadedModel model, std::vector<Diagnostic> diagnostics) {
    auto loops = ir::unrollLoops(model.graph);
    if (loops.unrolled > 0)
        model.description +=
            ", " + std::to_string(loops.unrolled) + (loops.unrolled == 1 ? " loop" : " loops") + " unrolled";
    diagnostics.insert(diagnostics.end(), loops.warnings.begin(), loops.warnings.end());
    Result<LoadedModel> result(std::move(model));
    result.addDiagnostics(diagnostics);
    return result;
}

// The model at the global sizes the user set (analysis/resize.h); a note says what changed.
Result<LoadedModel> atGlobalSizes(Result<LoadedModel> loaded, const import::ImportOptions& options) {
    if (!loaded || options.sizes.empty())
        return loaded;
    auto resized = analysis::resize(loaded->graph, options.sizes);
    std::vector<Diagnostic> diagnostics = loaded.diagnostics();
    diagnostics.insert(diagnostics.end(), resized.diagnostics().begin(), resized.diagnostics().end());
    if (!resized)
        return Result<LoadedModel>::failure(std::move(diagnostics));
    LoadedModel model = std::move(loaded).value();
    std::string changes;
    for (const auto& c : resized->summary.changes)
        changes += (changes.empty() ? "" : ", ") + c.key + " " + std::to_string(c.from) + " -> " +
                   std::to_string(c.to);
    model.description += ", resized: " + changes;
    model.graph = std::move(resized->graph);
    diagnostics.push_back(Diagnostic{
        Severity::Note, "model.resized", {}, "resized to the sizes set: " + resized->summary.toString()});
    Result<LoadedModel> result(std::move(model));
    result.addDiagnostics(diagnostics);
    return result;
}

// A model whose shapes are all static has no symbolic dimension a `--dim` could set.
Status noSymbolicDimensions(const import::ImportOptions& options, const std::string& what) {
    if (options.dimensions.empty())
        return Success{};
    const auto& [name, value] = *options.dimensions.begin();
    return makeError("model.dimension",
                     "dimension '" + name + "': " + what +
                         " has no symbolic dimensions (its shapes are static); to plan it at "
                         "another size, set a global size (--set batch=N,seq=N)");
}

Result<LoadedModel> loadZoo(std::string_view source) {
    auto spec = zoo::parseModelSpec(source.substr(4));
    if (!spec)
        return Result<LoadedModel>::failure(spec.diagnostics());
    auto graph = zoo::build(*spec);
    if (!graph)
        return Result<LoadedModel>::failure(graph.diagnostics());
    LoadedModel model;
    model.source = std::string(source);
    model.displayName = spec->preset.empty() ? spec->family : spec->preset;
    model.description = "zoo:" + spec->canonicalName();
    model.graph = std::move(graph).value();
    return planningForm(std::move(model), {});
}

Result<LoadedModel> loadBytes(std::string_view bytes, const std::string& path,
                              const import::ImportOptions& options) {
    if (bytes.empty())
        return makeError("model.empty", path + ": the file is empty");
    const auto format = import::detectFormat(bytes);
    Result<ir::Graph> graph = makeError("model.format", "");
    std::string formatName;
    switch (format) {
        case import::ModelFormat::StableHlo:
            if (auto none = noSymbolicDimensions(options, "a StableHLO model"); !none)
                return Result<LoadedModel>::failure(none.diagnostics());
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
            return makeError("model.format",
                             path +
                                 ": neither StableHLO text nor an ONNX model (expected `module`/"
                                 "`func.func` text or an ONNX protobuf)");
    }
    if (!graph)
        return Result<LoadedModel>::failure(graph.diagnostics());
    LoadedModel model;
    model.source = path;
    const auto slash = path.find_last_of('/');
    model.displayName = slash == std::string::npos ? path : path.substr(slash + 1);
    model.description = formatName + " file, " + std::to_string(bytes.size()) + " bytes";
    const std::vector<Diagnostic> warnings = graph.diagnostics();
    model.graph = std::move(graph).value();
    return planningForm(std::move(model), warnings);
}

}  // namespace

Result<LoadedModel> loadModelBytes(std::string_view bytes, const std::string& path,
                                   const import::ImportOptions& options) {
    return outOfMemoryAsError<LoadedModel>(
        "loading '" + path + "'", [&] { return atGlobalSizes(loadBytes(bytes, path, options), options); });
}

namespace {

Result<LoadedModel> loadFile(const std::string& path, const import::ImportOptions& options) {
    auto bytes = readModelFile(path);
    if (!bytes)
        return Result<LoadedModel>::failure(bytes.diagnostics());
    return loadModelBytes(*bytes, path, options);
}

}  // namespace

Result<LoadedModel> loadModel(std::string_view source, const import::ImportOptions& options) {
    if (source.empty())
        return makeError("model.source", "no model given: expected zoo:NAME or a file path");
    return outOfMemoryAsError<LoadedModel>("loading '" + std::string(source) + "'", [&] {
        if (source.substr(0, 4) != "zoo:")
            return loadFile(std::string(source), options);
        if (auto none = noSymbolicDimensions(options, "a zoo model"); !none)
            return Result<LoadedModel>::failure(none.diagnostics());
        return atGlobalSizes(loadZoo(source), options);
    });
}

}  // namespace shardscope
