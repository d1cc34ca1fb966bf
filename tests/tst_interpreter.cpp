// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// The reference interpreter: every op it runs, on tiny tensors with expectations written by hand from the
// StableHLO spec (its examples where it has them), rounding to each element type, the errors it reports, and
// zoo models run end to end (finite logits, causality, batch independence).
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include "test_support.h"

#include "shardscope/interpret/interpreter.h"
#include "shardscope/ir/builder.h"
#include "shardscope/zoo/zoo.h"

using namespace shardscope;
using namespace shardscope::ir;
using interpret::Tensor;

using Values = std::vector<double>;

namespace std {
inline char* toString(const std::vector<double>& v) {
    std::ostringstream out;
    out.precision(17);
    out << "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        out << (i ? ", " : "") << v[i];
    out << "]";
    return qstrdup(out.str().c_str());
}
}  // namespace std

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor tensor(Shape shape, ElementType element, Values values) {
    return Tensor{TensorType{std::move(shape), element}, std::move(values)};
}

Tensor scalar(ElementType element, double value) {
    return tensor({}, element, {value});
}

double f32(double x) {
    return static_cast<double>(static_cast<float>(x));
}

Graph finish(GraphBuilder& b) {
    auto graph = std::move(b).finish();
    if (!graph)
        qFatal("%s", graph.errorMessage().c_str());
    return std::move(graph).value();
}

// Arguments for `graph` in order, one input per tensor.
std::vector<ValueId> inputs(GraphBuilder& b, const std::vector<Tensor>& arguments) {
    std::vector<ValueId> ids;
    for (std::size_t i = 0; i < arguments.size(); ++i)
        ids.push_back(b.input("x" + std::to_string(i), arguments[i].type.shape, arguments[i].type.element));
    return ids;
}

// Runs one op of `kind` on `arguments` and returns all its results.
Result<std::vector<Tensor>> runOp(OpKind kind, const std::vector<Tensor>& arguments,
                                  OpAttributes attributes = NoAttributes{},
                                  std::vector<TensorType> declared = {}, std::vector<Region> regions = {}) {
    GraphBuilder b("test", "test.mlir");
    auto results = b.op(kind, inputs(b, arguments), std::move(attributes), "op", std::move(regions),
                        std::move(declared));
    for (std::size_t i = 0; i < results.size(); ++i)
        b.output(results[i], "y" + std::to_string(i));
    auto graph = std::move(b).finish();
    if (!graph)
        return Result<std::vector<Tensor>>::failure(graph.diagnostics());
    return interpret::run(*graph, arguments);
}

// The values of the first result of one op (and the error printed, with no values, when it fails).
Values valuesOf(const Result<std::vector<Tensor>>& result) {
    if (!result) {
        qWarning("%s", result.errorMessage().c_str());
        return {};
    }
    return result->front().values;
}

Values first(OpKind kind, const std::vector<Tensor>& arguments, OpAttributes attributes = NoAttributes{},
             std::vector<TensorType> declared = {}) {
    return valuesOf(runOp(kind, arguments, std::move(attributes), std::move(declared)));
}

Values converted(ElementType to, const Tensor& x) {
    return first(OpKind::Convert, {x}, NoAttributes{}, {TensorType{{}, to}});
}

// A region (a, b) -> kind(a, b) over scalars of `element`.
Region binaryRegion(GraphBuilder& b, OpKind kind, ElementType element,
                    OpAttributes attributes = NoAttributes{}) {
    const TensorType s{{}, element};
    return b.region({s, s}, [&](const std::vector<ValueId>& a) {
        return std::vector<ValueId>{b.op1(kind, {a[0], a[1]}, attributes)};
    });
}

CompareAttributes cmp(CompareDirection d, CompareType t = CompareType::Float) {
    return {d, t};
}

bool allFinite(const Tensor& t) {
    return std::all_of(t.values.begin(), t.values.end(), [](double v) { return std::isfinite(v); });
}

// Random parameters and in-range integer inputs (token ids) for every argument.
std::vector<Tensor> randomArguments(const Graph& g, std::uint32_t seed, std::int64_t vocab) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal(0.0, 0.3);
    std::uniform_int_distribution<std::int64_t> token(0, vocab - 1);
    std::vector<Tensor> out;
    for (const auto& a : g.arguments) {
        Tensor t = Tensor::filled(g.type(a.value), 0.0);
        for (double& v : t.values)
            v = isInteger(t.type.element) ? static_cast<double>(token(rng)) : normal(rng);
        out.push_back(std::move(t));
    }
    return out;
}

Graph zooModel(const std::string& name) {
    auto spec = zoo::parseModelSpec(name);
    if (!spec)
        qFatal("%s", spec.errorMessage().c_str());
    auto graph = zoo::build(*spec);
    if (!graph)
        qFatal("%s", graph.errorMessage().c_str());
    return std::move(graph).value();
}

std::size_t argumentNamed(const Graph& g, const std::string& name) {
    for (std::size_t i = 0; i < g.arguments.size(); ++i)
        if (g.arguments[i].name == name)
            return i;
    qFatal("no argument %s", name.c_str());
}

// Naive NCHW / OIHW convolution with explicit padding and dilation, as a reference.
Values naiveConvolution(const Values& input, const Shape& in, const Values& kernel, const Shape& k,
                        std::int64_t groups, const Dims& stride,
                        const std::vector<std::pair<std::int64_t, std::int64_t>>& padding,
                        const Dims& lhsDilation, const Dims& rhsDilation, Shape& out) {
    const std::int64_t N = in[0], C = in[1], O = k[0], I = k[1];
    Shape padded(2), window(2);
    out = {N, O, 0, 0};
    for (int i = 0; i < 2; ++i) {
        padded[i] = padding[i].first + (in[2 + i] - 1) * lhsDilation[i] + 1 + padding[i].second;
        window[i] = (k[2 + i] - 1) * rhsDilation[i] + 1;
        out[2 + i] = (padded[i] - window[i]) / stride[i] + 1;
    }
    // Materialise the padded, dilated input.
    std::vector<double> p(static_cast<std::size_t>(N * C * padded[0] * padded[1]), 0.0);
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t y = 0; y < in[2]; ++y)
                for (std::int64_t x = 0; x < in[3]; ++x) {
                    const std::int64_t py = padding[0].first + y * lhsDilation[0],
                                       px = padding[1].first + x * lhsDilation[1];
                    if (py < 0 || px < 0 || py >= padded[0] || px >= padded[1])
                        continue;
                    p[((n * C + c) * padded[0] + py) * padded[1] + px] =
                        input[((n * C + c) * in[2] + y) * in[3] + x];
                }
    Values result;
    for (std::int64_t n = 0; n < N; ++n)
        for (std::int64_t o = 0; o < O; ++o)
            for (std::int64_t y = 0; y < out[2]; ++y)
                for (std::int64_t x = 0; x < out[3]; ++x) {
                    const std::int64_t g = o / (O / groups);
                    double sum = 0;
                    for (std::int64_t i = 0; i < I; ++i)
                        for (std::int64_t ky = 0; ky < k[2]; ++ky)
                            for (std::int64_t kx = 0; kx < k[3]; ++kx) {
                                const std::int64_t py = y * stride[0] + ky * rhsDilation[0];
                                const std::int64_t px = x * stride[1] + kx * rhsDilation[1];
                                sum += p[((n * C + g * I + i) * padded[0] + py) * padded[1] + px] *
                                       kernel[((o * I + i) * k[2] + ky) * k[3] + kx];
                            }
                    result.push_back(sum);
                }
    return result;
}

// Reorders the values of a row-major tensor of `shape` by `permutation` (result dim i = source dim perm[i]).
Values permuted(const Values& values, const Shape& shape, const Dims& permutation) {
    Shape outShape;
    for (auto d : permutation)
        outShape.push_back(shape[d]);
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (std::size_t d = shape.size() - 1; d > 0; --d)
        strides[d - 1] = strides[d] * shape[d];
    Values out;
    std::vector<std::int64_t> index(outShape.size(), 0);
    for (std::int64_t n = 0; n < elementCount(outShape); ++n) {
        std::int64_t offset = 0;
        for (std::size_t d = 0; d < index.size(); ++d)
            offset += index[d] * strides[permutation[d]];
        out.push_back(values[offset]);
        for (std::size_t d = index.size(); d-- > 0;) {
            if (++index[d] < outShape[d])
                break;
            index[d] = 0;
        }
    }
    return out;
}

}  // namespace

class TestInterpreter : public QObject {
    Q_OBJECT
private slots:
    // --- element-wise ---
    void floatBinary() {
        const Tensor a = tensor({4}, ElementType::F64, {17.1, -17.1, 17.1, -17.1});
        const Tensor b = tensor({4}, ElementType::F64, {3.0, 3.0, -3.0, -3.0});
        QCOMPARE(first(OpKind::Add, {a, b}), (Values{17.1 + 3, -17.1 + 3, 17.1 - 3, -17.1 - 3}));
        QCOMPARE(first(OpKind::Subtract, {a, b}), (Values{17.1 - 3, -17.1 - 3, 17.1 + 3, -17.1 + 3}));
        QCOMPARE(first(OpKind::Multiply, {a, b}), (Values{17.1 * 3, -17.1 * 3, -17.1 * 3, 17.1 * 3}));
        // f32 divide: the exact quotient of the f32 operands, rounded once to f32.
        const Tensor a32 = tensor({4}, ElementType::F32, {17.1, -17.1, 17.1, -17.1});
        const Tensor b32 = tensor({4}, ElementType::F32, {3.0, 3.0, -3.0, -3.0});
        const double q = f32(f32(17.1) / 3.0);
        QCOMPARE(first(OpKind::Divide, {a32, b32}), (Values{q, -q, -q, q}));
        QCOMPARE(q, 5.700000286102294921875);
        // remainder takes the dividend's sign: lhs - trunc(lhs / rhs) * rhs.
        QCOMPARE(first(OpKind::Remainder, {tensor({4}, ElementType::F64, {5.5, -5.5, 5.5, -5.5}),
                                           tensor({4}, ElementType::F64, {2, 2, -2, -2})}),
                 (Values{1.5, -1.5, 1.5, -1.5}));
        // maximum/minimum propagate NaN and order -0 < +0.
        const Values max = first(OpKind::Maximum, {tensor({3}, ElementType::F32, {1, kNaN, -0.0}),
                                                   tensor({3}, ElementType::F32, {2, 1, 0.0})});
        QCOMPARE(max[0], 2.0);
        QVERIFY(std::isnan(max[1]));
        QVERIFY(max[2] == 0 && !std::signbit(max[2]));
        const Values min = first(OpKind::Minimum, {tensor({2}, ElementType::F32, {1, -0.0}),
                                                   tensor({2}, ElementType::F32, {2, 0.0})});
        QVERIFY(min[0] == 1 && std::signbit(min[1]));
        // The spec's power (its results are f32's) and atan2 examples.
        const Values pow =
            first(OpKind::Power, {tensor({6}, ElementType::F32, {-2.0, -0.0, -36.0, 5.0, 3.0, 10000.0}),
                                  tensor({6}, ElementType::F32, {2.0, 2.0, 1.1, 2.0, -1.0, 10.0})});
        QCOMPARE(pow[0], 4.0);
        QCOMPARE(pow[1], 0.0);
        QVERIFY(std::isnan(pow[2]));
        QCOMPARE(pow[3], 25.0);
        QCOMPARE(pow[4], f32(1.0 / 3.0));
        QCOMPARE(pow[5], kInf);
        QCOMPARE(first(OpKind::Atan2, {tensor({3}, ElementType::F64, {0.0, 1.0, -1.0}),
                                       tensor({3}, ElementType::F64, {0, 0, 0})}),
                 (Values{0.0, M_PI / 2, -M_PI / 2}));
    }

