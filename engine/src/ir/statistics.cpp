// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/ir/statistics.h"

#include <limits>
#include <set>

namespace shardscope::ir {

double flopsOf(const Graph& graph, const Op& op) {
    auto resultElements = [&] {
        double n = 0;
        for (auto v : op.results)
            n += static_cast<double>(graph.type(v).elements());
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
            for (auto dim : d.lhsContracting)
                contracted *= static_cast<double>(lhs.shape[dim]);
            return 2.0 * resultElements() * contracted;
        }
        case OpKind::Convolution: {
            const auto& c = std::get<ConvolutionAttributes>(op.attributes);
            const auto& kernel = graph.type(op.operands[1]);
            double window = 1;
            for (auto dim : c.kernelSpatial)
                window *= static_cast<double>(kernel.shape[dim]);
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
            for (auto d : w.windowDimensions)
                window *= static_cast<double>(d);
            return resultElements() * window;
        }
        default:
            return 0.0;
    }
}

namespace {

// total += n, saturating at INT64_MAX: a verified graph's tensors are bounded (kMaxTensorElements), but a sum
// over many of them is not.
void addTo(std::int64_t& total, std::int64_t n) {
    if (__builtin_add_overflow(total, n, &total))
        total = std::numeric_limits<std::int64_t>::max();
}

}  // namespace

GraphStatistics computeStatistics(const Graph& graph) {
    GraphStatistics s;
    for (const auto& a : graph.arguments) {
        const auto& t = graph.type(a.value);
        switch (a.role) {
            case ArgumentRole::Parameter:
                addTo(s.parameterCount, t.elements());
                addTo(s.parameterBytes, t.bytes());
                break;
            case ArgumentRole::OptimizerState:
                addTo(s.optimizerStateBytes, t.bytes());
                break;
            case ArgumentRole::Input:
                addTo(s.inputBytes, t.bytes());
                break;
            default:
                break;
        }
    }
    for (const auto& o : graph.outputs)
        addTo(s.outputBytes, graph.type(o.value).bytes());
    for (OpId id : graph.body)
        for (auto v : graph.op(id).results)
            addTo(s.activationBytes, graph.type(v).bytes());

    // Counts every op once (a static count) and returns the FLOPs and bytes of one execution of `list`.
    // A while's condition runs trip count + 1 times and its body trip count times; case and if run one
    // branch, counted as the most expensive. Reduce-like bodies are scalar combiners whose work flopsOf
    // already counts.
    struct Work {
        double flops = 0, bytes = 0;
    };
    auto visit = [&](auto&& self, const std::vector<OpId>& list) -> Work {
        Work work;
        for (OpId id : list) {
            const Op& op = graph.op(id);
            ++s.opCount;
            ++s.opsByKind[(op.kind == OpKind::Opaque || op.kind == OpKind::OtherElementwise) &&
                                  std::holds_alternative<OpaqueAttributes>(op.attributes)
                              ? std::get<OpaqueAttributes>(op.attributes).name
                              : std::string(mnemonic(op.kind))];
            work.flops += flopsOf(graph, op);
            if (category(op.kind) == OpCategory::Control) {
                std::vector<Work> regions;
                for (const auto& region : op.regions)
                    regions.push_back(self(self, region.ops));
                if (op.kind == OpKind::While && regions.size() == 2) {
                    const auto* loop = std::get_if<LoopAttributes>(&op.attributes);
                    const double trips = loop ? static_cast<double>(loop->tripCount) : 1.0;
                    work.flops += (trips + 1) * regions[0].flops + trips * regions[1].flops;
                    work.bytes += (trips + 1) * regions[0].bytes + trips * regions[1].bytes;
                } else {
                    Work branch;
                    for (const auto& r : regions)
                        if (r.flops > branch.flops || (r.flops == branch.flops && r.bytes > branch.bytes))
                            branch = r;
                    work.flops += branch.flops;
                    work.bytes += branch.bytes;
                }
                continue;
            }
            for (auto v : op.operands)
                work.bytes += static_cast<double>(graph.type(v).bytes());
            for (auto v : op.results)
                work.bytes += static_cast<double>(graph.type(v).bytes());
            for (const auto& region : op.regions)
                self(self, region.ops);  // counted, not executed separately
        }
        return work;
    };
    const Work total = visit(visit, graph.body);
    s.flops = total.flops;
    s.bytesAccessed = total.bytes;
    return s;
}

}  // namespace shardscope::ir
