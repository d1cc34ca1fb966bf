// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// ONNX data movement and shape computations. Each op folds when its data is known at import time (so shape
// subgraphs such as Shape -> Gather -> Unsqueeze -> Concat -> Reshape leave no op behind) and otherwise maps
// onto reshape, transpose, slice, concatenate, gather, broadcast_in_dim or pad of the IR.
#include <algorithm>
#include <cmath>

#include "import/onnx/importer.h"

namespace shardscope::import::onnx_import {

using ir::Dims;
using ir::ElementType;
using ir::OpKind;
using ir::Shape;
using ir::TensorType;

namespace {

// Pads, repeats and shape entries beyond this are garbage and could overflow shape arithmetic.
constexpr std::int64_t kMaxExtent = std::int64_t{1} << 40;

Dims iotaDims(std::int64_t n) {
    Dims d;
    for (std::int64_t i = 0; i < n; ++i)
        d.push_back(i);
    return d;
}

ConstTensor reshaped(const ConstTensor& c, Shape shape) {
    ConstTensor t = c;
    t.shape = std::move(shape);
    return t;
}

}  // namespace

ValueId Importer::reshapeTo(ValueId v, const Shape& shape) {
    if (!v.valid() || b_.failed())
        return {};
    if (typeOf(v).shape == shape)
        return v;
    if (!checkedElements(shape)) {
        error("onnx.reshape", "shape [" + ir::shapeToString(shape) + "] is invalid");
        return {};
    }
    return b_.reshape(v, shape, label_);
}

bool Importer::importConstant() {
    if (!hasOutput(0))
        return true;
    const std::string& name = node_->output(0);
    if (names_.count(name))
        return error("onnx.redefined-value", "value '" + name + "' is defined twice");
    Slot slot;
    slot.name = name;
    slot.origin = label_;
    if (const auto* a = attribute("value")) {
        if (!a->has_t())
            return error("onnx.constant", "attribute 'value' is not a tensor");
        const ::onnx::TensorProto& t = a->t();
        auto element = elementTypeOf(t.data_type());
        Shape shape(t.dims().begin(), t.dims().end());
        if (!element)
            return error("onnx.constant", "the value has an unsupported element type");
        if (!checkedElements(shape))
            return error("onnx.constant", "the value has an invalid shape");
        slot.type = TensorType{shape, *element};
        slot.tensor = &t;
    } else {
        ConstTensor c;
        if (const auto* f = attribute("value_float")) {
            c = ConstTensor::ofReals(ElementType::F32, {}, {f->f()});
        } else if (const auto* fs = attribute("value_floats")) {
            c = ConstTensor::ofReals(ElementType::F32, {fs->floats_size()},
                                     std::vector<double>(fs->floats().begin(), fs->floats().end()));
        } else if (const auto* i = attribute("value_int")) {
            c = ConstTensor::ofInts(ElementType::I64, {}, {i->i()});
        } else if (const auto* is = attribute("value_ints")) {
            c = ConstTensor::ofInts(ElementType::I64, {is->ints_size()},
                                    std::vector<std::int64_t>(is->ints().begin(), is->ints().end()));
        } else {
            return error("onnx.constant", "only tensor, float(s) and int(s) values are supported");
        }
        slot.type = TensorType{c.shape, c.element};
        slot.constant = std::make_shared<const ConstTensor>(std::move(c));
    }
    newSlot(std::move(slot), name);
    return true;
}

bool Importer::importConstantOfShape() {
    auto dims = constantInts(0, "shape");
    if (!dims)
        return false;
    Shape shape(dims->begin(), dims->end());
    if (!checkedElements(shape))
        return error("onnx.shape", "shape [" + ir::shapeToString(shape) + "] is invalid");
    ElementType element = ElementType::F32;
    double fill = 0;
    if (const auto* a = attribute("value")) {
        std::string why;
        auto value = a->has_t() ? decodeTensor(a->t(), why) : std::nullopt;
        if (!value || value->elements() != 1)
            return error("onnx.constant",
                         "attribute 'value' must be a one-element tensor" + (why.empty() ? "" : ": " + why));
        element = value->element;
        fill = value->realAt(0);
    }
    // A float tensor whose shape is an initializer is a weight placeholder (as in ONNX's "light" models,
    // whose weights were replaced by ConstantOfShape): it becomes a parameter named by its output.
    if (ir::isFloat(element) && !shape.empty() && initializers_.count(node_->input(0)) && hasOutput(0)) {
        const std::string& name = node_->output(0);
        if (names_.count(name))
            return error("onnx.redefined-value", "value '" + name + "' is defined twice");
        Slot slot;
        slot.type = TensorType{shape, element};
        slot.parameter = true;
        slot.name = name;
        slot.origin = label_;
        newSlot(std::move(slot), name);
        return true;
    }
    return defineConstant(0, ConstTensor::splat(element, shape, fill));
}

bool Importer::importShape() {
    auto s = input(0);
    if (!s)
        return false;
    const Shape shape = slotType(*s).shape;
    const auto rank = static_cast<std::int64_t>(shape.size());
    auto clampIndex = [&](std::int64_t i) { return std::clamp<std::int64_t>(i < 0 ? i + rank : i, 0, rank); };
    const std::int64_t start = clampIndex(attrInt("start", 0)), end = clampIndex(attrInt("end", rank));
    std::vector<std::int64_t> dims;
    for (std::int64_t i = start; i < end; ++i)
        dims.push_back(shape[static_cast<std::size_t>(i)]);
    const auto n = static_cast<std::int64_t>(dims.size());
    return defineConstant(0, ConstTensor::ofInts(ElementType::I64, {n}, std::move(dims)));
}

bool Importer::importSize() {
    auto s = input(0);
    if (!s)
        return false;
    return defineConstant(0, ConstTensor::ofInts(ElementType::I64, {}, {slotType(*s).elements()}));
}

bool Importer::importIdentity() {
    auto s = input(0);
    return s && alias(0, *s);
}

bool Importer::importDropout() {
    // Inference: the data passes through and the mask keeps everything.
    auto s = input(0);
    if (!s || !alias(0, *s))
        return false;
    return defineConstant(1, ConstTensor::splat(ElementType::I1, slotType(*s).shape, 1));
}

bool Importer::importReshape() {
    auto s = input(0);
    if (!s)
        return false;
    std::optional<std::vector<std::int64_t>> target;
    if (hasInput(1)) {
        target = constantInts(1, "target shape");
    } else {
        bool ok = true;
        target = attrInts("shape", ok);  // Reshape-1
        if (!ok)
            return false;
        if (!target)
            return error("onnx.reshape", "has no target shape");
    }
    if (!target)
        return false;
    const Shape in = slotType(*s).shape;
    const bool allowZero = attrInt("allowzero", 0) != 0;
    Shape out;
    int inferred = -1;
    for (std::size_t i = 0; i < target->size(); ++i) {
        std::int64_t v = (*target)[i];
        if (v == 0 && !allowZero) {
            if (i >= in.size())
                return error("onnx.reshape",
                             "0 at position " + std::to_string(i) + " has no input dimension to copy");
            v = in[i];
        } else if (v == -1) {
            if (inferred >= 0)
                return error("onnx.reshape", "the target shape has more than one -1");
            inferred = static_cast<int>(i);
            v = 1;
        } else if (v < 0) {
            return error("onnx.reshape", "target dimension " + std::to_string(v) + " is negative");
        }
        out.push_back(v);
    }
    const auto inElements = checkedElements(in);
    auto known = checkedElements(out);
    if (!inElements || !known)
        return error("onnx.reshape", "the target shape is too large");
    if (inferred >= 0) {
        if (*known == 0 || *inElements % *known != 0)
            return error("onnx.reshape", "cannot infer the -1 in [" + ir::shapeToString(*target) + "] for [" +
                                             ir::shapeToString(in) + "]");
        out[static_cast<std::size_t>(inferred)] = *inElements / *known;
    } else if (*known != *inElements) {
        return error("onnx.reshape",
                     "cannot reshape [" + ir::shapeToString(in) + "] to [" + ir::shapeToString(out) + "]");
    }
    if (const ConstTensor* c = constant(*s))
        return defineConstant(0, reshaped(*c, out));
    if (out == in)
        return alias(0, *s);
    return define(0, reshapeTo(value(*s), out));
}

bool Importer::importFlatten() {
    auto s = input(0);
    if (!s)
        return false;
    const Shape in = slotType(*s).shape;
    const auto rank = static_cast<std::int64_t>(in.size());
    std::int64_t axis = attrInt("axis", 1);
    if (axis < -rank || axis > rank)
        return error("onnx.axis", "axis " + std::to_string(axis) + " is out of range");
    if (axis < 0)
        axis += rank;
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t d = 0; d < rank; ++d)
        (d < axis ? outer : inner) *= in[static_cast<std::size_t>(d)];
    const Shape out{outer, inner};
    if (const ConstTensor* c = constant(*s))
        return defineConstant(0, reshaped(*c, out));
    if (out == in)
        return alias(0, *s);
    return define(0, reshapeTo(value(*s), out));
}

