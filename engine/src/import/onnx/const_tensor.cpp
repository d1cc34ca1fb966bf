// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "import/onnx/const_tensor.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardscope::import::onnx_import {

using ir::ElementType;
using ir::Shape;

namespace {

constexpr std::int64_t kMaxExactInteger = std::int64_t{1} << 53;

std::vector<std::int64_t> rowMajorStrides(const Shape& shape) {
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (std::size_t i = shape.size(); i-- > 1;)
        strides[i - 1] = strides[i] * shape[i];
    return strides;
}

// Strides of `shape` read as a tensor broadcast to `target` (right-aligned; size-1 dimensions repeat).
std::vector<std::int64_t> broadcastStrides(const Shape& shape, const Shape& target) {
    std::vector<std::int64_t> own = rowMajorStrides(shape);
    std::vector<std::int64_t> out(target.size(), 0);
    const std::size_t offset = target.size() - shape.size();
    for (std::size_t i = 0; i < shape.size(); ++i)
        out[offset + i] = shape[i] == 1 && target[offset + i] != 1 ? 0 : own[i];
    return out;
}

// Walks every element of `shape` in row-major order, tracking one offset per operand given its strides.
class Walker {
public:
    Walker(const Shape& shape, std::vector<std::vector<std::int64_t>> strides)
        : shape_(shape), strides_(std::move(strides)), index_(shape.size(), 0), offsets(strides_.size(), 0) {}

