// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Ops whose element function is a region: reduce, reduce_window, select_and_scatter, scatter and sort. The
// region arrives as a ScalarFunction; these functions only walk indices and call it.
#include <algorithm>
#include <set>

#include "interpret/index.h"
#include "interpret/numerics.h"
#include "interpret/ops.h"

namespace shardscope::interpret {

using ir::Dims;
using ir::TensorType;

namespace {

bool contains(const Dims& dims, std::int64_t d) {
    return std::find(dims.begin(), dims.end(), d) != dims.end();
}

bool validDims(const Dims& dims, std::int64_t rank) {
    std::set<std::int64_t> seen;
    for (auto d : dims)
        if (d < 0 || d >= rank || !seen.insert(d).second)
            return false;
    return true;
}

template <typename T>
Result<T> failed(const Status& status) {
    return Result<T>::failure(status.diagnostics());
}

// Window geometry of reduce_window and select_and_scatter, with defaults filled in.
struct Window {
    Dims size, stride, baseDilation, windowDilation, low;

    Window(const ir::WindowAttributes& w, std::size_t rank) {
        auto or1 = [rank](const Dims& v) { return v.empty() ? Dims(rank, 1) : v; };
        size = w.windowDimensions;
        stride = or1(w.windowStrides);
        baseDilation = or1(w.baseDilations);
        windowDilation = or1(w.windowDilations);
        low.assign(rank, 0);
        for (std::size_t d = 0; d < w.padding.size() && d < rank; ++d)
            low[d] = w.padding[d].first;
    }