bool Importer::importSqueeze(bool unsqueeze) {
    auto s = input(0);
    if (!s)
        return false;
    const Shape in = slotType(*s).shape;
    const auto rank = static_cast<int>(in.size());
    std::optional<std::vector<std::int64_t>> axes;
    if (hasInput(1)) {
        axes = constantInts(1, "axes");
        if (!axes)
            return false;
    } else {
        bool ok = true;
        axes = attrInts("axes", ok);
        if (!ok)
            return false;
    }
    Shape out;
    if (unsqueeze) {
        if (!axes || axes->empty())
            return error("onnx.axis", "needs axes");
        const int outRank = rank + static_cast<int>(axes->size());
        auto normalized = normalizeAxes(*axes, outRank, "axes");
        if (!normalized)
            return false;
        std::vector<bool> inserted(static_cast<std::size_t>(outRank), false);
        for (auto a : *normalized)
            inserted[static_cast<std::size_t>(a)] = true;
        std::size_t next = 0;
        for (int d = 0; d < outRank; ++d)
            out.push_back(inserted[static_cast<std::size_t>(d)] ? 1 : in[next++]);
    } else {
        std::vector<bool> removed(in.size(), false);
        if (axes && !axes->empty()) {
            auto normalized = normalizeAxes(*axes, rank, "axes");
            if (!normalized)
                return false;
            for (auto a : *normalized) {
                if (in[static_cast<std::size_t>(a)] != 1)
                    return error("onnx.axis", "cannot squeeze dimension " + std::to_string(a) + " of size " +
                                                  std::to_string(in[static_cast<std::size_t>(a)]));
                removed[static_cast<std::size_t>(a)] = true;
            }
        } else {
            for (std::size_t d = 0; d < in.size(); ++d)
                removed[d] = in[d] == 1;
        }
        for (std::size_t d = 0; d < in.size(); ++d)
            if (!removed[d])
                out.push_back(in[d]);
    }
    if (const ConstTensor* c = constant(*s))
        return defineConstant(0, reshaped(*c, out));
    if (out == in)
        return alias(0, *s);
    return define(0, reshapeTo(value(*s), out));
}