    void floatUnary() {
        const Tensor x = tensor({5}, ElementType::F64, {-2.5, 0.4, 0.5, 0.6, 2.5});
        QCOMPARE(first(OpKind::RoundNearestEven, {x}), (Values{-2.0, 0.0, 0.0, 1.0, 2.0}));
        QCOMPARE(first(OpKind::RoundNearestAfz, {x}), (Values{-3.0, 0.0, 1.0, 1.0, 3.0}));
        QVERIFY(std::signbit(first(OpKind::RoundNearestEven, {tensor({1}, ElementType::F64, {-0.5})})[0]));
        const Tensor y = tensor({5}, ElementType::F32, {-0.8166, -0.2530, 0.2530, 0.8166, 2.0});
        QCOMPARE(first(OpKind::Floor, {y}), (Values{-1.0, -1.0, 0.0, 0.0, 2.0}));
        const Values ceil = first(OpKind::Ceil, {y});
        QCOMPARE(ceil, (Values{-0.0, -0.0, 1.0, 1.0, 2.0}));
        QVERIFY(std::signbit(ceil[0]));
        QCOMPARE(first(OpKind::Abs, {tensor({2}, ElementType::F32, {-1.5, 2})}), (Values{1.5, 2}));
        QCOMPARE(first(OpKind::Negate, {tensor({2}, ElementType::F32, {-1.5, 2})}), (Values{1.5, -2}));
        QCOMPARE(first(OpKind::Cbrt, {tensor({4}, ElementType::F32, {0.0, 1.0, 8.0, 27.0})}),
                 (Values{0, 1, 2, 3}));
        QCOMPARE(first(OpKind::Sqrt, {tensor({4}, ElementType::F32, {0.0, 1.0, 4.0, 9.0})}),
                 (Values{0, 1, 2, 3}));
        QCOMPARE(first(OpKind::Rsqrt, {tensor({4}, ElementType::F32, {1.0, 4.0, 9.0, 25.0})}),
                 (Values{1.0, 0.5, f32(1.0 / 3.0), f32(0.2)}));
        // Transcendental ops: the double result rounded once to f32.
        const Tensor z = tensor({3}, ElementType::F32, {0.0, 1.0, 2.0});
        QCOMPARE(first(OpKind::Exponential, {z}), (Values{1.0, f32(std::exp(1.0)), f32(std::exp(2.0))}));
        QCOMPARE(first(OpKind::ExponentialMinusOne, {z}),
                 (Values{0.0, f32(std::expm1(1.0)), f32(std::expm1(2.0))}));
        QCOMPARE(first(OpKind::LogPlusOne, {z}), (Values{0.0, f32(std::log(2.0)), f32(std::log(3.0))}));
        QCOMPARE(first(OpKind::Logistic, {z}),
                 (Values{0.5, f32(1 / (1 + std::exp(-1.0))), f32(1 / (1 + std::exp(-2.0)))}));
        QCOMPARE(first(OpKind::Tanh, {z}), (Values{0.0, f32(std::tanh(1.0)), f32(std::tanh(2.0))}));
        QCOMPARE(first(OpKind::Tan, {z}), (Values{0.0, f32(std::tan(1.0)), f32(std::tan(2.0))}));
        QCOMPARE(first(OpKind::Sine, {z}), (Values{0.0, f32(std::sin(1.0)), f32(std::sin(2.0))}));
        QCOMPARE(first(OpKind::Cosine, {z}), (Values{1.0, f32(std::cos(1.0)), f32(std::cos(2.0))}));
        QCOMPARE(first(OpKind::Log, {tensor({2}, ElementType::F64, {1.0, 2.0})}),
                 (Values{0.0, std::log(2.0)}));
        // sign keeps signed zeros and NaN.
        const Values sign =
            first(OpKind::Sign, {tensor({5}, ElementType::F64, {kNaN, -3.0, -0.0, 0.0, 7.0})});
        QVERIFY(std::isnan(sign[0]));
        QCOMPARE(sign[1], -1.0);
        QVERIFY(sign[2] == 0 && std::signbit(sign[2]));
        QVERIFY(sign[3] == 0 && !std::signbit(sign[3]));
        QCOMPARE(sign[4], 1.0);
        auto finite = runOp(OpKind::IsFinite, {tensor({4}, ElementType::F32, {-kInf, kInf, kNaN, -10.0})});
        QVERIFY(finite.ok());
        QCOMPARE(finite->front().type, (TensorType{{4}, ElementType::I1}));
        QCOMPARE(finite->front().values, (Values{0, 0, 0, 1}));
        // reduce_precision rounds to the result type (the IR keeps no exponent/mantissa widths).
        QCOMPARE(first(OpKind::ReducePrecision, {tensor({1}, ElementType::F32, {0.1})}), (Values{f32(0.1)}));
        QCOMPARE(first(OpKind::Real, {tensor({1}, ElementType::F32, {2.5})}), (Values{2.5}));
        QCOMPARE(first(OpKind::Imag, {tensor({1}, ElementType::F32, {2.5})}), (Values{0.0}));
    }

    void chloUnary() {
        const Tensor x = tensor({3}, ElementType::F64, {-0.5, 0.0, 0.75});
        auto chlo = [&](const std::string& name, const Tensor& t) {
            return first(OpKind::OtherElementwise, {t}, OpaqueAttributes{name}, {t.type});
        };
        QCOMPARE(chlo("chlo.erf", x), (Values{std::erf(-0.5), 0.0, std::erf(0.75)}));
        QCOMPARE(chlo("chlo.erfc", x), (Values{std::erfc(-0.5), 1.0, std::erfc(0.75)}));
        QCOMPARE(chlo("chlo.square", x), (Values{0.25, 0.0, 0.5625}));
        QCOMPARE(chlo("chlo.sinh", x), (Values{std::sinh(-0.5), 0.0, std::sinh(0.75)}));
        QCOMPARE(chlo("chlo.cosh", x), (Values{std::cosh(-0.5), 1.0, std::cosh(0.75)}));
        QCOMPARE(chlo("chlo.asin", x), (Values{std::asin(-0.5), 0.0, std::asin(0.75)}));
        QCOMPARE(chlo("chlo.acos", x), (Values{std::acos(-0.5), std::acos(0.0), std::acos(0.75)}));
        QCOMPARE(chlo("chlo.atan", x), (Values{std::atan(-0.5), 0.0, std::atan(0.75)}));
        QCOMPARE(chlo("chlo.tan", x), (Values{std::tan(-0.5), 0.0, std::tan(0.75)}));
        auto unknown = runOp(OpKind::OtherElementwise, {x}, OpaqueAttributes{"chlo.digamma"}, {x.type});
        QVERIFY(!unknown.ok());
        QVERIFY2(unknown.errorMessage().find(
                     "the interpreter cannot run 'chlo.digamma' (at test.mlir (op))") != std::string::npos,
                 unknown.errorMessage().c_str());
    }

    void integerArithmetic() {
        const Tensor a = tensor({4}, ElementType::I64, {17, -17, 17, -17});
        const Tensor b = tensor({4}, ElementType::I64, {3, 3, -3, -3});
        QCOMPARE(first(OpKind::Divide, {a, b}), (Values{5, -5, -5, 5}));     // truncates toward zero
        QCOMPARE(first(OpKind::Remainder, {a, b}), (Values{2, -2, 2, -2}));  // sign of the dividend
        // XLA's choices for the undefined cases: x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1
        // = 0.
        const Tensor c = tensor({2}, ElementType::I32, {7, -2147483648.0});
        const Tensor d = tensor({2}, ElementType::I32, {0, -1});
        QCOMPARE(first(OpKind::Divide, {c, d}), (Values{-1, -2147483648.0}));
        QCOMPARE(first(OpKind::Remainder, {c, d}), (Values{7, 0}));
        QCOMPARE(
            first(OpKind::Divide, {tensor({1}, ElementType::U8, {7}), tensor({1}, ElementType::U8, {0})}),
            (Values{255}));
        // Wrap-around to the type's width.
        QCOMPARE(first(OpKind::Add, {tensor({1}, ElementType::I8, {127}), tensor({1}, ElementType::I8, {1})}),
                 (Values{-128}));
        QCOMPARE(first(OpKind::Multiply,
                       {tensor({1}, ElementType::I8, {16}), tensor({1}, ElementType::I8, {-16})}),
                 (Values{0}));
        QCOMPARE(
            first(OpKind::Subtract, {tensor({1}, ElementType::U8, {0}), tensor({1}, ElementType::U8, {1})}),
            (Values{255}));
        QCOMPARE(first(OpKind::Multiply,
                       {tensor({1}, ElementType::I32, {65536}), tensor({1}, ElementType::I32, {65537})}),
                 (Values{65536}));  // 2^32 + 2^16 wraps to 2^16
        QCOMPARE(first(OpKind::Abs, {tensor({2}, ElementType::I8, {-128, -5})}), (Values{-128, 5}));
        QCOMPARE(first(OpKind::Negate, {tensor({2}, ElementType::I32, {0, -2})}), (Values{0, 2}));
        QCOMPARE(first(OpKind::Negate, {tensor({1}, ElementType::U8, {1})}), (Values{255}));
        QCOMPARE(first(OpKind::Maximum,
                       {tensor({2}, ElementType::I32, {1, 7}), tensor({2}, ElementType::I32, {5, 3})}),
                 (Values{5, 7}));
        QCOMPARE(first(OpKind::Minimum, {tensor({2}, ElementType::U32, {1, 4000000000.0}),
                                         tensor({2}, ElementType::U32, {5, 3})}),
                 (Values{1, 3}));
        QCOMPARE(first(OpKind::Sign, {tensor({3}, ElementType::I32, {-9, 0, 4})}), (Values{-1, 0, 1}));
        // Integer power, with XLA's answers for negative exponents.
        QCOMPARE(first(OpKind::Power, {tensor({5}, ElementType::I32, {2, -2, 2, 1, -1}),
                                       tensor({5}, ElementType::I32, {10, 3, -1, -1, -3})}),
                 (Values{1024, -8, 0, 1, -1}));
    }