    void next() {
        for (std::size_t d = shape_.size(); d-- > 0;) {
            ++index_[d];
            for (std::size_t k = 0; k < strides_.size(); ++k)
                offsets[k] += strides_[k][d];
            if (index_[d] < shape_[d])
                return;
            for (std::size_t k = 0; k < strides_.size(); ++k)
                offsets[k] -= strides_[k][d] * index_[d];
            index_[d] = 0;
        }
    }
    const std::vector<std::int64_t>& index() const { return index_; }

private:
    Shape shape_;
    std::vector<std::vector<std::int64_t>> strides_;
    std::vector<std::int64_t> index_;

public:
    std::vector<std::int64_t> offsets;
};

bool fits(const Shape& shape) {
    auto n = checkedElements(shape);
    return n && *n <= kFoldLimit;
}

bool allSplat(std::initializer_list<const ConstTensor*> xs) {
    for (const auto* x : xs)
        if (x->stored() != 1)
            return false;
    return true;
}

// An empty result of the given type, with storage reserved for its elements.
ConstTensor emptyLike(ElementType element, Shape shape) {
    ConstTensor t;
    t.element = element;
    t.shape = std::move(shape);
    auto n = checkedElements(t.shape);
    if (n && *n <= kFoldLimit) {
        if (t.integral())
            t.ints.reserve(static_cast<std::size_t>(*n));
        else
            t.reals.reserve(static_cast<std::size_t>(*n));
    }
    return t;
}

void push(ConstTensor& t, std::int64_t i, double r) {
    if (t.integral())
        t.ints.push_back(wrapInteger(t.element, i));
    else
        t.reals.push_back(r);
}

// Appends element `offset` of `x` to `out` (same representation).
void copyElement(ConstTensor& out, const ConstTensor& x, std::int64_t offset) {
    if (out.integral())
        out.ints.push_back(x.intAt(offset));
    else
        out.reals.push_back(x.realAt(offset));
}

std::uint64_t asUnsigned(std::int64_t v) {
    return static_cast<std::uint64_t>(v);
}
std::int64_t asSigned(std::uint64_t v) {
    return v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
               ? static_cast<std::int64_t>(v)
               : -static_cast<std::int64_t>(~v) - 1;
}

bool isComparison(FoldBinary op) {
    switch (op) {
        case FoldBinary::Equal:
        case FoldBinary::Less:
        case FoldBinary::Greater:
        case FoldBinary::LessEqual:
        case FoldBinary::GreaterEqual:
        case FoldBinary::And:
        case FoldBinary::Or:
        case FoldBinary::Xor:
            return true;
        default:
            return false;
    }
}

// One element of a binary op on integers; false when undefined.
bool intBinary(FoldBinary op, std::int64_t a, std::int64_t b, std::int64_t& r) {
    switch (op) {
        case FoldBinary::Add:
            r = asSigned(asUnsigned(a) + asUnsigned(b));
            return true;
        case FoldBinary::Sub:
            r = asSigned(asUnsigned(a) - asUnsigned(b));
            return true;
        case FoldBinary::Mul:
            r = asSigned(asUnsigned(a) * asUnsigned(b));
            return true;
        case FoldBinary::Div:
            if (b == 0)
                return false;
            r = b == -1 ? asSigned(0 - asUnsigned(a)) : a / b;
            return true;
        case FoldBinary::Mod:
        case FoldBinary::FMod:
            if (b == 0)
                return false;
            r = b == -1 ? 0 : a % b;
            if (op == FoldBinary::Mod && r != 0 && ((r < 0) != (b < 0)))
                r += b;
            return true;
        case FoldBinary::Pow:
            r = toInt64(std::pow(static_cast<double>(a), static_cast<double>(b)));
            return true;
        case FoldBinary::Max:
            r = std::max(a, b);
            return true;
        case FoldBinary::Min:
            r = std::min(a, b);
            return true;
        case FoldBinary::Equal:
            r = a == b;
            return true;
        case FoldBinary::Less:
            r = a < b;
            return true;
        case FoldBinary::Greater:
            r = a > b;
            return true;
        case FoldBinary::LessEqual:
            r = a <= b;
            return true;
        case FoldBinary::GreaterEqual:
            r = a >= b;
            return true;
        case FoldBinary::And:
            r = (a != 0) && (b != 0);
            return true;
        case FoldBinary::Or:
            r = (a != 0) || (b != 0);
            return true;
        case FoldBinary::Xor:
            r = (a != 0) != (b != 0);
            return true;
    }
    return false;
}

double realBinary(FoldBinary op, double a, double b) {
    switch (op) {
        case FoldBinary::Add:
            return a + b;
        case FoldBinary::Sub:
            return a - b;
        case FoldBinary::Mul:
            return a * b;
        case FoldBinary::Div:
            return a / b;
        case FoldBinary::FMod:
            return std::fmod(a, b);
        case FoldBinary::Mod: {
            double r = std::fmod(a, b);
            if (r != 0 && ((r < 0) != (b < 0)))
                r += b;
            return r;
        }
        case FoldBinary::Pow:
            return std::pow(a, b);
        case FoldBinary::Max:
            return std::max(a, b);
        case FoldBinary::Min:
            return std::min(a, b);
        case FoldBinary::Equal:
            return a == b;
        case FoldBinary::Less:
            return a < b;
        case FoldBinary::Greater:
            return a > b;
        case FoldBinary::LessEqual:
            return a <= b;
        case FoldBinary::GreaterEqual:
            return a >= b;
        case FoldBinary::And:
            return (a != 0) && (b != 0);
        case FoldBinary::Or:
            return (a != 0) || (b != 0);
        case FoldBinary::Xor:
            return (a != 0) != (b != 0);
    }
    return 0;
}

double realUnary(FoldUnary op, double x) {
    switch (op) {
        case FoldUnary::Neg:
            return -x;
        case FoldUnary::Abs:
            return std::fabs(x);
        case FoldUnary::Sqrt:
            return std::sqrt(x);
        case FoldUnary::Exp:
            return std::exp(x);
        case FoldUnary::Log:
            return std::log(x);
        case FoldUnary::Floor:
            return std::floor(x);
        case FoldUnary::Ceil:
            return std::ceil(x);
        case FoldUnary::Round:
            return std::nearbyint(x);
        case FoldUnary::Not:
            return x == 0;
        case FoldUnary::Sign:
            return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
        case FoldUnary::Reciprocal:
            return 1.0 / x;
        case FoldUnary::Relu:
            return x > 0 ? x : 0.0;
        case FoldUnary::Sigmoid:
            return 1.0 / (1.0 + std::exp(-x));
        case FoldUnary::Tanh:
            return std::tanh(x);
        case FoldUnary::Erf:
            return std::erf(x);
    }
    return x;
}

std::int64_t intUnary(FoldUnary op, std::int64_t x) {
    switch (op) {
        case FoldUnary::Neg:
            return asSigned(0 - asUnsigned(x));
        case FoldUnary::Abs:
            return x < 0 ? asSigned(0 - asUnsigned(x)) : x;
        case FoldUnary::Floor:
        case FoldUnary::Ceil:
        case FoldUnary::Round:
            return x;
        case FoldUnary::Not:
            return x == 0;
        case FoldUnary::Sign:
            return x > 0 ? 1 : x < 0 ? -1 : 0;
        case FoldUnary::Relu:
            return x > 0 ? x : 0;
        default:
            return toInt64(realUnary(op, static_cast<double>(x)));
    }
}

}  // namespace

