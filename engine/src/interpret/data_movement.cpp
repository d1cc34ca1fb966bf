// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Ops that create, move or select values: each result element is one operand element (or a padding value, an
// iota index, a random draw).
#include <algorithm>
#include <cmath>
#include <set>

#include "interpret/index.h"
#include "interpret/numerics.h"
#include "interpret/ops.h"

namespace shardscope::interpret {

using ir::Dims;
using ir::TensorType;

namespace {

std::string dimsText(const Dims& dims) {
    std::string out = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        out += (i ? ", " : "") + std::to_string(dims[i]);
    return out + "]";
}

// Each of `dims` within [0, rank) and none twice.
bool validDims(const Dims& dims, std::int64_t rank) {
    std::set<std::int64_t> seen;
    for (auto d : dims)
        if (d < 0 || d >= rank || !seen.insert(d).second)
            return false;
    return true;
}

bool contains(const Dims& dims, std::int64_t d) {
    return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// The start index a rank-0 integer operand gives, or an error naming it.
Result<std::int64_t> scalarIndex(const ir::Op& op, const Tensor& t, std::size_t operand) {
    if (t.type.rank() != 0 || !ir::isInteger(t.type.element) || t.values.size() != 1)
        return opError(op, "operand #" + std::to_string(operand) + " must be an integer scalar, got " +
                               t.type.toString());
    return toIndex(t.values[0]);
}

}  // namespace

Result<Tensor> constant(const ir::Op& op, const TensorType& type) {
    const auto* literal = std::get_if<ir::ConstantAttributes>(&op.attributes);
    if (!literal || literal->values.empty())
        return opError(op, "its values are not known (elided or stored elsewhere), so it cannot run",
                       "interpret.unknown-constant");
    const auto count = static_cast<std::size_t>(type.elements());
    if (literal->values.size() == 1)
        return Tensor::filled(type, literal->values[0]);
    if (literal->values.size() != count)
        return opError(op,
                       "has " + std::to_string(literal->values.size()) + " values for " + type.toString());
    return Tensor{type, literal->values};
}

Result<Tensor> iota(const ir::Op& op, const TensorType& type) {
    const auto* d = std::get_if<ir::DimensionAttribute>(&op.attributes);
    if (!d || d->dimension < 0 || d->dimension >= type.rank())
        return opError(op, "has no valid iota_dimension");
    Tensor out = zeros(type);
    const auto dim = static_cast<std::size_t>(d->dimension);
    for (IndexIterator it(type.shape); !it.done(); it.next())
        out.values[it.position()] = static_cast<double>(it[dim]);
    return out;
}

Result<Tensor> rngUniform(const ir::Op& op, const Operands& operands, const TensorType& type,
                          std::mt19937_64& random) {
    if (operands.size() != 3)
        return opError(op, "takes a, b and a shape, got " + std::to_string(operands.size()) + " operand(s)");
    const Tensor& a = *operands[0];
    const Tensor& b = *operands[1];
    const Tensor& shape = *operands[2];
    for (const Tensor* bound : {&a, &b})
        if (bound->type != TensorType{{}, type.element})
            return opError(op, "a and b must be scalars of " + std::string(ir::toString(type.element)) +
                                   ", got " + a.type.toString() + " and " + b.type.toString());
    Dims extents;
    for (double v : shape.values)
        extents.push_back(toIndex(v));
    if (shape.type.rank() != 1 || extents != type.shape)
        return opError(op, "its shape operand " + dimsText(extents) + " is not the shape of its result " +
                               type.toString());
    const double lo = a.values[0], hi = b.values[0];
    if (!(lo < hi))
        return opError(op, "needs a < b, got a = " + std::to_string(lo) + " and b = " + std::to_string(hi));
    const bool integer = ir::isInteger(type.element);
    Tensor out = zeros(type);
    for (double& v : out.values) {
        do {  // again when rounding to the element type reaches b
            const double u = static_cast<double>(random() >> 11) * 0x1.0p-53;  // [0, 1), exact
            v = integer ? lo + std::floor(u * (hi - lo))
                        : roundToElement(lo * (1 - u) + hi * u, type.element);
        } while (v >= hi);
    }
    return out;
}

Result<Tensor> broadcastInDim(const ir::Op& op, const Tensor& operand, const TensorType& type) {
    const auto* b = std::get_if<ir::BroadcastDimensions>(&op.attributes);
    if (!b)
        return opError(op, "has no broadcast_dimensions");
    const auto strides = rowMajorStrides(operand.type.shape);
    Tensor out = zeros(type);
    for (IndexIterator it(type.shape); !it.done(); it.next()) {
        std::int64_t offset = 0;
        for (std::size_t k = 0; k < b->dims.size(); ++k)
            if (operand.type.shape[k] != 1)
                offset += it[static_cast<std::size_t>(b->dims[k])] * strides[k];
        out.values[it.position()] = operand.values[offset];
    }
    return out;
}

Result<Tensor> reshape(const Tensor& operand, const TensorType& type) {
    return Tensor{type, operand.values};
}

Result<Tensor> transpose(const ir::Op& op, const Tensor& operand, const TensorType& type) {
    const auto* p = std::get_if<ir::Permutation>(&op.attributes);
    if (!p)
        return opError(op, "has no permutation");
    const auto strides = rowMajorStrides(operand.type.shape);
    Tensor out = zeros(type);
    for (IndexIterator it(type.shape); !it.done(); it.next()) {
        std::int64_t offset = 0;
        for (std::size_t d = 0; d < p->permutation.size(); ++d)
            offset += it[d] * strides[p->permutation[d]];
        out.values[it.position()] = operand.values[offset];
    }
    return out;
}

Result<Tensor> slice(const ir::Op& op, const Tensor& operand, const TensorType& type) {
    const auto* s = std::get_if<ir::SliceAttributes>(&op.attributes);
    if (!s)
        return opError(op, "has no start, limit and strides");
    const auto strides = rowMajorStrides(operand.type.shape);
    Tensor out = zeros(type);
    for (IndexIterator it(type.shape); !it.done(); it.next()) {
        std::int64_t offset = 0;
        for (std::size_t d = 0; d < strides.size(); ++d)
            offset += (s->start[d] + it[d] * (s->strides.empty() ? 1 : s->strides[d])) * strides[d];
        out.values[it.position()] = operand.values[offset];
    }
    return out;
}

// Interior padding goes between elements first, then edge padding (negative edge padding removes elements):
// result[i] = operand[j] where i = low + j * (interior + 1).
Result<Tensor> pad(const ir::Op& op, const Tensor& operand, const Tensor& paddingValue,
                   const TensorType& type) {
    const auto* p = std::get_if<ir::PadAttributes>(&op.attributes);
    if (!p)
        return opError(op, "has no padding");
    const auto strides = rowMajorStrides(operand.type.shape);
    Tensor out = Tensor::filled(type, paddingValue.values[0]);
    for (IndexIterator it(type.shape); !it.done(); it.next()) {
        std::int64_t offset = 0;
        bool inside = true;
        for (std::size_t d = 0; d < strides.size() && inside; ++d) {
            const std::int64_t step = (p->interior.empty() ? 0 : p->interior[d]) + 1;
            const std::int64_t q = it[d] - p->low[d];
            inside = q >= 0 && q % step == 0 && q / step < operand.type.shape[d];
            offset += (q / step) * strides[d];
        }
        if (inside)
            out.values[it.position()] = operand.values[offset];
    }
    return out;
}

Result<Tensor> concatenate(const ir::Op& op, const Operands& operands, const TensorType& type) {
    const auto* c = std::get_if<ir::DimensionAttribute>(&op.attributes);
    if (!c)
        return opError(op, "has no dimension");
    const auto dim = static_cast<std::size_t>(c->dimension);
    const auto outStrides = rowMajorStrides(type.shape);
    Tensor out = zeros(type);
    std::int64_t start = 0;
    for (const Tensor* part : operands) {
        for (IndexIterator it(part->type.shape); !it.done(); it.next()) {
            Index at = it.index();
            at[dim] += start;
            out.values[offsetOf(at, outStrides)] = part->values[it.position()];
        }
        start += part->type.shape[dim];
    }
    return out;
}

Result<Tensor> reverse(const ir::Op& op, const Tensor& operand, const TensorType& type) {
    const auto* r = std::get_if<ir::DimensionsAttribute>(&op.attributes);
    if (!r)
        return opError(op, "has no dimensions");
    const auto strides = rowMajorStrides(operand.type.shape);
    Tensor out = zeros(type);
    for (IndexIterator it(type.shape); !it.done(); it.next()) {
        Index from = it.index();
        for (auto d : r->dimensions)
            from[d] = type.shape[d] - 1 - from[d];
        out.values[it.position()] = operand.values[offsetOf(from, strides)];
    }
    return out;
}

// Start indices are clamped so the slice stays inside the operand: clamp(start, 0, dim - size).
Result<Tensor> dynamicSlice(const ir::Op& op, const Operands& operands, const TensorType& type) {
    const Tensor& operand = *operands[0];
    Index start(static_cast<std::size_t>(operand.type.rank()));
    for (std::size_t d = 0; d < start.size(); ++d) {
        auto index = scalarIndex(op, *operands[d + 1], d + 1);
        if (!index)
            return index.diagnostics().front();
        start[d] = std::clamp<std::int64_t>(*index, 0, operand.type.shape[d] - type.shape[d]);
    }
    const auto strides = rowMajorStrides(operand.type.shape);
    Tensor out = zeros(type);
    for (IndexIterator it(type.shape); !it.done(); it.next()) {
        std::int64_t offset = 0;
        for (std::size_t d = 0; d < start.size(); ++d)
            offset += (start[d] + it[d]) * strides[d];
        out.values[it.position()] = operand.values[offset];
    }
    return out;
}

Result<Tensor> dynamicUpdateSlice(const ir::Op& op, const Operands& operands, const TensorType& type) {
    const Tensor &operand = *operands[0], &update = *operands[1];
    if (update.type.element != operand.type.element)
        return opError(op, "update " + update.type.toString() + " differs in element type from " +
                               operand.type.toString());
    Index start(static_cast<std::size_t>(operand.type.rank()));
    for (std::size_t d = 0; d < start.size(); ++d) {
        auto index = scalarIndex(op, *operands[d + 2], d + 2);
        if (!index)
            return index.diagnostics().front();
        start[d] = std::clamp<std::int64_t>(*index, 0, operand.type.shape[d] - update.type.shape[d]);
    }
    const auto strides = rowMajorStrides(type.shape);
    Tensor out{type, operand.values};
    for (IndexIterator it(update.type.shape); !it.done(); it.next()) {
        std::int64_t offset = 0;
        for (std::size_t d = 0; d < start.size(); ++d)
            offset += (start[d] + it[d]) * strides[d];
        out.values[offset] = update.values[it.position()];
    }
    return out;
}

// StableHLO gather with batching dimensions. For each result index:
//   batch_index  = the result index at the dimensions not in offset_dims;
//   start_index  = start_indices at batch_index, the index vector running along index_vector_dim;
//   full_start   = start_index scattered to operand dimensions by start_index_map, each clamped to
//                  [0, dim - slice_size];
//   full_batching= for each (operand_batching_dims[i], start_indices_batching_dims[i]) pair, the batch_index
//                  component of that start-indices dimension;
//   full_offset  = the result index at offset_dims, spread over the operand dimensions that are neither
//                  collapsed nor batching;
//   operand_index= full_start + full_batching + full_offset.
Result<Tensor> gather(const ir::Op& op, const Tensor& operand, const Tensor& indices,
                      const TensorType& type) {
    const auto* g = std::get_if<ir::GatherAttributes>(&op.attributes);
    if (!g)
        return opError(op, "has no dimension numbers");
    if (!ir::isInteger(indices.type.element))
        return opError(op, "start indices must be integers, got " + indices.type.toString());
    const std::int64_t operandRank = operand.type.rank(), indicesRank = indices.type.rank();
    const std::int64_t vectorDim = g->indexVectorDim;
    const std::int64_t vectorSize = vectorDim < indicesRank ? indices.type.shape[vectorDim] : 1;
    if (static_cast<std::int64_t>(g->startIndexMap.size()) != vectorSize ||
        !validDims(g->startIndexMap, operandRank))
        return opError(op, "start_index_map " + dimsText(g->startIndexMap) + " must name " +
                               std::to_string(vectorSize) + " distinct operand dimensions");
    if (g->operandBatchingDims.size() != g->startIndicesBatchingDims.size() ||
        !validDims(g->startIndicesBatchingDims, indicesRank) ||
        contains(g->startIndicesBatchingDims, vectorDim))
        return opError(op, "operand_batching_dims " + dimsText(g->operandBatchingDims) +
                               " and start_indices_batching_dims " + dimsText(g->startIndicesBatchingDims) +
                               " do not pair up");
    for (std::size_t i = 0; i < g->operandBatchingDims.size(); ++i)
        if (operand.type.shape[g->operandBatchingDims[i]] !=
            indices.type.shape[g->startIndicesBatchingDims[i]])
            return opError(op, "batching dimensions of the operand and the start indices differ in size");

    Dims batchDims, windowDims;  // result dimensions not in offset_dims; operand dimensions the offsets cover
    for (std::int64_t d = 0; d < type.rank(); ++d)
        if (!contains(g->offsetDims, d))
            batchDims.push_back(d);
    for (std::int64_t d = 0; d < operandRank; ++d)
        if (!contains(g->collapsedSliceDims, d) && !contains(g->operandBatchingDims, d))
            windowDims.push_back(d);
    const auto operandStrides = rowMajorStrides(operand.type.shape);
    const auto indexStrides = rowMajorStrides(indices.type.shape);

    Tensor out = zeros(type);
    Index batch(batchDims.size()), at(static_cast<std::size_t>(indicesRank)),
        full(static_cast<std::size_t>(operandRank));
    for (IndexIterator it(type.shape); !it.done(); it.next()) {
        for (std::size_t i = 0; i < batchDims.size(); ++i)
            batch[i] = it[batchDims[i]];
        for (std::int64_t d = 0, b = 0; d < indicesRank; ++d)
            if (d != vectorDim)
                at[d] = batch[b++];
        std::fill(full.begin(), full.end(), 0);
        for (std::size_t k = 0; k < g->startIndexMap.size(); ++k) {
            if (vectorDim < indicesRank)
                at[vectorDim] = static_cast<std::int64_t>(k);
            const auto d = g->startIndexMap[k];
            const std::int64_t start = toIndex(indices.values[offsetOf(at, indexStrides)]);
            full[d] = std::clamp<std::int64_t>(start, 0, operand.type.shape[d] - g->sliceSizes[d]);
        }
        for (std::size_t i = 0; i < g->operandBatchingDims.size(); ++i) {
            const auto d = g->startIndicesBatchingDims[i];
            full[g->operandBatchingDims[i]] += batch[d < vectorDim ? d : d - 1];
        }
        for (std::size_t i = 0; i < windowDims.size(); ++i)
            full[windowDims[i]] += it[g->offsetDims[i]];
        if (!inBounds(full, operand.type.shape))
            return opError(op, "reads outside its operand " + operand.type.toString());
        out.values[it.position()] = operand.values[offsetOf(full, operandStrides)];
    }
    return out;
}

// Same-width bitcasts only: each element's storage bits reinterpreted in the result type.
Result<Tensor> bitcastConvert(const ir::Op& op, const Tensor& operand, const TensorType& type) {
    const int from = storageBits(operand.type.element), to = storageBits(type.element);
    if (from == 0 || from != to || operand.type.shape != type.shape)
        return unsupportedOp(op, "it only bitcasts between element types of one width, not " +
                                     operand.type.toString() + " to " + type.toString());
    Tensor out = zeros(type);
    for (std::size_t i = 0; i < out.values.size(); ++i)
        out.values[i] = fromBits(toBits(operand.values[i], operand.type.element), type.element);
    return out;
}

}  // namespace shardscope::interpret