    // The input index that window position `window` of output `result` reads, or false when it falls on
    // padding or between dilated elements.
    bool source(const Index& result, const Index& window, const ir::Shape& input, Index& at) const {
        for (std::size_t d = 0; d < input.size(); ++d) {
            const std::int64_t p = result[d] * stride[d] + window[d] * windowDilation[d] - low[d];
            if (p < 0 || p % baseDilation[d] != 0 || p / baseDilation[d] >= input[d])
                return false;
            at[d] = p / baseDilation[d];
        }
        return true;
    }
};

}  // namespace

Result<Tensors> reduce(const ir::Op& op, const Operands& operands, const std::vector<TensorType>& types,
                       const ScalarFunction& body) {
    const auto* a = std::get_if<ir::ReduceAttributes>(&op.attributes);
    if (!a)
        return opError(op, "has no dimensions");
    const std::size_t n = operands.size() / 2;
    const ir::Shape& shape = operands[0]->type.shape;
    // Where each input dimension moves the result index: its result stride, or 0 when it is reduced.
    std::vector<std::int64_t> resultStride(shape.size(), 0);
    const auto strides = rowMajorStrides(types[0].shape);
    for (std::size_t d = 0, r = 0; d < shape.size(); ++d)
        if (!contains(a->dimensions, static_cast<std::int64_t>(d)))
            resultStride[d] = strides[r++];

    Tensors results;
    for (std::size_t k = 0; k < n; ++k)
        results.push_back(Tensor::filled(types[k], operands[n + k]->values[0]));
    std::vector<double> arguments(2 * n), combined;
    for (IndexIterator it(shape); !it.done(); it.next()) {
        const std::int64_t r = offsetOf(it.index(), resultStride);
        for (std::size_t k = 0; k < n; ++k) {
            arguments[k] = results[k].values[r];
            arguments[n + k] = operands[k]->values[it.position()];
        }
        if (Status s = body(arguments, combined); !s)
            return failed<Tensors>(s);
        for (std::size_t k = 0; k < n; ++k)
            results[k].values[r] = combined[k];
    }
    return results;
}

// results[r] = body-fold of the window at r over the input padded (with the init values) and base-dilated;
// positions on padding or dilation holes contribute the init value, as StableHLO's definition via pad says.
Result<Tensors> reduceWindow(const ir::Op& op, const Operands& operands, const std::vector<TensorType>& types,
                             const ScalarFunction& body) {
    const auto* w = std::get_if<ir::WindowAttributes>(&op.attributes);
    if (!w)
        return opError(op, "has no window");
    const std::size_t n = operands.size() / 2;
    const ir::Shape& shape = operands[0]->type.shape;
    const Window window(*w, shape.size());
    const auto strides = rowMajorStrides(shape);

    Tensors results;
    for (const auto& t : types)
        results.push_back(zeros(t));
    std::vector<double> arguments(2 * n), combined;
    Index at(shape.size());
    for (IndexIterator it(types[0].shape); !it.done(); it.next()) {
        for (std::size_t k = 0; k < n; ++k)
            arguments[k] = operands[n + k]->values[0];
        for (IndexIterator inWindow(window.size); !inWindow.done(); inWindow.next()) {
            const bool inside = window.source(it.index(), inWindow.index(), shape, at);
            const std::int64_t offset = inside ? offsetOf(at, strides) : 0;
            for (std::size_t k = 0; k < n; ++k)
                arguments[n + k] = inside ? operands[k]->values[offset] : operands[n + k]->values[0];
            if (Status s = body(arguments, combined); !s)
                return failed<Tensors>(s);
            std::copy_n(combined.begin(), n, arguments.begin());
        }
        for (std::size_t k = 0; k < n; ++k)
            results[k].values[it.position()] = arguments[k];
    }
    return results;
}

// For each source element, the window it belongs to picks one operand element: scanning the window in
// row-major order, a later element replaces the current pick when select(pick, element) is false. Padding is
// never picked, and a window of padding only scatters nothing. The source value is then combined into the
// result (initialised to init_value) at the picked position with `scatter`.
Result<Tensor> selectAndScatter(const ir::Op& op, const Operands& operands, const TensorType& type,
                                const ScalarFunction& select, const ScalarFunction& scatter) {
    const auto* w = std::get_if<ir::WindowAttributes>(&op.attributes);
    if (!w)
        return opError(op, "has no window");
    const Tensor &operand = *operands[0], &source = *operands[1], &init = *operands[2];
    const ir::Shape& shape = operand.type.shape;
    const std::size_t rank = shape.size();
    auto allOnes = [](const Dims& v) {
        return std::all_of(v.begin(), v.end(), [](auto x) { return x == 1; });
    };
    if (w->windowDimensions.size() != rank ||
        (!w->windowStrides.empty() && w->windowStrides.size() != rank) ||
        (!w->padding.empty() && w->padding.size() != rank))
        return opError(op, "window_dimensions, window_strides and padding need one entry per dimension of " +
                               operand.type.toString());
    if (!allOnes(w->baseDilations) || !allOnes(w->windowDilations))
        return opError(op, "does not take dilations");
    const Window window(*w, rank);
    ir::Shape windows(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        if (window.size[d] < 1 || window.stride[d] < 1)
            return opError(op, "window sizes and strides must be positive");
        const std::int64_t padded =
            shape[d] + window.low[d] + (w->padding.empty() ? 0 : w->padding[d].second);
        windows[d] = padded < window.size[d] ? 0 : (padded - window.size[d]) / window.stride[d] + 1;
    }
    if (source.type.shape != windows || source.type.element != operand.type.element || init.type.rank() != 0)
        return opError(op, "source " + source.type.toString() + " must have one element per window (" +
                               ir::shapeToString(windows) + ") and init_value must be a scalar");

    const auto strides = rowMajorStrides(shape);
    Tensor result = Tensor::filled(type, init.values[0]);
    std::vector<double> pair(2), answer;
    Index at(rank);
    for (IndexIterator it(source.type.shape); !it.done(); it.next()) {
        std::int64_t picked = -1;
        for (IndexIterator inWindow(window.size); !inWindow.done(); inWindow.next()) {
            if (!window.source(it.index(), inWindow.index(), shape, at))
                continue;
            const std::int64_t offset = offsetOf(at, strides);
            if (picked >= 0) {
                pair = {operand.values[picked], operand.values[offset]};
                if (Status s = select(pair, answer); !s)
                    return failed<Tensor>(s);
                if (answer[0] != 0)
                    continue;
            }
            picked = offset;
        }
        if (picked < 0)
            continue;
        pair = {result.values[picked], source.values[it.position()]};
        if (Status s = scatter(pair, answer); !s)
            return failed<Tensor>(s);
        result.values[picked] = answer[0];
    }
    return result;
}

// StableHLO scatter with batching dimensions; the update index space is walked in row-major order. For an
// update index u: the scatter index is u at the update dimensions not in update_window_dims; the start index
// vector is read from scatter_indices there; full_start scatters it to input dimensions by
// scatter_dims_to_operand_dims; full_batching adds the scatter index of each batching pair; the window index
// (u at update_window_dims) covers the input dimensions that are neither inserted nor batching.
Result<Tensors> scatter(const ir::Op& op, const Operands& operands, const std::vector<TensorType>& types,
                        const ScalarFunction& update) {
    const auto* s = std::get_if<ir::ScatterAttributes>(&op.attributes);
    if (!s)
        return opError(op, "has no dimension numbers");
    const std::size_t n = (operands.size() - 1) / 2;
    const Tensor& indices = *operands[n];
    const ir::Shape& inputShape = operands[0]->type.shape;
    const ir::Shape& updateShape = operands[n + 1]->type.shape;
    const std::int64_t inputRank = static_cast<std::int64_t>(inputShape.size());
    const std::int64_t updateRank = static_cast<std::int64_t>(updateShape.size());
    const std::int64_t indicesRank = indices.type.rank(), vectorDim = s->indexVectorDim;
    for (std::size_t k = 0; k < n; ++k)
        if (operands[k]->type.shape != inputShape || operands[n + 1 + k]->type.shape != updateShape ||
            operands[n + 1 + k]->type.element != operands[k]->type.element)
            return opError(
                op, "inputs, and updates, must share one shape, and updates the inputs' element types");
    if (!ir::isInteger(indices.type.element))
        return opError(op, "scatter indices must be integers");
    if (vectorDim < 0 || vectorDim > indicesRank)
        return opError(op, "index_vector_dim is out of range");
    const std::int64_t vectorSize = vectorDim < indicesRank ? indices.type.shape[vectorDim] : 1;
    Dims removed = s->insertedWindowDims;
    removed.insert(removed.end(), s->inputBatchingDims.begin(), s->inputBatchingDims.end());
    Dims scatterDims, windowInputDims,
        indicesDims;  // update dims not windows; input dims windows cover; indices dims
    for (std::int64_t d = 0; d < updateRank; ++d)
        if (!contains(s->updateWindowDims, d))
            scatterDims.push_back(d);
    for (std::int64_t d = 0; d < inputRank; ++d)
        if (!contains(removed, d))
            windowInputDims.push_back(d);
    for (std::int64_t d = 0; d < indicesRank; ++d)
        if (d != vectorDim)
            indicesDims.push_back(d);
    bool ok = validDims(s->updateWindowDims, updateRank) && validDims(removed, inputRank) &&
              validDims(s->scatterDimsToOperandDims, inputRank) &&
              static_cast<std::int64_t>(s->scatterDimsToOperandDims.size()) == vectorSize &&
              windowInputDims.size() == s->updateWindowDims.size() &&
              scatterDims.size() == indicesDims.size() &&
              s->inputBatchingDims.size() == s->scatterIndicesBatchingDims.size() &&
              validDims(s->scatterIndicesBatchingDims, indicesRank) &&
              !contains(s->scatterIndicesBatchingDims, vectorDim);
    for (std::size_t i = 0; ok && i < scatterDims.size(); ++i)
        ok = updateShape[scatterDims[i]] == indices.type.shape[indicesDims[i]];
    for (std::size_t i = 0; ok && i < windowInputDims.size(); ++i)
        ok = updateShape[s->updateWindowDims[i]] <= inputShape[windowInputDims[i]];
    if (!ok)
        return opError(op, "dimension numbers do not fit inputs " + operands[0]->type.toString() +
                               ", indices " + indices.type.toString() + " and updates " +
                               operands[n + 1]->type.toString());

    // Extent of one update window in each input dimension (1 for inserted and batching dimensions).
    ir::Shape extent(inputShape.size(), 1);
    for (std::size_t i = 0; i < windowInputDims.size(); ++i)
        extent[windowInputDims[i]] = updateShape[s->updateWindowDims[i]];
    const auto inputStrides = rowMajorStrides(inputShape);
    const auto indexStrides = rowMajorStrides(indices.type.shape);

    Tensors results;
    for (std::size_t k = 0; k < n; ++k)
        results.push_back(Tensor{types[k], operands[k]->values});
    std::vector<double> arguments(2 * n), combined;
    Index scatterIndex(scatterDims.size()), at(static_cast<std::size_t>(indicesRank)),
        start(inputShape.size());
    for (IndexIterator it(updateShape); !it.done(); it.next()) {
        for (std::size_t i = 0; i < scatterDims.size(); ++i)
            scatterIndex[i] = it[scatterDims[i]];
        for (std::size_t i = 0; i < indicesDims.size(); ++i)
            at[indicesDims[i]] = scatterIndex[i];
        std::fill(start.begin(), start.end(), 0);
        for (std::size_t k = 0; k < s->scatterDimsToOperandDims.size(); ++k) {
            if (vectorDim < indicesRank)
                at[vectorDim] = static_cast<std::int64_t>(k);
            start[s->scatterDimsToOperandDims[k]] = toIndex(indices.values[offsetOf(at, indexStrides)]);
        }
        for (std::size_t i = 0; i < s->inputBatchingDims.size(); ++i) {
            const auto d = s->scatterIndicesBatchingDims[i];
            start[s->inputBatchingDims[i]] += scatterIndex[d < vectorDim ? d : d - 1];
        }
        bool windowInside = true;
        for (std::size_t d = 0; d < start.size(); ++d)
            windowInside = windowInside && start[d] >= 0 && start[d] + extent[d] <= inputShape[d];
        if (!windowInside)
            continue;
        for (std::size_t i = 0; i < windowInputDims.size(); ++i)
            start[windowInputDims[i]] += it[s->updateWindowDims[i]];
        const std::int64_t offset = offsetOf(start, inputStrides);
        for (std::size_t k = 0; k < n; ++k) {
            arguments[k] = results[k].values[offset];
            arguments[n + k] = operands[n + 1 + k]->values[it.position()];
        }
        if (Status status = update(arguments, combined); !status)
            return failed<Tensors>(status);
        for (std::size_t k = 0; k < n; ++k)
            results[k].values[offset] = combined[k];
    }
    return results;
}

namespace {

// Stable bottom-up merge sort of `order` by `less`; stops at `less`'s first error. Unlike std::stable_sort it
// stays in bounds whatever the comparator answers.
Status mergeSort(std::vector<std::int64_t>& order,
                 const std::function<Result<bool>(std::int64_t, std::int64_t)>& less) {
    const std::size_t size = order.size();
    std::vector<std::int64_t> merged(size);
    for (std::size_t width = 1; width < size; width *= 2) {
        for (std::size_t low = 0; low < size; low += 2 * width) {
            const std::size_t mid = std::min(low + width, size), high = std::min(low + 2 * width, size);
            std::size_t i = low, j = mid, k = low;
            while (i < mid && j < high) {
                auto rightFirst = less(order[j], order[i]);
                if (!rightFirst)
                    return Status::failure(rightFirst.diagnostics());
                merged[k++] = *rightFirst ? order[j++] : order[i++];
            }
            while (i < mid)
                merged[k++] = order[i++];
            while (j < high)
                merged[k++] = order[j++];
        }
        order.swap(merged);
    }
    return Success{};
}

}  // namespace

Result<Tensors> sort(const ir::Op& op, const Operands& operands, const ScalarFunction& comparator) {
    const auto* a = std::get_if<ir::SortAttributes>(&op.attributes);
    const ir::Shape& shape = operands[0]->type.shape;
    const auto rank = static_cast<std::int64_t>(shape.size());
    const std::int64_t dimension = a ? (a->dimension < 0 ? a->dimension + rank : a->dimension) : rank - 1;
    if (dimension < 0 || dimension >= rank)
        return opError(op, "sort dimension is out of range");
    const auto strides = rowMajorStrides(shape);
    const std::int64_t length = shape[dimension], step = strides[dimension];
    ir::Shape outer = shape;
    outer[dimension] = 1;

    Tensors results;
    for (const Tensor* t : operands)
        results.push_back(*t);
    std::vector<double> arguments(2 * operands.size()), answer;
    std::vector<std::int64_t> order(static_cast<std::size_t>(length));
    for (IndexIterator it(outer); !it.done(); it.next()) {
        const std::int64_t base = offsetOf(it.index(), strides);
        auto less = [&](std::int64_t lhs, std::int64_t rhs) -> Result<bool> {
            for (std::size_t k = 0; k < operands.size(); ++k) {
                arguments[2 * k] = operands[k]->values[base + lhs * step];
                arguments[2 * k + 1] = operands[k]->values[base + rhs * step];
            }
            if (Status s = comparator(arguments, answer); !s)
                return failed<bool>(s);
            return answer[0] != 0;
        };
        for (std::int64_t i = 0; i < length; ++i)
            order[i] = i;
        if (Status s = mergeSort(order, less); !s)
            return failed<Tensors>(s);
        for (std::size_t k = 0; k < operands.size(); ++k)
            for (std::int64_t i = 0; i < length; ++i)
                results[k].values[base + i * step] = operands[k]->values[base + order[i] * step];
    }
    return results;
}

}  // namespace shardscope::interpret