std::int64_t ConstTensor::intAt(std::int64_t i) const {
    const std::size_t k = stored() == 1 ? 0 : static_cast<std::size_t>(i);
    return integral() ? ints[k] : toInt64(reals[k]);
}

double ConstTensor::realAt(std::int64_t i) const {
    const std::size_t k = stored() == 1 ? 0 : static_cast<std::size_t>(i);
    return integral() ? static_cast<double>(ints[k]) : reals[k];
}

std::vector<std::int64_t> ConstTensor::toInts() const {
    std::vector<std::int64_t> out;
    const std::int64_t n = elements();
    out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)));
    for (std::int64_t i = 0; i < n; ++i)
        out.push_back(intAt(i));
    return out;
}

ConstTensor ConstTensor::ofInts(ElementType element, Shape shape, std::vector<std::int64_t> values) {
    ConstTensor t;
    t.element = element;
    t.shape = std::move(shape);
    if (t.integral()) {
        for (auto& v : values)
            v = wrapInteger(element, v);
        t.ints = std::move(values);
    } else {
        t.reals.assign(values.begin(), values.end());
    }
    return t;
}

ConstTensor ConstTensor::ofReals(ElementType element, Shape shape, std::vector<double> values) {
    ConstTensor t;
    t.element = element;
    t.shape = std::move(shape);
    if (t.integral()) {
        t.ints.reserve(values.size());
        for (double v : values)
            t.ints.push_back(wrapInteger(element, toInt64(v)));
    } else {
        t.reals = std::move(values);
    }
    return t;
}

ConstTensor ConstTensor::splat(ElementType element, Shape shape, double value) {
    const bool empty = ir::elementCount(shape) == 0;
    return ofReals(element, std::move(shape), empty ? std::vector<double>{} : std::vector<double>{value});
}

std::optional<std::int64_t> checkedElements(const Shape& shape) {
    std::int64_t n = 1;
    for (auto d : shape) {
        if (d < 0)
            return std::nullopt;
        if (d == 0)
            n = 0;
        else if (n > kMaxExactInteger / d)
            return std::nullopt;
        else
            n *= d;
    }
    for (auto d : shape)
        if (d == 0)
            return 0;
    return n;
}

std::int64_t toInt64(double value) {
    if (std::isnan(value))
        return 0;
    if (value >= 9.2233720368547748e18)
        return std::numeric_limits<std::int64_t>::max();
    if (value <= -9.2233720368547758e18)
        return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(value);
}

std::int64_t wrapInteger(ElementType element, std::int64_t value) {
    switch (element) {
        case ElementType::I1:
            return value != 0;
        case ElementType::I8:
            return static_cast<std::int8_t>(static_cast<std::uint8_t>(asUnsigned(value) & 0xff));
        case ElementType::I16:
            return static_cast<std::int16_t>(static_cast<std::uint16_t>(asUnsigned(value) & 0xffff));
        case ElementType::I32:
            return static_cast<std::int32_t>(static_cast<std::uint32_t>(asUnsigned(value) & 0xffffffffu));
        case ElementType::U8:
            return static_cast<std::int64_t>(asUnsigned(value) & 0xff);
        case ElementType::U16:
            return static_cast<std::int64_t>(asUnsigned(value) & 0xffff);
        case ElementType::U32:
            return static_cast<std::int64_t>(asUnsigned(value) & 0xffffffffu);
        default:
            return value;
    }
}