bool Importer::importTranspose() {
    auto s = input(0);
    if (!s)
        return false;
    const int rank = slotType(*s).rank();
    bool ok = true;
    auto perm = attrInts("perm", ok);
    if (!ok)
        return false;
    Dims permutation = perm ? *perm : Dims{};
    if (!perm)
        for (int d = rank - 1; d >= 0; --d)
            permutation.push_back(d);
    std::vector<bool> seen(static_cast<std::size_t>(rank), false);
    if (static_cast<int>(permutation.size()) != rank)
        return error("onnx.transpose", "perm has " + std::to_string(permutation.size()) +
                                           " entries for rank " + std::to_string(rank));
    for (auto p : permutation) {
        if (p < 0 || p >= rank || seen[static_cast<std::size_t>(p)])
            return error("onnx.transpose",
                         "perm [" + ir::shapeToString(permutation) + "] is not a permutation");
        seen[static_cast<std::size_t>(p)] = true;
    }
    if (permutation == iotaDims(rank))
        return alias(0, *s);
    if (const ConstTensor* c = constant(*s))
        if (auto folded = foldTranspose(*c, permutation))
            return defineConstant(0, std::move(*folded));
    return define(0, b_.transpose(value(*s), permutation, label_));
}

bool Importer::importSlice() {
    auto s = input(0);
    if (!s)
        return false;
    const Shape in = slotType(*s).shape;
    const auto rank = static_cast<int>(in.size());
    std::optional<std::vector<std::int64_t>> starts, ends, axes, steps;
    if (hasInput(1)) {
        starts = constantInts(1, "starts");
        ends = constantInts(2, "ends");
        if (!starts || !ends)
            return false;
        if (hasInput(3) && !(axes = constantInts(3, "axes")))
            return false;
        if (hasInput(4) && !(steps = constantInts(4, "steps")))
            return false;
    } else {
        bool ok = true;
        starts = attrInts("starts", ok);
        ends = attrInts("ends", ok);
        axes = attrInts("axes", ok);
        if (!ok)
            return false;
        if (!starts || !ends)
            return error("onnx.slice", "needs starts and ends");
    }
    const std::size_t n = starts->size();
    if (!axes)
        axes = iotaDims(static_cast<std::int64_t>(n));
    if (!steps)
        steps = std::vector<std::int64_t>(n, 1);
    if (ends->size() != n || axes->size() != n || steps->size() != n)
        return error("onnx.slice", "starts, ends, axes and steps differ in length");
    auto normalized = normalizeAxes(*axes, rank, "axes");
    if (!normalized)
        return false;
    std::vector<std::int64_t> start(in.size(), 0), step(in.size(), 1);
    Shape size = in;
    for (std::size_t k = 0; k < n; ++k) {
        const auto d = static_cast<std::size_t>((*normalized)[k]);
        const std::int64_t dim = in[d];
        std::int64_t st = (*steps)[k], b = (*starts)[k], e = (*ends)[k];
        if (st == 0)
            return error("onnx.slice", "steps must be non-zero");
        st = std::max<std::int64_t>(st, -std::numeric_limits<std::int64_t>::max());
        if (b < 0)
            b += dim;
        if (e < 0)
            e += dim;
        std::int64_t count = 0;
        if (st > 0) {
            b = std::clamp<std::int64_t>(b, 0, dim);
            e = std::clamp<std::int64_t>(e, 0, dim);
            count = e > b ? 1 + (e - b - 1) / st : 0;
        } else if (dim > 0) {
            b = std::clamp<std::int64_t>(b, 0, dim - 1);
            e = std::clamp<std::int64_t>(e, -1, dim - 1);
            count = b > e ? 1 + (b - e - 1) / -st : 0;
        } else {
            b = 0;
        }
        start[d] = count > 0 ? b : 0;
        step[d] = st;
        size[d] = count;
    }
    if (const ConstTensor* c = constant(*s))
        if (auto folded = foldSlice(*c, start, step, size))
            return defineConstant(0, std::move(*folded));
    bool identity = size == in;
    for (std::size_t d = 0; d < in.size(); ++d)
        identity = identity && start[d] == 0 && step[d] == 1;
    if (identity)
        return alias(0, *s);
    ValueId x = value(*s);
    Dims reversed;
    for (std::size_t d = 0; d < in.size(); ++d)
        if (step[d] < 0) {
            reversed.push_back(static_cast<std::int64_t>(d));
            start[d] = in[d] - 1 - start[d];
            step[d] = -step[d];
        }
    if (!reversed.empty())
        x = b_.op1(OpKind::Reverse, {x}, ir::DimensionsAttribute{reversed}, label_);
    Dims limit(in.size());
    for (std::size_t d = 0; d < in.size(); ++d) {
        if (size[d] == 0)
            start[d] = 0;
        limit[d] = size[d] > 0 ? start[d] + (size[d] - 1) * step[d] + 1 : start[d];
        if (size[d] == 1)
            step[d] = 1;
    }
    return define(0, b_.slice(x, start, limit, step, label_));
}

