#include "shardscope/ir/statistics.h"

#include <set>

namespace shardscope::ir {

double flopsOf(const Graph& graph, const Op& op) {
    auto resultElements = [&] {
        double n = 0;
        for (auto v : op.results) n += static_cast<double>(graph.type(v).elements());
        return n;
    };
    if (isElementwise(op.kind)) {
        // Conversions move data; everything else does arithmetic per element.
        return op.kind == OpKind::Convert ? 0.0 : resultElements();
    }
    switch (op.kind) {
        case OpKind::DotGeneral: {
            const auto& d = std::get<DotDimensions>(op.attributes);
            double contracted = 1;
            const auto& lhs = graph.type(op.operands[0]);
            for (auto dim : d.lhsContracting) contracted *= static_cast<double>(lhs.shape[dim]);
            return 2.0 * resultElements() * contracted;
        }
        case OpKind::Convolution: {
            const auto& c = std::get<ConvolutionAttributes>(op.attributes);
            const auto& kernel = graph.type(op.operands[1]);
            double window = 1;
            for (auto dim : c.kernelSpatial) window *= static_cast<double>(kernel.shape[dim]);
            const double inputFeaturesPerGroup = static_cast<double>(kernel.shape[c.kernelInputFeature]);
            return 2.0 * resultElements() * inputFeaturesPerGroup * window;
        }
        case OpKind::Reduce: {
            double n = 0;
            for (std::size_t i = 0; i < op.operands.size() / 2; ++i)
                n += static_cast<double>(graph.type(op.operands[i]).elements());
            return n;
        }
        case OpKind::ReduceWindow:
        case OpKind::SelectAndScatter: {
            const auto& w = std::get<WindowAttributes>(op.attributes);
            double window = 1;
            for (auto d : w.windowDimensions) window *= static_cast<double>(d);
            return resultElements() * window;
        }
        default: return 0.0;
    }
}

GraphStatistics computeStatistics(const Graph& graph) {
    GraphStatistics s;
    for (const auto& a : graph.arguments) {
        const auto& t = graph.type(a.value);
        switch (a.role) {
            case ArgumentRole::Parameter:
                s.parameterCount += t.elements();
                s.parameterBytes += t.bytes();
                break;
            case ArgumentRole::OptimizerState: s.optimizerStateBytes += t.bytes(); break;
            case ArgumentRole::Input: s.inputBytes += t.bytes(); break;
            default: break;
        }
    }
    for (const auto& o : graph.outputs) s.outputBytes += graph.type(o.value).bytes();
    for (OpId id : graph.body)
        for (auto v : graph.op(id).results) s.activationBytes += graph.type(v).bytes();

    auto visit = [&](auto&& self, const std::vector<OpId>& list, double times) -> void {
        for (OpId id : list) {
            const Op& op = graph.op(id);
            ++s.opCount;
            ++s.opsByKind[op.kind == OpKind::Opaque && std::holds_alternative<OpaqueAttributes>(op.attributes)
                              ? std::get<OpaqueAttributes>(op.attributes).name
                              : std::string(mnemonic(op.kind))];
            s.flops += times * flopsOf(graph, op);
            double bytes = 0;
            for (auto v : op.operands) bytes += static_cast<double>(graph.type(v).bytes());
            for (auto v : op.results) bytes += static_cast<double>(graph.type(v).bytes());
            // Region bodies of reduce-like ops are scalar combiners whose work flopsOf already counts.
            const bool runsRegions = category(op.kind) == OpCategory::Control;
            if (runsRegions || op.regions.empty()) s.bytesAccessed += times * bytes;
            double inner = times;
            if (op.kind == OpKind::While)
                if (const auto* loop = std::get_if<LoopAttributes>(&op.attributes))
                    inner = times * static_cast<double>(loop->tripCount);
            for (const auto& region : op.regions) {
                if (runsRegions) {
                    self(self, region.ops, inner);
                } else {
                    for (OpId nested : region.ops) {
                        ++s.opCount;
                        ++s.opsByKind[std::string(mnemonic(graph.op(nested).kind))];
                    }
                }
            }
        }
    };
    visit(visit, graph.body, 1.0);
    return s;
}

}  // namespace shardscope::ir
