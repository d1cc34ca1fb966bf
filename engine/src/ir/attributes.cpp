#include "shardscope/ir/attributes.h"

#include <limits>

namespace shardscope::ir {

ConvolutionAttributes ConvolutionAttributes::channelsLast(int spatialRank) {
    ConvolutionAttributes c;
    c.inputBatch = 0;
    c.inputFeature = spatialRank + 1;
    c.kernelInputFeature = spatialRank;
    c.kernelOutputFeature = spatialRank + 1;
    c.outputBatch = 0;
    c.outputFeature = spatialRank + 1;
    for (int i = 0; i < spatialRank; ++i) {
        c.inputSpatial.push_back(i + 1);
        c.kernelSpatial.push_back(i);
        c.outputSpatial.push_back(i + 1);
    }
    return c;
}

double reducerIdentity(Reducer reducer, ElementType element) {
    const bool fp = isFloat(element);
    switch (reducer) {
        case Reducer::Add:
        case Reducer::Or: return 0;
        case Reducer::Multiply:
        case Reducer::And: return 1;
        case Reducer::Maximum:
            return fp ? -std::numeric_limits<double>::infinity() : static_cast<double>(std::numeric_limits<std::int32_t>::min());
        case Reducer::Minimum:
            return fp ? std::numeric_limits<double>::infinity() : static_cast<double>(std::numeric_limits<std::int32_t>::max());
        case Reducer::Other: return 0;
    }
    return 0;
}

OpKind reducerOpKind(Reducer reducer) {
    switch (reducer) {
        case Reducer::Add: return OpKind::Add;
        case Reducer::Multiply: return OpKind::Multiply;
        case Reducer::Maximum: return OpKind::Maximum;
        case Reducer::Minimum: return OpKind::Minimum;
        case Reducer::And: return OpKind::And;
        case Reducer::Or: return OpKind::Or;
        case Reducer::Other: return OpKind::Add;
    }
    return OpKind::Add;
}

}  // namespace shardscope::ir