std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b) {
    const std::size_t rank = std::max(a.size(), b.size());
    Shape out(rank, 1);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da == db || db == 1)
            out[i] = da;
        else if (da == 1)
            out[i] = db;
        else
            return std::nullopt;
    }
    return out;
}

std::optional<ConstTensor> foldBinary(FoldBinary op, const ConstTensor& a, const ConstTensor& b,
                                      std::string& error) {
    auto shape = broadcastShapes(a.shape, b.shape);
    if (!shape) {
        error = "shapes " + ir::shapeToString(a.shape) + " and " + ir::shapeToString(b.shape) +
                " do not broadcast";
        return std::nullopt;
    }
    const bool integers = a.integral() && b.integral();
    ElementType element =
        isComparison(op) ? ElementType::I1 : (a.integral() && !b.integral() ? b.element : a.element);
    const bool splat = allSplat({&a, &b});
    if (!splat && !fits(*shape))
        return std::nullopt;
    ConstTensor out = emptyLike(element, *shape);
    auto one = [&](std::int64_t ia, std::int64_t ib) -> bool {
        if (integers) {
            std::int64_t r = 0;
            if (!intBinary(op, a.intAt(ia), b.intAt(ib), r)) {
                error = "integer division by zero";
                return false;
            }
            push(out, r, static_cast<double>(r));
        } else {
            double r = realBinary(op, a.realAt(ia), b.realAt(ib));
            push(out, toInt64(r), r);
        }
        return true;
    };
    const std::int64_t n = out.elements();
    if (n == 0)
        return out;
    if (splat) {
        if (!one(0, 0))
            return std::nullopt;
        return out;
    }
    Walker walk(*shape, {broadcastStrides(a.shape, *shape), broadcastStrides(b.shape, *shape)});
    for (std::int64_t i = 0; i < n; ++i, walk.next())
        if (!one(walk.offsets[0], walk.offsets[1]))
            return std::nullopt;
    return out;
}

std::optional<ConstTensor> foldUnary(FoldUnary op, const ConstTensor& x) {
    ElementType element = op == FoldUnary::Not ? ElementType::I1 : x.element;
    const std::int64_t n = x.elements();
    if (x.stored() != 1 && !fits(x.shape))
        return std::nullopt;
    ConstTensor out = emptyLike(element, x.shape);
    const std::int64_t count = x.stored() == 1 && n > 0 ? 1 : n;
    for (std::int64_t i = 0; i < count; ++i) {
        if (x.integral()) {
            std::int64_t r = intUnary(op, x.intAt(i));
            push(out, r, static_cast<double>(r));
        } else {
            double r = realUnary(op, x.realAt(i));
            push(out, toInt64(r), r);
        }
    }
    return out;
}

std::optional<ConstTensor> foldCast(const ConstTensor& x, ElementType element) {
    const std::int64_t n = x.elements();
    if (x.stored() != 1 && !fits(x.shape))
        return std::nullopt;
    ConstTensor out = emptyLike(element, x.shape);
    const std::int64_t count = x.stored() == 1 && n > 0 ? 1 : n;
    for (std::int64_t i = 0; i < count; ++i) {
        if (out.integral()) {
            out.ints.push_back(
                wrapInteger(element, element == ElementType::I1 ? (x.realAt(i) != 0) : x.intAt(i)));
        } else {
            double r = x.realAt(i);
            if (element == ElementType::F32 || element == ElementType::F16 || element == ElementType::BF16)
                r = static_cast<double>(static_cast<float>(r));
            out.reals.push_back(r);
        }
    }
    return out;
}

std::optional<ConstTensor> foldWhere(const ConstTensor& condition, const ConstTensor& x,
                                     const ConstTensor& y) {
    auto xy = broadcastShapes(x.shape, y.shape);
    if (!xy)
        return std::nullopt;
    auto shape = broadcastShapes(condition.shape, *xy);
    if (!shape)
        return std::nullopt;
    const bool splat = allSplat({&condition, &x, &y});
    if (!splat && !fits(*shape))
        return std::nullopt;
    ConstTensor out = emptyLike(x.element, *shape);
    const std::int64_t n = out.elements();
    if (n == 0)
        return out;
    if (splat) {
        copyElement(out, condition.intAt(0) != 0 ? x : y, 0);
        return out;
    }
    Walker walk(*shape, {broadcastStrides(condition.shape, *shape), broadcastStrides(x.shape, *shape),
                         broadcastStrides(y.shape, *shape)});
    for (std::int64_t i = 0; i < n; ++i, walk.next()) {
        if (condition.intAt(walk.offsets[0]) != 0)
            copyElement(out, x, walk.offsets[1]);
        else
            copyElement(out, y, walk.offsets[2]);
    }
    return out;
}

