// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/session/comparison.h"

#include <algorithm>

#include "shardscope/plan/plan_json.h"

namespace shardscope::session {

namespace {

// Same graph: the same ops in the same order over the same values. Two loads of one model agree; a forward
// graph and its training step, or two models, do not.
bool sameGraph(const ir::Graph& a, const ir::Graph& b) {
    if (a.values.size() != b.values.size() || a.body.size() != b.body.size() || a.ops.size() != b.ops.size())
        return false;
    for (std::size_t i = 0; i < a.body.size(); ++i) {
        const ir::Op& x = a.ops[a.body[i].index];
        const ir::Op& y = b.ops[b.body[i].index];
        if (x.kind != y.kind || x.operands != y.operands || x.results != y.results)
            return false;
    }
    for (std::size_t v = 0; v < a.values.size(); ++v)
        if (!(a.values[v].type == b.values[v].type))
            return false;
    return true;
}

// The evaluation and every value's sharding under `plan` (one Evaluator: sharding() reads its state).
void evaluate(const Problem& problem, const plan::Plan& plan, cost::Evaluation& evaluation,
              std::vector<plan::TensorSharding>& shardings) {
    cost::Evaluator evaluator(*problem.costModel);
    evaluation = evaluator.evaluate(plan);
    const auto& graph = problem.model.graph;
    const std::size_t values = std::min(graph.values.size(), problem.space.dimensionAtoms.size());
    shardings.assign(graph.values.size(), {});
    for (std::size_t v = 0; v < values; ++v)
        shardings[v] = evaluator.sharding(ir::ValueId(static_cast<std::uint32_t>(v)));
}

void match(const std::vector<std::string>& textA, const std::vector<std::string>& textB, bool remat,
           std::vector<DecisionMatch>& out) {
    std::vector<bool> usedB(textB.size(), false);
    for (std::size_t i = 0; i < textA.size(); ++i) {
        DecisionMatch row{textA[i], DecisionMatch::Side::OnlyA, static_cast<int>(i), -1, remat};
        for (std::size_t j = 0; j < textB.size(); ++j) {
            if (usedB[j] || textB[j] != textA[i])
                continue;
            usedB[j] = true;
            row.side = DecisionMatch::Side::Both;
            row.positionB = static_cast<int>(j);
            break;
        }
        out.push_back(row);
    }
    for (std::size_t j = 0; j < textB.size(); ++j)
        if (!usedB[j])
            out.push_back({textB[j], DecisionMatch::Side::OnlyB, -1, static_cast<int>(j), remat});
}

std::vector<std::string> decisionTexts(const Problem& problem, const plan::Plan& plan) {
    std::vector<std::string> texts;
    for (const auto& d : plan.decisions)
        texts.push_back(plan::decisionText(d, problem.costModel->planContext(), problem.mesh));
    return texts;
}

std::vector<std::string> rematTexts(const plan::Plan& plan) {
    std::vector<std::string> texts;
    for (const auto& r : plan.remat)
        texts.push_back("remat " + plan::rematText(r));
    return texts;
}

}  // namespace

int Comparison::onlyA() const {
    return static_cast<int>(std::count_if(decisions.begin(), decisions.end(), [](const auto& d) {
        return d.side == DecisionMatch::Side::OnlyA;
    }));
}

int Comparison::onlyB() const {
    return static_cast<int>(std::count_if(decisions.begin(), decisions.end(), [](const auto& d) {
        return d.side == DecisionMatch::Side::OnlyB;
    }));
}

Comparison comparePlans(const Problem& a, const plan::Plan& planA, const Problem& b,
                        const plan::Plan& planB) {
    Comparison out;
    evaluate(a, planA, out.evaluationA, out.shardingsA);
    if (&a == &b && planA == planB) {
        out.evaluationB = out.evaluationA;
        out.shardingsB = out.shardingsA;
    } else {
        evaluate(b, planB, out.evaluationB, out.shardingsB);
    }
    match(decisionTexts(a, planA), decisionTexts(b, planB), false, out.decisions);
    match(rematTexts(planA), rematTexts(planB), true, out.decisions);

    constexpr int kKinds = static_cast<int>(cost::CollectiveKind::CollectivePermute) + 1;
    std::array<CollectiveKindTotals, kKinds> kinds{};
    for (int k = 0; k < kKinds; ++k)
        kinds[static_cast<std::size_t>(k)].kind = static_cast<cost::CollectiveKind>(k);
    for (std::size_t side = 0; side < 2; ++side)
        for (const auto& c : (side == 0 ? out.evaluationA : out.evaluationB).collectives) {
            auto& row = kinds[static_cast<std::size_t>(c.kind)];
            ++row.count[side];
            row.bytes[side] += c.bytes;
            row.time[side] += c.time;
        }
    for (const auto& row : kinds)
        if (row.count[0] + row.count[1] > 0)
            out.collectives.push_back(row);

    out.meshesDiffer = !(a.mesh == b.mesh);
    out.hardwareDiffers = a.hardware.id != b.hardware.id;
    const ir::Graph& graph = a.model.graph;
    out.graphsDiffer = !sameGraph(graph, b.model.graph);
    if (out.graphsDiffer) {
        out.shardingsA.clear();
        out.shardingsB.clear();
        return out;
    }
    std::vector<char> differs(graph.values.size(), 0);
    for (std::size_t v = 0; v < graph.values.size(); ++v) {
        const auto& x = out.shardingsA[v];
        const auto& y = out.shardingsB[v];
        differs[v] = out.meshesDiffer ? x.toString(a.mesh) != y.toString(b.mesh) : !(x == y);
    }
    for (std::size_t i = 0; i < graph.body.size(); ++i) {
        const ir::Op& op = graph.ops[graph.body[i].index];
        OpDifference row;
        row.bodyIndex = i;
        for (const auto* list : {&op.operands, &op.results})
            for (ir::ValueId v : *list)
                if (differs[v.index] &&
                    std::find(row.values.begin(), row.values.end(), v) == row.values.end())
                    row.values.push_back(v);
        if (!row.values.empty())
            out.ops.push_back(std::move(row));
    }
    return out;
}

}  // namespace shardscope::session
