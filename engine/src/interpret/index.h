// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: 2026 The Shardscope Authors
// Multi-dimensional index arithmetic for row-major tensors.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "shardscope/ir/types.h"

namespace shardscope::interpret {

using Index = std::vector<std::int64_t>;

// Visits every index of a shape in row-major (lexicographic) order:
//   for (IndexIterator it(shape); !it.done(); it.next()) use(it.index());
// A scalar shape has one index, []; a shape with a zero dimension has none.
class IndexIterator {
public:
    explicit IndexIterator(ir::Shape shape)
        : shape_(std::move(shape)), index_(shape_.size(), 0), done_(ir::elementCount(shape_) == 0) {}

    bool done() const { return done_; }
    const Index& index() const { return index_; }
    std::int64_t operator[](std::size_t d) const { return index_[d]; }
    // Position of the current index in row-major order (0, 1, 2, ...).
    std::int64_t position() const { return position_; }

    void next() {
        ++position_;
        for (std::size_t d = shape_.size(); d-- > 0;) {
            if (++index_[d] < shape_[d])
                return;
            index_[d] = 0;
        }
        done_ = true;
    }

private:
    ir::Shape shape_;
    Index index_;
    std::int64_t position_ = 0;
    bool done_;
};

// Row-major strides: how far apart in the value list two indices one step apart in each dimension are.
inline std::vector<std::int64_t> rowMajorStrides(const ir::Shape& shape) {
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (std::size_t d = shape.size(); d-- > 1;)
        strides[d - 1] = strides[d] * shape[d];
    return strides;
}

// Position of `index` in the value list of a tensor with `strides`. Assumes the sizes match.
inline std::int64_t offsetOf(const Index& index, const std::vector<std::int64_t>& strides) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < index.size(); ++d)
        offset += index[d] * strides[d];
    return offset;
}

// Whether every component of `index` lies in [0, shape[d]).
inline bool inBounds(const Index& index, const ir::Shape& shape) {
    if (index.size() != shape.size())
        return false;
    for (std::size_t d = 0; d < index.size(); ++d)
        if (index[d] < 0 || index[d] >= shape[d])
            return false;
    return true;
}

}  // namespace shardscope::interpret