bool Importer::importConcat() {
    std::vector<std::size_t> slots;
    for (int i = 0; i < inputCount(); ++i) {
        auto s = input(i);
        if (!s)
            return false;
        slots.push_back(*s);
    }
    if (slots.empty())
        return error("onnx.concat", "needs at least one input");
    if (!attribute("axis"))
        return error("onnx.concat", "needs an axis");
    const int rank = slotType(slots.front()).rank();
    auto axis = normalizeAxis(attrInt("axis", 0), rank, "axis");
    if (!axis)
        return false;
    for (auto s : slots) {
        const Shape& shape = slotType(s).shape;
        bool compatible = static_cast<int>(shape.size()) == rank;
        for (int d = 0; compatible && d < rank; ++d)
            compatible = d == *axis || shape[static_cast<std::size_t>(d)] ==
                                           slotType(slots.front()).shape[static_cast<std::size_t>(d)];
        if (!compatible)
            return error("onnx.concat", "input " + slotType(s).toString() + " does not match " +
                                            slotType(slots.front()).toString() + " outside axis " +
                                            std::to_string(*axis));
    }
    if (slots.size() == 1)
        return alias(0, slots.front());
    std::vector<const ConstTensor*> parts;
    for (auto s : slots) {
        const ConstTensor* c = constant(s);
        if (!c)
            break;
        parts.push_back(c);
    }
    if (parts.size() == slots.size())
        if (auto folded = foldConcat(parts, *axis))
            return defineConstant(0, std::move(*folded));
    ElementType element = slotType(slots.front()).element;
    for (auto s : slots)
        if (slots_[s].parameter || slots_[s].value.valid()) {
            element = slotType(s).element;
            break;
        }
    std::vector<ValueId> values;
    values.reserve(slots.size());
    for (auto s : slots)
        values.push_back(operand(s, element, slotType(s).shape));
    return define(0, b_.concatenate(std::move(values), *axis, label_));
}