    void bitwiseAndShifts() {
        const Tensor a = tensor({4}, ElementType::I32, {1, 2, 3, 4});
        const Tensor b = tensor({4}, ElementType::I32, {5, 6, 7, 8});
        QCOMPARE(first(OpKind::And, {a, b}), (Values{1, 2, 3, 0}));
        QCOMPARE(first(OpKind::Or, {a, b}), (Values{5, 6, 7, 12}));
        QCOMPARE(first(OpKind::Xor, {a, b}), (Values{4, 4, 4, 12}));
        QCOMPARE(first(OpKind::Not, {a}), (Values{-2, -3, -4, -5}));
        QCOMPARE(first(OpKind::Not, {tensor({2}, ElementType::U8, {0, 255})}), (Values{255, 0}));
        // The spec's shift examples (in i32: the logical shift of -1 by 1 is 2^31 - 1).
        QCOMPARE(first(OpKind::ShiftLeft,
                       {tensor({3}, ElementType::I64, {-1, 0, 1}), tensor({3}, ElementType::I64, {1, 2, 3})}),
                 (Values{-2, 0, 8}));
        QCOMPARE(first(OpKind::ShiftRightArithmetic,
                       {tensor({3}, ElementType::I64, {-1, 0, 8}), tensor({3}, ElementType::I64, {1, 2, 3})}),
                 (Values{-1, 0, 1}));
        QCOMPARE(first(OpKind::ShiftRightLogical,
                       {tensor({3}, ElementType::I32, {-1, 0, 8}), tensor({3}, ElementType::I32, {1, 2, 3})}),
                 (Values{2147483647, 0, 1}));
        // Shifting by the width or more (or by a negative amount) shifts everything out.
        QCOMPARE(first(OpKind::ShiftLeft,
                       {tensor({2}, ElementType::I8, {1, 1}), tensor({2}, ElementType::I8, {8, -1})}),
                 (Values{0, 0}));
        QCOMPARE(first(OpKind::ShiftRightArithmetic,
                       {tensor({2}, ElementType::I8, {-100, 100}), tensor({2}, ElementType::I8, {9, 9})}),
                 (Values{-1, 0}));
        QCOMPARE(
            first(OpKind::ShiftLeft, {tensor({1}, ElementType::I8, {64}), tensor({1}, ElementType::I8, {1})}),
            (Values{-128}));
        QCOMPARE(first(OpKind::PopulationCount, {tensor({5}, ElementType::I64, {0, 1, 2, 127, -1})}),
                 (Values{0, 1, 1, 7, 64}));
        QCOMPARE(first(OpKind::CountLeadingZeros, {tensor({4}, ElementType::I64, {0, 1, 128, -1})}),
                 (Values{64, 63, 56, 0}));
        QCOMPARE(first(OpKind::CountLeadingZeros, {tensor({3}, ElementType::U8, {0, 1, 200})}),
                 (Values{8, 7, 0}));
    }

    void booleans() {
        const Tensor p = tensor({4}, ElementType::I1, {0, 0, 1, 1});
        const Tensor q = tensor({4}, ElementType::I1, {0, 1, 0, 1});
        QCOMPARE(first(OpKind::And, {p, q}), (Values{0, 0, 0, 1}));
        QCOMPARE(first(OpKind::Or, {p, q}), (Values{0, 1, 1, 1}));
        QCOMPARE(first(OpKind::Xor, {p, q}), (Values{0, 1, 1, 0}));
        QCOMPARE(first(OpKind::Not, {p}), (Values{1, 1, 0, 0}));
        QCOMPARE(first(OpKind::Add, {p, q}), (Values{0, 1, 1, 1}));       // logical or
        QCOMPARE(first(OpKind::Multiply, {p, q}), (Values{0, 0, 0, 1}));  // logical and
        QCOMPARE(first(OpKind::Maximum, {p, q}), (Values{0, 1, 1, 1}));
        QCOMPARE(first(OpKind::Minimum, {p, q}), (Values{0, 0, 0, 1}));
    }

    void compare() {
        const Tensor a = tensor({4}, ElementType::F32, {1.0, 3.0, kNaN, 2.0});
        const Tensor b = tensor({4}, ElementType::F32, {1.1, 2.9, kNaN, 2.0});
        QCOMPARE(first(OpKind::Compare, {a, b}, cmp(CompareDirection::LT)), (Values{1, 0, 0, 0}));
        QCOMPARE(first(OpKind::Compare, {a, b}, cmp(CompareDirection::GE)), (Values{0, 1, 0, 1}));
        QCOMPARE(first(OpKind::Compare, {a, b}, cmp(CompareDirection::EQ)), (Values{0, 0, 0, 1}));
        QCOMPARE(first(OpKind::Compare, {a, b}, cmp(CompareDirection::NE)), (Values{1, 1, 1, 0}));
        // Total order: -NaN < -inf < -0 < +0 < +inf < NaN, and NaN equals NaN.
        const Tensor c = tensor({4}, ElementType::F32, {-0.0, kNaN, -kNaN, -kInf});
        const Tensor d = tensor({4}, ElementType::F32, {0.0, kInf, -kInf, -0.0});
        QCOMPARE(first(OpKind::Compare, {c, d}, cmp(CompareDirection::LT, CompareType::TotalOrder)),
                 (Values{1, 0, 1, 1}));
        QCOMPARE(first(OpKind::Compare, {c, c}, cmp(CompareDirection::EQ, CompareType::TotalOrder)),
                 (Values{1, 1, 1, 1}));
        // Unsigned values above 2^31 compare as unsigned.
        QCOMPARE(
            first(OpKind::Compare,
                  {tensor({2}, ElementType::U32, {4000000000.0, 1}), tensor({2}, ElementType::U32, {5, 2})},
                  cmp(CompareDirection::GT, CompareType::Unsigned)),
            (Values{1, 0}));
        QCOMPARE(first(OpKind::Compare,
                       {tensor({2}, ElementType::I32, {-5, 1}), tensor({2}, ElementType::I32, {5, 1})},
                       cmp(CompareDirection::LE, CompareType::Signed)),
                 (Values{1, 1}));
    }

    void selectAndClamp() {
        const Tensor onTrue = tensor({2, 2}, ElementType::I32, {1, 2, 3, 4});
        const Tensor onFalse = tensor({2, 2}, ElementType::I32, {5, 6, 7, 8});
        QCOMPARE(first(OpKind::Select, {tensor({2, 2}, ElementType::I1, {0, 1, 1, 0}), onTrue, onFalse}),
                 (Values{5, 2, 3, 8}));
        QCOMPARE(first(OpKind::Select, {scalar(ElementType::I1, 1), onTrue, onFalse}), (Values{1, 2, 3, 4}));
        QCOMPARE(first(OpKind::Select, {scalar(ElementType::I1, 0), onTrue, onFalse}), (Values{5, 6, 7, 8}));
        // clamp(min, operand, max) with full bounds (the spec's example) and with scalar bounds.
        QCOMPARE(first(OpKind::Clamp, {tensor({3}, ElementType::I32, {5, 10, 15}),
                                       tensor({3}, ElementType::I32, {3, 13, 23}),
                                       tensor({3}, ElementType::I32, {10, 15, 20})}),
                 (Values{5, 13, 20}));
        QCOMPARE(first(OpKind::Clamp,
                       {scalar(ElementType::F32, -1), tensor({4}, ElementType::F32, {-3, -0.5, 0.5, 3}),
                        scalar(ElementType::F32, 1)}),
                 (Values{-1, -0.5, 0.5, 1}));
        QVERIFY(std::isnan(
            first(OpKind::Clamp, {scalar(ElementType::F32, -1), tensor({1}, ElementType::F32, {kNaN}),
                                  scalar(ElementType::F32, 1)})[0]));
    }

    void convert() {
        QCOMPARE(converted(ElementType::I32, tensor({5}, ElementType::F32, {-1.7, 2.9, 3e9, -3e9, kNaN})),
                 (Values{-1, 2, 2147483647, -2147483648.0, 0}));  // truncate, saturate, NaN -> 0
        QCOMPARE(converted(ElementType::U8, tensor({3}, ElementType::F32, {-1.5, 255.9, 300})),
                 (Values{0, 255, 255}));
        QCOMPARE(converted(ElementType::I8, tensor({2}, ElementType::I32, {300, -129})),
                 (Values{44, 127}));  // wraps
        QCOMPARE(converted(ElementType::U8, tensor({1}, ElementType::I32, {-1})), (Values{255}));
        QCOMPARE(converted(ElementType::I1, tensor({4}, ElementType::I32, {0, 2, -1, 256})),
                 (Values{0, 1, 1, 1}));
        QCOMPARE(converted(ElementType::I1, tensor({3}, ElementType::F32, {0.0, -0.0, 0.25})),
                 (Values{0, 0, 1}));
        QCOMPARE(converted(ElementType::F32, tensor({2}, ElementType::I1, {1, 0})), (Values{1, 0}));
        QCOMPARE(converted(ElementType::F32, tensor({1}, ElementType::I32, {16777217})), (Values{16777216}));
        QCOMPARE(converted(ElementType::BF16, tensor({2}, ElementType::F32, {1.00390625, 1.01171875})),
                 (Values{1.0, 1.015625}));
        QCOMPARE(converted(ElementType::F16, tensor({1}, ElementType::F64, {0.1})),
                 (Values{0.0999755859375}));
        QCOMPARE(converted(ElementType::F64, tensor({1}, ElementType::F32, {0.1})), (Values{f32(0.1)}));
    }

