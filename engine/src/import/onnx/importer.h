// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The ONNX importer's state: what every ONNX value name stands for while the nodes are mapped onto the IR.
//
// Every value is a Slot. A slot is one of: an IR value already emitted (op result or function argument); a
// parameter not yet materialized (initializers, weight-like graph inputs, ConstantOfShape weight
// placeholders: they become Parameter arguments named by their ONNX name when an op first consumes them); or
// a constant whose values are known at import time (Constant nodes, small integer initializers, folded shape
// computations), which becomes a Constant op only if a real tensor computation consumes it.
//
// The importer is split by stage: onnx_importer.cpp (entry point, symbolic dimensions, graph inputs and
// initializers, the node loop, outputs), onnx/tensor_proto.cpp (decoding TensorProtos), onnx/operators.cpp
// (dispatch, opaque ops, elementwise ops and activations), onnx/nn_ops.cpp (matmul, convolution, pooling,
// norms, reductions), onnx/shape_ops.cpp (data movement and the folded shape computations) and
// onnx/const_tensor.cpp (the constant arithmetic behind folding).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

#include "import/onnx/const_tensor.h"
#include "shardscope/diagnostic.h"
#include "shardscope/import/options.h"
#include "shardscope/ir/builder.h"

namespace shardscope::import::onnx_import {

using ir::ValueId;

struct Slot {
    ir::TensorType type;
    ValueId value;                                // the IR value, once emitted
    std::shared_ptr<const ConstTensor> constant;  // values known at import time
    const ::onnx::TensorProto* tensor = nullptr;  // where to decode the values from, when not yet decoded
    bool parameter = false;                       // materializes as a Parameter argument named `name`
    std::string name;                             // the ONNX name that defined it
    std::string origin;                           // label for the Constant op that materializes it
};

class Importer {
public:
    Importer(::onnx::ModelProto& model, std::string fileName, const ImportOptions& options);
    Result<ir::Graph> run();

private:
    // --- set-up and the node loop (onnx_importer.cpp)
    bool checkModel();
    bool resolveSymbolicDimensions();
    bool checkGraphStructure();
    // Runs ONNX shape inference once, when an opaque op first needs declared result types.
    void runShapeInference();
    bool declareInitializers();
    bool declareGraphInputs();
    bool importNode();
    bool declareOutputs();
    void reportUnsupported();

    // --- diagnostics, attributes, inputs and outputs of the current node (onnx_importer.cpp)
    SourceLocation here() const;
    bool error(std::string code, const std::string& message);
    const ::onnx::AttributeProto* attribute(std::string_view name) const;
    std::int64_t attrInt(std::string_view name, std::int64_t fallback) const;
    float attrFloat(std::string_view name, float fallback) const;
    std::string attrString(std::string_view name, const std::string& fallback) const;
    // nullopt when absent; an error (and nullopt) when present but not a list of ints.
    std::optional<std::vector<std::int64_t>> attrInts(std::string_view name, bool& ok);

    int inputCount() const { return node_->input_size(); }
    int outputCount() const { return node_->output_size(); }
    bool hasInput(int i) const { return i < node_->input_size() && !node_->input(i).empty(); }
    bool hasOutput(int i) const { return i < node_->output_size() && !node_->output(i).empty(); }
    // The slot of input i; records an error when the input is missing or undefined.
    std::optional<std::size_t> input(int i);
    const ir::TensorType& slotType(std::size_t s) const { return slots_[s].type; }
    // The known values of a slot (nullptr for parameters, IR values and constants too large to decode).
    const ConstTensor* constant(std::size_t s);
    // Known integer values of input i, which must be a constant ("the shape of Reshape").
    std::optional<std::vector<std::int64_t>> constantInts(int i, std::string_view what);
    // The IR value of a slot, materializing parameters and constants on first use.
    ValueId value(std::size_t s);
    // The slot as an IR value of `element` broadcast (numpy rules) to `shape`. Constants are emitted in that
    // element type; IR values are taken as they are (the builder rejects mismatches).
    ValueId operand(std::size_t s, ir::ElementType element, const ir::Shape& shape);
    ValueId materializeConstant(std::size_t s, ir::ElementType element);

