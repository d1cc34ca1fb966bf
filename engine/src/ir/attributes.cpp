// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
#include "shardscope/ir/attributes.h"

#include <cmath>
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
    // The smallest and largest values of the element type: ±inf for floats, the integer range otherwise.
    double lowest = -std::numeric_limits<double>::infinity(),
           highest = std::numeric_limits<double>::infinity();
    if (!isFloat(element)) {
        int bits = bitWidth(element);
        if (element == ElementType::I1)
            bits = 1;
        if (element == ElementType::I2 || element == ElementType::U2)
            bits = 2;
        if (element == ElementType::I4 || element == ElementType::U4)
            bits = 4;
        if (element == ElementType::I1 || isUnsigned(element)) {
            lowest = 0;
            highest = std::ldexp(1.0, bits) - 1;
        } else {
            lowest = -std::ldexp(1.0, bits - 1);
            highest = std::ldexp(1.0, bits - 1) - 1;
        }
    }
    switch (reducer) {
        case Reducer::Add:
        case Reducer::Or:
            return 0;
        case Reducer::Multiply:
        case Reducer::And:
            return 1;
        case Reducer::Maximum:
            return lowest;
        case Reducer::Minimum:
            return highest;
        case Reducer::Other:
            return 0;
    }
    return 0;
}

OpKind reducerOpKind(Reducer reducer) {
    switch (reducer) {
        case Reducer::Add:
            return OpKind::Add;
        case Reducer::Multiply:
            return OpKind::Multiply;
        case Reducer::Maximum:
            return OpKind::Maximum;
        case Reducer::Minimum:
            return OpKind::Minimum;
        case Reducer::And:
            return OpKind::And;
        case Reducer::Or:
            return OpKind::Or;
        case Reducer::Other:
            return OpKind::Add;
    }
    return OpKind::Add;
}

}  // namespace shardscope::ir