    // Each element type holds what it can represent: round to nearest even, overflow, subnormals, wrap.
    void rounding() {
        auto add0 = [](ElementType e, double x) {
            return first(OpKind::Add, {tensor({1}, e, {x}), tensor({1}, e, {0.0})})[0];
        };
        QCOMPARE(add0(ElementType::BF16, 1.00390625), 1.0);  // 1 + 2^-8: a tie, to the even 1.0
        QCOMPARE(add0(ElementType::BF16, 1.01171875), 1.015625);
        QCOMPARE(add0(ElementType::BF16, 3.39e38), 3.3895313892515355e38);  // the largest bf16
        QCOMPARE(add0(ElementType::BF16, 3.4e38), kInf);  // past the largest by more than half an ulp
        QCOMPARE(add0(ElementType::BF16, 3.4e39), kInf);
        QVERIFY(add0(ElementType::F32, 0.1) != 0.1);
        QCOMPARE(add0(ElementType::F32, 0.1), 0.100000001490116119384765625);
        QCOMPARE(add0(ElementType::F32, 3.5e38), kInf);
        QCOMPARE(add0(ElementType::F32, 1e-46), 0.0);
        QCOMPARE(add0(ElementType::F32, 1.0e-45), std::ldexp(1.0, -149));  // the smallest subnormal
        QCOMPARE(add0(ElementType::F64, 0.1), 0.1);
        QCOMPARE(add0(ElementType::F16, 2049), 2048.0);  // ulp 2 at 2048: a tie, to even
        QCOMPARE(add0(ElementType::F16, 2051), 2052.0);
        QCOMPARE(add0(ElementType::F16, 65504), 65504.0);
        QCOMPARE(add0(ElementType::F16, 65520), kInf);  // halfway to 2^16 rounds up, out of range
        QCOMPARE(add0(ElementType::F16, std::ldexp(1.0, -25)),
                 0.0);  // half the smallest subnormal: to even 0
        QCOMPARE(add0(ElementType::F16, 3 * std::ldexp(1.0, -25)), std::ldexp(1.0, -23));
        QVERIFY(std::isnan(add0(ElementType::F16, kNaN)));
        QCOMPARE(add0(ElementType::F8E4M3FN, 448), 448.0);
        QVERIFY(std::isnan(add0(ElementType::F8E4M3FN, 500)));  // no infinity: overflow is NaN
        QCOMPARE(add0(ElementType::F8E5M2, 57344), 57344.0);
        QCOMPARE(add0(ElementType::F8E5M2, 61440), kInf);
        QCOMPARE(add0(ElementType::F8E4M3FNUZ, 0.3), 0.3125);
        QCOMPARE(add0(ElementType::I8, 300), 44.0);
        QCOMPARE(add0(ElementType::U4, 17), 1.0);
        QCOMPARE(add0(ElementType::I4, 8), -8.0);
        // Arguments are rounded to their element type first.
        GraphBuilder b("round");
        ValueId x = b.input("x", {1}, ElementType::BF16);
        b.output(x, "y");
        auto out = interpret::run(finish(b), {tensor({1}, ElementType::BF16, {1.00390625})});
        QVERIFY(out.ok());
        QCOMPARE(out->front().values, (Values{1.0}));
    }

    void bitcastConvert() {
        auto bitcast = [](const Tensor& x, ElementType to) {
            return first(OpKind::BitcastConvert, {x}, NoAttributes{}, {TensorType{x.type.shape, to}});
        };
        QCOMPARE(bitcast(tensor({3}, ElementType::F32, {1.0, -0.0, -2.0}), ElementType::I32),
                 (Values{1065353216, -2147483648.0, -1073741824}));
        QCOMPARE(bitcast(tensor({2}, ElementType::I32, {1065353216, -1}), ElementType::F32)[0], 1.0);
        QVERIFY(std::isnan(bitcast(tensor({1}, ElementType::I32, {-1}), ElementType::F32)[0]));
        QCOMPARE(bitcast(tensor({1}, ElementType::I32, {-1}), ElementType::U32), (Values{4294967295.0}));
        QCOMPARE(bitcast(tensor({2}, ElementType::BF16, {1.0, -2.0}), ElementType::U16),
                 (Values{0x3F80, 0xC000}));
        QCOMPARE(bitcast(tensor({2}, ElementType::F16, {1.0, 65504}), ElementType::I16),
                 (Values{0x3C00, 0x7BFF}));
        QCOMPARE(bitcast(tensor({1}, ElementType::U16, {0x3C01}), ElementType::F16), (Values{1.0009765625}));
        QCOMPARE(bitcast(tensor({1}, ElementType::F64, {1.0}), ElementType::I64),
                 (Values{4607182418800017408.0}));
        QCOMPARE(bitcast(tensor({1}, ElementType::U8, {0x38}), ElementType::F8E4M3FN), (Values{1.0}));
        auto widening = runOp(OpKind::BitcastConvert, {tensor({2}, ElementType::F32, {0, 1})}, NoAttributes{},
                              {TensorType{{2, 4}, ElementType::I8}});
        QVERIFY(!widening.ok());
        QVERIFY2(widening.errorMessage().find("cannot run 'stablehlo.bitcast_convert'") != std::string::npos,
                 widening.errorMessage().c_str());
    }

    // --- creation and data movement ---
    void constantAndIota() {
        GraphBuilder b("c");
        auto literal = b.op(OpKind::Constant, {}, ConstantAttributes{{0, 1, 2, 3}}, "lit", {},
                            {TensorType{{2, 2}, ElementType::F32}});
        b.output(literal.front(), "literal");
        b.output(b.constant(2.5, TensorType{{3}, ElementType::F32}), "splat");
        b.output(b.iota(TensorType{{2, 3}, ElementType::I32}, 0), "rows");
        b.output(b.iota(TensorType{{2, 3}, ElementType::F32}, 1), "cols");
        auto out = interpret::run(finish(b), {});
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QCOMPARE(out->at(0).values, (Values{0, 1, 2, 3}));
        QCOMPARE(out->at(1).values, (Values{2.5, 2.5, 2.5}));
        QCOMPARE(out->at(2).values, (Values{0, 0, 0, 1, 1, 1}));
        QCOMPARE(out->at(3).values, (Values{0, 1, 2, 0, 1, 2}));
        QCOMPARE(out->at(3).at({1, 2}), 2.0);
        QVERIFY(std::isnan(out->at(3).at({2, 0})));
    }

    // rng (taken as UNIFORM): values in [a, b) of the element type, the same on every run with one seed,
    // other values with another seed or from another rng op of the same run; a shape operand that is not the
    // result's shape and a >= b are errors.
    void rngUniform() {
        auto build = [](double a, double b, std::int64_t extent, ElementType element) {
            GraphBuilder g("r", "model.mlir");
            auto shape = g.op(OpKind::Constant, {}, ConstantAttributes{{4000}}, "shape", {},
                              {TensorType{{1}, ElementType::I64}});
            for (const char* name : {"first", "second"}) {
                auto draws = g.op(OpKind::Rng, {g.scalar(a, element), g.scalar(b, element), shape.front()},
                                  NoAttributes{}, name, {}, {TensorType{{extent}, element}});
                g.output(draws.front(), name);
            }
            return finish(g);
        };
        const Graph uniform = build(-1, 3, 4000, ElementType::F32);
        auto out = interpret::run(uniform, {});
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        const Values& draws = out->at(0).values;
        double sum = 0;
        for (double v : draws) {
            QVERIFY(v >= -1 && v < 3);
            QCOMPARE(v, f32(v));
            sum += v;
        }
        QVERIFY(std::abs(sum / 4000 - 1.0) < 0.1);  // mean (a + b) / 2; its standard error is 0.018
        QVERIFY(out->at(1).values != draws);
        auto again = interpret::run(uniform, {});
        QVERIFY(again.ok());
        QCOMPARE(again->at(0).values, draws);
        interpret::Options seeded;
        seeded.rngSeed = 1;
        auto other = interpret::run(uniform, {}, seeded);
        QVERIFY(other.ok());
        QVERIFY(other->at(0).values != draws);

        auto integers = interpret::run(build(2, 5, 4000, ElementType::I32), {});
        QVERIFY2(integers.ok(), integers.errorMessage().c_str());
        std::set<double> seen(integers->at(0).values.begin(), integers->at(0).values.end());
        QCOMPARE(seen, (std::set<double>{2, 3, 4}));

        auto wrongShape = interpret::run(build(0, 1, 8, ElementType::F32), {});
        QVERIFY(!wrongShape.ok());
        QVERIFY2(
            wrongShape.errorMessage().find(
                "its shape operand [4000] is not the shape of its result tensor<8xf32>") != std::string::npos,
            wrongShape.errorMessage().c_str());
        auto empty = interpret::run(build(1, 1, 4000, ElementType::F32), {});
        QVERIFY(!empty.ok());
        QVERIFY2(empty.errorMessage().find("needs a < b") != std::string::npos, empty.errorMessage().c_str());
    }