    bool define(int output, ValueId value);
    bool defineConstant(int output, ConstTensor tensor);
    bool alias(int output, std::size_t s);
    std::size_t newSlot(Slot slot, const std::string& name);

    // --- IR helpers (operators.cpp)
    ir::TensorType typeOf(ValueId v) const;  // by value: the builder's value table may grow
    ValueId splat(double value, ir::ElementType element, const ir::Shape& shape);
    ValueId broadcast(ValueId v, const ir::Shape& shape);
    ValueId keepDims(ValueId reduced, const ir::Shape& inputShape, const std::vector<std::int64_t>& axes);
    std::optional<std::int64_t> normalizeAxis(std::int64_t axis, int rank, std::string_view what);
    std::optional<std::vector<std::int64_t>> normalizeAxes(const std::vector<std::int64_t>& axes, int rank,
                                                           std::string_view what);

    // --- dispatch, opaque ops, elementwise ops (operators.cpp)
    bool dispatch();
    bool importOpaque(const std::string& reason = {});
    bool importUnary(ir::OpKind kind, std::optional<FoldUnary> fold, std::string_view otherName = {});
    bool importBinary(ir::OpKind kind, std::optional<FoldBinary> fold);
    bool importCompare(ir::CompareDirection direction, FoldBinary fold);
    bool importVariadic(ir::OpKind kind, FoldBinary fold, bool mean);
    bool importActivation(std::string_view op);
    bool importClip();
    bool importWhere();
    bool importCast();

    // --- linear algebra, convolution, pooling, norms, reductions (nn_ops.cpp)
    bool importMatMul();
    bool importGemm();
    bool importConv();
    bool importConvTranspose();
    bool importPool(ir::Reducer reducer, bool global);
    bool importBatchNorm();
    bool importLayerNorm();
    bool importInstanceNorm();
    bool importLrn();
    bool importSoftmax(bool logarithm);
    bool importReduce(std::string_view op);
    bool importEinsum();
    bool importCumSum();

    // --- data movement and folded shape computations (shape_ops.cpp)
    bool importConstant();
    bool importConstantOfShape();
    bool importShape();
    bool importSize();
    bool importIdentity();
    bool importDropout();
    bool importReshape();
    bool importFlatten();
    bool importSqueeze(bool unsqueeze);
    bool importTranspose();
    bool importSlice();
    bool importConcat();
    bool importSplit();
    bool importGather();
    bool importExpand();
    bool importTile();
    bool importRange();
    bool importPad();
    bool importResize();
    bool importScatterNd();
    ValueId reshapeTo(ValueId v, const ir::Shape& shape);

    ::onnx::ModelProto& model_;
    std::string fileName_;
    const ImportOptions& options_;
    ir::GraphBuilder b_;
    std::int64_t opset_ = 0;

    std::vector<Slot> slots_;
    std::unordered_map<std::string, std::size_t> names_;
    std::unordered_map<std::string, const ::onnx::TensorProto*> initializers_;
    std::unordered_map<std::string, ir::TensorType> inferred_;  // static types from ONNX shape inference
    bool inferenceRan_ = false;
    std::string inferenceFailure_;  // why ONNX shape inference gave up, if it did
    std::unordered_map<std::string, std::vector<std::string>> dimensionNames_;  // input -> its dim_params
    // Where each value is consumed: (node, input index), for telling weights from configuration.
    std::unordered_map<std::string, std::vector<std::pair<const ::onnx::NodeProto*, int>>> consumers_;

    const ::onnx::NodeProto* node_ = nullptr;
    std::string label_;
    int nodeIndex_ = 0;

    std::vector<Diagnostic> diagnostics_;
    struct Unsupported {
        int count = 0;
        std::string firstNode;
        std::string reason;
    };
    std::map<std::string, Unsupported> unsupported_;  // opaque op name -> occurrences
};

// ONNX TensorProto.DataType -> IR element type; nullopt for strings and unknown codes.
std::optional<ir::ElementType> elementTypeOf(std::int32_t onnxType);

// Decodes an initializer or Constant value. nullopt with `error` empty when it has more than kFoldLimit
// elements or lives in external data (its values are then unknown); with `error` set when it is malformed.
std::optional<ConstTensor> decodeTensor(const ::onnx::TensorProto& tensor, std::string& error);

}  // namespace shardscope::import::onnx_import
