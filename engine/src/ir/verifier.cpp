// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/ir/verifier.h"

#include <set>
#include <string>

#include "shardscope/ir/shape_inference.h"

namespace shardscope::ir {
namespace {

class Verifier {
public:
    explicit Verifier(const Graph& graph) : graph_(graph), defined_(graph.values.size(), false) {}

    std::vector<Diagnostic> run() {
        checkValueTypes();
        checkArguments();
        visible_.emplace_back();
        for (const auto& a : graph_.arguments)
            if (inRange(a.value))
                define(a.value);
        visitOps(graph_.body);
        checkOutputs();
        return std::move(diagnostics_);
    }

private:
    bool inRange(ValueId v) const { return v.valid() && v.index < graph_.values.size(); }
    static std::string valueName(ValueId v) { return "%" + std::to_string(v.index); }
    static std::string opName(const Op& op) { return "'stablehlo." + std::string(mnemonic(op.kind)) + "'"; }

    void error(std::string code, std::string message, SourceLocation location = {}) {
        diagnostics_.push_back(makeError(std::move(code), std::move(message), std::move(location)));
    }

    void define(ValueId v) {
        visible_.back().insert(v.index);
        defined_[v.index] = true;
    }
    bool isVisible(ValueId v) const {
        for (const auto& scope : visible_)
            if (scope.count(v.index))
                return true;
        return false;
    }

    void checkValueTypes() {
        bool tooLarge = false;
        for (std::size_t i = 0; i < graph_.values.size(); ++i) {
            const auto& type = graph_.values[i].type;
            bool negative = false;
            for (auto d : type.shape)
                if (d < 0) {
                    error("ir.negative-dimension",
                          "value %" + std::to_string(i) + " has a negative dimension in " + type.toString());
                    negative = true;
                    break;
                }
            // The first tensor past the limit: those computed from it are too, and say nothing more.
            if (!negative && !tooLarge && type.elements() > kMaxTensorElements) {
                tooLarge = true;
                tensorTooLarge(ValueId{static_cast<std::uint32_t>(i)});
            }
        }
    }

    // "'stablehlo.dot_general' result #0 (its location) tensor<...> has more elements than ...", or the
    // argument's name.
    void tensorTooLarge(ValueId v) {
        const Value& value = graph_.value(v);
        std::string what = valueName(v);
        SourceLocation location;
        if (value.producer.valid() && value.producer.index < graph_.ops.size()) {
            const Op& op = graph_.op(value.producer);
            what = opName(op) + " result #" + std::to_string(value.resultIndex);
            location = op.location;
        } else {
            for (std::size_t a = 0; a < graph_.arguments.size(); ++a)
                if (graph_.arguments[a].value == v) {
                    const auto& argument = graph_.arguments[a];
                    what = "argument #" + std::to_string(a) +
                           (argument.name.empty() ? "" : " '" + argument.name + "'");
                    location = argument.location;
                }
        }
        error("ir.tensor-too-large",
              what + " " + value.type.toString() +
                  " has more elements than a tensor may have (at most 2^50 = " +
                  std::to_string(kMaxTensorElements) + "): its size overflows or is absurd",
              std::move(location));
    }

    void checkArguments() {
        std::set<std::string> names;
        std::set<std::uint32_t> seen;
        for (std::size_t i = 0; i < graph_.arguments.size(); ++i) {
            const auto& a = graph_.arguments[i];
            const std::string label =
                "argument #" + std::to_string(i) + (a.name.empty() ? "" : " '" + a.name + "'");
            if (!inRange(a.value)) {
                error("ir.argument-undefined", label + " refers to a value that does not exist", a.location);
                continue;
            }
            if (graph_.value(a.value).producer.valid())
                error("ir.argument-produced", label + " is also the result of an op", a.location);
            if (!seen.insert(a.value.index).second)
                error("ir.argument-duplicate", label + " reuses the value of another argument", a.location);
            if (!a.dimensionLabels.empty() &&
                a.dimensionLabels.size() != static_cast<std::size_t>(graph_.type(a.value).rank()))
                error("ir.argument-labels",
                      label + " has " + std::to_string(a.dimensionLabels.size()) +
                          " dimension labels for a rank-" + std::to_string(graph_.type(a.value).rank()) +
                          " tensor",
                      a.location);
            if (a.role == ArgumentRole::Parameter || a.role == ArgumentRole::OptimizerState) {
                if (a.name.empty())
                    error("ir.parameter-unnamed",
                          label + " is a " + std::string(toString(a.role)) + " without a name", a.location);
                else if (!names.insert(a.name).second)
                    error("ir.parameter-name-duplicate", "two parameters are named '" + a.name + "'",
                          a.location);
            }
        }
    }

    void visitOps(const std::vector<OpId>& list) {
        for (OpId id : list) {
            if (!id.valid() || id.index >= graph_.ops.size()) {
                error("ir.op-undefined",
                      "the program lists op #" + std::to_string(id.index) + " which does not exist");
                continue;
            }
            if (!visitedOps_.insert(id.index).second) {
                error("ir.op-repeated",
                      "op #" + std::to_string(id.index) + " " + opName(graph_.op(id)) +
                          " appears twice in the program",
                      graph_.op(id).location);
                continue;
            }
            visitOp(id, graph_.op(id));
        }
    }