    void broadcastReshapeTranspose() {
        // The spec's broadcast_in_dim example: [[1, 2, 3]] with dims [2, 1] to 2x3x2.
        QCOMPARE(first(OpKind::BroadcastInDim, {tensor({1, 3}, ElementType::I32, {1, 2, 3})},
                       BroadcastDimensions{{2, 1}}, {TensorType{{2, 3, 2}, ElementType::I32}}),
                 (Values{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}));
        QCOMPARE(first(OpKind::Reshape, {tensor({2, 3}, ElementType::I32, {1, 2, 3, 4, 5, 6})},
                       NoAttributes{}, {TensorType{{3, 2}, ElementType::I32}}),
                 (Values{1, 2, 3, 4, 5, 6}));
        // The spec's transpose example: permutation [2, 1, 0] of 2x3x2.
        QCOMPARE(first(OpKind::Transpose,
                       {tensor({2, 3, 2}, ElementType::I32, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})},
                       Permutation{{2, 1, 0}}),
                 (Values{1, 7, 3, 9, 5, 11, 2, 8, 4, 10, 6, 12}));
        QCOMPARE(first(OpKind::Reverse, {tensor({3, 2}, ElementType::I32, {1, 2, 3, 4, 5, 6})},
                       DimensionsAttribute{{1}}),
                 (Values{2, 1, 4, 3, 6, 5}));
        QCOMPARE(first(OpKind::Reverse, {tensor({3, 2}, ElementType::I32, {1, 2, 3, 4, 5, 6})},
                       DimensionsAttribute{{0, 1}}),
                 (Values{6, 5, 4, 3, 2, 1}));
    }

    void sliceConcatenate() {
        const Tensor x = tensor({3, 4}, ElementType::I64, {0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1});
        QCOMPARE(first(OpKind::Slice, {x}, SliceAttributes{{1, 2}, {3, 4}, {1, 1}}), (Values{1, 1, 1, 1}));
        const Tensor y = tensor({3, 4}, ElementType::I64, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
        QCOMPARE(first(OpKind::Slice, {y}, SliceAttributes{{0, 1}, {3, 4}, {2, 2}}), (Values{1, 3, 9, 11}));
        QCOMPARE(first(OpKind::Concatenate,
                       {tensor({3, 2}, ElementType::I64, {1, 2, 3, 4, 5, 6}),
                        tensor({1, 2}, ElementType::I64, {7, 8})},
                       DimensionAttribute{0}),
                 (Values{1, 2, 3, 4, 5, 6, 7, 8}));
        QCOMPARE(
            first(OpKind::Concatenate,
                  {tensor({2, 1}, ElementType::I64, {1, 2}), tensor({2, 2}, ElementType::I64, {3, 4, 5, 6})},
                  DimensionAttribute{1}),
            (Values{1, 3, 4, 2, 5, 6}));
    }

    void pad() {
        const Tensor x = tensor({2, 3}, ElementType::I32, {1, 2, 3, 4, 5, 6});
        // The spec's example: low [0, 1], high [2, 1], interior [1, 2].
        QCOMPARE(first(OpKind::Pad, {x, scalar(ElementType::I32, 0)}, PadAttributes{{0, 1}, {2, 1}, {1, 2}}),
                 (Values{0, 1, 0, 0, 2, 0, 0, 3, 0,  //
                         0, 0, 0, 0, 0, 0, 0, 0, 0,  //
                         0, 4, 0, 0, 5, 0, 0, 6, 0,  //
                         0, 0, 0, 0, 0, 0, 0, 0, 0,  //
                         0, 0, 0, 0, 0, 0, 0, 0, 0}));
        // Negative edge padding removes elements of the interior-padded operand: rows [p, 1 p 2 p 3, p] lose
        // the last; columns [1 p 2 p 3] lose the first two and gain one.
        QCOMPARE(
            first(OpKind::Pad, {x, scalar(ElementType::I32, -1)}, PadAttributes{{1, -2}, {-1, 1}, {1, 1}}),
            (Values{-1, -1, -1, -1,  //
                    2, -1, 3, -1,    //
                    -1, -1, -1, -1}));
        QCOMPARE(
            first(OpKind::Pad, {x, scalar(ElementType::I32, 0)}, PadAttributes{{0, -1}, {-1, -1}, {0, 0}}),
            (Values{2}));
    }

    void dynamicSliceClamps() {
        const Tensor x =
            tensor({4, 4}, ElementType::I32, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
        // Starts (-1, 3) clamp to (0, 2): the spec's example.
        QCOMPARE(first(OpKind::DynamicSlice, {x, scalar(ElementType::I64, -1), scalar(ElementType::I64, 3)},
                       DynamicSliceAttributes{{2, 2}}),
                 (Values{2, 3, 6, 7}));
        QCOMPARE(first(OpKind::DynamicSlice, {x, scalar(ElementType::I32, 1), scalar(ElementType::I32, 1)},
                       DynamicSliceAttributes{{3, 2}}),
                 (Values{5, 6, 9, 10, 13, 14}));
        QCOMPARE(
            first(OpKind::DynamicUpdateSlice, {x, tensor({2, 2}, ElementType::I32, {-1, -2, -3, -4}),
                                               scalar(ElementType::I64, -1), scalar(ElementType::I64, 3)}),
            (Values{0, 1, -1, -2, 4, 5, -3, -4, 8, 9, 10, 11, 12, 13, 14, 15}));
        QCOMPARE(
            first(OpKind::DynamicUpdateSlice, {x, tensor({1, 2}, ElementType::I32, {-1, -2}),
                                               scalar(ElementType::I32, 7), scalar(ElementType::I32, 1)}),
            (Values{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, -1, -2, 15}));
    }

    void optimizationBarrier() {
        auto out = runOp(OpKind::OptimizationBarrier,
                         {scalar(ElementType::F32, 0.5), tensor({2}, ElementType::I32, {1, 2})});
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QCOMPARE(out->at(0).values, (Values{0.5}));
        QCOMPARE(out->at(1).values, (Values{1, 2}));
    }

    // --- contractions ---
    void dotGeneral() {
        // The spec's example: batch dims [0], contracting lhs 2 with rhs 1, rhs identity matrices.
        const Tensor lhs = tensor({2, 2, 2}, ElementType::I32, {1, 2, 3, 4, 5, 6, 7, 8});
        const Tensor identity = tensor({2, 2, 2}, ElementType::I32, {1, 0, 0, 1, 1, 0, 0, 1});
        QCOMPARE(first(OpKind::DotGeneral, {lhs, identity}, DotDimensions{{0}, {0}, {2}, {1}}),
                 (Values{1, 2, 3, 4, 5, 6, 7, 8}));
        // Batched matmul with real numbers: [b, m, k] x [b, k, n].
        const Tensor a = tensor({2, 1, 2}, ElementType::F32, {1, 2, 3, 4});
        const Tensor c = tensor({2, 2, 2}, ElementType::F32, {1, 2, 3, 4, 5, 6, 7, 8});
        QCOMPARE(first(OpKind::DotGeneral, {a, c}, DotDimensions{{0}, {0}, {2}, {1}}),
                 (Values{7, 10, 3 * 5 + 4 * 7, 3 * 6 + 4 * 8}));
        // Contracting dimensions first in lhs and last in rhs: result [m, n] = lhs^T rhs^T; free dims in
        // order.
        const Tensor k = tensor({2, 3}, ElementType::F64, {1, 2, 3, 4, 5, 6});  // [k, m]
        const Tensor r = tensor({2, 2}, ElementType::F64, {1, -1, 2, 0});       // [n, k]
        QCOMPARE(first(OpKind::DotGeneral, {k, r}, DotDimensions{{}, {}, {0}, {1}}),
                 (Values{-3, 2, -3, 4, -3, 6}));
        // Batch dimension in the middle of rhs and last in lhs; two contracting dimensions.
        const Tensor l2 = tensor({2, 2, 2}, ElementType::F64, {1, 2, 3, 4, 5, 6, 7, 8});  // [k1, k2, b]
        const Tensor r2 = tensor({2, 2, 2}, ElementType::F64, {1, 1, 1, 1, 1, 1, 1, 1});  // [k2, b, k1]
        QCOMPARE(first(OpKind::DotGeneral, {l2, r2}, DotDimensions{{2}, {1}, {0, 1}, {2, 0}}),
                 (Values{1 + 3 + 5 + 7, 2 + 4 + 6 + 8}));
        // Integer accumulation wraps; a preferred result type other than the operands'.
        QCOMPARE(first(OpKind::DotGeneral,
                       {tensor({2}, ElementType::I8, {100, 100}), tensor({2}, ElementType::I8, {2, 1})},
                       DotDimensions{{}, {}, {0}, {0}}),
                 (Values{44}));
        QCOMPARE(first(OpKind::DotGeneral,
                       {tensor({2}, ElementType::I8, {-100, -100}), tensor({2}, ElementType::I8, {2, 1})},
                       DotDimensions{{}, {}, {0}, {0}}, {TensorType{{}, ElementType::I32}}),
                 (Values{-300}));
        QCOMPARE(first(OpKind::DotGeneral,
                       {tensor({2}, ElementType::BF16, {1.5, 2}), tensor({2}, ElementType::BF16, {2, 0.5})},
                       DotDimensions{{}, {}, {0}, {0}}, {TensorType{{}, ElementType::F32}}),
                 (Values{4}));
    }

    void convolutionLiterals() {
        // The spec's example: lhs_dilation 2, strides 4, 3x3 kernel of ones, NHWC x HWIO.
        ConvolutionAttributes c = ConvolutionAttributes::channelsLast(2);
        c.windowStrides = {4, 4};
        c.lhsDilation = {2, 2};
        const Tensor lhs =
            tensor({1, 4, 4, 1}, ElementType::I32, {1, 2, 5, 6, 3, 4, 7, 8, 10, 11, 14, 15, 12, 13, 16, 17});
        const Tensor ones = Tensor::filled(TensorType{{3, 3, 1, 1}, ElementType::I32}, 1);
        QCOMPARE(first(OpKind::Convolution, {lhs, ones}, c), (Values{10, 26, 46, 62}));
        // 1-D: [1 2 3 4 5] padded by one on each side, kernel [1 0 -1], stride 2: windows [0 1 2], [2 3 4],
        // [4 5 0].
        ConvolutionAttributes d = ConvolutionAttributes::channelsLast(1);
        d.windowStrides = {2};
        d.padding = {{1, 1}};
        QCOMPARE(first(OpKind::Convolution,
                       {tensor({1, 5, 1}, ElementType::F32, {1, 2, 3, 4, 5}),
                        tensor({3, 1, 1}, ElementType::F32, {1, 0, -1})},
                       d),
                 (Values{-2, -2, 4}));
        // batch_group_count 2: output features {0, 1} read batches {0, 1}, features {2, 3} read batches {2,
        // 3}.
        ConvolutionAttributes g = ConvolutionAttributes::channelsLast(1);
        g.batchGroupCount = 2;
        const Tensor in = tensor({4, 1, 2}, ElementType::F64, {1, 2, 3, 4, 5, 6, 7, 8});  // [batch, w, c]
        const Tensor k =
            tensor({1, 2, 4}, ElementType::F64, {1, 10, 100, 1000, 2, 20, 200, 2000});  // [w, i, o]
        // out[b][o] = sum_c in[group(o) * 2 + b][c] * k[c][o]
        QCOMPARE(first(OpKind::Convolution, {in, k}, g),
                 (Values{1 * 1 + 2 * 2, 1 * 10 + 2 * 20, 5 * 100 + 6 * 200, 5 * 1000 + 6 * 2000,  //
                         3 * 1 + 4 * 2, 3 * 10 + 4 * 20, 7 * 100 + 8 * 200, 7 * 1000 + 8 * 2000}));
    }

    // Padding, strides, both dilations and feature groups, in unusual layouts, against a naive NCHW
    // convolution.
    void convolutionAgainstNaive() {
        const Shape in{2, 4, 5, 6}, k{4, 2, 3, 2};  // NCHW input, OIHW kernel, 2 feature groups
        const Dims stride{2, 1}, lhsDilation{1, 2}, rhsDilation{2, 1};
        const std::vector<std::pair<std::int64_t, std::int64_t>> padding{{1, 2}, {0, 1}};
        Values input, kernel;
        for (std::int64_t i = 0; i < elementCount(in); ++i)
            input.push_back(static_cast<double>((i * 7) % 11 - 5));
        for (std::int64_t i = 0; i < elementCount(k); ++i)
            kernel.push_back(static_cast<double>((i * 5) % 7 - 3));
        Shape outShape;
        const Values expected =
            naiveConvolution(input, in, kernel, k, 2, stride, padding, lhsDilation, rhsDilation, outShape);
        QCOMPARE(outShape, (Shape{2, 4, 2, 11}));

        // The interpreter gets NHWC input, O,H,W,I kernel and produces NCHW output.
        ConvolutionAttributes c;
        c.inputBatch = 0;
        c.inputSpatial = {1, 2};
        c.inputFeature = 3;
        c.kernelOutputFeature = 0;
        c.kernelSpatial = {1, 2};
        c.kernelInputFeature = 3;
        c.outputBatch = 0;
        c.outputFeature = 1;
        c.outputSpatial = {2, 3};
        c.windowStrides = stride;
        c.padding = padding;
        c.lhsDilation = lhsDilation;
        c.rhsDilation = rhsDilation;
        c.featureGroupCount = 2;
        const Tensor nhwc = tensor({2, 5, 6, 4}, ElementType::F64, permuted(input, in, {0, 2, 3, 1}));
        const Tensor ohwi = tensor({4, 3, 2, 2}, ElementType::F64, permuted(kernel, k, {0, 2, 3, 1}));
        auto out = runOp(OpKind::Convolution, {nhwc, ohwi}, c);
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QCOMPARE(out->front().type.shape, outShape);
        QCOMPARE(out->front().values, expected);
    }

    // --- regions ---
    void reduce() {
        GraphBuilder b("r");
        ValueId x = b.input("x", {2, 3}, ElementType::I32);
        b.output(b.reduce(x, {1}, Reducer::Add), "rows");
        b.output(b.reduce(x, {0}, Reducer::Maximum), "cols");
        b.output(b.reduce(x, {0, 1}, Reducer::Multiply), "all");
        auto out = interpret::run(finish(b), {tensor({2, 3}, ElementType::I32, {0, 1, 2, 3, 4, 5})});
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QCOMPARE(out->at(0).values, (Values{3, 12}));
        QCOMPARE(out->at(1).values, (Values{3, 4, 5}));
        QCOMPARE(out->at(2).values, (Values{0}));
    }

    // A variadic reduce with a multi-op body (through the evaluator): argmax as (value, index) pairs.
    void variadicReduceArgmax() {
        GraphBuilder b("argmax");
        ValueId x = b.input("x", {2, 4}, ElementType::F32);
        ValueId index = b.iota(TensorType{{2, 4}, ElementType::I32}, 1);
        ValueId lowest = b.scalar(-kInf, ElementType::F32), zero = b.scalar(0, ElementType::I32);
        const TensorType f{{}, ElementType::F32}, i{{}, ElementType::I32};
        Region body = b.region({f, i, f, i}, [&](const std::vector<ValueId>& a) {
            ValueId take = b.compare(a[2], a[0], CompareDirection::GT);
            return std::vector<ValueId>{b.select(take, a[2], a[0]), b.select(take, a[3], a[1])};
        });
        auto r = b.op(OpKind::Reduce, {x, index, lowest, zero}, ReduceAttributes{{1}, Reducer::Other},
                      "argmax", {body});
        b.output(r[0], "max");
        b.output(r[1], "argmax");
        auto out =
            interpret::run(finish(b), {tensor({2, 4}, ElementType::F32, {3, 9, 2, 9, -1, -3, -0.5, -2})});
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QCOMPARE(out->at(0).values, (Values{9, -0.5}));
        QCOMPARE(out->at(1).values, (Values{1, 2}));  // the first maximum wins
    }

    void reduceWindow() {
        GraphBuilder b("rw");
        ValueId x = b.input("x", {4, 4}, ElementType::F32);
        WindowAttributes pool;
        pool.windowDimensions = {2, 2};
        pool.windowStrides = {2, 2};
        pool.reducer = Reducer::Maximum;
        b.output(b.reduceWindow(x, pool), "maxpool");
        // The spec's example: base and window dilations with padding.
        ValueId y = b.input("y", {3, 2}, ElementType::I32);
        WindowAttributes w;
        w.windowDimensions = {2, 1};
        w.windowStrides = {4, 1};
        w.baseDilations = {2, 1};
        w.windowDilations = {3, 1};
        w.padding = {{2, 1}, {0, 0}};
        w.reducer = Reducer::Add;
        b.output(b.reduceWindow(y, w), "spec");
        // A running sum by padding S - 1 on the left (as the MoE router's positions).
        ValueId z = b.input("z", {4}, ElementType::F32);
        WindowAttributes cumsum;
        cumsum.windowDimensions = {4};
        cumsum.padding = {{3, 0}};
        b.output(b.reduceWindow(z, cumsum), "cumsum");
        auto out = interpret::run(finish(b), {tensor({4, 4}, ElementType::F32,
                                                     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}),
                                              tensor({3, 2}, ElementType::I32, {1, 2, 3, 4, 5, 6}),
                                              tensor({4}, ElementType::F32, {1, 2, 3, 4})});
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QCOMPARE(out->at(0).values, (Values{6, 8, 14, 16}));
        QCOMPARE(out->at(1).values, (Values{0, 0, 3, 4}));
        QCOMPARE(out->at(2).values, (Values{1, 3, 6, 10}));
    }

    void selectAndScatter() {
        auto run = [](const Tensor& operand, const Tensor& source, WindowAttributes w) {
            GraphBuilder b("sas");
            ValueId x = b.input("x", operand.type.shape, operand.type.element);
            ValueId s = b.input("s", source.type.shape, source.type.element);
            ValueId init = b.scalar(0, operand.type.element);
            Region select = binaryRegion(b, OpKind::Compare, operand.type.element,
                                         cmp(CompareDirection::GE, CompareType::Signed));
            Region scatter = binaryRegion(b, OpKind::Add, operand.type.element);
            b.output(
                b.op(OpKind::SelectAndScatter, {x, s, init}, std::move(w), "grad", {select, scatter}).front(),
                "y");
            return valuesOf(interpret::run(finish(b), {operand, source}));
        };
        // The spec's example.
        WindowAttributes w;
        w.windowDimensions = {3, 1};
        w.windowStrides = {2, 1};
        w.padding = {{0, 1}, {0, 0}};
        QCOMPARE(run(tensor({4, 2}, ElementType::I32, {1, 5, 2, 5, 3, 6, 4, 4}),
                     tensor({2, 2}, ElementType::I32, {5, 6, 7, 8}), w),
                 (Values{0, 0, 0, 0, 5, 14, 7, 0}));
        // The gradient of a 2x2 max-pool: each source value lands on its window's maximum.
        WindowAttributes pool;
        pool.windowDimensions = {2, 2};
        pool.windowStrides = {2, 2};
        QCOMPARE(run(tensor({4, 4}, ElementType::I32, {1, 5, 3, 2, 4, 2, 8, 1, 0, 9, 1, 1, 3, 2, 6, 7}),
                     tensor({2, 2}, ElementType::I32, {10, 20, 30, 40}), pool),
                 (Values{0, 10, 0, 0, 0, 0, 20, 0, 0, 30, 0, 0, 0, 0, 0, 40}));
    }

    void gather() {
        // The spec's example.
        Values operand;
        for (int i = 1; i <= 24; ++i)
            operand.push_back(i);
        GatherAttributes g;
        g.offsetDims = {2, 3};
        g.collapsedSliceDims = {0};
        g.startIndexMap = {1, 0};
        g.indexVectorDim = 2;
        g.sliceSizes = {1, 2, 2};
        const Tensor indices = tensor({2, 3, 2}, ElementType::I64, {0, 0, 1, 0, 2, 1, 0, 1, 1, 1, 0, 2});
        QCOMPARE(
            first(OpKind::Gather, {tensor({3, 4, 2}, ElementType::I32, operand), indices}, g),
            (Values{1, 2, 3, 4, 3, 4, 5, 6, 13, 14, 15, 16, 9, 10, 11, 12, 11, 12, 13, 14, 17, 18, 19, 20}));
        // Embedding lookup with out-of-range indices, which clamp: rows 2 (from 5) and 0 (from -3).
        GatherAttributes e;
        e.offsetDims = {1};
        e.collapsedSliceDims = {0};
        e.startIndexMap = {0};
        e.indexVectorDim = 1;
        e.sliceSizes = {1, 2};
        const Tensor table = tensor({3, 2}, ElementType::F32, {0, 1, 10, 11, 20, 21});
        QCOMPARE(first(OpKind::Gather, {table, tensor({4, 1}, ElementType::I32, {1, 5, -3, 0})}, e),
                 (Values{10, 11, 20, 21, 0, 1, 0, 1}));
        // Batching dimensions: row b of the operand is indexed by start_indices[b].
        GatherAttributes batched;
        batched.collapsedSliceDims = {1};
        batched.operandBatchingDims = {0};
        batched.startIndicesBatchingDims = {0};
        batched.startIndexMap = {1};
        batched.indexVectorDim = 1;
        batched.sliceSizes = {1, 1};
        QCOMPARE(first(OpKind::Gather,
                       {tensor({2, 3}, ElementType::F32, {10, 11, 12, 20, 21, 22}),
                        tensor({2, 1}, ElementType::I32, {2, 0})},
                       batched),
                 (Values{12, 20}));
        // index_vector_dim equal to the rank: each index is a scalar.
        GatherAttributes implicit = e;
        implicit.indexVectorDim = 1;
        QCOMPARE(first(OpKind::Gather, {table, tensor({2}, ElementType::I32, {2, 1})}, implicit),
                 (Values{20, 21, 10, 11}));
    }

    void scatter() {
        auto run = [](const std::vector<Tensor>& arguments, const ScatterAttributes& s, OpKind combine) {
            GraphBuilder b("s");
            auto xs = inputs(b, arguments);
            const ElementType e = arguments[0].type.element;
            Region body =
                combine == OpKind::Opaque
                    ? b.region({TensorType{{}, e}, TensorType{{}, e}},
                               [](const std::vector<ValueId>& a) { return std::vector<ValueId>{a[1]}; })
                    : binaryRegion(b, combine, e);
            b.output(b.op(OpKind::Scatter, xs, s, "scatter", {body}).front(), "y");
            return valuesOf(interpret::run(finish(b), arguments));
        };
        // The spec's example.
        Values input;
        for (int i = 1; i <= 24; ++i)
            input.push_back(i);
        ScatterAttributes s;
        s.updateWindowDims = {2, 3};
        s.insertedWindowDims = {0};
        s.scatterDimsToOperandDims = {1, 0};
        s.indexVectorDim = 2;
        const Tensor indices = tensor({2, 3, 2}, ElementType::I64, {0, 2, 1, 0, 2, 1, 0, 1, 1, 0, 2, 0});
        const Tensor updates = Tensor::filled(TensorType{{2, 3, 2, 2}, ElementType::I32}, 1);
        QCOMPARE(
            run({tensor({3, 4, 2}, ElementType::I32, input), indices, updates}, s, OpKind::Add),
            (Values{1, 2, 5, 6, 8, 9, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 21, 22, 23, 24}));
        // Row updates in index order, replacing: the later of two updates to row 1 wins; row 7 is out of
        // range and skipped, as is the window starting at row -1.
        ScatterAttributes rows;
        rows.updateWindowDims = {1};
        rows.insertedWindowDims = {0};
        rows.scatterDimsToOperandDims = {0};
        rows.indexVectorDim = 1;
        const Tensor zeros = Tensor::filled(TensorType{{3, 2}, ElementType::F32}, 0);
        QCOMPARE(run({zeros, tensor({4, 1}, ElementType::I32, {1, 7, 1, -1}),
                      tensor({4, 2}, ElementType::F32, {1, 2, 3, 4, 5, 6, 7, 8})},
                     rows, OpKind::Opaque),
                 (Values{0, 0, 5, 6, 0, 0}));
        QCOMPARE(run({zeros, tensor({4, 1}, ElementType::I32, {1, 7, 1, 0}),
                      tensor({4, 2}, ElementType::F32, {1, 2, 3, 4, 5, 6, 7, 8})},
                     rows, OpKind::Add),
                 (Values{7, 8, 6, 8, 0, 0}));
        // A window that would run past the end is skipped whole: a 2-row window starting at row 2 of 3.
        ScatterAttributes window;
        window.updateWindowDims = {1, 2};
        window.scatterDimsToOperandDims = {0};
        window.indexVectorDim = 1;
        QCOMPARE(run({zeros, tensor({2, 1}, ElementType::I32, {2, 1}),
                      tensor({2, 2, 2}, ElementType::F32, {1, 1, 1, 1, 2, 3, 4, 5})},
                     window, OpKind::Add),
                 (Values{0, 0, 2, 3, 4, 5}));
        // Batching dimensions: row b of the input is indexed by scatter_indices[b].
        ScatterAttributes batched;
        batched.insertedWindowDims = {1};
        batched.inputBatchingDims = {0};
        batched.scatterIndicesBatchingDims = {0};
        batched.scatterDimsToOperandDims = {1};
        batched.indexVectorDim = 1;
        QCOMPARE(run({Tensor::filled(TensorType{{2, 3}, ElementType::F32}, 0),
                      tensor({2, 1}, ElementType::I32, {1, 2}), tensor({2}, ElementType::F32, {5, 7})},
                     batched, OpKind::Add),
                 (Values{0, 5, 0, 0, 0, 7}));
    }

    void sort() {
        // The spec's example: two operands sorted along dimension 0 by the first, descending.
        GraphBuilder b("sort");
        ValueId x = b.input("x", {2, 3}, ElementType::I64), y = b.input("y", {2, 3}, ElementType::I64);
        const TensorType s{{}, ElementType::I64};
        Region greater = b.region({s, s, s, s}, [&](const std::vector<ValueId>& a) {
            return std::vector<ValueId>{b.compare(a[0], a[1], CompareDirection::GT)};
        });
        auto sorted = b.op(OpKind::Sort, {x, y}, SortAttributes{0, true}, "sort", {greater});
        b.output(sorted[0], "x");
        b.output(sorted[1], "y");
        auto out = interpret::run(finish(b), {tensor({2, 3}, ElementType::I64, {1, 2, 3, 3, 2, 1}),
                                              tensor({2, 3}, ElementType::I64, {3, 2, 1, 1, 2, 3})});
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QCOMPARE(out->at(0).values, (Values{3, 2, 3, 1, 2, 1}));
        QCOMPARE(out->at(1).values, (Values{1, 2, 1, 3, 2, 3}));
    }

    // Stable sort along the last dimension (dimension -1) with a comparator that is not a single op.
    void sortStable() {
        GraphBuilder b("sort");
        ValueId keys = b.input("keys", {2, 5}, ElementType::F32),
                payload = b.input("payload", {2, 5}, ElementType::I32);
        const TensorType f{{}, ElementType::F32}, i{{}, ElementType::I32};
        Region ascending =
            b.region({f, f, i, i}, [&](const std::vector<ValueId>& a) {  // -lhs > -rhs, i.e. lhs < rhs
                return std::vector<ValueId>{b.compare(b.unary(OpKind::Negate, a[0]),
                                                      b.unary(OpKind::Negate, a[1]), CompareDirection::GT)};
            });
        auto sorted = b.op(OpKind::Sort, {keys, payload}, SortAttributes{-1, true}, "sort", {ascending});
        b.output(sorted[0], "keys");
        b.output(sorted[1], "payload");
        auto out =
            interpret::run(finish(b), {tensor({2, 5}, ElementType::F32, {1, 0, 1, 0, 1, 5, 4, 3, 2, 1}),
                                       tensor({2, 5}, ElementType::I32, {0, 1, 2, 3, 4, 0, 1, 2, 3, 4})});
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QCOMPARE(out->at(0).values, (Values{0, 0, 1, 1, 1, 1, 2, 3, 4, 5}));
        QCOMPARE(out->at(1).values, (Values{1, 3, 0, 2, 4, 4, 3, 2, 1, 0}));
    }

    // while computing 5! = 120; the body uses a constant from the enclosing scope.
    void whileFactorial() {
        GraphBuilder b("factorial");
        ValueId n = b.input("n", {}, ElementType::I32);
        ValueId one = b.scalar(1, ElementType::I32);
        const TensorType i32{{}, ElementType::I32};
        Region cond = b.region({i32, i32}, [&](const std::vector<ValueId>& a) {
            return std::vector<ValueId>{b.compare(a[0], n, CompareDirection::LE)};
        });
        Region body = b.region({i32, i32}, [&](const std::vector<ValueId>& a) {
            return std::vector<ValueId>{b.add(a[0], one), b.multiply(a[1], a[0])};
        });
        auto loop = b.op(OpKind::While, {one, one}, LoopAttributes{}, "loop", {cond, body});
        b.output(loop[0], "i");
        b.output(loop[1], "factorial");
        const Graph g = finish(b);
        auto out = interpret::run(g, {scalar(ElementType::I32, 5)});
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QCOMPARE(out->at(0).values, (Values{6}));
        QCOMPARE(out->at(1).values, (Values{120}));
        auto zero = interpret::run(g, {scalar(ElementType::I32, 0)});
        QVERIFY(zero.ok());
        QCOMPARE(zero->at(1).values, (Values{1}));  // the body never runs
        // 13! wraps in i32 (6227020800 mod 2^32 = 1932053504).
        auto wrapped = interpret::run(g, {scalar(ElementType::I32, 13)});
        QVERIFY(wrapped.ok());
        QCOMPARE(wrapped->at(1).values, (Values{1932053504}));
        // The iteration guard.
        interpret::Options few;
        few.maxLoopIterations = 3;
        auto limited = interpret::run(g, {scalar(ElementType::I32, 5)}, few);
        QVERIFY(!limited.ok());
        QCOMPARE(limited.diagnostics().front().code, std::string("interpret.loop-limit"));
    }

    void caseAndIf() {
        GraphBuilder b("branches");
        ValueId index = b.input("index", {}, ElementType::I32);
        ValueId predicate = b.input("p", {}, ElementType::I1);
        ValueId x = b.input("x", {2}, ElementType::I64);
        auto branchReturning = [&](double value) {
            return b.region({}, [&](const std::vector<ValueId>&) {
                return std::vector<ValueId>{b.add(x, b.constant(value, TensorType{{2}, ElementType::I64}))};
            });
        };
        Region passThrough =
            b.region({}, [&](const std::vector<ValueId>&) { return std::vector<ValueId>{x}; });
        b.output(b.op(OpKind::Case, {index}, NoAttributes{}, "case",
                      {passThrough, branchReturning(10), branchReturning(20)})
                     .front(),
                 "case");
        b.output(b.op(OpKind::If, {predicate}, NoAttributes{}, "if", {branchReturning(1), branchReturning(2)})
                     .front(),
                 "if");
        const Graph g = finish(b);
        auto run = [&](double i, double p) {
            auto out = interpret::run(g, {scalar(ElementType::I32, i), scalar(ElementType::I1, p),
                                          tensor({2}, ElementType::I64, {0, 1})});
            if (!out)
                qWarning("%s", out.errorMessage().c_str());
            return out ? std::pair{out->at(0).values, out->at(1).values} : std::pair<Values, Values>{};
        };
        QCOMPARE(run(0, 1), (std::pair<Values, Values>{{0, 1}, {1, 2}}));
        QCOMPARE(run(1, 0), (std::pair<Values, Values>{{10, 11}, {2, 3}}));
        QCOMPARE(run(2, 1).first, (Values{20, 21}));
        QCOMPARE(run(-1, 1).first, (Values{20, 21}));  // out of range: the last branch
        QCOMPARE(run(7, 1).first, (Values{20, 21}));
    }

    // Regions nest: a case branch holds a reduce whose (multi-op) body scales by a value two scopes out.
    void nestedRegions() {
        GraphBuilder b("nested");
        ValueId index = b.input("index", {}, ElementType::I32);
        ValueId x = b.input("x", {3}, ElementType::F32);
        ValueId scale = b.input("scale", {}, ElementType::F32);
        const TensorType f{{}, ElementType::F32};
        Region scaledSum = b.region({}, [&](const std::vector<ValueId>&) {
            Region body = b.region({f, f}, [&](const std::vector<ValueId>& a) {
                return std::vector<ValueId>{b.add(a[0], b.multiply(a[1], scale))};
            });
            ValueId zero = b.scalar(0, ElementType::F32);
            return b.op(OpKind::Reduce, {x, zero}, ReduceAttributes{{0}, Reducer::Other}, "sum", {body});
        });
        Region plainSum = b.region({}, [&](const std::vector<ValueId>&) {
            return std::vector<ValueId>{b.reduce(x, {0}, Reducer::Add)};
        });
        b.output(b.op(OpKind::Case, {index}, NoAttributes{}, "case", {plainSum, scaledSum}).front(), "y");
        const Graph g = finish(b);
        const Tensor values = tensor({3}, ElementType::F32, {1, 2, 3});
        QCOMPARE(
            valuesOf(interpret::run(g, {scalar(ElementType::I32, 1), values, scalar(ElementType::F32, 2)})),
            (Values{12}));
        QCOMPARE(
            valuesOf(interpret::run(g, {scalar(ElementType::I32, 0), values, scalar(ElementType::F32, 2)})),
            (Values{6}));
    }

    // --- errors ---
    void unknownConstant() {
        GraphBuilder b("c", "model.mlir");
        auto c = b.op(OpKind::Constant, {}, ConstantAttributes{}, "weights", {},
                      {TensorType{{2}, ElementType::F32}});
        b.output(c.front(), "y");
        auto out = interpret::run(finish(b), {});
        QVERIFY(!out.ok());
        const Diagnostic& d = out.diagnostics().front();
        QCOMPARE(d.code, std::string("interpret.unknown-constant"));
        QCOMPARE(d.location.name, std::string("weights"));
        QVERIFY2(d.message.find("'stablehlo.constant' (at model.mlir (weights))") != std::string::npos,
                 d.message.c_str());
        QVERIFY2(d.message.find("not known") != std::string::npos, d.message.c_str());
    }

    void unsupportedOps() {
        GraphBuilder b("u", "model.mlir");
        auto state = b.op(OpKind::Constant, {}, ConstantAttributes{{1, 2}}, "state", {},
                          {TensorType{{2}, ElementType::U64}});
        auto noise = b.op(OpKind::RngBitGenerator, {state.front()}, NoAttributes{}, "noise", {},
                          {TensorType{{2}, ElementType::U64}, TensorType{{2}, ElementType::U32}});
        b.output(noise.back(), "y");
        auto out = interpret::run(finish(b), {});
        QVERIFY(!out.ok());
        QCOMPARE(out.diagnostics().front().code, std::string("interpret.unsupported-op"));
        QCOMPARE(
            out.diagnostics().front().message,
            std::string("the interpreter cannot run 'stablehlo.rng_bit_generator' (at model.mlir (noise))"));

        auto custom = runOp(OpKind::CustomCall, {scalar(ElementType::F32, 1)},
                            CustomCallAttributes{"Sharding", ""}, {TensorType{{}, ElementType::F32}});
        QVERIFY(!custom.ok());
        QVERIFY2(
            custom.errorMessage().find("cannot run 'stablehlo.custom_call' @Sharding") != std::string::npos,
            custom.errorMessage().c_str());
        auto opaque = runOp(OpKind::Opaque, {scalar(ElementType::F32, 1)}, OpaqueAttributes{"mhlo.topk"},
                            {TensorType{{}, ElementType::F32}});
        QVERIFY(!opaque.ok());
        QVERIFY2(opaque.errorMessage().find("cannot run 'mhlo.topk'") != std::string::npos,
                 opaque.errorMessage().c_str());
        auto reduceAll =
            runOp(OpKind::AllReduce, {tensor({2}, ElementType::F32, {1, 2})}, CollectiveAttributes{});
        QVERIFY(!reduceAll.ok());
        QVERIFY2(reduceAll.errorMessage().find("cannot run 'stablehlo.all_reduce'") != std::string::npos,
                 reduceAll.errorMessage().c_str());
        // Complex values cannot be held.
        auto complex = runOp(OpKind::Convert, {scalar(ElementType::F32, 1)}, NoAttributes{},
                             {TensorType{{}, ElementType::C64}});
        QVERIFY(!complex.ok());
        QCOMPARE(complex.diagnostics().front().code, std::string("interpret.unsupported-type"));
        // Integer-only ops on floats and float-only ops on integers.
        QVERIFY(!runOp(OpKind::Xor, {scalar(ElementType::F32, 1), scalar(ElementType::F32, 1)}).ok());
        QVERIFY(!runOp(OpKind::Sqrt, {scalar(ElementType::I32, 4)}).ok());
    }

    void badArguments() {
        GraphBuilder b("args");
        ValueId x = b.input("x", {4, 8}, ElementType::F32);
        ValueId y = b.input("y", {4, 8}, ElementType::F32);
        ValueId w = b.parameter("w", {4, 8}, ElementType::F32);
        b.output(b.add(b.add(x, y), w), "sum");
        const Graph g = finish(b);
        const Tensor ok = Tensor::filled(TensorType{{4, 8}, ElementType::F32}, 1);
        auto wrongType = interpret::run(g, {ok, ok, Tensor::filled(TensorType{{4, 4}, ElementType::F32}, 1)});
        QVERIFY(!wrongType.ok());
        QCOMPARE(wrongType.diagnostics().front().code, std::string("interpret.argument"));
        QCOMPARE(wrongType.diagnostics().front().message,
                 std::string("argument #2 'w' expects tensor<4x8xf32>, got tensor<4x4xf32>"));
        auto wrongCount = interpret::run(g, {ok, ok});
        QVERIFY(!wrongCount.ok());
        QCOMPARE(wrongCount.diagnostics().front().message, std::string("the graph takes 3 arguments, got 2"));
        Tensor shortValues = ok;
        shortValues.values.pop_back();
        auto wrongSize = interpret::run(g, {ok, shortValues, ok});
        QVERIFY(!wrongSize.ok());
        QCOMPARE(wrongSize.diagnostics().front().message,
                 std::string("argument #1 'y' has 31 values for tensor<4x8xf32>"));
        auto fine = interpret::run(g, {ok, ok, ok});
        QVERIFY(fine.ok());
        QCOMPARE(fine->front().values, Values(32, 3.0));
    }

    void guards() {
        // The size guard refuses a result over maxElements.
        GraphBuilder b("big");
        ValueId x = b.input("x", {2}, ElementType::F32);
        b.output(b.broadcastInDim(x, {1000, 2}, {1}), "y");
        interpret::Options small;
        small.maxElements = 1000;
        auto out = interpret::run(finish(b), {tensor({2}, ElementType::F32, {1, 2})}, small);
        QVERIFY(!out.ok());
        QCOMPARE(out.diagnostics().front().code, std::string("interpret.too-large"));
        // A graph that does not verify is refused with the verifier's diagnostics.
        Graph broken;
        ValueId v = broken.addValue(TensorType{{2}, ElementType::F32});
        broken.arguments.push_back(Argument{v, ArgumentRole::Input, "x", {}, {}, {}});
        OpId id = broken.addOp(OpKind::Add, {v, ValueId{99}}, {TensorType{{2}, ElementType::F32}});
        broken.body.push_back(id);
        broken.outputs.push_back(Output{broken.op(id).results[0], "y", {}, {}});
        auto refused = interpret::run(broken, {tensor({2}, ElementType::F32, {1, 2})});
        QVERIFY(!refused.ok());
        QVERIFY(refused.diagnostics().front().code.rfind("ir.", 0) == 0);
    }

    // --- zoo models end to end ---
    // A one-layer GPT: finite logits of the right shape; a token changes its own and later positions' logits
    // and leaves earlier positions and the other example bit-for-bit alone (causal attention, per-example
    // compute).
    void zooGptIsCausal() {
        const Graph g = zooModel("gpt:layers=1,d_model=16,heads=2,d_ff=32,seq=4,batch=2,vocab=11,dtype=f32");
        checkCausal(g, 11);
    }

    void zooLlamaIsCausal() {
        const Graph g =
            zooModel("llama:layers=1,d_model=16,heads=4,kv_heads=2,d_ff=32,seq=4,batch=2,vocab=11,dtype=f32");
        checkCausal(g, 11);
    }

    // In bf16 every activation is rounded to 8 significant bits; the run is deterministic and finite.
    void zooGptBf16() {
        const Graph g = zooModel("gpt:layers=1,d_model=16,heads=2,d_ff=32,seq=4,batch=2,vocab=11,dtype=bf16");
        const auto arguments = randomArguments(g, 7, 11);
        auto out = interpret::run(g, arguments);
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QVERIFY(allFinite(out->front()));
        for (double v : out->front().values) {
            int exponent = 0;
            const double mantissa = std::frexp(v, &exponent) * 256;
            QCOMPARE(mantissa, std::trunc(mantissa));
        }
        auto again = interpret::run(g, arguments);
        QVERIFY(again.ok());
        QCOMPARE(again->front().values, out->front().values);
    }

    // A one-layer MLP with chosen weights against the hand computation relu(x W1 + b1) W2 + b2.
    void zooMlpMatchesHandComputation() {
        const Graph g = zooModel("mlp:layers=1,d_model=2,d_ff=3,batch=1,bias=true,activation=relu,dtype=f64");
        std::vector<Tensor> arguments;
        for (const auto& a : g.arguments)
            arguments.push_back(Tensor::filled(g.type(a.value), 0));
        arguments[argumentNamed(g, "x")].values = {1, -2};
        arguments[argumentNamed(g, "layers.0.w1.weight")].values = {1, 2, 3, 4, 5, 6};
        arguments[argumentNamed(g, "layers.0.w1.bias")].values = {10, 5, 9.5};
        arguments[argumentNamed(g, "layers.0.w2.weight")].values = {1, 0, 0, 1, 2, -2};
        arguments[argumentNamed(g, "layers.0.w2.bias")].values = {0.5, 0.25};
        // x W1 = [-7, -8, -9]; + b1 = [3, -3, 0.5]; relu = [3, 0, 0.5]; W2 = [4, -1]; + b2 = [4.5, -0.75].
        QCOMPARE(valuesOf(interpret::run(g, arguments)), (Values{4.5, -0.75}));
    }

    // MoE routing (top-k with capacity over the group) is not causal, but runs, stays finite and depends on
    // tokens.
    void zooMoe() {
        const Graph g = zooModel(
            "moe:layers=1,d_model=16,heads=2,kv_heads=1,d_ff=32,seq=4,batch=2,vocab=11,experts=4,top_k=2,"
            "dtype=f32");
        auto arguments = randomArguments(g, 3, 11);
        auto out = interpret::run(g, arguments);
        QVERIFY2(out.ok(), out.errorMessage().c_str());
        QCOMPARE(out->front().type.shape, (Shape{2, 4, 11}));
        QVERIFY(allFinite(out->front()));
        const std::size_t tokens = argumentNamed(g, "tokens");
        arguments[tokens].values[0] = std::fmod(arguments[tokens].values[0] + 1, 11);
        auto changed = interpret::run(g, arguments);
        QVERIFY(changed.ok());
        QVERIFY(changed->front().values != out->front().values);
    }

    void zooVit() {
        const Graph g = zooModel(
            "vit:image=8,patch=4,channels=3,layers=1,d_model=16,heads=2,d_ff=32,classes=5,batch=2,dtype=f32");
        checkBatchIndependent(g, {2, 5});
    }

    void zooUnet() {
        const Graph g = zooModel("unet:image=8,channels=2,classes=3,base=4,depth=2,batch=2,dtype=f32");
        checkBatchIndependent(g, {2, 8, 8, 3});
    }

private:
    void checkCausal(const Graph& g, std::int64_t vocab) {
        auto arguments = randomArguments(g, 1, vocab);
        auto base = interpret::run(g, arguments);
        QVERIFY2(base.ok(), base.errorMessage().c_str());
        const Tensor& logits = base->front();
        QCOMPARE(logits.type.shape, (Shape{2, 4, vocab}));
        QVERIFY(allFinite(logits));
        const std::size_t tokens = argumentNamed(g, "tokens");
        arguments[tokens].values[2] =
            std::fmod(arguments[tokens].values[2] + 1, static_cast<double>(vocab));  // [0, 2]
        auto changed = interpret::run(g, arguments);
        QVERIFY2(changed.ok(), changed.errorMessage().c_str());
        for (std::int64_t b = 0; b < 2; ++b)
            for (std::int64_t s = 0; s < 4; ++s) {
                bool same = true;
                for (std::int64_t v = 0; v < vocab; ++v)
                    same = same && logits.at({b, s, v}) == changed->front().at({b, s, v});
                const bool shouldChange = b == 0 && s >= 2;
                QVERIFY2(same != shouldChange, qPrintable(QString("example %1 position %2").arg(b).arg(s)));
            }
    }

    void checkBatchIndependent(const Graph& g, const Shape& outputShape) {
        auto arguments = randomArguments(g, 5, 1);
        auto base = interpret::run(g, arguments);
        QVERIFY2(base.ok(), base.errorMessage().c_str());
        QCOMPARE(base->front().type.shape, outputShape);
        QVERIFY(allFinite(base->front()));
        const std::size_t images = argumentNamed(g, "images");
        Tensor& pixels = arguments[images];
        const std::size_t half = pixels.values.size() / 2;
        for (std::size_t i = half; i < pixels.values.size(); ++i)
            pixels.values[i] += 0.5;  // change example 1 only
        auto changed = interpret::run(g, arguments);
        QVERIFY2(changed.ok(), changed.errorMessage().c_str());
        const auto& a = base->front().values;
        const auto& b = changed->front().values;
        const std::size_t outHalf = a.size() / 2;
        QVERIFY(std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(outHalf), b.begin()));
        QVERIFY(!std::equal(a.begin() + static_cast<std::ptrdiff_t>(outHalf), a.end(),
                            b.begin() + static_cast<std::ptrdiff_t>(outHalf)));
    }
};

QTEST_GUILESS_MAIN(TestInterpreter)
#include "tst_interpreter.moc"