bool Importer::importSplit() {
    auto s = input(0);
    if (!s)
        return false;
    const Shape in = slotType(*s).shape;
    auto axis = normalizeAxis(attrInt("axis", 0), static_cast<int>(in.size()), "axis");
    if (!axis)
        return false;
    const std::int64_t dim = in[static_cast<std::size_t>(*axis)];
    std::optional<std::vector<std::int64_t>> sizes;
    if (hasInput(1)) {
        sizes = constantInts(1, "split sizes");
        if (!sizes)
            return false;
    } else {
        bool ok = true;
        sizes = attrInts("split", ok);
        if (!ok)
            return false;
    }
    if (!sizes || sizes->empty()) {
        const std::int64_t parts = attrInt("num_outputs", outputCount());
        if (parts < 1)
            return error("onnx.split", "needs at least one output");
        const std::int64_t chunk = (dim + parts - 1) / parts;
        sizes = std::vector<std::int64_t>(static_cast<std::size_t>(parts), chunk);
        sizes->back() = dim - chunk * (parts - 1);
    }
    std::int64_t total = 0;
    for (auto v : *sizes) {
        if (v < 0 || v > dim)
            return error("onnx.split",
                         "split sizes [" + ir::shapeToString(*sizes) + "] do not fit " + std::to_string(dim));
        total += v;
    }
    if (total != dim || static_cast<int>(sizes->size()) != outputCount())
        return error("onnx.split", "split sizes [" + ir::shapeToString(*sizes) +
                                       "] do not divide dimension " + std::to_string(*axis) + " of size " +
                                       std::to_string(dim) + " into " + std::to_string(outputCount()) +
                                       " outputs");
    const ConstTensor* c = constant(*s);
    std::int64_t offset = 0;
    for (int o = 0; o < outputCount(); ++o) {
        const std::int64_t length = (*sizes)[static_cast<std::size_t>(o)];
        std::vector<std::int64_t> start(in.size(), 0), step(in.size(), 1);
        Shape size = in, limit = in;
        start[static_cast<std::size_t>(*axis)] = offset;
        size[static_cast<std::size_t>(*axis)] = length;
        limit[static_cast<std::size_t>(*axis)] = offset + length;
        offset += length;
        if (!hasOutput(o))
            continue;
        if (c)
            if (auto folded = foldSlice(*c, start, step, size)) {
                if (!defineConstant(o, std::move(*folded)))
                    return false;
                continue;
            }
        if (!define(o, b_.slice(value(*s), start, limit, {}, label_)))
            return false;
    }
    return true;
}