std::optional<ConstTensor> foldBroadcast(const ConstTensor& x, const Shape& shape) {
    ConstTensor out = emptyLike(x.element, shape);
    const auto n = checkedElements(shape);
    if (!n)
        return std::nullopt;
    if (*n == 0)
        return out;
    if (x.stored() == 1) {
        copyElement(out, x, 0);
        return out;
    }
    if (*n > kFoldLimit)
        return std::nullopt;
    Walker walk(shape, {broadcastStrides(x.shape, shape)});
    for (std::int64_t i = 0; i < *n; ++i, walk.next())
        copyElement(out, x, walk.offsets[0]);
    return out;
}

std::optional<ConstTensor> foldTranspose(const ConstTensor& x, const std::vector<std::int64_t>& permutation) {
    Shape shape;
    for (auto p : permutation)
        shape.push_back(x.shape[static_cast<std::size_t>(p)]);
    if (x.stored() == 1) {
        ConstTensor out = x;
        out.shape = shape;
        return out;
    }
    if (!fits(shape))
        return std::nullopt;
    const auto own = rowMajorStrides(x.shape);
    std::vector<std::int64_t> strides;
    strides.reserve(permutation.size());
    for (auto p : permutation)
        strides.push_back(own[static_cast<std::size_t>(p)]);
    ConstTensor out = emptyLike(x.element, shape);
    const std::int64_t n = out.elements();
    Walker walk(shape, {strides});
    for (std::int64_t i = 0; i < n; ++i, walk.next())
        copyElement(out, x, walk.offsets[0]);
    return out;
}

std::optional<ConstTensor> foldSlice(const ConstTensor& x, const std::vector<std::int64_t>& start,
                                     const std::vector<std::int64_t>& step, const Shape& size) {
    if (x.stored() == 1) {
        ConstTensor out = x;
        out.shape = size;
        if (out.elements() == 0) {
            out.ints.clear();
            out.reals.clear();
        }
        return out;
    }
    if (!fits(size))
        return std::nullopt;
    const auto own = rowMajorStrides(x.shape);
    std::int64_t base = 0;
    std::vector<std::int64_t> strides;
    for (std::size_t d = 0; d < size.size(); ++d) {
        base += start[d] * own[d];
        strides.push_back(step[d] * own[d]);
    }
    ConstTensor out = emptyLike(x.element, size);
    const std::int64_t n = out.elements();
    Walker walk(size, {strides});
    for (std::int64_t i = 0; i < n; ++i, walk.next())
        copyElement(out, x, base + walk.offsets[0]);
    return out;
}

std::optional<ConstTensor> foldGather(const ConstTensor& data, const std::vector<std::int64_t>& indices,
                                      const Shape& indicesShape, std::int64_t axis) {
    const auto a = static_cast<std::size_t>(axis);
    Shape shape(data.shape.begin(), data.shape.begin() + static_cast<std::ptrdiff_t>(a));
    shape.insert(shape.end(), indicesShape.begin(), indicesShape.end());
    shape.insert(shape.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.shape.end());
    if (!fits(shape))
        return std::nullopt;
    std::int64_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < a; ++d)
        outer *= data.shape[d];
    for (std::size_t d = a + 1; d < data.shape.size(); ++d)
        inner *= data.shape[d];
    const std::int64_t axisSize = data.shape[a];
    ConstTensor out = emptyLike(data.element, shape);
    if (out.elements() == 0)
        return out;
    for (std::int64_t o = 0; o < outer; ++o)
        for (auto index : indices)
            for (std::int64_t i = 0; i < inner; ++i)
                copyElement(out, data, (o * axisSize + index) * inner + i);
    return out;
}