    void visitOp(OpId id, const Op& op) {
        const std::string name = opName(op);
        bool operandsOk = true;
        for (std::size_t i = 0; i < op.operands.size(); ++i) {
            ValueId v = op.operands[i];
            if (!inRange(v)) {
                error("ir.operand-undefined",
                      name + " operand #" + std::to_string(i) + " (" + valueName(v) + ") does not exist",
                      op.location);
                operandsOk = false;
            } else if (!isVisible(v)) {
                error("ir.operand-before-definition",
                      name + " operand #" + std::to_string(i) + " (" + valueName(v) +
                          ") is used before it is defined" + (defined_[v.index] ? " in this scope" : ""),
                      op.location);
                operandsOk = false;
            }
        }
        for (const auto& region : op.regions) {
            visible_.emplace_back();
            for (auto v : region.arguments) {
                if (!inRange(v)) {
                    error("ir.region-argument-undefined", name + " has a region argument that does not exist",
                          op.location);
                    continue;
                }
                checkSingleDefinition(v, op);
                define(v);
            }
            visitOps(region.ops);
            for (auto v : region.results)
                if (!inRange(v) || !isVisible(v))
                    error(
                        "ir.region-result-undefined",
                        name + " region returns " + valueName(v) + " which is not defined in it or above it",
                        op.location);
            visible_.pop_back();
        }
        for (std::size_t i = 0; i < op.results.size(); ++i) {
            ValueId v = op.results[i];
            if (!inRange(v)) {
                error("ir.result-undefined", name + " result #" + std::to_string(i) + " does not exist",
                      op.location);
                operandsOk = false;
                continue;
            }
            const auto& value = graph_.value(v);
            if (value.producer != id || value.resultIndex != i)
                error("ir.result-producer",
                      name + " result #" + std::to_string(i) + " (" + valueName(v) +
                          " ) does not record this op as its producer",
                      op.location);
            checkSingleDefinition(v, op);
            define(v);
        }
        if (!operandsOk)
            return;
        std::vector<TensorType> declared;
        for (auto v : op.results)
            declared.push_back(graph_.type(v));
        auto inferred = inferResultTypes(graph_, op, declared);
        if (!inferred) {
            diagnostics_.insert(diagnostics_.end(), inferred.diagnostics().begin(),
                                inferred.diagnostics().end());
            return;
        }
        if (inferred->size() != declared.size()) {
            error("ir.result-count",
                  name + " has " + std::to_string(declared.size()) + " result(s) but produces " +
                      std::to_string(inferred->size()),
                  op.location);
            return;
        }
        for (std::size_t i = 0; i < declared.size(); ++i)
            if ((*inferred)[i] != declared[i])
                error("ir.result-type",
                      name + " result #" + std::to_string(i) + " is declared " + declared[i].toString() +
                          " but the operands give " + (*inferred)[i].toString(),
                      op.location);
    }

    void checkSingleDefinition(ValueId v, const Op& op) {
        if (defined_[v.index])
            error("ir.value-redefined",
                  valueName(v) + " is defined more than once (again by " + opName(op) + ")", op.location);
    }

    void checkOutputs() {
        std::set<std::size_t> donated;
        for (std::size_t i = 0; i < graph_.outputs.size(); ++i) {
            const auto& out = graph_.outputs[i];
            const std::string label =
                "output #" + std::to_string(i) + (out.name.empty() ? "" : " '" + out.name + "'");
            if (!inRange(out.value) || !isVisible(out.value)) {
                error("ir.output-undefined",
                      label + " returns " + valueName(out.value) + " which is not defined");
                continue;
            }
            if (!out.aliasedArgument)
                continue;
            std::size_t a = *out.aliasedArgument;
            if (a >= graph_.arguments.size()) {
                error("ir.alias-out-of-range", label + " aliases argument #" + std::to_string(a) +
                                                   " but there are only " +
                                                   std::to_string(graph_.arguments.size()));
                continue;
            }
            const auto& arg = graph_.arguments[a];
            if (inRange(arg.value) && graph_.type(arg.value) != graph_.type(out.value))
                error("ir.alias-type", label + " of type " + graph_.type(out.value).toString() +
                                           " aliases argument '" + arg.name + "' of type " +
                                           graph_.type(arg.value).toString());
            if (!donated.insert(a).second)
                error("ir.alias-duplicate", "argument '" + arg.name + "' (#" + std::to_string(a) +
                                                ") is donated to more than one output");
        }
    }

    const Graph& graph_;
    std::vector<bool> defined_;
    std::vector<std::set<std::uint32_t>> visible_;
    std::set<std::uint32_t> visitedOps_;
    std::vector<Diagnostic> diagnostics_;
};

}  // namespace

std::vector<Diagnostic> verify(const Graph& graph) {
    return Verifier(graph).run();
}

Status verifyGraph(const Graph& graph) {
    auto diagnostics = verify(graph);
    for (const auto& d : diagnostics)
        if (d.severity == Severity::Error)
            return Status::failure(std::move(diagnostics));
    Status ok{Success{}};
    ok.addDiagnostics(diagnostics);
    return ok;
}

}  // namespace shardscope::ir