bool Importer::importGather() {
    auto data = input(0), indices = input(1);
    if (!data || !indices)
        return false;
    const TensorType td = slotType(*data), ti = slotType(*indices);
    if (td.rank() == 0)
        return error("onnx.gather", "cannot gather from a scalar");
    auto axis = normalizeAxis(attrInt("axis", 0), td.rank(), "axis");
    if (!axis)
        return false;
    const std::int64_t n = td.shape[static_cast<std::size_t>(*axis)];
    ValueId indexValue;
    if (const ConstTensor* ci = constant(*indices)) {
        std::vector<std::int64_t> idx = ci->toInts();
        for (auto& i : idx) {
            if (i < 0)
                i += n;
            if (i < 0 || i >= n)
                return error("onnx.gather", "index " + std::to_string(i < 0 ? i - n : i) +
                                                " is out of range for axis " + std::to_string(*axis) +
                                                " of size " + std::to_string(n));
        }
        if (const ConstTensor* cd = constant(*data))
            if (auto folded = foldGather(*cd, idx, ti.shape, *axis))
                return defineConstant(0, std::move(*folded));
        ir::ConstantAttributes literal;
        if (static_cast<std::int64_t>(idx.size()) <= kLiteralLimit)
            literal.values.assign(idx.begin(), idx.end());
        auto r = b_.op(OpKind::Constant, {}, std::move(literal), label_, {},
                       {TensorType{ti.shape, ElementType::I64}});
        indexValue = r.empty() ? ValueId{} : r.front();
    } else {
        indexValue = value(*indices);
    }
    // ONNX Gather: result = data.shape[:axis] + indices.shape + data.shape[axis+1:].
    const std::int64_t q = ti.rank(), r = td.rank();
    ir::GatherAttributes g;
    for (std::int64_t d = 0; d < *axis; ++d)
        g.offsetDims.push_back(d);
    for (std::int64_t d = *axis + q; d < r + q - 1; ++d)
        g.offsetDims.push_back(d);
    g.collapsedSliceDims = {*axis};
    g.startIndexMap = {*axis};
    g.indexVectorDim = q;
    g.sliceSizes = td.shape;
    g.sliceSizes[static_cast<std::size_t>(*axis)] = 1;
    return define(0, b_.gather(operand(*data, td.element, td.shape), indexValue, std::move(g), label_));
}

bool Importer::importExpand() {
    auto s = input(0);
    if (!s)
        return false;
    auto dims = constantInts(1, "shape");
    if (!dims)
        return false;
    for (auto d : *dims)
        if (d < 0 || d > kMaxExtent)
            return error("onnx.expand", "shape [" + ir::shapeToString(*dims) + "] is invalid");
    const Shape in = slotType(*s).shape;
    auto target = broadcastShapes(in, Shape(dims->begin(), dims->end()));
    if (!target || !checkedElements(*target))
        return error("onnx.broadcast",
                     "cannot expand [" + ir::shapeToString(in) + "] to [" + ir::shapeToString(*dims) + "]");
    if (const ConstTensor* c = constant(*s))
        if (auto folded = foldBroadcast(*c, *target))
            return defineConstant(0, std::move(*folded));
    if (*target == in)
        return alias(0, *s);
    return define(0, broadcast(value(*s), *target));
}