std::optional<ConstTensor> foldConcat(const std::vector<const ConstTensor*>& parts, std::int64_t axis) {
    if (parts.empty())
        return std::nullopt;
    const auto a = static_cast<std::size_t>(axis);
    Shape shape = parts.front()->shape;
    shape[a] = 0;
    for (const auto* p : parts)
        shape[a] += p->shape[a];
    if (!fits(shape))
        return std::nullopt;
    std::int64_t outer = 1;
    for (std::size_t d = 0; d < a; ++d)
        outer *= shape[d];
    ConstTensor out = emptyLike(parts.front()->element, shape);
    if (out.elements() == 0)
        return out;
    for (std::int64_t o = 0; o < outer; ++o)
        for (const auto* p : parts) {
            std::int64_t chunk = 1;
            for (std::size_t d = a; d < p->shape.size(); ++d)
                chunk *= p->shape[d];
            for (std::int64_t i = 0; i < chunk; ++i)
                copyElement(out, *p, o * chunk + i);
        }
    return out;
}

std::optional<ConstTensor> foldReduce(FoldReduce op, const ConstTensor& x,
                                      const std::vector<std::int64_t>& axes, bool keepDims) {
    if (!fits(x.shape))
        return std::nullopt;
    std::vector<bool> reduced(x.shape.size(), false);
    for (auto a : axes)
        reduced[static_cast<std::size_t>(a)] = true;
    Shape kept, out;
    std::int64_t count = 1;
    for (std::size_t d = 0; d < x.shape.size(); ++d) {
        if (reduced[d]) {
            count *= x.shape[d];
            if (keepDims)
                out.push_back(1);
            kept.push_back(1);
        } else {
            out.push_back(x.shape[d]);
            kept.push_back(x.shape[d]);
        }
    }
    const auto outStrides = broadcastStrides(kept, x.shape);
    const std::int64_t m = ir::elementCount(kept);
    std::vector<double> acc(static_cast<std::size_t>(m));
    const double init = op == FoldReduce::Prod  ? 1.0
                        : op == FoldReduce::Max ? -std::numeric_limits<double>::infinity()
                        : op == FoldReduce::Min ? std::numeric_limits<double>::infinity()
                                                : 0.0;
    std::fill(acc.begin(), acc.end(), init);
    const std::int64_t n = x.elements();
    // Reduced dimensions get stride 0 in the kept layout, so the walker's offset is the output element.
    std::vector<std::int64_t> strides = outStrides;
    for (std::size_t d = 0; d < strides.size(); ++d)
        if (reduced[d])
            strides[d] = 0;
    Walker walk(x.shape, {strides});
    for (std::int64_t i = 0; i < n; ++i, walk.next()) {
        double& slot = acc[static_cast<std::size_t>(walk.offsets[0])];
        const double v = x.realAt(i);
        switch (op) {
            case FoldReduce::Sum:
            case FoldReduce::Mean:
                slot += v;
                break;
            case FoldReduce::Prod:
                slot *= v;
                break;
            case FoldReduce::Max:
                slot = std::max(slot, v);
                break;
            case FoldReduce::Min:
                slot = std::min(slot, v);
                break;
        }
    }
    if (op == FoldReduce::Mean && count > 0)
        for (auto& v : acc)
            v /= static_cast<double>(count);
    return ConstTensor::ofReals(x.element, out, std::move(acc));
}