bool Importer::importTile() {
    auto s = input(0);
    if (!s)
        return false;
    auto repeats = constantInts(1, "repeats");
    if (!repeats)
        return false;
    const Shape in = slotType(*s).shape;
    if (repeats->size() != in.size())
        return error("onnx.tile", "needs one repeat per dimension");
    Shape interleaved, ones, out;
    Dims dims;
    bool identity = true;
    for (std::size_t d = 0; d < in.size(); ++d) {
        const std::int64_t r = (*repeats)[d];
        if (r < 0 || r > kMaxExtent)
            return error("onnx.tile", "repeats must be non-negative");
        identity = identity && r == 1;
        interleaved.insert(interleaved.end(), {r, in[d]});
        ones.insert(ones.end(), {1, in[d]});
        dims.push_back(static_cast<std::int64_t>(2 * d + 1));
        out.push_back(r * in[d]);
    }
    if (!checkedElements(interleaved))
        return error("onnx.tile", "the result is too large");
    if (identity)
        return alias(0, *s);
    if (const ConstTensor* c = constant(*s))
        if (auto folded = foldBroadcast(reshaped(*c, ones), interleaved))
            return defineConstant(0, reshaped(*folded, out));
    return define(0, reshapeTo(b_.broadcastInDim(value(*s), interleaved, dims, label_), out));
}

bool Importer::importRange() {
    const ConstTensor* parts[3] = {};
    for (int i = 0; i < 3; ++i) {
        auto s = input(i);
        if (!s)
            return false;
        parts[i] = constant(*s);
        if (!parts[i])
            return error("onnx.dynamic-shape",
                         "'" + node_->input(i) +
                             "' must be known at import time: a run-time range has no static shape");
    }
    std::string why;
    auto folded = foldRange(*parts[0], *parts[1], *parts[2], why);
    if (!folded)
        return error("onnx.range", why.empty() ? "the range has too many elements" : why);
    return defineConstant(0, std::move(*folded));
}

bool Importer::importPad() {
    const std::string mode = attrString("mode", "constant");
    if (mode != "constant")
        return importOpaque("Pad mode '" + mode + "'");
    auto s = input(0);
    if (!s)
        return false;
    const TensorType t = slotType(*s);
    std::optional<std::vector<std::int64_t>> pads;
    double fill = 0;
    Dims axes = iotaDims(t.rank());
    if (hasInput(1)) {
        pads = constantInts(1, "pads");
        if (!pads)
            return false;
        if (hasInput(2)) {
            auto v = input(2);
            if (!v)
                return false;
            const ConstTensor* c = constant(*v);
            if (!c || c->elements() != 1)
                return error("onnx.pad", "the padding value must be a known scalar");
            fill = c->realAt(0);
        }
        if (hasInput(3)) {
            auto given = constantInts(3, "axes");
            if (!given)
                return false;
            auto normalized = normalizeAxes(*given, t.rank(), "axes");
            if (!normalized)
                return false;
            axes = *normalized;
        }
    } else {
        bool ok = true;
        pads = attrInts("pads", ok);
        if (!pads)
            pads = attrInts("paddings", ok);
        if (!ok)
            return false;
        if (!pads)
            return error("onnx.pad", "needs pads");
        fill = attrFloat("value", 0.0f);
    }
    if (pads->size() != 2 * axes.size())
        return error("onnx.pad", "needs two pads per padded axis");
    Dims low(t.shape.size(), 0), high(t.shape.size(), 0);
    bool zero = true;
    for (std::size_t k = 0; k < axes.size(); ++k) {
        const auto d = static_cast<std::size_t>(axes[k]);
        low[d] = (*pads)[k];
        high[d] = (*pads)[k + axes.size()];
        if (std::abs(low[d]) > kMaxExtent || std::abs(high[d]) > kMaxExtent ||
            t.shape[d] + low[d] + high[d] < 0)
            return error("onnx.pad", "pads [" + ir::shapeToString(*pads) + "] do not fit " + t.toString());
        zero = zero && low[d] == 0 && high[d] == 0;
    }
    if (zero)
        return alias(0, *s);
    if (const ConstTensor* c = constant(*s))
        if (auto folded = foldPad(*c, low, high, fill))
            return defineConstant(0, std::move(*folded));
    return define(0, b_.pad(value(*s), splat(fill, t.element, {}), low, high, {}, label_));
}

bool Importer::importResize() {
    auto s = input(0);
    if (!s)
        return false;
    const Shape in = slotType(*s).shape;
    const bool upsample = node_->op_type() == "Upsample";
    std::optional<Shape> out;
    auto fromScales = [&](const std::vector<double>& scales) -> bool {
        if (scales.size() != in.size())
            return false;
        Shape shape;
        for (std::size_t d = 0; d < in.size(); ++d) {
            const double v = std::floor(static_cast<double>(in[d]) * scales[d]);
            if (!(v >= 0 && v <= static_cast<double>(kMaxExtent)))
                return false;
            shape.push_back(static_cast<std::int64_t>(v));
        }
        out = shape;
        return true;
    };
    auto constantAt = [&](int i) -> const ConstTensor* {
        if (!hasInput(i))
            return nullptr;
        auto slot = input(i);
        return slot ? constant(*slot) : nullptr;
    };
    if (!upsample && hasInput(3)) {
        if (const ConstTensor* sizes = constantAt(3);
            sizes && sizes->elements() == static_cast<std::int64_t>(in.size()))
            out = Shape(sizes->toInts());
    }
    const int scalesInput = upsample || opset_ < 11 ? 1 : 2;
    if (!out) {
        if (const ConstTensor* scales = constantAt(scalesInput); scales && scales->elements() > 0) {
            std::vector<double> values;
            for (std::int64_t i = 0; i < scales->elements(); ++i)
                values.push_back(scales->realAt(i));
            fromScales(values);
        } else if (const auto* a = attribute("scales"); a && upsample) {
            fromScales(std::vector<double>(a->floats().begin(), a->floats().end()));
        }
    }
    if (!out)
        return importOpaque("Resize with run-time scales or sizes");
    const std::string mode = attrString("mode", "nearest");
    const std::string transform = attrString("coordinate_transformation_mode", "half_pixel");
    const std::string rounding = attrString("nearest_mode", "round_prefer_floor");
    if (mode != "nearest" || transform == "align_corners" || transform == "tf_crop_and_resize" ||
        rounding == "ceil" || rounding == "round_prefer_ceil")
        return importOpaque("Resize mode '" + mode +
                            "' (only nearest upsampling by whole factors maps to the IR)");
    // Nearest-neighbour upsampling by whole factors repeats every element: broadcast [d, f] then merge.
    Shape interleaved;
    Dims dims;
    bool identity = true;
    for (std::size_t d = 0; d < in.size(); ++d) {
        const std::int64_t target = (*out)[d];
        if (in[d] == 0 || target % in[d] != 0 || target < in[d])
            return importOpaque("Resize by a factor that is not a whole number");
        identity = identity && target == in[d];
        interleaved.insert(interleaved.end(), {in[d], target / in[d]});
        dims.push_back(static_cast<std::int64_t>(2 * d));
    }
    if (identity)
        return alias(0, *s);
    if (!checkedElements(interleaved))
        return error("onnx.resize", "the result is too large");
    return define(0, reshapeTo(b_.broadcastInDim(value(*s), interleaved, dims, label_), *out));
}

bool Importer::importScatterNd() {
    auto data = input(0), indices = input(1), updates = input(2);
    if (!data || !indices || !updates)
        return false;
    const ConstTensor* cd = constant(*data);
    const ConstTensor* ci = constant(*indices);
    const ConstTensor* cu = constant(*updates);
    if (cd && ci && cu && attrString("reduction", "none") == "none") {
        std::string why;
        if (auto folded = foldScatterNd(*cd, *ci, *cu, why))
            return defineConstant(0, std::move(*folded));
        if (!why.empty())
            return error("onnx.scatter", why);
    }
    return importOpaque("ScatterND on run-time data");
}

}  // namespace shardscope::import::onnx_import