std::optional<ConstTensor> foldScatterNd(const ConstTensor& data, const ConstTensor& indices,
                                         const ConstTensor& updates, std::string& error) {
    if (!fits(data.shape) || !fits(indices.shape) || !fits(updates.shape))
        return std::nullopt;
    if (indices.shape.empty()) {
        error = "ScatterND indices must have rank >= 1";
        return std::nullopt;
    }
    const auto k = static_cast<std::size_t>(indices.shape.back());
    if (k > data.shape.size()) {
        error = "ScatterND index depth " + std::to_string(k) + " exceeds the data rank";
        return std::nullopt;
    }
    // updates.shape must be indices.shape[:-1] + data.shape[k:].
    Shape expected(indices.shape.begin(), indices.shape.end() - 1);
    expected.insert(expected.end(), data.shape.begin() + static_cast<std::ptrdiff_t>(k), data.shape.end());
    if (updates.shape != expected) {
        error = "ScatterND updates " + ir::shapeToString(updates.shape) + " should have shape " +
                ir::shapeToString(expected);
        return std::nullopt;
    }
    ConstTensor out = emptyLike(data.element, data.shape);
    const std::int64_t n = data.elements();
    for (std::int64_t i = 0; i < n; ++i)
        copyElement(out, data, i);
    const auto strides = rowMajorStrides(data.shape);
    std::int64_t slice = 1;
    for (std::size_t d = k; d < data.shape.size(); ++d)
        slice *= data.shape[d];
    std::int64_t tuples = 1;
    for (std::size_t d = 0; d + 1 < indices.shape.size(); ++d)
        tuples *= indices.shape[d];
    for (std::int64_t t = 0; t < tuples; ++t) {
        std::int64_t base = 0;
        for (std::size_t j = 0; j < k; ++j) {
            std::int64_t index =
                indices.intAt(t * static_cast<std::int64_t>(k) + static_cast<std::int64_t>(j));
            if (index < 0)
                index += data.shape[j];
            if (index < 0 || index >= data.shape[j]) {
                error = "ScatterND index " + std::to_string(index) + " is out of range for dimension " +
                        std::to_string(j) + " of size " + std::to_string(data.shape[j]);
                return std::nullopt;
            }
            base += index * strides[j];
        }
        for (std::int64_t i = 0; i < slice; ++i) {
            const auto target = static_cast<std::size_t>(base + i);
            if (out.integral())
                out.ints[target] = wrapInteger(out.element, updates.intAt(t * slice + i));
            else
                out.reals[target] = updates.realAt(t * slice + i);
        }
    }
    return out;
}

std::optional<ConstTensor> foldRange(const ConstTensor& start, const ConstTensor& limit,
                                     const ConstTensor& delta, std::string& error) {
    if (start.elements() != 1 || limit.elements() != 1 || delta.elements() != 1) {
        error = "Range needs scalar start, limit and delta";
        return std::nullopt;
    }
    const double s = start.realAt(0), l = limit.realAt(0), d = delta.realAt(0);
    if (d == 0 || std::isnan(s) || std::isnan(l) || std::isnan(d)) {
        error = "Range delta must be non-zero";
        return std::nullopt;
    }
    const double count = std::max(std::ceil((l - s) / d), 0.0);
    if (!(count <= static_cast<double>(kFoldLimit)))
        return std::nullopt;
    const auto n = static_cast<std::int64_t>(count);
    ConstTensor out = emptyLike(start.element, {n});
    for (std::int64_t i = 0; i < n; ++i) {
        if (out.integral())
            out.ints.push_back(wrapInteger(out.element, start.intAt(0) + i * delta.intAt(0)));
        else
            out.reals.push_back(s + static_cast<double>(i) * d);
    }
    return out;
}

std::optional<ConstTensor> foldPad(const ConstTensor& x, const std::vector<std::int64_t>& low,
                                   const std::vector<std::int64_t>& high, double value) {
    Shape shape = x.shape;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        shape[d] += low[d] + high[d];
        if (shape[d] < 0)
            return std::nullopt;
    }
    if (!fits(shape))
        return std::nullopt;
    ConstTensor out = emptyLike(x.element, shape);
    const std::int64_t n = out.elements();
    const auto own = rowMajorStrides(x.shape);
    Walker walk(shape, {});
    for (std::int64_t i = 0; i < n; ++i, walk.next()) {
        std::int64_t offset = 0;
        bool inside = true;
        for (std::size_t d = 0; d < shape.size() && inside; ++d) {
            const std::int64_t source = walk.index()[d] - low[d];
            if (source < 0 || source >= x.shape[d])
                inside = false;
            else
                offset += source * own[d];
        }
        if (inside)
            copyElement(out, x, offset);
        else
            push(out, toInt64(value), value);
    }
    return out;
}

}  // namespace shardscope::import::onnx_import
